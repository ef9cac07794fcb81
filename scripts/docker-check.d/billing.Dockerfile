# The handler of examples/compose.toml (`http://billing.example:9000/stripe`)
# for scripts/docker-check: prints each delivery it receives and answers 200.
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 \
 && rm -rf /var/lib/apt/lists/*
COPY billing.py /billing.py
CMD ["python3", "-u", "/billing.py"]
