//! A few lines of HTTP/1.1 over `tokio::net::TcpStream`, not reqwest: the
//! load generator does no per-request work besides one write and one read,
//! so on a small machine it leaves the cores to the server it measures. The
//! same client drives every target, so the ratios between them are fair.

use bytes::BytesMut;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Where requests go: `host:port` to connect to and the request path.
pub struct Target {
    pub host_port: String,
    pub path: String,
}

impl Target {
    /// Parse an `http://host:port/path` URL (plain HTTP only: every target
    /// of the benchmark is on this machine).
    pub fn parse(url: &str) -> anyhow::Result<Target> {
        let rest = url
            .strip_prefix("http://")
            .ok_or_else(|| anyhow::anyhow!("only http:// URLs: {url}"))?;
        let (host_port, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, "/"),
        };
        Ok(Target {
            host_port: host_port.to_owned(),
            path: path.to_owned(),
        })
    }
}

/// The parts of an answer the benchmark needs.
pub struct Answer {
    pub status: u16,
    /// hookline's `Webhook-Duplicate: true`.
    pub duplicate: bool,
    /// Where the body starts in the read buffer.
    pub body_at: usize,
}

/// Read one HTTP/1.1 response into `buf` (Content-Length bodies; a
/// `chunked` body is read to its terminating chunk). An answer that closes
/// the connection is an error, so the caller reconnects.
pub async fn read_response(stream: &mut TcpStream, buf: &mut BytesMut) -> anyhow::Result<Answer> {
    buf.clear();
    let head_end = loop {
        if let Some(i) = find(buf, b"\r\n\r\n") {
            break i + 4;
        }
        if stream.read_buf(buf).await? == 0 {
            anyhow::bail!("connection closed");
        }
    };
    let head = std::str::from_utf8(&buf[..head_end])?;
    let mut lines = head.split("\r\n");
    let status: u16 = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| anyhow::anyhow!("bad status line"))?;
    let (mut length, mut chunked, mut duplicate, mut close) = (0usize, false, false, false);
    for l in lines {
        let Some((k, v)) = l.split_once(':') else {
            continue;
        };
        let v = v.trim();
        if k.eq_ignore_ascii_case("content-length") {
            length = v.parse()?;
        } else if k.eq_ignore_ascii_case("transfer-encoding") {
            chunked = v.eq_ignore_ascii_case("chunked");
        } else if k.eq_ignore_ascii_case("webhook-duplicate") {
            duplicate = true;
        } else if k.eq_ignore_ascii_case("connection") {
            close = v.eq_ignore_ascii_case("close");
        }
    }
    if chunked {
        while find(&buf[head_end..], b"0\r\n\r\n").is_none() {
            if stream.read_buf(buf).await? == 0 {
                anyhow::bail!("connection closed in a chunked body");
            }
        }
    } else {
        while buf.len() < head_end + length {
            if stream.read_buf(buf).await? == 0 {
                anyhow::bail!("connection closed in the body");
            }
        }
    }
    if close {
        anyhow::bail!("server closed the connection");
    }
    Ok(Answer {
        status,
        duplicate,
        body_at: head_end,
    })
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// One request on a fresh connection; the answer's status and body.
pub async fn request(
    method: &str,
    url: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> anyhow::Result<(u16, Vec<u8>)> {
    let t = Target::parse(url)?;
    let mut s = TcpStream::connect(&t.host_port).await?;
    let mut req = format!(
        "{method} {} HTTP/1.1\r\nHost: {}\r\nContent-Length: {}\r\n",
        t.path,
        t.host_port,
        body.len()
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes()).await?;
    s.write_all(body).await?;
    let mut buf = BytesMut::with_capacity(4096);
    let a = read_response(&mut s, &mut buf).await?;
    Ok((a.status, buf[a.body_at..].to_vec()))
}

/// GET a JSON document.
pub async fn get_json(url: &str) -> anyhow::Result<serde_json::Value> {
    let (status, body) = request("GET", url, &[], b"").await?;
    anyhow::ensure!(status == 200, "GET {url}: {status}");
    Ok(serde_json::from_slice(&body)?)
}
