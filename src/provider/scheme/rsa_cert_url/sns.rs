//! `message = "sns"`: an Amazon SNS message to an HTTP/S subscription
//! (<https://docs.aws.amazon.com/sns/latest/dg/sns-verify-signature-of-message.html>).
//!
//! Everything is in the JSON body: `Signature` (base64), `SignatureVersion`
//! (`1`: SHA1withRSA, `2`: SHA256withRSA), `SigningCertURL` (path ending
//! `.pem`, as AWS's validator requires) and the signed text, `Key\nvalue\n`
//! for each of these keys the message has, in this order:
//!
//! - `Notification`: Message, MessageId, Subject, Timestamp, TopicArn, Type;
//! - `SubscriptionConfirmation`, `UnsubscribeConfirmation`: Message,
//!   MessageId, SubscribeURL, Timestamp, Token, TopicArn, Type.
//!
//! Anyone may subscribe any URL to their own topic, so a valid signature
//! alone proves only that some topic sent the message: the tenant's
//! `secrets` are the topic ARNs it subscribed, and a message of any other
//! topic is `invalid_signature` before any certificate is fetched.

use std::collections::BTreeMap;

use serde_json::Value;

use super::{Hash, Signed};
use crate::provider::key::KeyError;
use crate::provider::request::UntrustedRequest;
use crate::provider::scheme::mac::{self, DigestEncoding, TimestampFormat};
use crate::provider::scheme::VerifyError;

const NOTIFICATION: &[&str] = &[
    "Message",
    "MessageId",
    "Subject",
    "Timestamp",
    "TopicArn",
    "Type",
];
const CONFIRMATION: &[&str] = &[
    "Message",
    "MessageId",
    "SubscribeURL",
    "Timestamp",
    "Token",
    "TopicArn",
    "Type",
];

/// The signature, certificate URL and signed text of an SNS message, for
/// the tenant's topics `topics`.
pub(crate) fn read(req: &UntrustedRequest<'_>, topics: &[&[u8]]) -> Result<Signed, VerifyError> {
    // Not JSON, or not an object: nothing SNS signed, so nothing to check a
    // signature of.
    let msg: BTreeMap<String, Value> =
        serde_json::from_slice(&req.body).map_err(|_| VerifyError::MissingSignature)?;
    let field = |name: &str| match msg.get(name) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.as_str())),
        Some(_) => Err(VerifyError::InvalidSignature),
    };
    let required = |name: &str| field(name)?.ok_or(VerifyError::InvalidSignature);
    let signature = field("Signature")?.ok_or(VerifyError::MissingSignature)?;
    let signature = mac::decode_digest(DigestEncoding::Base64, signature)
        .ok_or(VerifyError::InvalidSignature)?;
    let hash = match required("SignatureVersion")? {
        "1" => Hash::Sha1,
        "2" => Hash::Sha256,
        _ => return Err(VerifyError::InvalidSignature),
    };
    let cert_url = required("SigningCertURL")?;
    let is_pem = url::Url::parse(cert_url).is_ok_and(|u| u.path().ends_with(".pem"));
    if !is_pem {
        return Err(VerifyError::InvalidSignature);
    }
    let keys = match required("Type")? {
        "Notification" => NOTIFICATION,
        "SubscriptionConfirmation" | "UnsubscribeConfirmation" => CONFIRMATION,
        _ => return Err(VerifyError::InvalidSignature),
    };
    let mut text = Vec::new();
    for key in keys {
        if let Some(value) = field(key)? {
            for part in [key.as_bytes(), b"\n", value.as_bytes(), b"\n"] {
                text.extend_from_slice(part);
            }
        }
    }
    let signed_at = TimestampFormat::Rfc3339.parse(required("Timestamp")?)?;
    let topic = required("TopicArn")?;
    let messages = if topics.contains(&topic.as_bytes()) {
        vec![text]
    } else {
        Vec::new()
    };
    Ok(Signed {
        signature,
        hash,
        cert_url: cert_url.to_owned(),
        signed_at,
        messages,
    })
}

/// A topic ARN as SNS writes it: `arn:PARTITION:sns:REGION:ACCOUNT:NAME`.
pub(crate) fn check_topic(arn: &str) -> Result<(), KeyError> {
    let parts: Vec<&str> = arn.split(':').collect();
    let shaped = parts.len() == 6
        && parts[0] == "arn"
        && parts[1].starts_with("aws")
        && parts[2] == "sns"
        && parts[3..].iter().all(|p| !p.is_empty());
    if !shaped {
        return Err(KeyError::new(
            "an SNS topic ARN is arn:aws:sns:REGION:ACCOUNT:TOPIC",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::check_topic;

    #[test]
    fn topic_arns() {
        assert!(check_topic("arn:aws:sns:us-east-1:123456789012:orders").is_ok());
        assert!(check_topic("arn:aws-cn:sns:cn-north-1:123456789012:orders").is_ok());
        for bad in [
            "",
            "orders",
            "arn:aws:sqs:us-east-1:1:q",
            "arn:aws:sns::1:t",
        ] {
            assert!(check_topic(bad).is_err(), "{bad}");
        }
    }
}
