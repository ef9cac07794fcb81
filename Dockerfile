# Multi-stage build: compile in the Rust image, run as a non-root user in a
# slim Debian image with only the binary and CA certificates. Any builder
# builds it (BuildKit, the legacy builder, buildah): no cache mounts.
FROM rust:1-bookworm AS build
WORKDIR /src
# A stripped binary, without the line tables the release profile keeps for
# backtraces: about 21 MB instead of 135 MB. Set before the first build, so
# the dependency layer is built (and cached) with the same profile.
ENV CARGO_PROFILE_RELEASE_DEBUG=false \
    CARGO_PROFILE_RELEASE_STRIP=symbols
# The dependencies in a layer of their own: the manifests and the lock,
# with empty stand-ins for the workspace's sources, built. Until
# Cargo.toml, bench/Cargo.toml or Cargo.lock change, this layer is reused,
# and a source change recompiles hookline alone. (tests/crash_matrix.rs is
# named by a [[test]] table, so cargo wants the file to exist.)
COPY Cargo.toml Cargo.lock ./
COPY bench/Cargo.toml ./bench/Cargo.toml
RUN mkdir -p src bench/src tests \
 && echo 'fn main() {}' > src/main.rs \
 && touch src/lib.rs bench/src/lib.rs tests/crash_matrix.rs \
 && cargo build --release --locked --bin hookline \
 && rm -rf src target/release/.fingerprint/hookline-* \
    target/release/deps/hookline-* target/release/deps/libhookline-*
# Then hookline itself. The benchmark tools (`bench/`) are a workspace
# member cargo must find, but not built: their empty stand-in stays.
COPY build.rs ./
COPY src ./src
COPY lua ./lua
COPY migrations ./migrations
COPY providers ./providers
RUN cargo build --release --locked --bin hookline \
 && cp target/release/hookline /usr/local/bin/hookline

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /var/lib/hookline --create-home hookline
COPY --from=build /usr/local/bin/hookline /usr/local/bin/hookline
USER hookline
WORKDIR /var/lib/hookline
# The embedded store writes here; mount a volume to keep it. A bind mount
# must be writable by uid 10001 (`chown 10001 ./data`).
VOLUME ["/var/lib/hookline"]
EXPOSE 8080
ENV HOOKLINE_CONFIG=/etc/hookline/hookline.toml \
    HOOKLINE__SERVER__LISTEN=0.0.0.0:8080
# /healthz over plain HTTP, with bash alone (the image has no curl). With
# [server.tls], override it (`--health-cmd` or the compose `healthcheck`).
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
  CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/8080 && printf 'GET /healthz HTTP/1.0\\r\\n\\r\\n' >&3 && head -n 1 <&3 | grep -q ' 200 '"]
# `docker run IMAGE migrate`, `docker run IMAGE check-config` work too.
ENTRYPOINT ["hookline"]
CMD ["serve"]
