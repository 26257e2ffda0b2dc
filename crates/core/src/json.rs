//! JSON text read through one of serde_json's readers in the web build.
//!
//! serde_json compiles its whole parser once per input kind: `from_str` (`StrRead`) and
//! `from_slice` (`SliceRead`) were two copies of it in the bundle, about 10 KB of wasm each. The
//! byte reader stays (a document's bytes that are not UTF-8 get its error, which the quarantine
//! reports), so the web build reads text through it too: the same values and errors for any
//! `&str` (valid UTF-8 by its type), at the cost of checking each JSON string's bytes for UTF-8
//! once more. Native builds keep `serde_json::from_str`.

/// `serde_json::from_str`, through the byte reader in the web build.
pub fn from_str<'a, T: serde::Deserialize<'a>>(text: &'a str) -> serde_json::Result<T> {
    #[cfg(target_arch = "wasm32")]
    {
        serde_json::from_slice(text.as_bytes())
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        serde_json::from_str(text)
    }
}

/// A JSON value as compact text: what `Value`'s `Display` writes (`value.to_string()`), through
/// serde_json's writer into a `Vec` that the bundle has anyway; `Display` writes through a
/// formatter adapter, a second copy of the writer (3 KB of wasm), so the core does not use it.
pub fn to_text(v: &serde_json::Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    /// The web build's `from_str` is `from_slice`: it reads every text as `from_str` does, and
    /// `to_text` writes what `Display` writes.
    #[test]
    fn the_byte_reader_reads_text_as_the_text_reader_does() {
        for text in [
            r#"{"b":[1,2.5,-3e-7,null],"a":{"x":"quo\"te \\ \u0007 ✓ \ud83d\ude00"},"c":true}"#,
            r#"[]"#,
            r#"{}"#,
            r#""line\nbreak\ttab é""#,
            "18446744073709551615",
            "-0.0",
        ] {
            let v: Value = serde_json::from_str(text).expect("valid JSON");
            assert_eq!(serde_json::from_slice::<Value>(text.as_bytes()).unwrap(), v, "{text}");
            assert_eq!(super::from_str::<Value>(text).unwrap(), v, "{text}");
            assert_eq!(super::to_text(&v), v.to_string(), "{text}");
        }
        for bad in ["{", "[1,]", "\"\\x\"", "01", "\"é\u{1}\"", "[1] x"] {
            let (a, b) = (
                serde_json::from_slice::<Value>(bad.as_bytes()),
                serde_json::from_str::<Value>(bad),
            );
            assert_eq!(a.unwrap_err().to_string(), b.unwrap_err().to_string(), "{bad}");
        }
    }

    /// A text written with its characters escaped as `\uXXXX` (UTF-16 units, pairs for the
    /// astral planes; hex in either case), some left as they are: every reader gives the text
    /// back. The vendored serde_json decodes a `\u` escape outside the surrogates in its string
    /// loop natively (vendor/serde_json/README.trajscope.md); this checks it against the text.
    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn escaped_text_reads_back_as_written() {
        use proptest::prelude::*;
        proptest!(|(text in any::<String>(), escape in prop::collection::vec(0u8..3, 0..64))| {
            let mut json = String::from("\"");
            for (i, c) in text.chars().enumerate() {
                let plain = !matches!(c, '"' | '\\' | '\u{0}'..='\u{1f}');
                match escape.get(i % escape.len().max(1)).copied().unwrap_or(1) {
                    0 if plain => json.push(c),
                    how => {
                        for unit in c.encode_utf16(&mut [0; 2]) {
                            if how == 1 {
                                json.push_str(&format!("\\u{unit:04x}"));
                            } else {
                                json.push_str(&format!("\\u{unit:04X}"));
                            }
                        }
                    }
                }
            }
            json.push('"');
            prop_assert_eq!(&serde_json::from_str::<String>(&json).unwrap(), &text);
            prop_assert_eq!(&serde_json::from_slice::<String>(json.as_bytes()).unwrap(), &text);
            prop_assert_eq!(super::from_str::<Value>(&json).unwrap(), Value::String(text.clone()));
        });
        // What is not a character stays an error: a lone or reversed surrogate, bad hex, a cut
        // escape.
        for bad in [
            r#""\ud800""#,
            r#""\udc00""#,
            r#""\ude00\ud83d""#,
            r#""\ud83dx""#,
            r#""\ud83d\u0041""#,
            r#""\u12g4""#,
            r#""\u12""#,
            r#""\u"#,
        ] {
            assert!(serde_json::from_str::<String>(bad).is_err(), "{bad}");
            assert!(serde_json::from_slice::<Value>(bad.as_bytes()).is_err(), "{bad}");
        }
    }
}
