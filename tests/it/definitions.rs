//! Definition files and tenant secrets that cannot work are refused when
//! the configuration loads, each with a reason that names the problem and
//! never quotes a secret.

use crate::common;

use common::provider::configure;

fn with_signature(signature: &str, rest: &str) -> String {
    format!("kind = \"custom\"\ntitle = \"Custom\"\n[signature]\n{signature}\n{rest}")
}

const ID: &str = "[event_id]\njson_pointer = \"/id\"\n";

/// The reason a definition is refused.
fn refused(definition: &str) -> String {
    match configure("custom", Some(definition), &["secret"]) {
        Ok(_) => panic!("accepted:\n{definition}"),
        Err(e) => e,
    }
}

#[test]
fn a_definition_that_cannot_work_is_refused_with_its_reason() {
    let hmac = "scheme = \"hmac\"\nheader = \"X-Sig\"";
    for (definition, reason) in [
        (
            with_signature(&format!("{hmac}\nsigned_content = \"{{bdy}}\""), ID),
            "unknown placeholder {bdy}",
        ),
        (
            with_signature(&format!("{hmac}\nsigned_content = \"{{timestamp}}\""), ID),
            "must include {body} or {form}",
        ),
        (
            with_signature(&format!("{hmac}\nsigned_content = \"{{timestamp}}.{{body}}\""), ID),
            "timestamp_header is not set",
        ),
        (
            with_signature(&format!("{hmac}\ntimestamp_header = \"X-Ts\""), ID),
            "an unsigned timestamp proves nothing",
        ),
        (
            with_signature(&format!("{hmac}\nid_header = \"X-Id\""), ID),
            "id_header is set but signed_content has no {id}",
        ),
        (
            with_signature(
                &format!("{hmac}\nleading_timestamp = true\nsigned_content = \"{{timestamp}}.{{body}}\""),
                ID,
            ),
            "leading_timestamp needs a separator",
        ),
        (
            with_signature(
                &format!("{hmac}\nkey_id_separator = \":\"\nkey_id_header = \"X-Key\""),
                ID,
            ),
            "key_id_separator and key_id_header are exclusive",
        ),
        (
            with_signature(&format!("{hmac}\nsigned_content = \"{{pair:env}}{{body}}\""), ID),
            "{pair:env} is only for scheme = \"hmac-kv\"",
        ),
        (
            with_signature(
                "scheme = \"hmac-kv\"\nheader = \"X-Sig\"\npair_separator = \",\"\nkv_separator = \"=\"\ntimestamp_key = \"t\"\nsignature_key = \"s\"\nsigned_content = \"{pair:env}{timestamp}{body}\"",
                ID,
            ),
            "sign_pairs needs a value for it",
        ),
        (
            with_signature(hmac, "[event_id]\njson_pointers = [\"/a\", \"/b\"]"),
            "json_pointers and join go together",
        ),
        (
            with_signature(&format!("{hmac}\nalgo = \"sha1\""), ID),
            "unknown field `algo`",
        ),
        (
            with_signature(&format!("{hmac}\nalgorithm = \"md5\""), ID),
            "unknown variant `md5`",
        ),
        (
            with_signature(&format!("{hmac}\nencoding = \"base32\""), ID),
            "unknown variant `base32`",
        ),
        (
            with_signature("scheme = \"rsa-pss\"\nheader = \"X-Sig\"", ID),
            "unknown variant `rsa-pss`",
        ),
        (
            with_signature("scheme = \"token\"\nheader = \"X-Token\"\nprefix = \"Bearer \"", ID),
            "unknown field `prefix`",
        ),
        (
            with_signature(
                "scheme = \"hmac-kv\"\nheader = \"S\"\npair_separator = \",\"\nkv_separator = \"=\"\ntimestamp_key = \"t\"\nsignature_key = \"v1\"\nsigned_content = \"{body}\"",
                ID,
            ),
            "signed_content must include {timestamp}",
        ),
        (
            with_signature(hmac, "[event_id]\nheader = \"X-Id\"\njson_pointer = \"/id\"\n"),
            "set exactly one of header, json_pointer, json_pointers, form_field, body_sha256 = true",
        ),
        (
            with_signature(hmac, "[event_id]\nbody_sha256 = false\n"),
            "set exactly one",
        ),
        (
            with_signature(hmac, "[event_id]\njson_pointer = \"id\"\n"),
            "must be empty or start with '/'",
        ),
        (
            with_signature(hmac, &format!("{ID}[event_type]\nbody_sha256 = true\n")),
            "body_sha256 is an event ID source only",
        ),
        (
            with_signature(hmac, &format!("[handshake]\nkind = \"zoom\"\n{ID}")),
            "unknown variant `zoom`",
        ),
        (
            with_signature(
                hmac,
                &format!("[handshake]\nkind = \"slack-url-verification\"\nextra = 1\n{ID}"),
            ),
            "unknown field `extra`",
        ),
    ] {
        let e = refused(&definition);
        assert!(e.contains(reason), "{reason:?} not in {e}");
        assert!(e.contains("custom.toml"), "the file is named: {e}");
    }
}

/// Definitions written for the family's former name still load.
#[test]
fn hmac_header_is_still_accepted() {
    let def = with_signature("scheme = \"hmac-header\"\nheader = \"X-Sig\"", ID);
    assert!(configure("custom", Some(&def), &["secret"]).is_ok());
}

/// A secret the family cannot decode is an error naming the tenant's key
/// and what is wrong, never the secret.
#[test]
fn an_undecodable_secret_names_the_tenant_not_the_secret() {
    let secret = "whsec_not*base64!";
    let e = configure("standard-webhooks", None, &[secret]).unwrap_err();
    assert!(e.contains("providers.p.tenants.t.secrets[0]"), "{e}");
    assert!(e.contains("not a whsec_ base64 secret"), "{e}");
    assert!(!e.contains("not*base64"), "the secret leaked: {e}");
    let e = configure("github", None, &[""]).unwrap_err();
    assert!(e.contains("the secret is empty"), "{e}");
}

/// A key never shows its bytes.
#[test]
fn keys_are_redacted_in_debug_output() {
    let (settings, _dir) = configure("github", None, &["hunter2-secret"]).unwrap();
    let shown = format!("{:?}", settings.providers["p"]);
    assert!(!shown.contains("hunter2"), "{shown}");
}
