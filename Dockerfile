# Multi-stage build: compile in the Rust image, run as a non-root user in a
# slim Debian image with only the binary and CA certificates.
FROM rust:1-bookworm AS build
WORKDIR /src
COPY Cargo.toml Cargo.lock build.rs ./
COPY src ./src
COPY lua ./lua
COPY migrations ./migrations
COPY providers ./providers
# The benchmark tools are a member of the workspace: cargo reads their
# manifest and sources, but only `hookline` is built and shipped.
COPY bench/Cargo.toml ./bench/Cargo.toml
COPY bench/src ./bench/src
RUN cargo build --release --locked --bin hookline

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /var/lib/hookline --create-home hookline
COPY --from=build /src/target/release/hookline /usr/local/bin/hookline
USER hookline
WORKDIR /var/lib/hookline
# The embedded store writes here; mount a volume to keep it.
VOLUME ["/var/lib/hookline"]
EXPOSE 8080
ENV HOOKLINE_CONFIG=/etc/hookline/hookline.toml \
    HOOKLINE__SERVER__LISTEN=0.0.0.0:8080
ENTRYPOINT ["hookline", "serve"]
