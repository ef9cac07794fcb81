//! `docs/providers.md` is generated from the built-in definitions and
//! `tests/vectors/`; this test fails when the page is out of date.
//! Regenerate it with
//! `HOOKLINE_UPDATE_DOCS=1 cargo nextest run --test it providers_doc`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use hookline::provider::{describe, Definitions, ReplayGuard};

fn vectors_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors")
}

/// The first line of a kind's NOTES.md, if it says the kind is excluded.
fn exclusion(kind: &str) -> Option<String> {
    let notes = std::fs::read_to_string(vectors_dir().join(kind).join("NOTES.md")).ok()?;
    let mut lines = notes.lines();
    let reason = lines
        .next()?
        .strip_prefix("status: excluded")?
        .trim_start_matches([' ', '—', '-', ':'])
        .trim();
    if !reason.is_empty() {
        return Some(reason.to_owned());
    }
    // The reason is the paragraph after a bare `status: excluded` line.
    let paragraph: Vec<&str> = lines
        .skip_while(|l| l.trim().is_empty())
        .take_while(|l| !l.trim().is_empty())
        .map(str::trim)
        .collect();
    Some(paragraph.join(" "))
}

fn title_from_vectors(kind: &str) -> String {
    std::fs::read(vectors_dir().join(kind).join("vectors.json"))
        .ok()
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
        .and_then(|v| v["facts"]["title"].as_str().map(str::to_owned))
        .unwrap_or_else(|| kind.to_owned())
}

fn page() -> String {
    let defs = Definitions::load(None).unwrap();
    let mut out = String::new();
    let w = &mut out;
    let built: Vec<_> = defs.definitions().collect();
    let _ = writeln!(w, "# Providers\n");
    let _ = writeln!(
        w,
        "Generated from `providers/*.toml` and `tests/vectors/` by\n\
         `HOOKLINE_UPDATE_DOCS=1 cargo nextest run --test it providers_doc`; do not edit by hand.\n\
         `hookline providers list` and `hookline providers show KIND` print the same from the binary.\n"
    );
    let _ = writeln!(
        w,
        "## Built in ({})\n\nEvery one is proven by the known-answer vectors in `tests/vectors/KIND/` \
         (from the provider's SDK or documentation; see `tests/vectors/README.md`). The window is the \
         provider's documented retry horizon: the dedup window of such a provider is at least that \
         unless its config sets `window`. The tolerance, where one is given, is the one the \
         provider's official SDK applies to a signed timestamp (or the definition says why \
         another); otherwise 5 minutes. A batch is the array (at that pointer) whose items \
         are each an event, the event ID then read from each item. The fingerprint ignores \
         the delivery envelope the provider rewrites on a retry (an attempt counter, a \
         delivery timestamp), so a retry is a `duplicate` and only a change of content a \
         `conflict`. The replay guard, where one is given, is explained below.\n",
        built.len()
    );
    let _ = writeln!(
        w,
        "| Kind | Provider | Scheme | Handshake | Batch | Event ID | Fingerprint ignores | Window | Tolerance | Replay guard |"
    );
    let _ = writeln!(w, "|---|---|---|---|---|---|---|---|---|---|");
    for d in &built {
        let title = match &d.docs {
            Some(url) => format!("[{}]({url})", d.title),
            None => d.title.clone(),
        };
        let kind = if d.aliases.is_empty() {
            format!("`{}`", d.kind)
        } else {
            format!(
                "`{}` ({})",
                d.kind,
                d.aliases
                    .iter()
                    .map(|a| format!("`{a}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        let handshake = d.handshake.as_ref().map_or("", |h| h.name());
        let window = d.window.map_or(String::new(), hookline::text::duration);
        let tolerance = d.tolerance.map_or(String::new(), hookline::text::duration);
        let guard = d.replay_guard.map_or("", ReplayGuard::as_str);
        let batch = match d.batch.as_deref() {
            None => String::new(),
            Some("") => "the body".to_owned(),
            Some(pointer) => format!("`{pointer}`"),
        };
        let ignores: Vec<String> = (d.fingerprint.ignore.iter())
            .map(|p| format!("`{p}`"))
            .collect();
        let _ = writeln!(
            w,
            "| {kind} | {title} | `{}` | {handshake} | {batch} | {} | {} | {window} | {tolerance} | {guard} |",
            d.scheme_name(),
            describe(&d.event_id),
            ignores.join(" "),
        );
    }
    let _ = writeln!(
        w,
        "\n## What a built-in does not take\n\n\
         - `slack`: the Events API only. Slack's slash commands and interactivity (buttons, \
         menus, modals, shortcuts) post `application/x-www-form-urlencoded` bodies, signed the \
         same way but with no `event_id`, and Slack shows the answer to the user within 3 s: \
         hookline answers them `400 malformed_payload`, and Slack reports the command failed. \
         Point their Request URLs at your app itself, and only the Events API's at hookline.\n\n\
         - `messagebird`: only POST deliveries. MessageBird signs requests of any method (its \
         reference tokens include GET, PUT, PATCH and DELETE); hookline answers any other method \
         `405 method_not_allowed` with `Allow: POST`, before checking the signature, and takes \
         no event from it. Point only POST webhooks (with a body, or without: the event ID is \
         the body's SHA-256) at hookline.\n"
    );
    let _ = writeln!(
        w,
        "\n## Replays under a fresh ID\n\n\
         Some providers sign the body but not the header that carries the event ID. A captured \
         request resent with a new ID there passes verification, and the ID alone would take it \
         for a new event. With `replay_guard = \"body\"` (the last column above) the body's \
         digest is a second dedup key for the replay window: such a resend is held as a \
         suspected replay (answered `200 held`, kept, counted, listed in the console) and \
         delivered only once an operator releases it, never dropped. Where real events can \
         share a body, the definition says `replay_guard = \"none\"` and why (see its file). A provider's config can set either, overriding its definition. \
         On the redis store the body key lives in Redis beside the dedup key; for critical \
         events the `processed_event` rows still catch the resend if Redis lost it.\n"
    );
    for d in built.iter().filter(|d| d.replay_guard.is_some()) {
        let _ = writeln!(
            w,
            "- `{}`: `{}`",
            d.kind,
            d.replay_guard.unwrap_or_default().as_str()
        );
    }
    // `kind` or `kind: why it is pending`.
    let pending: Vec<(String, Option<String>)> =
        std::fs::read_to_string(vectors_dir().join("PENDING"))
            .unwrap()
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(|l| match l.split_once(':') {
                Some((kind, why)) => (kind.trim().to_owned(), Some(why.trim().to_owned())),
                None => (l.to_owned(), None),
            })
            .collect();
    let _ = writeln!(
        w,
        "\n## Vectors committed, not built in yet ({})\n\nTheir schemes are confirmed and their \
         vectors committed, but they need a scheme family or handshake hookline does not have yet.\n",
        pending.len()
    );
    for (kind, why) in &pending {
        let title = title_from_vectors(kind);
        match why {
            Some(why) => {
                let _ = writeln!(w, "- `{kind}`: {title}: {why}");
            }
            None => {
                let _ = writeln!(w, "- `{kind}`: {title}");
            }
        }
    }
    let mut excluded: Vec<(String, String)> = std::fs::read_dir(vectors_dir())
        .unwrap()
        .filter_map(|e| {
            let kind = e.ok()?.file_name().to_string_lossy().into_owned();
            exclusion(&kind).map(|reason| (kind, reason))
        })
        .collect();
    excluded.sort();
    let _ = writeln!(
        w,
        "\n## Left out ({})\n\nA guessed scheme is worse than none: these providers' schemes could \
         not be confirmed from their documentation or SDK, so they are not built in. Each \
         `tests/vectors/KIND/NOTES.md` says what was tried.\n",
        excluded.len()
    );
    for (kind, reason) in excluded {
        let _ = writeln!(w, "- `{kind}`: {reason}");
    }
    out
}

#[test]
fn the_providers_page_is_current() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/providers.md");
    let want = page();
    if std::env::var_os("HOOKLINE_UPDATE_DOCS").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "docs/providers.md is out of date: run HOOKLINE_UPDATE_DOCS=1 cargo nextest run --test it providers_doc"
    );
}
