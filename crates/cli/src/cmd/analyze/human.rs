//! The human output of `analyze`: what was read, then for each failed trajectory its diagnosis
//! the way rustc prints one — the critical step and its source line, the agent, the class and
//! the failure mode, the evidence quoted in context with the quoted text marked, the top
//! candidates with their rules and the reasons they were ranked (`why`), and the first line of the brief. Every piece of trace content
//! goes through [`escape`] / [`escape_line`]; colour comes only from [`Paint`].

use std::io::Write;

use trajscope_core::attribution::{Candidate, Evidence};
use trajscope_core::brief;
use trajscope_core::cases::TraceCase;
use trajscope_core::model::{Outcome, Step, Trajectory};
use trajscope_core::report::Overview;
use trajscope_core::session::Cases;
use trajscope_core::Session;

use crate::term::{clip, escape, escape_line, name, Paint};

/// How many candidates the diagnosis lists.
const TOP_CANDIDATES: usize = 3;
/// How many quarantined lines are listed before "... and N more".
const QUARANTINE_LISTED: usize = 10;
/// Context kept around a quote on its line, and the most of a quote shown.
const BEFORE: usize = 40;
const AFTER: usize = 30;
const QUOTE: usize = 100;
/// What a run whose file does not say how it ended is told.
const UNKNOWN: &str =
    "the file does not say how this run ended: say how with --outcome failed|passed";
/// The most of the root-cause summary shown.
const CAUSE: usize = 240;
/// The characters of the brief's first line shown (the longest of the fixtures' is about 600).
const BRIEF: usize = 1000;

/// Writes the whole human report of one file.
pub fn write(out: &mut impl Write, file: &str, s: &mut Session, p: Paint) -> std::io::Result<()> {
    let file = escape_line(file).into_owned();
    let trace = s.trace();
    let st = &trace.stats;
    writeln!(out, "{}: format {}, {} bytes", p.bold(&file), trace.format, st.bytes)?;
    writeln!(
        out,
        "lines: {} total, {} parsed, {} blank, {} quarantined",
        st.lines_total, st.lines_parsed, st.lines_blank, st.lines_quarantined
    )?;
    if let Some(e) = &trace.error {
        writeln!(out, "{}: {}", p.error("error"), escape_line(e))?;
    }
    for q in trace.quarantine.iter().take(QUARANTINE_LISTED) {
        let tail = if q.truncated_tail { " (truncated last line)" } else { "" };
        writeln!(
            out,
            "  quarantined line {} @ byte {}: {}{tail}",
            q.line,
            q.offset,
            escape_line(&q.reason)
        )?;
    }
    if trace.quarantine.len() > QUARANTINE_LISTED {
        writeln!(
            out,
            "  ... and {} more (trajscope quarantine FILE -o OUT.jsonl)",
            trace.quarantine.len() - QUARANTINE_LISTED
        )?;
    }
    // One trajectory at a time: its overview, and its case (by position, as
    // `Session::cases` builds them: ids are not unique in every source) only when shown. A list
    // of every case searched by id for each trajectory was quadratic in the trajectories
    // (100,000 two-line runs took 22 s), and every overview held at once was ~7 KB each.
    s.analyse_all();
    let s = &*s;
    for i in 0..s.len() {
        let (Some(t), Some(o)) = (s.trajectory(i), s.overview(i)) else { continue };
        let o = &o;
        writeln!(
            out,
            "trajectory {}: {} step{}, outcome {:?}",
            name(&o.id),
            o.steps,
            if o.steps == 1 { "" } else { "s" },
            o.outcome
        )?;
        if o.critical.is_some() {
            diagnosis(out, &file, t, o, s.case(i), p)?;
        } else if o.outcome == Outcome::Unknown {
            // As the app: no verdict, the likely critical steps if it failed.
            writeln!(out, "  {} {UNKNOWN}", p.note("="))?;
            if o.candidates.is_empty() {
                writeln!(out, "  {} no step looks like a critical error", p.note("="))?;
            }
            for (n, cand) in o.candidates.iter().take(TOP_CANDIDATES).enumerate() {
                let head =
                    if n == 0 { "if this run failed, the likely critical steps:" } else { "" };
                let head = format!("{head:<46}");
                writeln!(out, "  {} {head} {}", p.note("="), candidate(cand))?;
            }
        } else if o.outcome == Outcome::Failed {
            // A failed run with no candidate step: said, not left blank.
            writeln!(out, "  {} failed, but no step looks like a critical error", p.note("="))?;
        }
    }
    Ok(())
}

fn name_of<T: serde::Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        _ => String::from("?"),
    }
}

fn diagnosis(
    out: &mut impl Write,
    file: &str,
    t: &Trajectory,
    o: &Overview,
    case: Option<TraceCase>,
    p: Paint,
) -> std::io::Result<()> {
    let Some(c) = &o.critical else { return Ok(()) };
    let class = o.classification.as_ref().map_or("unclassified".into(), name_of);
    let mode = o.failure_mode.as_ref().map_or("unknown".into(), name_of);
    let agent = if c.agent.is_empty() { "(no agent)".into() } else { name(&c.agent) };
    // A run whose file does not say how it ended is not called failed (as the app says it):
    // the step is where it failed if it did.
    let unknown = o.outcome == Outcome::Unknown;
    if unknown {
        writeln!(
            out,
            "{} it failed at step {} by {}",
            p.note("if this run failed,"),
            c.step,
            p.bold(&agent)
        )?;
    } else {
        writeln!(
            out,
            "{}: critical step {} by {}",
            p.error(&format!("failed[{class}]")),
            c.step,
            p.bold(&agent)
        )?;
    }
    let gutter = gutter_width(t, &c.evidence);
    let pad = " ".repeat(gutter);
    let path = t.steps.get(c.step as usize).map_or("", |s| &*s.loc.path);
    let at = match (c.line, path) {
        (0, "") => format!("{file} (step {})", c.step),
        (0, path) => format!("{file} ({}, step {})", escape_line(path), c.step),
        (line, _) => format!("{file}:{line}"),
    };
    writeln!(out, "{pad}{} {at}", p.note("-->"))?;
    if unknown {
        writeln!(out, "{pad} {} {UNKNOWN}", p.note("="))?;
    }
    writeln!(out, "{pad} {} class: {class}, failure mode: {mode}", p.note("="))?;
    let summary = o.record.root_cause_summary.trim();
    if !summary.is_empty() {
        writeln!(out, "{pad} {} cause: {}", p.note("="), clip(&escape_line(summary), CAUSE))?;
    }
    // The same quote backed by several rules is shown once, naming them all.
    let mut shown: Vec<(&Evidence, Vec<&str>)> = Vec::new();
    for e in &c.evidence {
        match shown
            .iter_mut()
            .find(|(s, _)| (s.step, &s.kind, &s.quote) == (e.step, &e.kind, &e.quote))
        {
            Some((_, rules)) if !rules.contains(&e.rule.as_str()) => rules.push(e.rule.as_str()),
            Some(_) => {}
            None => shown.push((e, vec![e.rule.as_str()])),
        }
    }
    for (e, rules) in &shown {
        evidence(out, t, e, &rules.join(", "), gutter, p)?;
    }
    writeln!(out, "{pad} {}", p.note("|"))?;
    for (n, cand) in o.candidates.iter().take(TOP_CANDIDATES).enumerate() {
        let head = if n == 0 { "candidates:" } else { "           " };
        writeln!(out, "{pad} {} {head} {}", p.note("="), candidate(cand))?;
        // Why it was ranked there: the scoring model's features, in words (its rules are on
        // the line above already).
        for reason in cand.why.iter().filter(|r| !r.starts_with("rule: ")) {
            writeln!(out, "{pad} {}               - {}", p.note("="), escape_line(reason))?;
        }
    }
    match case {
        Some(case) if case.valid => {
            let b = Cases { built: vec![case] }.brief();
            if let Some(first) = brief::to_markdown(&b).lines().find(|l| l.starts_with("- ")) {
                let first = first.trim_start_matches("- ");
                // Names in it (a tool's, an agent's) are as long as the file made them;
                // `trajscope brief` prints it whole.
                writeln!(out, "{pad} {} brief: {}", p.note("="), clip(&escape_line(first), BRIEF))?;
            }
        }
        Some(case) => {
            let why = case.errors.first().map(String::as_str).unwrap_or("invalid");
            writeln!(
                out,
                "{pad} {} brief: none (its case is invalid: {})",
                p.note("="),
                escape_line(why)
            )?;
        }
        None => {}
    }
    Ok(())
}

fn candidate(c: &Candidate) -> String {
    let line = if c.line > 0 { format!(" (line {})", c.line) } else { String::new() };
    let agent = if c.agent.is_empty() { String::new() } else { format!(" {}", name(&c.agent)) };
    let mut rules: Vec<&str> = Vec::new();
    for e in &c.evidence {
        if !rules.contains(&e.rule.as_str()) {
            rules.push(e.rule.as_str());
        }
    }
    let rules = if rules.is_empty() {
        String::new()
    } else {
        format!("; {}", escape_line(&rules.join(", ")))
    };
    format!(
        "step {}{line}{agent}, score {:.2}: {} in {}, {}{rules}",
        c.step,
        c.score,
        c.category.name(),
        c.phase.name(),
        c.state.name()
    )
}

/// Width of the line-number gutter: the widest source line the evidence shows.
fn gutter_width(t: &Trajectory, ev: &[Evidence]) -> usize {
    ev.iter()
        .filter_map(|e| t.steps.get(e.step as usize))
        .map(|s| s.loc.line.to_string().len())
        .max()
        .unwrap_or(1)
        .max(1)
}

/// One evidence quote in context: the text line of its step that holds it, the quote marked.
fn evidence(
    out: &mut impl Write,
    t: &Trajectory,
    e: &Evidence,
    rules: &str,
    gutter: usize,
    p: Paint,
) -> std::io::Result<()> {
    let pad = " ".repeat(gutter);
    writeln!(out, "{pad} {}", p.note("|"))?;
    let label = format!("{} ({}), step {}", escape_line(&e.kind), escape_line(rules), e.step);
    let step = t.steps.get(e.step as usize);
    let number = step.map_or(String::new(), |s| {
        if s.loc.line > 0 {
            s.loc.line.to_string()
        } else {
            String::new()
        }
    });
    match step.and_then(|s| locate(s, &e.quote)) {
        Some((before, quoted, after)) => {
            let marks = "^".repeat(quoted.chars().count().max(1));
            let text = format!("{before}{}{after}", p.error(&quoted));
            writeln!(out, "{number:>gutter$} {} {text}", p.note("|"))?;
            let space = " ".repeat(before.chars().count());
            writeln!(out, "{pad} {} {space}{} {}", p.note("|"), p.error(&marks), p.error(&label))?;
        }
        None => {
            let quoted = clip(&escape_line(&e.quote), QUOTE);
            writeln!(out, "{number:>gutter$} {} {}", p.note("|"), p.error(&quoted))?;
            writeln!(out, "{pad} {} {}", p.note("|"), p.error(&label))?;
        }
    }
    Ok(())
}

/// The line of the step's text holding `quote`, cut around it: (before, quote, after), each
/// escaped; the quote's first line only.
fn locate(step: &Step, quote: &str) -> Option<(String, String, String)> {
    if quote.is_empty() {
        return None;
    }
    let hay = [Some(step.text.as_str()), step.args.as_deref(), step.status.as_deref()]
        .into_iter()
        .flatten()
        .find(|h| h.contains(quote))?;
    let at = hay.find(quote)?;
    let line_start = hay[..at].rfind('\n').map_or(0, |i| i + 1);
    let quote_line = quote.split('\n').next().unwrap_or("");
    let end = at + quote_line.len();
    let line_end = hay[end..].find('\n').map_or(hay.len(), |i| end + i);
    let before: String = escape(&hay[line_start..at]).replace('\t', " ");
    let before = clip_start(&before, BEFORE);
    let quoted = clip(&escape(quote_line).replace('\t', " "), QUOTE);
    let after = clip(&escape(&hay[end..line_end]).replace('\t', " "), AFTER);
    Some((before, quoted, after))
}

fn clip_start(s: &str, max: usize) -> String {
    let n = s.chars().count();
    if n <= max {
        return s.to_string();
    }
    "…".to_string() + &s.chars().skip(n - max).collect::<String>()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use trajscope_core::{ingest, IngestOptions};

    fn render(bytes: &[u8]) -> String {
        let mut s = Session::new(ingest(bytes, IngestOptions::default()), Some("sha256:x".into()));
        let mut out = Vec::new();
        write(&mut out, "f\u{1b}[2J.jsonl", &mut s, Paint { on: false }).unwrap();
        String::from_utf8(out).unwrap()
    }

    /// Text biased towards control characters (C0, DEL, C1) among ordinary ones.
    fn nasty() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            prop_oneof![
                (0u32..0x20).prop_map(|c| char::from_u32(c).unwrap()),
                (0x7fu32..0xa0).prop_map(|c| char::from_u32(c).unwrap()),
                any::<char>(),
                Just('a'),
            ],
            0..24,
        )
        .prop_map(|v| v.into_iter().collect())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn no_human_output_holds_a_control_character_but_newline_and_tab(
            id in nasty(), agent in nasty(), cmd in nasty(), output in nasty(), junk in nasty(),
        ) {
            let line = |v: serde_json::Value| v.to_string();
            let jsonl = [
                line(serde_json::json!({"type": "run_start", "run_id": id, "task": output})),
                line(serde_json::json!({"type": "action", "run_id": id, "agent": agent, "tool": "shell", "command": cmd})),
                line(serde_json::json!({"type": "observation", "run_id": id, "exit_code": 1, "output": format!("Error: {output}")})),
                junk.clone(),
                line(serde_json::json!({"type": "judge_result", "run_id": id, "verdict": "fail", "detail": format!("{cmd} failed: {output}")})),
                line(serde_json::json!({"type": "run_end", "run_id": id, "status": "failed"})),
            ]
            .join("\n");
            let text = render(jsonl.as_bytes());
            prop_assert!(!text.chars().any(crate::term::is_unsafe), "{:?}", text);
        }
    }

    #[test]
    fn each_top_candidate_says_why_it_was_ranked() {
        let bytes = include_bytes!("../../../../../web/samples/sample.awtl.jsonl");
        let text = render(bytes);
        let mut s = Session::new(ingest(bytes, IngestOptions::default()), None);
        s.analyse_all();
        let o = &s.overviews()[0];
        assert!(!o.candidates.is_empty());
        for c in o.candidates.iter().take(TOP_CANDIDATES) {
            let at = text.find(&format!("step {} (line {})", c.step, c.line)).expect("listed");
            let after = &text[at..];
            for reason in c.why.iter().filter(|r| !r.starts_with("rule: ")) {
                assert!(after.contains(&format!("- {reason}\n")), "{reason} in {text}");
            }
        }
    }

    #[test]
    fn a_quote_is_shown_on_its_line_and_marked() {
        let text = render(include_bytes!("../../../../../web/samples/sample.awtl.jsonl"));
        let marked = text.lines().position(|l| l.contains("^^^")).expect("a marked quote");
        let lines: Vec<&str> = text.lines().collect();
        let above = lines[marked - 1];
        let caret = lines[marked].find('^').unwrap();
        let bar = lines[marked].find('|').unwrap();
        assert_eq!(above.find('|'), Some(bar), "{text}");
        assert!(above.len() > caret, "the marks sit under the quoted text: {text}");
    }
}
