//! Plain-text helpers of the session: case-insensitive search, a step's full readable text and
//! elision with a visible marker. Shared by the CLI and the app (the worker answers with them).

use crate::model::Step;

/// Whether `hay` contains `needle`, ignoring ASCII case (a non-ASCII needle matches exactly).
pub fn contains_ci(hay: &str, needle: &str) -> bool {
    if needle.is_empty() || needle.len() > hay.len() {
        return false;
    }
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    if !needle.is_ascii() {
        return memchr::memmem::find(h, n).is_some();
    }
    let first = n[0].to_ascii_lowercase();
    let upper = n[0].to_ascii_uppercase();
    let mut i = 0;
    while i + n.len() <= h.len() {
        let b = h[i];
        if (b == first || b == upper) && h[i..i + n.len()].eq_ignore_ascii_case(n) {
            return true;
        }
        i += 1;
    }
    false
}

/// Everything searchable in a step: actor, tool, arguments, status and text.
pub fn step_matches(step: &Step, query: &str) -> bool {
    contains_ci(&step.text, query)
        || contains_ci(&step.actor, query)
        || step.tool.as_deref().is_some_and(|t| contains_ci(t, query))
        || step.args.as_deref().is_some_and(|a| contains_ci(a, query))
        || step.status.as_deref().is_some_and(|s| contains_ci(s, query))
}

/// The full readable text of a step: a header line for a tool call (tool, arguments, exit
/// code, status) followed by the step's text.
pub fn full_text(step: &Step) -> String {
    let mut head = Vec::new();
    if let Some(tool) = &step.tool {
        head.push(format!("[{tool}]"));
    }
    if let Some(args) = &step.args {
        head.push(format!("$ {args}"));
    }
    if let Some(code) = step.exit_code {
        head.push(format!("exit {code}"));
    }
    if let Some(status) = &step.status {
        head.push(format!("status: {status}"));
    }
    if head.is_empty() {
        return step.text.clone();
    }
    let mut out = head.join("  ");
    if !step.text.is_empty() {
        out.push('\n');
        out.push_str(&step.text);
    }
    out
}

/// `text` cut to at most `limit` characters, keeping its start and its end, with a visible
/// marker saying how much was left out.
pub fn elide(text: &str, limit: usize) -> String {
    let total = text.chars().count();
    if total <= limit {
        return text.to_string();
    }
    let marker = |n: usize| format!("\n… [{n} characters elided] …\n");
    // Reserve room for the marker (its length depends on the number it shows).
    let room = limit.saturating_sub(marker(total).chars().count());
    let head = room * 2 / 3;
    let tail = room - head;
    let elided = total - head - tail;
    let mut out: String = text.chars().take(head).collect();
    out.push_str(&marker(elided));
    out.extend(text.chars().skip(total - tail));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contains_ci_ignores_ascii_case_only() {
        assert!(contains_ci("Hello World", "WORLD"));
        assert!(contains_ci("xxAbCxx", "abc"));
        assert!(contains_ci("é", "é"));
        assert!(!contains_ci("abc", "d"));
        assert!(!contains_ci("abc", ""));
    }

    #[test]
    fn elide_respects_the_limit_and_keeps_both_ends() {
        let text: String = (0..5000).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
        for limit in [3000, 1200, 600, 50] {
            let out = elide(&text, limit);
            assert!(out.chars().count() <= limit, "{limit}: {}", out.chars().count());
            assert!(out.contains("characters elided"));
            assert!(text.starts_with(&out[..10]));
            assert!(text.ends_with(&out[out.len() - 5..]));
        }
        assert_eq!(elide("short", 600), "short");
    }

    #[test]
    fn full_text_puts_the_command_and_exit_code_first() {
        let step = Step {
            tool: Some("shell".into()),
            args: Some("npm test".into()),
            exit_code: Some(1),
            text: "FAIL".into(),
            ..Step::default()
        };
        assert_eq!(full_text(&step), "[shell]  $ npm test  exit 1\nFAIL");
        assert!(step_matches(&step, "NPM"));
        assert!(!step_matches(&step, "pass"));
    }
}
