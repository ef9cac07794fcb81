# A private PostgreSQL for one measurement: initdb and pg_ctl in a
# directory of the caller's (the shared server is never touched), with
# pg_stat_statements preloaded. Uses `die` and `free_port` (common.sh).
#
#   private_pg_init DIR    # initdb into DIR/pgdata; sets PG_BIN, PGDATA, PG_PORT
#   ...                    # append settings to "$PGDATA/postgresql.conf"
#   private_pg_start DIR   # start it, its log in DIR/postgres.log
#   stop_private_pg        # stop it (nothing if it never started)

# initdb refuses to run as root: then the cluster belongs to `postgres`.
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

private_pg_init() { # dir
  local dir=$1
  PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  [ -x "$PG_BIN/initdb" ] || die "initdb not found under /usr/lib/postgresql/*/bin"
  PGDATA="$dir/pgdata"
  if [ "$(id -u)" = 0 ]; then chown postgres "$dir"; chmod 755 "$dir"; fi
  as_pg "$PG_BIN/initdb" -D "$PGDATA" -U postgres -A trust >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; die "initdb failed"; }
  PG_PORT=$(free_port)
  cat >>"$PGDATA/postgresql.conf" <<CONF
port = $PG_PORT
listen_addresses = '127.0.0.1'
unix_socket_directories = '$dir'
shared_preload_libraries = 'pg_stat_statements'
pg_stat_statements.track = all
max_connections = 100
CONF
}

private_pg_start() { # dir
  as_pg "$PG_BIN/pg_ctl" -D "$PGDATA" -l "$1/postgres.log" -w start >/dev/null \
    || { cat "$1/postgres.log" >&2; die "the private PostgreSQL did not start"; }
}

stop_private_pg() {
  [ -n "${PGDATA:-}" ] || return 0
  as_pg "$PG_BIN/pg_ctl" -D "$PGDATA" -m fast stop >/dev/null 2>&1 || true
}
