//! What the golden tests share (`golden.rs`, `corrupt.rs`, `analysis.rs`): the fixture folder
//! walked, so a new fixture cannot go unchecked (rust-analyzer's `TestCase::list`), and the one
//! rendering of a fixture compared with `<fixture>.expected` beside it (bless with
//! `UPDATE_EXPECT=1`, then review the diff by eye): the trace as ingested, then the analysis of
//! each trajectory.
// Each test crate uses a part of this module.
#![allow(dead_code)]
// The tests read their fixtures from disk; the core itself does no I/O.
#![allow(clippy::disallowed_methods)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use trajscope_core::attribution::TrajectoryAnalysis;
use trajscope_core::attribution::{analyze_trajectory, quotes_on, AnalysisOptions};
use trajscope_core::model::{Step, Trace, Trajectory};
use trajscope_core::views::{step_view_with_quotes, Grain};
use trajscope_core::Ingestor;

/// `tests/fixtures/`, or a path under it.
pub fn fixture_path(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures").join(rel)
}

/// Folders of `tests/fixtures/` that hold no trace fixtures of a source format: the corrupt
/// corpus (`corrupt.rs`), label files (`labels.rs`), learning-loop inputs (`loop_*.rs`) and
/// the planted-secret traces (`redact.rs`).
pub const NOT_SOURCES: &[&str] = &["corrupt", "labels", "loop", "redact"];

/// Whether a file in a fixture folder is an input (not its notes or an expected output).
pub fn is_fixture(name: &str) -> bool {
    !(name.ends_with(".md") || name.ends_with(".expected") || name.contains(".expected."))
}

/// The input files of `folder` (relative to `tests/fixtures/`, "" for all of it) and its
/// subfolders, as paths relative to `tests/fixtures/`, sorted; `skip` names folders left out.
pub fn fixtures_in(folder: &str, skip: &[&str]) -> Vec<String> {
    fn walk(dir: &Path, rel: &str, skip: &[&str], out: &mut Vec<String>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
            .map(|e| e.expect("a readable folder entry"))
            .collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let name = e.file_name().to_string_lossy().into_owned();
            let rel = if rel.is_empty() { name.clone() } else { format!("{rel}/{name}") };
            if e.path().is_dir() {
                if !skip.contains(&rel.as_str()) {
                    walk(&e.path(), &rel, skip, out);
                }
            } else if rel.contains('/') && is_fixture(&name) {
                out.push(rel);
            }
        }
    }
    let mut out = Vec::new();
    walk(&fixture_path(folder), folder, skip, &mut out);
    out
}

/// Every fixture of every source folder.
pub fn source_fixtures() -> Vec<String> {
    fixtures_in("", NOT_SOURCES)
}

pub fn read(rel: &str) -> Vec<u8> {
    let p = fixture_path(rel);
    std::fs::read(&p).unwrap_or_else(|e| panic!("cannot read fixture {}: {e}", p.display()))
}

/// Compares the rendering of `trace` with `<fixture>.expected` beside the fixture.
pub fn check_golden(rel: &str, trace: &Trace) {
    let mut expected = fixture_path(rel).into_os_string();
    expected.push(".expected");
    expect_test::expect_file![PathBuf::from(expected)].assert_eq(&render(trace));
}

/// The one golden rendering of a fixture: the trace as ingested, then each trajectory's
/// analysis.
pub fn render(t: &Trace) -> String {
    let mut out = ingested(t);
    for tr in &t.trajectories {
        out.push('\n');
        out.push_str(&analysis(tr, &analyze_trajectory(tr, &AnalysisOptions::default())));
    }
    out
}

fn one_line(s: &str, max: usize) -> String {
    let mut out = String::new();
    for (n, c) in s.chars().enumerate() {
        if n == max {
            out.push('…');
            break;
        }
        match c {
            '\n' => out.push('⏎'),
            '\r' | '\t' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

fn step_line(s: &Step) -> String {
    let loc = match (s.loc.line, &*s.loc.path) {
        (line, "") => format!("L{line}"),
        (0, path) => path.to_string(),
        (line, path) => format!("L{line}:{path}"),
    };
    let mut line = format!("  {:>3} {loc} {:?}/{:?}", s.index, s.role, s.kind).to_lowercase();
    if !s.actor.is_empty() {
        let _ = write!(line, " @{}", s.actor);
    }
    if let Some(t) = &s.tool {
        let _ = write!(line, " tool={t}");
    }
    if let Some(a) = &s.args {
        let _ = write!(line, " args={}", one_line(a, 40));
    }
    if let Some(c) = s.exit_code {
        let _ = write!(line, " exit={c}");
    }
    if s.is_error {
        line.push_str(" ERROR");
    }
    if let Some(st) = &s.status {
        let _ = write!(line, " status={st}");
    }
    let ids = &s.ids;
    for (k, v) in [
        ("turn", &ids.turn_id),
        ("span", &ids.span_id),
        ("action", &ids.action_id),
        ("src", &ids.source_action_id),
        ("id", &ids.event_id),
        ("parent", &ids.parent_id),
    ] {
        if let Some(v) = v {
            let _ = write!(line, " {k}={}", one_line(v, 12));
        }
    }
    let _ = write!(line, " | {}", one_line(&s.text, 80));
    line
}

/// The trace as ingested: format, counts, error, every quarantined line (with the start of its
/// bytes), every trajectory with its steps one per line.
fn ingested(t: &Trace) -> String {
    let mut out = String::new();
    let s = &t.stats;
    let _ = writeln!(out, "format: {}", t.format);
    let _ = writeln!(
        out,
        "stats: bytes={} lines total={} parsed={} blank={} quarantined={}",
        s.bytes, s.lines_total, s.lines_parsed, s.lines_blank, s.lines_quarantined
    );
    if let Some(e) = &t.error {
        let _ = writeln!(out, "error: {e}");
    }
    for q in &t.quarantine {
        let tail = if q.truncated_tail { " truncated_tail" } else { "" };
        let _ = writeln!(
            out,
            "quarantined line {} @ {} ({} bytes){tail}: {}",
            q.line,
            q.offset,
            q.raw.len(),
            q.reason
        );
        let shown: Vec<u8> = q.raw.iter().copied().take(80).collect();
        let more = if q.raw.len() > 80 { "..." } else { "" };
        let _ = writeln!(out, "  raw: {}{more}", shown.escape_ascii());
    }
    for tr in &t.trajectories {
        let _ = writeln!(
            out,
            "trajectory {}: outcome={:?} steps={}",
            tr.id,
            tr.outcome,
            tr.steps.len()
        );
        if let Some(task) = &tr.task {
            let _ = writeln!(out, "  task: {}", one_line(task, 80));
        }
        if let Some(a) = &tr.final_answer {
            let _ = writeln!(out, "  final answer: {}", one_line(a, 80));
        }
        if let Some(g) = &tr.gold {
            let _ = writeln!(
                out,
                "  gold: step={:?} agent={:?} category={:?} reason={:?}",
                g.step,
                g.agent,
                g.category,
                g.reason.as_deref().map(|r| one_line(r, 60))
            );
        }
        for st in &tr.steps {
            let _ = writeln!(out, "{}", step_line(st));
        }
    }
    out
}

/// One trajectory's analysis: triggers, error instances, ranked candidates, the critical step,
/// classification, loop signals, the record and the views of the critical step.
fn analysis(t: &Trajectory, a: &TrajectoryAnalysis) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "trajectory {} ({} steps, outcome {:?})", t.id, t.steps.len(), t.outcome);
    let _ = writeln!(o, "\n## triggers");
    for tr in &a.triggers {
        let _ = writeln!(
            o,
            "- step {} {} {:?}/{:?} object={}{}\n    wrong: {:?}\n    reference (step {:?}): {:?}",
            tr.step,
            tr.rule,
            tr.category,
            tr.phase,
            tr.object.split(':').next().unwrap_or(""),
            tr.blocker.map(|b| format!(" blocker={b:?}")).unwrap_or_default(),
            tr.wrong_quote,
            tr.reference_step,
            tr.reference_quote
        );
    }
    let _ = writeln!(o, "\n## instances");
    for (i, inst) in a.instances.iter().enumerate() {
        let _ = writeln!(
            o,
            "- #{i} origin {} last {} resolved_at {:?} state {} footprints {:?} triggers {:?}",
            inst.origin_step,
            inst.last_step,
            inst.resolved_at,
            inst.state.name(),
            inst.footprints,
            inst.triggers
        );
    }
    let _ = writeln!(o, "\n## candidates");
    for c in &a.candidates {
        let rules: Vec<&str> = c.evidence.iter().map(|e| e.rule.as_str()).collect::<Vec<&str>>();
        let _ = writeln!(
            o,
            "- step {} line {} agent {} score {} {:?}/{:?} {} {:?}",
            c.step,
            c.line,
            c.agent,
            c.score,
            c.category,
            c.phase,
            c.state.name(),
            rules
        );
    }
    let _ = writeln!(o, "\n## critical");
    match &a.critical {
        Some(c) => {
            let _ = writeln!(
                o,
                "step {} line {} agent {} action_id {:?}",
                c.step, c.line, c.agent, c.action_id
            );
        }
        None => o.push_str("none\n"),
    }
    let _ = writeln!(o, "classification {:?} failure_mode {:?}", a.classification, a.failure_mode);
    let _ = writeln!(o, "signals {:?}", a.signals);
    let _ = writeln!(o, "\n## record\n{}", serde_json::to_string_pretty(&a.record).unwrap());
    if let Some(c) = &a.critical {
        let step = &t.steps[c.step as usize];
        let quotes = quotes_on(&a.triggers, c.step);
        for g in [Grain::High, Grain::Medium, Grain::Low] {
            let _ = writeln!(
                o,
                "\n## view {g:?} of step {}\n{}",
                c.step,
                step_view_with_quotes(step, g, &AnalysisOptions::default().views, &quotes)
            );
        }
    }
    o
}

/// Feeds `input` to `ingestor` in pieces cut at `cuts` (each taken modulo the input's length
/// plus one, in increasing order), calling `each` after every piece but the last.
pub fn feed_in_pieces(
    ingestor: &mut Ingestor,
    input: &[u8],
    cuts: &[usize],
    mut each: impl FnMut(&mut Ingestor),
) {
    let mut points: Vec<usize> = cuts.iter().map(|c| c % (input.len() + 1)).collect();
    points.sort_unstable();
    let mut last = 0;
    for p in points {
        ingestor.feed(&input[last..p]);
        each(ingestor);
        last = p;
    }
    ingestor.feed(&input[last..]);
}
