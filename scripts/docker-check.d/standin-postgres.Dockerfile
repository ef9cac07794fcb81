# Stand-in for postgres:15 where Docker Hub cannot be reached: Debian's
# PostgreSQL 15, with an entrypoint that does what docker-compose.yml asks
# of the official one (POSTGRES_USER, POSTGRES_DB,
# POSTGRES_HOST_AUTH_METHOD, data in /var/lib/postgresql/data).
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends postgresql-15 \
 && rm -rf /var/lib/apt/lists/*
ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PGDATA=/var/lib/postgresql/data
COPY standin-postgres-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]
CMD ["postgres"]
EXPOSE 5432
LABEL hookline.stand-in="postgres:15"
