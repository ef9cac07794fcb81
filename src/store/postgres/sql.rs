//! The PostgreSQL-only statements: group-committed batches over `unnest`ed
//! arrays (one statement, one transaction and one WAL flush for many
//! requests), and the check that keeps `processed_event` in agreement with
//! the deliveries. Assembled at compile time with `concat!`, so the
//! statements run per webhook and per delivery cost no formatting.

/// Milliseconds since the epoch by the database's clock
/// (`Dialect::NOW_MS`, as a macro so `concat!` can use it).
macro_rules! now_ms {
    () => {
        "(extract(epoch FROM clock_timestamp()) * 1000)::bigint"
    };
}

/// The events of a batch as one array per column (`unnest` turns them back
/// into rows, numbered from 1 in `n`), and their handlers as (n, handler)
/// triples, `lease` true for a delivery to hand to this process's workers
/// (`handoff.rs`: leased to owner $13 for $14 ms by the insert). `guard_ms`
/// is the dedup window of an event whose body is a second key
/// (`replay_guard = "body"`), else 0; `trace_parent` ($15) the request's
/// W3C `traceparent`, kept with its deliveries; `query` ($16) its query
/// string.
macro_rules! event_input {
    () => {
        "input AS (
             SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bytea[],
                                  $6::bytea[], $7::text[], $10::text[], $11::bigint[],
                                  $15::text[], $16::text[])
                 WITH ORDINALITY AS i(provider, tenant, event_id, event_type, body_sha256, body,
                                      content_type, forward_headers, guard_ms, trace_parent,
                                      query, n)
         ), handlers AS (
             SELECT * FROM unnest($8::bigint[], $9::text[], $12::bool[]) AS h(n, handler, lease)
         )"
    };
}

/// Whether a `delivery` row `d` carries another body than the input row
/// `i` (rows from before migration 0003 have no digest: compare bodies).
macro_rules! other_body {
    () => {
        "d.provider = i.provider AND d.tenant = i.tenant AND d.event_id = i.event_id
         AND NOT COALESCE(d.body_sha256 = i.body_sha256, d.body = i.body)"
    };
}

/// The pending deliveries of the events in `$from` (a relation shaped like
/// `input`), one per handler, returning what was inserted. A delivery to
/// hand off is leased in the same insert (due again when its lease ends).
/// Rows go in key order, so concurrent statements take their locks in the
/// same order and the first of them to reach an event's first handler gets
/// all of its handlers; within a batch, the first copy of an event does.
/// `$body` is the body each row keeps: NULL when the event's
/// `processed_event` row, written by the same statement, holds it
/// (migration 0010: a lease reads it from there).
macro_rules! insert_deliveries {
    ($from:literal, $body:literal) => {
        concat!(
            "INSERT INTO delivery (provider, tenant, event_id, handler, event_type, content_type,
                                   body, body_sha256, forward_headers, state, next_attempt_ms,
                                   lease_owner, lease_until_ms, created_ms, updated_ms,
                                   trace_parent, query)
             SELECT e.provider, e.tenant, e.event_id, h.handler, e.event_type, e.content_type, ",
            $body,
            ", e.body_sha256, e.forward_headers, 'pending',
                    CASE WHEN h.lease THEN ",
            now_ms!(),
            " + $14 ELSE ",
            now_ms!(),
            " END,
                    CASE WHEN h.lease THEN $13 END,
                    CASE WHEN h.lease THEN ",
            now_ms!(),
            " + $14 END, ",
            now_ms!(),
            ", ",
            now_ms!(),
            ", e.trace_parent, e.query
             FROM ",
            $from,
            " e JOIN handlers h ON h.n = e.n
             ORDER BY e.provider, e.tenant, e.event_id, h.handler, e.n
             ON CONFLICT (provider, tenant, event_id, handler) DO NOTHING
             RETURNING provider, tenant, event_id, body_sha256, id, handler,
                       lease_owner IS NOT NULL AS leased"
        )
    };
}

/// Of the deliveries `$cte` inserted for the event of `$row`, those leased
/// with its body for the hand-off: their IDs and handlers (NULL when none).
macro_rules! handed_off {
    ($cte:literal, $row:literal) => {
        concat!(
            "(SELECT array_agg(d.id ORDER BY d.handler) FROM ",
            $cte,
            " d
              WHERE d.provider = ",
            $row,
            ".provider AND d.tenant = ",
            $row,
            ".tenant
                AND d.event_id = ",
            $row,
            ".event_id AND d.body_sha256 = ",
            $row,
            ".body_sha256
                AND d.leased) AS handed_ids,
             (SELECT array_agg(d.handler ORDER BY d.handler) FROM ",
            $cte,
            " d
              WHERE d.provider = ",
            $row,
            ".provider AND d.tenant = ",
            $row,
            ".tenant
                AND d.event_id = ",
            $row,
            ".event_id AND d.body_sha256 = ",
            $row,
            ".body_sha256
                AND d.leased) AS handed_handlers"
        )
    };
}

/// Critical events: each row inserted unless its ID is recorded, its
/// deliveries carry another body, or (a guarded body) a row holds its body
/// under another ID within the window; and the deliveries of the rows that
/// are new. Of several writes of one ID in a batch only the first is
/// offered (the others find its row, like a retry would). Answers, per new
/// row, its number, how many of its deliveries were inserted and those
/// handed off; per replay, its number and -1.
pub(super) const RECORD_EVENTS: &str = concat!(
    "WITH ",
    event_input!(),
    ", replays AS (
         SELECT i.n FROM input i
         WHERE i.guard_ms > 0
           AND EXISTS (SELECT 1 FROM processed_event p
                       WHERE p.provider = i.provider AND p.tenant = i.tenant
                         AND p.body_sha256 = i.body_sha256 AND p.event_id <> i.event_id
                         AND p.received_at > now() - i.guard_ms * interval '1 millisecond')
     ), firsts AS (
         SELECT DISTINCT ON (provider, tenant, event_id) * FROM input i
         WHERE NOT EXISTS (SELECT 1 FROM delivery d WHERE ",
    other_body!(),
    ")
           AND i.n NOT IN (SELECT n FROM replays)
         ORDER BY provider, tenant, event_id, n
     ), ins AS (
         INSERT INTO processed_event
             (provider, tenant, event_id, event_type, body_sha256, body, content_type)
         SELECT provider, tenant, event_id, event_type, body_sha256, body, content_type
         FROM firsts ORDER BY provider, tenant, event_id
         ON CONFLICT (provider, tenant, event_id) DO NOTHING
         RETURNING provider, tenant, event_id
     ), won AS (
         SELECT f.* FROM firsts f JOIN ins USING (provider, tenant, event_id)
     ), deliveries AS (",
    insert_deliveries!("won", "NULL"),
    ")
     SELECT w.n, (SELECT COUNT(*) FROM deliveries d
                  WHERE d.provider = w.provider AND d.tenant = w.tenant
                    AND d.event_id = w.event_id) AS inserted, ",
    handed_off!("deliveries", "w"),
    "
     FROM won w
     UNION ALL
     SELECT r.n, -1, NULL, NULL FROM replays r"
);

/// Deliveries recorded before or without a `processed_event` row
/// (non-critical events, `ack = "handlers"`). An event whose row or
/// deliveries carry another body gets none. Answers, per input, whether it
/// was refused so, how many of its deliveries (with its body) went in, and
/// those handed off.
pub(super) const RECORD_DELIVERIES: &str = concat!(
    "WITH ",
    event_input!(),
    ", refused AS (
         SELECT i.n FROM input i
         WHERE EXISTS (SELECT 1 FROM delivery d WHERE ",
    other_body!(),
    ")
            OR EXISTS (SELECT 1 FROM processed_event p
                       WHERE p.provider = i.provider AND p.tenant = i.tenant
                         AND p.event_id = i.event_id AND p.body_sha256 <> i.body_sha256)
     ), offered AS (
         SELECT * FROM input WHERE n NOT IN (SELECT n FROM refused)
     ), ins AS (",
    insert_deliveries!("offered", "e.body"),
    ")
     SELECT i.n, i.n IN (SELECT n FROM refused) AS refused,
            (SELECT COUNT(*) FROM ins d
             WHERE d.provider = i.provider AND d.tenant = i.tenant AND d.event_id = i.event_id
               AND d.body_sha256 = i.body_sha256) AS inserted, ",
    handed_off!("ins", "i"),
    "
     FROM input i"
);

/// A new `processed_event` row ($1-$3) whose deliveries turned out to carry
/// another body than its own ($4, body $5): a concurrent request recorded
/// them first, and the handlers get that body. The row is made to describe
/// it, and its digest returned; no row returned means they agree. The
/// deliveries this row's statement recorded without a body (it was the
/// row's) keep the body they were recorded for.
pub(super) const ALIGN_ROW_WITH_DELIVERIES: &str = "
    WITH kept AS (
        UPDATE delivery SET body = $5
        WHERE provider = $1 AND tenant = $2 AND event_id = $3 AND body IS NULL
    )
    UPDATE processed_event p
    SET event_type = d.event_type, body = d.body, content_type = d.content_type,
        body_sha256 = COALESCE(d.body_sha256, sha256(d.body))
    FROM (SELECT event_type, body, body_sha256, content_type FROM delivery
          WHERE provider = $1 AND tenant = $2 AND event_id = $3 AND body IS NOT NULL
            AND NOT COALESCE(body_sha256 = $4, body = $5)
          LIMIT 1) d
    WHERE p.provider = $1 AND p.tenant = $2 AND p.event_id = $3
    RETURNING p.body_sha256";

/// Delivery outcomes and their attempt rows, each only where its worker
/// still holds the lease. Answers the numbers of the outcomes recorded.
pub(super) const RECORD_OUTCOMES: &str = concat!(
    "WITH input AS (
         SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::int[], $5::bigint[],
                              $6::int[], $7::text[], $8::bigint[], $9::bigint[], $10::text[])
             WITH ORDINALITY AS i(id, owner, state, attempts, delay_ms, status, error,
                                  started_ms, latency_ms, response_body, n)
     ), upd AS (
         UPDATE delivery d SET state = i.state, attempts = i.attempts,
                               next_attempt_ms = ",
    now_ms!(),
    " + i.delay_ms,
                               lease_owner = NULL, lease_until_ms = NULL,
                               last_status = i.status, last_error = i.error,
                               updated_ms = ",
    now_ms!(),
    "
         FROM input i
         WHERE d.id = i.id AND d.lease_owner = i.owner
         RETURNING d.id
     ), att AS (
         INSERT INTO delivery_attempt
             (delivery_id, attempt, started_ms, status, latency_ms, response_body, error)
         SELECT i.id, i.attempts, i.started_ms, i.status, i.latency_ms, i.response_body,
                i.error
         FROM input i JOIN upd USING (id)
     )
     SELECT i.n FROM input i JOIN upd USING (id)"
);
