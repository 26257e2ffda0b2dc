//! Multi-grain views of a step (docs/detector.md): high / medium / low detail, deterministic.
//!
//! A view is plain text: a header line (who acted, role and kind, tool, exit code, error flag,
//! status, identifiers, source line), then the command and the step's text. When it does not fit
//! its bound, lines are kept by importance — quotes to protect, error lines, success claims, the
//! command, the first and last lines — and every elided run is marked visibly
//! (`… [2,314 chars elided] …`).
//!
//! Invariant: a view never exceeds its bound, counted in `char`s (not bytes).
//! Invariant: protected quotes that are single lines of at most [`MAX_PROTECTED_QUOTE`] chars
//! appear intact in the high view, for up to [`GUARANTEED_QUOTES`] quotes per step (more are kept
//! while they fit).

use crate::model::{Step, Trajectory};

/// A bidirectional formatting character: an embedding or override (U+202A–U+202E), an isolate
/// (U+2066–U+2069) or a mark (U+200E, U+200F, U+061C). Shown as it is, it reorders the text
/// around it (a disguised file name, "Trojan Source"), so the shells escape it (the CLI) or flag
/// the step that holds one (the app).
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{61c}')
}

/// The Unicode name of a bidirectional control ([`is_bidi_control`]), for a shell that shows one
/// as a visible mark instead of letting it act.
pub fn bidi_control_name(c: char) -> Option<&'static str> {
    Some(match c {
        '\u{202a}' => "LEFT-TO-RIGHT EMBEDDING",
        '\u{202b}' => "RIGHT-TO-LEFT EMBEDDING",
        '\u{202c}' => "POP DIRECTIONAL FORMATTING",
        '\u{202d}' => "LEFT-TO-RIGHT OVERRIDE",
        '\u{202e}' => "RIGHT-TO-LEFT OVERRIDE",
        '\u{2066}' => "LEFT-TO-RIGHT ISOLATE",
        '\u{2067}' => "RIGHT-TO-LEFT ISOLATE",
        '\u{2068}' => "FIRST STRONG ISOLATE",
        '\u{2069}' => "POP DIRECTIONAL ISOLATE",
        '\u{200e}' => "LEFT-TO-RIGHT MARK",
        '\u{200f}' => "RIGHT-TO-LEFT MARK",
        '\u{61c}' => "ARABIC LETTER MARK",
        _ => return None,
    })
}

/// The level of detail of a view.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Grain {
    High,
    #[default]
    Medium,
    Low,
}

impl Grain {
    pub const ALL: [Grain; 3] = [Grain::High, Grain::Medium, Grain::Low];

    pub fn name(self) -> &'static str {
        match self {
            Grain::High => "high",
            Grain::Medium => "medium",
            Grain::Low => "low",
        }
    }

    /// The most characters a view at this grain has with the default [`ViewOptions`].
    pub fn limit(self) -> usize {
        ViewOptions::default().bound(self)
    }

    pub fn from_name(name: &str) -> Option<Grain> {
        match name.to_ascii_lowercase().as_str() {
            "high" => Some(Grain::High),
            "medium" => Some(Grain::Medium),
            "low" => Some(Grain::Low),
            _ => None,
        }
    }
}

/// View bounds in characters (th1 / th2 / th3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ViewOptions {
    pub high: usize,
    pub medium: usize,
    pub low: usize,
    /// History: steps within this distance of `t` are rendered high.
    pub history_high_radius: usize,
    /// History: steps within this distance of `t` (and farther than the high radius) medium.
    pub history_medium_radius: usize,
}

impl Default for ViewOptions {
    fn default() -> Self {
        ViewOptions {
            high: 3000,
            medium: 1200,
            low: 600,
            history_high_radius: 1,
            history_medium_radius: 4,
        }
    }
}

impl ViewOptions {
    pub fn bound(&self, grain: Grain) -> usize {
        match grain {
            Grain::High => self.high,
            Grain::Medium => self.medium,
            Grain::Low => self.low,
        }
    }
}

/// Longest quote [`step_view_with_quotes`] guarantees to keep intact (triggers quote less).
pub const MAX_PROTECTED_QUOTE: usize = 240;
const MAX_PROTECTED_QUOTES: usize = 8;
/// How many protected quotes the default high bound (3000) is guaranteed to keep.
pub const GUARANTEED_QUOTES: usize = 4;
/// The most a marker line can take: `… [18,446,744,073,709,551,615 chars elided] …`.
const MARKER_MAX: usize = 48;

/// The view of a step at a grain.
pub fn step_view(step: &Step, grain: Grain, opts: &ViewOptions) -> String {
    step_view_with_quotes(step, grain, opts, &[])
}

/// The view of a step, keeping the given quotes (exact substrings of the step's text or args)
/// intact when they fit the bound.
/// Characters of a step's parts (its arguments and text, [`StepParts::chars`]) at no bound:
/// what its parts at a grain are cut from (so parts shorter than this were elided, and parts
/// as long are whole).
pub fn step_parts_full_chars(step: &Step) -> usize {
    let whole = ViewOptions { high: usize::MAX, ..ViewOptions::default() };
    step_parts_with_quotes(step, Grain::High, &whole, &[]).chars()
}

pub fn step_view_with_quotes(
    step: &Step,
    grain: Grain,
    opts: &ViewOptions,
    quotes: &[&str],
) -> String {
    let bound = opts.bound(grain);
    let header = header(step);
    let mut lines: Vec<&str> = Vec::new();
    let mut args_lines: Vec<&str> = Vec::new();
    if let Some(a) = step.args.as_deref() {
        if !a.is_empty() && !step.text.contains(a) {
            args_lines.extend(a.lines());
        }
    }
    lines.extend(args_lines.iter().copied());
    let n_args = lines.len();
    lines.extend(step.text.lines());
    let quotes: Vec<&str> = quotes
        .iter()
        .copied()
        .filter(|q| !q.is_empty() && !q.contains('\n') && q.chars().count() <= MAX_PROTECTED_QUOTE)
        .take(MAX_PROTECTED_QUOTES)
        .collect();
    render(&header, &lines, n_args, &quotes, bound)
}

/// A step in parts, for a transcript: the tool call's arguments and the step's text apart,
/// each bounded, and the identifiers as one quiet details line. Together `args` and `text`
/// never exceed the grain's bound (in `char`s), and protected quotes are kept as in
/// [`step_view_with_quotes`].
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StepParts {
    /// The tool (or function) called, when the step names one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The arguments: JSON pretty-printed (keys sorted) when they parse as an object or an
    /// array, else the command as written; elided like a view when long.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<String>,
    /// The step's text without the arguments it repeats; elided like a view when long.
    pub text: String,
    /// The files, URLs or labels the step acted on, as written.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refs: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// Identifiers (`action toolu_01…`, `turn msg_…`, `event …`, …), `·`-separated.
    pub details: String,
}

/// `text` without its first occurrence of `part` that starts and ends on line boundaries (and
/// the line end after it), trimmed; `None` when there is none.
fn without_lines(text: &str, part: &str) -> Option<String> {
    let mut from = 0;
    while let Some(i) = text[from..].find(part).map(|i| i + from) {
        let end = i + part.len();
        let starts = i == 0 || text[..i].ends_with('\n');
        let ends = end == text.len() || text[end..].starts_with(['\n', '\r']);
        if starts && ends {
            // With the line end after it: no blank line left in its place.
            let rest = &text[end..];
            let rest =
                rest.strip_prefix("\r\n").or_else(|| rest.strip_prefix('\n')).unwrap_or(rest);
            return Some(format!("{}{rest}", &text[..i]).trim().to_string());
        }
        from = i + text[i..].chars().next().map_or(1, char::len_utf8);
    }
    None
}

/// The parts of a step at a grain, keeping the given quotes intact when they fit.
impl StepParts {
    /// Characters of what a transcript shows of the step: its arguments and its text.
    pub fn chars(&self) -> usize {
        self.args.as_deref().map_or(0, chars) + chars(&self.text)
    }
}

pub fn step_parts_with_quotes(
    step: &Step,
    grain: Grain,
    opts: &ViewOptions,
    quotes: &[&str],
) -> StepParts {
    let bound = opts.bound(grain);
    let quotes: Vec<&str> = quotes
        .iter()
        .copied()
        .filter(|q| !q.is_empty() && !q.contains('\n') && q.chars().count() <= MAX_PROTECTED_QUOTE)
        .take(MAX_PROTECTED_QUOTES)
        .collect();
    let raw_args = step.args.as_deref().filter(|a| !a.trim().is_empty());
    // The text without the arguments it repeats (a Claude Code tool call's text is its input):
    // only where they stand on lines of their own, never from inside a line (`shell({"cmd":
    // "npm test"})` keeps its command: without it the call would read as an empty one).
    let text: String = match raw_args {
        Some(a) => without_lines(&step.text, a).unwrap_or_else(|| step.text.clone()),
        None => step.text.clone(),
    };
    let args: Option<String> = raw_args.map(|a| pretty_args(a, &quotes));
    let args_len = args.as_deref().map_or(0, chars);
    let text_len = chars(&text);
    // Both whole when they fit; else the arguments take what the text leaves, at least a third.
    let (args_bound, text_bound) = if args_len + text_len < bound {
        (args_len, text_len)
    } else if args.is_none() {
        (0, bound)
    } else if text_len == 0 {
        (bound, 0)
    } else {
        let reserve = text_len.min(bound * 2 / 3);
        let a = args_len.min(bound.saturating_sub(reserve + 1).max(bound / 3));
        (a, bound.saturating_sub(a + 1))
    };
    let part = |s: &str, b: usize, is_args: bool| -> String {
        let lines: Vec<&str> = s.lines().collect();
        let n_args = if is_args { lines.len() } else { 0 };
        // With an empty header every kept line starts with a newline: the first one is dropped.
        let out = render("", &lines, n_args, &quotes, b + 1);
        let out = out.strip_prefix('\n').map(str::to_string).unwrap_or(out);
        if chars(&out) > b {
            fit_middle(&out, b)
        } else {
            out
        }
    };
    let args = args.map(|a| part(&a, args_bound, true));
    let text = if text.is_empty() { text } else { part(&text, text_bound, false) };
    StepParts {
        tool: step.tool.as_deref().map(str::to_owned),
        args,
        text,
        refs: step.artifact_refs.iter().map(|r| r.raw.clone()).collect(),
        exit_code: step.exit_code,
        status: step.status.as_deref().map(str::to_owned),
        details: details(step),
    }
}

/// Arguments as a reviewer reads them: an object or array pretty-printed, unless that would
/// lose a quote the analysis points at (then as written).
fn pretty_args(args: &str, quotes: &[&str]) -> String {
    let t = args.trim_start();
    if !(t.starts_with('{') || t.starts_with('[')) {
        return args.to_string();
    }
    match crate::json::from_str::<serde_json::Value>(args) {
        Ok(v) => match serde_json::to_string_pretty(&v) {
            Ok(p) if quotes.iter().all(|q| !args.contains(q) || p.contains(q)) => p,
            _ => args.to_string(),
        },
        Err(_) => args.to_string(),
    }
}

/// The identifiers of a step as one line: `action toolu_… · turn msg_… · event … · line 3`.
fn details(step: &Step) -> String {
    let ids = &step.ids;
    let mut parts: Vec<String> = [
        ("run", &ids.run_id),
        ("attempt", &ids.attempt_id),
        ("turn", &ids.turn_id),
        ("span", &ids.span_id),
        ("action", &ids.action_id),
        ("answers", &ids.source_action_id),
        ("event", &ids.event_id),
        ("parent", &ids.parent_id),
    ]
    .into_iter()
    .filter_map(|(k, v)| v.as_ref().map(|v| format!("{k} {}", fit_middle(v, 60))))
    .collect();
    if !step.memory_node_ids.is_empty() {
        parts.push(format!("memory {}", fit_middle(&step.memory_node_ids.join(","), 80)));
    }
    if !step.loc.path.is_empty() {
        parts.push(fit_middle(&step.loc.path, 80));
    }
    if step.loc.line > 0 {
        parts.push(format!("line {}", step.loc.line));
    }
    if let Some(t) = &step.timestamp {
        parts.push(fit_middle(t, 40));
    }
    parts.join(" · ")
}

/// A step's header line: index, actor, role/kind, tool, exit code, error flag, status, ids.
fn header(step: &Step) -> String {
    use std::fmt::Write as _;
    let mut h = format!("#{}", step.index);
    if !step.actor.is_empty() {
        let _ = write!(h, " {}", step.actor);
    }
    let _ = write!(h, " [{}/{}]", enum_name(&step.role), enum_name(&step.kind));
    if let Some(t) = &step.tool {
        let _ = write!(h, " tool={t}");
    }
    if let Some(c) = step.exit_code {
        let _ = write!(h, " exit={c}");
    }
    if step.is_error {
        h.push_str(" ERROR");
    }
    if let Some(s) = &step.status {
        let _ = write!(h, " status={s}");
    }
    let ids = &step.ids;
    for (k, v) in [
        ("action_id", &ids.action_id),
        ("source_action_id", &ids.source_action_id),
        ("event_id", &ids.event_id),
        ("turn", &ids.turn_id),
        ("span", &ids.span_id),
    ] {
        if let Some(v) = v {
            let _ = write!(h, " {k}={v}");
        }
    }
    if !step.artifact_refs.is_empty() {
        let refs: Vec<&str> = step.artifact_refs.iter().map(|r| r.raw.as_str()).collect();
        let _ = write!(h, " refs={}", refs.join(","));
    }
    if !step.memory_node_ids.is_empty() {
        let _ = write!(h, " memory={}", step.memory_node_ids.join(","));
    }
    if step.loc.line > 0 {
        let _ = write!(h, " (line {})", step.loc.line);
    }
    h
}

fn enum_name<T: serde::Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        _ => String::from("?"),
    }
}

/// The visible elision marker for `n` characters.
pub fn marker(n: usize) -> String {
    format!("… [{} chars elided] …", group_thousands(n))
}

fn group_thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn chars(s: &str) -> usize {
    s.chars().count()
}

/// Byte index of the `n`th char of `s` (or `s.len()`).
fn char_idx(s: &str, n: usize) -> usize {
    s.char_indices().nth(n).map_or(s.len(), |(i, _)| i)
}

/// `s` cut to at most `max` chars, keeping head and tail around a marker.
fn fit_middle(s: &str, max: usize) -> String {
    let n = chars(s);
    if n <= max {
        return s.to_string();
    }
    let m = marker(n);
    let m_len = chars(&m);
    if max <= m_len + 2 {
        // Not even room for a marker with context: a bare cut with an ellipsis.
        if max == 0 {
            return String::new();
        }
        let mut out: String = s.chars().take(max - 1).collect();
        out.push('…');
        return out;
    }
    // marker(k) for k <= n is never longer than marker(n): the bound holds.
    let keep = max - m_len - 2;
    let head = keep - keep / 3;
    let tail = keep / 3;
    let elided = n - head - tail;
    let tail_start = char_idx(s, n - tail);
    format!("{} {} {}", &s[..char_idx(s, head)], marker(elided), &s[tail_start..])
}

/// A line cut to at most `max` chars keeping a window around each quote in it; the gaps are
/// marked. `max` must allow the quotes plus one marker per gap (the caller sizes it so).
fn fit_around(line: &str, quotes: &[&str], max: usize) -> String {
    let n = chars(line);
    if n <= max {
        return line.to_string();
    }
    let mut spans: Vec<(usize, usize)> = quotes
        .iter()
        .filter_map(|q| line.find(q).map(|b| (chars(&line[..b]), chars(&line[..b]) + chars(q))))
        .collect();
    crate::sort::sort(&mut spans);
    let mut merged: Vec<(usize, usize)> = Vec::new();
    for (a, b) in spans {
        match merged.last_mut() {
            Some(m) if a <= m.1 + MARKER_MAX + 2 => m.1 = m.1.max(b),
            _ => merged.push((a, b)),
        }
    }
    if merged.is_empty() {
        return fit_middle(line, max);
    }
    let core: usize = merged.iter().map(|(a, b)| b - a).sum();
    let overhead = (merged.len() + 1) * (MARKER_MAX + 2);
    let ctx = max.saturating_sub(core + overhead) / (2 * merged.len());
    let mut out = String::new();
    let mut pos = 0;
    for (a, b) in merged {
        let start = a.saturating_sub(ctx).max(pos);
        let end = (b + ctx).min(n);
        if start > pos {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(&marker(start - pos));
            out.push(' ');
        }
        out.push_str(&line[char_idx(line, start)..char_idx(line, end)]);
        pos = end;
    }
    if pos < n {
        out.push(' ');
        out.push_str(&marker(n - pos));
    }
    out
}

/// Importance of a line (lower is kept first).
fn priority(line: &str, is_args: bool, has_quote: bool) -> u8 {
    if has_quote {
        0
    } else if crate::attribution::text::is_error_line(line) {
        1
    } else if is_args || crate::attribution::text::is_success_claim(line) {
        2
    } else {
        3
    }
}

fn render(header: &str, lines: &[&str], n_args: usize, quotes: &[&str], bound: usize) -> String {
    let full_len = chars(header) + lines.iter().map(|l| chars(l) + 1).sum::<usize>();
    if full_len <= bound {
        let mut out = header.to_string();
        for l in lines {
            out.push('\n');
            out.push_str(l);
        }
        return out;
    }
    let header = fit_middle(header, (bound / 3).max(bound.min(40)));
    let mut budget = bound.saturating_sub(chars(&header));
    // Each kept line may be followed by a marker line: reserve for it, plus one leading marker.
    budget = budget.saturating_sub(MARKER_MAX + 1);
    // A line may take a quarter of the bound, or its share of the budget when the lines are
    // few: a step of one long line (a message written on one line, a long command output)
    // uses its grain's room instead of a quarter of it.
    // (A kept line costs its text, its newline and a marker line's reserve.)
    let share = (budget / lines.len().max(1)).saturating_sub(MARKER_MAX + 2);
    let cap_line = (bound / 4).max(80).max(share);
    let mut kept: Vec<Option<String>> = vec![None; lines.len()];
    // Each quote is protected on the first line that holds it.
    let mut assigned: Vec<Vec<&str>> = vec![Vec::new(); lines.len()];
    for q in quotes {
        if let Some(i) = lines.iter().position(|l| l.contains(q)) {
            assigned[i].push(q);
        }
    }
    let mut prio: Vec<u8> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let mut p = priority(l, i < n_args, !assigned[i].is_empty());
            if p == 3 && (i == n_args || i + 1 == lines.len()) {
                p = 2; // the first and last lines of the text say what the step is about
            }
            p
        })
        .collect();
    // The lines around an error or a quote are its context: kept before the rest.
    for i in 0..prio.len() {
        if prio[i] <= 1 {
            for j in [i.wrapping_sub(1), i + 1] {
                if j < prio.len() && prio[j] == 3 {
                    prio[j] = 2;
                }
            }
        }
    }
    let mut order: Vec<(u8, usize)> = prio.iter().enumerate().map(|(i, &p)| (p, i)).collect();
    crate::sort::sort(&mut order);
    for (p, i) in order {
        let line = lines[i];
        let rendered = if p == 0 {
            let here = &assigned[i];
            let span: usize = here.iter().map(|q| chars(q)).sum();
            let cap = (span + (here.len() + 1) * (MARKER_MAX + 2) + 80).max(cap_line);
            fit_around(line, here, cap)
        } else {
            fit_middle(line, cap_line)
        };
        let cost = chars(&rendered) + 1 + MARKER_MAX + 1;
        if cost <= budget {
            budget -= cost;
            kept[i] = Some(rendered);
        } else if p >= 2 {
            break;
        }
    }
    let mut out = header;
    let mut gap = 0usize;
    for (i, k) in kept.into_iter().enumerate() {
        match k {
            Some(text) => {
                if gap > 0 {
                    out.push('\n');
                    out.push_str(&marker(gap));
                    gap = 0;
                }
                out.push('\n');
                out.push_str(&text);
            }
            None => gap += chars(lines[i]) + 1,
        }
    }
    if gap > 0 {
        out.push('\n');
        out.push_str(&marker(gap));
    }
    if chars(&out) > bound {
        // Defensive: the accounting above reserves enough, but the bound is an invariant.
        return fit_middle(&out, bound);
    }
    out
}

/// The history of a trajectory around step `t`: near steps high, farther ones medium, the rest
/// low. Steps are separated by a blank line.
pub fn history(traj: &Trajectory, t: usize, opts: &ViewOptions) -> String {
    history_with_quotes(traj, t, opts, |_| Vec::new())
}

/// [`history`], keeping the quotes `quotes_for(step)` returns in each step's view (e.g.
/// `|s| attribution::quotes_on(&analysis.triggers, s)`).
pub fn history_with_quotes<'q>(
    traj: &Trajectory,
    t: usize,
    opts: &ViewOptions,
    quotes_for: impl Fn(u32) -> Vec<&'q str>,
) -> String {
    let mut out = String::new();
    for (i, s) in traj.steps.iter().enumerate() {
        let d = i.abs_diff(t);
        let grain = if d <= opts.history_high_radius {
            Grain::High
        } else if d <= opts.history_medium_radius {
            Grain::Medium
        } else {
            Grain::Low
        };
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        out.push_str(&step_view_with_quotes(s, grain, opts, &quotes_for(s.index)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bidi_control_has_a_name_and_nothing_else_does() {
        for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
            assert_eq!(bidi_control_name(c).is_some(), is_bidi_control(c), "U+{:04X}", c as u32);
        }
        assert_eq!(bidi_control_name('\u{202e}'), Some("RIGHT-TO-LEFT OVERRIDE"));
    }

    fn tool_step(args: &str, text: &str) -> Step {
        serde_json::from_value(serde_json::json!({
            "index": 1, "loc": {"line": 3, "offset": 0}, "role": "assistant", "kind": "action",
            "text": text, "tool": "Write", "args": args, "ingest_seq": 1,
            "ids": {"action_id": "toolu_1", "turn_id": "msg_1"},
        }))
        .unwrap()
    }

    #[test]
    fn parts_pretty_print_json_args_and_drop_the_text_that_repeats_them() {
        let args = r#"{"file_path":"/tmp/x/hello.sh","content":"echo hi"}"#;
        let p = step_parts_with_quotes(
            &tool_step(args, args),
            Grain::High,
            &ViewOptions::default(),
            &[],
        );
        assert_eq!(p.tool.as_deref(), Some("Write"));
        let a = p.args.unwrap();
        assert!(a.contains("\n  \"file_path\": \"/tmp/x/hello.sh\""), "{a}");
        assert_eq!(p.text, "");
        assert_eq!(p.details, "turn msg_1 · action toolu_1 · line 3");
    }

    #[test]
    fn parts_stay_within_the_bound_and_keep_quotes() {
        let args = format!(r#"{{"command":"{}"}}"#, "a".repeat(5000));
        let text: String = (0..300).map(|i| format!("line {i} of output\n")).collect::<String>()
            + "Error: QUOTE-HERE failed\n";
        let step = tool_step(&args, &text);
        for g in Grain::ALL {
            let p =
                step_parts_with_quotes(&step, g, &ViewOptions::default(), &["QUOTE-HERE failed"]);
            let n = chars(p.args.as_deref().unwrap_or("")) + chars(&p.text);
            assert!(n <= g.limit(), "{g:?}: {n}");
            assert!(p.text.contains("QUOTE-HERE failed"), "{g:?}");
            assert!(p.text.contains("elided"), "{g:?}");
        }
    }

    #[test]
    fn a_command_that_is_not_json_stays_as_written() {
        let p = step_parts_with_quotes(
            &tool_step("ls -la {x}", "list it\nls -la {x}"),
            Grain::Low,
            &ViewOptions::default(),
            &[],
        );
        assert_eq!(p.args.as_deref(), Some("ls -la {x}"));
        assert_eq!(p.text, "list it");
    }

    #[test]
    fn a_command_inside_a_line_of_the_text_is_not_cut_out_of_it() {
        // A shell call without text: its text is the call (`calls_text`), its args the command.
        let p = step_parts_with_quotes(
            &tool_step("npm test", r#"shell({"cmd":"npm test"})"#),
            Grain::Medium,
            &ViewOptions::default(),
            &[],
        );
        assert_eq!(p.args.as_deref(), Some("npm test"));
        assert_eq!(p.text, r#"shell({"cmd":"npm test"})"#);
        // On a line of its own (here after a word that holds it too), it is.
        let p = step_parts_with_quotes(
            &tool_step("make", "remake it\nmake\r\ndone\nmake"),
            Grain::Medium,
            &ViewOptions::default(),
            &[],
        );
        assert_eq!(p.text, "remake it\ndone\nmake");
    }

    #[test]
    fn marker_groups_thousands() {
        assert_eq!(marker(2314), "… [2,314 chars elided] …");
        assert_eq!(marker(12), "… [12 chars elided] …");
        assert_eq!(marker(1_000_000), "… [1,000,000 chars elided] …");
        assert!(chars(&marker(usize::MAX)) <= MARKER_MAX);
    }

    #[test]
    fn fit_middle_respects_the_bound() {
        let s = "é".repeat(500);
        for max in [0, 1, 5, 30, 60, 100, 499, 500] {
            assert!(chars(&fit_middle(&s, max)) <= max, "max {max}");
        }
    }
}
