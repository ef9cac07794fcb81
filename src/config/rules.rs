//! Rules that relate one setting to another. Each is a named function that
//! returns its own issues; [`check`] runs them all, so one run lists every
//! problem.

use super::declared::Declared;
use super::issues::{key, ConfigIssue};
use super::providers::AckMode;
use super::Settings;

type Rule = fn(&Settings, &Declared) -> Vec<ConfigIssue>;

/// Every rule, in the order their issues are listed.
const RULES: &[Rule] = &[
    max_buffered_bytes_at_least_max_body_bytes,
    redis_store_needs_one_redis_target,
    write_concurrency_leaves_connections,
    provider_window_at_least_in_progress_ttl,
    ack_timeout_below_in_progress_ttl,
    rate_burst_needs_rate_limit,
    handler_events_name_declared_providers,
    handler_timeout_below_in_progress_ttl_with_ack_handlers,
    handler_timeout_below_delivery_lease,
    client_cert_and_key_together,
    forward_headers_carry_no_shared_token,
    backoff_max_at_least_backoff_base,
    super::published::no_published_secret,
];

pub(super) fn check(s: &Settings, declared: &Declared) -> Vec<ConfigIssue> {
    RULES.iter().flat_map(|rule| rule(s, declared)).collect()
}

fn max_buffered_bytes_at_least_max_body_bytes(s: &Settings, _: &Declared) -> Vec<ConfigIssue> {
    (s.server.max_buffered_bytes < s.server.max_body_bytes)
        .then(|| {
            ConfigIssue::new(
                "server.max_buffered_bytes",
                "must be at least server.max_body_bytes, or one largest body could never be read",
            )
        })
        .into_iter()
        .collect()
}

fn redis_store_needs_one_redis_target(s: &Settings, _: &Declared) -> Vec<ConfigIssue> {
    let Some(r) = s.store.redis() else {
        return Vec::new();
    };
    match (&r.redis_url, r.redis_cluster.is_empty()) {
        (None, true) => vec![ConfigIssue::new(
            "store.redis_url",
            "the redis store needs redis_url or redis_cluster",
        )],
        (Some(_), false) => vec![ConfigIssue::new(
            "store.redis_cluster",
            "set redis_url or redis_cluster, not both",
        )],
        _ => Vec::new(),
    }
}

fn write_concurrency_leaves_connections(s: &Settings, _: &Declared) -> Vec<ConfigIssue> {
    let Some(r) = s.store.redis() else {
        return Vec::new();
    };
    (r.write_concurrency > 0 && r.write_concurrency.saturating_mul(3) >= r.pool_size)
        .then(|| {
            ConfigIssue::new(
                "store.write_concurrency",
                "must leave connections for the delivery workers and operators: 3 x write_concurrency must stay below store.pool_size",
            )
        })
        .into_iter()
        .collect()
}

fn provider_window_at_least_in_progress_ttl(s: &Settings, _: &Declared) -> Vec<ConfigIssue> {
    s.providers
        .iter()
        .filter(|(_, p)| {
            p.window_override
                .is_some_and(|w| w < s.dedup.in_progress_ttl)
        })
        .map(|(name, _)| {
            ConfigIssue::new(
                key(&key("providers", name), "window"),
                "must be at least dedup.in_progress_ttl",
            )
        })
        .collect()
}

fn ack_timeout_below_in_progress_ttl(s: &Settings, _: &Declared) -> Vec<ConfigIssue> {
    s.providers
        .iter()
        .filter(|(_, p)| p.ack == AckMode::Handlers && p.ack_timeout >= s.dedup.in_progress_ttl)
        .map(|(name, _)| {
            ConfigIssue::new(
                key(&key("providers", name), "ack_timeout"),
                "must be below dedup.in_progress_ttl: the claim must outlive the wait",
            )
        })
        .collect()
}

fn rate_burst_needs_rate_limit(s: &Settings, d: &Declared) -> Vec<ConfigIssue> {
    s.providers
        .keys()
        .map(|name| key("providers", name))
        .filter(|at| d.has(&key(at, "rate_burst")) && !d.has(&key(at, "rate_limit")))
        .map(|at| ConfigIssue::new(key(&at, "rate_burst"), "has no effect without rate_limit"))
        .collect()
}

fn handler_events_name_declared_providers(s: &Settings, d: &Declared) -> Vec<ConfigIssue> {
    let mut issues = Vec::new();
    for (name, h) in &s.handlers {
        // At the list's key, not an element's: elements that did not parse
        // were dropped, so positions here are not those of the file.
        for p in h.events.patterns() {
            let wanted = p.provider();
            // A glob in the provider half must match some provider;
            // parsing already proved it is a glob.
            let matcher = globset::Glob::new(wanted).map(|g| g.compile_matcher());
            let found = match matcher {
                Ok(m) => d.providers().any(|declared| m.is_match(declared)),
                Err(_) => false,
            };
            if !found {
                issues.push(ConfigIssue::new(
                    key(&key("handlers", name), "events"),
                    format!("\"{p}\" names provider {wanted:?}, which is not configured"),
                ));
            }
        }
    }
    issues
}

fn handler_timeout_below_in_progress_ttl_with_ack_handlers(
    s: &Settings,
    _: &Declared,
) -> Vec<ConfigIssue> {
    let Some((waiting, _)) = s.providers.iter().find(|(_, p)| p.ack == AckMode::Handlers) else {
        return Vec::new();
    };
    s.handlers
        .iter()
        .filter(|(_, h)| h.timeout >= s.dedup.in_progress_ttl)
        .map(|(name, _)| {
            ConfigIssue::new(
                key(&key("handlers", name), "timeout"),
                format!(
                    "must be below dedup.in_progress_ttl when provider {waiting} uses ack = \"handlers\""
                ),
            )
        })
        .collect()
}

fn handler_timeout_below_delivery_lease(s: &Settings, _: &Declared) -> Vec<ConfigIssue> {
    s.handlers
        .iter()
        .filter(|(_, h)| h.timeout >= s.delivery.lease)
        .map(|(name, _)| {
            ConfigIssue::new(
                key(&key("handlers", name), "timeout"),
                "must be below delivery.lease, or a slow attempt would be delivered twice",
            )
        })
        .collect()
}

fn client_cert_and_key_together(s: &Settings, d: &Declared) -> Vec<ConfigIssue> {
    let mut issues = Vec::new();
    for name in s.handlers.keys() {
        let at = key("handlers", name);
        let (cert, key_file) = (key(&at, "client_cert_file"), key(&at, "client_key_file"));
        match (d.has(&cert), d.has(&key_file)) {
            (true, false) => issues.push(ConfigIssue::new(
                key_file,
                "client_cert_file needs client_key_file (set both or neither)",
            )),
            (false, true) => issues.push(ConfigIssue::new(
                cert,
                "client_key_file needs client_cert_file (set both or neither)",
            )),
            _ => {}
        }
    }
    issues
}

/// A `token` scheme's header is the provider's secret itself.
fn forward_headers_carry_no_shared_token(s: &Settings, _: &Declared) -> Vec<ConfigIssue> {
    let mut issues = Vec::new();
    for (pname, p) in &s.providers {
        let Some(def) = p.def.get() else { continue };
        // Only a shared token travels as a header value that is itself
        // the secret.
        let secret_headers = def.secret_headers();
        if secret_headers.is_empty() {
            continue;
        }
        for (hname, h) in &s.handlers {
            // At the list's key, as for events.
            for f in &h.forward_headers {
                if secret_headers
                    .iter()
                    .any(|n| n.eq_ignore_ascii_case(f.name().as_str()))
                {
                    issues.push(ConfigIssue::new(
                        key(&key("handlers", hname), "forward_headers"),
                        format!("{f} carries provider {pname}'s shared secret"),
                    ));
                }
            }
        }
    }
    issues
}

fn backoff_max_at_least_backoff_base(s: &Settings, _: &Declared) -> Vec<ConfigIssue> {
    (s.delivery.backoff_max < s.delivery.backoff_base)
        .then(|| {
            ConfigIssue::new(
                "delivery.backoff_max",
                "must be at least delivery.backoff_base",
            )
        })
        .into_iter()
        .collect()
}
