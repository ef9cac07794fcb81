"""The event ID and type every valid case must yield, read from the case's
request the way the vector file's `facts` say the provider sends them
(tests/vectors/README.md). A generator calls with_identity(out) just before
writing vectors.json; a value the generator wrote itself is kept."""
import base64
import hashlib
import json
import urllib.parse


def _body(c):
    if "body_base64" in c:
        return base64.b64decode(c["body_base64"])
    return c["body"].encode("utf-8")


def _header(c, names):
    for name in names if isinstance(names, list) else [names]:
        for k, v in c["headers"]:
            if k.lower() == name.lower():
                return v.strip()
    return None


def _pointer(doc, p):
    if p == "":
        return doc
    at = doc
    for raw in p[1:].split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(at, dict) and token in at:
            at = at[token]
        elif isinstance(at, list) and token.isdigit() and int(token) < len(at):
            at = at[int(token)]
        else:
            return None
    return at


def _scalar(v):
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (str, int, float)):
        raise ValueError(f"not a scalar: {v!r}")
    return v if isinstance(v, str) else json.dumps(v)


def value_at(source, c):
    """The value a `facts.event_id` / `facts.event_type` source names in case c."""
    if source is None:
        return None
    body = _body(c)
    if source.get("body_sha256"):
        return hashlib.sha256(body).hexdigest()
    if "header" in source:
        return _header(c, source["header"])
    if "form_field" in source:
        values = urllib.parse.parse_qs(body.decode("utf-8"), keep_blank_values=True).get(source["form_field"])
        return values[0] if values else None
    doc = json.loads(body)
    if "json_pointer" in source:
        # One pointer, or several where the first present wins.
        pointers = source["json_pointer"]
        for p in pointers if isinstance(pointers, list) else [pointers]:
            found = _scalar(_pointer(doc, p))
            if found is not None:
                return found
        return None
    if "json_pointers" in source:
        parts = [_scalar(_pointer(doc, p)) for p in source["json_pointers"]]
        return None if None in parts else source["join"].join(parts)
    raise ValueError(f"unknown source {source!r}")


def with_identity(out, event_id=None, event_type=None):
    event_id = event_id or out["facts"]["event_id"]
    event_type = event_type if event_type is not None else out["facts"].get("event_type")
    for c in out["cases"]:
        # `event_id: None`: signed, but no event (refused missing_event_id).
        if c["expect"] != "valid" or ("event_id" in c and c["event_id"] is None):
            continue
        if "event_id" not in c:
            found = value_at(event_id, c)
            if found is None:
                raise ValueError(f"{out['kind']}: case {c['name']}: no event ID where the facts say")
            c["event_id"] = found
        if "event_type" not in c:
            c["event_type"] = value_at(event_type, c) or ""
    return out
