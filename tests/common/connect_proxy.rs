//! An HTTPS proxy (HTTP `CONNECT`) that takes every tunnel to one local
//! server, whatever host it was asked for (or, [`ConnectProxy::routed`],
//! each host to its own server), and records the hosts asked for. A hookline process started with `HTTPS_PROXY` pointing here
//! fetches `https://sns.s3.amazonaws.com/...` from a local server holding
//! a certificate for that name (from the test CA): real names, real TLS,
//! and no packet leaves the machine.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

pub struct ConnectProxy {
    /// `http://127.0.0.1:PORT`, for `HTTPS_PROXY`.
    pub url: String,
    asked: Arc<Mutex<Vec<String>>>,
}

impl ConnectProxy {
    /// Listen on a free port; every tunnel goes to `target`.
    pub async fn start(target: SocketAddr) -> ConnectProxy {
        ConnectProxy::listen(Route::Every(target)).await
    }

    /// Listen on a free port; a tunnel to one of `hosts` goes to its
    /// server, one to any other host is refused.
    pub async fn routed(hosts: Vec<(String, SocketAddr)>) -> ConnectProxy {
        ConnectProxy::listen(Route::ByHost(Arc::new(hosts))).await
    }

    async fn listen(route: Route) -> ConnectProxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let asked = Arc::new(Mutex::new(Vec::new()));
        let log = asked.clone();
        tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let (log, route) = (log.clone(), route.clone());
                tokio::spawn(async move {
                    let _ = tunnel(client, &route, &log).await;
                });
            }
        });
        ConnectProxy { url, asked }
    }

    /// The `host:port` of every `CONNECT`, in order.
    pub fn asked(&self) -> Vec<String> {
        self.asked.lock().unwrap().clone()
    }
}

/// Where tunnels go.
#[derive(Clone)]
enum Route {
    Every(SocketAddr),
    ByHost(Arc<Vec<(String, SocketAddr)>>),
}

impl Route {
    /// The server for `authority` (`host:port`).
    fn target(&self, authority: &str) -> Option<SocketAddr> {
        match self {
            Route::Every(target) => Some(*target),
            Route::ByHost(hosts) => {
                let host = authority.rsplit_once(':').map_or(authority, |(h, _)| h);
                hosts.iter().find(|(h, _)| h == host).map(|(_, a)| *a)
            }
        }
    }
}

async fn tunnel(
    mut client: TcpStream,
    route: &Route,
    log: &Mutex<Vec<String>>,
) -> std::io::Result<()> {
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        let mut byte = [0u8; 1];
        if client.read(&mut byte).await? == 0 {
            return Ok(());
        }
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head);
    let Some(authority) = head
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("CONNECT "))
        .and_then(|l| l.split(' ').next())
    else {
        client
            .write_all(b"HTTP/1.1 405 Method Not Allowed\r\n\r\n")
            .await?;
        return Ok(());
    };
    log.lock().unwrap().push(authority.to_owned());
    let Some(target) = route.target(authority) else {
        client.write_all(b"HTTP/1.1 403 Forbidden\r\n\r\n").await?;
        return Ok(());
    };
    let mut server = TcpStream::connect(target).await?;
    client
        .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
        .await?;
    tokio::io::copy_bidirectional(&mut client, &mut server).await?;
    Ok(())
}
