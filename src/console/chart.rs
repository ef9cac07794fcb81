//! Small charts drawn on the server as SVG: one stacked bar per minute,
//! colours from the stylesheet (by class), no script and no library.

use std::collections::BTreeMap;

use maud::{html, Markup};

use super::recent::{Series, MINUTES};

const WIDTH: u64 = 300;
const HEIGHT: u64 = 60;
const BAR: u64 = WIDTH / MINUTES as u64;

/// The class a request outcome is drawn and summed under.
pub fn request_class(outcome: &str) -> &'static str {
    match outcome {
        "accepted" => "accepted",
        "duplicate" => "duplicate",
        // Answered 200 and kept for an operator: not refused.
        "held" => "held",
        "event_id_conflict" => "conflict",
        // A provider's handshake, answered: no event, not refused.
        "handshake" => "handshake",
        // The provider is told to retry (`Retry-After`, or a 408): not a
        // verdict on the event.
        "in_progress" | "rate_limited" | "too_many_failures" | "store_unavailable"
        | "buffer_full" | "not_acknowledged" | "dead_lettered" | "fetch_failed"
        | "body_timeout" => "retry",
        _ => "rejected",
    }
}

/// Series summed by class, in the order given.
pub fn by_class(
    series: &BTreeMap<String, Series>,
    classes: &[&'static str],
    class_of: fn(&str) -> &'static str,
) -> Vec<(&'static str, Series)> {
    classes
        .iter()
        .map(|class| {
            let mut sum = vec![0; MINUTES];
            for (outcome, s) in series {
                if class_of(outcome) == *class {
                    sum.iter_mut().zip(s).for_each(|(a, b)| *a += b);
                }
            }
            (*class, sum)
        })
        .collect()
}

/// A stacked bar chart of the last hour, with its totals as a legend.
pub fn stacked(label: &str, stacks: &[(&'static str, Series)]) -> Markup {
    let peak = (0..MINUTES)
        .map(|m| stacks.iter().map(|(_, s)| s[m]).sum::<u64>())
        .max()
        .unwrap_or(0)
        .max(1);
    let summary: Vec<String> = stacks
        .iter()
        .map(|(class, s)| format!("{} {class}", s.iter().sum::<u64>()))
        .collect();
    html! {
        figure.chart {
            svg viewBox={ "0 0 " (WIDTH) " " (HEIGHT) } preserveAspectRatio="none"
                role="img" aria-label={ (label) ", last hour: " (summary.join(", ")) } {
                @for (class, d) in paths(stacks, peak) {
                    path class=(class) d=(d) {}
                }
            }
            figcaption {
                (label) " · peak " (peak) "/min · "
                @for (class, s) in stacks {
                    span class={ "key " (class) } { (s.iter().sum::<u64>()) " " (class) } " "
                }
            }
        }
    }
}

/// One path per class: a rectangle per minute, stacked from the bottom in
/// the order of `stacks` (a path per class rather than a rect per bar keeps
/// a busy hour a few KB).
fn paths(stacks: &[(&'static str, Series)], peak: u64) -> Vec<(&'static str, String)> {
    let mut base = [HEIGHT; MINUTES];
    stacks
        .iter()
        .map(|(class, s)| {
            let mut d = String::new();
            for (m, n) in s.iter().enumerate().filter(|(_, n)| **n > 0) {
                let h = (n * HEIGHT).div_ceil(peak).min(base[m]);
                base[m] -= h;
                d.push_str(&format!(
                    "M{} {}h{}v{h}h-{}z",
                    m as u64 * BAR,
                    base[m],
                    BAR - 1,
                    BAR - 1
                ));
            }
            (*class, d)
        })
        .filter(|(_, d)| !d.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_stack_from_the_bottom_scaled_to_the_peak() {
        let mut accepted = vec![0; MINUTES];
        let mut rejected = vec![0; MINUTES];
        accepted[0] = 2;
        rejected[0] = 2;
        accepted[59] = 1;
        let p = paths(&[("accepted", accepted), ("rejected", rejected)], 4);
        assert_eq!(
            p[0],
            ("accepted", "M0 30h4v30h-4zM295 45h4v15h-4z".to_owned())
        );
        assert_eq!(p[1], ("rejected", "M0 0h4v30h-4z".to_owned()));
    }

    #[test]
    fn requests_are_rejected_only_where_no_retry_can_succeed() {
        for (outcome, class) in [
            ("accepted", "accepted"),
            ("duplicate", "duplicate"),
            ("held", "held"),
            ("event_id_conflict", "conflict"),
            ("handshake", "handshake"),
            ("dead_lettered", "retry"),
            ("fetch_failed", "retry"),
            ("too_many_failures", "retry"),
            ("body_timeout", "retry"),
            ("invalid_signature", "rejected"),
            ("unknown_tenant", "rejected"),
        ] {
            assert_eq!(request_class(outcome), class, "{outcome}");
        }
    }

    #[test]
    fn a_busy_hour_draws_in_a_few_kilobytes() {
        let busy: Vec<(&'static str, Series)> =
            ["accepted", "duplicate", "conflict", "retry", "rejected"]
                .into_iter()
                .map(|class| (class, (0..MINUTES as u64).map(|m| 1000 + m).collect()))
                .collect();
        let svg = stacked("stripe / acme", &busy).into_string();
        assert!(svg.len() < 8 * 1024, "{} bytes", svg.len());
    }
}
