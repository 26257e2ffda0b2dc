//! Artifact references: every ref a trace names is classified (a path inside the trace root, a
//! label such as `tool:Bash` or `reservation:EHGLP3`, a URL) or flagged with the reason it
//! escapes the root. Refs are never resolved or followed. See `docs/learning-loop.md`,
//! "Artifact refs".
//!
//! Normalisation: `./a/../b` → `b`; `\` is a separator; an absolute path (or a `file:` URL) that
//! lies inside the known trace root (Claude Code's `cwd`, SWE-agent's `working_dir`, ...) becomes
//! the relative path under it. Everything else that could reach outside the root is flagged:
//! `..` past the root, an absolute path outside it (or any absolute path when no root is known),
//! a `file:` URL outside it, `~`, an environment variable, a drive-relative Windows path,
//! leading or trailing whitespace, a control or look-alike character, and any of these hidden
//! behind percent-encoding.
//!
//! Invariant: a ref that is not flagged has a normalised form with no `..` segment, no leading
//! `/`, `\`, `~`, `$`, `%` or drive letter, and no whitespace or control character at its ends;
//! classifying that form again (with no root) gives it back unflagged.

pub mod extract;

use serde::{Deserialize, Serialize};

use crate::model::ArtifactRef;

/// What a reference is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RefKind {
    /// A path relative to the trace root (`src/app.py`).
    #[default]
    Path,
    /// A `scheme:value` name that is not a file (`tool:Bash`, `reservation:EHGLP3`,
    /// `message:4`, `artifact:build-output`).
    Label,
    /// An `http:`, `https:` or `ftp:` URL a message names (never fetched).
    Url,
    /// Flagged: it escapes the trace root (see [`ArtifactRef::reason`]).
    Escaping,
}

/// Classifies `raw` with no known trace root (every absolute path escapes).
pub fn classify(raw: &str) -> ArtifactRef {
    classify_in(raw, None)
}

/// Classifies `raw` against the trace root `root` (an absolute directory, or `None`).
pub fn classify_in(raw: &str, root: Option<&str>) -> ArtifactRef {
    match check(raw, root) {
        Ok((normalized, kind)) => ArtifactRef {
            raw: raw.to_string(),
            normalized,
            escapes_root: false,
            kind,
            reason: None,
        },
        Err(reason) => ArtifactRef {
            raw: raw.to_string(),
            normalized: raw.to_string(),
            escapes_root: true,
            kind: RefKind::Escaping,
            reason: Some(reason),
        },
    }
}

/// True when `text` (a ref as stored in a case) would be flagged: such a ref never enters a
/// valid case or a brief.
pub fn escapes(text: &str) -> bool {
    check(text, None).is_err()
}

type Checked = Result<(String, RefKind), String>;

fn check(raw: &str, root: Option<&str>) -> Checked {
    // Most refs a trace names are plain relative paths or labels (`src/app.py`,
    // `artifact:build-output`): settled by one scan of their bytes, without the decoding,
    // lower-casing and resolving below (~3,500 instructions a ref), to the same result.
    if let Some(kind) = plain_kind(raw.as_bytes()) {
        return Ok((raw.to_string(), kind));
    }
    check_full(raw, root)
}

/// The kind of a ref that [`check_full`] would give back unchanged and unflagged, read from its
/// bytes alone; `None` for anything else (left to it). Such a ref is ASCII letters, digits,
/// `-`, `_`, `.` and `/` with no empty, `.`-only or leading-`/` segment (a relative path: it
/// normalises to itself), or a scheme of two or more of those characters starting with a letter,
/// not `file`, a `:`, and such a path (a label, or a URL for `http`, `https` and `ftp`). The
/// unit test checks it against the full check on generated refs.
fn plain_kind(b: &[u8]) -> Option<RefKind> {
    let (path, kind) = match memchr::memchr(b':', b) {
        None => (b, RefKind::Path),
        Some(colon) => {
            let scheme = &b[..colon];
            if scheme.len() < 2
                || !scheme[0].is_ascii_alphabetic()
                || !scheme
                    .iter()
                    .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
                || scheme.eq_ignore_ascii_case(b"file")
            {
                return None;
            }
            let kind = if scheme.eq_ignore_ascii_case(b"http")
                || scheme.eq_ignore_ascii_case(b"https")
                || scheme.eq_ignore_ascii_case(b"ftp")
            {
                RefKind::Url
            } else {
                RefKind::Label
            };
            (&b[colon + 1..], kind)
        }
    };
    if path.is_empty() {
        return None;
    }
    let mut dots_only = true;
    let mut segment_len = 0;
    for &c in path {
        match c {
            b'/' => {
                if segment_len == 0 || dots_only {
                    return None;
                }
                segment_len = 0;
                dots_only = true;
                continue;
            }
            b'.' => {}
            c if c.is_ascii_alphanumeric() || c == b'-' || c == b'_' => dots_only = false,
            _ => return None,
        }
        segment_len += 1;
    }
    (segment_len > 0 && !dots_only).then_some(kind)
}

/// [`check`] without the shortcut for plain refs.
fn check_full(raw: &str, root: Option<&str>) -> Checked {
    if raw.trim().is_empty() {
        return Err("empty reference".into());
    }
    if let Some(c) = raw.chars().find(|c| is_control(*c)) {
        return Err(format!("control character {} in the reference", c.escape_unicode()));
    }
    if let Some(c) = raw.chars().find(|c| LOOKALIKES.contains(c)) {
        return Err(format!("look-alike character {} for `.`, `/` or `\\`", c.escape_unicode()));
    }
    if raw.trim() != raw {
        let inner = match check(raw.trim(), root) {
            Err(r) => format!(" (trimmed, it is flagged too: {r})"),
            Ok(_) => String::new(),
        };
        return Err(format!("leading or trailing whitespace{inner}"));
    }
    // Percent-encoding must not hide a traversal: decode (nested encodings too) and check that.
    let decoded = percent_decode_all(raw);
    if decoded != raw {
        if let Err(r) = check_plain(&decoded, root) {
            return Err(format!("percent-encoded: {r}"));
        }
        if decoded.split(['/', '\\']).any(is_dot_dot) {
            return Err("percent-encoded `..` segment".into());
        }
        // A file path has no reason to be percent-encoded; a URL or a label may be.
        let checked = check_plain(raw, root)?;
        if checked.1 == RefKind::Path {
            return Err("percent-encoded characters in a path".into());
        }
        return Ok(checked);
    }
    check_plain(raw, root)
}

fn check_plain(raw: &str, root: Option<&str>) -> Checked {
    let lower = raw.to_ascii_lowercase();
    if let Some(rest) = lower.strip_prefix("file:") {
        let rest = &raw[raw.len() - rest.len()..];
        let path = match rest.strip_prefix("//") {
            Some(after) => {
                let (host, path) = after.split_at(after.find('/').unwrap_or(after.len()));
                if !(host.is_empty() || host.eq_ignore_ascii_case("localhost")) {
                    return Err(format!("`file:` URL on another host (`{host}`)"));
                }
                path
            }
            None => rest,
        };
        if scheme_of(path).is_some() || path.to_ascii_lowercase().starts_with("file:") {
            return Err("nested scheme in a `file:` URL".into());
        }
        // `file:///C:/x` names the drive path `C:/x`.
        let path = match path.strip_prefix('/') {
            Some(p) if drive_letter(p).is_some() => p,
            _ => path,
        };
        return match check_path(path, root, "`file:` URL") {
            Ok((p, _)) => Ok((p, RefKind::Path)),
            Err(r) => Err(r),
        };
    }
    if let Some(scheme) = scheme_of(raw) {
        let value = &raw[scheme.len() + 1..];
        let kind = match scheme.to_ascii_lowercase().as_str() {
            "http" | "https" | "ftp" => RefKind::Url,
            _ => RefKind::Label,
        };
        let absolute = value.starts_with(['/', '\\', '~']) || drive_letter(value).is_some();
        if kind == RefKind::Label && absolute {
            return Err(format!("`{scheme}:` label names an absolute path"));
        }
        if value.split(['/', '\\']).any(is_dot_dot) {
            return Err(format!("`..` segment in a `{scheme}:` reference"));
        }
        return Ok((raw.to_string(), kind));
    }
    check_path(raw, root, "absolute path")
}

/// A path (no scheme): normalised relative to the root, or the reason it escapes.
fn check_path(path: &str, root: Option<&str>, what: &str) -> Checked {
    if path.is_empty() {
        return Err(format!("{what} with no path"));
    }
    if path.starts_with('~') {
        return Err("home-directory path (`~`)".into());
    }
    if path.starts_with('$') || path.starts_with('%') {
        return Err("path through an environment variable".into());
    }
    if let Some(after) = drive_letter(path) {
        if !after.starts_with(['/', '\\']) {
            return Err("drive-relative Windows path (`C:x`)".into());
        }
    }
    if path.split(['/', '\\']).any(|seg| seg.trim() != seg && !is_dot_dot(seg)) {
        return Err("whitespace around a path segment".into());
    }
    let absolute = path.starts_with(['/', '\\']) || drive_letter(path).is_some();
    if absolute {
        let segments = match resolve(path) {
            Some(s) => s,
            None => return Err(format!("{what} with `..` above the file system root")),
        };
        let Some(root_segments) = root.and_then(root_segments) else {
            return Err(format!("{what} (no trace root is known)"));
        };
        if segments.len() >= root_segments.len()
            && segments[..root_segments.len()] == root_segments[..]
        {
            let rel = &segments[root_segments.len()..];
            return plain_path(if rel.is_empty() { ".".into() } else { rel.join("/") });
        }
        return Err(format!("{what} outside the trace root `{}`", root.unwrap_or_default()));
    }
    match resolve(path) {
        Some(segments) if segments.is_empty() => Ok((".".into(), RefKind::Path)),
        Some(segments) => plain_path(segments.join("/")),
        None => Err("`..` leaves the trace root".into()),
    }
}

/// A normalised path must read back as the same plain path: not as a scheme (`./file:` →
/// `file:`), a drive (`./C:x`), a home or variable path (`./~` → `~`).
fn plain_path(normalized: String) -> Checked {
    let reads_other = normalized.starts_with(['~', '$', '%'])
        || scheme_of(&normalized).is_some()
        || drive_letter(&normalized).is_some()
        || normalized.to_ascii_lowercase().starts_with("file:");
    if reads_other {
        return Err(format!("normalised path `{normalized}` reads as something else"));
    }
    Ok((normalized, RefKind::Path))
}

/// The segments of a path with `.` and empty segments dropped and `..` applied; `None` when a
/// `..` goes above the start. A drive letter (`C:`) is kept as the first segment.
fn resolve(path: &str) -> Option<Vec<&str>> {
    let mut out: Vec<&str> = Vec::new();
    for part in path.split(['/', '\\']) {
        if part.is_empty() || part == "." {
            continue;
        }
        if is_dot_dot(part) {
            out.pop()?;
            if out.is_empty() && drive_letter(path).is_some() {
                return None; // `C:/..` leaves the drive
            }
            continue;
        }
        out.push(part);
    }
    Some(out)
}

/// `..`, and the names Windows reads as `..` (`...`, `.. `, `..\t`): only dots and spaces, at
/// least two dots.
fn is_dot_dot(segment: &str) -> bool {
    segment.chars().filter(|c| *c == '.').count() >= 2
        && segment.chars().all(|c| c == '.' || c == ' ')
}

fn root_segments(root: &str) -> Option<Vec<&str>> {
    let root = root.trim();
    if !(root.starts_with(['/', '\\']) || drive_letter(root).is_some()) {
        return None;
    }
    resolve(root)
}

/// `C:` at the start: the rest after it.
fn drive_letter(s: &str) -> Option<&str> {
    let b = s.as_bytes();
    (b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':').then(|| &s[2..])
}

/// A URI scheme of two or more characters (one letter is a drive).
fn scheme_of(s: &str) -> Option<&str> {
    let (scheme, _) = s.split_once(':')?;
    let ok = scheme.len() >= 2
        && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-._".contains(c));
    ok.then_some(scheme)
}

/// Control characters (C0, DEL, C1) and the invisible format characters that can reorder or
/// hide text (bidi overrides, zero-width characters, BOM).
fn is_control(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        || c == '\u{feff}'
}

/// Characters that look like `.`, `/` or `\` (one dot leader, fullwidth forms, division and
/// fraction slashes, the small full stop).
const LOOKALIKES: [char; 9] = [
    '\u{2024}', '\u{ff0e}', '\u{fe52}', '\u{ff0f}', '\u{2215}', '\u{2044}', '\u{ff3c}', '\u{29f5}',
    '\u{2216}',
];

/// Percent-decodes until nothing changes (at most 4 rounds: `%252e` → `%2e` → `.`). Bytes that
/// do not form UTF-8 are kept as the replacement character (which then reads as a plain name).
fn percent_decode_all(s: &str) -> String {
    let mut cur = s.to_string();
    for _ in 0..4 {
        let next = percent_decode(&cur);
        if next == cur {
            break;
        }
        cur = next;
    }
    cur
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let hex = |c: u8| (c as char).to_digit(16);
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// How a ref reads in a hint: a path or URL in backticks, a label as its value in backticks
/// after a word (`tool:Bash` → "the `Bash` tool", `reservation:EHGLP3` → "reservation
/// `EHGLP3`"), a message as "message 4". Every backticked part is text of the trace.
pub fn display(reference: &str) -> String {
    match scheme_of(reference).filter(|s| !matches!(*s, "http" | "https" | "ftp")) {
        Some(scheme) => {
            let value = &reference[scheme.len() + 1..];
            match scheme {
                "tool" => format!("the `{value}` tool"),
                "message" | "step" => format!("{scheme} {value}"),
                // AWTL writes `artifact:NAME` refs itself: the whole ref is trace text.
                "artifact" => format!("`{reference}`"),
                other => format!("{} `{value}`", other.replace('_', " ")),
            }
        }
        None => format!("`{reference}`"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_ref_is_checked_as_the_full_check_does() {
        for raw in [
            "src/app.py",
            "artifact:build-output",
            "https:x",
            "HTTP:a/b",
            "ftp:a",
            "tool:Bash",
            "a/./b",
            "./a",
            "a/..",
            "a/...",
            "a//b",
            "a/",
            "/a",
            ".",
            "..",
            "...",
            ".a",
            "a.",
            "file:a",
            "FILE:a",
            "c:a",
            "ab:",
            "ab:/x",
            "ab:~x",
            "1a:b",
            "a_b:c",
            "x.y-z:q:r",
            "ab:c:d",
            "ab::c",
            "a b",
            "a%2e",
            "~a",
            "$a",
            "a\\b",
            "",
        ] {
            if let Some(kind) = plain_kind(raw.as_bytes()) {
                assert_eq!(check_full(raw, None), Ok((raw.to_string(), kind)), "{raw:?}");
                assert_eq!(check_full(raw, Some("/root")), Ok((raw.to_string(), kind)), "{raw:?}");
            }
            assert_eq!(check(raw, None), check_full(raw, None), "{raw:?}");
        }
        assert_eq!(plain_kind(b"src/app.py"), Some(RefKind::Path));
        assert_eq!(plain_kind(b"artifact:build-output"), Some(RefKind::Label));
        assert_eq!(plain_kind(b"https:x"), Some(RefKind::Url));
    }

    proptest::proptest! {
        #[test]
        fn the_plain_ref_shortcut_agrees_with_the_full_check(
            scheme in proptest::sample::select(vec!["", "ab:", "file:", "HTTP:", "A:", "1x:", "a_b:"]),
            parts in proptest::collection::vec(
                proptest::sample::select(vec![
                    "a", "..", ".", "...", "", "Z0", "a b", " a", "%2e", "~", "$x", "c:", "-_", ".a",
                ]),
                0..4,
            ),
            seps in proptest::collection::vec(proptest::sample::select(vec!["/", "\\", "//"]), 4),
        ) {
            let mut raw = scheme.to_string();
            for (i, part) in parts.iter().enumerate() {
                if i > 0 {
                    raw.push_str(seps[i]);
                }
                raw.push_str(part);
            }
            proptest::prop_assert_eq!(check(&raw, None), check_full(&raw, None));
            proptest::prop_assert_eq!(check(&raw, Some("/w")), check_full(&raw, Some("/w")));
        }
    }

    #[test]
    fn percent_decode_handles_short_and_bad_escapes() {
        assert_eq!(percent_decode("%2e%2E/x"), "../x");
        assert_eq!(percent_decode("a%"), "a%");
        assert_eq!(percent_decode("a%2"), "a%2");
        assert_eq!(percent_decode("%zz"), "%zz");
        assert_eq!(percent_decode_all("%252e%252e"), "..");
    }
}
