# Stand-in for rust:1-bookworm where Docker Hub cannot be reached: the
# Debian stand-in, a C compiler (ring, SQLite), and the host's own Rust
# toolchain copied in (scripts/docker-check puts it in the context as
# toolchain/), and the host's trusted roots (host-ca.crt), which cargo uses
# to reach crates.io. Same layout and variables as the official image.
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends gcc libc6-dev ca-certificates \
 && rm -rf /var/lib/apt/lists/*
ENV RUSTUP_HOME=/usr/local/rustup \
    CARGO_HOME=/usr/local/cargo \
    PATH=/usr/local/cargo/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
COPY toolchain /usr/local/rustup/toolchains/stable
COPY host-ca.crt /usr/local/share/hookline-check/host-ca.crt
ENV CARGO_HTTP_CAINFO=/usr/local/share/hookline-check/host-ca.crt
RUN mkdir -p /usr/local/cargo/bin \
 && for tool in cargo rustc rustdoc; do \
      ln -s /usr/local/rustup/toolchains/stable/bin/$tool /usr/local/cargo/bin/$tool; \
    done \
 && cargo --version && rustc --version
LABEL hookline.stand-in="rust:1-bookworm"
