//! How a filled-in template becomes the bytes under an HMAC: as they are,
//! or, for Trello, as Node's `"binary"` string encoding writes the text.

use serde::Deserialize;

use super::mac::{self, Algorithm, DigestEncoding};
use super::{SignError, VerifyError};
use crate::provider::template::{MissingHeader, Template, Values};

/// How the signed text becomes the bytes under the MAC.
#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum ContentEncoding {
    /// The content's bytes as they are (the raw body, UTF-8 text).
    #[default]
    Bytes,
    /// Node's `"binary"` (latin1) string encoding, which older Node used
    /// by default for `hmac.update(string)`: the content is read as UTF-8
    /// text (an invalid sequence as U+FFFD, as Node decodes it) and each
    /// UTF-16 code unit is cut to its low 8 bits. Trello signs this way:
    /// "the payloads that we sign are treated as binary strings, not
    /// utf-8 ... the en-dash (U+2013) ... shows up as a buffer of [19]".
    NodeBinary,
}

impl ContentEncoding {
    /// The bytes `template` filled with `values` stands for under this
    /// encoding; `None` for [`ContentEncoding::Bytes`], whose bytes are fed
    /// to the MAC as they are.
    pub(crate) fn transcode(
        self,
        template: &Template,
        values: &Values<'_>,
    ) -> Result<Option<Vec<u8>>, MissingHeader> {
        match self {
            ContentEncoding::Bytes => Ok(None),
            ContentEncoding::NodeBinary => {
                let mut text = Vec::new();
                template.feed(values, &mut |bytes| text.extend_from_slice(bytes))?;
                let cut = String::from_utf8_lossy(&text)
                    .encode_utf16()
                    // Keeping the low byte is the point: `as u8` truncates.
                    .map(|unit| unit as u8)
                    .collect();
                Ok(Some(cut))
            }
        }
    }
}

/// [`any_secret_matches`] over the content as `encoding` turns it into
/// bytes (see [`ContentEncoding`]).
pub(crate) fn any_encoded_matches(
    (algorithm, encoding): (Algorithm, ContentEncoding),
    template: &Template,
    secrets: &[&[u8]],
    values: &Values<'_>,
    candidates: &[Vec<u8>],
) -> Result<bool, VerifyError> {
    let transcoded =
        (encoding.transcode(template, values)).map_err(|_| VerifyError::MissingSignature)?;
    match transcoded {
        None => mac::any_secret_matches(algorithm, template, secrets, values, candidates),
        Some(content) => {
            let values = Values {
                body: &content,
                ..*values
            };
            mac::any_secret_matches(algorithm, &Template::body(), secrets, &values, candidates)
        }
    }
}

/// [`sign_with`] over the content as `encoding` turns it into bytes.
pub(crate) fn sign_encoded(
    (algorithm, encoding): (Algorithm, ContentEncoding),
    digest: DigestEncoding,
    template: &Template,
    key: &[u8],
    values: &Values<'_>,
) -> Result<String, SignError> {
    let transcoded = (encoding.transcode(template, values))
        .map_err(|MissingHeader(name)| SignError::MissingHeader(name))?;
    match transcoded {
        None => mac::sign_with(algorithm, digest, template, key, values),
        Some(content) => {
            let values = Values {
                body: &content,
                ..*values
            };
            mac::sign_with(algorithm, digest, &Template::body(), key, &values)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ContentEncoding;
    use crate::provider::template::{Template, Values};

    fn bytes(encoding: ContentEncoding, body: &[u8]) -> Option<Vec<u8>> {
        let no_headers: Vec<(String, String)> = Vec::new();
        let values = Values {
            id: "",
            timestamp: "",
            method: "",
            url: "https://x.test/t",
            headers: &no_headers,
            body,
            pairs: &[],
        };
        let template = Template::parse("{body}{url}").unwrap();
        encoding.transcode(&template, &values).unwrap()
    }

    /// The docs' example: the en dash U+2013 (8211) signs as the byte 19;
    /// an astral character as its two UTF-16 units, each cut to 8 bits.
    #[test]
    fn node_binary_keeps_the_low_byte_of_each_utf16_unit() {
        let body = "a\u{2013}\u{e9}\u{1F680}".as_bytes();
        let mut want = vec![b'a', 19, 0xE9, 0x3D, 0x80];
        want.extend_from_slice(b"https://x.test/t");
        assert_eq!(bytes(ContentEncoding::NodeBinary, body), Some(want));
        assert_eq!(
            bytes(ContentEncoding::Bytes, body),
            None,
            "bytes as they are"
        );
    }

    /// ASCII is the same under both encodings.
    #[test]
    fn node_binary_leaves_ascii_alone() {
        assert_eq!(
            bytes(ContentEncoding::NodeBinary, b"{\"a\":1}"),
            Some(b"{\"a\":1}https://x.test/t".to_vec())
        );
    }
}
