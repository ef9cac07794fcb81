//! How what hookline prints reads: a count with its noun (`1 delivery`,
//! `2 deliveries`, never `deliver(y/ies)`), a duration as an operator
//! writes one in the configuration (`30d`, `1h 10m`, never `30days`, so
//! that a printed duration can be pasted back), and the name an operator
//! probably meant when one is unknown.

use std::time::Duration;

/// `n` and the noun for it.
pub fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `d` in the units the configuration takes (`d`, `h`, `m`, `s`, `ms`),
/// largest first, zero units left out: `30d`, `1d 4h`, `1m 30s`, `250ms`,
/// `0s`. Parses back to `d` (to the millisecond) as a humantime duration.
pub fn duration(d: Duration) -> String {
    let mut ms = d.as_millis();
    let mut parts = Vec::new();
    for (unit, size) in [
        ("d", 86_400_000),
        ("h", 3_600_000),
        ("m", 60_000),
        ("s", 1_000),
        ("ms", 1),
    ] {
        if ms >= size {
            parts.push(format!("{}{unit}", ms / size));
            ms %= size;
        }
    }
    if parts.is_empty() {
        "0s".into()
    } else {
        parts.join(" ")
    }
}

/// The candidate `word` is most likely a typo of: the same but for case,
/// else the closest within an edit for every three characters (at least
/// one), as `strsim` measures it (a swap of two letters is one edit).
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let lower = word.to_lowercase();
    let most = (word.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .map(|c| {
            let d = if c.to_lowercase() == lower {
                0
            } else {
                strsim::damerau_levenshtein(&lower, &c.to_lowercase())
            };
            (d, c)
        })
        .filter(|(d, _)| *d <= most)
        .min()
        .map(|(_, c)| c)
}

/// Why `kind` is no provider kind, with the one probably meant.
pub fn unknown_kind<'a>(kind: &str, kinds: impl IntoIterator<Item = &'a str>) -> String {
    match closest(kind, kinds) {
        Some(meant) => format!(
            "unknown provider kind {kind:?}: did you mean {meant:?}? (`hookline providers list` names them all)"
        ),
        None => format!("unknown provider kind {kind:?} (`hookline providers list` names them all)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_durations_read_as_an_operator_writes_them() {
        assert_eq!(plural(1, "delivery", "deliveries"), "1 delivery");
        assert_eq!(plural(0, "delivery", "deliveries"), "0 deliveries");
        for (secs, text) in [
            (30 * 86_400, "30d"),
            (86_400 + 4 * 3_600, "1d 4h"),
            (3_600 + 600, "1h 10m"),
            (90, "1m 30s"),
            (0, "0s"),
        ] {
            let d = Duration::from_secs(secs);
            assert_eq!(duration(d), text);
            assert_eq!(humantime::parse_duration(text).unwrap(), d, "{text}");
        }
        assert_eq!(duration(Duration::from_millis(250)), "250ms");
    }

    #[test]
    fn a_typo_finds_the_name_meant_and_a_stranger_finds_none() {
        let kinds = ["stripe", "github", "gitlab", "shopify", "x"];
        assert_eq!(closest("strpie", kinds), Some("stripe"));
        assert_eq!(closest("Stripe", kinds), Some("stripe"));
        assert_eq!(closest("gitlba", kinds), Some("gitlab"), "a swap");
        assert_eq!(closest("paypal", kinds), None);
        assert_eq!(closest("y", kinds), Some("x"), "one edit for a short name");
    }
}
