//! What a step acted on, per source format: the raw artifact refs an adapter records (file
//! arguments of edit/read/write tools, the files a shell command writes, the files of a patch,
//! `tool:<name>` and the records a tool call names, `message:<step>` and the files and URLs a
//! message names). The mapping table is in `docs/learning-loop.md`, "Artifact refs".
//!
//! Everything returned is raw text of the trace; [`super::classify_in`] normalises it against
//! the trace root and flags what escapes. Nothing here touches a file.

use serde_json::{Map, Value};

use crate::model::ArtifactRef;

/// Most refs kept per step (a command over hundreds of files names the first ones).
pub const MAX_PER_STEP: usize = 16;

/// Classifies raw refs against `root`, dropping duplicates and the root itself, at most
/// [`MAX_PER_STEP`].
pub fn refs(raw: impl IntoIterator<Item = String>, root: Option<&str>) -> Vec<ArtifactRef> {
    let mut out: Vec<ArtifactRef> = Vec::new();
    for r in raw {
        if out.len() >= MAX_PER_STEP {
            break;
        }
        if r.is_empty() || out.iter().any(|a| a.raw == r) {
            continue;
        }
        let a = super::classify_in(&r, root);
        // The root directory itself names no artifact.
        if a.normalized != "." || a.escapes_root {
            out.push(a);
        }
    }
    out
}

/// Keys that name one file in a tool's input, in every format seen.
const FILE_KEYS: [&str; 7] =
    ["file_path", "notebook_path", "path", "file", "filename", "filepath", "target_file"];

/// The file arguments of a tool input object (`file_path`, `path`, `files: [...]`, ...).
pub fn file_args(input: &Value) -> Vec<String> {
    let Some(o) = input.as_object() else { return Vec::new() };
    let mut out = Vec::new();
    for k in FILE_KEYS {
        if let Some(Value::String(s)) = o.get(k) {
            out.push(s.clone());
        }
    }
    if let Some(Value::Array(files)) = o.get("files").or_else(|| o.get("paths")) {
        out.extend(files.iter().filter_map(Value::as_str).map(str::to_string));
    }
    out
}

/// The input object of a call whose arguments may be a JSON string.
pub fn parse_args(args: &Value) -> Value {
    match args {
        Value::String(s) => crate::json::from_str(s).unwrap_or(Value::Null),
        other => other.clone(),
    }
}

/// Claude Code: `file_path` / `notebook_path` of Edit, MultiEdit, Write, NotebookEdit and Read;
/// the files a Bash command writes.
pub fn claude_code(tool: &str, input: &Value) -> Vec<String> {
    match tool {
        "Edit" | "MultiEdit" | "Write" | "NotebookEdit" | "Read" => file_args(input),
        "Bash" => {
            input.get("command").and_then(Value::as_str).map(shell_writes).unwrap_or_default()
        }
        _ => Vec::new(),
    }
}

/// A shell-like tool's command (`Bash`, `bash`, `shell`, `exec_command`, `execute_bash`, ...),
/// also as an MCP server's tool, named after its server (Goose's `developer__shell`, Claude
/// Code's `mcp__server__bash`): the name after the last `__`.
pub fn is_shell_tool(tool: &str) -> bool {
    let t = tool.rsplit("__").next().unwrap_or(tool).to_ascii_lowercase();
    matches!(
        t.as_str(),
        "bash"
            | "sh"
            | "shell"
            | "exec_command"
            | "execute_bash"
            | "local_shell"
            | "run"
            | "cmd"
            | "terminal"
            | "container.exec"
            | "run_shell_command"
            | "execute_command"
    )
}

/// The files of a patch: `*** Update File:` / `*** Add File:` / `*** Delete File:` / `*** Move
/// to:` (Codex `apply_patch`), `diff --git a/x b/x`, `+++ b/x` and `--- a/x` (unified diffs).
pub fn patch_files(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |p: &str| {
        let p = p.trim();
        if !p.is_empty() && p != "/dev/null" && !out.iter().any(|o| o == p) {
            out.push(p.to_string());
        }
    };
    for line in text.lines() {
        let l = line.trim_start();
        for marker in ["*** Update File:", "*** Add File:", "*** Delete File:", "*** Move to:"] {
            if let Some(p) = l.strip_prefix(marker) {
                push(p);
            }
        }
        if let Some(rest) = l.strip_prefix("diff --git ") {
            if let Some((_, b)) = rest.split_once(" b/") {
                push(b);
            }
        } else if let Some(p) = l.strip_prefix("+++ ").or_else(|| l.strip_prefix("--- ")) {
            let p = p.split('\t').next().unwrap_or(p);
            if let Some(p) = p.strip_prefix("b/").or_else(|| p.strip_prefix("a/")) {
                push(p);
            }
        }
    }
    out
}

/// The files a shell command writes: redirections (`> f`, `>> f`), `tee`, `sed -i` / `perl -pi`
/// targets, `touch`, `rm`, `mv` / `cp` destinations, `git apply` / `apply_patch` patch bodies.
/// A leading `cd DIR &&` makes the relative paths after it relative to DIR.
pub fn shell_writes(command: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    if command.contains("*** Begin Patch") || command.contains("diff --git ") {
        out.extend(patch_files(command));
    }
    // Only the first line of a heredoc'd command is the command.
    let mut dir: Option<String> = None;
    for line in command.lines().take(64) {
        if line.trim_start().starts_with("*** ") {
            continue;
        }
        for part in line.split("&&").flat_map(|p| p.split(';')).flat_map(|p| p.split('|')) {
            let words = words(part);
            let Some(first) = words.first() else { continue };
            let mut add = |w: &str| {
                let w = w.trim_matches(['\'', '"']);
                if w.is_empty()
                    || w.starts_with('-')
                    || w.starts_with('&')
                    || w.starts_with("/dev/")
                {
                    return;
                }
                if w.contains(['*', '?', '$', '`', '(', ')', '{', '}', '<', '>', '|']) {
                    return;
                }
                let p = match &dir {
                    Some(d) if !w.starts_with(['/', '~']) => format!("{d}/{w}"),
                    _ => w.to_string(),
                };
                if !out.contains(&p) {
                    out.push(p);
                }
            };
            // Redirections anywhere in the part.
            for (i, w) in words.iter().enumerate() {
                let target = match *w {
                    ">" | ">>" | "1>" | "2>" | "&>" => words.get(i + 1).copied(),
                    w if w.starts_with(">>") && w.len() > 2 => Some(&w[2..]),
                    w if w.starts_with('>') && w.len() > 1 && !w.starts_with(">&") => Some(&w[1..]),
                    _ => None,
                };
                if let Some(t) = target {
                    add(t);
                }
            }
            let args: Vec<&str> = words[1..]
                .iter()
                .copied()
                .take_while(|w| !w.starts_with('>') && *w != "|" && *w != "<<")
                .collect();
            match *first {
                "cd" => {
                    if let Some(d) = args.first().filter(|d| d.starts_with('/')) {
                        dir = Some(d.trim_end_matches('/').to_string());
                    }
                }
                "tee" | "touch" | "rm" => args.iter().for_each(|a| add(a)),
                "mv" | "cp" => {
                    let files: Vec<&&str> = args.iter().filter(|a| !a.starts_with('-')).collect();
                    if first == &"mv" {
                        files.iter().for_each(|a| add(a));
                    } else if let Some(last) = files.last() {
                        add(last);
                    }
                }
                "sed" | "perl"
                    if args.iter().any(|a| a.starts_with("-i") || a.starts_with("-pi")) =>
                {
                    // The script is the first non-option argument (or follows -e); files follow.
                    let mut rest = args.iter().filter(|a| !a.starts_with('-'));
                    if !args.contains(&"-e") {
                        rest.next();
                    }
                    rest.for_each(|a| add(a));
                }
                _ => {}
            }
        }
    }
    out
}

/// Words of a shell command part, quotes kept on the word (good enough to find file names).
fn words(part: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let b = part.as_bytes();
    let (mut i, mut start, mut quote) = (0, None::<usize>, None::<u8>);
    while i < b.len() {
        let c = b[i];
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == b'\'' || c == b'"' => {
                quote = Some(c);
                start.get_or_insert(i);
            }
            None if c.is_ascii_whitespace() => {
                if let Some(s) = start.take() {
                    out.push(&part[s..i]);
                }
            }
            None => {
                start.get_or_insert(i);
            }
        }
        i += 1;
    }
    if let Some(s) = start {
        out.push(&part[s..]);
    }
    out
}

/// SWE-agent: the file of `create`, `open` and `str_replace_editor <command> <path>`; `edit`
/// acts on the open file (`state.open_file`); `submit` on the files of the submitted patch.
pub fn swe_agent(action: &str, open_file: Option<&str>, submission: Option<&str>) -> Vec<String> {
    let mut w = action.split_whitespace();
    match w.next() {
        Some("create" | "open") => w.next().map(|p| vec![p.trim_matches('"').to_string()]),
        Some("str_replace_editor") => w.nth(1).map(|p| vec![p.to_string()]),
        Some("edit" | "insert" | "append") => open_file.map(|f| vec![f.to_string()]),
        Some("submit") => submission.map(patch_files),
        Some(_) => Some(shell_writes(action)),
        None => None,
    }
    .unwrap_or_default()
    .into_iter()
    .filter(|p| !p.is_empty() && p != "n/a")
    .collect()
}

/// tau2, OTel, LangSmith: `tool:<name>` and the records its arguments name (`reservation_id`
/// → `reservation:<id>`, `user_id` → `user:<id>`), plus file and URL arguments.
pub fn tool_call(name: &str, args: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let name = name.trim();
    if !name.is_empty() && !name.contains(char::is_whitespace) {
        out.push(format!("tool:{name}"));
    }
    if let Some(o) = args.as_object() {
        out.extend(records(o));
        out.extend(file_args(args));
        if let Some(Value::String(u)) = o.get("url") {
            out.push(u.clone());
        }
    }
    out
}

fn records(o: &Map<String, Value>) -> Vec<String> {
    let mut out = Vec::new();
    for (k, v) in o {
        let Some(kind) = k.strip_suffix("_id").filter(|k| !k.is_empty()) else { continue };
        let id = match v {
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            _ => continue,
        };
        if !id.is_empty() && !id.contains(char::is_whitespace) {
            out.push(format!("{kind}:{id}"));
        }
    }
    out
}

/// Who&When, TRAJERRBENCH: `message:<step>` for the message itself, then the file names and
/// URLs its text names.
pub fn message(step: u32, text: &str) -> Vec<String> {
    let mut out = vec![format!("message:{step}")];
    out.extend(named_in(text).into_iter().take(MAX_PER_STEP - 1));
    out
}

/// URLs (`https://...`) and file names with an extension (`data/sales.xlsx`) named in a text.
pub fn named_in(text: &str) -> Vec<String> {
    // The words are the pieces between separators (`text.split(separator)`). A word kept holds
    // a `.` (a file name) or a `:` (`http://`), so only the words around those bytes are cut,
    // found by a SIMD byte search: the rest of a long message is never looked at byte by byte
    // (the byte-wise split of every word was a fifth of the TRAJERRBENCH shape's instructions).
    let starts_ci = |w: &str, prefix: &str| {
        w.as_bytes().get(..prefix.len()).is_some_and(|p| p.eq_ignore_ascii_case(prefix.as_bytes()))
    };
    let mut out: Vec<String> = Vec::new();
    // Every word before `done` has been looked at.
    let mut done = 0;
    for at in memchr::memchr2_iter(b'.', b':', text.as_bytes()) {
        if at < done {
            continue;
        }
        let (start, end) = (word_start(text, at), word_end(text, at));
        done = end;
        let w = text[start..end].trim_end_matches(['.', ':', '!', '?']);
        let keep = if starts_ci(w, "http://") || starts_ci(w, "https://") {
            w.len() > 8
        } else {
            w.contains('.') && is_file_name(w)
        };
        if keep && !out.iter().any(|o| o == w) {
            out.push(w.to_string());
        }
        if out.len() >= MAX_PER_STEP {
            break;
        }
    }
    out
}

/// A byte that separates the words [`named_in`] reads (ASCII whitespace or punctuation that
/// wraps a name); a non-ASCII char separates when it is whitespace.
fn separates(c: u8) -> bool {
    (c as char).is_whitespace()
        || matches!(
            c,
            b'"' | b'\''
                | b'`'
                | b'<'
                | b'>'
                | b'('
                | b')'
                | b'['
                | b']'
                | b'{'
                | b'}'
                | b','
                | b';'
                | b'|'
        )
}

/// Where the word holding byte `at` (not a separator) starts: after the last separator before.
fn word_start(text: &str, at: usize) -> usize {
    let b = text.as_bytes();
    let mut i = at;
    while i > 0 {
        let c = b[i - 1];
        if c < 0x80 {
            if separates(c) {
                return i;
            }
            i -= 1;
        } else {
            let ch = text[..i].chars().next_back().unwrap_or_default();
            if ch.is_whitespace() {
                return i;
            }
            i -= ch.len_utf8();
        }
    }
    0
}

/// Where the word holding byte `at` ends: at the first separator from there (or the text's end).
fn word_end(text: &str, at: usize) -> usize {
    let b = text.as_bytes();
    let mut i = at;
    while let Some(&c) = b.get(i) {
        if c < 0x80 {
            if separates(c) {
                return i;
            }
            i += 1;
        } else {
            let ch = text[i..].chars().next().unwrap_or_default();
            if ch.is_whitespace() {
                return i;
            }
            i += ch.len_utf8();
        }
    }
    i
}

/// A relative file name: path characters only, a last segment with a stem and an extension
/// of 1–5 characters with a letter (`a.py`, `src/App.tsx`), not a number (`3.14`), not a
/// dotted identifier chain (`os.path.join`).
fn is_file_name(w: &str) -> bool {
    let b = w.as_bytes();
    if w.is_empty()
        || w.starts_with(['-', '.', '/'])
        || !b.iter().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'/' | b'.' | b'_' | b'-'))
    {
        return false;
    }
    // ASCII only from here: byte positions are char boundaries.
    let last = &w[b.iter().rposition(|&c| c == b'/').map_or(0, |i| i + 1)..];
    let Some(dot) = last.bytes().rposition(|c| c == b'.') else { return false };
    let (stem, ext) = (&last[..dot], &last[dot + 1..]);
    !stem.is_empty()
        && !stem.contains('.')
        && (1..=5).contains(&ext.len())
        && ext.chars().all(|c| c.is_ascii_alphanumeric())
        && ext.chars().any(|c| c.is_ascii_alphabetic())
        && KNOWN_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str())
}

/// File extensions taken as file names in message text (prose is full of `e.g.` and `U.S.`).
const KNOWN_EXTENSIONS: [&str; 48] = [
    "py", "rs", "js", "ts", "tsx", "jsx", "mjs", "go", "java", "kt", "c", "h", "cpp", "hpp", "cs",
    "rb", "php", "swift", "sh", "md", "txt", "json", "jsonl", "yaml", "yml", "toml", "xml", "html",
    "css", "csv", "tsv", "xlsx", "xls", "docx", "pdf", "pptx", "png", "jpg", "jpeg", "gif", "svg",
    "mp3", "mp4", "wav", "zip", "sql", "ipynb", "cfg",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_tools_by_name_and_as_an_mcp_servers_tool() {
        for shell in ["Bash", "shell", "run_shell_command", "developer__shell", "mcp__box__bash"] {
            assert!(is_shell_tool(shell), "{shell}");
        }
        for other in ["developer__text_editor", "shell_history", "mcp__shell__read", "", "__"] {
            assert!(!is_shell_tool(other), "{other}");
        }
    }

    // The word split and file-name test as they were (a `char` pattern split, `rsplit`), the
    // reference the byte-wise [`named_in`] is checked against.
    /// URLs (`https://...`) and file names with an extension (`data/sales.xlsx`) named in a text.
    fn named_in_reference(text: &str) -> Vec<String> {
        // Per word: no allocation and no search of the separator list (a long message has
        // thousands of words; this ran for a second of the TRAJERRBENCH shape's 52 MB).
        let separator = |c: char| {
            c.is_whitespace()
                || matches!(
                    c,
                    '"' | '\''
                        | '`'
                        | '<'
                        | '>'
                        | '('
                        | ')'
                        | '['
                        | ']'
                        | '{'
                        | '}'
                        | ','
                        | ';'
                        | '|'
                )
        };
        let starts_ci = |w: &str, prefix: &str| {
            w.as_bytes()
                .get(..prefix.len())
                .is_some_and(|p| p.eq_ignore_ascii_case(prefix.as_bytes()))
        };
        let mut out: Vec<String> = Vec::new();
        for raw in text.split(separator) {
            let w = raw.trim_end_matches(['.', ':', '!', '?']);
            let keep = if starts_ci(w, "http://") || starts_ci(w, "https://") {
                w.len() > 8
            } else {
                is_file_name_reference(w)
            };
            if keep && !out.iter().any(|o| o == w) {
                out.push(w.to_string());
            }
            if out.len() >= MAX_PER_STEP {
                break;
            }
        }
        out
    }

    /// A relative file name: path characters only, a last segment with a stem and an extension
    /// of 1–5 characters with a letter (`a.py`, `src/App.tsx`), not a number (`3.14`), not a
    /// dotted identifier chain (`os.path.join`).
    fn is_file_name_reference(w: &str) -> bool {
        if w.is_empty()
            || w.starts_with(['-', '.', '/'])
            || !w.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '_' | '-'))
        {
            return false;
        }
        let last = w.rsplit('/').next().unwrap_or(w);
        let Some((stem, ext)) = last.rsplit_once('.') else { return false };
        !stem.is_empty()
            && !stem.contains('.')
            && (1..=5).contains(&ext.len())
            && ext.chars().all(|c| c.is_ascii_alphanumeric())
            && ext.chars().any(|c| c.is_ascii_alphabetic())
            && KNOWN_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str())
    }

    #[test]
    fn named_in_reads_the_words_the_char_split_read() {
        let pieces = [
            "see",
            "data/sales.xlsx",
            "https://example.com/a?b=1",
            "HTTP://x.y",
            "http://",
            "e.g.",
            "U.S.",
            "3.14",
            "os.path.join",
            "src/App.tsx.",
            "a.py:",
            "(notes.md)",
            "[x.csv]",
            "'q.json'",
            "\"r.toml\"",
            "<s.html>",
            "{t.yml}",
            "u.txt,",
            "v.sql;",
            "w.go|",
            "数据.csv",
            "naïve.py",
            "-x.py",
            ".env",
            "/abs/p.rs",
            "dir/",
            "a..b",
            "x.PY",
            "file.verylong",
            "a.b.c",
            "",
            " ",
            "\t",
            "\n",
            "\u{85}",
            "\u{a0}",
            "\u{2003}",
            "\u{3000}",
            "\u{b}",
            "\u{c}",
            "\r",
            "https://例え.jp/x",
            "é",
            "x.py!",
            "y.rs?",
            "`z.sh`",
            "ok",
            "done.",
            ":",
            "a:b",
            "x::y.py",
            "http:",
            "https:/x.y",
            "\u{2003}https://z.io/",
            "é.py",
            "…",
        ];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..3000 {
            let n = (next() % 40) as usize;
            let text: String =
                (0..n).map(|_| pieces[(next() % pieces.len() as u64) as usize]).collect();
            assert_eq!(named_in(&text), named_in_reference(&text), "{text:?}");
        }
        let many: String = (0..40).map(|i| format!("f{i}.py ")).collect();
        assert_eq!(named_in(&many), named_in_reference(&many));
    }

    #[test]
    fn shell_writes_finds_redirections_and_editing_commands() {
        assert_eq!(shell_writes("echo hi > out.txt && cat a.txt"), ["out.txt"]);
        assert_eq!(shell_writes("sed -i 's/a/b/' src/x.py src/y.py"), ["src/x.py", "src/y.py"]);
        assert_eq!(shell_writes("cd /testbed && sed -i 's/a/b/' x.py"), ["/testbed/x.py"]);
        assert_eq!(shell_writes("rm hello.js"), ["hello.js"]);
        assert_eq!(shell_writes("mv a.py b.py"), ["a.py", "b.py"]);
        assert_eq!(shell_writes("cp -r a.py b.py"), ["b.py"]);
        assert_eq!(shell_writes("ls -la 2>&1 | tee log.txt"), ["log.txt"]);
        assert_eq!(
            shell_writes("cat <<'EOF' > notes.md\nhello > there\nEOF"),
            ["notes.md", "there"]
        );
        assert!(shell_writes("python -m pytest tests/test_a.py -v").is_empty());
        assert!(shell_writes("grep -r x . > /dev/null").is_empty());
    }

    #[test]
    fn patch_files_reads_both_patch_forms() {
        let codex = "*** Begin Patch\n*** Update File: src/a.rs\n@@\n-x\n+y\n*** Add File: b.md\n*** End Patch";
        assert_eq!(patch_files(codex), ["src/a.rs", "b.md"]);
        let git = "diff --git a/x/y.py b/x/y.py\nindex 1..2\n--- a/x/y.py\n+++ b/x/y.py\n";
        assert_eq!(patch_files(git), ["x/y.py"]);
    }

    #[test]
    fn tool_calls_name_the_tool_and_its_records() {
        let args = serde_json::json!({"reservation_id": "EHGLP3", "cabin": "economy"});
        assert_eq!(
            tool_call("cancel_reservation", &args),
            ["tool:cancel_reservation", "reservation:EHGLP3"]
        );
    }

    #[test]
    fn messages_name_files_and_urls_not_prose() {
        let t = "Open data/sales.xlsx, see https://example.org/a.html. E.g. the U.S. uses os.path.join and 3.14.";
        assert_eq!(message(4, t), ["message:4", "data/sales.xlsx", "https://example.org/a.html"]);
    }
}
