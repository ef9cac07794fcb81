//! `message = "sns"`: an Amazon SNS message to an HTTP/S subscription
//! (<https://docs.aws.amazon.com/sns/latest/dg/sns-verify-signature-of-message.html>).
//!
//! Everything is in the JSON body: `Signature` (base64), `SignatureVersion`
//! (`1`: SHA1withRSA, `2`: SHA256withRSA), `SigningCertURL` (path ending
//! `.pem`, as AWS's validator requires, and no query) and the signed text,
//! `Key\nvalue\n` for each of these keys the message has, in this order:
//!
//! - `Notification`: Message, MessageId, Subject, Timestamp, TopicArn, Type;
//! - `SubscriptionConfirmation`, `UnsubscribeConfirmation`: Message,
//!   MessageId, SubscribeURL, Timestamp, Token, TopicArn, Type.
//!
//! Anyone may subscribe any URL to their own topic, so a valid signature
//! alone proves only that some topic sent the message: the tenant's
//! `secrets` are the topic ARNs it subscribed, and a message of any other
//! topic is `invalid_signature` before any certificate is fetched.
//!
//! # One reading of the members
//!
//! The body is read once, by [`Members::parse`], for the signature here
//! and for the handshake ([`crate::provider::handshake`]'s
//! `sns-subscription`): a member written twice is refused, since two
//! readers could otherwise take different copies (one signed, one not). A
//! member SNS never sends is refused too: nothing signs it, so a copy of a
//! signed message could carry anything in it to the handlers. What SNS
//! itself leaves unsigned (`MessageAttributes`, `UnsubscribeURL` and the
//! signature's own members) is passed on as it came: docs/interpretations.md
//! says handlers must not act on it.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{Deserializer, MapAccess, Visitor};
use serde::Deserialize;
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

/// Every member SNS sends to an HTTP/S subscription: the signed ones, the
/// signature's, `UnsubscribeURL`, and `MessageAttributes` (sent unless the
/// subscription asked for raw delivery, which has no signature at all):
/// <https://docs.aws.amazon.com/sns/latest/dg/http-notification-json.html>,
/// <https://docs.aws.amazon.com/sns/latest/dg/http-subscription-confirmation-json.html>,
/// <https://docs.aws.amazon.com/sns/latest/dg/sns-large-payload-raw-message-delivery.html>.
const MEMBERS: &[&str] = &[
    "Type",
    "MessageId",
    "Token",
    "TopicArn",
    "Subject",
    "Message",
    "SubscribeURL",
    "Timestamp",
    "SignatureVersion",
    "Signature",
    "SigningCertURL",
    "UnsubscribeURL",
    "MessageAttributes",
];

/// An SNS message's top-level members, each written once and each one SNS
/// sends.
#[derive(Debug)]
pub struct Members(BTreeMap<String, Value>);

/// Why a body is not an SNS message hookline can read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unreadable {
    /// Not JSON, or not an object: nothing SNS signed.
    NotAnObject,
    /// A member written twice, or one SNS never sends.
    Members,
}

impl Members {
    /// The body's members, read the one way both the signature check and
    /// the handshake read them.
    pub fn parse(body: &[u8]) -> Result<Members, Unreadable> {
        match serde_json::from_slice::<Members>(body) {
            Ok(members) => Ok(members),
            // The same body as a plain object: then the members were at
            // fault, not the shape.
            Err(_) if serde_json::from_slice::<serde_json::Map<String, Value>>(body).is_ok() => {
                Err(Unreadable::Members)
            }
            Err(_) => Err(Unreadable::NotAnObject),
        }
    }

    /// A member that must be a string when present; `Err` when it is
    /// something else.
    pub fn text(&self, name: &str) -> Result<Option<&str>, Unreadable> {
        match self.0.get(name) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.as_str())),
            Some(_) => Err(Unreadable::Members),
        }
    }
}

impl<'de> Deserialize<'de> for Members {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Once;
        impl<'de> Visitor<'de> for Once {
            type Value = Members;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an SNS message: an object, each member once")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members, A::Error> {
                let mut members = BTreeMap::new();
                while let Some((name, value)) = map.next_entry::<String, Value>()? {
                    if !MEMBERS.contains(&name.as_str()) {
                        return Err(serde::de::Error::custom("a member SNS does not send"));
                    }
                    if members.insert(name, value).is_some() {
                        return Err(serde::de::Error::custom("a member written twice"));
                    }
                }
                Ok(Members(members))
            }
        }
        d.deserialize_map(Once)
    }
}

/// The signature, certificate URL and signed text of an SNS message, for
/// the tenant's topics `topics`.
pub(crate) fn read(req: &UntrustedRequest<'_>, topics: &[&[u8]]) -> Result<Signed, VerifyError> {
    let msg = Members::parse(&req.body).map_err(|e| match e {
        Unreadable::NotAnObject => VerifyError::MissingSignature,
        Unreadable::Members => VerifyError::InvalidSignature,
    })?;
    let field = |name: &str| msg.text(name).map_err(|_| VerifyError::InvalidSignature);
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
    // A `.pem` path (AWS's validators require it) and no query: SNS's
    // certificate URLs have none, and every distinct query would be one
    // more URL to fetch.
    let is_pem =
        url::Url::parse(cert_url).is_ok_and(|u| u.path().ends_with(".pem") && u.query().is_none());
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
    use super::{check_topic, Members, Unreadable};

    #[test]
    fn members_are_read_once_each() {
        let ok = br#"{"Type":"Notification","MessageId":"m","MessageAttributes":{"a":{"Type":"String","Value":"1"}}}"#;
        let members = Members::parse(ok).unwrap();
        assert_eq!(members.text("Type"), Ok(Some("Notification")));
        assert_eq!(members.text("Subject"), Ok(None));
        assert_eq!(members.text("MessageAttributes"), Err(Unreadable::Members));
        for (body, why) in [
            (
                &br#"{"Type":"Notification","Type":"SubscriptionConfirmation"}"#[..],
                Unreadable::Members,
            ),
            (
                br#"{"Type":"Notification","Extra":"added later"}"#,
                Unreadable::Members,
            ),
            (b"[]", Unreadable::NotAnObject),
            (b"not json", Unreadable::NotAnObject),
            (br#"{"Type":"Notification""#, Unreadable::NotAnObject),
        ] {
            assert_eq!(
                Members::parse(body).err(),
                Some(why),
                "{}",
                String::from_utf8_lossy(body)
            );
        }
    }

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
