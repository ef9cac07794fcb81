//! `hookline handshake KIND` through the real binary: for every provider
//! whose handshake a sender other than the provider can produce, the
//! printed curl command, run by a shell against a running receiver, gets
//! the handshake answered as the provider expects (the challenge echoed,
//! or the acknowledgement the kind gives), counted, and never an event.

use crate::common;

use std::process::Command;

use common::{spawn_app_with, AppOptions, Backend};

/// The secret every signed case is configured with and signed with.
const SECRET: &str = "handshake-print-secret";
/// What the printed request carries as its challenge.
const CHALLENGE: &str = "c-0123456789abcdef";

/// kind, whether the tenant holds [`SECRET`] (a handshake that hands over
/// the secret needs a tenant without one), extra CLI arguments, status
/// expected, and a text the answer must carry (body or headers).
struct Case {
    kind: &'static str,
    secret: bool,
    args: &'static [&'static str],
    status: u16,
    carries: Option<&'static str>,
}

const CASES: &[Case] = &[
    Case {
        kind: "slack",
        secret: true,
        args: &[],
        status: 200,
        carries: Some(CHALLENGE),
    },
    Case {
        kind: "zoom",
        secret: true,
        args: &[],
        status: 200,
        carries: Some("encryptedToken"),
    },
    Case {
        kind: "twitch",
        secret: true,
        args: &[],
        status: 200,
        carries: Some(CHALLENGE),
    },
    Case {
        kind: "okta",
        secret: true,
        args: &[],
        status: 200,
        carries: Some(CHALLENGE),
    },
    Case {
        kind: "meta",
        secret: true,
        args: &["--verify-token", "vt-1"],
        status: 200,
        carries: Some(CHALLENGE),
    },
    Case {
        kind: "dropbox",
        secret: true,
        args: &[],
        status: 200,
        carries: Some(CHALLENGE),
    },
    Case {
        kind: "microsoft-graph",
        secret: true,
        args: &[],
        status: 200,
        carries: Some(CHALLENGE),
    },
    Case {
        kind: "nylas",
        secret: true,
        args: &[],
        status: 200,
        carries: Some(CHALLENGE),
    },
    Case {
        kind: "trello",
        secret: true,
        args: &[],
        status: 200,
        carries: None,
    },
    Case {
        kind: "woocommerce",
        secret: true,
        args: &[],
        status: 200,
        carries: None,
    },
    Case {
        kind: "asana",
        secret: false,
        args: &[],
        status: 200,
        carries: Some(CHALLENGE),
    },
    Case {
        kind: "notion",
        secret: false,
        args: &[],
        status: 200,
        carries: None,
    },
    Case {
        kind: "smartsheet",
        secret: true,
        args: &[],
        status: 200,
        carries: Some(CHALLENGE),
    },
    Case {
        kind: "azure-event-grid",
        secret: true,
        args: &[],
        status: 200,
        carries: Some(CHALLENGE),
    },
];

fn hookline(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_hookline"))
        .args(args)
        .env_remove("HOOKLINE_CONFIG")
        .env_remove("HOOKLINE_SIGN_SECRET")
        .output()
        .unwrap()
}

/// What an operator does with a printed command: paste it into a shell.
/// Its answer, status line and headers first (`curl -i`). The receiver
/// runs on the test's runtime: waited for without blocking it.
async fn run_printed(printed: &str) -> String {
    let run = tokio::process::Command::new("timeout")
        .args(["10", "sh", "-c", printed])
        .output()
        .await
        .unwrap();
    String::from_utf8_lossy(&run.stdout).into_owned()
}

#[tokio::test]
async fn every_printed_handshake_is_answered_by_a_running_receiver() {
    let mut config = String::new();
    for c in CASES {
        let secrets = if c.secret {
            format!("[{SECRET:?}]")
        } else {
            "[]".into()
        };
        config.push_str(&format!(
            "[providers.pr-{kind}]\nkind = \"{kind}\"\n[providers.pr-{kind}.tenants.t]\nsecrets = {secrets}\n",
            kind = c.kind
        ));
        if c.kind == "meta" {
            config.push_str("verify_token = \"vt-1\"\n");
        }
    }
    let mut opts = AppOptions::new(Backend::Embedded);
    opts.extra = config;
    let app = spawn_app_with(opts).await;

    let mut failures = Vec::new();
    for c in CASES {
        let url = format!("{}/webhooks/pr-{}/t", app.address, c.kind);
        let mut args = vec!["handshake", c.kind, "--url", &url, "--challenge", CHALLENGE];
        if c.secret {
            args.extend(["--secret", SECRET]);
        }
        args.extend(c.args);
        let out = hookline(&args);
        let printed = String::from_utf8_lossy(&out.stdout).into_owned();
        if !out.status.success() || !printed.starts_with("curl ") {
            failures.push(format!(
                "{}: printed {printed:?} {:?}",
                c.kind,
                String::from_utf8_lossy(&out.stderr)
            ));
            continue;
        }
        let answer = run_printed(&printed).await;
        let status_line = answer.lines().next().unwrap_or_default().to_owned();
        if !status_line.contains(&format!(" {} ", c.status)) {
            failures.push(format!("{}: {status_line:?} for {printed}", c.kind));
            continue;
        }
        if let Some(text) = c.carries {
            if !answer.contains(text) {
                failures.push(format!("{}: answer {answer:?} lacks {text:?}", c.kind));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let answered = |route: &str, kind: &str| {
        format!("hookline_handshakes_total{{kind=\"{kind}\",outcome=\"answered\",provider=\"{route}\"}}")
    };
    assert_eq!(
        app.metric(&answered("pr-smartsheet", "smartsheet-verification"))
            .await,
        1.0
    );
    assert_eq!(
        app.metric(&answered("pr-azure-event-grid", "event-grid-validation"))
            .await,
        1.0
    );
    assert_eq!(
        app.inventory().await,
        Default::default(),
        "a handshake is never an event"
    );
}

/// A signed handshake without a secret is refused by the command, with
/// what to give; a kind only the provider can send says so.
#[test]
fn what_cannot_be_printed_says_why() {
    let out = hookline(&["handshake", "slack"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--secret"));
    let out = hookline(&["handshake", "aws-sns"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("only the provider"));
    let out = hookline(&["handshake", "github"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("no handshake"));
    let out = hookline(&["handshake"]);
    assert_eq!(out.status.code(), Some(2), "no kind named: a usage error");
}

/// What signs, when the environment holds a configuration
/// (`HOOKLINE_CONFIG`, which the Docker image sets) or a secret
/// (`HOOKLINE_SIGN_SECRET`) for other commands: a key on the command line
/// signs; the environment's configuration signs once a tenant is named;
/// `--config` on the command line signs with its tenant, whatever secret
/// the environment holds; a handshake that is not signed needs neither.
#[tokio::test]
async fn what_the_environment_holds_signs_only_where_the_command_line_leaves_it_to() {
    let mut opts = AppOptions::new(Backend::Embedded);
    opts.extra =
        format!("[providers.pr-slack]\nkind = \"slack\"\n[providers.pr-slack.tenants.t]\nsecrets = [{SECRET:?}]\n");
    let app = spawn_app_with(opts).await;
    let url = format!("{}/webhooks/pr-slack/t", app.address);
    // The environment's configuration holds another secret for Slack.
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("hookline.toml");
    std::fs::write(
        &config,
        format!(
            "[store]\nkind = \"embedded\"\npath = \"{}\"\n[providers.slack]\nkind = \"slack\"\n[providers.slack.tenants.t]\nsecrets = [\"the-configured-secret\"]\n",
            dir.path().join("db").display()
        ),
    )
    .unwrap();
    let config = config.to_str().unwrap();
    let run = |env: &[(&str, &str)], extra: &[&str]| {
        let mut args = vec![
            "handshake",
            "slack",
            "--url",
            &url,
            "--challenge",
            CHALLENGE,
        ];
        args.extend(extra);
        let out = Command::new(env!("CARGO_BIN_EXE_hookline"))
            .args(args)
            .env_remove("HOOKLINE_CONFIG")
            .env_remove("HOOKLINE_SIGN_SECRET")
            .envs(env.iter().copied())
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        (out.status.code(), stdout, stderr)
    };
    // The status line of the receiver's answer to what was printed.
    let answered = |printed: String| async move {
        let answer = run_printed(&printed).await;
        answer.lines().next().unwrap_or_default().to_owned()
    };
    let in_env = [("HOOKLINE_CONFIG", config)];

    let (code, stdout, stderr) = run(&in_env, &["--secret", SECRET]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(answered(stdout).await.contains(" 200 "));

    // Signed with the configuration's secret, which the receiver does not
    // hold: refused, as it should be.
    let (code, stdout, stderr) = run(&in_env, &["--tenant", "t"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(answered(stdout).await.contains(" 401 "));

    // No key and no tenant: the configuration does not sign, and the
    // command says what would.
    let (code, _, stderr) = run(&in_env, &[]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("give --secret"), "{stderr}");

    // --config on the command line signs with its tenant's secret, not
    // with the environment's (which the receiver would accept).
    let both_in_env = [
        ("HOOKLINE_CONFIG", config),
        ("HOOKLINE_SIGN_SECRET", SECRET),
    ];
    let (code, stdout, stderr) = run(&both_in_env, &["--config", config, "--tenant", "t"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(answered(stdout).await.contains(" 401 "));
    let (code, stdout, stderr) = run(&both_in_env, &[]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(answered(stdout).await.contains(" 200 "));

    // Usage errors: --config without its tenant, or beside a key.
    let (code, _, stderr) = run(&[], &["--config", config]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("--tenant NAME"), "{stderr}");
    let (code, _, stderr) = run(
        &[],
        &["--config", config, "--tenant", "t", "--secret", SECRET],
    );
    assert_eq!(code, Some(2), "{stderr}");

    // A handshake that is not signed needs no tenant of the environment's
    // configuration.
    let out = Command::new(env!("CARGO_BIN_EXE_hookline"))
        .args(["handshake", "trello"])
        .env("HOOKLINE_CONFIG", config)
        .env_remove("HOOKLINE_SIGN_SECRET")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("curl "));
}
