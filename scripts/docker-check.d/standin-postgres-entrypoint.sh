#!/bin/sh
# The stand-in postgres image's entrypoint (standin-postgres.Dockerfile):
# initialise PGDATA once as the official image does, then run the command
# as the postgres user.
set -e
user=${POSTGRES_USER:-postgres}
db=${POSTGRES_DB:-$user}
auth=${POSTGRES_HOST_AUTH_METHOD:-trust}
if [ "$(id -u)" = 0 ]; then
    mkdir -p "$PGDATA" /run/postgresql
    chown -R postgres:postgres "$PGDATA" /run/postgresql
    chmod 700 "$PGDATA"
    exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi
if [ ! -s "$PGDATA/PG_VERSION" ]; then
    initdb -U "$user" --auth="$auth" -D "$PGDATA"
    echo "listen_addresses = '*'" >> "$PGDATA/postgresql.conf"
    echo "host all all all $auth" >> "$PGDATA/pg_hba.conf"
    pg_ctl -D "$PGDATA" -w -o "-c listen_addresses=''" start
    if [ "$db" != postgres ]; then
        createdb -U "$user" "$db"
    fi
    pg_ctl -D "$PGDATA" -w stop
fi
exec "$@"
