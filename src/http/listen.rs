//! Binding the webhook listener with `server.backlog`: std's
//! `TcpListener::bind` picks its own backlog, and actix's `backlog` setting
//! applies only to sockets actix binds itself.

use std::io;
use std::net::{TcpListener, ToSocketAddrs};

use socket2::{Domain, Protocol, Socket, Type};

/// A listener on `addr` (`host:port`; the first of its addresses that
/// binds) that lets the kernel queue `backlog` connections.
pub fn bind(addr: &str, backlog: u32) -> io::Result<TcpListener> {
    let mut last = None;
    for addr in addr.to_socket_addrs()? {
        let socket = Socket::new(Domain::for_address(addr), Type::STREAM, Some(Protocol::TCP))?;
        // As std does on Unix: a restart can bind while old connections
        // linger in TIME_WAIT.
        #[cfg(unix)]
        socket.set_reuse_address(true)?;
        let bound = socket
            .bind(&addr.into())
            .and_then(|()| socket.listen(i32::try_from(backlog).unwrap_or(i32::MAX)));
        match bound {
            Ok(()) => return Ok(socket.into()),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("the address resolves to nothing")))
}
