//! HTTP/1.1 over a bare socket, for tests that need what a client library
//! hides: a body sent in part and then nothing, the exact status line, the
//! moment the server closes the connection.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A response as it came off the wire.
#[derive(Debug)]
pub struct RawResponse {
    /// `HTTP/1.1 422 Unprocessable Content`.
    pub status_line: String,
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl RawResponse {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or_default()
    }
}

/// Connect to the app's port and send a request head (`POST path`, the
/// `headers`, `Host`), then `body` as given, which may be shorter than a
/// declared `Content-Length`.
pub async fn send_partial(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, String)],
    body: &[u8],
) -> TcpStream {
    let stream = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    write_partial(stream, port, method, path, headers, body).await
}

/// [`send_partial`] from another loopback address (`127.0.0.2`): another
/// client, as the server's per-client limits count them.
pub async fn send_partial_from(
    from: [u8; 4],
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, String)],
    body: &[u8],
) -> TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind((from, 0).into()).unwrap();
    let stream = socket.connect(([127, 0, 0, 1], port).into()).await.unwrap();
    write_partial(stream, port, method, path, headers, body).await
}

async fn write_partial(
    mut stream: TcpStream,
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, String)],
    body: &[u8],
) -> TcpStream {
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n");
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(body).await.unwrap();
    stream.flush().await.unwrap();
    stream
}

/// Read one response, within `limit`: its head, then a body of its
/// `Content-Length`. `None` if it did not come in time.
pub async fn read_response(stream: &mut TcpStream, limit: Duration) -> Option<RawResponse> {
    tokio::time::timeout(limit, read(stream, true)).await.ok()
}

/// Read a response's head only: the answer to a `HEAD`, which has a
/// `Content-Length` and no body.
pub async fn read_head(stream: &mut TcpStream, limit: Duration) -> Option<RawResponse> {
    tokio::time::timeout(limit, read(stream, false)).await.ok()
}

async fn read(stream: &mut TcpStream, with_body: bool) -> RawResponse {
    let mut buf = Vec::new();
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        let mut chunk = [0u8; 4096];
        let n = stream.read(&mut chunk).await.unwrap();
        assert!(n > 0, "connection closed before a response");
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default().to_owned();
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = buf[head_end + 4..].to_vec();
    while with_body && body.len() < length {
        let mut chunk = [0u8; 4096];
        let n = stream.read(&mut chunk).await.unwrap();
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    RawResponse {
        status_line,
        status,
        headers,
        body,
    }
}

/// Whether the server closes the connection within `limit` (reads reach
/// end of stream; anything it still sends is skipped).
pub async fn closed_within(stream: &mut TcpStream, limit: Duration) -> bool {
    let drain = async {
        let mut chunk = [0u8; 4096];
        loop {
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    };
    tokio::time::timeout(limit, drain).await.is_ok()
}
