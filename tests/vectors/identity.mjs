// The event ID and type every valid case must yield, read from the case's
// request the way the vector file's `facts` say the provider sends them
// (tests/vectors/README.md). A generator calls withIdentity(out) just before
// writing vectors.json; a value the generator wrote itself is kept.
import crypto from 'node:crypto';

function bodyBytes(c) {
  return c.body_base64 !== undefined ? Buffer.from(c.body_base64, 'base64') : Buffer.from(c.body, 'utf8');
}

function header(c, names) {
  for (const name of [names].flat()) {
    const hit = c.headers.find(([k]) => k.toLowerCase() === name.toLowerCase());
    if (hit) return hit[1].trim();
  }
  return undefined;
}

// RFC 6901, as the provider's consumers read it.
function pointer(doc, p) {
  if (p === '') return doc;
  let at = doc;
  for (const raw of p.slice(1).split('/')) {
    const token = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (at === null || typeof at !== 'object' || !(token in at)) return undefined;
    at = at[token];
  }
  return at;
}

function scalar(v) {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  throw new Error(`not a scalar: ${JSON.stringify(v)}`);
}

// The value a `facts.event_id` / `facts.event_type` source names in case c.
export function valueAt(source, c) {
  if (source === null || source === undefined) return undefined;
  const body = bodyBytes(c);
  if (source.body_sha256) return crypto.createHash('sha256').update(body).digest('hex');
  if (source.header !== undefined) return header(c, source.header);
  if (source.form_field !== undefined) return new URLSearchParams(body.toString('utf8')).get(source.form_field) ?? undefined;
  const json = JSON.parse(body.toString('utf8'));
  if (source.json_pointer !== undefined) {
    // One pointer, or several where the first present wins.
    for (const p of [source.json_pointer].flat()) {
      const v = scalar(pointer(json, p));
      if (v !== undefined) return v;
    }
    return undefined;
  }
  if (source.json_pointers !== undefined) {
    const parts = source.json_pointers.map((p) => scalar(pointer(json, p)));
    return parts.includes(undefined) ? undefined : parts.join(source.join);
  }
  throw new Error(`unknown source ${JSON.stringify(source)}`);
}

// The value at a JSON source (`json_pointer`, a list of them where the first
// present wins, or `json_pointers` + `join`) inside one batch item.
function itemValue(source, item) {
  if (source === null || source === undefined) return undefined;
  // An item's own bytes: a compact body's item is its JSON text.
  if (source.body_sha256) return crypto.createHash('sha256').update(JSON.stringify(item)).digest('hex');
  if (source.json_pointers !== undefined) {
    const parts = source.json_pointers.map((p) => scalar(pointer(item, p)));
    return parts.includes(undefined) ? undefined : parts.join(source.join);
  }
  for (const p of [source.json_pointer].flat()) {
    const v = scalar(pointer(item, p));
    if (v !== undefined) return v;
  }
  return undefined;
}

// A batched provider's valid case lists every item ({id, type}, in order):
// the array at `facts.batch` ("" for the body), an object there being a
// batch of one; the ID and type are read from each item.
function withItems(out, c, eventId, eventType) {
  const at = pointer(JSON.parse(bodyBytes(c).toString('utf8')), out.facts.batch);
  const items = Array.isArray(at) ? at : at === undefined ? [] : [at];
  c.items ??= items.map((item) => {
    const id = itemValue(eventId, item);
    if (id === undefined) throw new Error(`${out.kind}: case ${c.name}: an item without an event ID where the facts say`);
    return { id, type: itemValue(eventType, item) ?? '' };
  });
  delete c.event_id;
  delete c.event_type;
}

export function withIdentity(out, { eventId = out.facts.event_id, eventType = out.facts.event_type } = {}) {
  for (const c of out.cases) {
    // `event_id: null`: signed, but no event (refused missing_event_id).
    if (c.expect !== 'valid' || c.event_id === null) continue;
    if (out.facts.batch !== undefined && out.facts.batch !== null) {
      withItems(out, c, eventId, eventType);
      continue;
    }
    if (c.event_id === undefined) {
      const id = valueAt(eventId, c);
      if (id === undefined) throw new Error(`${out.kind}: case ${c.name}: no event ID where the facts say`);
      c.event_id = id;
    }
    if (c.event_type === undefined) c.event_type = valueAt(eventType, c) ?? '';
  }
  return out;
}

// A provider whose SDK checks no time still signs one, and hookline refuses
// it outside the definition's tolerance: the first valid case's request,
// unchanged, verified `after` seconds later. The SDK's verdict on it is that
// case's (the request is the same and the SDK reads no clock).
export function withLateCopy(out, after, why) {
  const first = out.cases.find((c) => c.expect === 'valid');
  const late = { ...first, name: `${first.name}, verified ${after} s later (${why})`, now: first.now + after, expect: 'timestamp_out_of_tolerance' };
  delete late.event_id;
  delete late.event_type;
  out.cases.push(late);
  return out;
}
