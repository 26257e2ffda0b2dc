//! Matching engines and line scans over step text: the automata built from the vocabularies,
//! error lines, success claims, blocker signatures, budget reports, quotes and signatures.
//! ASCII case-insensitive; byte offsets of the lower-cased text equal those of the original, so
//! quotes are cut from the original text.

use std::sync::LazyLock;

use aho_corasick::AhoCorasick;

use super::vocab::*;

/// One ASCII case-insensitive automaton per needle list, built once: a single pass over a text
/// replaces one `str::find` per needle (the needles are lower-case ASCII, so matching the
/// original text case-insensitively finds exactly what `contains` finds in its lower-cased copy,
/// at the same byte offsets).
fn automaton(needles: &[&str]) -> AhoCorasick {
    AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .build(needles)
        .expect("static needle lists build")
}

static ERROR_AC: LazyLock<AhoCorasick> = LazyLock::new(|| automaton(ERROR_NEEDLES));

static NEGATED_AC: LazyLock<AhoCorasick> = LazyLock::new(|| automaton(NEGATED));

static CLAIM_AC: LazyLock<AhoCorasick> = LazyLock::new(|| {
    let mut all = CLAIMS.to_vec();
    all.push(DONE);
    automaton(&all)
});

static ENV_AC: LazyLock<AhoCorasick> = LazyLock::new(|| automaton(ENV));

static FLAKY_AC: LazyLock<AhoCorasick> = LazyLock::new(|| automaton(FLAKY));

static HARNESS_AC: LazyLock<AhoCorasick> = LazyLock::new(|| automaton(HARNESS));

static SANDBOX_AC: LazyLock<AhoCorasick> = LazyLock::new(|| automaton(&["sandbox"]));

static SANDBOX_DENIED_AC: LazyLock<AhoCorasick> =
    LazyLock::new(|| automaton(&["denied", "not permitted"]));

static BLOCKER_ANY_AC: LazyLock<AhoCorasick> = LazyLock::new(|| {
    let mut all: Vec<&str> = [ENV, FLAKY, HARNESS].concat();
    all.push("sandbox");
    automaton(&all)
});

static BUDGET_AC: LazyLock<AhoCorasick> = LazyLock::new(|| automaton(BUDGET));

/// Longest quote a trigger carries (quotes are single lines, cut at a char boundary).
pub const QUOTE_MAX: usize = 200;

/// ASCII case-insensitive `contains` without allocating (`needle` lower-case ASCII).
pub(super) fn ci_contains(hay: &str, needle: &str) -> bool {
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    if n.is_empty() {
        return true;
    }
    if h.len() < n.len() {
        return false;
    }
    h.windows(n.len()).any(|w| w.eq_ignore_ascii_case(n))
}

/// `s` lower-cased into a reused buffer (same byte offsets as `s`).
pub(super) fn lower_into<'a>(buf: &'a mut String, s: &str) -> &'a str {
    buf.clear();
    buf.push_str(s);
    buf.make_ascii_lowercase();
    buf.as_str()
}

static CLAIM_STEM_FINDERS: LazyLock<Vec<memchr::memmem::Finder<'static>>> =
    LazyLock::new(|| CLAIM_STEMS.iter().map(memchr::memmem::Finder::new).collect());

/// [`claim_line`] with a reused buffer, for the pass over every agent text: the text
/// lower-cased into `buf` and searched for the stems with SIMD substring finders (several
/// times faster than the case-insensitive automaton); the line scan runs only on a stem.
pub fn claim_line_in<'t>(text: &'t str, buf: &mut String) -> Option<&'t str> {
    let lower = lower_into(buf, text).as_bytes();
    if !CLAIM_STEM_FINDERS.iter().any(|f| f.find(lower).is_some()) {
        return None;
    }
    claim_line(text)
}

/// Whether `needle` occurs in `lower` as whole words (no alphanumeric char on either side).
pub fn has_word(lower: &str, needle: &str) -> bool {
    let b = lower.as_bytes();
    let mut from = 0;
    while let Some(pos) = lower[from..].find(needle) {
        let start = from + pos;
        let end = start + needle.len();
        let before_ok = start == 0 || !b[start - 1].is_ascii_alphanumeric();
        let after_ok = end >= b.len() || !b[end].is_ascii_alphanumeric();
        if before_ok && after_ok {
            return true;
        }
        from = start + needle.len().max(1);
        if from >= lower.len() {
            break;
        }
        while !lower.is_char_boundary(from) {
            from += 1;
        }
    }
    false
}

/// A line that reports an error (and is not a "0 failed" summary).
pub fn is_error_line(line: &str) -> bool {
    ERROR_AC.is_match(line) && !NEGATED_AC.is_match(line)
}

/// A line that claims success ("all tests pass", "done", "fixed", ...).
pub fn is_success_claim(line: &str) -> bool {
    // Exactly [`has_word`] per needle (ASCII case-insensitive) in one pass: per needle, an
    // occurrence overlapping an earlier rejected one of the same needle is skipped, as the
    // left-to-right scan of `has_word` skips it.
    let b = line.as_bytes();
    let done = CLAIMS.len();
    let mut from = [0usize; 32];
    for m in CLAIM_AC.find_overlapping_iter(line) {
        let p = m.pattern().as_usize();
        if (p == done && line.len() >= 80) || m.start() < from[p] {
            continue;
        }
        let (start, end) = (m.start(), m.end());
        let before_ok = start == 0 || !b[start - 1].is_ascii_alphanumeric();
        let after_ok = end >= b.len() || !b[end].is_ascii_alphanumeric();
        if before_ok && after_ok {
            return true;
        }
        from[p] = end;
    }
    false
}

/// Who or what caused a failure that is not the agent's doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Blocker {
    Environment,
    Flaky,
    Harness,
}

/// The blocker signature of a failure text, if any (environment beats flaky beats harness).
pub fn blocker(text: &str) -> Option<Blocker> {
    // One pass for the common answer (no signature at all), the lists in order only on a hit.
    if !BLOCKER_ANY_AC.is_match(text) {
        return None;
    }
    if ENV_AC.is_match(text) || (SANDBOX_AC.is_match(text) && SANDBOX_DENIED_AC.is_match(text)) {
        Some(Blocker::Environment)
    } else if HARNESS_AC.is_match(text) {
        Some(Blocker::Harness)
    } else if FLAKY_AC.is_match(text) {
        Some(Blocker::Flaky)
    } else {
        None
    }
}

/// The first line of `text` with a blocker signature, as a quote.
pub fn blocker_line(text: &str) -> Option<&str> {
    // A line's signature is one of the whole text's: most texts have none.
    blocker(text)?;
    blocker_line_of(text)
}

/// [`blocker_line`] of a text known to have a blocker signature ([`blocker`] is some): the
/// caller has checked the whole text already.
pub fn blocker_line_of(text: &str) -> Option<&str> {
    // No does a line that ends before the whole text's first signature starts (that
    // signature would be in it): the line by line scan starts at the line of that one, not at
    // the top of a long log.
    let from = BLOCKER_ANY_AC
        .find(text)
        .map_or(0, |m| memchr::memrchr(b'\n', &text.as_bytes()[..m.start()]).map_or(0, |i| i + 1));
    text[from..].lines().map(str::trim).find(|l| !l.is_empty() && blocker(l).is_some()).map(cut)
}

/// The text reports a step, cost or context budget reached.
pub fn is_budget_exhausted(text: &str) -> bool {
    BUDGET_AC.is_match(text)
}

static BUDGET_STEM_FINDERS: LazyLock<Vec<memchr::memmem::Finder<'static>>> =
    LazyLock::new(|| BUDGET_STEMS.iter().map(memchr::memmem::Finder::new).collect());

/// [`is_budget_exhausted`] with a reused buffer, for the pass over every environment text: the
/// text lower-cased into `buf`, a few SIMD substring searches for the stems (several times
/// faster than a case-insensitive automaton over long texts), and only on a stem the full list.
pub fn is_budget_exhausted_in(text: &str, buf: &mut String) -> bool {
    let lower = lower_into(buf, text).as_bytes();
    BUDGET_STEM_FINDERS.iter().any(|f| f.find(lower).is_some()) && BUDGET_AC.is_match(text)
}

/// Output of a code interpreter in a chat log (`exitcode: 1 (execution failed)`): the code.
pub fn interpreter_exit(text: &str) -> Option<i64> {
    let t = text.trim_start();
    let rest = t.strip_prefix("exitcode:").or_else(|| t.strip_prefix("Exit code:"))?;
    let num: String =
        rest.trim_start().chars().take_while(|c| c.is_ascii_digit() || *c == '-').collect();
    num.parse().ok()
}

/// The first non-blank line of `text`, as a quote.
pub fn first_line(text: &str) -> &str {
    cut(text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or(""))
}

/// A quote: the line cut to [`QUOTE_MAX`] chars at a char boundary (still a substring).
pub fn cut(line: &str) -> &str {
    match line.char_indices().nth(QUOTE_MAX) {
        Some((i, _)) => &line[..i],
        None => line,
    }
}

/// The first error line of `text`, as a quote.
pub fn first_error_line(text: &str) -> Option<&str> {
    first_line_with(text, &ERROR_AC, is_error_line)
}

/// The first non-blank trimmed line of `text` for which `is` holds, as a quote, where `is`
/// only holds for lines holding a match of `ac`: one automaton pass over the whole text, and
/// only the lines with a match are checked (exactly, with `is`). No match crosses a line (the
/// needles hold no newline), so no line with a match is skipped.
fn first_line_with<'t>(
    text: &'t str,
    ac: &AhoCorasick,
    is: impl Fn(&str) -> bool,
) -> Option<&'t str> {
    let b = text.as_bytes();
    let mut at = 0;
    while at < b.len() {
        let m = ac.find(aho_corasick::Input::new(text).range(at..))?;
        let start = memchr::memrchr(b'\n', &b[..m.start()]).map_or(0, |i| i + 1);
        let end = memchr::memchr(b'\n', &b[m.end()..]).map_or(b.len(), |i| m.end() + i);
        let line = text[start..end].trim();
        if !line.is_empty() && is(line) {
            return Some(cut(line));
        }
        at = end + 1;
    }
    None
}

/// The last error line of `text` (a traceback's last line names the exception).
pub fn last_error_line(text: &str) -> Option<&str> {
    if !ERROR_AC.is_match(text) {
        return None;
    }
    text.lines().rev().map(str::trim).find(|l| !l.is_empty() && is_error_line(l)).map(cut)
}

/// The first success-claim line of `text`, as a quote.
pub fn claim_line(text: &str) -> Option<&str> {
    first_line_with(text, &CLAIM_AC, is_success_claim)
}

/// A normalised error signature (digits folded, trimmed) for grouping identical failures.
pub fn signature(line: &str) -> String {
    line.chars()
        .take(160)
        .map(|c| if c.is_ascii_digit() { '#' } else { c.to_ascii_lowercase() })
        .collect::<String>()
        .trim()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::super::vocab::*;
    use super::*;

    #[test]
    fn error_lines_and_negations() {
        assert!(is_error_line("FAIL: expected property userId (AssertionError)"));
        assert!(is_error_line("Traceback (most recent call last):"));
        assert!(!is_error_line("Tests: 0 failed, 42 passed"));
        assert!(!is_error_line("exitcode: 0 (execution succeeded)"));
        assert!(is_error_line("exitcode: 1 (execution failed)"));
    }

    #[test]
    fn claims_need_whole_words() {
        assert!(is_success_claim("The rename is complete and all tests pass."));
        assert!(is_success_claim("Done."));
        assert!(!is_success_claim("the branch was abandoned"));
    }

    #[test]
    fn blockers() {
        assert_eq!(blocker("bash: playwright: command not found"), Some(Blocker::Environment));
        assert_eq!(
            blocker("Executable doesn't exist at /ms-playwright/chromium-1091/chrome"),
            Some(Blocker::Environment)
        );
        assert_eq!(blocker("request timed out after 30s"), Some(Blocker::Flaky));
        assert_eq!(blocker("AssertionError: 3 != 4"), None);
    }

    #[test]
    fn automata_match_the_per_needle_scans() {
        let reference = |line: &str| {
            let l = line.to_ascii_lowercase();
            CLAIMS.iter().any(|c| has_word(&l, c)) || has_word(&l, "done") && l.len() < 80
        };
        let error_ref = |line: &str| {
            let l = line.to_ascii_lowercase();
            ERROR_NEEDLES.iter().any(|n| l.contains(n)) && !NEGATED.iter().any(|n| l.contains(n))
        };
        for line in [
            "ALL TESTS PASS",
            "Éverything WORKS now — DONE!",
            "undone, works nowhere, averified",
            "works noworks now",
            "it is DONE: but this line is long enough that the lone word must not count at all",
            "Tests: 0 FAILED, ERROR-free",
            "Fatal: no such FILE",
            "écannot x",
            "",
        ] {
            assert_eq!(is_success_claim(line), reference(line), "{line}");
            assert_eq!(is_error_line(line), error_ref(line), "{line}");
        }
    }

    #[test]
    fn line_scans_match_the_per_line_scans() {
        let text = "  intro  \r\nit cannot \nTests: 0 failed\n\n  Error: boom  \nDONE\nall TESTS pass.\r\n";
        let first = |t: &'static str, f: fn(&str) -> bool| {
            t.lines().map(str::trim).find(|l| !l.is_empty() && f(l)).map(cut)
        };
        assert_eq!(first_error_line(text), first(text, is_error_line));
        assert_eq!(first_error_line(text), Some("Error: boom"));
        assert_eq!(claim_line(text), first(text, is_success_claim));
        assert_eq!(claim_line(text), Some("DONE"));
        assert_eq!(claim_line("no claim here\nundone"), None);
        let mut buf = String::new();
        for n in BUDGET {
            assert!(BUDGET_STEMS.iter().any(|s| n.contains(s)), "{n}");
            let t = format!("x\nError: {} hit", n.to_ascii_uppercase());
            assert!(is_budget_exhausted(&t) && is_budget_exhausted_in(&t, &mut buf));
        }
        assert!(!is_budget_exhausted_in("maximal limits on the budgets", &mut buf));
        for c in CLAIMS.iter().chain([&DONE]) {
            assert!(CLAIM_STEMS.iter().any(|s| c.contains(s)), "{c}");
            let t = format!("fixture\n  {}.\n", c.to_ascii_uppercase());
            assert_eq!(claim_line_in(&t, &mut buf), claim_line(&t));
            assert!(claim_line(&t).is_some(), "{c}");
        }
        assert_eq!(claim_line_in("the fixture is undone", &mut buf), None);
    }

    #[test]
    fn interpreter_exit_codes() {
        assert_eq!(interpreter_exit("exitcode: 1 (execution failed)\nCode output: x"), Some(1));
        assert_eq!(interpreter_exit("exitcode: 0 (execution succeeded)"), Some(0));
        assert_eq!(interpreter_exit("hello"), None);
    }

    #[test]
    fn cut_keeps_a_substring_on_multibyte_text() {
        let s = "é".repeat(500);
        assert!(s.starts_with(cut(&s)));
        assert_eq!(cut(&s).chars().count(), QUOTE_MAX);
    }
}
