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
        "event_id_conflict" => "conflict",
        // The provider is told to retry: not a verdict on the event.
        "in_progress" | "rate_limited" | "store_unavailable" | "buffer_full"
        | "not_acknowledged" | "body_timeout" | "handshake" => "retry",
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
                @for (class, x, y, h) in bars(stacks, peak) {
                    rect class=(class) x=(x) y=(y) width=(BAR - 1) height=(h) {}
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

/// Each non-empty piece of each bar: class, x, y and height, stacked from
/// the bottom in the order of `stacks`.
fn bars(stacks: &[(&'static str, Series)], peak: u64) -> Vec<(&'static str, u64, u64, u64)> {
    let mut out = Vec::new();
    for m in 0..MINUTES {
        let mut base = HEIGHT;
        for (class, s) in stacks.iter().filter(|(_, s)| s[m] > 0) {
            let y = base.saturating_sub((s[m] * HEIGHT).div_ceil(peak));
            out.push((*class, m as u64 * BAR, y, base - y));
            base = y;
        }
    }
    out
}
