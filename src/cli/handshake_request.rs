//! `hookline handshake KIND`: the request a provider's handshake sends,
//! printed as a `curl` command, signed where the handshake is answered
//! only once signed, so that an operator can check a deployed receiver
//! answers it.

use std::path::PathBuf;

use secrecy::{ExposeSecret, SecretString};

use crate::config::Settings;
use crate::provider::{Definitions, Key, ProviderDef, SignError, SignInput};

/// What `hookline handshake KIND` takes.
#[derive(clap::Args)]
pub(super) struct RequestArgs {
    /// Provider kind (`hookline providers list`), or with --config the
    /// name of a configured provider.
    pub kind: Option<String>,
    /// The configuration whose tenant's first secret and verify_token sign
    /// the request, unless --secret, --private-key or --verify-token is
    /// given (those sign without it, so a `HOOKLINE_CONFIG` set in the
    /// environment does not stand in their way).
    #[arg(long, env = "HOOKLINE_CONFIG")]
    pub config: Option<PathBuf>,
    /// The tenant (with --config), also the last part of the default URL.
    #[arg(long)]
    pub tenant: Option<String>,
    /// The signing secret, for a handshake answered only once signed.
    #[arg(long, env = "HOOKLINE_SIGN_SECRET", hide_env_values = true)]
    pub secret: Option<SecretString>,
    /// A private key file (PKCS#8 PEM) for public-key schemes (Discord).
    #[arg(long, conflicts_with = "secret")]
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
}

/// Print the handshake request of `args.kind`; exit code 0.
pub(super) fn print(args: RequestArgs, defs: &Definitions) -> anyhow::Result<i32> {
    let name = args
        .kind
        .clone()
        .ok_or_else(|| anyhow::anyhow!("name a provider kind: hookline handshake KIND"))?;
    let tenant = args.tenant.clone().unwrap_or_else(|| "default".into());
    let (def, key, verify_token, base) = match args.signing_config()? {
        Some(path) => from_config(path, &name, &tenant)?,
        None => {
            let def = defs
                .get(&name)
                .ok_or_else(|| anyhow::anyhow!(crate::text::unknown_kind(&name, defs.kinds())))?;
            let key = own_key(def, &args)?;
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
    /// The configuration that signs the request: `--config` (or
    /// `HOOKLINE_CONFIG`) when the command line brings no key of its own,
    /// with the tenant named, since it decides the secret.
    fn signing_config(&self) -> anyhow::Result<Option<&std::path::Path>> {
        let own_key =
            self.secret.is_some() || self.private_key.is_some() || self.verify_token.is_some();
        match (&self.config, &self.tenant) {
            (Some(_), _) if own_key => Ok(None),
            (Some(path), Some(_)) => Ok(Some(path)),
            (Some(path), None) => anyhow::bail!(
                "with --config {} (or HOOKLINE_CONFIG), name the tenant whose secret signs: --tenant NAME; or sign without it: --secret",
                path.display()
            ),
            (None, _) => Ok(None),
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

/// The key --secret or --private-key gives, if any.
fn own_key(def: &ProviderDef, args: &RequestArgs) -> anyhow::Result<Option<Key>> {
    if let Some(secret) = &args.secret {
        let key = def
            .decode_secret(secret.expose_secret())
            .map_err(|e| anyhow::anyhow!("--secret: {e}"))?;
        return Ok(Some(key));
    }
    if let Some(path) = &args.private_key {
        let text = std::fs::read_to_string(path)
            .map_err(|e| anyhow::anyhow!("--private-key {}: {e}", path.display()))?;
        let key = def
            .decode_private_key(&text)
            .map_err(|e| anyhow::anyhow!("--private-key {}: {e}", path.display()))?;
        return Ok(Some(key));
    }
    Ok(None)
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
