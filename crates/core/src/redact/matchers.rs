//! The secret rules' patterns as hand-written matchers: each finds what its rule's `pattern`
//! (`regex` syntax, in [`super::rules::SPECS`]) finds with the `regex` crate's
//! `captures_iter` — the same leftmost-first matches, one after another without overlap, and
//! the same secret (the capture group the rule names) — so the web build carries no regex
//! engine (docs/performance.md, Bundle). The core's tests compare every matcher with its
//! pattern compiled by `regex`, on generated and real texts (`tests/redact_rules.rs`).
//!
//! Each pattern is written so that almost every step has one way forward (a class that the
//! next item cannot start with, a bounded count); where it has more (a prefix class before a
//! keyword, a lazy span), the order of the tries is the pattern's: greedy counts longest
//! first, lazy ones shortest first, alternatives left to right. Every matcher's cost is linear
//! in the text, times a bound of its pattern (a count of at most 300), so untrusted text
//! cannot make it slow.

/// One match of a rule's pattern: the whole match and the secret in it (the rule's group).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hit {
    pub start: usize,
    pub end: usize,
    pub secret_start: usize,
    pub secret_end: usize,
}

impl Hit {
    fn whole(start: usize, end: usize) -> Hit {
        Hit { start, end, secret_start: start, secret_end: end }
    }
}

/// The end of a match and its secret's span, found after a fixed part.
type Tail = (usize, usize, usize);

fn hit(start: usize, (end, secret_start, secret_end): Tail) -> Hit {
    Hit { start, end, secret_start, secret_end }
}

/// `regex`'s ASCII word character (`\w` without Unicode).
fn word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// `\s` without Unicode: tab, line feed, vertical tab, form feed, carriage return, space.
fn space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b' ')
}

fn blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// `\b` before a word character at `i`.
fn starts_word(t: &[u8], i: usize) -> bool {
    i == 0 || !word(t[i - 1])
}

/// `\b` after a word character ending at `i`.
fn ends_word(t: &[u8], i: usize) -> bool {
    i >= t.len() || !word(t[i])
}

/// How many bytes from `i` are in `class`, at most `max`.
fn run(t: &[u8], i: usize, max: usize, class: impl Fn(u8) -> bool) -> usize {
    let rest = t.get(i..).unwrap_or(&[]);
    rest.iter().take(max).take_while(|&&b| class(b)).count()
}

fn is(t: &[u8], i: usize, b: u8) -> bool {
    t.get(i) == Some(&b)
}

fn lit(t: &[u8], i: usize, s: &[u8]) -> bool {
    t.get(i..).is_some_and(|r| r.starts_with(s))
}

fn lit_ci(t: &[u8], i: usize, s: &[u8]) -> bool {
    t.get(i..i + s.len()).is_some_and(|r| r.eq_ignore_ascii_case(s))
}

/// Every position from `from` on that holds `needle`, in order.
fn occurrences<'t>(t: &'t [u8], from: usize, needle: &'t [u8]) -> impl Iterator<Item = usize> + 't {
    let hay = t.get(from..).unwrap_or(&[]);
    memchr::memmem::find_iter(hay, needle).map(move |p| p + from)
}

/// The matches one after another, as `captures_iter` gives them: each search starts where the
/// last match ended (every pattern's matches are non-empty).
fn each(t: &[u8], out: &mut Vec<Hit>, mut next: impl FnMut(usize) -> Option<Hit>) {
    let mut from = 0;
    while from <= t.len() {
        let Some(h) = next(from) else { break };
        out.push(h);
        from = h.end;
    }
}

/// The leftmost match of a pattern that starts at a fixed literal: `at` tries one start.
fn each_at(t: &[u8], out: &mut Vec<Hit>, needle: &[u8], at: impl Fn(usize) -> Option<Hit>) {
    each(t, out, |from| occurrences(t, from, needle).find_map(&at));
}

fn alnum(b: u8) -> bool {
    b.is_ascii_alphanumeric()
}

/// `[A-Za-z0-9_-]`
fn token(b: u8) -> bool {
    word(b) || b == b'-'
}

// ---- private-key -------------------------------------------------------------------------

/// `[ A-Z0-9_-]`
fn pem_label(b: u8) -> bool {
    b == b' ' || b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_' || b == b'-'
}

/// `<head>[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----` at `i`, `<head>` already matched up to
/// `i`: the end.
fn pem_line_rest(t: &[u8], i: usize) -> Option<usize> {
    let r = run(t, i, 100, pem_label);
    (0..=r).rev().find_map(|l| {
        let p = i + l;
        if !lit(t, p, b"PRIVATE KEY") {
            return None;
        }
        if lit(t, p + 11, b" BLOCK-----") {
            Some(p + 22)
        } else if lit(t, p + 11, b"-----") {
            Some(p + 16)
        } else {
            None
        }
    })
}

/// `-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s\\]*)`
pub fn private_key(t: &[u8], out: &mut Vec<Hit>) {
    // The first END line at or after a position: `(searched from, found)`. Searches move
    // forward, so one answer serves every later search that starts before what it found.
    let mut end_line: Option<(usize, Option<(usize, usize)>)> = None;
    let mut first_end = |from: usize| -> Option<usize> {
        if let Some((searched, found)) = end_line {
            if searched <= from {
                match found {
                    None => return None,
                    Some((q, e)) if q >= from => return Some(e),
                    Some(_) => {}
                }
            }
        }
        let found =
            occurrences(t, from, b"-----END").find_map(|q| pem_line_rest(t, q + 8).map(|e| (q, e)));
        end_line = Some((from, found));
        found.map(|(_, e)| e)
    };
    each(t, out, |from| {
        let (s, h) = occurrences(t, from, b"-----BEGIN")
            .find_map(|s| pem_line_rest(t, s + 10).map(|h| (s, h)))?;
        let end = first_end(h).unwrap_or_else(|| {
            h + run(t, h, usize::MAX, |b| {
                alnum(b) || matches!(b, b'+' | b'/' | b'=' | b'\\') || space(b)
            })
        });
        Some(Hit::whole(s, end))
    });
}

// ---- prefixed tokens ----------------------------------------------------------------------

/// `\bsk-ant-[A-Za-z0-9_-]{20,300}`
pub fn anthropic(t: &[u8], out: &mut Vec<Hit>) {
    each_at(t, out, b"sk-ant-", |s| {
        let r = run(t, s + 7, 300, token);
        (starts_word(t, s) && r >= 20).then(|| Hit::whole(s, s + 7 + r))
    });
}

/// `\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,300}`
pub fn openai(t: &[u8], out: &mut Vec<Hit>) {
    each_at(t, out, b"sk-", |s| {
        if !starts_word(t, s) {
            return None;
        }
        let i = s + 3;
        let kinds: [&[u8]; 4] = [b"proj-", b"svcacct-", b"admin-", b""];
        kinds.iter().find_map(|k| {
            if !lit(t, i, k) {
                return None;
            }
            let r = run(t, i + k.len(), 300, token);
            (r >= 20).then(|| Hit::whole(s, i + k.len() + r))
        })
    });
}

/// `\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})`
pub fn github(t: &[u8], out: &mut Vec<Hit>) {
    each_at(t, out, b"g", |s| {
        if !starts_word(t, s) {
            return None;
        }
        if lit(t, s, b"gh")
            && t.get(s + 2).is_some_and(|b| b"pousr".contains(b))
            && is(t, s + 3, b'_')
        {
            let r = run(t, s + 4, 255, alnum);
            if r >= 36 {
                return Some(Hit::whole(s, s + 4 + r));
            }
        }
        if lit(t, s, b"github_pat_") {
            let r = run(t, s + 11, 255, word);
            if r >= 22 {
                return Some(Hit::whole(s, s + 11 + r));
            }
        }
        None
    });
}

/// `\bxox[abposre]-[A-Za-z0-9-]{10,250}`
pub fn slack(t: &[u8], out: &mut Vec<Hit>) {
    each_at(t, out, b"xox", |s| {
        let kind = t.get(s + 3).is_some_and(|b| b"abposre".contains(b)) && is(t, s + 4, b'-');
        let r = run(t, s + 5, 250, |b| alnum(b) || b == b'-');
        (starts_word(t, s) && kind && r >= 10).then(|| Hit::whole(s, s + 5 + r))
    });
}

/// `https?://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_-]{20,}`
pub fn slack_webhook(t: &[u8], out: &mut Vec<Hit>) {
    each_at(t, out, b"http", |s| {
        let host = b"://hooks.slack.com/";
        let i = if is(t, s + 4, b's') && lit(t, s + 5, host) {
            s + 5 + host.len()
        } else if lit(t, s + 4, host) {
            s + 4 + host.len()
        } else {
            return None;
        };
        let kinds: [&[u8]; 3] = [b"services/", b"workflows/", b"triggers/"];
        let k = kinds.iter().find(|k| lit(t, i, k))?;
        let j = i + k.len();
        let r = run(t, j, usize::MAX, |b| token(b) || b == b'+' || b == b'/');
        (r >= 20).then(|| Hit::whole(s, j + r))
    });
}

/// `\bAIza[0-9A-Za-z_-]{35}`
pub fn google(t: &[u8], out: &mut Vec<Hit>) {
    each_at(t, out, b"AIza", |s| {
        (starts_word(t, s) && run(t, s + 4, 35, token) == 35).then(|| Hit::whole(s, s + 39))
    });
}

/// `\b[sr]k_(?:live|test)_[0-9A-Za-z]{16,247}`
pub fn stripe(t: &[u8], out: &mut Vec<Hit>) {
    each(t, out, |from| {
        occurrences(t, from + 1, b"k_").find_map(|p| {
            let s = p - 1;
            if !matches!(t[s], b's' | b'r') || !starts_word(t, s) {
                return None;
            }
            if !(lit(t, p + 2, b"live_") || lit(t, p + 2, b"test_")) {
                return None;
            }
            let r = run(t, p + 7, 247, alnum);
            (r >= 16).then(|| Hit::whole(s, p + 7 + r))
        })
    });
}

/// `\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b`
pub fn aws_key_id(t: &[u8], out: &mut Vec<Hit>) {
    each_at(t, out, b"A", |s| {
        let prefixes: [&[u8]; 4] = [b"AKIA", b"ASIA", b"ABIA", b"ACCA"];
        let ok = starts_word(t, s)
            && prefixes.iter().any(|p| lit(t, s, p))
            && run(t, s + 4, 16, |b| b.is_ascii_uppercase() || b.is_ascii_digit()) == 16
            && ends_word(t, s + 20);
        ok.then(|| Hit::whole(s, s + 20))
    });
}

/// `\\?["']?\s*[:=]\s*\\?["']?` from `i`: where the value starts.
fn assignment(t: &[u8], mut i: usize) -> Option<usize> {
    i += usize::from(is(t, i, b'\\'));
    i += usize::from(matches!(t.get(i), Some(b'"' | b'\'')));
    i += run(t, i, usize::MAX, space);
    if !matches!(t.get(i), Some(b':' | b'=')) {
        return None;
    }
    i += 1;
    i += run(t, i, usize::MAX, space);
    i += usize::from(is(t, i, b'\\'));
    i += usize::from(matches!(t.get(i), Some(b'"' | b'\'')));
    Some(i)
}

/// `(?i)(?:aws_?secret_?(?:access_?)?key|secret_?access_?key)\\?["']?\s*[:=]\s*\\?["']?([A-Za-z0-9/+=]{40})(?:[^A-Za-z0-9/+=]|$)`
pub fn aws_secret(t: &[u8], out: &mut Vec<Hit>) {
    let opt = |i: usize, b: u8| i + usize::from(is(t, i, b));
    let name = |s: usize| -> Option<usize> {
        let mut i = s;
        if lit_ci(t, i, b"aws") {
            i = opt(i + 3, b'_');
            if !lit_ci(t, i, b"secret") {
                return None;
            }
            i = opt(i + 6, b'_');
            if lit_ci(t, i, b"access") {
                i = opt(i + 6, b'_');
            }
        } else {
            if !lit_ci(t, i, b"secret") {
                return None;
            }
            i = opt(i + 6, b'_');
            if !lit_ci(t, i, b"access") {
                return None;
            }
            i = opt(i + 6, b'_');
        }
        lit_ci(t, i, b"key").then_some(i + 3)
    };
    let value = |b: u8| alnum(b) || matches!(b, b'/' | b'+' | b'=');
    each(t, out, |from| {
        (from..t.len()).find_map(|s| {
            if !matches!(t[s], b'a' | b'A' | b's' | b'S') {
                return None;
            }
            let v = assignment(t, name(s)?)?;
            if run(t, v, 41, value) != 40 {
                return None;
            }
            let end = (v + 41).min(t.len());
            Some(hit(s, (end, v, v + 40)))
        })
    });
}

/// `\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}`
pub fn jwt(t: &[u8], out: &mut Vec<Hit>) {
    each(t, out, |from| {
        let mut at = from;
        loop {
            let s = occurrences(t, at, b"eyJ").next()?;
            if !starts_word(t, s) {
                at = s + 1;
                continue;
            }
            // The first part ends where its class does; a later start inside this part ends
            // there too and has a shorter part, so it fails where this one fails.
            let e1 = s + 3 + run(t, s + 3, usize::MAX, token);
            let tail = || -> Option<usize> {
                if e1 - s - 3 < 10 || !lit(t, e1, b".eyJ") {
                    return None;
                }
                let r2 = run(t, e1 + 4, usize::MAX, token);
                let e2 = e1 + 4 + r2;
                if r2 < 10 || !is(t, e2, b'.') {
                    return None;
                }
                let r3 = run(t, e2 + 1, usize::MAX, token);
                (r3 >= 10).then_some(e2 + 1 + r3)
            };
            if let Some(end) = tail() {
                return Some(Hit::whole(s, end));
            }
            at = e1;
        }
    });
}

/// The first position from `from` that starts `needle` (ASCII case-insensitive).
fn find_ci(t: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    let first = needle[0];
    let hay = t.get(from..)?;
    memchr::memchr2_iter(first.to_ascii_lowercase(), first.to_ascii_uppercase(), hay)
        .map(|p| p + from)
        .find(|&p| lit_ci(t, p, needle))
}

/// The matches of a pattern that starts with a case-insensitive keyword.
fn each_at_ci(t: &[u8], out: &mut Vec<Hit>, needle: &[u8], at: impl Fn(usize) -> Option<Hit>) {
    each(t, out, |mut from| loop {
        let s = find_ci(t, from, needle)?;
        if let Some(h) = at(s) {
            return Some(h);
        }
        from = s + 1;
    });
}

/// `(?i)\bbearer\s+([A-Za-z0-9._~+/-]{16,}=*)`
pub fn bearer(t: &[u8], out: &mut Vec<Hit>) {
    each_at_ci(t, out, b"bearer", |s| {
        // The cheap checks first: the token's run is measured only after a word's `bearer`
        // and a space (else `bearerbearer…` would measure the rest of the text each time).
        let k = run(t, s + 6, usize::MAX, space);
        if k == 0 || !starts_word(t, s) {
            return None;
        }
        let v = s + 6 + k;
        let r = run(t, v, usize::MAX, |b| token(b) || matches!(b, b'.' | b'~' | b'+' | b'/'));
        let e = v + r + run(t, v + r, usize::MAX, |b| b == b'=');
        (r >= 16).then(|| hit(s, (e, v, e)))
    });
}

/// `(?i)\bauthorization\\?["']?\s*[:=]\s*\\?["']?basic\s+([A-Za-z0-9+/]{12,}={0,2})`
pub fn basic_auth(t: &[u8], out: &mut Vec<Hit>) {
    each_at_ci(t, out, b"authorization", |s| {
        if !starts_word(t, s) {
            return None;
        }
        let i = assignment(t, s + 13)?;
        if !lit_ci(t, i, b"basic") {
            return None;
        }
        let k = run(t, i + 5, usize::MAX, space);
        let v = i + 5 + k;
        let r = run(t, v, usize::MAX, |b| alnum(b) || b == b'+' || b == b'/');
        let e = v + r + run(t, v + r, 2, |b| b == b'=');
        (k >= 1 && r >= 12).then(|| hit(s, (e, v, e)))
    });
}

/// `\bhf_[A-Za-z0-9]{34,40}\b`
pub fn huggingface(t: &[u8], out: &mut Vec<Hit>) {
    each_at(t, out, b"hf_", |s| {
        let r = run(t, s + 3, 41, alnum);
        let ok = starts_word(t, s) && (34..=40).contains(&r) && ends_word(t, s + 3 + r);
        ok.then(|| Hit::whole(s, s + 3 + r))
    });
}

// ---- passwords ----------------------------------------------------------------------------

/// `[A-Za-z0-9_.-]`
fn name(b: u8) -> bool {
    token(b) || b == b'.'
}

/// The keywords of the password rules.
const PASSWORD_WORDS: [&[u8]; 4] = [b"password", b"passwd", b"passphrase", b"_pass"];

/// The leftmost match of `[A-Za-z0-9_.-]{0,40}(?:password|passwd|passphrase|_pass)\b<tail>` (the
/// keywords ASCII case-insensitive), where the tail's match depends only on where the keyword
/// ends (`tail`).
///
/// A keyword at `p` whose tail matches can be reached from every start `s` with `p - s <= 40`
/// and only name bytes between them; the earliest such start grows with `p`, so the first such
/// keyword gives the leftmost start, and there the pattern's greedy prefix takes the last
/// keyword in reach whose tail matches.
fn named_password(t: &[u8], from: usize, tail: impl Fn(usize) -> Option<Tail>) -> Option<Hit> {
    let at = |p: usize| -> Option<Tail> {
        PASSWORD_WORDS.iter().find_map(|w| {
            let e = p + w.len();
            (lit_ci(t, p, w) && ends_word(t, e)).then(|| tail(e)).flatten()
        })
    };
    let first = (from..t.len()).find(|&p| matches!(t[p], b'p' | b'P' | b'_') && at(p).is_some())?;
    let mut s = first;
    while s > from && first - s < 40 && name(t[s - 1]) {
        s -= 1;
    }
    let last = s + run(t, s, 40, name);
    (first..=last).rev().find_map(at).map(|tl| hit(s, tl))
}

/// After a password keyword: `\\?["']?[ \t]*(?::=|=>|===?|!==?|=|:)[ \t]*\\?(?:"([^"\s\\]{4,200})\\?"|'([^'\s\\]{4,200})\\?')`
fn quoted_assignment(t: &[u8], mut i: usize) -> Option<Tail> {
    i += usize::from(is(t, i, b'\\'));
    i += usize::from(matches!(t.get(i), Some(b'"' | b'\'')));
    i += run(t, i, usize::MAX, blank);
    let ops: [&[u8]; 8] = [b":=", b"=>", b"===", b"==", b"!==", b"!=", b"=", b":"];
    ops.iter().filter(|op| lit(t, i, op)).find_map(|op| {
        let mut j = i + op.len();
        j += run(t, j, usize::MAX, blank);
        j += usize::from(is(t, j, b'\\'));
        quoted(t, j, b'"', 4).or_else(|| quoted(t, j, b'\'', 4))
    })
}

/// `Q([^Q\s\\]{min,200})\\?Q` at `i`, for the quote `Q`.
fn quoted(t: &[u8], i: usize, q: u8, min: usize) -> Option<Tail> {
    if !is(t, i, q) {
        return None;
    }
    let v = i + 1;
    let r = run(t, v, 201, |b| b != q && b != b'\\' && !space(b));
    if !(min..=200).contains(&r) {
        return None;
    }
    let k = v + r;
    if is(t, k, b'\\') && is(t, k + 1, q) {
        Some((k + 2, v, k))
    } else if is(t, k, q) {
        Some((k + 1, v, k))
    } else {
        None
    }
}

/// `[A-Za-z0-9!#%*+./?@^_~-]`: the first byte of a bare password.
fn bare_first(b: u8) -> bool {
    name(b) || matches!(b, b'!' | b'#' | b'%' | b'*' | b'+' | b'/' | b'?' | b'@' | b'^' | b'~')
}

/// `[A-Za-z0-9!#$%*+./:=?@^_~-]`: the rest of a bare password.
fn bare_rest(b: u8) -> bool {
    bare_first(b) || matches!(b, b'$' | b':' | b'=')
}

/// After a password keyword: `[ \t]*(?::=|=|:)[ \t]*([A-Za-z0-9!#%*+./?@^_~-][A-Za-z0-9!#$%*+./:=?@^_~-]{3,127})(?:[^A-Za-z0-9!#$%*+./:=?@^_~(\[{-]|$)`
fn bare_assignment(t: &[u8], i: usize) -> Option<Tail> {
    let i = i + run(t, i, usize::MAX, blank);
    let ops: [&[u8]; 3] = [b":=", b"=", b":"];
    ops.iter().filter(|op| lit(t, i, op)).find_map(|op| {
        let v = i + op.len() + run(t, i + op.len(), usize::MAX, blank);
        if !t.get(v).is_some_and(|&b| bare_first(b)) {
            return None;
        }
        let r = run(t, v + 1, 128, bare_rest);
        let k = v + 1 + r;
        if !(3..=127).contains(&r) {
            return None;
        }
        match t.get(k) {
            None => Some((k, v, k)),
            Some(b'(' | b'[' | b'{') => None,
            Some(_) => Some((k + 1, v, k)),
        }
    })
}

/// `(?i)[A-Za-z0-9_.-]{0,40}(?:password|passwd|passphrase|_pass)\b` + [`quoted_assignment`].
pub fn password_quoted(t: &[u8], out: &mut Vec<Hit>) {
    each(t, out, |from| named_password(t, from, |e| quoted_assignment(t, e)));
}

/// `(?i)[A-Za-z0-9_.-]{0,40}(?:password|passwd|passphrase|_pass)\b` + [`bare_assignment`].
pub fn password_bare(t: &[u8], out: &mut Vec<Hit>) {
    each(t, out, |from| named_password(t, from, |e| bare_assignment(t, e)));
}

/// `\b[A-Z0-9_]*(?:PASSWORD|PASSWD|PASSPHRASE|_PASS)\b` + [`bare_assignment`].
///
/// The prefix and the keyword are word bytes between two word boundaries: the whole word, all
/// capitals, digits and `_`, ending with the keyword.
pub fn password_env(t: &[u8], out: &mut Vec<Hit>) {
    const WORDS: [&[u8]; 4] = [b"PASSWORD", b"PASSWD", b"PASSPHRASE", b"_PASS"];
    each(t, out, |from| {
        let mut at = from;
        loop {
            let p = occurrences(t, at, b"PASS").next()?;
            let mut s = p;
            while s > from && word(t[s - 1]) {
                s -= 1;
            }
            let e = p + run(t, p, usize::MAX, word);
            let caps = |b: u8| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_';
            if starts_word(t, s) && s + run(t, s, usize::MAX, caps) == e {
                let found = WORDS
                    .iter()
                    .filter(|w| e - s >= w.len() && t[e - w.len()..e] == ***w)
                    .find_map(|_| bare_assignment(t, e));
                if let Some(tl) = found {
                    return Some(hit(s, tl));
                }
            }
            at = e.max(p + 1);
        }
    });
}

/// `(?im)^[ \t-]*[A-Za-z0-9_.-]{0,40}(?:password|passwd|passphrase)[ \t]*:[ \t]*([A-Za-z0-9!#%*+./?@^_~-][^\s\x22'\\]{3,127})[ \t\r]*$`
pub fn password_yaml(t: &[u8], out: &mut Vec<Hit>) {
    let at = |p: usize| -> Option<Tail> {
        PASSWORD_WORDS[..3].iter().filter(|w| lit_ci(t, p, w)).find_map(|w| {
            let mut i = p + w.len();
            i += run(t, i, usize::MAX, blank);
            if !is(t, i, b':') {
                return None;
            }
            i += 1;
            let v = i + run(t, i, usize::MAX, blank);
            if !t.get(v).is_some_and(|&b| bare_first(b)) {
                return None;
            }
            let r = run(t, v + 1, 128, |b| !space(b) && !matches!(b, b'"' | b'\'' | b'\\'));
            if !(3..=127).contains(&r) {
                return None;
            }
            let k = v + 1 + r;
            let e = k + run(t, k, usize::MAX, |b| blank(b) || b == b'\r');
            (e == t.len() || t[e] == b'\n').then_some((e, v, k))
        })
    };
    let line = |s: usize| -> Option<Hit> {
        let mut tried: Vec<(usize, Option<Tail>)> = Vec::new();
        let r1 = run(t, s, usize::MAX, |b| blank(b) || b == b'-');
        for l1 in (0..=r1).rev() {
            let q = s + l1;
            let r2 = run(t, q, 40, name);
            for p in (q..=q + r2).rev() {
                if !matches!(t.get(p), Some(b'p' | b'P')) {
                    continue;
                }
                let tl = match tried.iter().find(|(at_p, _)| *at_p == p) {
                    Some(&(_, tl)) => tl,
                    None => {
                        let tl = at(p);
                        tried.push((p, tl));
                        tl
                    }
                };
                if let Some(tl) = tl {
                    return Some(hit(s, tl));
                }
            }
        }
        None
    };
    each(t, out, |from| {
        let mut s = if from == 0 || t[from - 1] == b'\n' {
            from
        } else {
            from + memchr::memchr(b'\n', &t[from..])? + 1
        };
        loop {
            if let Some(h) = line(s) {
                return Some(h);
            }
            s += memchr::memchr(b'\n', t.get(s..)?)? + 1;
        }
    });
}

/// `(?i)(?:--[A-Za-z0-9-]{0,30}(?:password|passwd|passphrase|pass)(?:[ \t]+|=)|\bsshpass[ \t]+-p[ \t]*|\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n|;&]{0,100}?[ \t]-p)(?:\\?"([^"\s\\]{3,200})\\?"|\\?'([^'\s\\]{3,200})\\?'|([A-Za-z0-9!#%*+./?@^_~][^\s"'\\;|&<>()]{2,199}))`
pub fn password_flag(t: &[u8], out: &mut Vec<Hit>) {
    let value = |i: usize| -> Option<Tail> {
        let quoted_at = |q: u8| {
            if is(t, i, b'\\') && is(t, i + 1, q) {
                quoted(t, i + 1, q, 3)
            } else {
                quoted(t, i, q, 3)
            }
        };
        quoted_at(b'"').or_else(|| quoted_at(b'\'')).or_else(|| {
            let first = t.get(i).is_some_and(|&b| bare_first(b) && b != b'-');
            let r = run(t, i + 1, 199, |b| !space(b) && !b"\"'\\;|&<>()".contains(&b));
            (first && r >= 2).then_some((i + 1 + r, i, i + 1 + r))
        })
    };
    let option = |s: usize| -> Option<Tail> {
        if !lit(t, s, b"--") {
            return None;
        }
        let i = s + 2;
        let r = run(t, i, 30, |b| alnum(b) || b == b'-');
        let words: [&[u8]; 4] = [b"password", b"passwd", b"passphrase", b"pass"];
        (i..=i + r).rev().filter(|&p| matches!(t.get(p), Some(b'p' | b'P'))).find_map(|p| {
            words.iter().filter(|w| lit_ci(t, p, w)).find_map(|w| {
                let e = p + w.len();
                let k = run(t, e, usize::MAX, blank);
                if k >= 1 {
                    value(e + k)
                } else if is(t, e, b'=') {
                    value(e + 1)
                } else {
                    None
                }
            })
        })
    };
    let sshpass = |s: usize| -> Option<Tail> {
        if !starts_word(t, s) || !lit_ci(t, s, b"sshpass") {
            return None;
        }
        let k = run(t, s + 7, usize::MAX, blank);
        let i = s + 7 + k;
        if k == 0 || !lit_ci(t, i, b"-p") {
            return None;
        }
        value(i + 2 + run(t, i + 2, usize::MAX, blank))
    };
    let mysql = |s: usize| -> Option<Tail> {
        if !starts_word(t, s) {
            return None;
        }
        let words: [&[u8]; 4] = [b"mysql", b"mysqldump", b"mysqladmin", b"mariadb"];
        words.iter().filter(|w| lit_ci(t, s, w) && ends_word(t, s + w.len())).find_map(|w| {
            let e = s + w.len();
            let r = run(t, e, 100, |b| !matches!(b, b'\n' | b'|' | b';' | b'&'));
            (e..=e + r).find_map(|q| {
                let flag = t.get(q).is_some_and(|&b| blank(b)) && lit_ci(t, q + 1, b"-p");
                flag.then(|| value(q + 3)).flatten()
            })
        })
    };
    each(t, out, |from| {
        (from..t.len()).find_map(|s| {
            let tl = match t[s] {
                b'-' => option(s),
                b's' | b'S' => sshpass(s),
                b'm' | b'M' => mysql(s),
                _ => None,
            }?;
            Some(hit(s, tl))
        })
    });
}

/// `(?i)\b(?:server|data source|…|provider)[ \t]*=[^;\n]{0,200};(?:[^;\n]{0,200};){0,10}?[ \t]*(?:password|pwd)[ \t]*=[ \t]*([^;\s\x22'\\]{1,200})`
pub fn password_connection(t: &[u8], out: &mut Vec<Hit>) {
    const KEYS: [&[u8]; 16] = [
        b"server",
        b"data source",
        b"datasource",
        b"host",
        b"address",
        b"addr",
        b"uid",
        b"user id",
        b"userid",
        b"user",
        b"username",
        b"database",
        b"initial catalog",
        b"dsn",
        b"driver",
        b"provider",
    ];
    // `[^;\n]{0,200};` at `i`: where it ends.
    let field = |i: usize| -> Option<usize> {
        let r = run(t, i, 201, |b| b != b';' && b != b'\n');
        (r <= 200 && is(t, i + r, b';')).then_some(i + r + 1)
    };
    let password = |i: usize| -> Option<Tail> {
        let i = i + run(t, i, usize::MAX, blank);
        let words: [&[u8]; 2] = [b"password", b"pwd"];
        words.iter().filter(|w| lit_ci(t, i, w)).find_map(|w| {
            let j = i + w.len() + run(t, i + w.len(), usize::MAX, blank);
            if !is(t, j, b'=') {
                return None;
            }
            let v = j + 1 + run(t, j + 1, usize::MAX, blank);
            let r = run(t, v, 200, |b| !space(b) && !matches!(b, b';' | b'"' | b'\'' | b'\\'));
            (r >= 1).then_some((v + r, v, v + r))
        })
    };
    let at = |s: usize| -> Option<Tail> {
        if !starts_word(t, s) {
            return None;
        }
        KEYS.iter().filter(|k| lit_ci(t, s, k)).find_map(|k| {
            let i = s + k.len() + run(t, s + k.len(), usize::MAX, blank);
            if !is(t, i, b'=') {
                return None;
            }
            let mut i = field(i + 1)?;
            for _ in 0..10 {
                if let Some(tl) = password(i) {
                    return Some(tl);
                }
                i = field(i)?;
            }
            password(i)
        })
    };
    each(t, out, |from| (from..t.len()).find_map(|s| at(s).map(|tl| hit(s, tl))));
}

/// `\b[A-Za-z][A-Za-z0-9+.-]{1,20}://[^\s:/?#@"'<>\\]{1,200}:([^\s/?#@"'<>\\]{1,200})@`
///
/// The scheme's class has no `:`, so a start belongs to the first `://` after it; the first
/// `://` whose user and password match gives the leftmost start.
pub fn url_password(t: &[u8], out: &mut Vec<Hit>) {
    let part = |b: u8| !space(b) && !b"/?#@\"'<>\\".contains(&b);
    let scheme = |b: u8| alnum(b) || matches!(b, b'+' | b'.' | b'-');
    each(t, out, |from| {
        occurrences(t, from, b"://").find_map(|c| {
            let i = c + 3;
            let u = run(t, i, 201, |b| part(b) && b != b':');
            if !(1..=200).contains(&u) || !is(t, i + u, b':') {
                return None;
            }
            let j = i + u + 1;
            let p = run(t, j, 201, part);
            if !(1..=200).contains(&p) || !is(t, j + p, b'@') {
                return None;
            }
            let mut lo = c;
            while lo > from && c - lo < 21 && scheme(t[lo - 1]) {
                lo -= 1;
            }
            let s = (lo..c.saturating_sub(1))
                .find(|&s| t[s].is_ascii_alphabetic() && starts_word(t, s))?;
            Some(hit(s, (j + p + 1, j, j + p)))
        })
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(f: fn(&[u8], &mut Vec<Hit>), t: &str) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        f(t.as_bytes(), &mut out);
        out.iter().map(|h| (h.secret_start, h.secret_end)).collect()
    }

    #[test]
    fn a_url_password_needs_a_scheme_word_start() {
        assert_eq!(all(url_password, "x https://u:p@h"), vec![(12, 13)]);
        assert!(all(url_password, "_1://u:p@h").is_empty());
    }
}
