//! The session seam through its public entry points: the loader gives the same session in any
//! chunking, with the identity `content_hash` gives; settled trajectories analysed early give
//! the same overviews as analysing at the end; the projections agree with the `analyze --json`
//! report; and the case rule (one case per trajectory whose analysis names a critical step,
//! whatever its outcome) holds.
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::disallowed_methods)] // the test reads its fixtures; the core does no I/O

use std::path::PathBuf;

use trajscope_core::attribution::{analyze_trajectory, AnalysisOptions};
use trajscope_core::labels::content_hash;
use trajscope_core::model::Outcome;
use trajscope_core::report::Report;
use trajscope_core::views::Grain;
use trajscope_core::{ingest, IngestOptions, Loader, Session};

fn repo(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..").join(rel)
}

fn sample() -> Vec<u8> {
    std::fs::read(repo("web/samples/sample.awtl.jsonl")).unwrap()
}

fn load(bytes: &[u8], chunk: usize, hash: bool) -> Session {
    let mut l = Loader::new(IngestOptions::default(), hash);
    for c in bytes.chunks(chunk.max(1)) {
        l.feed(c);
    }
    l.finish()
}

#[test]
fn the_loader_gives_the_same_session_in_any_chunking_with_its_identity() {
    let bytes = sample();
    let whole = ingest(&bytes, IngestOptions::default());
    for chunk in [1, 13, 4096] {
        let s = load(&bytes, chunk, true);
        assert_eq!(s.trace(), &whole);
        assert_eq!(s.identity(), Some(content_hash(&bytes).as_str()));
    }
    let mut l = Loader::new(IngestOptions::default(), false);
    l.feed(&bytes);
    assert_eq!(l.progress().bytes, bytes.len() as u64);
    assert!(l.progress().lines > 0);
    let s = l.finish();
    assert_eq!(s.identity(), None, "no hasher, no identity until it is set");
}

#[test]
fn trajectories_analysed_as_they_settle_match_analysing_at_the_end() {
    // Two AWTL runs; the first ends early, then a later line reopens it.
    let text = "{\"type\":\"run_start\",\"run_id\":\"a\"}\n\
                {\"type\":\"action\",\"run_id\":\"a\",\"command\":\"make\"}\n\
                {\"type\":\"run_end\",\"run_id\":\"a\",\"status\":\"passed\"}\n\
                {\"type\":\"run_start\",\"run_id\":\"b\"}\n\
                {\"type\":\"observation\",\"run_id\":\"b\",\"exit_code\":1,\"output\":\"Error: x\"}\n\
                {\"type\":\"run_end\",\"run_id\":\"b\",\"status\":\"failed\"}\n\
                {\"type\":\"judge_result\",\"run_id\":\"a\",\"verdict\":\"fail\",\"detail\":\"late\"}\n";
    let mut l = Loader::new(IngestOptions::default(), false);
    let mut early = Vec::new();
    for line in text.split_inclusive('\n') {
        l.feed(line.as_bytes());
        for s in l.take_settled() {
            let a = analyze_trajectory(&s.trajectory, &AnalysisOptions::default());
            early.push((s, a));
        }
    }
    assert!(!early.is_empty(), "AWTL runs settle at their run_end");
    let mut s = l.finish_with(early);
    let mut fresh = Session::new(ingest(text.as_bytes(), IngestOptions::default()), None);
    assert_eq!(s.report(), fresh.report());
}

#[test]
fn the_session_projects_what_the_report_says_for_every_awtl_fixture() {
    let dir = repo("tests/fixtures/awtl");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".awtl.jsonl"))
        .collect();
    files.sort();
    assert!(files.len() > 3);
    for f in files {
        let bytes = std::fs::read(&f).unwrap();
        let trace = ingest(&bytes, IngestOptions::default());
        let report = Report::new(&trace);
        let mut s = Session::new(trace, Some(content_hash(&bytes)));
        // Nothing analysed yet: the overviews say so, and fill in one by one.
        assert!(s.overviews().iter().all(|o| !o.analysed) || s.is_empty());
        while let Some(i) = s.analyse_next() {
            assert!(s.overview(i).unwrap().analysed);
        }
        assert_eq!(s.overviews(), report.trajectories, "{f:?}");
        assert_eq!(s.report(), report, "{f:?}");
        assert_eq!(s.clone().into_report(), report, "{f:?}");
        // One case per trajectory with a critical step, in order.
        let cases = s.cases().expect("the identity is known");
        let with_critical: Vec<&str> = report
            .trajectories
            .iter()
            .filter(|t| t.critical.is_some())
            .map(|t| t.id.as_str())
            .collect();
        let case_ids: Vec<&str> = cases.built.iter().map(|c| c.trajectory_id.as_str()).collect();
        assert_eq!(case_ids, with_critical, "{f:?}");
        assert_eq!(cases.jsonl().lines().count(), cases.valid().len());
        // Steps at every grain stay in their bound; search finds what a step holds.
        for i in 0..s.len() {
            let t = s.trajectory(i).unwrap().clone();
            for g in Grain::ALL {
                let items: Vec<(u32, Grain)> = (0..t.steps.len() as u32).map(|n| (n, g)).collect();
                let views = s.steps(i, &items);
                assert_eq!(views.len(), t.steps.len());
                assert!(views.iter().all(|v| v.text.chars().count() <= g.limit()));
            }
            if let Some(step) = t.steps.iter().find(|st| st.text.len() > 8) {
                let word: String = step.text.chars().take(6).collect::<String>().to_uppercase();
                if word.is_ascii() {
                    assert!(s.search(i, &word).contains(&step.index), "{word}");
                }
            }
            assert_eq!(s.columns(i).unwrap().line.len(), t.steps.len());
        }
    }
}

#[test]
fn a_run_of_unknown_outcome_gets_a_case_when_its_analysis_names_a_critical_step() {
    // No run_end: the outcome is unknown, yet a failed build followed by a push (irreversible,
    // before any fix) leaves a manifest error.
    let text = "{\"type\":\"run_start\",\"run_id\":\"u\",\"task\":\"build it\"}\n\
                {\"type\":\"action\",\"run_id\":\"u\",\"action_id\":\"a1\",\"tool\":\"shell\",\"command\":\"make build\"}\n\
                {\"type\":\"observation\",\"run_id\":\"u\",\"source_action_id\":\"a1\",\"exit_code\":2,\"output\":\"Error: missing target\"}\n\
                {\"type\":\"action\",\"run_id\":\"u\",\"action_id\":\"a2\",\"tool\":\"shell\",\"command\":\"git push origin main\"}\n\
                {\"type\":\"observation\",\"run_id\":\"u\",\"source_action_id\":\"a2\",\"exit_code\":0,\"output\":\"pushed\"}\n";
    let mut s =
        Session::new(ingest(text.as_bytes(), IngestOptions::default()), Some("sha256:u".into()));
    assert_eq!(s.trajectory(0).unwrap().outcome, Outcome::Unknown);
    s.analyse_all();
    let has_critical = s.overview(0).unwrap().critical.is_some();
    assert!(has_critical, "a manifest error in a run of unknown outcome is attributed");
    let cases = s.cases().unwrap();
    assert_eq!(cases.built.len(), usize::from(has_critical));
    // Without an identity there are no case ids yet, so no cases.
    let mut anon = Session::new(ingest(text.as_bytes(), IngestOptions::default()), None);
    assert!(anon.cases().is_none());
}

#[test]
fn the_quarantine_export_keeps_the_exact_bytes() {
    let s = Session::new(
        ingest(b"{\"type\":\"message\"}\n{broken\xff\n", IngestOptions::default()),
        None,
    );
    let text = s.quarantine_jsonl();
    let rec: trajscope_core::report::QuarantineRecord =
        serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(rec.line, 2);
    assert_eq!(rec.raw_base64, "e2Jyb2tlbv8=");
}

/// `analyse_next` resumes where it stopped (it does not rescan the analysed prefix, so a file
/// of 100,000 runs is analysed in linear time) and still visits every trajectory that another
/// path (the page asking for one, the CLI's early analyses) left unanalysed, in order.
#[test]
fn analyse_next_visits_each_unanalysed_trajectory_once_in_order() {
    let mut text = String::new();
    for r in 0..50 {
        text.push_str(&format!("{{\"type\":\"action\",\"run_id\":\"r{r}\",\"command\":\"ls\"}}\n"));
    }
    let mut s = Session::new(ingest(text.as_bytes(), IngestOptions::default()), None);
    assert_eq!(s.len(), 50);
    assert!(s.analyse(3));
    assert!(s.analyse(40));
    assert_eq!(s.analyse_next(), Some(0));
    assert!(s.analyse(1));
    let mut rest = Vec::new();
    while let Some(i) = s.analyse_next() {
        rest.push(i);
    }
    let expected: Vec<usize> = (2..50).filter(|i| ![3, 40].contains(i)).collect();
    assert_eq!(rest, expected);
    assert!(s.all_analysed());
    assert_eq!(s.analyse_next(), None);
}
