//! Matching engines and line scans over step text: the automata built from the vocabularies,
//! error lines, success claims, blocker signatures, budget reports, quotes and signatures.
//! ASCII case-insensitive; byte offsets of the lower-cased text equal those of the original, so
//! quotes are cut from the original text.

use std::sync::LazyLock;

use aho_corasick::MatchKind;

use crate::ac::{Ac, AcOptions};

use super::vocab::*;

/// One ASCII case-insensitive automaton per needle list, built once: a single pass over a text
/// replaces one `str::find` per needle (the needles are lower-case ASCII, so matching the
/// original text case-insensitively finds exactly what `contains` finds in its lower-cased copy,
/// at the same byte offsets).
fn automaton(needles: &[&str]) -> Ac {
    AcOptions::ascii_case_insensitive().build(needles).expect("static needle lists build")
}

/// A vocabulary searched in ASCII-lower-cased text (see [`lower_into`]), case-sensitively: the
/// needles are lower-case ASCII, so a match in the lower-cased copy is exactly a
/// case-insensitive match in the original, at the same byte offsets. Whether a text matches,
/// and the first line holding a match, do not depend on the match semantics.
struct Lower {
    /// For whole texts: leftmost-first, which lets aho-corasick search with its SIMD packed
    /// matcher (Teddy) where the CPU has one, several times faster over a long text than the
    /// byte-at-a-time automaton a case-insensitive search needs (it allows no packed matcher).
    scan: Ac,
    /// For a short haystack (a line): a DFA without a prefilter, whose start-up costs less
    /// than the packed matcher's and that does not stop at every digit as a rare-byte
    /// prefilter would.
    short: Ac,
}

/// Longest haystack [`Lower::is_match`] gives to the DFA without a prefilter.
const SHORT: usize = 128;

impl Lower {
    fn new(needles: &[&str]) -> Lower {
        let build = |o: AcOptions| o.build(needles).expect("static needle lists build");
        Lower {
            scan: build(AcOptions { match_kind: MatchKind::LeftmostFirst, ..AcOptions::default() }),
            // ASCII case ignored: a short text needs no lower-cased copy (the needles are lower
            // case, so on a lower-cased text this changes nothing).
            short: build(AcOptions { prefilter: false, ..AcOptions::ascii_case_insensitive() }),
        }
    }

    fn is_match(&self, lower: &str) -> bool {
        if lower.len() <= SHORT {
            self.short.is_match(lower)
        } else {
            self.scan.is_match(lower)
        }
    }
}

/// A needle list (lower-case ASCII) asked first whether any of it occurs in a long text at all,
/// in any ASCII case, before a search that needs ASCII case ignored and every match's
/// position (`score`'s assumption and reported-check phrases): the text lower-cased and
/// searched case-sensitively, leftmost-first, which lets the SIMD packed matcher run (several
/// times faster than the case-insensitive automaton over a text of a few hundred bytes).
pub struct AnyCase(Ac);

impl AnyCase {
    pub fn new(needles: &[&str]) -> AnyCase {
        let o = AcOptions { match_kind: MatchKind::LeftmostFirst, ..AcOptions::default() };
        AnyCase(o.build(needles).expect("static needle lists build"))
    }

    /// False only when no needle of `any` occurs in `text` in any case (so no search of a
    /// part of it finds one); true for a text of at most 128 bytes, which the caller reads at
    /// once (the automaton is not even built while only short texts come).
    pub fn may_occur(any: &LazyLock<AnyCase>, text: &str) -> bool {
        text.len() <= SHORT || any.0.is_match(lowered(text).as_str())
    }
}

static ERROR_AC: LazyLock<Lower> = LazyLock::new(|| Lower::new(ERROR_NEEDLES));

static NEGATED_AC: LazyLock<Lower> = LazyLock::new(|| Lower::new(NEGATED));

static CLAIM_AC: LazyLock<Ac> = LazyLock::new(|| {
    let mut all = CLAIMS.to_vec();
    all.push(DONE);
    automaton(&all)
});

static ENV_AC: LazyLock<Lower> = LazyLock::new(|| Lower::new(ENV));

static FLAKY_AC: LazyLock<Lower> = LazyLock::new(|| Lower::new(FLAKY));

static HARNESS_AC: LazyLock<Lower> = LazyLock::new(|| Lower::new(HARNESS));

static SANDBOX_DENIED_AC: LazyLock<Lower> =
    LazyLock::new(|| Lower::new(&["denied", "not permitted"]));

static BLOCKER_ANY_AC: LazyLock<Lower> = LazyLock::new(|| {
    let mut all: Vec<&str> = [ENV, FLAKY, HARNESS].concat();
    all.push("sandbox");
    Lower::new(&all)
});

static BUDGET_AC: LazyLock<Lower> = LazyLock::new(|| Lower::new(BUDGET));

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

/// `s` lower-cased into a reused buffer (same byte offsets as `s`): what the `*_lower` scans
/// read.
pub fn lower_into<'a>(buf: &'a mut String, s: &str) -> &'a str {
    buf.clear();
    buf.push_str(s);
    buf.make_ascii_lowercase();
    buf.as_str()
}

/// `s` lower-cased (ASCII), for the callers that scan a text once.
fn lowered(s: &str) -> String {
    let mut l = s.to_string();
    l.make_ascii_lowercase();
    l
}

/// The part of `text` at the offsets `part` has in `lower` (`lower` is `text` lower-cased, so
/// the two have the same byte offsets and char boundaries).
fn same_in<'t>(text: &'t str, lower: &str, part: &str) -> &'t str {
    let start = part.as_ptr() as usize - lower.as_ptr() as usize;
    &text[start..start + part.len()]
}

static CLAIM_STEMS_AC: LazyLock<Lower> = LazyLock::new(|| Lower::new(CLAIM_STEMS));

/// [`claim_line`] with a reused buffer, for the pass over every agent text: the text
/// lower-cased into `buf` and searched for the stems in one pass (several times faster than
/// the case-insensitive automaton of the claims); the line scan runs only on a stem.
pub fn claim_line_in<'t>(text: &'t str, buf: &mut String) -> Option<&'t str> {
    if !CLAIM_STEMS_AC.is_match(lower_into(buf, text)) {
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
    if line.len() <= SHORT {
        // The short automata ignore ASCII case: no lower-cased copy of the line.
        ERROR_AC.short.is_match(line) && !NEGATED_AC.short.is_match(line)
    } else {
        is_error_line_lower(&lowered(line))
    }
}

/// [`is_error_line`] of a line already lower-cased.
pub fn is_error_line_lower(lower: &str) -> bool {
    ERROR_AC.is_match(lower) && !NEGATED_AC.is_match(lower)
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
    blocker_lower(&lowered(text))
}

/// [`blocker`] of a text already lower-cased.
pub fn blocker_lower(lower: &str) -> Option<Blocker> {
    // One pass for the common answer (no signature at all), the lists in order only on a hit.
    if !BLOCKER_ANY_AC.is_match(lower) {
        return None;
    }
    let sandbox = || memchr::memmem::find(lower.as_bytes(), b"sandbox").is_some();
    if ENV_AC.is_match(lower) || (sandbox() && SANDBOX_DENIED_AC.is_match(lower)) {
        Some(Blocker::Environment)
    } else if HARNESS_AC.is_match(lower) {
        Some(Blocker::Harness)
    } else if FLAKY_AC.is_match(lower) {
        Some(Blocker::Flaky)
    } else {
        None
    }
}

/// The name a line reports a failed lookup of, when no host can have it (`Could not resolve
/// host: <URL>`, `getaddrinfo ENOTFOUND {host}`): a host name holds only letters, digits,
/// `-`, `_` and `.` (a port after `:`, an IPv6 address in brackets), so a lookup of anything
/// else failed because of the command that asked for it (a placeholder left in it), not
/// because the network is missing. An exact substring of the line (empty when no name
/// follows the marker).
pub fn unresolvable_name(line: &str) -> Option<&str> {
    // ASCII lower-casing keeps every byte offset, so a position in `lower` is one in `line`.
    let lower = line.to_ascii_lowercase();
    ["could not resolve host:", "getaddrinfo enotfound"].iter().find_map(|m| {
        let p = lower.find(m)?;
        let rest = line[p + m.len()..].trim_start();
        let host = rest.split(char::is_whitespace).next().unwrap_or("");
        let host = host.trim_end_matches(['.', ',', ';', '\'', '"', ')']);
        let valid = !host.is_empty()
            && host.chars().all(|c| {
                c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':' | '[' | ']')
            });
        (!valid).then_some(host)
    })
}

/// The first line of `text` with a blocker signature, as a quote.
pub fn blocker_line(text: &str) -> Option<&str> {
    blocker_line_lower(text, &lowered(text))
}

/// [`blocker_line`] of `text` given its lower-cased copy `lower`: one pass of the automaton of
/// every signature over the whole text, and only the lines it hits checked line by line (not
/// each line of a long log searched anew).
pub fn blocker_line_lower<'t>(text: &'t str, lower: &str) -> Option<&'t str> {
    first_line_with(text, lower, &BLOCKER_ANY_AC.scan, |l| blocker_lower(l).is_some())
}

/// The text reports a step, cost or context budget reached.
pub fn is_budget_exhausted(text: &str) -> bool {
    is_budget_exhausted_lower(&lowered(text))
}

/// [`is_budget_exhausted`] of a text already lower-cased.
pub fn is_budget_exhausted_lower(lower: &str) -> bool {
    let l = lower.as_bytes();
    BUDGET_STEM_FINDERS.iter().any(|f| f.find(l).is_some()) && BUDGET_AC.is_match(lower)
}

static BUDGET_STEM_FINDERS: LazyLock<Vec<memchr::memmem::Finder<'static>>> =
    LazyLock::new(|| BUDGET_STEMS.iter().map(memchr::memmem::Finder::new).collect());

/// [`is_budget_exhausted`] with a reused buffer: the text lower-cased into `buf`, a few SIMD
/// substring searches for the stems, and only on a stem the full list.
pub fn is_budget_exhausted_in(text: &str, buf: &mut String) -> bool {
    is_budget_exhausted_lower(lower_into(buf, text))
}

/// The first occurrence of `needle` in `haystack`, as `memchr::memmem::find` gives it, for a
/// needle searched once (a run's task in one step's text): `memmem::find` builds a searcher
/// for every call (~75 instructions a byte of a long needle, ~11,500 for a 150-byte task),
/// more than the search itself. Positions holding the needle's first two bytes are compared
/// whole; after 16 of them that were not the needle, the rest goes to `memmem::find` (linear in
/// the worst case, as before).
pub fn find_once(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.len() < 2 || haystack.len() < 64 {
        return memchr::memmem::find(haystack, needle);
    }
    let last = haystack.len().checked_sub(needle.len())?;
    let (a, b) = (needle[0], needle[1]);
    let (mut at, mut compared) = (0, 0);
    while at <= last {
        let i = at + memchr::memchr(a, &haystack[at..=last])?;
        if haystack[i + 1] == b {
            if haystack[i..i + needle.len()] == *needle {
                return Some(i);
            }
            compared += 1;
            if compared == 16 {
                return memchr::memmem::find(&haystack[i + 1..], needle).map(|j| i + 1 + j);
            }
        }
        at = i + 1;
    }
    None
}

/// Output of a code interpreter in a chat log (`exitcode: 1 (execution failed)`): the code.
pub fn interpreter_exit(text: &str) -> Option<i64> {
    // Both prefixes start with an `e`: most texts are settled by their first byte that is not
    // ASCII whitespace (`is_env_step` asks several times a step; `trim_start` cost more than
    // the rest). A non-ASCII byte may start Unicode whitespace: read as before.
    let b = text.as_bytes();
    let lead = b.iter().position(|c| !matches!(c, b' ' | b'\t'..=b'\r')).unwrap_or(b.len());
    if !matches!(b.get(lead), Some(b'e' | b'E' | 0x80..)) {
        return None;
    }
    let t = text.trim_start();
    let rest = t.strip_prefix("exitcode:").or_else(|| t.strip_prefix("Exit code:"))?;
    let num: String =
        rest.trim_start().chars().take_while(|c| c.is_ascii_digit() || *c == '-').collect();
    num.parse().ok()
}

/// The first non-blank line of `text`, as a quote.
pub fn first_line(text: &str) -> &str {
    // A text of one line (most commands and quotes) is that line trimmed: no line iterator
    // (`trim` takes a `\r` at the end as `lines` would have).
    if memchr::memchr(b'\n', text.as_bytes()).is_none() {
        return cut(text.trim());
    }
    cut(text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or(""))
}

/// A quote: the line cut to [`QUOTE_MAX`] chars at a char boundary (still a substring).
pub fn cut(line: &str) -> &str {
    if line.len() <= QUOTE_MAX {
        // No more chars than bytes.
        return line;
    }
    match line.char_indices().nth(QUOTE_MAX) {
        Some((i, _)) => &line[..i],
        None => line,
    }
}

/// The first error line of `text`, as a quote.
pub fn first_error_line(text: &str) -> Option<&str> {
    first_error_line_lower(text, &lowered(text))
}

/// [`first_error_line`] of `text` given its lower-cased copy `lower`.
pub fn first_error_line_lower<'t>(text: &'t str, lower: &str) -> Option<&'t str> {
    first_line_with(text, lower, &ERROR_AC.scan, is_error_line_lower)
}

/// The trimmed line of `searched` holding the match of `ac` found from `at` (its start and
/// end offsets, and the offset after the line).
fn line_of_match<'s>(searched: &'s str, ac: &Ac, at: usize) -> Option<(&'s str, usize)> {
    let b = searched.as_bytes();
    let m = ac.find(aho_corasick::Input::new(searched).range(at..))?;
    let start = memchr::memrchr(b'\n', &b[..m.start()]).map_or(0, |i| i + 1);
    let end = memchr::memchr(b'\n', &b[m.end()..]).map_or(b.len(), |i| m.end() + i);
    Some((searched[start..end].trim(), end + 1))
}

/// The first non-blank trimmed line of `text` for which `is` holds, as a quote, where `is`
/// only holds for lines holding a match of `ac`: one automaton pass over `searched` (`text`
/// itself, or its lower-cased copy for a [`Lower`] vocabulary: the same offsets),
/// and only the lines with a match are checked (exactly, with `is`, on the line of
/// `searched`). No match crosses a line (the needles hold no newline), so no line with a match
/// is skipped.
fn first_line_with<'t>(
    text: &'t str,
    searched: &str,
    ac: &Ac,
    is: impl Fn(&str) -> bool,
) -> Option<&'t str> {
    let mut at = 0;
    while at < searched.len() {
        let (line, next) = line_of_match(searched, ac, at)?;
        if !line.is_empty() && is(line) {
            return Some(cut(same_in(text, searched, line)));
        }
        at = next;
    }
    None
}

/// The last error line of `text` (a traceback's last line names the exception).
pub fn last_error_line(text: &str) -> Option<&str> {
    last_error_line_lower(text, &lowered(text))
}

/// [`last_error_line`] of `text` given its lower-cased copy `lower`: the last of the lines
/// the automaton hits in one forward pass that is an error line (the same line as a scan of
/// every line from the end, without an automaton search per line).
pub fn last_error_line_lower<'t>(text: &'t str, lower: &str) -> Option<&'t str> {
    let mut last = None;
    let mut at = 0;
    while at < lower.len() {
        let Some((line, next)) = line_of_match(lower, &ERROR_AC.scan, at) else { break };
        if !line.is_empty() && is_error_line_lower(line) {
            last = Some(line);
        }
        at = next;
    }
    last.map(|l| cut(same_in(text, lower, l)))
}

/// The first success-claim line of `text`, as a quote.
pub fn claim_line(text: &str) -> Option<&str> {
    first_line_with(text, text, &CLAIM_AC, is_success_claim)
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
    fn any_case_says_no_only_when_no_needle_occurs_in_any_case() {
        let needles = ["assume", "let's say", "i have verified", "after-checking"];
        let any: LazyLock<AnyCase> = LazyLock::new(|| {
            AnyCase::new(&["assume", "let's say", "i have verified", "after-checking"])
        });
        let ci = automaton(&needles);
        let words = [
            "Assume",
            "ASSUMING",
            "let's SAY",
            "I Have Verified",
            "after-Checking",
            "assum",
            "let s say",
            "verified",
            "x",
            "数据",
            "\n",
            " ",
            "é",
        ];
        let mut seed = 0x0123_4567_89ab_cdefu64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..2000 {
            let n = (next() % 60) as usize;
            let text: String = (0..n)
                .map(|_| {
                    let w = words[(next() % words.len() as u64) as usize];
                    if next() % 8 == 0 {
                        w
                    } else {
                        "filler "
                    }
                })
                .collect();
            let found = ci.is_match(text.as_str());
            assert_eq!(AnyCase::may_occur(&any, &text), found || text.len() <= 128, "{text:?}");
        }
    }

    #[test]
    fn first_line_of_one_line_is_what_the_line_iterator_gives() {
        fn slow(t: &str) -> &str {
            cut(t.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or(""))
        }
        let long = "é".repeat(300);
        for t in ["", " ", "\r", "ls", "  ls -la \r", "a\rb", "\u{a0}x\u{3000}", "\t\u{b}", &long] {
            assert_eq!(first_line(t), slow(t), "{t:?}");
        }
    }

    #[test]
    fn interpreter_exit_reads_past_any_leading_whitespace() {
        for (text, code) in [
            ("exitcode: 1 (execution failed)", Some(1)),
            ("  \t\n\u{b}\u{c}\rExit code: -2", Some(-2)),
            ("\u{a0}\u{3000}exitcode: 0", Some(0)),
            ("\u{85}Exit code:3", Some(3)),
            ("é exitcode: 1", None),
            ("ls", None),
            ("", None),
            ("   ", None),
            ("exit code: 1", None),
            ("Exitcode: 1", None),
        ] {
            assert_eq!(interpreter_exit(text), code, "{text:?}");
        }
    }

    #[test]
    fn find_once_finds_what_memmem_finds() {
        // Haystacks over a small alphabet (many near misses, the fallback after 16 of them)
        // and needles cut from them or made up, at every length around the thresholds.
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for round in 0..4000 {
            let alphabet: &[u8] = if round % 2 == 0 { b"ab" } else { b"abcd x" };
            let len = (next() % 400) as usize;
            let hay: Vec<u8> =
                (0..len).map(|_| alphabet[(next() % alphabet.len() as u64) as usize]).collect();
            let needle: Vec<u8> = if len > 0 && next() % 2 == 0 {
                let from = (next() % len as u64) as usize;
                let n = (next() % 40) as usize;
                hay[from..(from + n).min(len)].to_vec()
            } else {
                let n = (next() % 12) as usize;
                (0..n).map(|_| alphabet[(next() % alphabet.len() as u64) as usize]).collect()
            };
            assert_eq!(
                find_once(&hay, &needle),
                memchr::memmem::find(&hay, &needle),
                "{:?} in {:?}",
                String::from_utf8_lossy(&needle),
                String::from_utf8_lossy(&hay)
            );
        }
        let hay = "ab".repeat(100) + "abc";
        assert_eq!(find_once(hay.as_bytes(), b"abc"), Some(200));
    }

    #[test]
    fn error_lines_and_negations() {
        assert!(is_error_line("FAIL: expected property userId (AssertionError)"));
        assert!(is_error_line("Traceback (most recent call last):"));
        assert!(!is_error_line("Tests: 0 failed, 42 passed"));
        assert!(!is_error_line("exitcode: 0 (execution succeeded)"));
        assert!(is_error_line("exitcode: 1 (execution failed)"));
        // Gemini CLI's shell tool says `Error: (none)` after every command that had none.
        assert!(!is_error_line("Error: (none)"));
        assert!(is_error_line("Error: ModuleNotFoundError: No module named 'yaml'"));
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
    fn a_lookup_of_a_placeholder_names_no_host() {
        let name = unresolvable_name;
        assert_eq!(name("curl: (6) Could not resolve host: <URL>"), Some("<URL>"));
        assert_eq!(name("Error: getaddrinfo ENOTFOUND {api_host}."), Some("{api_host}"));
        assert_eq!(name("curl: (6) Could not resolve host: "), Some(""));
        assert_eq!(name("curl: (6) Could not resolve host: web.archive.org"), None);
        assert_eq!(name("curl: (6) Could not resolve host: localhost:8080."), None);
        assert_eq!(name("Error: getaddrinfo ENOTFOUND registry.npmjs.org"), None);
        assert_eq!(name("network is unreachable"), None);
        // Non-ASCII before the marker keeps the byte offsets right (no panic, same answer).
        assert_eq!(name("é curl: Could not resolve host: «url»"), Some("«url»"));
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

    /// The references the lower-cased scans must equal: every line lower-cased and searched
    /// needle by needle.
    fn reference_blocker(line: &str) -> Option<Blocker> {
        let l = line.to_ascii_lowercase();
        let any = |list: &[&str]| list.iter().any(|n| l.contains(n));
        let sandbox =
            l.contains("sandbox") && (l.contains("denied") || l.contains("not permitted"));
        if any(ENV) || sandbox {
            Some(Blocker::Environment)
        } else if any(HARNESS) {
            Some(Blocker::Harness)
        } else if any(FLAKY) {
            Some(Blocker::Flaky)
        } else {
            None
        }
    }

    fn reference_error_line(line: &str) -> bool {
        let l = line.to_ascii_lowercase();
        ERROR_NEEDLES.iter().any(|n| l.contains(n)) && !NEGATED.iter().any(|n| l.contains(n))
    }

    /// A text of lines made of needles of every list (in any case), negations, non-ASCII and
    /// filler, short (the DFA without prefilter) and long (the packed searcher).
    fn signal_text() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let pieces: Vec<&'static str> = [ERROR_NEEDLES, NEGATED, ENV, FLAKY, HARNESS, BUDGET]
            .concat()
            .into_iter()
            .chain(["sandbox", "denied", "Ünïcode ÉRROR", "  ", "\r", "x", "filler words 0 1 2"])
            .collect();
        // The sandbox pair weighed up: with it alone a text is an environment blocker.
        let word = prop_oneof![
            4 => proptest::sample::select(pieces),
            1 => proptest::sample::select(vec!["sandbox", "denied", "not permitted"]),
        ];
        let piece = (word, 0u8..3).prop_map(|(p, case)| match case {
            0 => p.to_string(),
            1 => p.to_ascii_uppercase(),
            _ => p
                .chars()
                .enumerate()
                .map(|(i, c)| if i % 2 == 0 { c.to_ascii_uppercase() } else { c })
                .collect(),
        });
        let line = proptest::collection::vec(piece, 0..5).prop_map(|p| p.join(" "));
        proptest::collection::vec(line, 0..8).prop_map(|l| l.join("\n"))
    }

    proptest::proptest! {
        #[test]
        fn lower_cased_scans_match_the_per_line_references(text in signal_text()) {
            let lines = || text.lines().map(str::trim).filter(|l| !l.is_empty());
            proptest::prop_assert_eq!(blocker(&text), reference_blocker(&text));
            proptest::prop_assert_eq!(
                blocker_line(&text),
                lines().find(|l| reference_blocker(l).is_some()).map(cut)
            );
            proptest::prop_assert_eq!(
                last_error_line(&text),
                lines().rfind(|l| reference_error_line(l)).map(cut)
            );
            proptest::prop_assert_eq!(
                first_error_line(&text),
                lines().find(|l| reference_error_line(l)).map(cut)
            );
            let lower = text.to_ascii_lowercase();
            proptest::prop_assert_eq!(
                is_budget_exhausted(&text),
                BUDGET.iter().any(|n| lower.contains(n))
            );
            for l in lines() {
                proptest::prop_assert_eq!(is_error_line(l), reference_error_line(l));
            }
        }
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
