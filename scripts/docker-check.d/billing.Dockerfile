# The image of docker-compose.yml's `billing` service for scripts/docker-check
# (python:3-slim's stand-in): python3 only; the compose file mounts
# examples/billing.py, which prints each delivery and answers 200.
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 \
 && rm -rf /var/lib/apt/lists/*
CMD ["python3", "-u", "/billing.py"]
