"""One pgbench script for run.sh: KIND K [BODY_BYTES].

KIND: base (pgbench's single-row insert of a processed_event row, as
bench/lib/baselines.sh runs it), cur (hookline's record statement over the
shipped schema for K events with one handler each, without the check that
no delivery of the event carries another body), curcheck (with it), nar
(the same events over narrow_schema.sql). Event IDs are random per
transaction; bodies are BODY_BYTES of 'x' (1024).
"""
import sys
kind, k = sys.argv[1], int(sys.argv[2])
body_bytes = int(sys.argv[3]) if len(sys.argv) > 3 else 1024
ids = [f"'evt_' || :id{j}" for j in range(k)]
sets = "".join(f"\\set id{j} random(1, 2000000000)\n" for j in range(k))
arr = lambda xs, t: "ARRAY[" + ", ".join(xs) + f"]::{t}[]"
rep = lambda x: [x]*k
body = f"convert_to(repeat('x', {body_bytes}), 'UTF8')"
sha = [f"sha256(('evt_' || :id{j})::bytea)" for j in range(k)]
now = "(extract(epoch FROM clock_timestamp()) * 1000)::bigint"
inp = f"""input AS (SELECT * FROM unnest({arr(rep("'stripe'"),'text')}, {arr(rep("'default'"),'text')}, {arr(ids,'text')},
  {arr(rep("'payment_intent.succeeded'"),'text')}, {arr(sha,'bytea')}, {arr(rep(body),'bytea')}, {arr(rep("'application/json'"),'text')},
  {arr(rep("NULL"),'text')}, {arr(rep("'00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'"),'text')}, {arr(rep("NULL"),'text')})
  WITH ORDINALITY AS i(provider, tenant, event_id, event_type, body_sha256, body, content_type, forward_headers, trace_parent, query, n)),
 handlers AS (SELECT * FROM unnest({arr([str(j+1) for j in range(k)],'bigint')}, {arr(rep("'sink'"),'text')}, {arr(rep('true'),'bool')}) AS h(n, handler, lease))"""
if kind in ("cur", "curcheck"):
    check = "" if kind == "cur" else "WHERE NOT EXISTS (SELECT 1 FROM delivery d WHERE d.provider = i.provider AND d.tenant = i.tenant AND d.event_id = i.event_id AND NOT COALESCE(d.body_sha256 = i.body_sha256, d.body = i.body))"
    sql = f"""WITH {inp},
 firsts AS (SELECT DISTINCT ON (provider, tenant, event_id) * FROM input i {check} ORDER BY provider, tenant, event_id, n),
 ins AS (INSERT INTO processed_event (provider, tenant, event_id, event_type, body_sha256, body, content_type)
   SELECT provider, tenant, event_id, event_type, body_sha256, body, content_type FROM firsts ORDER BY provider, tenant, event_id
   ON CONFLICT (provider, tenant, event_id) DO NOTHING RETURNING provider, tenant, event_id),
 won AS (SELECT f.* FROM firsts f JOIN ins USING (provider, tenant, event_id)),
 deliveries AS (INSERT INTO delivery (provider, tenant, event_id, handler, event_type, content_type, body, body_sha256, forward_headers, state, next_attempt_ms, lease_owner, lease_until_ms, created_ms, updated_ms, trace_parent, query)
   SELECT e.provider, e.tenant, e.event_id, h.handler, e.event_type, e.content_type, NULL, e.body_sha256, e.forward_headers, 'pending',
     CASE WHEN h.lease THEN {now} + 30000 ELSE {now} END, CASE WHEN h.lease THEN 'owner-1' END, CASE WHEN h.lease THEN {now} + 30000 END, {now}, {now}, e.trace_parent, e.query
   FROM won e JOIN handlers h ON h.n = e.n ORDER BY e.provider, e.tenant, e.event_id, h.handler, e.n
   ON CONFLICT (provider, tenant, event_id, handler) DO NOTHING
   RETURNING provider, tenant, event_id, body_sha256, id, handler, lease_owner IS NOT NULL AS leased)
SELECT w.n, (SELECT count(*) FROM deliveries d WHERE d.provider = w.provider AND d.tenant = w.tenant AND d.event_id = w.event_id),
  (SELECT array_agg(d.id) FROM deliveries d WHERE d.provider = w.provider AND d.tenant = w.tenant AND d.event_id = w.event_id AND d.leased)
FROM won w;"""
elif kind == "nar":
    sql = f"""WITH {inp},
 firsts AS (SELECT DISTINCT ON (provider, tenant, event_id) * FROM input i ORDER BY provider, tenant, event_id, n),
 ins AS (INSERT INTO processed_event (provider, tenant, event_id, event_type, body_sha256, body, content_type, forward_headers, trace_parent, query)
   SELECT provider, tenant, event_id, event_type, body_sha256, body, content_type, forward_headers, trace_parent, query FROM firsts ORDER BY provider, tenant, event_id
   ON CONFLICT (provider, tenant, event_id) DO NOTHING RETURNING id, provider, tenant, event_id),
 won AS (SELECT f.n, ins.id FROM firsts f JOIN ins USING (provider, tenant, event_id)),
 deliveries AS (INSERT INTO delivery (event, handler, state, next_attempt_ms, lease_owner, lease_until_ms, updated_ms)
   SELECT w.id, h.handler, 0, CASE WHEN h.lease THEN {now} + 30000 ELSE {now} END, CASE WHEN h.lease THEN 'owner-1' END, CASE WHEN h.lease THEN {now} + 30000 END, {now}
   FROM won w JOIN handlers h ON h.n = w.n ORDER BY w.id, h.handler
   ON CONFLICT (event, handler) DO NOTHING RETURNING event, handler, lease_owner IS NOT NULL AS leased)
SELECT w.n, w.id, (SELECT array_agg(d.handler) FROM deliveries d WHERE d.event = w.id AND d.leased) FROM won w;"""
elif kind == "base":
    sql = f"""INSERT INTO processed_event (provider, tenant, event_id, event_type, body_sha256, body, content_type)
VALUES ('stripe', 'default', 'evt_' || :id0, 'payment_intent.succeeded', sha256(('evt_' || :id0)::bytea), {body}, 'application/json')
ON CONFLICT (provider, tenant, event_id) DO NOTHING;"""
print(sets + " ".join(sql.split()))
