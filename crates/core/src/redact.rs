//! Secret redaction: API keys, tokens, private keys and URL passwords found by the documented
//! patterns of [`rules::RULES`] are replaced by `[REDACTED:<kind>]` (see `docs/redaction.md`).
//!
//! - [`redact_text`] masks plain text (the brief's Markdown, a step's text).
//! - [`redact_file`] makes a redacted copy of a trace file that keeps its structure: the same
//!   lines, and every line that was valid JSON still is — a secret is masked inside its JSON
//!   string, and only a string that changed is written again (as JSON).
//! - [`redact_json_text`] does the same for JSON / JSONL text an export writes.
//! - [`scan`] only lists what was found, by line and kind.
//! - [`scan_trace`] lists the secrets of a loaded trace by trajectory, step and field.
//! - [`step_markdown`] is one step as Markdown, masked; [`quarantine_record`] a quarantined
//!   line, masked (the exact export stays `QuarantineRecord::from_entry`).
//!
//! Pure: each rule's pattern is found by a hand-written matcher (`matchers`), the keywords by
//! one Aho-Corasick automaton built once per process.

pub mod matchers;
pub mod rules;

use std::borrow::Cow;
use std::sync::OnceLock;

use crate::ac::{Ac, AcOptions};
use serde::{Deserialize, Serialize};

use crate::model::{QuarantineEntry, Step};
use crate::report::QuarantineRecord;
use rules::{Rule, Spec, RULES, SPECS};

/// One secret found in a text: its kind and its byte range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub kind: &'static str,
    pub start: usize,
    pub end: usize,
}

/// One secret found in a file: 1-based line, 1-based byte column of the secret (of the JSON
/// string holding it when that string has escapes), and its kind.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineFinding {
    pub line: u32,
    pub column: u32,
    pub kind: String,
}

/// A redacted copy of a file and what was masked in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Redacted {
    pub bytes: Vec<u8>,
    pub findings: Vec<LineFinding>,
}

/// The text that replaces a secret of `kind`.
pub fn mask(kind: &str) -> String {
    format!("[REDACTED:{kind}]")
}

struct Compiled {
    keywords: Ac,
    /// keyword index → rule index.
    keyword_rule: Vec<usize>,
}

fn compiled() -> &'static Compiled {
    static COMPILED: OnceLock<Compiled> = OnceLock::new();
    COMPILED.get_or_init(|| {
        let mut words = Vec::new();
        let mut keyword_rule = Vec::new();
        for (i, r) in RULES.iter().enumerate() {
            for k in r.keywords {
                words.push(*k);
                keyword_rule.push(i);
            }
        }
        Compiled {
            keywords: AcOptions::ascii_case_insensitive()
                .build(&words)
                .expect("the redaction keywords build"),
            keyword_rule,
        }
    })
}

/// Whether `text` has an escape that could spell part of a keyword once decoded.
fn may_hide_keyword(text: &[u8]) -> bool {
    memchr::memmem::find(text, b"\\u").is_some() || memchr::memmem::find(text, b"\\/").is_some()
}

/// Whether `text` contains any rule's keyword (ASCII case-insensitive).
fn has_keyword(text: &[u8]) -> bool {
    compiled().keywords.is_match(text)
}

/// Every secret in `text`, in order, none overlapping (the longer match wins, then the
/// earlier rule).
pub fn find(text: &[u8]) -> Vec<Finding> {
    let c = compiled();
    let mut candidates = vec![false; RULES.len()];
    let mut any = false;
    for m in c.keywords.find_overlapping_iter(text) {
        candidates[c.keyword_rule[m.pattern().as_usize()]] = true;
        any = true;
    }
    if !any {
        return Vec::new();
    }
    let mut found: Vec<(usize, usize, usize)> = Vec::new();
    let mut hits = Vec::new();
    for (i, rule) in RULES.iter().enumerate() {
        if !candidates[i] {
            continue;
        }
        hits.clear();
        (rule.matcher)(text, &mut hits);
        for h in &hits {
            let secret = &text[h.secret_start..h.secret_end];
            if secret.is_empty() || !rules::passes(rule.check, secret) {
                continue;
            }
            found.push((h.secret_start, h.secret_end, i));
        }
    }
    crate::sort::sort_by_key(&mut found, |&(s, e, i)| (s, std::cmp::Reverse(e), i));
    let mut out: Vec<Finding> = Vec::new();
    for (start, end, i) in found {
        if out.last().is_some_and(|l| start < l.end) {
            continue;
        }
        out.push(Finding { kind: RULES[i].kind, start, end });
    }
    out
}

/// `text` with every finding replaced by its mask.
fn apply(text: &[u8], found: &[Finding]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut at = 0;
    for f in found {
        out.extend_from_slice(&text[at..f.start]);
        out.extend_from_slice(mask(f.kind).as_bytes());
        at = f.end;
    }
    out.extend_from_slice(&text[at..]);
    out
}

/// Plain text with every secret masked (borrowed when there was none).
pub fn redact_text(text: &str) -> Cow<'_, str> {
    let found = find(text.as_bytes());
    if found.is_empty() {
        return Cow::Borrowed(text);
    }
    // Every pattern starts and ends on an ASCII byte, so the masked text stays UTF-8.
    Cow::Owned(String::from_utf8_lossy(&apply(text.as_bytes(), &found)).into_owned())
}

/// Masks one line (without its `\n`), JSON-aware: inside a JSON string literal the secret is
/// masked in place when the literal has no escapes, else the literal is decoded, masked and
/// written again as a JSON string; outside string literals (a line that is not JSON) the bytes
/// are masked as text. `cols` gets the 0-based column and kind of each secret.
fn redact_line(line: &[u8], out: &mut Vec<u8>, cols: &mut Vec<(usize, &'static str)>) {
    // Most lines hold no keyword at all: one scan, and the line is copied as it is (unless an
    // escape could spell one: `\/` in `https:\/\/`, `\u0073k-`).
    if !has_keyword(line) && !may_hide_keyword(line) {
        out.extend_from_slice(line);
        return;
    }
    let mut text_from = 0;
    let mut i = 0;
    // The end of the last string literal, when it was an object key naming a password.
    let mut password_key: Option<usize> = None;
    while i < line.len() {
        if line[i] != b'"' {
            i += 1;
            continue;
        }
        // A string literal from i: find its closing quote.
        let mut j = i + 1;
        let mut escaped = false;
        while j < line.len() && line[j] != b'"' {
            if line[j] == b'\\' {
                escaped = true;
                j += 1;
            }
            j += 1;
        }
        if j >= line.len() {
            break; // unterminated: the rest of the line is text
        }
        text_segment(&line[text_from..i], text_from, out, cols);
        let is_value_of_password_key = password_key
            .is_some_and(|end| line[end..i].trim_ascii() == b":")
            && password_literal(&line[i..=j], i, escaped, out, cols);
        if !is_value_of_password_key {
            literal(&line[i..=j], i, escaped, out, cols);
        }
        // A key: the next byte that is not a space is `:`.
        let next = line[j + 1..].iter().find(|b| !b.is_ascii_whitespace());
        password_key = (next == Some(&b':') && is_password_key_literal(&line[i..=j], escaped))
            .then_some(j + 1);
        i = j + 1;
        text_from = i;
    }
    text_segment(&line[text_from..], text_from, out, cols);
}

fn text_segment(seg: &[u8], base: usize, out: &mut Vec<u8>, cols: &mut Vec<(usize, &'static str)>) {
    let found = find(seg);
    if found.is_empty() {
        out.extend_from_slice(seg);
        return;
    }
    cols.extend(found.iter().map(|f| (base + f.start, f.kind)));
    out.extend_from_slice(&apply(seg, &found));
}

/// The content of a JSON string literal (quotes included), decoded when it has escapes.
fn literal_content(lit: &[u8], escaped: bool) -> Option<Cow<'_, [u8]>> {
    if escaped {
        serde_json::from_slice::<String>(lit).ok().map(|s| Cow::Owned(s.into_bytes()))
    } else {
        Some(Cow::Borrowed(&lit[1..lit.len() - 1]))
    }
}

fn is_password_key_literal(lit: &[u8], escaped: bool) -> bool {
    literal_content(lit, escaped).is_some_and(|k| rules::is_password_key(&k))
}

/// The string value of an object key naming a password (`"password": "…"`): masked whole when
/// it reads as a password (4 to 200 characters, no space or quote, [`rules::is_value`]).
/// `false` (nothing written) when it does not.
fn password_literal(
    lit: &[u8],
    base: usize,
    escaped: bool,
    out: &mut Vec<u8>,
    cols: &mut Vec<(usize, &'static str)>,
) -> bool {
    let Some(v) = literal_content(lit, escaped) else { return false };
    let plain = !v.iter().any(|&b| b.is_ascii_whitespace() || matches!(b, b'"' | b'\'' | b'\\'));
    if !(4..=200).contains(&v.len()) || !plain || !rules::is_value(&v) {
        return false;
    }
    cols.push((base + 1, "password"));
    out.push(b'"');
    out.extend_from_slice(mask("password").as_bytes());
    out.push(b'"');
    true
}

/// One JSON string literal, quotes included, starting at column `base`.
fn literal(
    lit: &[u8],
    base: usize,
    escaped: bool,
    out: &mut Vec<u8>,
    cols: &mut Vec<(usize, &'static str)>,
) {
    if escaped && (has_keyword(lit) || may_hide_keyword(lit)) {
        if let Ok(decoded) = serde_json::from_slice::<String>(lit) {
            let found = find(decoded.as_bytes());
            if found.is_empty() {
                out.extend_from_slice(lit);
                return;
            }
            cols.extend(found.iter().map(|f| (base, f.kind)));
            let masked = String::from_utf8_lossy(&apply(decoded.as_bytes(), &found)).into_owned();
            match serde_json::to_string(&masked) {
                Ok(s) => out.extend_from_slice(s.as_bytes()),
                Err(_) => out.extend_from_slice(lit),
            }
            return;
        }
    }
    // No escapes (or not a valid JSON string): mask between the quotes. A mask is letters,
    // `[`, `]`, `:` and `-`, all plain in a JSON string.
    out.push(b'"');
    text_segment(&lit[1..lit.len() - 1], base + 1, out, cols);
    out.push(b'"');
}

/// A redacted copy of a trace file: line by line (`\n` kept exactly, so the line count is the
/// same), JSON-aware (a line that parsed still parses). Gzip input is decompressed first; the
/// copy is the plain text.
pub fn redact_file(bytes: &[u8]) -> Redacted {
    let plain;
    let bytes = if bytes.starts_with(&[0x1f, 0x8b]) {
        plain = gunzip(bytes);
        &plain[..]
    } else {
        bytes
    };
    let mut out = Vec::with_capacity(bytes.len());
    let mut findings = Vec::new();
    let mut cols = Vec::new();
    for (n, line) in bytes.split(|&b| b == b'\n').enumerate() {
        if n > 0 {
            out.push(b'\n');
        }
        cols.clear();
        redact_line(line, &mut out, &mut cols);
        findings.extend(cols.iter().map(|&(c, kind)| LineFinding {
            line: (n + 1).min(u32::MAX as usize) as u32,
            column: (c + 1).min(u32::MAX as usize) as u32,
            kind: kind.to_string(),
        }));
    }
    Redacted { bytes: out, findings }
}

/// What kind of archive `bytes` is, in words ("a zip archive", "a tar archive", "a .tar.gz
/// archive"), when it is one: [`redact_file`] makes a line-by-line copy of one text trace, so
/// an archive's members (deflated, or behind tar headers) would keep their secrets and the copy
/// would be a damaged archive. The shells refuse such a file and write nothing. Every zip counts,
/// an Inspect `.eval` too.
pub fn archive_refused(bytes: &[u8]) -> Option<&'static str> {
    use crate::ingest::{archive_kind, ArchiveKind, Limits};
    match archive_kind(bytes, &Limits::default()) {
        Some(ArchiveKind::Tar) => Some("a tar archive"),
        Some(ArchiveKind::TarGz) => Some("a .tar.gz archive"),
        _ if bytes.starts_with(b"PK\x03\x04") => Some("a zip archive"),
        _ => None,
    }
}

/// Decompresses gzip (several members in a row, as `cat a.gz b.gz`); a damaged stream gives
/// what was decoded before the damage.
fn gunzip(bytes: &[u8]) -> Vec<u8> {
    crate::ingest::source::gunzip(bytes, u64::MAX).0
}

/// What [`redact_file`] would mask, without the copy.
pub fn scan(bytes: &[u8]) -> Vec<LineFinding> {
    redact_file(bytes).findings
}

/// JSON or JSONL text (an export) with every secret masked inside its strings; valid JSON
/// stays valid.
pub fn redact_json_text(text: &str) -> String {
    if find(text.as_bytes()).is_empty() {
        return text.to_string();
    }
    String::from_utf8_lossy(&redact_file(text.as_bytes()).bytes).into_owned()
}

/// A quarantined line as exported, redacted: its bytes (and text) with secrets masked,
/// `redacted: true`. The exact export is [`QuarantineRecord::from_entry`].
pub fn quarantine_record(q: &QuarantineEntry) -> QuarantineRecord {
    let masked = redact_file(&q.raw).bytes;
    let entry = QuarantineEntry { raw: masked, ..q.clone() };
    QuarantineRecord { redacted: true, ..QuarantineRecord::from_entry(&entry) }
}

/// A secret found in a loaded trace: where (trajectory and step, or a quarantined line) and
/// what kind. `line` is the source line when the format has lines (0 otherwise).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceFinding {
    /// Trajectory position; `None` for a quarantined line.
    pub trajectory: Option<usize>,
    /// Step index; `None` for the task / final answer or a quarantined line.
    pub step: Option<u32>,
    pub line: u64,
    /// `text`, `args`, `task`, `final_answer` or `quarantine`.
    pub field: String,
    pub kind: String,
}

/// Every secret in a loaded trace's steps (text and arguments), tasks, final answers and
/// quarantined lines, in order: what the app lists (the file's bytes are not kept there).
/// The same as [`scan_trajectory`] of each trajectory, then [`scan_quarantine`].
pub fn scan_trace(trace: &crate::model::Trace) -> Vec<TraceFinding> {
    let mut out = Vec::new();
    for (ti, t) in trace.trajectories.iter().enumerate() {
        scan_trajectory(ti, t, &mut out);
    }
    scan_quarantine(&trace.quarantine, &mut out);
    out
}

/// The secrets of trajectory `ti` (its task, each step's text and arguments, its final
/// answer), appended to `out` in order: a shell may scan a large trace one piece at a time
/// (the app does, after the first trajectory is on screen).
pub fn scan_trajectory(ti: usize, t: &crate::model::Trajectory, out: &mut Vec<TraceFinding>) {
    let mut push = |step, line, field: &str, text: &str| {
        for f in find(text.as_bytes()) {
            out.push(TraceFinding {
                trajectory: Some(ti),
                step,
                line,
                field: field.to_string(),
                kind: f.kind.to_string(),
            });
        }
    };
    if let Some(task) = &t.task {
        push(None, 0, "task", task);
    }
    for s in &t.steps {
        push(Some(s.index), u64::from(s.loc.line), "text", &s.text);
        if let Some(a) = &s.args {
            // Most adapters repeat the arguments in the text: count them once.
            if !s.text.contains(a.as_str()) {
                push(Some(s.index), u64::from(s.loc.line), "args", a);
            }
        }
    }
    if let Some(fa) = &t.final_answer {
        push(None, 0, "final_answer", fa);
    }
}

/// The secrets of the quarantined lines, appended to `out` in order.
pub fn scan_quarantine(quarantine: &[QuarantineEntry], out: &mut Vec<TraceFinding>) {
    for q in quarantine {
        for f in find(String::from_utf8_lossy(&q.raw).as_bytes()) {
            out.push(TraceFinding {
                trajectory: None,
                step: None,
                line: q.line,
                field: "quarantine".to_string(),
                kind: f.kind.to_string(),
            });
        }
    }
}

/// The rules, in the order they are tried.
pub fn rules() -> &'static [Rule] {
    RULES
}

/// Each rule's specification (what it finds, its pattern), in the order of [`rules`].
pub fn specs() -> &'static [Spec] {
    SPECS
}

/// One step as Markdown, for pasting into an issue or a chat, with its secrets masked: a
/// heading (step number, role / kind, actor, tool, exit code, error), the arguments and the
/// text in fenced blocks (fences longer than any backtick run inside, so content cannot close
/// them).
pub fn step_markdown(step: &Step) -> String {
    fn fenced(out: &mut String, body: &str) {
        let mut longest = 0;
        let mut run = 0;
        for c in body.chars() {
            run = if c == '`' { run + 1 } else { 0 };
            longest = longest.max(run);
        }
        let fence = "`".repeat(longest.max(2) + 1);
        out.push_str(&format!("{fence}\n{body}\n{fence}\n"));
    }
    let mut out = format!("### Step {} · {} / {}", step.index, step.role.name(), step.kind.name());
    if !step.actor.is_empty() {
        out.push_str(&format!(" · {}", step.actor));
    }
    if let Some(t) = &step.tool {
        out.push_str(&format!(" · tool `{}`", t.replace('`', "'")));
    }
    if let Some(c) = step.exit_code {
        out.push_str(&format!(" · exit {c}"));
    }
    if step.is_error {
        out.push_str(" · error");
    }
    out.push('\n');
    if let Some(ts) = &step.timestamp {
        out.push_str(&format!("\n{ts}\n"));
    }
    if let Some(args) = step.args.as_deref().filter(|a| !a.is_empty() && *a != step.text) {
        out.push('\n');
        fenced(&mut out, args);
    }
    if !step.text.is_empty() {
        out.push('\n');
        fenced(&mut out, &step.text);
    }
    redact_text(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_finds_its_example_and_masks_only_the_secret() {
        let cases = [
            ("key sk-ant-api03-AbCdEf0123456789_xyzXYZ-0123 end", "anthropic-api-key"),
            ("OPENAI_API_KEY=sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12", "openai-api-key"),
            ("token ghp_0123456789abcdefghijABCDEFGHIJ012345 ok", "github-token"),
            ("xoxb-1234567890-abcdefghij", "slack-token"),
            ("AIzaSyA1234567890abcdefghijklmnopqrstuv", "google-api-key"),
            ("sk_live_0123456789abcdefABCD", "stripe-key"),
            ("id AKIAIOSFODNN7EXAMPLE here", "aws-access-key-id"),
            (
                "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                "aws-secret-access-key",
            ),
            ("Authorization: Bearer abcDEF0123456789ghiJKL", "bearer-token"),
            ("postgres://admin:hunter2@db.example.com/x", "url-password"),
            (
                "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----",
                "private-key",
            ),
        ];
        for (text, kind) in cases {
            let found = find(text.as_bytes());
            assert_eq!(found.len(), 1, "{text}: {found:?}");
            assert_eq!(found[0].kind, kind, "{text}");
            let masked = redact_text(text);
            assert!(masked.contains(&mask(kind)), "{masked}");
        }
        assert_eq!(
            redact_text("postgres://admin:hunter2@db/x"),
            "postgres://admin:[REDACTED:url-password]@db/x"
        );
        assert_eq!(redact_text("Bearer abcDEF0123456789ghiJKL"), "Bearer [REDACTED:bearer-token]");
    }

    #[test]
    fn plain_text_passwords_are_found_in_their_usual_places() {
        // (text, the password that must be masked)
        let cases = [
            ("password=hunter2", "hunter2"),
            (r#"{"user": "bob", "password": "correct-horse"}"#, "correct-horse"),
            (r#"config = {\"password\": \"s3cr3t-v4lue\"}"#, "s3cr3t-v4lue"),
            ("db_password = 'Tr0ub4dor&3'", "Tr0ub4dor&3"),
            ("export PGPASSWORD=changeme", "changeme"),
            ("POSTGRES_PASSWORD=postgres\nPWD=/home/me", "postgres"),
            ("  MYSQL_ROOT_PASSWORD: rootpw\n", "rootpw"),
            ("spring.datasource.password=Sup3rS3cret", "Sup3rS3cret"),
            ("database:\n  password: letmein\n  host: db\n", "letmein"),
            ("passwd: 'opensesame'", "opensesame"),
            ("smtp_pass := \"mailpass1\"", "mailpass1"),
            ("docker login -u me --password hunter22 registry.io", "hunter22"),
            ("sshpass -p 'letmein99' ssh root@host", "letmein99"),
            ("mysql -u root -pRootPass db", "RootPass"),
            (
                "Server=db.local;Database=app;User Id=sa;Password=myPassw0rd;Encrypt=true",
                "myPassw0rd",
            ),
            ("Driver={ODBC};Server=x;Uid=me;Pwd=odbcsecret;", "odbcsecret"),
        ];
        for (text, secret) in cases {
            let masked = redact_text(text);
            assert!(!masked.contains(secret), "{text} -> {masked}");
            assert!(masked.contains("[REDACTED:password]"), "{text} -> {masked}");
        }
        // Only the value is masked; the name stays.
        assert_eq!(redact_text("password=hunter2 next"), "password=[REDACTED:password] next");
        assert_eq!(
            redact_text("Server=x;Uid=me;Pwd=odbcsecret;"),
            "Server=x;Uid=me;Pwd=[REDACTED:password];"
        );
    }

    #[test]
    fn code_types_placeholders_and_references_are_not_passwords() {
        for text in [
            // Code: references, calls, types.
            "password = models.CharField(_('password'), max_length=128)",
            "self.password = raw_password",
            "user.set_password(password)",
            "password=os.environ['DB_PASSWORD']",
            "password = getpass.getpass()",
            "password: str",
            "password: Optional[str] = None",
            "interface User { password: string; }",
            "PASSWORD: String = \"\"",
            "if password == '':",
            "password=None, email=None",
            "def check_password(self, raw_password):",
            // Placeholders and templates.
            "password: ${DB_PASSWORD}",
            "password = \"{{ vault_password }}\"",
            "DB_PASSWORD=$DB_PASSWORD",
            "password: <your-password>",
            "\"password\": \"********\"",
            "password=%s",
            "PASSWORD=[REDACTED:password]",
            // Words and settings about passwords.
            "Password: must be at least 8 characters",
            "MYSQL_ALLOW_EMPTY_PASSWORD=yes",
            "PasswordAuthentication no",
            "PWD=/home/me/project",
            "OLDPWD=/tmp",
            "  --password PASSWORD   the password to log in with",
            "docker login --password-stdin",
            "mysql -u root -p mydb",
            "saving passwords, or saving payment methods",
            "password_reset_timeout: 3600",
        ] {
            assert_eq!(find(text.as_bytes()), [], "{text}: {}", redact_text(text));
        }
    }

    #[test]
    fn a_password_key_of_structural_json_masks_its_value() {
        let line = r#"{"type":"tool_use","input":{"username":"admin","password":"hunter2x","db_password":"p4ss w0rd","note":"password"}}"#;
        let r = redact_file(line.as_bytes());
        let v: serde_json::Value = serde_json::from_slice(&r.bytes).unwrap();
        assert_eq!(v["input"]["password"], "[REDACTED:password]");
        // A value with a space is not read as a password; a value that is the word is not one.
        assert_eq!(v["input"]["db_password"], "p4ss w0rd");
        assert_eq!(v["input"]["note"], "password");
        assert_eq!(v["input"]["username"], "admin");
        assert_eq!(r.findings.len(), 1);
        // Escaped keys and values too, and the copy still parses.
        let line = r#"{"password": "huntér2"}"#;
        let r = redact_file(line.as_bytes());
        let v: serde_json::Value = serde_json::from_slice(&r.bytes).unwrap();
        assert_eq!(v["password"], "[REDACTED:password]");
    }

    #[test]
    fn ordinary_words_are_not_secrets() {
        for text in [
            "the task-abcdefghijklmnopqrstuvwxyz0123 ran",
            "sk-learn-compatibility-notes-for-everyone",
            "see https://example.com/a:b@c is not a credential? https://example.com/path",
            "Bearer of bad news",
            "AKIA",
        ] {
            assert_eq!(find(text.as_bytes()), [], "{text}");
        }
    }

    #[test]
    fn a_jsonl_copy_keeps_lines_and_json() {
        let input = concat!(
            r#"{"a":"key sk-ant-api03-AbCdEf0123456789_xyzXYZ-0123","n":1.50}"#,
            "\n",
            r#"{"b":"line\nwith \"quotes\" and ghp_0123456789abcdefghijABCDEFGHIJ012345"}"#,
            "\r\n",
            "not json sk_live_0123456789abcdefABCD\n",
        );
        let r = redact_file(input.as_bytes());
        let out = String::from_utf8(r.bytes).unwrap();
        assert_eq!(out.split('\n').count(), input.split('\n').count());
        let lines: Vec<&str> = out.split('\n').collect();
        // The first line is changed in place only: the number keeps its spelling.
        assert_eq!(lines[0], r#"{"a":"key [REDACTED:anthropic-api-key]","n":1.50}"#);
        let v: serde_json::Value = serde_json::from_str(lines[1].trim_end()).unwrap();
        assert_eq!(v["b"], "line\nwith \"quotes\" and [REDACTED:github-token]");
        assert!(lines[1].ends_with('\r'));
        assert_eq!(lines[2], "not json [REDACTED:stripe-key]");
        let where_: Vec<(u32, &str)> =
            r.findings.iter().map(|f| (f.line, f.kind.as_str())).collect();
        assert_eq!(where_, [(1, "anthropic-api-key"), (2, "github-token"), (3, "stripe-key")]);
        assert_eq!(r.findings[0].column, 11);
    }

    #[test]
    fn a_keyword_spelled_with_escapes_is_still_found() {
        let line =
            r#"{"u":"postgres:\/\/admin:hunter2@db\/x","k":"sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12"}"#;
        let r = redact_file(line.as_bytes());
        let kinds: Vec<&str> = r.findings.iter().map(|f| f.kind.as_str()).collect();
        assert_eq!(kinds, ["url-password", "openai-api-key"]);
        let v: serde_json::Value = serde_json::from_slice(&r.bytes).unwrap();
        assert_eq!(v["u"], "postgres://admin:[REDACTED:url-password]@db/x");
    }
}
