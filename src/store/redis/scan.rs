//! Counting or listing keys by pattern with SCAN, on one server or on every
//! master of a cluster (a cluster's SCAN cursor is per node). For tests and operators:
//! it walks the keyspace, so it never runs on the request path.

use redis::aio::ConnectionLike;
use redis::cluster_async::ClusterConnection;
use redis::cluster_routing::{RoutingInfo, SingleNodeRoutingInfo};

use super::conn::Conn;
use crate::store::StoreError;

/// Keys matching `pattern`.
pub async fn count_keys(conn: Conn, pattern: &str) -> Result<u64, StoreError> {
    let mut total = 0u64;
    each_key(conn, pattern, |_| total += 1).await?;
    Ok(total)
}

/// The keys matching `pattern` (for a pattern that matches few).
pub async fn keys_matching(conn: Conn, pattern: &str) -> Result<Vec<Vec<u8>>, StoreError> {
    let mut keys = Vec::new();
    each_key(conn, pattern, |k| keys.push(k)).await?;
    Ok(keys)
}

/// Hand `found` every key matching `pattern`, on every master.
async fn each_key(
    conn: Conn,
    pattern: &str,
    mut found: impl FnMut(Vec<u8>),
) -> Result<(), StoreError> {
    match conn {
        mut single @ Conn::Single(_) => scan_node(&mut single, pattern, &mut found).await,
        Conn::Cluster(c) => {
            for (host, port) in masters(c.clone()).await? {
                let mut node = NodeConn {
                    conn: c.clone(),
                    route: RoutingInfo::SingleNode(SingleNodeRoutingInfo::ByAddress { host, port }),
                };
                scan_node(&mut node, pattern, &mut found).await?;
            }
            Ok(())
        }
    }
}

/// SCAN one node to the end of its cursor.
async fn scan_node<C: ConnectionLike + Send>(
    c: &mut C,
    pattern: &str,
    found: &mut impl FnMut(Vec<u8>),
) -> Result<(), StoreError> {
    let mut cursor: u64 = 0;
    loop {
        let (next, keys): (u64, Vec<Vec<u8>>) = redis::cmd("SCAN")
            .arg(cursor)
            .arg("MATCH")
            .arg(pattern)
            .arg("COUNT")
            .arg(1000)
            .query_async(c)
            .await
            .map_err(StoreError::redis("inventory"))?;
        keys.into_iter().for_each(&mut *found);
        if next == 0 {
            return Ok(());
        }
        cursor = next;
    }
}

/// `host:port` of every master, from `CLUSTER NODES`.
async fn masters(mut c: ClusterConnection) -> Result<Vec<(String, u16)>, StoreError> {
    let text: String = redis::cmd("CLUSTER")
        .arg("NODES")
        .query_async(&mut c)
        .await
        .map_err(StoreError::redis("inventory"))?;
    // Each line: `<id> <ip:port@cport[,hostname]> <flags> ...`.
    Ok(text
        .lines()
        .filter_map(|line| {
            let mut fields = line.split_whitespace();
            let addr = fields.nth(1)?;
            let flags = fields.next()?;
            if !flags.split(',').any(|f| f == "master") || flags.contains("fail") {
                return None;
            }
            let hostport = addr.split(['@', ',']).next()?;
            let (host, port) = hostport.rsplit_once(':')?;
            Some((host.to_owned(), port.parse().ok()?))
        })
        .collect())
}

/// A cluster connection pinned to one node, so the generic SCAN loop runs
/// on it unchanged.
struct NodeConn {
    conn: ClusterConnection,
    route: RoutingInfo,
}

impl ConnectionLike for NodeConn {
    fn req_packed_command<'a>(
        &'a mut self,
        cmd: &'a redis::Cmd,
    ) -> redis::RedisFuture<'a, redis::Value> {
        Box::pin(async move { self.conn.route_command(cmd, self.route.clone()).await })
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        _cmd: &'a redis::Pipeline,
        _offset: usize,
        _count: usize,
    ) -> redis::RedisFuture<'a, Vec<redis::Value>> {
        Box::pin(async {
            Err(redis::RedisError::from((
                redis::ErrorKind::ClientError,
                "pipelines are not routed to one node here",
            )))
        })
    }

    fn get_db(&self) -> i64 {
        0
    }
}
