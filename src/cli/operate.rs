//! `hookline events`, `hookline dead-letters` and `hookline handshake`: an
//! operator's lookups, re-deliveries and re-arming, straight against the
//! configured store.
//!
//! Every name and ID is parsed by [`crate::lookup`] as clap reads it, the
//! same rules as the admin API: a control character or an overlong value is
//! a usage error (exit 2) before any store is opened, never a store failure.

use clap::Subcommand;

use super::args::ConfigArg;
use crate::ids::EventId;
use crate::ids::{HandlerName, ProviderName, TenantName};
use crate::lookup::{self, DeadLetterFilters};
use crate::store::EventKey;
use crate::text::plural;

#[derive(clap::Args)]
pub(super) struct Filters {
    #[arg(long, value_parser = lookup::provider)]
    provider: Option<ProviderName>,
    #[arg(long, value_parser = lookup::tenant)]
    tenant: Option<TenantName>,
    #[arg(long, value_parser = lookup::handler)]
    handler: Option<HandlerName>,
    #[arg(long, value_parser = lookup::event_id)]
    event_id: Option<EventId>,
}

impl From<Filters> for DeadLetterFilters {
    fn from(f: Filters) -> Self {
        DeadLetterFilters {
            provider: f.provider,
            tenant: f.tenant,
            handler: f.handler,
            event_id: f.event_id,
        }
    }
}

#[derive(Subcommand)]
pub(super) enum DeadLetters {
    /// List dead letters (JSON, one per line).
    List {
        #[command(flatten)]
        config: ConfigArg,
        #[command(flatten)]
        filters: Filters,
        #[arg(long, default_value_t = 100)]
        limit: u32,
    },
    /// Put dead letters back in the queue: one (--id) or every match.
    Replay {
        #[command(flatten)]
        config: ConfigArg,
        /// One dead letter, by delivery id.
        #[arg(long, conflicts_with_all = ["provider", "tenant", "handler", "event_id", "all"])]
        id: Option<i64>,
        #[command(flatten)]
        filters: Filters,
        /// Required to replay every dead letter when no filter is given.
        #[arg(long)]
        all: bool,
    },
}

/// One event, as the positional arguments name it.
#[derive(clap::Args)]
pub(super) struct EventArgs {
    #[arg(value_parser = lookup::provider)]
    provider: ProviderName,
    #[arg(value_parser = lookup::tenant)]
    tenant: TenantName,
    #[arg(value_parser = lookup::event_id)]
    event_id: EventId,
}

impl From<EventArgs> for EventKey {
    fn from(a: EventArgs) -> Self {
        EventKey {
            provider: a.provider,
            tenant: a.tenant,
            event_id: a.event_id,
        }
    }
}

#[derive(Subcommand)]
pub(super) enum Events {
    /// Print an event's dedup record, row, deliveries with their attempts,
    /// and quarantined copies, as JSON.
    Show {
        #[command(flatten)]
        config: ConfigArg,
        #[command(flatten)]
        event: EventArgs,
    },
    /// Deliver an event again, to every handler or one.
    Redeliver {
        #[command(flatten)]
        config: ConfigArg,
        #[command(flatten)]
        event: EventArgs,
        #[arg(long, value_parser = lookup::handler)]
        handler: Option<HandlerName>,
    },
    /// Release an event held as a suspected replay (its body was accepted
    /// under another event ID) to its handlers: it is recorded and
    /// delivered like any event.
    Release {
        #[command(flatten)]
        config: ConfigArg,
        #[command(flatten)]
        event: EventArgs,
    },
}

#[derive(Subcommand)]
pub(super) enum Handshake {
    /// Forget the secret a provider's handshake stored for a tenant
    /// (Asana's X-Hook-Secret), so that the next handshake is accepted.
    Reset {
        #[command(flatten)]
        config: ConfigArg,
        #[arg(value_parser = lookup::provider)]
        provider: ProviderName,
        #[arg(value_parser = lookup::tenant)]
        tenant: TenantName,
    },
}

/// `hookline handshake KIND ...` prints a provider's handshake request;
/// `hookline handshake reset ...` forgets a stored handshake secret.
#[derive(clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub(super) struct HandshakeCmd {
    #[command(subcommand)]
    pub action: Option<Handshake>,
    #[command(flatten)]
    pub request: super::handshake_request::RequestArgs,
}

pub(super) async fn handshake(cmd: HandshakeCmd) -> anyhow::Result<i32> {
    let Some(cmd) = cmd.action else {
        let defs = super::definitions(cmd.request.providers_dir.clone())?;
        return super::handshake_request::print(cmd.request, &defs);
    };
    match cmd {
        Handshake::Reset {
            config,
            provider,
            tenant,
        } => {
            let had = config
                .store()
                .await?
                .with_records("handshake", |r| {
                    r.reset_handshake_secret(&provider, &tenant)
                })
                .await?;
            if had {
                println!("forgot the handshake secret of {provider}/{tenant}; the next handshake is accepted");
                Ok(0)
            } else {
                eprintln!("no handshake secret stored for {provider}/{tenant}");
                Ok(1)
            }
        }
    }
}

pub(super) async fn dead_letters(cmd: DeadLetters) -> anyhow::Result<i32> {
    match cmd {
        DeadLetters::List {
            config,
            filters,
            limit,
        } => {
            let filter = DeadLetterFilters::from(filters).to_filter(Some(limit));
            let rows = config
                .store()
                .await?
                .with_records("list", |r| r.list(&filter))
                .await?;
            for r in &rows {
                println!("{}", serde_json::to_string(r)?);
            }
            eprintln!(
                "{}",
                plural(rows.len() as u64, "dead letter", "dead letters")
            );
            Ok(0)
        }
        DeadLetters::Replay {
            config,
            id,
            filters,
            all,
        } => {
            let filters = DeadLetterFilters::from(filters);
            let filter = match id {
                Some(id) => lookup::dead_letter(id),
                None if filters.is_empty() && !all => {
                    eprintln!("error: give --id, a filter, or --all to replay every dead letter");
                    return Ok(2);
                }
                None => filters.to_filter(None),
            };
            let n = config
                .store()
                .await?
                .with_records("requeue", |r| r.requeue(&filter))
                .await?;
            println!("requeued {}", plural(n, "dead letter", "dead letters"));
            Ok(if n == 0 && id.is_some() { 1 } else { 0 })
        }
    }
}

/// `events redeliver`: requeue, and when nothing was, say why (no such
/// handler, no record of the event, no delivery of it to that handler, or
/// its deliveries already queued).
async fn redeliver(
    config: &ConfigArg,
    event: EventKey,
    handler: Option<HandlerName>,
) -> anyhow::Result<i32> {
    let settings = config.load()?;
    if let Some(h) = &handler {
        if !settings.handlers.contains_key(h.as_str()) {
            let known: Vec<&str> = settings.handlers.keys().map(|k| k.as_str()).collect();
            eprintln!(
                "error: no handler named {h} in {} (handlers: {})",
                config.config.display(),
                if known.is_empty() {
                    "none".to_owned()
                } else {
                    known.join(", ")
                }
            );
            return Ok(1);
        }
    }
    let store = crate::store::Store::connect(&settings.store)
        .await?
        .with_lanes(|| crate::store::stream_lanes(&settings));
    let filter = event.deliveries(handler.as_ref());
    let n = store
        .with_records("requeue", |r| r.requeue(&filter))
        .await?;
    if n > 0 {
        println!("requeued {}", plural(n, "delivery", "deliveries"));
        return Ok(0);
    }
    let why = store.nothing_requeued(&event, handler.as_ref()).await?;
    let said = why.explain(&event, handler.as_ref());
    if why.is_error() {
        eprintln!("error: {said}");
        return Ok(1);
    }
    println!("requeued 0 deliveries: {said}");
    Ok(0)
}

pub(super) async fn events(cmd: Events) -> anyhow::Result<i32> {
    match cmd {
        Events::Show { config, event } => {
            let event = EventKey::from(event);
            let report = config.store().await?.event_report(&event).await?;
            match report {
                Some(report) => {
                    println!("{}", serde_json::to_string_pretty(&report)?);
                    Ok(0)
                }
                None => {
                    eprintln!("no record of {event}");
                    Ok(1)
                }
            }
        }
        Events::Redeliver {
            config,
            event,
            handler,
        } => redeliver(&config, EventKey::from(event), handler).await,
        Events::Release { config, event } => {
            let settings = std::sync::Arc::new(config.load()?);
            let store = crate::store::Store::connect(&settings.store).await?;
            let metrics = std::sync::Arc::new(crate::metrics::Metrics::new());
            let ingest = crate::ingest::Ingest::new(settings, store, metrics);
            let event = EventKey::from(event);
            match ingest.release(&event).await {
                Ok(status) => {
                    println!("released {event}: {}", status.as_str());
                    Ok(0)
                }
                Err(crate::ingest::ReleaseError::Refused(crate::ingest::Refusal::Store(e))) => {
                    Err(e.into())
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    Ok(1)
                }
            }
        }
    }
}
