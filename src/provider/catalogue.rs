//! How a built-in provider is described to people: `hookline providers
//! list|show` and the generated `docs/providers.md`.

use std::fmt::Write as _;

use super::definition::ProviderDef;
use super::identity::FieldSource;

impl ProviderDef {
    /// The family's TOML name (`hmac`, `ed25519`, ...).
    pub fn scheme_name(&self) -> &'static str {
        self.signature.family().name()
    }

    /// One line: kind, title, scheme family, handshake if any.
    pub fn summary_line(&self) -> String {
        let mut line = format!(
            "{:<22} {:<40} {}",
            self.kind,
            self.title,
            self.scheme_name()
        );
        if let Some(h) = &self.handshake {
            line.push_str(&format!(" (handshake: {})", h.name()));
        }
        line.trim_end().to_owned()
    }

    /// Everything `hookline providers show` prints, ending with a config
    /// snippet ready to paste.
    pub fn details(&self) -> String {
        let mut out = String::new();
        let w = &mut out;
        let _ = writeln!(w, "{} ({})", self.title, self.kind);
        if !self.aliases.is_empty() {
            let _ = writeln!(w, "  aliases:    {}", self.aliases.join(", "));
        }
        let _ = writeln!(w, "  scheme:     {}", self.scheme_name());
        let headers = self.signature_headers();
        let signature = if headers.is_empty() {
            "in the body".to_owned()
        } else {
            headers.join(", ")
        };
        let _ = writeln!(w, "  signature:  {signature}");
        let _ = writeln!(w, "  event ID:   {}", describe(&self.event_id));
        if let Some(guard) = self.replay_guard {
            let what = match guard {
                super::ReplayGuard::Body => "the body's SHA-256 is a second dedup key",
                super::ReplayGuard::None => "the ID is unsigned; the body is no second key",
            };
            let _ = writeln!(w, "  replays:    {} ({what})", guard.as_str());
        }
        let kind = self.event_type.as_ref().map_or("none".into(), describe);
        let _ = writeln!(w, "  event type: {kind}");
        if let Some(h) = &self.handshake {
            let _ = writeln!(w, "  handshake:  {}", h.name());
        }
        if let Some(window) = self.window {
            let _ = writeln!(
                w,
                "  window:     at least {} (the provider's retry horizon)",
                crate::text::duration(window)
            );
        }
        if let Some(tolerance) = self.tolerance {
            let _ = writeln!(
                w,
                "  tolerance:  {} (the signed time stays that of the first attempt)",
                crate::text::duration(tolerance)
            );
        }
        if !self.fetch_hosts.is_empty() {
            let hosts = self.fetch_hosts.patterns().join(", ");
            let _ = writeln!(w, "  fetches:    over https, only from {hosts}");
        }
        if let Some(docs) = &self.docs {
            let _ = writeln!(w, "  docs:       {docs}");
        }
        let _ = writeln!(w, "\n{}", self.config_snippet());
        out
    }

    /// A `[providers.KIND]` table with one tenant, to paste into
    /// `hookline.toml`.
    pub fn config_snippet(&self) -> String {
        let name = &self.kind;
        let secret = match self.scheme_name() {
            "ed25519" | "ecdsa-p256" | "rsa" => "the public key the provider shows",
            "rsa-cert-url" => "not a secret: the SNS topic ARN or PayPal webhook ID you subscribed",
            _ => "the signing secret the provider shows",
        };
        let mut s = format!(
            "[providers.{name}]\nkind = \"{name}\"\ncritical = [\"*\"]\n\n\
             [providers.{name}.tenants.default]\nsecrets_env = [\"{}_SECRET\"]   # {secret}\n",
            name.to_uppercase().replace('-', "_"),
        );
        if self
            .handshake
            .as_ref()
            .is_some_and(|h| h.name() == "hub-challenge")
        {
            s.push_str("verify_token = \"the verify token you give the provider\"\n");
        }
        s
    }
}

/// Where a value is read from, in words.
pub fn describe(source: &FieldSource) -> String {
    match source {
        FieldSource::Header(names) => format!("header {}", names.0.join(" or ")),
        FieldSource::JsonPointer(p) => format!("JSON {p}"),
        FieldSource::AnyJsonPointer(ps) => format!("JSON {}", ps.join(" or ")),
        FieldSource::JsonPointers(ps, join) => {
            format!("JSON {} joined by {join:?}", ps.join(" + "))
        }
        FieldSource::FormField(f) => format!("form field {f}"),
        FieldSource::FormBase64Xml(f, path) => {
            format!("form field {f} (base64 XML) <{}>", path.join("><"))
        }
        FieldSource::JwtPayloadPointer(p, None) => format!("JWT payload {p}"),
        FieldSource::JwtPayloadPointer(p, Some(at)) => format!("JWT at {at}, payload {p}"),
        FieldSource::BodySha256 => "SHA-256 of the body".into(),
    }
}
