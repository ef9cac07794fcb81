//! What the ingest protocol decides about an event, in terms the HTTP
//! layer maps to an answer: [`Status`] (2xx) or [`Refusal`] (each one says
//! whether the provider should retry).

use std::time::Duration;

use crate::ids::EventId;
use crate::provider::VerifiedWebhook;
use crate::store::StoreError;

/// What became of an event that is safely recorded (or was already).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Recorded now: the first copy of its event.
    Accepted,
    /// A copy of an event already recorded with the same content.
    Duplicate,
    /// Kept as a suspected replay (its body was accepted under another
    /// event ID): recorded, not delivered until an operator releases it.
    Held,
}

impl Status {
    /// The answer's `status`, and the requests metric's `outcome`.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Accepted => "accepted",
            Status::Duplicate => "duplicate",
            Status::Held => "held",
        }
    }
}

/// An event and what became of it.
#[derive(Debug)]
pub struct Decided {
    pub ev: VerifiedWebhook,
    pub status: Status,
}

/// Why an event is not (yet) recorded as the provider sent it.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    /// Another request holds the claim; it lapses within `retry_after`.
    #[error("this event is being processed by another request")]
    InProgress { retry_after: Duration },
    /// Same event ID, other content: the original stands, this copy is
    /// quarantined. Final.
    #[error("this event ID was already received with a different body")]
    Conflict,
    /// `ack = "handlers"`: not every handler acknowledged within
    /// `ack_timeout`; the deliveries stay queued.
    #[error("not every handler acknowledged the event in time; retry later")]
    NotAcknowledged,
    /// `ack = "handlers"`: a handler's delivery of this event is in the
    /// dead letters, so waiting longer cannot help; answered at once. A
    /// retry is answered the same until an operator replays the dead
    /// letter and the handler acknowledges it.
    #[error(
        "the delivery to handler {handler:?} is in the dead letters; retry once it is replayed"
    )]
    DeadLettered { handler: String },
    /// A store failed or refused the data.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl Refusal {
    /// How bad an answer this is for a batch, whose one answer is that of
    /// its worst item: a store failure (503) over a handler (503) over a
    /// claim held elsewhere (409) over a conflict (422, final: the other
    /// items are recorded, and a retry could not change this one).
    fn severity(&self) -> u8 {
        match self {
            Refusal::Store(_) => 4,
            Refusal::DeadLettered { .. } | Refusal::NotAcknowledged => 3,
            Refusal::InProgress { .. } => 2,
            Refusal::Conflict => 1,
        }
    }
}

/// One item of a batch and what became of it.
#[derive(Debug)]
pub struct Item {
    pub event_id: EventId,
    pub result: Result<Status, Refusal>,
}

/// What became of every item of a batch, in the order they came.
#[derive(Debug, Default)]
pub struct BatchOutcome {
    pub items: Vec<Item>,
}

impl BatchOutcome {
    /// The batch's one answer: the worst refusal of any item (taken out of
    /// the list), else the status and the items: `accepted` if any item was
    /// recorded or held now, `duplicate` if every item was already (an
    /// empty batch is `accepted`: nothing to record, and it verified).
    pub fn into_answer(mut self) -> Result<(Status, Self), Refusal> {
        let worst = self
            .items
            .iter()
            .enumerate()
            .filter_map(|(i, item)| item.result.as_ref().err().map(|r| (i, r.severity())))
            .max_by_key(|(_, severity)| *severity)
            .map(|(i, _)| i);
        if let Some(i) = worst {
            return Err(self
                .items
                .swap_remove(i)
                .result
                .expect_err("the worst item is a refusal"));
        }
        let all_duplicates = !self.items.is_empty()
            && self
                .items
                .iter()
                .all(|i| matches!(i.result, Ok(Status::Duplicate)));
        let status = if all_duplicates {
            Status::Duplicate
        } else {
            Status::Accepted
        };
        Ok((status, self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(id: &str, result: Result<Status, Refusal>) -> Item {
        Item {
            event_id: EventId::parse(id).unwrap(),
            result,
        }
    }

    fn answer(items: Vec<Item>) -> Result<Status, Refusal> {
        BatchOutcome { items }.into_answer().map(|(s, _)| s)
    }

    #[test]
    fn a_batch_answers_for_its_worst_item() {
        assert_eq!(answer(vec![]).unwrap(), Status::Accepted);
        let dup = vec![
            item("a", Ok(Status::Duplicate)),
            item("b", Ok(Status::Duplicate)),
        ];
        assert_eq!(answer(dup).unwrap(), Status::Duplicate);
        let mixed = vec![
            item("a", Ok(Status::Duplicate)),
            item("b", Ok(Status::Accepted)),
        ];
        assert_eq!(answer(mixed).unwrap(), Status::Accepted);
        let conflict = vec![
            item("a", Err(Refusal::Conflict)),
            item("b", Ok(Status::Accepted)),
        ];
        assert!(matches!(answer(conflict), Err(Refusal::Conflict)));
        // A retryable refusal outranks a conflict: the provider must retry
        // to get the other item recorded.
        let retry = vec![
            item("a", Err(Refusal::Conflict)),
            item(
                "b",
                Err(Refusal::InProgress {
                    retry_after: Duration::from_secs(1),
                }),
            ),
        ];
        assert!(matches!(answer(retry), Err(Refusal::InProgress { .. })));
    }
}
