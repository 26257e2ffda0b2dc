//! Trajectories handed over before the end of the input (`Ingestor::take_settled`) and given
//! back to `Ingestor::finish_with` make exactly the trace a plain ingest makes; one that a
//! later line changed is reported, so work done on its early form can be redone.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use proptest::prelude::*;
use trajscope_core::{ingest, IngestOptions, Ingestor, Settled};

/// Feeds `input` in the given pieces, taking the settled trajectories after every piece; gives
/// them back in the order they settled, or reversed.
fn ingest_settling(
    input: &[u8],
    cuts: &[usize],
    reversed: bool,
) -> (trajscope_core::Finished, Vec<Settled>) {
    let mut ingestor = Ingestor::new(IngestOptions::default());
    let mut settled = Vec::new();
    common::feed_in_pieces(&mut ingestor, input, cuts, |i| settled.extend(i.take_settled()));
    settled.extend(ingestor.take_settled());
    let handed = settled.clone();
    if reversed {
        settled.reverse();
    }
    (ingestor.finish_with(settled), handed)
}

/// Feeds `input` in the given pieces, copying the first trajectory as read so far after every
/// piece (`Ingestor::snapshot_first`); the finished trace and the copies.
fn fed_with_snapshots(
    input: &[u8],
    cuts: &[usize],
    max_steps: usize,
) -> (trajscope_core::Trace, Vec<trajscope_core::model::Trajectory>) {
    let mut ingestor = Ingestor::new(IngestOptions::default());
    let mut snapshots = Vec::new();
    common::feed_in_pieces(&mut ingestor, input, cuts, |i| {
        snapshots.extend(i.snapshot_first(max_steps));
    });
    (ingestor.finish(), snapshots)
}

fn line(run: u8, kind: &str, seq: Option<u64>, extra: &str) -> String {
    let seq = seq.map(|s| format!(",\"writer_seq\":{s}")).unwrap_or_default();
    format!("{{\"type\":\"{kind}\",\"run_id\":\"r{run}\"{seq}{extra}}}")
}

#[test]
fn a_run_settles_when_its_end_is_read_and_comes_back_unchanged() {
    let lines = [
        line(1, "run_start", Some(1), r#","task":"fix the build""#),
        line(2, "action", Some(1), r#","command":"ls""#),
        line(1, "action", Some(3), r#","command":"cargo build""#),
        line(1, "observation", Some(2), r#","exit_code":1,"output":"error: E0425""#),
        line(1, "run_end", Some(4), r#","status":"failed","final_answer":"gave up""#),
        line(2, "observation", Some(2), r#","exit_code":0"#),
    ];
    let input = lines.join("\n");
    let mut ingestor = Ingestor::new(IngestOptions::default());
    let first_four: usize = lines[..4].iter().map(|l| l.len() + 1).sum();
    ingestor.feed(&input.as_bytes()[..first_four]);
    assert!(ingestor.take_settled().is_empty(), "no run has ended yet");
    ingestor.feed(&input.as_bytes()[first_four..]);
    let settled = ingestor.take_settled();
    assert_eq!(settled.len(), 1);
    assert_eq!(settled[0].position, 0);
    let t = &settled[0].trajectory;
    assert_eq!((t.id.as_str(), t.steps.len()), ("r1", 4));
    assert_eq!(t.task.as_deref(), Some("fix the build"));
    assert_eq!(t.final_answer.as_deref(), Some("gave up"));
    // Final form: writer_seq order, indexed.
    let order: Vec<(u32, Option<u64>)> = t.steps.iter().map(|s| (s.index, s.writer_seq)).collect();
    assert_eq!(order, vec![(0, Some(1)), (1, Some(2)), (2, Some(3)), (3, Some(4))]);
    assert!(ingestor.take_settled().is_empty(), "each run is handed over once");

    let finished = ingestor.finish_with(settled);
    assert!(finished.changed.is_empty());
    assert_eq!(finished.trace, ingest(input.as_bytes(), IngestOptions::default()));
}

#[test]
fn a_line_after_the_end_reopens_the_run_and_is_reported() {
    let lines = [
        line(1, "action", None, r#","command":"make""#),
        line(1, "run_end", None, r#","status":"passed""#),
        line(1, "judge_result", None, r#","status":"failed","reason":"late verdict""#),
        line(1, "run_end", None, r#","status":"failed""#),
    ];
    let input = lines.join("\n");
    let mut ingestor = Ingestor::new(IngestOptions::default());
    let first_two: usize = lines[..2].iter().map(|l| l.len() + 1).sum();
    ingestor.feed(&input.as_bytes()[..first_two]);
    let settled = ingestor.take_settled();
    assert_eq!(settled.len(), 1);
    assert_eq!(settled[0].trajectory.steps.len(), 2);
    ingestor.feed(&input.as_bytes()[first_two..]);
    assert!(ingestor.take_settled().is_empty(), "a reopened run is not handed over again");

    let finished = ingestor.finish_with(settled);
    assert_eq!(finished.changed, vec![0]);
    let whole = ingest(input.as_bytes(), IngestOptions::default());
    assert_eq!(finished.trace, whole);
    assert_eq!(whole.trajectories[0].steps.len(), 4);
    assert_eq!(whole.trajectories[0].outcome, trajscope_core::model::Outcome::Failed);
}

#[test]
fn formats_without_an_end_marker_settle_nothing() {
    let input =
        b"{\"role\":\"user\",\"content\":\"hi\"}\n{\"role\":\"assistant\",\"content\":\"done\"}\n";
    let (finished, handed) = ingest_settling(input, &[10, 40], false);
    assert!(handed.is_empty());
    assert_eq!(finished.trace, ingest(input, IngestOptions::default()));
}

fn event() -> impl Strategy<Value = String> {
    (
        0u8..3,
        prop_oneof![
            Just("action"),
            Just("observation"),
            Just("judge_result"),
            Just("run_start"),
            Just("run_end"),
            Just("message"),
        ],
        prop::option::of(0u64..20),
        prop_oneof![
            Just(String::new()),
            Just(r#","status":"failed""#.to_string()),
            Just(r#","status":"passed","final_answer":"42""#.to_string()),
            Just(r#","task":"t","exit_code":1"#.to_string()),
        ],
    )
        .prop_map(|(run, kind, seq, extra)| line(run, kind, seq, &extra))
}

/// Settling `input` at `cuts` (handed back in order, or `reversed`) gives the trace of a plain
/// ingest, and `changed` names exactly the handed-over trajectories the end of the file changed.
fn settles_to_the_plain_trace(
    input: &str,
    cuts: &[usize],
    reversed: bool,
) -> Result<(), proptest::test_runner::TestCaseError> {
    let whole = ingest(input.as_bytes(), IngestOptions::default());
    let (finished, handed) = ingest_settling(input.as_bytes(), cuts, reversed);
    prop_assert_eq!(&finished.trace, &whole);
    let mut stale: Vec<usize> = handed
        .iter()
        .filter(|s| whole.trajectories[s.position] != s.trajectory)
        .map(|s| s.position)
        .collect();
    stale.sort_unstable();
    let mut changed = finished.changed.clone();
    changed.sort_unstable();
    prop_assert_eq!(changed, stale);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn settling_at_any_points_and_giving_back_in_any_order_gives_the_plain_trace_and_names_every_change(
        lines in proptest::collection::vec(
            prop_oneof![4 => event(), 1 => Just("{broken".to_string()), 1 => Just(String::new())],
            0..40,
        ),
        cuts in proptest::collection::vec(any::<usize>(), 0..10),
        reversed in any::<bool>(),
    ) {
        let input = lines.join("\n");
        settles_to_the_plain_trace(&input, &cuts, reversed)?;
    }
}

/// A smolagents memory step of run-restarting numbers, a task, a final answer, a RunResult or
/// damage.
fn smolagents_line() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => (1u64..6, any::<bool>()).prop_map(|(n, failed)| {
            let error = match failed {
                true => r#"{"type":"AgentExecutionError","message":"boom"}"#,
                false => "null",
            };
            format!(
                r#"{{"step_number":{n},"model_output":"Thought {n}","tool_calls":[{{"id":"c{n}","function":{{"name":"python_interpreter","arguments":"print({n})"}}}}],"observations":"{n}","error":{error}}}"#
            )
        }),
        1 => Just(r#"{"task":"t","task_images":null}"#.to_string()),
        1 => Just(r#"{"output":"the answer"}"#.to_string()),
        1 => Just(r#"{"output":"o","state":"max_steps_error","steps":[{"task":"u","task_images":null}]}"#.to_string()),
        1 => Just("{broken".to_string()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// smolagents runs settle as the next one starts: handed back in any order, the plain trace.
    #[test]
    fn smolagents_runs_settle_to_the_plain_trace(
        rest in proptest::collection::vec(smolagents_line(), 0..40),
        cuts in proptest::collection::vec(any::<usize>(), 0..10),
        reversed in any::<bool>(),
    ) {
        let first = r#"{"task":"first","task_images":null}"#.to_string();
        let input = std::iter::once(first).chain(rest).collect::<Vec<_>>().join("\n");
        settles_to_the_plain_trace(&input, &cuts, reversed)?;
    }
}

#[test]
fn a_smolagents_run_settles_when_the_next_one_starts() {
    let bytes = common::read("smolagents/callback_runs.jsonl");
    let (finished, handed) = ingest_settling(&bytes, &[900, 1800], false);
    let ids: Vec<&str> = handed.iter().map(|s| s.trajectory.id.as_str()).collect();
    assert_eq!(ids, ["smolagents-1"], "the second run is open until the end");
    assert_eq!(finished.trace, ingest(&bytes, IngestOptions::default()));
    assert!(finished.changed.is_empty());
}

/// The app's worker keeps settled trajectories in a provisional session (`Session::push`) and
/// analyses only some; `Loader::finish_returning` takes them back with whatever analyses they
/// have, keeps those still valid and names the changed ones.
#[test]
fn a_loader_takes_settled_trajectories_back_with_some_analyses() {
    use trajscope_core::{Loader, Session};
    let lines = [
        line(1, "action", None, r#","command":"make""#),
        line(1, "run_end", None, r#","status":"failed""#),
        line(2, "action", None, r#","command":"ls""#),
        line(2, "run_end", None, r#","status":"passed""#),
        line(3, "action", None, r#","command":"cargo test""#),
        line(1, "observation", None, r#","exit_code":1,"output":"late""#),
        line(3, "run_end", None, r#","status":"failed""#),
    ];
    let input = lines.join("\n");
    let mut loader = Loader::new(IngestOptions::default(), false);
    let first_four: usize = lines[..4].iter().map(|l| l.len() + 1).sum();
    loader.feed(&input.as_bytes()[..first_four]);
    assert_eq!(loader.format(), Some(trajscope_core::Format::Awtl));
    let settled = loader.take_settled();
    let plain =
        trajscope_core::Trace { trajectories: Vec::new(), ..ingest(b"", IngestOptions::default()) };
    let mut early = Session::new(plain, None);
    for s in &settled {
        early.push(s.trajectory.clone());
    }
    assert_eq!(early.len(), 2);
    early.analyse(0);
    early.analyse(1);
    loader.feed(&input.as_bytes()[first_four..]);
    let (_, analyses) = early.into_parts();
    let back = settled.into_iter().zip(analyses).collect();
    let (mut session, changed) = loader.finish_returning(back);
    assert_eq!(changed, [0], "run 1 had a line after its end");
    // Run 2's analysis is kept; run 1's is dropped (analysed again from the whole run).
    assert!(!session.is_analysed(0) && session.is_analysed(1) && !session.is_analysed(2));
    let mut whole = Session::new(ingest(input.as_bytes(), IngestOptions::default()), None);
    assert_eq!(session.trace(), whole.trace());
    assert_eq!(session.report(), whole.report());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// A copy of the first trajectory taken while it is open (`Ingestor::snapshot_first`, what
    /// the app shows of a file nothing of which has settled) changes nothing in the trace, and
    /// holds only steps the final first trajectory holds, each as it ends up (its index aside),
    /// under the same id; without `writer_seq` they are its first steps, in order.
    #[test]
    fn a_snapshot_of_the_open_first_run_is_a_part_of_it_and_changes_nothing(
        lines in proptest::collection::vec(
            prop_oneof![4 => event(), 1 => Just("{broken".to_string()), 1 => Just(String::new())],
            0..40,
        ),
        cuts in proptest::collection::vec(any::<usize>(), 0..10),
        max_steps in 1usize..8,
        seqs in any::<bool>(),
    ) {
        let lines: Vec<String> = match seqs {
            true => lines,
            false => lines.iter().map(|l| {
                let cut = l.find(",\"writer_seq\"").map(|i| (i, l[i + 1..].find([',', '}']).unwrap()));
                match cut { Some((i, n)) => format!("{}{}", &l[..i], &l[i + 1 + n..]), None => l.clone() }
            }).collect(),
        };
        let input = lines.join("\n");
        let whole = ingest(input.as_bytes(), IngestOptions::default());
        let (finished, snapshots) = fed_with_snapshots(input.as_bytes(), &cuts, max_steps);
        prop_assert_eq!(&finished, &whole);
        for snap in snapshots {
            let first = &whole.trajectories[0];
            prop_assert_eq!(&snap.id, &first.id);
            prop_assert!(snap.steps.len() <= max_steps.min(first.steps.len()));
            for (k, s) in snap.steps.iter().enumerate() {
                prop_assert_eq!(s.index as usize, k);
                let same = first.steps.iter().find(|f| f.ingest_seq == s.ingest_seq);
                let same = same.map(|f| trajscope_core::model::Step { index: s.index, ..f.clone() });
                prop_assert_eq!(same.as_ref(), Some(s));
                if !seqs {
                    prop_assert_eq!(&first.steps[k].ingest_seq, &s.ingest_seq);
                }
            }
        }
    }
}

/// A file whose first run ends only at its end (one huge run) or never (runs without an
/// end marker): a copy of that run as read so far, at most as many steps as asked; none once
/// it has ended.
#[test]
fn the_open_first_run_can_be_copied_as_read_so_far() {
    let mut ingestor = Ingestor::new(IngestOptions::default());
    assert!(ingestor.snapshot_first(10).is_none(), "nothing read");
    ingestor.feed(format!("{}\n", line(1, "run_start", None, r#","task":"t""#)).as_bytes());
    for i in 0..5 {
        ingestor.feed(
            format!("{}\n", line(1, "action", None, &format!(",\"command\":\"c{i}\""))).as_bytes(),
        );
    }
    ingestor.feed(format!("{}\n", line(2, "action", None, "")).as_bytes());
    let snap = ingestor.snapshot_first(3).unwrap();
    assert_eq!((snap.id.as_str(), snap.steps.len(), snap.task.as_deref()), ("r1", 3, Some("t")));
    assert_eq!(ingestor.snapshot_first(100).unwrap().steps.len(), 6);
    assert!(ingestor.take_settled().is_empty());
    ingestor.feed(format!("{}\n", line(1, "run_end", None, r#","status":"failed""#)).as_bytes());
    assert!(ingestor.snapshot_first(100).is_none(), "ended: it settles");
}

/// Files of spans (an OpenAI Agents SDK export, OTLP JSON Lines) or of plain messages settle
/// nothing before their end (no end marker), so what the app shows while one is read is a copy
/// of its first trajectory as read so far: under the final id, every step one the finished
/// trace has (index aside, and its agent until the agent's span is read), growing line by line
/// to the whole trajectory; at most as many steps as asked; the trace itself unchanged by it.
#[test]
fn a_file_without_end_markers_shows_its_first_trajectory_as_read_so_far() {
    for fixture in [
        "openai_agents/refund_handoff.jsonl",
        "otel/genai_handoff.jsonl",
        "generic/openai_chat.jsonl",
        // A log of model calls: its first conversation, though another's calls come between.
        "generic/calls_openai_chat.jsonl",
    ] {
        let input = common::read(fixture);
        let whole = ingest(&input, IngestOptions::default());
        let first = &whole.trajectories[0];
        let mut ingestor = Ingestor::new(IngestOptions::default());
        let mut sizes = Vec::new();
        for line in input.split_inclusive(|&b| b == b'\n') {
            ingestor.feed(line);
            assert!(
                ingestor.take_settled().is_empty(),
                "{fixture}: nothing settles before the end"
            );
            let Some(snap) = ingestor.snapshot_first(100) else { continue };
            assert_eq!(snap.id, first.id, "{fixture}");
            for (k, s) in snap.steps.iter().enumerate() {
                assert_eq!(s.index as usize, k);
                // Its agent may be unknown yet: an agent's span is exported when it ends,
                // after the spans under it.
                let same = first.steps.iter().any(|f| {
                    let actor =
                        if s.actor.is_empty() { Default::default() } else { f.actor.clone() };
                    trajscope_core::model::Step { index: s.index, actor, ..f.clone() } == *s
                });
                assert!(same, "{fixture}: step {k} of the copy is not in the trace: {s:?}");
            }
            sizes.push(snap.steps.len());
        }
        let lines = input.split(|&b| b == b'\n').filter(|l| !l.is_empty()).count();
        // (An Agents SDK file's first line is its trace's, no span yet.)
        assert!(sizes.len() + 1 >= lines, "{fixture}: a copy from the first span on: {sizes:?}");
        assert!(sizes.windows(2).all(|w| w[0] <= w[1]), "{fixture}: it only grows: {sizes:?}");
        assert_eq!(ingestor.snapshot_first(100).unwrap().steps, first.steps, "{fixture}");
        assert_eq!(ingestor.snapshot_first(3).unwrap().steps.len(), 3, "{fixture}");
        assert_eq!(ingestor.finish(), whole, "{fixture}");
    }
    // A document is read whole at its end: nothing to copy before.
    let mut ingestor = Ingestor::new(IngestOptions::default());
    ingestor.feed(&common::read("tau2/airline_3_simulations.json")[..4096]);
    assert!(ingestor.snapshot_first(10).is_none());
}

/// `input` fed in pieces with a copy of at most `max_steps` steps asked for ends as a plain
/// ingest; every copy holds at most that many steps, and when the document reads as `format`
/// at its end, each copied step is the finished trajectory's step at its position (a broken
/// document is read line by line at its end: its copy was provisional).
fn copy_is_a_prefix(
    input: &[u8],
    cuts: &[usize],
    max_steps: usize,
    format: trajscope_core::Format,
) -> Result<(), TestCaseError> {
    let whole = ingest(input, IngestOptions::default());
    let (finished, snaps) = fed_copying_documents(input, cuts, max_steps, 1000);
    prop_assert_eq!(&finished, &whole);
    for snap in snaps {
        prop_assert!(snap.steps.len() <= max_steps);
        if whole.format != format {
            continue;
        }
        let first = &whole.trajectories[0];
        for (k, s) in snap.steps.iter().enumerate() {
            prop_assert!(same_step(s, &first.steps[k]), "step {}", k);
        }
    }
    Ok(())
}

/// An Inspect log or a tau2 results file holds many trajectories in one document: asked to,
/// the ingest copies the first one whole once its element is read (its steps, at most as many
/// as asked, under its own id), so a shell shows it before the end; the trace is unchanged.
#[test]
fn a_document_of_many_trajectories_shows_its_first_one_once_read() {
    for fixture in ["inspect/browser.no_events.json", "tau2/airline_3_simulations.json"] {
        let input = common::read(fixture);
        let whole = ingest(&input, IngestOptions::default());
        let first = &whole.trajectories[0];
        let n = input.len();
        let cuts: Vec<usize> = (1..n / 1024).map(|k| k * 1024).collect();
        let (finished, snaps) = fed_copying_documents(&input, &cuts, 10_000, 10_000);
        assert_eq!(finished, whole, "{fixture}: the copy changes nothing");
        let snap = snaps.last().unwrap_or_else(|| panic!("{fixture}: no copy before the end"));
        assert_eq!(snap.id, first.id, "{fixture}");
        assert_eq!(snap.steps.len(), first.steps.len(), "{fixture}: the first one whole");
        for (k, s) in snap.steps.iter().enumerate() {
            assert!(same_step(s, &first.steps[k]), "{fixture}: step {k}");
        }
        let (_, snaps) = fed_copying_documents(&input, &cuts, 2, 10_000);
        assert!(snaps.iter().all(|s| s.steps.len() <= 2) && !snaps.is_empty(), "{fixture}");
    }
}

/// A Who&When item keeps its messages under `history` too: not OpenHands events, so no copy
/// (its first element says so), and the trace is as without the option.
#[test]
fn a_history_of_messages_is_not_copied_as_openhands_events() {
    let input = common::read("who_and_when/hc_1.json");
    let whole = ingest(&input, IngestOptions::default());
    let n = input.len();
    let (finished, snaps) = fed_copying_documents(&input, &[n / 2, n * 3 / 4], 10_000, 10_000);
    assert_eq!(finished, whole);
    assert!(snaps.is_empty(), "{snaps:?}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Copies of the first trajectory taken at any points of any line file (every format that
    /// can copy, whole or with lines dropped, doubled or cut short) change nothing in the trace,
    /// hold at most as many steps as asked, each under the final first trajectory's id.
    #[test]
    fn copies_taken_anywhere_in_any_line_format_change_nothing(
        which in 0usize..6,
        edits in proptest::collection::vec((any::<usize>(), 0u8..4), 0..6),
        cuts in proptest::collection::vec(any::<usize>(), 1..8),
        max_steps in 1usize..40,
    ) {
        let fixture = [
            "openai_agents/refund_handoff.jsonl",
            "otel/genai_handoff.jsonl",
            "generic/openai_chat.jsonl",
            "claude_code/hello-world-script.jsonl",
            "codex/rollout-trimmed.jsonl",
            "awtl/wrong_edit_verifier.awtl.jsonl",
        ][which];
        let text = String::from_utf8(common::read(fixture)).unwrap();
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        for (at, op) in edits {
            let i = at % lines.len();
            match op {
                0 if lines.len() > 1 => { lines.remove(i); }
                1 => { let l = lines[i].clone(); lines.insert(i, l); }
                2 => { let l = &lines[i]; lines[i] = l[..l.len() / 2].to_string(); }
                _ => {}
            }
        }
        let input = lines.join("\n");
        let whole = ingest(input.as_bytes(), IngestOptions::default());
        let (finished, snapshots) = fed_with_snapshots(input.as_bytes(), &cuts, max_steps);
        prop_assert_eq!(&finished, &whole);
        for snap in snapshots {
            prop_assert!(snap.steps.len() <= max_steps);
            prop_assert!(snap.steps.iter().enumerate().all(|(k, s)| s.index as usize == k));
            prop_assert_eq!(Some(&snap.id), whole.trajectories.first().map(|t| &t.id));
        }
    }
}

/// A TRAJERRBENCH record on one line, with task id `t{id}` (or `t1#2`, an id the renaming of a
/// duplicate `t1` would otherwise take) and one message per text.
fn record(id: &str, texts: &[&str]) -> String {
    let messages: Vec<String> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| format!(r#"{{"step":{i},"role":"assistant","content":"{t}"}}"#))
        .collect();
    format!(
        r#"{{"messages":[{}],"metadata":{{"task_id":"{id}","reward":0,"annotation":{{"critical_error_step":0}}}}}}"#,
        messages.join(",")
    )
}

/// A record-per-line file (TRAJERRBENCH as JSONL) has no end marker, but every line is a
/// whole run: its trajectory settles as soon as its line is read.
#[test]
fn each_record_of_a_record_per_line_file_settles_as_its_line_is_read() {
    let input = common::read("trajerrbench/records.jsonl");
    let first_line = input.iter().position(|&b| b == b'\n').unwrap() + 1;
    let mut ingestor = Ingestor::new(IngestOptions::default());
    ingestor.feed(&input[..first_line - 1]);
    assert!(ingestor.take_settled().is_empty(), "a line not ended yet is not read");
    ingestor.feed(&input[first_line - 1..first_line]);
    let mut settled = ingestor.take_settled();
    assert_eq!(settled.iter().map(|s| s.position).collect::<Vec<_>>(), [0]);
    assert!(ingestor.take_settled().is_empty(), "each record is handed over once");
    ingestor.feed(&input[first_line..]);
    settled.extend(ingestor.take_settled());
    let whole = ingest(&input, IngestOptions::default());
    assert_eq!(whole.trajectories.len(), 2, "two records and a blank line");
    assert!(input.ends_with(b"\n"));
    assert_eq!(settled.len(), 2, "every line ended: every record settled before the end");
    for s in &settled {
        assert_eq!(s.trajectory, whole.trajectories[s.position], "handed over in its final form");
    }
    let finished = ingestor.finish_with(settled);
    assert!(finished.changed.is_empty());
    assert_eq!(finished.trace, whole);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Records settled at any points and given back in any order make the plain trace; one
    /// renamed for a duplicate id (its early form had the other id) is named as changed.
    #[test]
    fn records_settled_at_any_points_give_the_plain_trace_and_name_every_rename(
        lines in proptest::collection::vec(
            prop_oneof![
                6 => (prop_oneof![Just("t1"), Just("t2"), Just("t1#2")], 0usize..3)
                    .prop_map(|(id, n)| record(id, &["look", "act", "done"][..n])),
                1 => Just("{broken".to_string()),
                1 => Just(String::new()),
            ],
            1..20,
        ),
        cuts in proptest::collection::vec(any::<usize>(), 0..10),
        reversed in any::<bool>(),
    ) {
        // The first line decides the format: a record, so the file is read record per line.
        let mut lines = lines;
        lines.insert(0, record("t0", &["start"]));
        let input = lines.join("\n");
        settles_to_the_plain_trace(&input, &cuts, reversed)?;
    }
}

/// Claude Code sessions and a Codex session have no end marker: a copy of the first one as
/// read so far is its first steps, in order, under its id, with their texts; taking copies
/// changes nothing in the trace. (In a `codex exec --json` stream an item's steps are its state
/// when copied, replaced in place by its later ones: there the copy's steps are the same
/// steps, of the same role, kind and tool, not yet the same texts.)
#[test]
fn the_first_claude_code_or_codex_session_can_be_copied_as_read_so_far() {
    let mut copied = Vec::new();
    for sub in ["claude_code", "codex"] {
        let paths = common::fixtures_in(sub, &[]);
        for path in paths.iter().filter(|p| p.ends_with(".jsonl")) {
            let input = common::read(path);
            let whole = ingest(&input, IngestOptions::default());
            let mut ingestor = Ingestor::new(IngestOptions::default());
            let mut snapshots = Vec::new();
            for piece in input.chunks(input.len() / 7 + 1) {
                ingestor.feed(piece);
                snapshots.extend(ingestor.snapshot_first(5));
                snapshots.extend(ingestor.snapshot_first(usize::MAX));
                assert!(ingestor.take_settled().is_empty(), "{path:?}: nothing settles");
            }
            assert_eq!(ingestor.finish(), whole, "{path:?}");
            let first = &whole.trajectories[0];
            let exec = path.ends_with("exec-json.jsonl");
            for snap in &snapshots {
                assert_eq!(snap.id, first.id, "{path:?}");
                assert!(snap.steps.len() <= first.steps.len());
                for (k, s) in snap.steps.iter().enumerate() {
                    let f = &first.steps[k];
                    assert_eq!(s.index as usize, k);
                    if exec {
                        assert_eq!((s.role, s.kind, &s.tool), (f.role, f.kind, &f.tool));
                        continue;
                    }
                    assert_eq!(
                        (s.ingest_seq, s.role, s.kind, &s.text, &s.tool),
                        (f.ingest_seq, f.role, f.kind, &f.text, &f.tool),
                        "{path:?} step {k}"
                    );
                }
            }
            if let Some(last) = snapshots.last() {
                assert_eq!(last.task, first.task, "{path:?}: read whole before the last copy");
                assert!(!last.steps.is_empty(), "{path:?}: a copy has the steps read");
                copied.push(format!("{sub}: {} of {} steps", last.steps.len(), first.steps.len()));
            }
        }
    }
    assert!(
        copied.iter().filter(|c| c.starts_with("codex")).count() >= 2
            && copied.iter().filter(|c| c.starts_with("claude_code")).count() >= 3,
        "{copied:?}"
    );
}

/// Feeds `input` in the given pieces with a document copy asked for, copying the first
/// trajectory as read so far after every piece; the finished trace and the copies.
fn fed_copying_documents(
    input: &[u8],
    cuts: &[usize],
    copy: usize,
    max_steps: usize,
) -> (trajscope_core::Trace, Vec<trajscope_core::model::Trajectory>) {
    let opts = IngestOptions { copy_document_steps: copy, ..IngestOptions::default() };
    let mut ingestor = Ingestor::new(opts);
    let mut snapshots = Vec::new();
    common::feed_in_pieces(&mut ingestor, input, cuts, |i| {
        snapshots.extend(i.snapshot_first(max_steps));
    });
    (ingestor.finish(), snapshots)
}

/// Every copied step is the finished trajectory's step at that position: kind, role, text,
/// command, tool and source path (its index aside; a copy knows no final patch, so the files
/// an action wrote may differ).
fn same_step(a: &trajscope_core::model::Step, b: &trajscope_core::model::Step) -> bool {
    (a.kind, a.role, &a.text, &a.args, &a.tool, &a.loc.path, a.is_error)
        == (b.kind, b.role, &b.text, &b.args, &b.tool, &b.loc.path, b.is_error)
}

/// A SWE-agent `.traj` or mini-swe-agent file is one document, parsed once its last byte is
/// read; asked to (`copy_document_steps`, as the app does), the ingest copies its steps as their
/// list is read, so a shell shows them before the end. The copy is the finished trajectory's
/// first steps, at most as many as asked, pretty-printed or on one line, in any chunking; the
/// trace itself is the one a plain ingest makes. Without the option nothing is copied.
#[test]
fn a_document_shows_its_first_steps_as_read_so_far_when_asked() {
    // An OpenHands event list, and the same events as an evaluation output's `history`.
    let events = common::read("openhands/examples-one-per-kind.json");
    let mut output = b"{\"instance_id\": \"oh-1\",\n\"history\": ".to_vec();
    output.extend_from_slice(&events);
    output.extend_from_slice(b"}\n");
    let swe = "swe_agent/pydicom__pydicom-1458.traj";
    let mini = "mini_swe_agent/django__django-10914.trimmed.traj.json";
    let inputs = [
        (swe, common::read(swe)),
        (mini, common::read(mini)),
        ("openhands/examples-one-per-kind.json", events),
        ("openhands/examples-one-per-kind.json as `history`", output),
    ];
    for (fixture, pretty) in inputs {
        // The same document on one line, its keys in their order (a JSON string holds no raw
        // newline, so the pretty-printed lines joined are the document).
        let one_line: Vec<u8> = pretty
            .split(|b| *b == b'\n')
            .map(|l| &l[l.iter().take_while(|b| **b == b' ').count()..])
            .collect::<Vec<_>>()
            .concat();
        assert_eq!(
            serde_json::from_slice::<serde_json::Value>(&one_line).unwrap(),
            serde_json::from_slice::<serde_json::Value>(&pretty).unwrap()
        );
        for input in [pretty, one_line] {
            let whole = ingest(&input, IngestOptions::default());
            let first = &whole.trajectories[0];
            let n = input.len();
            // After about a third of the file, every kilobyte, and with no copy asked for.
            let (finished, snaps) = fed_copying_documents(&input, &[n / 3], 10_000, 10_000);
            assert_eq!(finished, whole, "{fixture}: the copy changes nothing");
            let snap = snaps
                .first()
                .unwrap_or_else(|| panic!("{fixture}: no copy after {} of {n} bytes", n / 3));
            assert!(!snap.steps.is_empty(), "{fixture}: a third of the file holds steps");
            assert!(snap.steps.len() < first.steps.len(), "{fixture}: only what was read");
            for (k, s) in snap.steps.iter().enumerate() {
                assert_eq!(s.index as usize, k);
                assert!(same_step(s, &first.steps[k]), "{fixture}: step {k}");
            }
            let cuts: Vec<usize> = (1..n / 1024).map(|k| k * 1024).collect();
            let (finished, snaps) = fed_copying_documents(&input, &cuts, 3, 10_000);
            assert_eq!(finished, whole);
            assert!(snaps.iter().all(|s| s.steps.len() <= 3), "at most the steps asked");
            assert_eq!(snaps.last().map(|s| s.steps.len()), Some(3));
            let (_, none) = fed_copying_documents(&input, &[n / 3, n / 2], 0, 10_000);
            assert!(none.is_empty(), "{fixture}: nothing copied unless asked");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// A copy of a document's steps, in any chunking and whatever the document holds (broken
    /// elements, other keys, a list that is not the steps, truncation), never changes the
    /// trace; when the document reads as SWE-agent at its end, every copied step is the
    /// finished trajectory's step at its position (a broken one is read line by line then,
    /// and its copy was provisional).
    #[test]
    fn a_document_copy_is_a_prefix_of_its_trajectory_and_changes_nothing(
        turns in proptest::collection::vec(
            prop_oneof![
                4 => ("[a-z ]{0,12}", "[a-z\"\\\\\\[\\]{} ]{0,12}").prop_map(|(a, o)| {
                    serde_json::json!({"action": a, "observation": o, "thought": "t"}).to_string()
                }),
                1 => Just("{\"action\": [1, {\"x\": \"]\"}]}".to_string()),
                1 => Just("{broken".to_string()),
                1 => Just("7".to_string()),
            ],
            0..12,
        ),
        before in prop_oneof![Just(""), Just("\"info\": {\"trajectory\": []}, "), Just("\"x\": [\"trajectory\"], ")],
        truncate in any::<bool>(),
        cuts in proptest::collection::vec(any::<usize>(), 0..8),
        max_steps in 1usize..30,
    ) {
        let mut input = format!(
            "{{{before}\"trajectory\": [{}], \"info\": {{\"exit_status\": \"submitted\"}}}}",
            turns.join(",\n")
        ).into_bytes();
        if truncate {
            input.truncate(input.len() * 2 / 3);
        }
        copy_is_a_prefix(&input, &cuts, max_steps, trajscope_core::Format::SweAgent)?;
    }

    /// The same for an OpenHands event list (the document itself a list) or evaluation
    /// output (`history`): any events, broken ones, in any chunking.
    #[test]
    fn an_event_list_copy_is_a_prefix_of_its_trajectory_and_changes_nothing(
        events in proptest::collection::vec(
            prop_oneof![
                3 => ("[a-z ]{0,12}", 0u32..4).prop_map(|(c, id)| serde_json::json!({
                    "id": id, "source": "agent", "action": "run", "args": {"command": c},
                }).to_string()),
                3 => ("[a-z\"\\\\\\[\\]{} ]{0,12}", 0u32..4).prop_map(|(o, cause)| serde_json::json!({
                    "source": "environment", "observation": "run", "content": o, "cause": cause,
                    "extras": {"metadata": {"exit_code": 1}},
                }).to_string()),
                1 => Just("{broken".to_string()),
                1 => Just("[\"x\"]".to_string()),
            ],
            0..12,
        ),
        wrapped in any::<bool>(),
        truncate in any::<bool>(),
        cuts in proptest::collection::vec(any::<usize>(), 0..8),
        max_steps in 1usize..30,
    ) {
        let list = format!("[{}]", events.join(",\n"));
        let mut input = match wrapped {
            true => format!("{{\"instance_id\": \"i\", \"history\": {list}}}"),
            false => list,
        }.into_bytes();
        if truncate {
            input.truncate(input.len() * 2 / 3);
        }
        copy_is_a_prefix(&input, &cuts, max_steps, trajscope_core::Format::Openhands)?;
    }
}

/// A shell learns whether the copy it shows is a document's (held for its parse at the end,
/// each chunk only appended: the app then reads in large slices) or a line format's (each
/// chunk parsed).
#[test]
fn a_loader_says_whether_its_copy_is_a_documents() {
    use trajscope_core::Loader;
    let opts = || IngestOptions { copy_document_steps: 100, ..IngestOptions::default() };
    let doc = common::read("swe_agent/pydicom__pydicom-1458.traj");
    let mut loader = Loader::new(opts(), false);
    loader.feed(&doc[..doc.len() / 2]);
    assert!(loader.snapshot_first(100).is_some() && loader.copies_document());
    let awtl = format!(
        "{}\n{}\n",
        line(1, "run_start", None, r#","task":"t""#),
        line(1, "action", None, r#","command":"ls""#)
    );
    let mut loader = Loader::new(opts(), false);
    loader.feed(awtl.as_bytes());
    assert!(loader.snapshot_first(100).is_some() && !loader.copies_document());
}

/// A batch's output line (one request answered) is a model call complete as read: its
/// conversation settles as its line is read, at its final place, and comes back unchanged. The
/// same for an Anthropic batch's results and requests.
#[test]
fn each_line_of_a_batch_of_model_calls_settles_as_it_is_read() {
    for file in [
        "generic/calls_batch_output.jsonl",
        "generic/calls_anthropic_batch_results.jsonl",
        "generic/calls_anthropic_batch_requests.jsonl",
    ] {
        let input = common::read(file);
        let whole = ingest(&input, IngestOptions::default());
        let mut ingestor = Ingestor::new(IngestOptions::default());
        let mut settled = Vec::new();
        for (i, line) in input.split_inclusive(|&b| b == b'\n').enumerate() {
            ingestor.feed(&line[..line.len() - 1]);
            assert!(ingestor.take_settled().is_empty(), "{file} line {i} is not ended yet");
            ingestor.feed(&line[line.len() - 1..]);
            let now = ingestor.take_settled();
            assert_eq!(now.len(), 1, "{file} line {i}");
            assert_eq!(now[0].trajectory, whole.trajectories[now[0].position], "final form");
            assert!(ingestor.snapshot_first(10).is_none(), "the first is handed over");
            settled.extend(now);
        }
        let positions: Vec<usize> = settled.iter().map(|s| s.position).collect();
        assert_eq!(positions, (0..whole.trajectories.len()).collect::<Vec<_>>(), "{file}");
        let finished = ingestor.finish_with(settled);
        assert!(finished.changed.is_empty());
        assert_eq!(finished.trace, whole);
    }
    // A batch's failed line (its response `null`) and its input line settle too; a logged call
    // that names a `custom_id` but is no batch's (a request, no response yet) may go on.
    for (line, settles) in [
        (r#"{"custom_id":"t9","response":null,"error":{"message":"expired"}}"#, true),
        (
            r#"{"custom_id":"t8","method":"POST","body":{"messages":[{"role":"user","content":"hi"}]}}"#,
            true,
        ),
        (r#"{"custom_id":"t7","request":{"messages":[{"role":"user","content":"hi"}]}}"#, false),
    ] {
        let mut ingestor = Ingestor::new(IngestOptions::default());
        ingestor.feed(format!("{line}\n").as_bytes());
        assert_eq!(ingestor.take_settled().len(), usize::from(settles), "{line}");
    }
    // A call that goes on from a batch's answer (`previous_response_id`) does not reopen the
    // batch line's conversation, handed over already: a conversation of its own, nothing lost.
    let input = [
        r#"{"custom_id":"r1","response":{"status_code":200,"body":{"object":"response","id":"resp_1","output":[{"type":"message","role":"assistant","content":"first"}]}}}"#,
        r#"{"request":{"previous_response_id":"resp_1","input":"more"},"response":{"object":"response","id":"resp_2","output":[{"type":"message","role":"assistant","content":"second"}]}}"#,
    ]
    .join("\n");
    let whole = ingest(input.as_bytes(), IngestOptions::default());
    let texts: Vec<Vec<&str>> = whole
        .trajectories
        .iter()
        .map(|t| t.steps.iter().map(|s| s.text.as_str()).collect())
        .collect();
    assert_eq!(texts, [vec!["first"], vec!["more", "second"]]);
    settles_to_the_plain_trace(&input, &[], false).unwrap();
}

/// A line of a model call log: a batch output line (complete as read), a logged call that may
/// be continued, a plain message, a broken line or a blank one.
fn call_line() -> impl Strategy<Value = String> {
    let id = prop_oneof![Just("task-1"), Just("task-2"), Just("task-1#2")];
    let answer = |t: &str| format!(r#"{{"role":"assistant","content":"{t}"}}"#);
    prop_oneof![
        4 => (id.clone(), any::<bool>()).prop_map(move |(id, ok)| {
            let (status, body) = match ok {
                true => (200, format!(r#"{{"choices":[{{"message":{}}}]}}"#, answer("42"))),
                false => (500, r#"{"error":{"message":"server error"}}"#.to_string()),
            };
            format!(r#"{{"custom_id":"{id}","response":{{"status_code":{status},"body":{body}}}}}"#)
        }),
        2 => (id, 0usize..2).prop_map(move |(id, turns)| {
            let mut asked = vec![r#"{"role":"user","content":"add 2 and 2"}"#.to_string()];
            for t in 0..turns {
                asked.push(answer(&format!("step {t}")));
                asked.push(r#"{"role":"user","content":"go on"}"#.to_string());
            }
            format!(
                r#"{{"custom_id":"{id}","request":{{"messages":[{}]}},"response":{{"choices":[{{"message":{}}}]}}}}"#,
                asked.join(","),
                answer("4")
            )
        }),
        1 => Just(r#"{"role":"user","content":"a plain line"}"#.to_string()),
        1 => Just("{broken".to_string()),
        1 => Just(String::new()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// A model call log's batch lines settled at any points and given back in any order make
    /// the plain trace; one renamed for a duplicate id (a logged call of the same id before it,
    /// a batch line with the same name) is named as changed.
    #[test]
    fn model_calls_settled_at_any_points_give_the_plain_trace_and_name_every_rename(
        lines in proptest::collection::vec(call_line(), 0..24),
        cuts in proptest::collection::vec(any::<usize>(), 0..10),
        reversed in any::<bool>(),
    ) {
        // A first line of JSON, so the file is read line by line by the generic fallback.
        let mut lines = lines;
        lines.insert(0, r#"{"role":"system","content":"a log"}"#.to_string());
        let input = lines.join("\n");
        prop_assert_eq!(ingest(input.as_bytes(), IngestOptions::default()).format, trajscope_core::Format::Generic);
        settles_to_the_plain_trace(&input, &cuts, reversed)?;
    }
}
