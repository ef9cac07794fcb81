//! Operators' filters as SQL conditions both dialects run: `AND col op $N`
//! numbered from 1, and the values they bind, in order.

use crate::store::delivery::DeliveryFilter;
use crate::store::listing::{EventFilter, VerdictFilter};

/// A value a filter binds.
pub(crate) enum Param<'a> {
    Int(i64),
    Text(&'a str),
}

/// Bind a filter's values to a query (`query_as` or `query`), in order.
macro_rules! bind {
    ($query:expr, $params:expr) => {{
        let mut query = $query;
        for p in $params {
            query = match p {
                Param::Int(v) => query.bind(v),
                Param::Text(v) => query.bind(v),
            };
        }
        query
    }};
}
pub(crate) use bind;

/// The conditions (`col op` each) and their values.
fn conditions<'a>(params: Vec<(&'static str, Param<'a>)>) -> (String, Vec<Param<'a>>) {
    let conditions = (1..)
        .zip(&params)
        .map(|(n, (col, _))| format!(" AND {col} ${n}"))
        .collect();
    (conditions, params.into_iter().map(|(_, p)| p).collect())
}

/// The identifiers that are set, as `col =` conditions.
fn texts<'a>(
    params: &mut Vec<(&'static str, Param<'a>)>,
    fields: [(&'static str, Option<&'a str>); 4],
) {
    for (col, v) in fields {
        if let Some(v) = v {
            params.push((col, Param::Text(v)));
        }
    }
}

/// A delivery filter on the `delivery` table.
pub(crate) fn deliveries(f: &DeliveryFilter) -> (String, Vec<Param<'_>>) {
    let mut params = Vec::new();
    if let Some(id) = f.id {
        params.push(("id =", Param::Int(id)));
    }
    if let Some(s) = f.state {
        params.push(("state =", Param::Text(s.as_str())));
    }
    if let Some(h) = &f.handler {
        params.push(("handler =", Param::Text(h.as_str())));
    }
    texts(
        &mut params,
        [
            ("provider =", f.provider.as_deref()),
            ("tenant =", f.tenant.as_deref()),
            ("event_id =", f.event_id.as_deref()),
            ("event_type =", f.event_type.as_deref()),
        ],
    );
    for (col, v) in [
        ("created_ms >=", f.since_ms),
        ("created_ms <", f.until_ms),
        ("id <", f.before_id),
    ] {
        if let Some(v) = v {
            params.push((col, Param::Int(v)));
        }
    }
    conditions(params)
}

/// An event filter on `processed_event` or `conflict_quarantine`.
pub(crate) fn events(f: &EventFilter) -> (String, Vec<Param<'_>>) {
    conditions(event_params(f))
}

/// A verdict filter on `request_verdict`.
pub(crate) fn verdicts(f: &VerdictFilter) -> (String, Vec<Param<'_>>) {
    let mut params = event_params(&f.event);
    if let Some(v) = f.verdict {
        params.push(("verdict =", Param::Text(v.as_str())));
    }
    for (col, v) in [
        ("received_ms >=", f.since_ms),
        ("received_ms <", f.until_ms),
    ] {
        if let Some(v) = v {
            params.push((col, Param::Int(v)));
        }
    }
    conditions(params)
}

fn event_params(f: &EventFilter) -> Vec<(&'static str, Param<'_>)> {
    let mut params = Vec::new();
    texts(
        &mut params,
        [
            ("provider =", f.provider.as_deref()),
            ("tenant =", f.tenant.as_deref()),
            ("event_id =", f.event_id.as_deref()),
            ("event_type =", f.event_type.as_deref()),
        ],
    );
    if let Some(before) = f.before_id {
        params.push(("id <", Param::Int(before)));
    }
    params
}
