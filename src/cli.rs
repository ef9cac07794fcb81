//! The `hookline` command line. Exit codes: 0 ok, 1 runtime or validation
//! error, 2 usage error.

mod args;
mod handshake_request;
mod operate;
mod started;
mod transform_preview;

use std::io::{Read, Write};
use std::path::PathBuf;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use secrecy::SecretString;

use self::args::{both_keys, signing_key, ConfigArg, FromEnv};
use self::operate::{DeadLetters, Events, HandshakeCmd};
use self::started::Started;
use crate::app::{Application, Role};
use crate::config;
use crate::provider::{sender_headers, Definitions};

#[derive(Parser)]
#[command(name = "hookline", version, about = "Webhook ingestion receiver")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// `hookline providers ...`
#[derive(Subcommand)]
enum Providers {
    /// One provider per line: kind, title, scheme family, handshake.
    List {
        /// Directory of extra provider definitions.
        #[arg(long)]
        providers_dir: Option<PathBuf>,
    },
    /// A provider's headers, event ID and type, handshake, docs and a
    /// config snippet to paste.
    Show {
        /// Provider kind or alias.
        kind: String,
        /// Directory of extra provider definitions.
        #[arg(long)]
        providers_dir: Option<PathBuf>,
    },
}

#[derive(Subcommand)]
enum Command {
    /// Run the receiver and the delivery workers.
    Serve {
        #[command(flatten)]
        config: ConfigArg,
        /// What this process runs.
        #[arg(long, value_enum, default_value_t = Role::All)]
        role: Role,
    },
    /// Validate the configuration and print what it sets up (secrets redacted).
    CheckConfig(ConfigArg),
    /// Apply migrations to the configured stores.
    Migrate(ConfigArg),
    /// Print what a handler would receive for a captured request (its
    /// filter, transform and signature applied), or why it would get none.
    Transform {
        #[command(flatten)]
        config: ConfigArg,
        /// The handler (`[handlers.NAME]`).
        #[arg(long)]
        handler: String,
        /// A capture file (`[capture] dir` writes them).
        capture: PathBuf,
    },
    /// Print the headers a provider would send for the body on standard input.
    Sign {
        /// Provider kind, e.g. stripe (`hookline providers list` names
        /// them all).
        #[arg(long)]
        provider: String,
        /// The signing secret (shared-secret schemes).
        #[arg(
            long,
            env = "HOOKLINE_SIGN_SECRET",
            hide_env_values = true,
            required_unless_present = "private_key"
        )]
        secret: Option<SecretString>,
        /// A private key file (PKCS#8 PEM) for public-key schemes (Ed25519:
        /// Discord, Telnyx; ECDSA P-256: SendGrid). The public key a tenant
        /// must configure is printed to standard error. Given, it signs,
        /// and a secret is not used.
        #[arg(long)]
        private_key: Option<PathBuf>,
        /// Unix timestamp to sign (default: now).
        #[arg(long)]
        timestamp: Option<i64>,
        /// Event/message ID for schemes that carry it in a header (default: a new UUID).
        #[arg(long)]
        id: Option<String>,
        /// Event type, for schemes that carry it in a header.
        #[arg(long)]
        event_type: Option<String>,
        /// The URL the provider would post to (for schemes that sign it).
        #[arg(long, default_value = "")]
        url: String,
        /// Directory of extra provider definitions.
        #[arg(long)]
        providers_dir: Option<PathBuf>,
        /// Where the secret came from (`HOOKLINE_SIGN_SECRET`, or the
        /// command line).
        #[arg(skip)]
        from_env: FromEnv,
    },
    /// The built-in provider kinds.
    #[command(subcommand)]
    Providers(Providers),
    /// Inspect and re-drive dead letters.
    #[command(subcommand)]
    DeadLetters(DeadLetters),
    /// Look up an event and its deliveries, or deliver it again.
    #[command(subcommand)]
    Events(Events),
    /// Print the request a provider's handshake sends, as a curl command
    /// (`hookline handshake KIND`), or re-arm a handshake that stores a
    /// secret (`hookline handshake reset`, Asana).
    Handshake(HandshakeCmd),
    /// Replay capture files (or directories of them) against a receiver.
    Replay {
        /// Capture files or directories.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Base URL of the receiver.
        #[arg(long)]
        target: url::Url,
        /// Re-sign every capture with this secret and a fresh timestamp.
        #[arg(long, env = "HOOKLINE_RESIGN_SECRET", hide_env_values = true)]
        resign: Option<SecretString>,
        /// Requests in flight at once (1 to 10000).
        #[arg(long, default_value_t = 8, value_parser = args::concurrency)]
        concurrency: usize,
        /// Requests per second, at most (0.001 to 1000000).
        #[arg(long, value_parser = args::rate)]
        rate: Option<f64>,
        /// Directory of extra provider definitions.
        #[arg(long)]
        providers_dir: Option<PathBuf>,
        /// Send every capture to this tenant instead of the one it names
        /// (the provider stays the capture's).
        #[arg(long)]
        tenant: Option<String>,
    },
}

/// Run the command line; returns the process exit code.
pub fn main() -> i32 {
    let parsed = Cli::command()
        .try_get_matches()
        .and_then(|m| Ok((Cli::from_arg_matches(&m)?, m)));
    let (mut cli, matches) = match parsed {
        Ok(parsed) => parsed,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { 2 } else { 0 };
        }
    };
    match (&mut cli.command, matches.subcommand()) {
        (Command::Handshake(cmd), Some(("handshake", m))) => cmd.request.from_env = FromEnv::of(m),
        (Command::Sign { from_env, .. }, Some(("sign", m))) => *from_env = FromEnv::of(m),
        _ => {}
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: cannot start the runtime: {e}");
            return 1;
        }
    };
    match runtime.block_on(run(cli.command)) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            1
        }
    }
}

async fn run(command: Command) -> anyhow::Result<i32> {
    match command {
        Command::Serve { config, role } => {
            let settings = config.load()?;
            let telemetry = crate::telemetry::init(&settings.telemetry)?;
            let started = Started::of(&settings);
            let app = Application::build(settings, role)
                .await?
                .with_spans_dropped(telemetry.spans_dropped.clone());
            started.log(&app, role);
            // SIGINT/SIGTERM: the receiver drains, then the workers stop.
            let result = app.run(crate::app::shutdown_on_signals()).await;
            telemetry.finish().await;
            result?;
            Ok(0)
        }
        Command::CheckConfig(arg) => match config::load(&arg.config) {
            Ok(settings) => {
                print!("{}", settings.describe());
                Ok(0)
            }
            Err(e) => {
                eprint!("{e}");
                Ok(1)
            }
        },
        Command::Transform {
            config,
            handler,
            capture,
        } => transform_preview::run(&config.load()?, &handler, &capture).await,
        Command::Migrate(arg) => {
            let settings = arg.load()?;
            let done = crate::store::Store::migrate(&settings.store).await?;
            if done.is_empty() {
                println!("the schema is up to date");
            }
            for line in done {
                println!("{line}");
            }
            Ok(0)
        }
        Command::Sign {
            provider,
            secret,
            private_key,
            timestamp,
            id,
            event_type,
            url,
            providers_dir,
            from_env,
        } => {
            if let Some(both) = both_keys(&secret, from_env, &private_key) {
                eprintln!("error: {both}");
                return Ok(2);
            }
            let defs = definitions(providers_dir)?;
            let def = defs.get(&provider).ok_or_else(|| {
                anyhow::anyhow!(crate::text::unknown_kind(&provider, defs.kinds()))
            })?;
            let key = signing_key(def, secret.as_ref(), private_key.as_deref())?
                .expect("clap requires --secret or --private-key");
            if private_key.is_some() {
                if let Some(public) = def.public_secret(&key) {
                    eprintln!("public key for the tenant's secrets: {public}");
                }
            }
            let mut body = Vec::new();
            std::io::stdin().read_to_end(&mut body)?;
            let id = id.unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
            let timestamp = timestamp.unwrap_or_else(|| chrono::Utc::now().timestamp());
            let headers = sender_headers(
                def,
                &key,
                &body,
                &id,
                event_type.as_deref(),
                timestamp,
                &url,
            )
            .map_err(|e| anyhow::anyhow!("cannot sign for {provider}: {e}"))?;
            for (k, v) in headers {
                println!("{k}: {v}");
            }
            Ok(0)
        }
        Command::Providers(cmd) => {
            let (dir, kind) = match cmd {
                Providers::List { providers_dir } => (providers_dir, None),
                Providers::Show {
                    kind,
                    providers_dir,
                } => (providers_dir, Some(kind)),
            };
            let defs = definitions(dir)?;
            match kind {
                None => {
                    // `hookline providers list | head` closes the pipe
                    // early: stop quietly rather than panic.
                    let mut out = std::io::stdout().lock();
                    for d in defs.definitions() {
                        if writeln!(out, "{}", d.summary_line()).is_err() {
                            break;
                        }
                    }
                }
                Some(kind) => {
                    let def = defs.get(&kind).ok_or_else(|| {
                        anyhow::anyhow!(crate::text::unknown_kind(&kind, defs.kinds()))
                    })?;
                    print!("{}", def.details());
                }
            }
            Ok(0)
        }
        Command::DeadLetters(cmd) => operate::dead_letters(cmd).await,
        Command::Events(cmd) => operate::events(cmd).await,
        Command::Handshake(cmd) => operate::handshake(cmd).await,
        Command::Replay {
            paths,
            target,
            resign,
            concurrency,
            rate,
            providers_dir,
            tenant,
        } => {
            let files = crate::capture::collect_files(&paths)?;
            if files.is_empty() {
                anyhow::bail!("no capture files found");
            }
            eprintln!(
                "replaying {} to {target}",
                crate::text::plural(files.len() as u64, "capture", "captures")
            );
            let summary = crate::replay::replay(
                files,
                crate::replay::ReplayOptions {
                    target,
                    resign,
                    concurrency,
                    rate,
                    definitions: definitions(providers_dir)?,
                    tenant,
                },
            )
            .await?;
            print!("{}", summary.render());
            Ok(if summary.all_answered() { 0 } else { 1 })
        }
    }
}

fn definitions(dir: Option<PathBuf>) -> anyhow::Result<Definitions> {
    Definitions::load(dir.as_deref()).map_err(|errors| {
        anyhow::anyhow!(
            "provider definitions:\n{}",
            errors
                .iter()
                .map(|e| format!("  {e}"))
                .collect::<Vec<_>>()
                .join("\n")
        )
    })
}
