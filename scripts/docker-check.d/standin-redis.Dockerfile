# Stand-in for redis:7 where Docker Hub cannot be reached: Debian's
# redis-server (7.0). Like the official image's entrypoint, a bare
# `redis-server` command runs with protected mode off, so other containers
# may connect.
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends redis-server redis-tools \
 && rm -rf /var/lib/apt/lists/*
ENTRYPOINT ["sh", "-c", "if [ \"$1\" = redis-server ]; then shift; exec redis-server --protected-mode no \"$@\"; fi; exec \"$@\"", "--"]
CMD ["redis-server"]
EXPOSE 6379
LABEL hookline.stand-in="redis:7"
