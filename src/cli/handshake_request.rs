//! `hookline handshake KIND`: the request a provider's handshake sends,
//! printed as a `curl` command, signed where the handshake is answered
//! only once signed, so that an operator can check a deployed receiver
//! answers it.

use std::path::PathBuf;

use secrecy::{ExposeSecret, SecretString};

use super::args::{both_keys, signing_key, FromEnv};
use crate::config::Settings;
use crate::provider::{Definitions, Key, ProviderDef, SignError, SignInput};

/// What `hookline handshake KIND` takes.
#[derive(clap::Args)]
pub(super) struct RequestArgs {
    /// Provider kind (`hookline providers list`), or with --config the
    /// name of a configured provider.
    pub kind: Option<String>,
    /// The configuration whose tenant's (--tenant) first secret and
    /// verify_token sign the request. From `HOOKLINE_CONFIG` it is used
    /// only with --tenant and no --secret, --private-key or --verify-token.
    #[arg(long, env = "HOOKLINE_CONFIG")]
    pub config: Option<PathBuf>,
    /// The tenant (with --config), also the last part of the default URL.
    #[arg(long)]
    pub tenant: Option<String>,
    /// The signing secret, for a handshake answered only once signed.
    #[arg(long, env = "HOOKLINE_SIGN_SECRET", hide_env_values = true)]
    pub secret: Option<SecretString>,
    /// A private key file (PKCS#8 PEM) for public-key schemes (Discord).
    /// Given, it signs, and a secret is not used.
    #[arg(long)]
    pub private_key: Option<PathBuf>,
    /// The verify_token a `hub.challenge` handshake presents.
    #[arg(long, hide_env_values = true)]
    pub verify_token: Option<SecretString>,
    /// The challenge to send (default: a new UUID).
    #[arg(long)]
    pub challenge: Option<String>,
    /// The receiver's URL for this provider and tenant (default: with
    /// --config, its server.public_url, else its server.listen; without,
    /// http://127.0.0.1:8080; then /webhooks/KIND/TENANT).
    #[arg(long)]
    pub url: Option<url::Url>,
    /// Directory of extra provider definitions.
    #[arg(long)]
    pub providers_dir: Option<PathBuf>,
    /// Where --config and --secret came from: the environment
    /// (`HOOKLINE_CONFIG`, `HOOKLINE_SIGN_SECRET`, set there for other
    /// commands too, as the Docker image sets the first) or the command
    /// line, which says what this command is to sign with.
    #[arg(skip)]
    pub from_env: FromEnv,
}

/// Print the handshake request of `args.kind`; exit code 0, or 2 for a
/// usage error.
pub(super) fn print(args: RequestArgs, defs: &Definitions) -> anyhow::Result<i32> {
    let usage = |message: &str| {
        eprintln!("error: {message}");
        Ok(2)
    };
    let Some(name) = args.kind.clone() else {
        return usage("name a provider kind: hookline handshake KIND");
    };
    if let Some(both) = both_keys(&args.secret, args.from_env, &args.private_key) {
        return usage(both);
    }
    let tenant = args.tenant.clone().unwrap_or_else(|| "default".into());
    let config = match args.signing_config() {
        Ok(config) => config,
        Err(message) => return usage(&message),
    };
    let (def, key, verify_token, base) = match config {
        Some(path) => from_config(path, &name, &tenant)?,
        None => {
            let def = defs
                .get(&name)
                .ok_or_else(|| anyhow::anyhow!(crate::text::unknown_kind(&name, defs.kinds())))?;
            let key = signing_key(def, args.secret.as_ref(), args.private_key.as_deref())?;
            let token = args
                .verify_token
                .as_ref()
                .map(|t| t.expose_secret().to_owned());
            (ProviderDef::clone(def), key, token, DEFAULT_BASE.to_owned())
        }
    };
    let handshake = def
        .handshake
        .as_ref()
        .ok_or_else(|| anyhow::anyhow!("{name}: this provider has no handshake"))?;
    let challenge = args
        .challenge
        .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
    let (mut req, signed) = handshake
        .sample(&challenge, verify_token.as_deref())
        .ok_or_else(|| {
            anyhow::anyhow!(
                "{name}: only the provider can send its {} handshake",
                handshake.name()
            )
        })?;
    let mut url = match args.url {
        Some(url) => url,
        None => url::Url::parse(&format!("{base}/webhooks/{name}/{tenant}"))?,
    };
    if !req.query.is_empty() {
        url.query_pairs_mut().extend_pairs(&req.query);
    }
    if signed {
        let key = key.ok_or_else(|| {
            anyhow::anyhow!("{name}: its {} handshake is signed: give --secret (or --private-key, or --config and --tenant)", handshake.name())
        })?;
        let input = SignInput {
            method: req.method,
            url: url.as_str(),
            headers: &req.headers,
            body: &req.body,
            id: &uuid::Uuid::new_v4().to_string(),
            timestamp: chrono::Utc::now().timestamp(),
        };
        match def.sign(&key, &input) {
            Ok(headers) => req.headers.extend(headers),
            // The token is part of the URL (Azure Event Grid's ?code=).
            Err(SignError::SignedInUrl) => {
                let token = key.shared_bytes().map(String::from_utf8_lossy);
                let token = token.ok_or_else(|| anyhow::anyhow!("{name}: this key cannot sign"))?;
                for param in def.secret_query_params() {
                    url.query_pairs_mut().append_pair(param, &token);
                }
            }
            Err(e) => anyhow::bail!("cannot sign for {name}: {e}"),
        }
    }
    println!(
        "{}",
        curl(req.method, url.as_str(), &req.headers, &req.body)
    );
    Ok(0)
}

impl RequestArgs {
    /// The configuration that signs the request, if one does; a usage
    /// error otherwise. `--config` on the command line signs, with the
    /// tenant it names, and no key of the command line's beside it.
    /// `HOOKLINE_CONFIG` signs only when the command line names a tenant
    /// and brings no key: otherwise the command signs without it, with
    /// `--secret` (or `HOOKLINE_SIGN_SECRET`), `--private-key`, or
    /// nothing, for a handshake that is not signed. In a configuration's
    /// place, `HOOKLINE_SIGN_SECRET` is not used.
    fn signing_config(&self) -> Result<Option<&std::path::Path>, String> {
        let own_key = (self.secret.is_some() && !self.from_env.secret)
            || self.private_key.is_some()
            || self.verify_token.is_some();
        let Some(path) = &self.config else {
            return Ok(None);
        };
        match (self.from_env.config, &self.tenant) {
            (true, Some(_)) if !own_key => Ok(Some(path)),
            (true, _) => Ok(None),
            (false, _) if own_key => Err(
                "--config signs with its tenant's secret: give --config and --tenant, or --secret (--private-key, --verify-token), not both".into(),
            ),
            (false, Some(_)) => Ok(Some(path)),
            (false, None) => Err(format!(
                "with --config {}, name the tenant whose secret signs: --tenant NAME",
                path.display()
            )),
        }
    }
}

/// Where a receiver listens when nothing says otherwise.
const DEFAULT_BASE: &str = "http://127.0.0.1:8080";

/// Where the configured receiver is reached: `server.public_url`, else its
/// listener (an any-address one, `0.0.0.0`, reached on loopback), over
/// HTTPS with `[server.tls]`.
fn configured_base(settings: &Settings) -> String {
    if let Some(public) = &settings.server.public_url {
        return public.as_str().to_owned();
    }
    let scheme = if settings.server.tls.is_some() {
        "https"
    } else {
        "http"
    };
    let listen = settings.server.listen.as_str();
    let (host, port) = listen.rsplit_once(':').unwrap_or((listen, "8080"));
    let host = match host {
        "0.0.0.0" => "127.0.0.1",
        "[::]" => "[::1]",
        other => other,
    };
    format!("{scheme}://{host}:{port}")
}

/// The provider named `name` in the configuration at `path`, its tenant's
/// first key, its verify_token, and where the receiver is reached.
fn from_config(
    path: &std::path::Path,
    name: &str,
    tenant: &str,
) -> anyhow::Result<(ProviderDef, Option<Key>, Option<String>, String)> {
    let settings = crate::config::load(path).map_err(|e| anyhow::anyhow!("{e}"))?;
    let provider = settings
        .providers
        .get(name)
        .ok_or_else(|| anyhow::anyhow!("no provider {name:?} in {}", path.display()))?;
    let t = provider
        .tenants
        .get(tenant)
        .ok_or_else(|| anyhow::anyhow!("no tenant {tenant:?} of {name:?} in {}", path.display()))?;
    let token = t
        .verify_token
        .as_ref()
        .map(|v| v.expose_secret().to_owned());
    let def = (**provider.def).clone();
    // The first secret as configured (secrets, then secrets_env), decoded
    // the way the receiver decodes it.
    let secret = t
        .secrets
        .first()
        .map(|s| s.expose_secret().to_owned())
        .or_else(|| t.secrets_env.iter().find_map(|v| std::env::var(v).ok()));
    let key = secret
        .map(|s| def.decode_secret(&s))
        .transpose()
        .map_err(|e| anyhow::anyhow!("tenant {tenant:?}: {e}"))?;
    Ok((def, key, token, configured_base(&settings)))
}

/// A `curl` command line for the request, every argument single-quoted
/// for a POSIX shell.
fn curl(method: &str, url: &str, headers: &[(String, String)], body: &[u8]) -> String {
    let mut line = vec!["curl".to_owned(), "-sS".into(), "-i".into()];
    if method == "HEAD" {
        line.push("-I".into());
    } else {
        line.extend(["-X".into(), method.to_owned()]);
    }
    line.push(quote(url));
    for (name, value) in headers {
        line.extend(["-H".into(), quote(&format!("{name}: {value}"))]);
    }
    if !body.is_empty() {
        line.extend([
            "--data-binary".into(),
            quote(&String::from_utf8_lossy(body)),
        ]);
    }
    line.join(" ")
}

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}
