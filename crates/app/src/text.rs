//! Plain-text helpers for the page: the byte ranges of case-insensitive matches, for
//! highlighting search hits. Search itself, elision and a step's text at a grain are the core
//! session's (`trajscope_core::session::text`), run in the worker. Pure functions, tested natively.

use std::ops::Range;

/// Byte ranges of the non-overlapping matches of `needle` in `hay`, ignoring case. An ASCII
/// needle matches ASCII-case-insensitively (ranges are always on char boundaries); any other
/// needle matches exactly.
pub fn find_ci(hay: &str, needle: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    if needle.is_empty() || needle.len() > hay.len() {
        return out;
    }
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    let ascii = needle.is_ascii();
    let mut i = 0;
    while i + n.len() <= h.len() {
        let window = &h[i..i + n.len()];
        let hit = if ascii { window.eq_ignore_ascii_case(n) } else { window == n };
        if hit && hay.is_char_boundary(i) && hay.is_char_boundary(i + n.len()) {
            out.push(i..i + n.len());
            i += n.len();
        } else {
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    // The core's search, which the worker uses: the page's highlighting must agree with it.
    use trajscope_core::session::text::contains_ci;

    #[test]
    fn find_ci_finds_every_match_ignoring_ascii_case() {
        assert_eq!(find_ci("Error: an ERROR, errors", "error"), vec![0..5, 10..15, 17..22]);
        assert_eq!(find_ci("née née", "née"), vec![0..4, 5..9]);
        assert!(find_ci("abc", "").is_empty());
        assert!(find_ci("ab", "abc").is_empty());
        // Never a range that splits a multi-byte character.
        assert!(find_ci("ééé", "\u{a9}").is_empty());
    }

    #[test]
    fn contains_ci_agrees_with_find_ci() {
        for (h, n) in [("Hello World", "WORLD"), ("abc", "d"), ("xxAbCxx", "abc"), ("é", "é")] {
            assert_eq!(contains_ci(h, n), !find_ci(h, n).is_empty(), "{h} / {n}");
        }
    }
}
