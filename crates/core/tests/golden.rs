//! Golden tests for the format adapters and the analysis: EVERY file under
//! `tests/fixtures/<source>/` (found by walking the folders, so a new fixture cannot go
//! unchecked) is ingested WITHOUT a format hint (detection from content only) and rendered (the
//! trace, then each trajectory's analysis: `common/mod.rs`) against `<fixture>.expected` beside
//! it (bless with UPDATE_EXPECT=1, then review the diff by eye). Each sample is also fed in small
//! chunks, which must give the same trace. The named tests below add assertions about particular
//! files. The corrupt corpus has its own test (`corrupt.rs`), with the same rendering.
#![cfg(not(target_arch = "wasm32"))]
// Tests read their fixtures from disk; the core itself does no I/O.
#![allow(clippy::disallowed_methods)]

mod common;

use common::{check_golden, read, source_fixtures};
use trajscope_core::model::{Format, Outcome, Role, Step, StepKind, Trace, Trajectory};
use trajscope_core::{ingest, IngestOptions, Ingestor};

/// Ingests the fixture whole and in small chunks, checks both agree, compares its rendering with
/// the expected file beside the fixture, and returns the trace for further assertions.
fn golden(rel: &str) -> Trace {
    let bytes = read(rel);
    let whole = ingest(&bytes, IngestOptions::default());
    for chunk_size in [1usize, 7, 4096] {
        let mut ing = Ingestor::new(IngestOptions::default());
        for chunk in bytes.chunks(chunk_size) {
            ing.feed(chunk);
        }
        let chunked = ing.finish();
        assert_eq!(chunked, whole, "{rel}: fed in chunks of {chunk_size} gives another trace");
    }
    let s = &whole.stats;
    assert_eq!(s.lines_total, s.lines_parsed + s.lines_blank + s.lines_quarantined, "{rel}");
    // Step indices are positions: gold labels rely on it.
    for tr in &whole.trajectories {
        for (i, st) in tr.steps.iter().enumerate() {
            assert_eq!(st.index as usize, i, "{rel}: trajectory {} step {i}", tr.id);
        }
    }
    check_golden(rel, &whole);
    whole
}

#[test]
fn every_fixture_of_every_source_is_checked() {
    let all = source_fixtures();
    // Every source folder is found, including ones no named test mentions.
    for expected in ["awtl/passed_run.awtl.jsonl", "tau2/airline_run1.no_raw_data.json.gz"] {
        assert!(all.iter().any(|f| f == expected), "{expected} not listed: {all:?}");
    }
    assert!(!all.iter().any(|f| f.starts_with("corrupt/") || f.ends_with(".expected")));
    for rel in &all {
        golden(rel);
    }
}

/// The bundled sample (in `web/samples/`, no fixture folder) is checked too; its expected file
/// is with the AWTL fixtures', named as theirs are.
#[test]
fn the_bundled_sample_is_checked_with_the_awtl_fixtures() {
    let bytes = read("../../web/samples/sample.awtl.jsonl");
    check_golden("awtl/sample.awtl.jsonl", &ingest(&bytes, IngestOptions::default()));
}

fn counts(t: &Trace) -> Vec<usize> {
    t.trajectories.iter().map(|tr| tr.steps.len()).collect()
}

#[test]
fn who_and_when_algorithm_generated() {
    let t = golden("who_and_when/ag_1.json");
    assert_eq!(t.format, Format::WhoAndWhen);
    assert_eq!(counts(&t), [6]);
    let tr = &t.trajectories[0];
    assert_eq!(tr.outcome, Outcome::Failed);
    let gold = tr.gold.as_ref().expect("gold label");
    assert_eq!((gold.step, gold.agent.as_deref()), (Some(0), Some("Excel_Expert")));
    // The gold step's speaker is the gold agent (same 0-based index space).
    assert_eq!(tr.steps[0].actor, "Excel_Expert");

    let t = golden("who_and_when/ag_10.json");
    let tr = &t.trajectories[0];
    assert_eq!(counts(&t), [10]);
    assert_eq!(tr.gold.as_ref().and_then(|g| g.step), Some(5));
    assert_eq!(tr.steps[5].actor, "Validation_Expert");
    assert_eq!((tr.steps[6].exit_code, tr.steps[6].is_error), (Some(1), true));
}

#[test]
fn who_and_when_hand_crafted() {
    let t = golden("who_and_when/hc_1.json");
    assert_eq!(t.format, Format::WhoAndWhen);
    assert_eq!(counts(&t), [29]);
    let tr = &t.trajectories[0];
    assert_eq!(tr.gold.as_ref().and_then(|g| g.step), Some(12));
    assert_eq!(tr.steps[12].actor, "WebSurfer");
    assert_eq!(tr.steps[1].actor, "Orchestrator");

    let t = golden("who_and_when/hc_6.json");
    let tr = &t.trajectories[0];
    assert_eq!(counts(&t), [8]);
    assert_eq!(tr.outcome, Outcome::Failed);
    assert_eq!(tr.gold.as_ref().and_then(|g| g.agent.as_deref()), Some("Orchestrator"));
}

#[test]
fn trajerrbench_record_and_jsonl() {
    let t = golden("trajerrbench/airline_failed_qwen3-max.json");
    assert_eq!(t.format, Format::Trajerrbench);
    assert_eq!(counts(&t), [13]);
    let tr = &t.trajectories[0];
    assert_eq!(tr.outcome, Outcome::Failed);
    let gold = tr.gold.as_ref().expect("gold label");
    assert_eq!(gold.step, Some(7));
    assert_eq!(gold.category.as_deref(), Some("reason.MissingAssumptionCheck"));
    assert_eq!(tr.steps[9].tool.as_deref(), Some("cancel_reservation"));

    let t = golden("trajerrbench/records.jsonl");
    assert_eq!(t.format, Format::Trajerrbench);
    assert_eq!(counts(&t), [13, 5]);
    assert_eq!(t.trajectories[1].outcome, Outcome::Passed);
    assert_eq!(t.trajectories[1].gold, None);
}

#[test]
fn a_document_of_an_unexpected_shape_is_a_clear_error() {
    let bad = br#"{"history": [1, 2], "question": "q"}"#;
    let t = ingest(bad, IngestOptions::default());
    assert!(t.trajectories.is_empty());
    let hinted = ingest(
        b"{\n \"messages\": 3\n}\n",
        IngestOptions { format: Some(Format::Trajerrbench), ..IngestOptions::default() },
    );
    let err = hinted.error.expect("an error");
    assert!(err.contains("`messages` is a number"), "{err}");
}

#[test]
fn claude_code_sessions() {
    // 38 lines: queue-operation, 2 user prompts, 11 tool results, 24 assistant lines with one
    // content block each, so 37 steps.
    let t = golden("claude_code/coverage-test-fix.jsonl");
    assert_eq!(t.format, Format::ClaudeCode);
    assert_eq!((t.stats.lines_parsed, t.stats.lines_quarantined), (38, 0));
    assert_eq!(counts(&t), [37]);
    let tr = &t.trajectories[0];
    let failed: Vec<_> = tr.steps.iter().filter(|s| s.is_error).collect();
    assert_eq!(failed.len(), 1);
    assert_eq!((failed[0].tool.as_deref(), failed[0].exit_code), (Some("Bash"), Some(1)));
    // The result names the call it answers.
    let call = tr.steps.iter().find(|s| s.ids.action_id == failed[0].ids.source_action_id);
    assert_eq!(call.map(|s| s.kind), Some(trajscope_core::model::StepKind::Action));

    let t = golden("claude_code/hello-world-script.jsonl");
    assert_eq!(counts(&t), [8]);

    // A session whose first line is a file-history-snapshot, and a sub-agent file.
    let t = golden("claude_code/codemie-main-session.jsonl");
    assert_eq!(t.format, Format::ClaudeCode);
    assert_eq!((t.stats.lines_parsed, t.stats.lines_quarantined), (25, 0));
    assert_eq!(counts(&t), [19]);
    let t = golden("claude_code/codemie-agent-36541525.jsonl");
    assert_eq!(t.format, Format::ClaudeCode);
    assert_eq!(t.trajectories[0].id, "agent-36541525");
    assert_eq!(counts(&t), [2]);
    assert!(t.trajectories[0].steps.iter().all(|s| s.actor == "agent-36541525"));
}

/// A headless run's stream (`claude -p --output-format stream-json`): its sessions named by
/// `session_id`, its `init` line and partial-message deltas bookkeeping, its `result` line the
/// run's end: the final answer, the totals, and a failure (its turn limit) as a step.
#[test]
fn claude_code_headless_streams() {
    let t = golden("claude_code/headless-stream.jsonl");
    assert_eq!(t.format, Format::ClaudeCode);
    assert_eq!((t.stats.lines_parsed, t.stats.lines_quarantined), (19, 0));
    // 19 lines: 2 `init`, 1 `stream_event` and the success `result` give no step.
    assert_eq!(counts(&t), [10, 7]);
    let (a, b) = (&t.trajectories[0], &t.trajectories[1]);
    assert_eq!(a.id, "7d2b9c1e-4a3f-4e8b-9c0d-1f2e3a4b5c6d");
    assert_eq!(b.id, "c41f0a9e-2b7d-4c3a-8e5f-6a7b8c9d0e1f");
    // `success` says the run ended, not that its task was done.
    assert_eq!((a.outcome, b.outcome), (Outcome::Unknown, Outcome::Failed));
    assert_eq!(a.final_answer.as_deref(), Some("CI is green: the date tests pass."));
    assert_eq!(b.final_answer, None);
    let end = b.steps.last().unwrap();
    assert_eq!((end.role, end.is_error), (Role::System, true));
    assert_eq!(
        (end.status.as_deref(), end.text.as_str()),
        (Some("error_max_turns"), "error_max_turns")
    );
    // The steps count their tokens; the run states its cost and its time.
    let u = trajscope_core::usage::trajectory_usage(a);
    assert_eq!((u.input_tokens, u.output_tokens, u.steps_with_usage), (Some(12), Some(289), 4));
    assert_eq!((u.cost_usd, u.duration_ms), (Some(0.0387), Some(18342)));
    // A stream of an older version (no `uuid`) is Claude Code's too, read the same.
    let text = String::from_utf8(read("claude_code/headless-stream.jsonl")).unwrap();
    let bare: String =
        text.lines().map(|l| l.split(",\"uuid\":").next().unwrap().to_string() + "}\n").collect();
    let old = ingest(bare.as_bytes(), IngestOptions::default());
    assert_eq!((old.format, counts(&old)), (Format::ClaudeCode, vec![10, 7]));
    let outcomes: Vec<_> = old.trajectories.iter().map(|t| t.outcome).collect();
    assert_eq!(outcomes, [Outcome::Unknown, Outcome::Failed]);
    // A `result` line without a subtype is no end this reader knows: a step kept in view.
    let odd = "{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\"}\n\
               {\"type\":\"result\",\"is_error\":true,\"session_id\":\"s\"}\n";
    let t = ingest(odd.as_bytes(), IngestOptions::default());
    let run = &t.trajectories[0];
    assert_eq!((run.outcome, run.steps.len()), (Outcome::Unknown, 1));
    assert_eq!((run.steps[0].role, run.steps[0].status.as_deref()), (Role::Other, Some("result")));
    // A failed end without words: its `errors`, else its subtype.
    let said = |errors: &str| {
        let end = format!(
            "{{\"type\":\"result\",\"subtype\":\"error_during_execution\",\"session_id\":\"s\"{errors}}}\n"
        );
        let t = ingest(end.as_bytes(), IngestOptions::default());
        t.trajectories[0].steps[0].text.clone()
    };
    assert_eq!(said(r#","errors":["API Error: 500"]"#), "API Error: 500");
    assert_eq!(said(r#","errors":[]"#), "error_during_execution");
    assert_eq!(said(""), "error_during_execution");
}

/// A headless run that delegated to a sub-agent (`Task`): the sub-agent's messages name the call
/// that started it (`parent_tool_use_id`) and stay in the session's trajectory where they came,
/// spoken by that agent, so the run's failure can be traced to what the sub-agent reported.
#[test]
fn claude_code_headless_sub_agents_speak_in_their_sessions_trajectory() {
    let t = golden("claude_code/headless-subagent.jsonl");
    assert_eq!(t.format, Format::ClaudeCode);
    assert_eq!(counts(&t), [13]);
    let run = &t.trajectories[0];
    assert_eq!(
        (run.id.as_str(), run.outcome),
        ("5e0a7c3b-9d1f-4b2a-8c6e-7f8091a2b3c4", Outcome::Failed)
    );
    assert_eq!(
        run.task.as_deref(),
        Some("The nightly build fails at the bundling step. Find the cause and fix it.")
    );
    let actors: Vec<&str> = run.steps.iter().map(|s| s.actor.as_str()).collect();
    let sub = "agent-toolu_02T";
    // The Task call (steps 1-2), the sub-agent's prompt, command, output and report (3-6),
    // its report as the call's result (7), then the session's own edit and check.
    assert_eq!(actors[..8], ["", "", "", sub, sub, sub, sub, ""]);
    assert!(actors[8..].iter().all(|a| a.is_empty()), "{actors:?}");
    assert!(run.steps[6].text.starts_with("Root cause: NODE_ENV is not set"));
    assert_eq!(run.steps[4].tool.as_deref(), Some("Bash"));
    // Its agent is one of the run's, and one of its steps a candidate.
    let a = trajscope_core::attribution::analyze_trajectory(run, &Default::default());
    assert!(a.candidates.iter().any(|c| c.agent == sub), "{:?}", a.candidates);
}

/// `codex exec --json`: the thread's id, an item's steps where it started with
/// its last state, a command and an MCP call with their results, a turn's usage, a failed turn.
#[test]
fn codex_exec_streams() {
    let t = golden("codex/exec-json.jsonl");
    assert_eq!(t.format, Format::Codex);
    assert_eq!((t.stats.lines_parsed, t.stats.lines_quarantined), (17, 0));
    let run = &t.trajectories[0];
    assert_eq!(run.id, "0199c3d4-5e6f-7a81-9b2c-3d4e5f6a7b8c");
    assert_eq!(run.outcome, Outcome::Failed, "its last turn failed");
    assert_eq!(run.final_answer.as_deref(), Some("Running the whole suite to check."));
    let texts: Vec<&str> = run.steps.iter().map(|s| s.text.as_str()).collect();
    // The plan where it started, as it was last updated.
    assert_eq!(texts[1], "[x] Reproduce test_env_override\n[x] Give APP_PORT a default");
    let (call, out) = (&run.steps[2], &run.steps[3]);
    assert_eq!((call.kind, call.tool.as_deref()), (StepKind::Action, Some("shell")));
    assert_eq!(call.args.as_deref(), Some("bash -lc 'pytest -q tests/test_cfg.py'"));
    assert_eq!((out.kind, out.exit_code, out.is_error), (StepKind::Observation, Some(1), true));
    assert_eq!(out.ids.source_action_id, call.ids.action_id);
    let mcp = &run.steps[5];
    assert_eq!((mcp.tool.as_deref(), mcp.is_error), (Some("docs.search"), true));
    assert_eq!(mcp.text, "MCP server docs: connection refused");
    let patch = &run.steps[7];
    assert_eq!(patch.tool.as_deref(), Some("apply_patch"));
    let refs: Vec<&str> = patch.artifact_refs.iter().map(|r| r.normalized.as_str()).collect();
    assert_eq!(refs, ["src/cfg.py"]);
    // A command the stream was cut in: kept, in progress, with no output yet.
    let cut = &run.steps[9];
    assert_eq!(
        (cut.args.as_deref(), cut.status.as_deref()),
        (Some("bash -lc 'pytest -q'"), Some("in_progress"))
    );
    // The error and the failed turn that repeats it: one step.
    assert_eq!(run.steps.iter().filter(|s| s.role == Role::System && s.is_error).count(), 1);
    assert_eq!(run.steps.len(), 12);
    // The first turn's usage on its latest assistant step.
    let with_usage: Vec<(usize, u64, u64)> = run
        .steps
        .iter()
        .enumerate()
        .filter_map(|(i, s)| {
            s.usage.as_ref().map(|u| (i, u.input_tokens.unwrap(), u.output_tokens.unwrap()))
        })
        .collect();
    assert_eq!(with_usage, [(7, 24763, 412)]);
}

#[test]
fn codex_rollouts() {
    let t = golden("codex/rollout-trimmed.jsonl");
    assert_eq!(t.format, Format::Codex);
    assert_eq!((t.stats.lines_parsed, t.stats.lines_quarantined), (32, 0));
    // Every line is a step (no mirror records in this rollout).
    assert_eq!(counts(&t), [32]);
    let tr = &t.trajectories[0];
    assert_eq!(tr.id, "019e1695-0522-7c83-8b39-0dd379793f80");
    let failed: Vec<_> = tr.steps.iter().filter(|s| s.is_error).collect();
    assert_eq!(failed.len(), 1);
    assert_eq!((failed[0].exit_code, failed[0].tool.as_deref()), (Some(1), Some("exec_command")));

    let t = golden("codex/examples-one-per-kind.jsonl");
    assert_eq!(t.format, Format::Codex);
    assert_eq!(t.stats.lines_parsed, 17);
    let tr = &t.trajectories[0];
    assert!(tr.final_answer.as_deref().is_some_and(|a| a.starts_with("Available tool groups")));
    // exec_command_end folds its exit code into the output of the same call.
    let out = tr.steps.iter().find(|s| s.kind == trajscope_core::model::StepKind::Observation);
    assert_eq!(out.and_then(|s| s.exit_code), Some(0));
}

#[test]
fn tau2_results() {
    let t = golden("tau2/airline_3_simulations.json");
    assert_eq!(t.format, Format::Tau2);
    // Each simulation: its policy as step 0, then one step per message.
    assert_eq!(counts(&t), [19, 15, 7]);
    let outcomes: Vec<Outcome> = t.trajectories.iter().map(|t| t.outcome).collect();
    assert_eq!(outcomes, [Outcome::Failed, Outcome::Passed, Outcome::Failed]);
    let errors: Vec<&Step> =
        t.trajectories.iter().flat_map(|t| &t.steps).filter(|s| s.is_error).collect();
    assert_eq!(errors.len(), 1);
    assert!(errors[0].tool.is_some(), "a tool error names its tool");

    // The whole real file (gzip, no hint): 50 simulations, 22 failed, 1191 messages.
    let bytes = read("tau2/airline_run1.no_raw_data.json.gz");
    let t = ingest(&bytes, IngestOptions::default());
    assert_eq!((t.format, t.error.as_deref()), (Format::Tau2, None));
    assert_eq!(t.trajectories.len(), 50);
    let failed = t.trajectories.iter().filter(|t| t.outcome == Outcome::Failed).count();
    assert_eq!(failed, 22);
    let messages: usize = t.trajectories.iter().map(|t| t.steps.len() - 1).sum();
    assert_eq!(messages, 1191);
    let tool_errors = t.trajectories.iter().flat_map(|t| &t.steps).filter(|s| s.is_error).count();
    assert_eq!(tool_errors, 12);
}

#[test]
fn swe_agent_traj() {
    let t = golden("swe_agent/pydicom__pydicom-1458.traj");
    assert_eq!(t.format, Format::SweAgent);
    // 12 turns, each an action and its observation.
    assert_eq!(counts(&t), [24]);
    let tr = &t.trajectories[0];
    assert_eq!(tr.outcome, Outcome::Unknown, "submitted, not yet judged");
    assert!(tr.task.as_deref().is_some_and(|t| t.contains("Pixel Representation")));
    assert_eq!(tr.steps[22].tool.as_deref(), Some("submit"));
    assert!(tr.final_answer.as_deref().is_some_and(|p| p.contains("diff --git")));
}

#[test]
fn mini_swe_agent_both_formats() {
    let t = golden("mini_swe_agent/django__django-10914.trimmed.traj.json");
    assert_eq!(t.format, Format::MiniSweAgent);
    assert_eq!(counts(&t), [43]);
    let tr = &t.trajectories[0];
    assert_eq!(tr.id, "django__django-10914");
    let last = tr.steps.last().map(|s| (s.kind, s.status.clone()));
    assert_eq!(last, Some((trajscope_core::model::StepKind::RunEnd, Some("Submitted".into()))));
    let actions = tr.steps.iter().filter(|s| s.tool.as_deref() == Some("bash")).count();
    assert_eq!(actions, 20);

    // The older bare list: 22 messages; user replies carrying <returncode> are observations.
    let t = golden("mini_swe_agent/github_issue.traj.json");
    assert_eq!(t.format, Format::MiniSweAgent);
    assert_eq!(counts(&t), [22]);
    let tr = &t.trajectories[0];
    let first_obs =
        tr.steps.iter().find(|s| s.kind == trajscope_core::model::StepKind::Observation);
    assert_eq!(first_obs.map(|s| (s.exit_code, s.is_error)), Some((Some(1), true)));
}

#[test]
fn openhands_event_lists() {
    let t = golden("openhands/basic.json");
    assert_eq!(t.format, Format::Openhands);
    assert_eq!(counts(&t), [4]);
    let tr = &t.trajectories[0];
    assert_eq!(tr.steps[2].ids.parent_id.as_deref(), Some("3"), "observation names its cause");
    assert_eq!(tr.steps[2].tool, tr.steps[1].tool);
    assert!(tr.final_answer.is_some());

    let t = golden("openhands/examples-one-per-kind.json");
    assert_eq!(t.format, Format::Openhands);
    assert_eq!(counts(&t), [6]);
    let run = &t.trajectories[0].steps[4];
    assert_eq!((run.kind, run.exit_code), (trajscope_core::model::StepKind::Observation, Some(0)));
}

#[test]
fn inspect_json_logs() {
    let t = golden("inspect/browser.no_events.json");
    assert_eq!(t.format, Format::Inspect);
    // 10 messages and one `includes` score.
    assert_eq!(counts(&t), [11]);
    let tr = &t.trajectories[0];
    assert_eq!(tr.outcome, Outcome::Passed);
    let judge = tr.steps.last().map(|s| (s.kind, s.status.clone()));
    assert_eq!(judge, Some((trajscope_core::model::StepKind::JudgeResult, Some("C".into()))));
    assert_eq!(tr.steps[1].tool.as_deref(), Some("web_browser_go"));

    let t = golden("inspect/log_tool_call_error.json");
    assert_eq!(t.format, Format::Inspect);
    let tr = &t.trajectories[0];
    let errors: Vec<&str> =
        tr.steps.iter().filter(|s| s.is_error).filter_map(|s| s.status.as_deref()).collect();
    assert_eq!(
        errors,
        [
            "parsing",
            "timeout",
            "parsing",
            "unicode_decode",
            "permission",
            "file_not_found",
            "is_a_directory",
            "limit",
            "approval",
            "unknown",
            "output_limit"
        ]
    );
}

#[test]
fn langsmith_run_payloads() {
    for rel in [
        "langsmith/langsmith_py_wrap_openai_.json",
        "langsmith/langsmith_js_wrap_openai_default.json",
    ] {
        let t = golden(rel);
        assert_eq!(t.format, Format::Langsmith, "{rel}");
        // The user's request, then the llm run's reply (create and update merged).
        assert_eq!(counts(&t), [2], "{rel}");
        let reply = &t.trajectories[0].steps[1];
        assert!(reply.text.starts_with("Howdy"), "{rel}: {}", reply.text);
    }
    let t = golden("langsmith/nested_tool_error.json");
    let tr = &t.trajectories[0];
    assert_eq!(tr.outcome, Outcome::Failed);
    let order: Vec<&str> = tr.steps.iter().skip(1).map(|s| s.actor.as_str()).collect();
    assert_eq!(order, ["ChatOpenAI", "run_tests", "AgentExecutor"]);
    assert_eq!(tr.steps[2].ids.parent_id.as_deref(), Some("r1"));
    assert!(tr.steps[2].is_error);
}

/// A nested run takes the run that holds it as its parent and that run's trace when it names
/// neither, and keeps its own link when it names one (a tree exported flat under its root).
/// A batch of `post` runs alone (no `patch` key), as a document or a line, is read as runs,
/// their `child_runs` unfolded.
#[test]
fn langsmith_nested_runs_take_or_keep_their_links_and_post_only_batches_are_runs() {
    let run = |id: &str, extra: &str| {
        format!(
            r#"{{"id":"{id}","name":"n-{id}","run_type":"chain","inputs":{{"q":"{id}?"}},"outputs":{{"output":"{id}!"}},"start_time":"2026-01-01T00:00:0{}Z"{extra}}}"#,
            id.len()
        )
    };
    let children =
        format!(r#","child_runs":[{},{}]"#, run("ab", ""), run("abc", r#","parent_run_id":"ab""#));
    let tree = run("a", &children);
    let t = ingest(tree.as_bytes(), IngestOptions::default());
    assert_eq!(t.format, Format::Langsmith);
    assert_eq!(t.trajectories.len(), 1, "the children take the root's trace");
    let links: Vec<(&str, Option<&str>)> = t.trajectories[0]
        .steps
        .iter()
        .skip(1)
        .map(|s| (s.actor.as_str(), s.ids.parent_id.as_deref()))
        .collect();
    assert_eq!(links, [("n-abc", Some("ab")), ("n-ab", Some("a")), ("n-a", None)]);
    for batch in [format!(r#"{{"post":[{tree}]}}"#), format!("{{\"post\":[{tree}]}}\n")] {
        let t = ingest(batch.as_bytes(), IngestOptions::default());
        assert_eq!(t.format, Format::Langsmith, "{batch}");
        assert_eq!(t.stats.lines_quarantined, 0, "{:?}", t.quarantine);
        let actors: Vec<&str> = t.trajectories[0].steps.iter().map(|s| s.actor.as_str()).collect();
        assert_eq!(actors, ["", "n-abc", "n-ab", "n-a"]);
    }
    // The task step is the root's input, at the root's start.
    assert_eq!(t.trajectories[0].steps[0].timestamp.as_deref(), Some("2026-01-01T00:00:01Z"));
}

/// A patch fills what its run's create left null (its outputs) and never erases with a null
/// what the create said (its error).
#[test]
fn langsmith_patches_fill_nulls_and_keep_what_they_do_not_say() {
    let batch = r#"{"post":[{"id":"r","name":"tool","run_type":"tool","trace_id":"r","inputs":{"q":"x"},"outputs":null,"error":"boom","start_time":"2026-01-01T00:00:00Z"}],"patch":[{"id":"r","trace_id":"r","outputs":{"output":"done"},"error":null}]}"#;
    let t = ingest(batch.as_bytes(), IngestOptions::default());
    let run = t.trajectories[0].steps.last().unwrap();
    assert_eq!(run.text, "done\nboom", "the patch's outputs over the create's null, its error");
    assert!(run.is_error, "the create's error is not erased by the patch's null");
}

/// Runs one a line without a `trace_id` find their trace through their ancestors; a cycle of
/// parent links ends (each run of it its own trace); the task is the last user (or `human`)
/// message of the root's chat inputs; an empty or `None` error is none; each run's step is at
/// its start time.
#[test]
fn langsmith_runs_find_their_trace_through_ancestors_and_read_their_inputs() {
    let run = |id: &str, parent: &str, extra: &str| {
        format!(
            r#"{{"id":"{id}","name":"n-{id}","run_type":"chain","parent_run_id":{parent},"inputs":{{}},"outputs":{{"output":"{id}!"}},"start_time":"2026-01-01T00:00:0{}Z"{extra}}}"#,
            id.len()
        )
    };
    let chat = r#","inputs":{"messages":[{"role":"user","content":"first ask"},{"role":"assistant","content":"ok"},{"role":"user","content":"the ask"},{"role":"assistant","content":"reply"}]}"#;
    let lines = [
        run("t", "null", &format!(r#","trace_id":"T","error":""{chat}"#)),
        run("tc", "\"t\"", r#","error":"None""#),
        run("tcc", "\"tc\"", ""),
        run("x", "\"y\"", ""),
        run("y", "\"x\"", ""),
        // Under the cycle, not in it: its path up ends too (in the cycle's trace).
        run("z", "\"x\"", ""),
    ]
    .join("\n");
    let t = ingest(lines.as_bytes(), IngestOptions::default());
    assert_eq!(t.format, Format::Langsmith);
    let ids: Vec<&str> = t.trajectories.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids.first(), Some(&"T"), "{ids:?}");
    assert_eq!(
        ids.len(),
        3,
        "the cycle ends: its runs (and the one under it) are traced apart: {ids:?}"
    );
    let tr = &t.trajectories[0];
    let actors: Vec<&str> = tr.steps.iter().skip(1).map(|s| s.actor.as_str()).collect();
    assert_eq!(actors, ["n-tcc", "n-tc", "n-t"], "the grandchild found T through its parent");
    assert_eq!(tr.task.as_deref(), Some("the ask"), "the last user message, not the last one");
    assert!(tr.steps.iter().all(|s| !s.is_error), "an empty or None error is none");
    assert_eq!(tr.outcome, Outcome::Unknown);
    assert_eq!(tr.steps[1].timestamp.as_deref(), Some("2026-01-01T00:00:03Z"));
    // LangChain's `human` role is a user's.
    let human = run(
        "h",
        "null",
        r#","inputs":{"messages":[{"role":"human","content":"asked"},{"role":"ai","content":"said"}]}"#,
    );
    let t = ingest(human.as_bytes(), IngestOptions::default());
    assert_eq!(t.trajectories[0].task.as_deref(), Some("asked"));
}

/// A run's duration is its end time less its start time (none when it ends before it starts);
/// an empty `outputs` object is no text.
#[test]
fn langsmith_run_durations_and_empty_outputs() {
    let run = |id: &str, end: &str, outputs: &str| {
        format!(
            r#"{{"id":"{id}","trace_id":"{id}","name":"n-{id}","run_type":"tool","inputs":{{"q":"?"}},"outputs":{outputs},"start_time":"2026-01-01T00:00:01Z","end_time":"{end}"}}"#
        )
    };
    let lines = [
        run("later", "2026-01-01T00:00:02.5Z", r#"{"output":"x"}"#),
        run("same", "2026-01-01T00:00:01Z", r#"{"output":"x"}"#),
        run("before", "2026-01-01T00:00:00Z", "{}"),
    ]
    .join("\n");
    let t = ingest(lines.as_bytes(), IngestOptions::default());
    assert_eq!(t.format, Format::Langsmith);
    let runs: Vec<(&str, Option<u64>, &str)> = t
        .trajectories
        .iter()
        .map(|t| {
            let run = t.steps.last().unwrap();
            (t.id.as_str(), run.usage.as_ref().and_then(|u| u.duration_ms), run.text.as_str())
        })
        .collect();
    assert_eq!(
        runs,
        [("later", Some(1_500), "x"), ("same", Some(0), "x"), ("before", None, "")],
        "an empty outputs object is no text, not `{{}}`"
    );
}

#[test]
fn langsmith_run_trees_and_runs_per_line() {
    // Found by QA: a run tree (nested `child_runs`) was refused as a document and its children
    // dropped inside a list; one run a line fell back to the generic reader. The same runs
    // three ways give the same steps: children depth-first, each after its own children.
    let texts = |t: &Trace| -> Vec<String> {
        t.trajectories[0]
            .steps
            .iter()
            .map(|s| format!("{:?} {} {} {}", s.kind, s.actor, s.is_error, s.text))
            .collect()
    };
    let tree = golden("langsmith/run_tree_nested.json");
    let listed = golden("langsmith/run_tree_in_list.json");
    let lines = golden("langsmith/runs_per_line.jsonl");
    for t in [&tree, &listed, &lines] {
        assert_eq!(t.format, Format::Langsmith);
        assert_eq!(t.trajectories.len(), 1, "one trace: the children take the root's");
        assert_eq!(t.stats.lines_quarantined, 0);
        assert_eq!(texts(t), texts(&tree));
    }
    let tr = &tree.trajectories[0];
    assert_eq!(tr.id, "a1b2");
    assert_eq!(tr.outcome, Outcome::Failed);
    let actors: Vec<&str> = tr.steps.iter().skip(1).map(|s| s.actor.as_str()).collect();
    assert_eq!(actors, ["ChatOpenAI", "requests.get", "get_weather", "AgentExecutor"]);
    // The llm run's call in LangChain's serialised form, and the tool run's error.
    let call = &tr.steps[1];
    assert_eq!(call.kind, StepKind::Action);
    assert_eq!(call.tool.as_deref(), Some("get_weather"));
    assert_eq!(call.args.as_deref(), Some(r#"{"city":"Paris","unit":"fahrenheit"}"#));
    assert_eq!(call.usage.as_ref().and_then(|u| u.input_tokens), Some(120));
    assert!(tr.steps[3].is_error && tr.steps[3].ids.parent_id.as_deref() == Some("a1b2"));
    assert_eq!(tr.steps[2].ids.parent_id.as_deref(), Some("c2"));
    // Forced, the run tree is read the same; a run-per-line file too.
    let forced = IngestOptions { format: Some(Format::Langsmith), ..IngestOptions::default() };
    assert_eq!(
        texts(&ingest(&read("langsmith/run_tree_nested.json"), forced.clone())),
        texts(&tree)
    );
    let forced_lines = ingest(&read("langsmith/runs_per_line.jsonl"), forced.clone());
    assert_eq!(texts(&forced_lines), texts(&tree));
    // A line that is no run is quarantined with its reason, a bad child with where it is.
    let bad = [
        r#"{"id":"r1","trace_id":"r1","run_type":"chain","name":"root","inputs":{"input":"hi"}}"#,
        r#"{"note":"not a run"}"#,
        r#"{"id":"r2","parent_run_id":"r1","run_type":"tool","name":"t","child_runs":[3]}"#,
    ];
    let t = ingest(bad.join("\n").as_bytes(), IngestOptions::default());
    assert_eq!(t.format, Format::Langsmith);
    let reasons: Vec<&str> = t.quarantine.iter().map(|q| q.reason.as_str()).collect();
    assert_eq!(
        reasons,
        [
            "not a LangSmith run (no `run_type`) nor a post/patch batch",
            "$.child_runs[0] is a number, not an object"
        ]
    );
    assert_eq!(t.trajectories[0].steps.len(), 2, "the root's request and its run");
    // An object of another shape, forced, says what a LangSmith document is.
    let other = ingest(br#"{"hello": 1}"#, forced);
    assert_eq!(
        other.quarantine[0].reason,
        "LangSmith runs are a post/patch object, a run (`run_type`) or a list of runs, not an \
         object without `run_type`, `post` or `patch`"
    );
}

#[test]
fn otel_genai_spans() {
    let t = golden("otel/genai_handoff.jsonl");
    assert_eq!(t.format, Format::Otel);
    assert_eq!(t.stats.lines_parsed, 3);
    // The request, then 8 spans ordered by start time; and the timed-out trace.
    assert_eq!(counts(&t), [9, 2]);
    let tr = &t.trajectories[0];
    let actors: Vec<&str> = tr.steps.iter().map(|s| s.actor.as_str()).collect();
    assert_eq!(
        actors,
        ["", "triage", "triage", "triage", "triage", "refunds", "refunds", "refunds", "refunds"]
    );
    let failed: Vec<_> = tr.steps.iter().filter(|s| s.is_error).collect();
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0].tool.as_deref(), Some("cancel_reservation"));
    assert_eq!(failed[0].ids.source_action_id.as_deref(), Some("call_2"));
    assert!(tr.final_answer.as_deref().is_some_and(|a| a.contains("refunded")));
    assert_eq!(t.trajectories[1].outcome, Outcome::Failed);
}

#[test]
fn openinference_and_openllmetry_spans() {
    let t = golden("otel/openinference_openllmetry.jsonl");
    assert_eq!(t.format, Format::Otel);
    // OpenInference: the request, then the agent's root span, two model calls and a tool's.
    assert_eq!(counts(&t), [5, 7]);
    let oi = &t.trajectories[0];
    assert_eq!(oi.task.as_deref(), Some(oi.steps[0].text.as_str()));
    assert!(oi.steps[0].text.starts_with("What was the closing price of ACME on 2024-03-05?"));
    let call = &oi.steps[2];
    assert_eq!(call.kind, StepKind::Action);
    assert_eq!(call.tool.as_deref(), Some("get_stock_price"));
    assert_eq!(call.ids.action_id.as_deref(), Some("call_a1"));
    assert!(call.args.as_deref().is_some_and(|a| a.contains("2024-03-15")));
    let usage = call.usage.as_deref().expect("llm.token_count.* read");
    assert_eq!(
        (usage.input_tokens, usage.output_tokens, usage.cache_read_tokens),
        (Some(412), Some(28), Some(256))
    );
    assert_eq!(usage.cost_usd, Some(0.00131));
    let result = &oi.steps[3];
    assert_eq!((result.role, result.kind), (Role::Tool, StepKind::Observation));
    assert_eq!(result.ids.source_action_id.as_deref(), Some("call_a1"));
    assert_eq!(result.text, "ACME closed at 42.10 USD on 2024-03-15.");
    // A message of `contents`: the reasoning and the text, in their order.
    assert_eq!(oi.steps[4].text, "The tool returned the closing price, so I can answer.\n42.10");
    assert!(oi.steps[1..].iter().all(|s| s.actor == "price_researcher"));
    assert_eq!(oi.final_answer.as_deref(), Some("42.10"));
    // OpenLLMetry: a workflow whose root failed; its agent span names the actor below it.
    let ll = &t.trajectories[1];
    assert_eq!(ll.outcome, Outcome::Failed);
    // The request from the root's `traceloop.entity.input`, a function's `kwargs`.
    let task = "Make tests/test_cache.py pass without editing the test file.";
    assert_eq!(ll.task.as_deref(), Some(task));
    let tools: Vec<_> = ll.steps.iter().filter_map(|s| s.tool.as_deref()).collect();
    assert_eq!(tools, ["write_file", "write_file", "run_tests"]);
    assert_eq!(ll.steps[3].ids.action_id.as_deref(), Some("call_x1"));
    let failed: Vec<_> = ll.steps.iter().filter(|s| s.is_error).map(|s| s.index).collect();
    assert_eq!(failed, [1, 5], "the failed root and the failed test run");
    assert!(ll.steps[3..].iter().all(|s| s.actor == "coder"));
    assert_eq!(ll.final_answer.as_deref(), Some("The tests pass now."));
}

mod never_panic {
    //! Every adapter meets documents of every shape: arbitrary JSON built from the keys the
    //! formats look for must give trajectories or a clear error, never a panic.
    use proptest::prelude::*;
    use serde_json::{Map, Value};
    use trajscope_core::ingest::formats::{from_document, jsonl_adapter};
    use trajscope_core::model::{Format, SourceLoc};

    const KEYS: &[&str] = &[
        "history",
        "messages",
        "conversations",
        "from",
        "value",
        "resolved",
        "metadata",
        "annotation",
        "critical_error_step",
        "mistake_step",
        "simulations",
        "trajectory",
        "info",
        "samples",
        "scores",
        "post",
        "patch",
        "resourceSpans",
        "scopeSpans",
        "spans",
        "attributes",
        "role",
        "content",
        "tool_calls",
        "type",
        "payload",
        "message",
        "name",
        "id",
        "uuid",
        "parentUuid",
        "sessionId",
        "isSidechain",
        "agentId",
        "error",
        "is_error",
        "status",
        "code",
        "parts",
        "function",
        "arguments",
        "extra",
        "returncode",
        "action",
        "observation",
        "source",
        "cause",
        "extras",
        "value",
        "reward_info",
        "reward",
        "dotted_order",
        "trace_id",
        "parent_run_id",
        "run_type",
        "outputs",
        "choices",
        "key",
        "stringValue",
        "intValue",
        "tool_use_id",
        "call_id",
        "output",
        "policy",
        "attachments",
        "spanId",
        "parentSpanId",
        "traceId",
        "object",
        "span_data",
        "parent_id",
        "started_at",
        "ended_at",
        "data",
        "span",
        "input",
        "triggered",
    ];

    fn json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            (-1.0e6f64..1.0e6).prop_map(Value::from),
            "[a-z0-9 <>/:._-]{0,12}".prop_map(Value::String),
            prop::sample::select(vec![
                "user",
                "assistant",
                "tool",
                "system",
                "exit",
                "tool_use",
                "tool_result",
                "function_call",
                "function_call_output",
                "exec_command_end",
                "chat",
                "execute_tool",
                "invoke_agent",
                "llm",
                "attachment://x",
                "Exit code 1",
                "exitcode: 2",
                "<returncode>1</returncode>",
                "[tool_calls]\n- f(",
                "Orchestrator (-> WebSurfer)",
                "STATUS_CODE_ERROR",
                "trace",
                "trace.span",
                "generation",
                "agent",
                "handoff",
                "guardrail",
                "human",
                "gpt",
                "observation",
                "2025-01-01T00:00:00.5+00:00",
                "C",
                "I",
                "12",
                "-3",
            ])
            .prop_map(|s| Value::String(s.to_string())),
        ];
        leaf.prop_recursive(5, 64, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                prop::collection::vec((prop::sample::select(KEYS), inner), 0..6).prop_map(|kvs| {
                    let mut m = Map::new();
                    for (k, v) in kvs {
                        m.insert(k.to_string(), v);
                    }
                    Value::Object(m)
                }),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]
        #[test]
        fn adapters_take_any_shape_without_panicking(v in json()) {
            for f in Format::ALL {
                if f.is_jsonl() {
                    let mut a = jsonl_adapter(f);
                    for (i, line) in [v.to_string(), v.to_string()].iter().enumerate() {
                        let loc = SourceLoc { line: i as u32 + 1, ..SourceLoc::default() };
                        let _ = a.push_line(line, loc, i as u64);
                    }
                    let _ = a.finish();
                } else if let Ok(ts) = from_document(f, v.clone()) {
                    for t in ts {
                        for (i, s) in t.steps.iter().enumerate() {
                            prop_assert_eq!(s.index as usize, i);
                        }
                    }
                }
            }
            let _ = trajscope_core::ingest(v.to_string().as_bytes(), Default::default());
        }
    }
}

#[test]
fn sniffing_does_not_misfire_across_formats() {
    let detect = |text: &str| ingest(text.as_bytes(), IngestOptions::default()).format;
    // A chat log of generic objects: `type: message` alone does not make AWTL.
    let generic = "{\"type\":\"message\",\"role\":\"user\",\"content\":\"hi\"}\n\
                   {\"type\":\"message\",\"role\":\"assistant\",\"content\":\"hello\"}\n";
    assert_eq!(detect(generic), Format::Generic);
    assert_eq!(detect("{\"role\":\"user\",\"content\":\"hi\"}\n"), Format::Generic);
    assert_eq!(detect("{\"level\":\"info\",\"msg\":\"started\",\"ts\":1}\n"), Format::Generic);
    // AWTL message lines carry AWTL ids; actions and observations are AWTL on their own.
    assert_eq!(detect("{\"type\":\"message\",\"run_id\":\"r1\",\"text\":\"x\"}\n"), Format::Awtl);
    assert_eq!(
        detect("{\"type\":\"observation\",\"spanId\":\"s\",\"exitCode\":1}\n"),
        Format::Awtl
    );
    // Claude Code lines are told by their session fields, not by `type: user`.
    assert_eq!(
        detect("{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"x\"}}\n"),
        Format::Generic
    );
    assert_eq!(
        detect("{\"type\":\"user\",\"uuid\":\"u\",\"sessionId\":\"s\",\"message\":{\"role\":\"user\",\"content\":\"x\"}}\n"),
        Format::ClaudeCode
    );
    assert_eq!(detect("{\"sessionId\":\"s\",\"cwd\":\"/w\"}\n"), Format::ClaudeCode);
    // A headless run's stream names its session `session_id`: its messages, `init` and
    // `result` lines are Claude Code's; a `session_id` beside other fields is not.
    for line in [
        r#"{"type":"system","subtype":"init","session_id":"s"}"#,
        r#"{"type":"result","subtype":"success","session_id":"s"}"#,
        r#"{"type":"assistant","message":{"role":"assistant","content":[]},"session_id":"s"}"#,
    ] {
        assert_eq!(detect(&format!("{line}\n")), Format::ClaudeCode, "{line}");
    }
    for line in [
        r#"{"type":"user","message":"hi","session_id":"s"}"#,
        r#"{"type":"result","value":1,"session_id":"s"}"#,
        r#"{"type":"system","subtype":"init"}"#,
    ] {
        assert_eq!(detect(&format!("{line}\n")), Format::Generic, "{line}");
    }
    // `codex exec --json`: its thread's first line or an item's line; a `thread_id` elsewhere
    // (LangGraph's configs name threads) is not Codex's.
    assert_eq!(detect("{\"type\":\"thread.started\",\"thread_id\":\"t\"}\n"), Format::Codex);
    let item = r#"{"type":"item.completed","item":{"id":"i","type":"agent_message","text":"x"}}"#;
    assert_eq!(detect(&format!("{item}\n")), Format::Codex);
    assert_eq!(detect("{\"type\":\"thread.started\"}\n"), Format::Generic);
    assert_eq!(
        detect("{\"type\":\"message\",\"thread_id\":\"t\",\"text\":\"x\"}\n"),
        Format::Generic
    );
    assert_eq!(detect("{\"type\":\"item.completed\",\"item\":{\"id\":\"i\"}}\n"), Format::Generic);
    // A Gemini CLI session has a `sessionId` too: its messages make it a chat record, its
    // `projectHash` the first line of one written a message a line.
    let gemini = "{\"sessionId\":\"s\",\"messages\":[{\"type\":\"user\",\"content\":\"hi\"}]}";
    assert_eq!(detect(gemini), Format::Chat);
    assert_eq!(detect("{\"sessionId\":\"s\",\"projectHash\":\"h\"}\n"), Format::Generic);
    assert_eq!(
        detect("{\"messages\":[{\"type\":\"note\",\"content\":\"hi\"}]}\n"),
        Format::Generic
    );
    // Codex needs its envelope; OTLP its `resourceSpans`.
    assert_eq!(
        detect("{\"type\":\"event_msg\",\"payload\":{\"type\":\"user_message\"}}\n"),
        Format::Codex
    );
    assert_eq!(detect("{\"type\":\"event_msg\"}\n"), Format::Generic);
    assert_eq!(detect("{\"resourceSpans\":[]}\n"), Format::Otel);
    // Documents: SWE-agent has a `history` too, OpenHands output nests its events in `history`.
    assert_eq!(detect("{\"trajectory\":[],\"history\":[],\"info\":{}}"), Format::SweAgent);
    assert_eq!(
        detect("{\"instance_id\":\"x\",\"history\":[{\"id\":0,\"source\":\"user\",\"action\":\"message\"}]}"),
        Format::Openhands
    );
    assert_eq!(
        detect("{\"question\":\"q\",\"history\":[{\"role\":\"human\",\"content\":\"q\"}]}"),
        Format::WhoAndWhen
    );
    // A chat `messages` list with a TRAJERRBENCH annotation vs with mini-swe-agent `info`.
    assert_eq!(detect("{\"messages\":[],\"metadata\":{\"annotation\":{}}}"), Format::Trajerrbench);
    assert_eq!(detect("{\"messages\":[],\"info\":{}}"), Format::MiniSweAgent);
    // A chat record: a `messages` list of role objects (or ShareGPT `conversations`) alone, per
    // line or in a list; with mini-swe-agent's `info` it stays mini-swe-agent.
    let msgs = "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]";
    assert_eq!(detect(&format!("{{{msgs}}}\n{{{msgs}}}\n")), Format::Chat);
    assert_eq!(detect(&format!("[{{{msgs}}}]")), Format::Chat);
    assert_eq!(detect(&format!("{{{msgs},\"info\":{{}}}}")), Format::MiniSweAgent);
    assert_eq!(
        detect("{\"conversations\":[{\"from\":\"human\",\"value\":\"hi\"}]}\n"),
        Format::Chat
    );
    assert_eq!(detect("{\"messages\":[\"hi\"]}\n"), Format::Generic);
    // Agents SDK exports by their `object`, bare, batched or wrapped in an event.
    let span = "{\"object\":\"trace.span\",\"id\":\"s\",\"trace_id\":\"t\",\"span_data\":{\"type\":\"agent\"}}";
    assert_eq!(detect(&format!("{span}\n")), Format::OpenaiAgents);
    assert_eq!(detect(&format!("{{\"data\":[{span}]}}\n")), Format::OpenaiAgents);
    assert_eq!(
        detect(&format!("{{\"event\":\"span_end\",\"span\":{span}}}\n")),
        Format::OpenaiAgents
    );
    assert_eq!(
        detect("{\"object\":\"list\",\"data\":[{\"object\":\"model\"}]}\n"),
        Format::Generic
    );
}

#[test]
fn inspect_eval_archive() {
    // The same run as browser.no_events.json, as a zip archive: the same trajectory.
    let t = golden("inspect/browser.eval");
    assert_eq!((t.format, t.error.as_deref()), (Format::Inspect, None));
    assert_eq!(t.stats.lines_total, 0, "an archive has no lines");
    let json = ingest(&read("inspect/browser.no_events.json"), IngestOptions::default());
    let strip = |t: &Trace| -> Vec<(String, String, Option<Box<str>>)> {
        t.trajectories[0]
            .steps
            .iter()
            .map(|s| (s.text.clone(), format!("{:?}", s.kind), s.tool.clone()))
            .collect()
    };
    assert_eq!(strip(&t), strip(&json));
    assert_eq!(t.trajectories[0].outcome, json.trajectories[0].outcome);

    // A cut archive (its directory is at the end): a clear error, no panic.
    let mut cut = read("inspect/browser.eval");
    cut.truncate(cut.len() / 2);
    let t = ingest(&cut, IngestOptions::default());
    assert!(
        t.error.as_deref().is_some_and(|e| e.starts_with("the file is a zip archive")),
        "{:?}",
        t.error
    );
}

#[test]
fn generic_chat_jsonl() {
    let t = golden("generic/openai_chat.jsonl");
    assert_eq!(t.format, Format::Generic);
    assert_eq!(counts(&t), [6]);
    let steps = &t.trajectories[0].steps;
    assert_eq!(
        (steps[2].kind, steps[2].tool.as_deref()),
        (trajscope_core::model::StepKind::Action, Some("shell"))
    );
    assert_eq!(steps[3].ids.source_action_id, steps[2].ids.action_id);
    assert!(steps[3].is_error);
}

#[test]
fn chat_records_one_trajectory_per_record() {
    // One record per JSONL line: ids from the record, else the line; verdicts read; the cut
    // line quarantined and the records after it kept.
    let t = golden("chat/openai_messages.jsonl");
    assert_eq!(t.format, Format::Chat);
    assert_eq!(counts(&t), [9, 6, 2]);
    let ids: Vec<&str> = t.trajectories.iter().map(|tr| tr.id.as_str()).collect();
    assert_eq!(ids, ["calc-rounding-7", "calc-sum-2", "line-4"]);
    let outcomes: Vec<Outcome> = t.trajectories.iter().map(|tr| tr.outcome).collect();
    assert_eq!(outcomes, [Outcome::Failed, Outcome::Passed, Outcome::Failed]);
    assert_eq!(t.quarantine.len(), 1);
    assert_eq!(t.quarantine[0].line, 3);
    let run = &t.trajectories[0];
    assert_eq!(run.task.as_deref().map(|s| &s[..14]), Some("Fix `round_pri"));
    assert_eq!(run.final_answer.as_deref(), Some("The tests pass now; `round_price` is fixed."));
    let edit = &run.steps[4];
    assert_eq!((edit.kind, edit.tool.as_deref()), (StepKind::Action, Some("bash")));
    assert_eq!(run.steps[5].ids.source_action_id.as_deref(), Some("call_2"));
    assert_eq!(run.steps[5].kind, StepKind::Observation);
    // Each step points at its record's line.
    assert!(t.trajectories[2].steps.iter().all(|s| s.loc.line == 4));
}

#[test]
fn share_gpt_conversations_in_a_json_list() {
    let t = golden("chat/glaive_toolcall_demo.json");
    assert_eq!(t.format, Format::Chat);
    assert_eq!(counts(&t), [8, 12]);
    let ids: Vec<&str> = t.trajectories.iter().map(|tr| tr.id.as_str()).collect();
    assert_eq!(ids, ["chat-1", "chat-2"]);
    let steps = &t.trajectories[1].steps;
    // `function_call` turns are the assistant's tool calls, `observation` turns their results.
    assert_eq!(
        (steps[1].kind, steps[1].role, steps[1].tool.as_deref()),
        (StepKind::Action, Role::Assistant, Some("calculate_area"))
    );
    // The call as written, keys in their order.
    let call =
        r#"{"name": "calculate_area", "arguments": {"shape": "rectangle", "dimensions": [5, 3]}}"#;
    assert_eq!((steps[1].args.as_deref(), steps[1].text.as_str()), (Some(call), call));
    assert_eq!((steps[2].kind, steps[2].text.as_str()), (StepKind::Observation, r#"{"area": 15}"#));
    assert!(t.trajectories.iter().all(|tr| tr.outcome == Outcome::Unknown));
}

/// A Gemini CLI session file (its `messages`, each of `type` `user` / `gemini` / `info` /
/// `error`): a chat record, each call's result a step of its own after the message that made it.
#[test]
fn gemini_cli_sessions_read_as_chat_records() {
    let t = golden("chat/gemini_cli_session.json");
    assert_eq!(t.format, Format::Chat, "not Claude Code's, for its `sessionId`");
    assert_eq!(counts(&t), [10]);
    let run = &t.trajectories[0];
    assert_eq!(run.id, "5f0c2a8e-7d41-4c1b-9a66-2f3e8b1d0c47");
    assert_eq!(run.task.as_deref().map(|s| &s[..28]), Some("The test test_parse_duration"));
    let kinds: Vec<(Role, StepKind)> = run.steps.iter().map(|s| (s.role, s.kind)).collect();
    use {Role::*, StepKind::*};
    assert_eq!(
        kinds,
        [
            (User, Message),
            (Assistant, Message),
            (Assistant, Action),
            (Tool, Observation),
            (Tool, Observation),
            (Assistant, Action),
            (Tool, Observation),
            (Other, Message),
            (Other, Message),
            (Assistant, Message),
        ]
    );
    // The first answer's thoughts, before it: a step of their own.
    let thought = &run.steps[1];
    assert_eq!(thought.text, "Locating the bug: Read timeutil.py, then run the test.");
    assert_eq!(thought.status.as_deref(), Some("thinking"));
    assert_eq!(
        thought.timestamp.as_deref(),
        Some("2025-10-02T09:14:07.900Z"),
        "the thought's own time"
    );
    let asked = &run.steps[2];
    assert_eq!(asked.tool.as_deref(), Some("read_file,run_shell_command"));
    let shell = &run.steps[4];
    assert_eq!(shell.ids.source_action_id.as_deref(), Some("run_shell_command-1759396449021-1"));
    assert_eq!((shell.exit_code, shell.is_error), (Some(1), true), "its `Exit Code:` line");
    assert!(shell.text.starts_with("Command: python -m pytest"), "{}", shell.text);
    // A call whose status is `error`: its `functionResponse`'s `error` is the text.
    let edit = &run.steps[6];
    assert!(edit.is_error && edit.text.starts_with("Failed to edit, 0 occurrences"));
    assert_eq!(edit.loc.path.as_ref(), "$.messages[2]", "the path of the message that called");
    assert_eq!(run.steps.iter().map(|s| s.is_error).collect::<Vec<_>>()[7..], [false, true, false]);
    assert_eq!(
        run.final_answer.as_deref(),
        Some("I updated the test to use a minutes:seconds duration; it should pass now.")
    );
    // Each `gemini` message's `tokens` are its step's usage (its results' steps have none).
    let usage = |s: &Step| {
        let u = s.usage.as_deref()?;
        Some([u.input_tokens?, u.output_tokens?, u.cache_read_tokens?])
    };
    let tokens = run.steps.iter().map(usage).collect::<Vec<_>>();
    let (a, b, c) = (Some([8210, 61, 0]), Some([8740, 88, 8192]), Some([9012, 19, 8192]));
    assert_eq!(tokens, [None, None, a, None, None, b, None, None, None, c], "not the thoughts'");
    // The same session on one line, and in the layout of one message a line (its first line
    // the session's fields): read alike, and neither is Claude Code's.
    let doc: serde_json::Value =
        serde_json::from_slice(&read("chat/gemini_cli_session.json")).unwrap();
    let one_line = ingest(doc.to_string().as_bytes(), IngestOptions::default());
    assert_eq!(one_line.format, Format::Chat);
    let steps =
        |t: &Trace| t.trajectories[0].steps.iter().map(|s| s.text.clone()).collect::<Vec<_>>();
    assert_eq!(steps(&one_line), steps(&t));
    let mut lines = doc.clone();
    let messages = lines.as_object_mut().unwrap().remove("messages").unwrap();
    let mut jsonl = format!("{lines}\n");
    for m in messages.as_array().unwrap() {
        jsonl.push_str(&format!("{m}\n"));
    }
    let per_line = ingest(jsonl.as_bytes(), IngestOptions::default());
    assert_eq!(per_line.format, Format::Generic);
    assert_eq!(per_line.quarantine, []);
    // The session's line is a step of its own; then the same steps.
    assert_eq!(steps(&per_line)[1..], steps(&t)[..]);
    let roles = |t: &Trace| {
        let steps = t.trajectories[0].steps.iter();
        steps.map(|s| (s.role, s.kind, s.is_error, s.usage.clone())).collect::<Vec<_>>()
    };
    assert_eq!(roles(&per_line)[1..], roles(&t)[..]);
}

/// A Goose session export (its `conversation`: messages whose `content` holds `toolRequest` and
/// `toolResponse` blocks): a chat record, each request an action and each response its reply;
/// the same messages one a line (older Goose's session files) read alike.
#[test]
fn goose_sessions_read_as_chat_records() {
    let t = golden("chat/goose_session.json");
    assert_eq!(t.format, Format::Chat);
    assert_eq!(counts(&t), [8]);
    let run = &t.trajectories[0];
    assert_eq!(run.id, "20251201_3");
    assert_eq!(run.task.as_deref().map(|s| &s[..17]), Some("The test tests/te"));
    let kinds: Vec<(Role, StepKind, bool)> =
        run.steps.iter().map(|s| (s.role, s.kind, s.is_error)).collect();
    use {Role::*, StepKind::*};
    assert_eq!(
        kinds,
        [
            (User, Message, false),
            (Assistant, Action, false),
            // A test run's failures are the detector's to find: the tool's result is no error.
            (Tool, Observation, false),
            (Assistant, Action, false),
            // `status: error`.
            (Tool, Observation, true),
            (Assistant, Action, false),
            (Tool, Observation, false),
            (Assistant, Message, false),
        ]
    );
    // A request's call: the tool's name and arguments under `toolCall.value`; a shell call's
    // command is its arguments, and what it writes is seen (the MCP tool `developer__shell`).
    let first = &run.steps[1];
    assert_eq!(first.tool.as_deref(), Some("developer__shell"));
    assert_eq!(first.args.as_deref(), Some("python -m pytest tests/test_slug.py -q"));
    assert_eq!(first.text, "I'll run the failing test first.");
    assert_eq!(first.ids.action_id.as_deref(), Some("toolu_01A"));
    let edit = &run.steps[3];
    assert_eq!(edit.tool.as_deref(), Some("developer__text_editor"));
    assert!(edit.artifact_refs.iter().any(|r| r.normalized == "tests/test_slug.py"), "{edit:?}");
    let sed = &run.steps[5];
    assert!(sed.artifact_refs.iter().any(|r| r.normalized == "tests/test_slug.py"), "{sed:?}");
    // A response: its result's content (a tool result's `content`, or the list of contents an
    // older Goose wrote), or its `error`; linked to its request by the block's `id`.
    let failed = &run.steps[2];
    assert!(failed.text.starts_with("F.\n=== FAILURES ==="), "{}", failed.text);
    assert_eq!(failed.ids.source_action_id.as_deref(), Some("toolu_01A"));
    assert_eq!(run.steps[4].text, "Execution failed: file tests/test_slug.py is read-only");
    assert_eq!(run.steps[6].text, "..\n2 passed in 0.03s");
    assert_eq!(run.final_answer.as_deref(), Some("Fixed: all tests pass now."));
    // Told it failed, the detector names the edit of the test the task said to leave alone.
    let mut failed_run = run.clone();
    failed_run.outcome = Outcome::Failed;
    let a = trajscope_core::attribution::analyze_trajectory(&failed_run, &Default::default());
    assert_eq!(a.critical.as_ref().map(|c| c.step), Some(3));
    // Older Goose's layout: a line of the session's fields, then one message a line.
    let doc: serde_json::Value = serde_json::from_slice(&read("chat/goose_session.json")).unwrap();
    let mut jsonl = String::from(r#"{"working_dir":"/home/dev/slugger","description":"Fix"}"#);
    jsonl.push('\n');
    for m in doc["conversation"].as_array().unwrap() {
        jsonl.push_str(&format!("{m}\n"));
    }
    let per_line = ingest(jsonl.as_bytes(), IngestOptions::default());
    assert_eq!((per_line.format, per_line.quarantine.len()), (Format::Generic, 0));
    let steps = |t: &Trace| {
        let steps = t.trajectories[0].steps.iter();
        steps
            .map(|s| (s.role, s.kind, s.is_error, s.text.clone(), s.tool.clone()))
            .collect::<Vec<_>>()
    };
    // The session's line is a step of its own; then the same steps.
    assert_eq!(steps(&per_line)[1..], steps(&t)[..]);
    // `conversation` is LMSYS-Chat-1M's key too: a row a line, one trajectory each.
    let lmsys = r#"{"conversation_id":"c1","model":"m","conversation":[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}],"turn":1}"#;
    let rows = ingest(format!("{lmsys}\n{lmsys}\n").as_bytes(), IngestOptions::default());
    let ids: Vec<&str> = rows.trajectories.iter().map(|t| t.id.as_str()).collect();
    assert_eq!((rows.format, ids), (Format::Chat, vec!["c1", "c1#2"]));
    assert_eq!(rows.trajectories[0].final_answer.as_deref(), Some("hello"));
}

/// A Langfuse trace (its `observations`: the agent's span, generations, tools' spans, an
/// event): a generation is the model's answer, a tool's span the result of the call a
/// generation made, the agent's span an error step where it ended in error; a list of the
/// observations alone reads the same, and a list of traces one trajectory each.
#[test]
fn langfuse_traces() {
    let t = golden("langfuse/flight_trace.json");
    assert_eq!(t.format, Format::Langfuse);
    assert_eq!(counts(&t), [7]);
    let run = &t.trajectories[0];
    assert_eq!(run.id, "lf-trace-0b3d");
    assert_eq!(run.outcome, Outcome::Failed, "the agent's span ended in error");
    let kinds: Vec<(Role, StepKind, bool)> =
        run.steps.iter().map(|s| (s.role, s.kind, s.is_error)).collect();
    use {Role::*, StepKind::*};
    assert_eq!(
        kinds,
        [
            (Assistant, Action, false),
            (Tool, Observation, false),
            (Assistant, Action, false),
            (Tool, Observation, true),
            (Assistant, Message, false),
            (Other, Message, false),
            (Other, Message, true),
        ]
    );
    let search = &run.steps[0];
    assert_eq!(
        (search.tool.as_deref(), search.actor.as_str()),
        (Some("search_flights"), "ChatOpenAI")
    );
    assert_eq!(search.ids.action_id.as_deref(), Some("call_s1"));
    assert_eq!(search.loc.path.as_ref(), "$.observations[1]");
    let usage = search.usage.as_deref().unwrap();
    assert_eq!((usage.input_tokens, usage.output_tokens), (Some(212), Some(41)));
    // A tool's span answers the call of its name: linked to it, not a second call.
    assert_eq!(run.steps[1].ids.source_action_id.as_deref(), Some("call_s1"));
    assert_eq!(run.steps[1].tool.as_deref(), Some("search_flights"));
    let booking = &run.steps[3];
    assert_eq!(booking.ids.source_action_id.as_deref(), Some("call_b1"));
    assert_eq!(booking.text, "HTTPError: 409 Conflict: fare class no longer available");
    // The agent's span, where it ended: its status is the error step's text.
    assert_eq!(run.steps[6].text, "Agent stopped due to iteration limit");
    assert_eq!(run.steps[6].loc.path.as_ref(), "$.observations[0]");
    assert_eq!(
        run.task.as_deref(),
        Some(r#"{"input":"Book the cheapest economy flight from LHR to JFK on 5 December."}"#)
    );
    // The search for the wrong day is the critical step.
    let a = trajscope_core::attribution::analyze_trajectory(run, &Default::default());
    assert_eq!(a.critical.as_ref().map(|c| c.step), Some(0));
    // The observations alone, as a list (pretty-printed, or on one line).
    let doc: serde_json::Value =
        serde_json::from_slice(&read("langfuse/flight_trace.json")).unwrap();
    let steps = |t: &Trace| {
        let steps = t.trajectories[0].steps.iter();
        steps.map(|s| (s.role, s.kind, s.is_error, s.text.clone())).collect::<Vec<_>>()
    };
    for text in [
        serde_json::to_string_pretty(&doc["observations"]).unwrap(),
        doc["observations"].to_string(),
    ] {
        let obs = ingest(text.as_bytes(), IngestOptions::default());
        assert_eq!((obs.format, obs.quarantine.len()), (Format::Langfuse, 0));
        assert_eq!(obs.trajectories[0].id, "lf-trace-0b3d");
        assert_eq!(steps(&obs), steps(&t));
    }
    // One observation a line (a JSONL export): the same steps, each at its line.
    let jsonl: String =
        doc["observations"].as_array().unwrap().iter().map(|o| format!("{o}\n")).collect();
    let lines = ingest(jsonl.as_bytes(), IngestOptions::default());
    assert_eq!((lines.format, lines.quarantine.len()), (Format::Langfuse, 0));
    assert_eq!(steps(&lines), steps(&t));
    let at: Vec<_> = lines.trajectories[0].steps.iter().map(|s| s.loc.line).collect();
    assert_eq!(at, [2, 3, 4, 5, 6, 7, 1], "the agent's span, on line 1, where it ended");
    // A list of two traces: two trajectories, the repeated id told apart.
    let two = ingest(format!("[{doc},{doc}]").as_bytes(), IngestOptions::default());
    let ids: Vec<&str> = two.trajectories.iter().map(|t| t.id.as_str()).collect();
    assert_eq!((two.format, ids), (Format::Langfuse, vec!["lf-trace-0b3d", "lf-trace-0b3d#2"]));
}

#[test]
fn openai_agents_sdk_exports() {
    let t = golden("openai_agents/refund_handoff.jsonl");
    assert_eq!(t.format, Format::OpenaiAgents);
    let tr = &t.trajectories[0];
    assert_eq!(tr.id, "trace_4f1c2a9be07d4c5a8e1b2c3d4e5f6a7b");
    // An error on the run's agent span (no parent) fails the run.
    assert_eq!(tr.outcome, Outcome::Failed);
    assert_eq!(
        tr.task.as_deref(),
        Some("Please refund order #A-1043, the blender arrived broken.")
    );
    assert_eq!(tr.steps[0].role, Role::User);
    // Ordered by start time, not by the order the spans ended in.
    // Each agent's steps under its name (tool results are the tool's: no actor).
    let actors: Vec<&str> = tr.steps.iter().map(|s| s.actor.as_str()).collect();
    assert_eq!(actors[1..4], ["Triage agent", "Triage agent", "Triage agent"]);
    let rest = tr.steps[4..].iter().filter(|s| s.role != Role::Tool);
    assert!(
        rest.clone().count() >= 6 && rest.clone().all(|s| s.actor == "Refund agent"),
        "{actors:?}"
    );
    // A function span is the call and its result, linked by the span id.
    let call = tr
        .steps
        .iter()
        .position(|s| {
            s.tool.as_deref() == Some("lookup_order")
                && s.kind == StepKind::Action
                && s.ids.action_id.is_some()
        })
        .expect("the function's call");
    let result = &tr.steps[call + 1];
    assert_eq!(result.kind, StepKind::Observation);
    assert_eq!(result.ids.source_action_id, tr.steps[call].ids.action_id);
    assert!(result.is_error && result.text.contains("OrderNotFound"), "{}", result.text);
    assert_eq!(
        tr.final_answer.as_deref(),
        Some("Your refund of $89.00 for order #A-1043 has been issued.")
    );
    // The same exports as one pretty-printed upload batch give the same trajectory.
    let batch = golden("openai_agents/refund_handoff.batch.json");
    assert_eq!(batch.format, Format::OpenaiAgents);
    let texts = |t: &Trace| -> Vec<String> {
        t.trajectories[0].steps.iter().map(|s| format!("{:?} {}", s.kind, s.text)).collect()
    };
    assert_eq!(texts(&batch), texts(&t));
}

#[test]
fn openai_agents_span_started_then_ended_is_one_span() {
    // A processor that writes `span_start` and `span_end` events wrapping the export: the
    // span's later fields (its output, its error) win; a line that is no export is quarantined.
    let lines = [
        r#"{"event":"span_start","span":{"object":"trace.span","id":"s1","trace_id":"t1","parent_id":null,"started_at":"2025-01-01T00:00:00+00:00","ended_at":null,"span_data":{"type":"function","name":"fetch","input":"{\"url\": \"x\"}","output":null},"error":null}}"#,
        r#"{"event":"note","text":"not a span"}"#,
        r#"{"event":"span_end","span":{"object":"trace.span","id":"s1","trace_id":"t1","parent_id":null,"started_at":"2025-01-01T00:00:00+00:00","ended_at":"2025-01-01T00:00:01.5+00:00","span_data":{"type":"function","name":"fetch","input":"{\"url\": \"x\"}","output":"timeout"},"error":{"message":"Error running tool","data":{"error":"timeout"}}}}"#,
    ];
    let t = ingest(lines.join("\n").as_bytes(), IngestOptions::default());
    assert_eq!(t.format, Format::OpenaiAgents);
    assert_eq!((t.stats.lines_parsed, t.stats.lines_quarantined), (2, 1));
    let tr = &t.trajectories[0];
    assert_eq!(tr.steps.len(), 2, "one span: its call and its result");
    assert_eq!(tr.steps[1].text, "timeout\nError running tool: timeout");
    assert_eq!(tr.steps[1].usage.as_ref().and_then(|u| u.duration_ms), Some(1500));
    assert_eq!(tr.outcome, Outcome::Failed);
}

#[test]
fn openai_agents_function_arguments_as_an_object_are_kept_and_an_open_call_precedes_the_end() {
    // Found by QA (/tmp/qa2/29_openai_agents_variants.jsonl): a function span's `input` as an
    // object was replaced by its last user message (nothing) as a generation's is; and a
    // function span without `ended_at` put its result after the run's end.
    let lines = [
        r#"{"object":"trace.span","id":"s_g","trace_id":"t1","parent_id":"s_a","started_at":"2025-06-02T10:15:00Z","ended_at":"2025-06-02T10:15:00.5Z","span_data":{"type":"generation","input":[{"role":"user","content":"refund order 42"},{"role":"assistant","content":"ok"}],"output":[{"role":"assistant","content":"Sure."}]}}"#,
        r#"{"object":"trace.span","id":"s_f","trace_id":"t1","parent_id":"s_a","started_at":"2025-06-02T10:15:02Z","span_data":{"type":"function","name":"refund","input":{"order":42},"output":null},"error":{"message":"Error running tool","data":null}}"#,
        r#"{"object":"trace.span","id":"s_h","trace_id":"t1","parent_id":"s_a","started_at":"2025-06-02T10:15:03Z","span_data":{"type":"custom","name":"note","input":{"k":[1]}}}"#,
        r#"{"object":"trace.span","id":"s_a","trace_id":"t1","parent_id":null,"started_at":"2025-06-02T10:14:59Z","ended_at":"2025-06-02T10:15:04Z","span_data":{"type":"agent","name":"Refund agent"},"error":{"message":"Max turns (3) exceeded","data":null}}"#,
    ];
    let t = ingest(lines.join("\n").as_bytes(), IngestOptions::default());
    assert_eq!(t.format, Format::OpenaiAgents);
    let tr = &t.trajectories[0];
    // A generation's input still gives only the task.
    assert_eq!(tr.task.as_deref(), Some("refund order 42"));
    let call = tr.steps.iter().position(|s| s.kind == StepKind::Action).expect("the call");
    assert_eq!(tr.steps[call].args.as_deref(), Some(r#"{"order":42}"#));
    assert_eq!(tr.steps[call].text, r#"refund({"order":42})"#);
    // Its result (no end time) right after it, and the custom span's input as written.
    assert_eq!(tr.steps[call + 1].kind, StepKind::Observation);
    assert!(tr.steps[call + 1].is_error);
    assert_eq!(tr.steps[call + 2].text, r#"custom note: {"input":{"k":[1]}}"#);
    // The run's end last.
    let kinds: Vec<StepKind> = tr.steps.iter().map(|s| s.kind).collect();
    assert_eq!(kinds.last(), Some(&StepKind::RunEnd), "{kinds:?}");
    assert_eq!(tr.outcome, Outcome::Failed);
    // The QA's file: the same, and a span exported without data says so rather than nothing.
    let t = golden("openai_agents/variants.jsonl");
    let texts: Vec<&str> = t.trajectories[0].steps.iter().map(|s| s.text.as_str()).collect();
    assert_eq!(
        texts[2..5],
        ["a span without `span_data`", r#"refund({"order":42})"#, "Error running tool"]
    );
}

#[test]
fn autogen_tool_events_are_actions_and_observations() {
    // Found by QA: a `ToolCallRequestEvent` was read as a message whose text was its calls'
    // JSON. A request is the agent's action (each call's name and arguments), its execution
    // the tools' reply (an error when a result says so), the summary a message that adds no
    // second action or error.
    let t = golden("generic/autogen_agentchat.jsonl");
    assert_eq!(t.format, Format::Generic);
    let steps = &t.trajectories[0].steps;
    let shape: Vec<(StepKind, Role, &str, bool)> =
        steps.iter().map(|s| (s.kind, s.role, s.actor.as_str(), s.is_error)).collect();
    use StepKind::{Action, Message, Observation};
    assert_eq!(
        shape,
        [
            (Message, Role::User, "", false),
            (Action, Role::Assistant, "weather_agent", false),
            (Observation, Role::Tool, "weather_agent", true),
            (Message, Role::Assistant, "weather_agent", false),
            (Message, Role::Assistant, "writer", false),
            (Action, Role::Assistant, "writer", false),
            (Observation, Role::Tool, "writer", false),
            (Message, Role::Assistant, "writer", false),
        ]
    );
    let request = &steps[1];
    assert_eq!(request.tool.as_deref(), Some("get_weather,get_weather"));
    assert_eq!(request.args.as_deref(), Some("{\"city\": \"Paris\"}\n{\"city\": \"Oslo\"}"));
    assert_eq!(request.ids.action_id.as_deref(), Some("call_paris,call_oslo"));
    assert_eq!(
        request.text,
        "get_weather({\"city\": \"Paris\"})\nget_weather({\"city\": \"Oslo\"})"
    );
    let results = &steps[2];
    assert_eq!(results.ids.source_action_id, request.ids.action_id);
    assert_eq!(results.tool.as_deref(), Some("get_weather,get_weather"));
    assert_eq!(
        results.text,
        "Paris: 14 degrees, light rain.\nError: weather service timed out for Oslo"
    );
    assert_eq!(steps[6].ids.source_action_id, steps[5].ids.action_id);
    assert_eq!(steps[5].tool.as_deref(), Some("write_file"));
    // The summary keeps its text and is no action.
    assert!(steps[3].tool.is_none() && steps[3].ids.action_id.is_none());
    // The older shape (QA's qa_06: no `id`, a summary without `tool_calls`) reads the same way.
    let old = golden("generic/qa_06_autogen_crlf.jsonl");
    let kinds: Vec<StepKind> = old.trajectories[0].steps.iter().map(|s| s.kind).collect();
    assert_eq!(kinds, [Message, Action, Observation, Message, Message, Message]);
}

#[test]
fn the_generic_reader_flags_common_error_fields_and_names_agents() {
    // Found by QA: AutoGen's `source` and `is_error` in a content list, a log's
    // `"level":"error"`, OpenInference's `status_code`, LangGraph's tool `status`, Anthropic's
    // `tool_result` `is_error` were all read as fine steps of no agent.
    let t = golden("generic/qa_06_autogen_crlf.jsonl");
    let tr = &t.trajectories[0];
    let flagged: Vec<bool> = tr.steps.iter().map(|s| s.is_error).collect();
    assert_eq!(flagged, [false, false, true, false, false, false]);
    let actors: Vec<&str> = tr.steps.iter().map(|s| s.actor.as_str()).collect();
    assert_eq!(actors, ["", "writer", "writer", "writer", "critic", ""]);
    assert_eq!((tr.steps[0].role, tr.steps[4].role), (Role::User, Role::Assistant));
    for (rel, errors) in [
        ("generic/qa_02_openinference.jsonl", vec![0, 2]),
        ("generic/qa_04_anthropic_messages.jsonl", vec![3]),
        ("generic/qa_05_langgraph_stream.jsonl", vec![2]),
    ] {
        let t = golden(rel);
        let at: Vec<usize> = t.trajectories[0]
            .steps
            .iter()
            .filter(|s| s.is_error)
            .map(|s| s.index as usize)
            .collect();
        assert_eq!(at, errors, "{rel}");
    }
    // Each line below: (record, is it an error).
    let cases = [
        (r#"{"ts":1,"level":"error","agent":"coder","msg":"boom"}"#, true),
        (r#"{"ts":1,"level":"FATAL","msg":"down"}"#, true),
        (r#"{"severity":"Critical","msg":"disk"}"#, true),
        (r#"{"status":"failed","msg":"job"}"#, true),
        (r#"{"is_error":"True","content":"x"}"#, true),
        (r#"{"error":"timeout"}"#, true),
        (r#"{"error":{"type":"ValueError"}}"#, true),
        (r#"{"result":{"status":{"status_code":"STATUS_CODE_ERROR"}}}"#, true),
        // Not errors: a null or empty error, a fine status or level, a schema's `status`, an
        // error only earlier in a repeated conversation.
        (r#"{"error":null,"msg":"fine"}"#, false),
        (r#"{"error":"","msg":"fine"}"#, false),
        (r#"{"error":{},"msg":"fine"}"#, false),
        (r#"{"status":"ok","level":"info","msg":"fine"}"#, false),
        (r#"{"level":"warning","msg":"error count 0"}"#, false),
        (r#"{"tools":[{"name":"t","input_schema":{"status":"error"}}],"msg":"x"}"#, false),
        (
            r#"{"event":"llm_start","payload":{"messages":[{"role":"user","content":[{"type":"tool_result","is_error":true}]},{"role":"user","content":"next"}]}}"#,
            false,
        ),
        (r#"{"is_error":false,"status":"error_free"}"#, false),
        // The word alone in a field that is no status or level: a message that says it.
        (r#"{"role":"assistant","content":"failed","note":"error"}"#, false),
    ];
    // A mark is looked for six levels deep, in objects and in lists of them, not deeper.
    let deep = |levels: usize, list: bool| {
        let (open, close) = if list { (r#"{"a":["#, "]}") } else { (r#"{"a":"#, "}") };
        let mark = r#"{"status":"error"}"#;
        format!("{}{mark}{}", open.repeat(levels), close.repeat(levels))
    };
    let deep: Vec<(String, bool)> = [(6, false), (7, false), (6, true), (7, true)]
        .into_iter()
        .map(|(levels, list)| (deep(levels, list), levels == 6))
        .collect();
    let cases = cases.iter().map(|(l, e)| (l.to_string(), *e)).chain(deep);
    for (line, error) in cases {
        let t = ingest(line.as_bytes(), IngestOptions::default());
        assert_eq!(t.format, Format::Generic, "{line}");
        assert_eq!(t.trajectories[0].steps[0].is_error, error, "{line}");
    }
    // A Responses item's type read only when the item is whole: a `function_call` with no
    // `name` stays the message it says, a `reasoning` record with a role keeps it.
    let t = ingest(br#"{"type":"function_call","content":"x"}"#, IngestOptions::default());
    let s = &t.trajectories[0].steps[0];
    assert_eq!((s.kind, s.text.as_str()), (StepKind::Message, "x"));
    let t =
        ingest(br#"{"type":"reasoning","role":"user","content":"hm"}"#, IngestOptions::default());
    assert_eq!(t.trajectories[0].steps[0].role, Role::User);
    // A shell call's command given as a list of words is the command; a list holding
    // anything else stays the arguments as written.
    let shell = |command: &str| {
        let args = serde_json::json!({ "command": serde_json::from_str::<serde_json::Value>(command).unwrap() });
        let call = serde_json::json!({"role": "assistant", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "shell", "arguments": args.to_string()}}
        ]});
        let t = ingest(call.to_string().as_bytes(), IngestOptions::default());
        t.trajectories[0].steps[0].args.as_deref().unwrap_or_default().to_string()
    };
    assert_eq!(shell(r#"["ls", "-la"]"#), "ls -la");
    assert_eq!(shell(r#"["ls", 1]"#), r#"{"command":["ls",1]}"#);
    // An `apply_patch` call's patch names the files it writes; another tool's text is not read
    // as a patch.
    let refs = |tool: &str| {
        let patch = "*** Begin Patch\n*** Update File: src/main.rs\n@@\n-a\n+b\n*** End Patch";
        let args = serde_json::json!({ "input": patch }).to_string();
        let call = serde_json::json!({"role": "assistant", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": tool, "arguments": args}}
        ]});
        let t = ingest(call.to_string().as_bytes(), IngestOptions::default());
        let refs = &t.trajectories[0].steps[0].artifact_refs;
        refs.iter().map(|r| r.normalized.clone()).collect::<Vec<_>>()
    };
    assert!(refs("apply_patch").contains(&"src/main.rs".to_string()), "{:?}", refs("apply_patch"));
    assert!(!refs("notes").contains(&"src/main.rs".to_string()), "{:?}", refs("notes"));
    // A line's own tool and time, its place in the file; the older OpenAI `function_call`
    // (one object) is an action as `tool_calls` are.
    let t = ingest(
        concat!(
            r#"{"role":"tool","tool":"bash","timestamp":"2026-12-01T10:00:00Z","content":"ok"}"#,
            "\n",
            r#"{"role":"assistant","function_call":{"name":"lookup","arguments":"{\"q\":1}"}}"#,
        )
        .as_bytes(),
        IngestOptions::default(),
    );
    let [a, b] = &t.trajectories[0].steps[..] else { panic!("two steps") };
    assert_eq!(a.tool.as_deref(), Some("bash"));
    assert_eq!(a.timestamp.as_deref(), Some("2026-12-01T10:00:00Z"));
    assert!(a.ingest_seq < b.ingest_seq, "{} {}", a.ingest_seq, b.ingest_seq);
    assert_eq!(
        (b.kind, b.tool.as_deref(), b.args.as_deref()),
        (StepKind::Action, Some("lookup"), Some(r#"{"q":1}"#))
    );
    // OpenAI's `developer` message is the system prompt.
    let t = ingest(br#"{"role":"developer","content":"Be brief."}"#, IngestOptions::default());
    assert_eq!(t.trajectories[0].steps[0].role, Role::System);
    // A log's agent, and its `msg` as the text.
    let t = ingest(
        br#"{"ts":1,"level":"info","agent_name":"planner","msg":"step 0"}"#,
        IngestOptions::default(),
    );
    let step = &t.trajectories[0].steps[0];
    assert_eq!(
        (step.actor.as_str(), step.role, step.text.as_str()),
        ("planner", Role::Assistant, "step 0")
    );
}

#[test]
fn outcome_flags_written_as_text_read_as_booleans() {
    // Found by QA (26_chat_string_outcomes.jsonl, 15_chat.jsonl.gz): `"success": "false"` and
    // `metadata.resolved: "False"` gave unknown while `"reward": "0"` failed.
    let record = |verdict: &str| {
        format!(
            r#"{{"id":"r","messages":[{{"role":"user","content":"x"}},{{"role":"assistant","content":"y"}}],{verdict}}}"#
        )
    };
    for (verdict, outcome) in [
        (r#""success":"false""#, Outcome::Failed),
        (r#""metadata":{"resolved":"False"}"#, Outcome::Failed),
        (r#""metadata":{"correct":" TRUE "}"#, Outcome::Passed),
        (r#""correct":"false""#, Outcome::Failed),
        (r#""reward":"0""#, Outcome::Failed),
        (r#""success":false"#, Outcome::Failed),
        (r#""success":"maybe""#, Outcome::Unknown),
        (r#""success":"0""#, Outcome::Unknown),
    ] {
        let t = ingest(record(verdict).as_bytes(), IngestOptions::default());
        assert_eq!(t.format, Format::Chat, "{verdict}");
        assert_eq!(t.trajectories[0].outcome, outcome, "{verdict}");
    }
    // Who&When's `is_correct` the same way.
    let item = |flag: &str| {
        format!(
            r#"{{"question":"q","history":[{{"role":"a","name":"A","content":"x"}}],"is_correct":{flag}}}"#
        )
    };
    for (flag, outcome) in [(r#""False""#, Outcome::Failed), (r#""true""#, Outcome::Passed)] {
        let t = ingest(item(flag).as_bytes(), IngestOptions::default());
        assert_eq!(t.format, Format::WhoAndWhen, "{flag}");
        assert_eq!(t.trajectories[0].outcome, outcome, "{flag}");
    }
}

#[test]
fn a_gold_step_past_the_last_step_is_noted_and_not_used_and_records_without_id_are_named_by_line() {
    // Found by QA (28_trajerrbench_variants.jsonl): `critical_error_step: 99` on a 2-step run
    // was kept as the gold step without a word; records without an id were named
    // trajerrbench-1, trajerrbench-1#2, ... where chat records are named line-N.
    let rec = |step: u32, agent: &str| {
        format!(
            r#"{{"messages":[{{"step":0,"role":"user","content":"hi"}},{{"step":1,"role":"assistant","name":"A","content":"hello"}}],"metadata":{{"reward":0,"annotation":{{"critical_error_step":{step}{agent}}}}}}}"#
        )
    };
    let lines = [rec(1, ""), rec(99, ""), rec(2, r#","critical_error_agent":"A""#)].join("\n");
    let t = ingest(lines.as_bytes(), IngestOptions::default());
    assert_eq!(t.format, Format::Trajerrbench);
    let ids: Vec<&str> = t.trajectories.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["line-1", "line-2", "line-3"]);
    let gold: Vec<Option<(Option<u32>, Option<&str>)>> = t
        .trajectories
        .iter()
        .map(|t| t.gold.as_ref().map(|g| (g.step, g.agent.as_deref())))
        .collect();
    // In range kept; out of range dropped (with the label, when it had nothing else), the
    // agent of a label kept.
    assert_eq!(gold, [Some((Some(1), None)), None, Some((None, Some("A")))]);
    assert_eq!(
        t.error.as_deref(),
        Some(
            "trajectory line-2: its gold step 99 is past its last step (it has 2 steps): not \
             used as a gold step; trajectory line-3: its gold step 2 is past its last step (it \
             has 2 steps): not used as a gold step"
        )
    );
    // The same in a list (named by position) and as one document.
    let list = format!("[{}, {}]", rec(1, ""), rec(99, ""));
    let t = ingest(list.as_bytes(), IngestOptions::default());
    let ids: Vec<&str> = t.trajectories.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["trajerrbench-1", "trajerrbench-2"]);
    assert_eq!(t.trajectories[1].gold, None);
    assert!(t
        .error
        .as_deref()
        .is_some_and(|e| e.contains("trajectory trajerrbench-2: its gold step 99")));
    let pretty = rec(99, "").replace(",\"metadata\"", ",\n\"metadata\"");
    let t = ingest(pretty.as_bytes(), IngestOptions::default());
    assert_eq!(t.trajectories[0].id, "trajerrbench-1");
    assert_eq!(t.trajectories[0].gold, None);
    assert!(t.error.as_deref().is_some_and(|e| e.contains("gold step 99")), "{:?}", t.error);
}

#[test]
fn atif_trajectories_map_steps_calls_results_and_usage() {
    let t = golden("atif/claude_code_rename.trajectory.json");
    assert_eq!(t.format, Format::Atif);
    let tr = &t.trajectories[0];
    assert_eq!(tr.id, "b7c1e0d2-rename-helper");
    assert_eq!(tr.outcome, Outcome::Failed, "extra.reward 0");
    assert_eq!(
        tr.task.as_deref(),
        Some("Rename the `total` helper in src/stats.py to `sum_values` and update its callers.")
    );
    assert_eq!(
        tr.final_answer.as_deref(),
        Some("Renamed `total` to `sum_values` and updated its callers.")
    );
    // Each agent step with a call is an action, its results observations of the same tool.
    let kinds: Vec<(Role, StepKind)> = tr.steps.iter().map(|s| (s.role, s.kind)).collect();
    use StepKind::*;
    assert_eq!(
        kinds,
        [
            (Role::User, Message),
            (Role::Assistant, Action),
            (Role::Tool, Observation),
            (Role::Assistant, Action),
            (Role::Tool, Observation),
            (Role::Assistant, Action),
            (Role::Tool, Observation),
            (Role::Assistant, Action),
            (Role::Tool, Observation),
            (Role::Assistant, Message),
        ]
    );
    let grep = &tr.steps[1];
    assert_eq!(grep.tool.as_deref(), Some("Bash"));
    assert_eq!(grep.args.as_deref(), Some("grep -rn 'total(' src"), "a shell call's command");
    assert!(
        grep.text.starts_with("grep for the helper's uses across src.\n\nI'll find"),
        "reasoning, then the message"
    );
    assert_eq!(grep.ids.event_id.as_deref(), Some("2"));
    let u = grep.usage.as_deref().expect("metrics");
    assert_eq!(
        (u.input_tokens, u.output_tokens, u.cache_read_tokens),
        (Some(5120), Some(64), Some(4096))
    );
    assert_eq!(&*grep.loc.path, "$.steps[1]");
    let reply = &tr.steps[2];
    assert_eq!(
        (reply.tool.as_deref(), reply.ids.source_action_id.as_deref()),
        (Some("Bash"), Some("toolu_01"))
    );
    assert_eq!(&*reply.loc.path, "$.steps[1].observation.results[0]");
    assert_eq!(tr.steps[6].text, "subagent session sub-4f2a (trajectory.sub-4f2a.json)");
    assert!(tr.steps[8].is_error && !tr.steps[2].is_error, "the result marked is_error");
    assert!(tr.steps[3].text.starts_with("Edit("), "an empty message: the call as text");

    let t = golden("atif/terminus_health.trajectory.json");
    let tr = &t.trajectories[0];
    assert_eq!((tr.id.as_str(), tr.outcome), ("fix-health__7Qx2a", Outcome::Unknown));
    assert_eq!(tr.steps[0].role, Role::System);
    assert!(tr.steps[5].is_error, "a traceback in a tool's reply");
    assert!(tr.usage.is_none(), "the steps carry usage: no run-level totals");

    let t = golden("atif/qa_runs.atif.jsonl");
    assert_eq!(t.format, Format::Atif);
    let ids: Vec<(&str, Outcome)> =
        t.trajectories.iter().map(|t| (t.id.as_str(), t.outcome)).collect();
    assert_eq!(ids, [("qa-1", Outcome::Failed), ("line-2", Outcome::Passed)]);
    let totals = t.trajectories[1].usage.as_deref().expect("final_metrics totals");
    assert_eq!((totals.input_tokens, totals.output_tokens), (Some(120), Some(9)));
    assert_eq!(t.trajectories[1].final_answer.as_deref(), Some("51"));
}

#[test]
fn smolagents_memory_steps_are_actions_replies_and_errors() {
    let t = golden("smolagents/code_agent_memory.json");
    assert_eq!(t.format, Format::Smolagents);
    assert_eq!(counts(&t), [8]);
    let tr = &t.trajectories[0];
    assert_eq!(tr.id, "smolagents-1");
    assert_eq!(tr.outcome, Outcome::Unknown, "the memory holds the answer, not a verdict");
    assert!(tr.task.as_deref().is_some_and(|t| t.starts_with("How many years passed")));
    assert_eq!(tr.final_answer.as_deref(), Some("550"), "the final step's action_output");
    use StepKind::*;
    let kinds: Vec<(Role, StepKind)> = tr.steps.iter().map(|s| (s.role, s.kind)).collect();
    assert_eq!(
        kinds,
        [
            (Role::User, Message),
            (Role::Assistant, Message),
            (Role::Assistant, Action),
            (Role::Tool, Observation),
            (Role::Assistant, Action),
            (Role::Tool, Observation),
            (Role::Assistant, Action),
            (Role::Tool, Observation),
        ]
    );
    assert!(tr.steps[1].text.contains("1. Search each founding year."), "the plan");
    let search = &tr.steps[2];
    assert!(search.text.starts_with("Thought: I will search"), "the model's output");
    assert_eq!(search.tool.as_deref(), Some("python_interpreter"));
    assert!(search.args.as_deref().is_some_and(|a| a.starts_with("for name in")));
    assert_eq!(search.ids.action_id.as_deref(), Some("call_1"));
    assert_eq!(search.ids.event_id.as_deref(), Some("1"), "the step_number");
    let u = search.usage.as_deref().expect("token_usage and timing");
    assert_eq!(
        (u.input_tokens, u.output_tokens, u.duration_ms),
        (Some(2210), Some(88), Some(2500))
    );
    let reply = &tr.steps[3];
    assert_eq!(reply.ids.source_action_id.as_deref(), Some("call_1"));
    assert!(reply.text.contains("founded in 1088") && !reply.is_error);
    // The step's error is its reply, with its type, an error.
    let failed = &tr.steps[5];
    assert!(failed.is_error);
    assert!(
        failed.text.starts_with("AgentExecutionError: Code execution failed"),
        "{}",
        failed.text
    );
    assert!(!tr.steps[7].is_error);

    // A step callback's lines of two runs: the step numbers start again, so does the run (with
    // the task just before it); the second stops at its step limit and fails.
    let t = golden("smolagents/callback_runs.jsonl");
    assert_eq!(t.format, Format::Smolagents);
    let runs: Vec<(&str, usize, Outcome)> =
        t.trajectories.iter().map(|t| (t.id.as_str(), t.steps.len(), t.outcome)).collect();
    assert_eq!(runs, [("smolagents-1", 3, Outcome::Unknown), ("smolagents-2", 6, Outcome::Failed)]);
    let second = &t.trajectories[1];
    assert!(second.task.as_deref().is_some_and(|t| t.starts_with("Find the latest release")));
    assert_eq!(second.steps[0].loc.line, 3, "the task line opens the second run");
    assert_eq!(t.trajectories[0].final_answer.as_deref(), Some("1024"));
    let limit = second.steps.last().unwrap();
    assert_eq!(limit.text, "AgentMaxStepsError: Reached max steps.");
    assert!(limit.is_error && limit.role == Role::Tool, "the limit's step: its error alone");
    assert_eq!(second.final_answer.as_deref(), Some("I could not find the release."));
    assert_eq!(
        second.steps[1].args.as_deref(),
        Some(r#"{"url":"https://example.invalid/octo/widgets/releases"}"#)
    );

    // A RunResult: its steps, its output the final answer.
    let t = golden("smolagents/run_result.json");
    assert_eq!(t.format, Format::Smolagents);
    let tr = &t.trajectories[0];
    assert_eq!((tr.id.as_str(), tr.steps.len()), ("smolagents-1", 3));
    assert_eq!(tr.final_answer.as_deref(), Some("Paris"));
    assert_eq!(&*tr.steps[1].loc.path, "$.steps[1]");
}

/// RunResults one a line or in a list: each is a run, named where it was read; a `state` of
/// `max_steps_error` fails it. Damage costs only its own line.
#[test]
fn smolagents_run_results_in_lines_and_lists() {
    let run = |state: &str| {
        format!(
            r#"{{"output":null,"state":"{state}","steps":[{{"task":"t","task_images":null}},{{"step_number":1,"model_output":"Thought: x","tool_calls":[],"observations":"ok","error":null}}]}}"#
        )
    };
    let lines = format!("{}\n{{\"state\": [\n{}\n", run("success"), run("max_steps_error"));
    let t = ingest(lines.as_bytes(), IngestOptions::default());
    assert_eq!(t.format, Format::Smolagents);
    let runs: Vec<(&str, Outcome, usize)> =
        t.trajectories.iter().map(|t| (t.id.as_str(), t.outcome, t.steps.len())).collect();
    assert_eq!(runs, [("line-1", Outcome::Unknown, 3), ("line-3", Outcome::Failed, 3)]);
    assert_eq!((t.stats.lines_parsed, t.stats.lines_quarantined), (2, 1));
    let list = format!("[{}, {}]", run("max_steps_error"), run("success"));
    let t = ingest(list.as_bytes(), IngestOptions::default());
    let runs: Vec<(&str, Outcome)> =
        t.trajectories.iter().map(|t| (t.id.as_str(), t.outcome)).collect();
    assert_eq!(runs, [("smolagents-1", Outcome::Failed), ("smolagents-2", Outcome::Unknown)]);
}

/// One AWTL event pretty-printed over several lines is read as the document it is: its run,
/// its step, every line of it counted as read.
#[test]
fn a_pretty_printed_awtl_event_is_its_run() {
    let doc = "{\n  \"type\": \"action\",\n  \"run_id\": \"r1\",\n  \"command\": \"ls\"\n}\n";
    let t = ingest(doc.as_bytes(), IngestOptions::default());
    assert_eq!(t.format, Format::Awtl);
    assert_eq!((t.stats.lines_parsed, t.stats.lines_quarantined), (5, 0));
    let runs: Vec<(&str, usize)> =
        t.trajectories.iter().map(|t| (t.id.as_str(), t.steps.len())).collect();
    assert_eq!(runs, [("r1", 1)]);
    assert_eq!(
        (t.trajectories[0].steps[0].kind, t.trajectories[0].steps[0].text.as_str()),
        (StepKind::Action, "ls")
    );
}

/// An AWTL line that says a key twice takes its last value (as a JSON object does); a list
/// field given as one string (`node_id`, `artifact_refs`) is a list of that string.
#[test]
fn awtl_repeated_keys_and_lists_of_one_string() {
    let lines = [
        r#"{"type":"action","run_id":"r","command":"first","tool":"shell","command":"second"}"#,
        r#"{"type":"memory_read","run_id":"r","node_id":"n7","artifact_refs":"src/a.py"}"#,
    ]
    .join("\n");
    let t = ingest(lines.as_bytes(), IngestOptions::default());
    assert_eq!(t.format, Format::Awtl);
    let steps = &t.trajectories[0].steps;
    assert_eq!(
        (steps[0].args.as_deref(), steps[0].tool.as_deref()),
        (Some("second"), Some("shell"))
    );
    assert_eq!(steps[1].memory_node_ids, ["n7"]);
    let refs: Vec<&str> = steps[1].artifact_refs.iter().map(|r| r.raw.as_str()).collect();
    assert_eq!(refs, ["src/a.py"]);
}

/// The AWTL event kinds' roles and texts: an artifact (its path a reference; another kind's
/// `path` is none), a message's `system` and `tool` roles, the error flag as a boolean, a
/// string (empty: none) or an object, a JSON body as its text, a memory read's text its body
/// alone, a step's time.
#[test]
fn awtl_event_kinds_roles_errors_and_bodies() {
    let lines = [
        r#"{"type":"artifact","run_id":"r","path":"out/report.md"}"#,
        r#"{"type":"action","run_id":"r","command":"cat x","path":"x"}"#,
        r#"{"type":"message","run_id":"r","role":"system","text":"be brief","ts":"2026-01-01T00:00:05Z"}"#,
        r#"{"type":"message","run_id":"r","role":"tool","text":"42"}"#,
        r#"{"type":"observation","run_id":"r","output":{"rows":2},"error":true}"#,
        r#"{"type":"observation","run_id":"r","output":"x","error":"boom"}"#,
        r#"{"type":"observation","run_id":"r","output":"y","error":""}"#,
        r#"{"type":"observation","run_id":"r","output":"z","error":{"code":1}}"#,
        r#"{"type":"memory_read","run_id":"r","summary":"notes","reason":"why"}"#,
    ]
    .join("\n");
    let t = ingest(lines.as_bytes(), IngestOptions::default());
    assert_eq!(t.format, Format::Awtl);
    let s = &t.trajectories[0].steps;
    assert_eq!((s[0].kind, s[0].role), (StepKind::Artifact, Role::Environment));
    let refs =
        |i: usize| -> Vec<&str> { s[i].artifact_refs.iter().map(|r| r.raw.as_str()).collect() };
    assert_eq!(refs(0), ["out/report.md"]);
    assert!(refs(1).is_empty(), "an action's `path` is no artifact");
    assert_eq!((s[2].role, s[3].role), (Role::System, Role::Tool));
    assert_eq!(s[2].timestamp.as_deref(), Some("2026-01-01T00:00:05Z"));
    let errors: Vec<bool> = s[4..8].iter().map(|s| s.is_error).collect();
    assert_eq!(errors, [true, true, false, true]);
    assert_eq!(s[4].text, r#"{"rows":2}"#);
    assert_eq!(s[5].text, "x\nboom", "a string error is part of the text");
    assert_eq!((s[8].kind, s[8].text.as_str()), (StepKind::MemoryRead, "notes"));
}

/// What makes an object a smolagents memory step takes both its keys: a `task` without
/// `task_images`, a `plan` without `model_output_message`, `observations` without a
/// `step_number`, a `state` beside steps that are not memory steps are other formats' (or none).
#[test]
fn smolagents_is_told_by_both_keys_of_a_step() {
    for line in [
        r#"{"observations":"x","role":"tool"}"#,
        r#"{"step_number":3,"text":"x"}"#,
        r#"{"task":"x","answer":"y"}"#,
        r#"{"task_images":null,"answer":"y"}"#,
        r#"{"plan":"x","author":"y"}"#,
        r#"{"model_output_message":{"content":"x"},"author":"y"}"#,
        r#"{"state":"success","steps":[{"text":"x"}]}"#,
        r#"{"state":"success","steps":[1]}"#,
        r#"{"steps":[{"task":"x","task_images":null}],"status":"ok"}"#,
    ] {
        for input in [line.to_string(), format!("[{line}]")] {
            let t = ingest(input.as_bytes(), IngestOptions::default());
            assert_ne!(t.format, Format::Smolagents, "{input}");
        }
    }
}

/// A `RunResult`'s step that is not an object is a step of its text, in its place; an output
/// of `null` is no final answer; a system prompt step is the system message, and only alone.
#[test]
fn smolagents_run_result_odd_steps_null_output_and_system_prompt() {
    let doc = r#"{"output":null,"state":"success","steps":[{"task":"t","task_images":null},"a bare note",{"system_prompt":"You are an agent."},{"system_prompt":"x","role":"user","content":"hi"}]}"#;
    for (input, line) in
        [(doc.to_string(), 1), (format!("{{\"task\":\"a\",\"task_images\":null}}\n{doc}"), 2)]
    {
        let t = ingest(input.as_bytes(), IngestOptions::default());
        assert_eq!(t.format, Format::Smolagents, "{input}");
        let tr = t.trajectories.last().unwrap();
        assert_eq!(tr.final_answer, None, "an output of null is no answer");
        let steps: Vec<(u32, &str, u32, &str, Role)> = tr
            .steps
            .iter()
            .map(|s| (s.index, &*s.loc.path, s.loc.line, s.text.as_str(), s.role))
            .collect();
        assert_eq!(
            &steps[..3],
            [
                (0, "$.steps[0]", line, "t", Role::User),
                (1, "$.steps[1]", line, "a bare note", steps[1].4),
                (2, "$.steps[2]", line, "You are an agent.", Role::System),
            ],
            "{input}"
        );
        assert_ne!(
            steps[3].4,
            Role::System,
            "a system prompt among other keys is no system message"
        );
        assert_eq!(
            tr.steps[1].ingest_seq, tr.steps[0].ingest_seq,
            "the note is read with its line"
        );
        if line == 2 {
            assert_ne!(tr.steps[1].ingest_seq, t.trajectories[0].steps[0].ingest_seq);
        }
    }
}

/// A step callback may log a run's final answer step after its last action: the answer stays
/// with its run, the task after it opens the next one.
#[test]
fn a_smolagents_final_answer_step_ends_its_run() {
    let action = |n: u32| {
        format!(
            r#"{{"step_number":{n},"model_output":"Thought {n}","tool_calls":[],"observations":"{n}","error":null}}"#
        )
    };
    let lines = [
        r#"{"task":"first","task_images":null}"#.to_string(),
        action(1),
        action(2),
        r#"{"output":"4"}"#.to_string(),
        r#"{"task":"second","task_images":null}"#.to_string(),
        action(1),
    ]
    .join("\n");
    let t = ingest(lines.as_bytes(), IngestOptions::default());
    assert_eq!(t.format, Format::Smolagents);
    let [first, second] = &t.trajectories[..] else { panic!("two runs: {:?}", t.trajectories) };
    assert_eq!((first.task.as_deref(), first.final_answer.as_deref()), (Some("first"), Some("4")));
    assert_eq!(first.steps.last().map(|s| &*s.text), Some("4"), "the answer step closes the run");
    assert_eq!((second.task.as_deref(), second.final_answer.as_deref()), (Some("second"), None));
    assert_eq!(second.steps[0].loc.line, 5, "the second run opens at its task");
}

#[test]
fn atif_documents_in_a_list_and_broken_ones() {
    let doc = |id: &str| {
        format!(
            r#"{{"schema_version":"ATIF-v1.4","session_id":"{id}","agent":{{"name":"a","version":"1"}},"steps":[{{"step_id":1,"source":"user","message":"hi"}}]}}"#
        )
    };
    let list = format!("[{}, {}]", doc("s1"), doc("s2"));
    let t = ingest(list.as_bytes(), IngestOptions::default());
    assert_eq!(t.format, Format::Atif);
    let ids: Vec<&str> = t.trajectories.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["s1", "s2"]);
    // Steps that are not a list: the document is quarantined, with the reason.
    let broken =
        r#"{"schema_version":"ATIF-v1.4","session_id":"x","agent":{},"steps":{"step_id":1}}"#;
    let t = ingest(broken.as_bytes(), IngestOptions::default());
    assert!(t.trajectories.is_empty());
    assert_eq!(t.stats.lines_quarantined, 1);
    let why = &t.quarantine[0].reason;
    assert!(why.contains("`steps` is an object, not a list"), "{why}");
    // Without a schema_version, the first step's `step_id` and `source` still tell ATIF.
    let bare = r#"{"steps":[{"step_id":1,"source":"agent","message":"done"}]}"#;
    assert_eq!(ingest(bare.as_bytes(), IngestOptions::default()).format, Format::Atif);
}

#[test]
fn anthropic_tool_blocks_and_responses_items_are_calls_and_replies() {
    // A plain list of Anthropic messages: `tool_use` blocks make an action, a user message of
    // `tool_result` blocks the tool's reply (an error when a block says so).
    let anthropic = r#"[{"role":"user","content":"Count the files in /tmp."},
 {"role":"assistant","content":[{"type":"text","text":"I'll count them."},{"type":"tool_use","id":"toolu_1","name":"bash","input":{"command":"ls /tmp | wc -l"}}]},
 {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"bash: wc: command not found","is_error":true}]},
 {"role":"assistant","content":[{"type":"text","text":"There are 12 files."}]}]"#;
    // OpenAI Responses items, one per line.
    let responses = r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"Weather in Paris?"}]}
{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"Call the weather tool."}]}
{"type":"function_call","name":"get_weather","arguments":"{\"city\":\"Paris\"}","call_id":"call_1","id":"fc_1"}
{"type":"function_call_output","call_id":"call_1","output":"Error: upstream timeout"}
{"type":"message","role":"assistant","content":[{"type":"output_text","text":"It is sunny in Paris."}]}
"#;
    // Gemini `parts` (a JSON list) and LangChain's `messages_to_dict` (`type` + `data`).
    let gemini = r#"[{"role":"user","parts":[{"text":"Find the TODOs in src."}]},
 {"role":"model","parts":[{"text":"Searching."},{"functionCall":{"name":"grep","args":{"pattern":"TODO"}}}]},
 {"role":"user","parts":[{"functionResponse":{"name":"grep","response":{"error":"path src does not exist"}}}]}]"#;
    let langchain = r#"{"type":"human","data":{"content":"What is 2+2?","type":"human"}}
{"type":"ai","data":{"content":"","type":"ai","tool_calls":[{"name":"calc","args":{"e":"2+2"},"id":"c1"}]}}
{"type":"tool","data":{"content":"calc crashed","type":"tool","tool_call_id":"c1","status":"error"}}
"#;
    for (name, text, call, reply) in [
        ("anthropic", anthropic, 1, 2),
        ("responses", responses, 2, 3),
        ("gemini", gemini, 1, 2),
        ("langchain", langchain, 1, 2),
    ] {
        let t = ingest(text.as_bytes(), IngestOptions::default());
        let steps = &t.trajectories[0].steps;
        let (a, r) = (&steps[call], &steps[reply]);
        assert_eq!((a.role, a.kind), (Role::Assistant, StepKind::Action), "{name}: {a:?}");
        assert_eq!((r.role, r.kind), (Role::Tool, StepKind::Observation), "{name}: {r:?}");
        assert!(r.is_error, "{name}: the failed call's reply");
        if name != "gemini" {
            // Gemini's calls carry no id: paired by the tool's name only.
            assert_eq!(r.ids.source_action_id, a.ids.action_id, "{name}: paired by the call's id");
        }
        assert_eq!(r.tool.is_some(), name == "gemini", "{name}: a reply that names its tool");
        assert!(!steps[0].is_error && steps[0].kind == StepKind::Message, "{name}");
    }
    let t = ingest(anthropic.as_bytes(), IngestOptions::default());
    let call = &t.trajectories[0].steps[1];
    assert_eq!(call.args.as_deref(), Some("ls /tmp | wc -l"), "a shell call's command");
    assert_eq!(call.text, "I'll count them.", "the text blocks, not the call as JSON");
    let t = ingest(responses.as_bytes(), IngestOptions::default());
    let steps = &t.trajectories[0].steps;
    assert_eq!(steps[1].text, "Call the weather tool.");
    assert_eq!(steps[2].tool.as_deref(), Some("get_weather"));
    assert_eq!(steps[2].ids.action_id.as_deref(), Some("call_1"), "the call_id its output names");
    let t = ingest(gemini.as_bytes(), IngestOptions::default());
    let steps = &t.trajectories[0].steps;
    assert_eq!((steps[1].tool.as_deref(), steps[1].text.as_str()), (Some("grep"), "Searching."));
    assert_eq!(steps[2].text, r#"{"error":"path src does not exist"}"#);
    let t = ingest(langchain.as_bytes(), IngestOptions::default());
    assert_eq!(t.trajectories[0].steps[1].text, r#"calc({"e":"2+2"})"#);
}

#[test]
fn model_call_logs_are_read_as_conversations() {
    let steps = |t: &Trace, i: usize| -> Vec<(u32, String, Role, bool)> {
        let tr = &t.trajectories[i];
        tr.steps.iter().map(|s| (s.loc.line, s.loc.path.to_string(), s.role, s.is_error)).collect()
    };
    let at = |line: u32, path: &str, role: Role, error: bool| (line, path.to_string(), role, error);
    // OpenAI chat completions: two conversations interleaved, a call that failed and its retry,
    // a line cut off.
    let t = golden("generic/calls_openai_chat.jsonl");
    assert_eq!(t.format, Format::Generic);
    let ids: Vec<&str> = t.trajectories.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["conversation-1", "conversation-2"]);
    assert_eq!(t.quarantine.iter().map(|q| q.line).collect::<Vec<_>>(), [4]);
    let (sys, user, asst, tool) = (Role::System, Role::User, Role::Assistant, Role::Tool);
    assert_eq!(
        steps(&t, 0),
        [
            at(1, "$.request.messages[0]", sys, false),
            at(1, "$.request.messages[1]", user, false),
            at(1, "$.response.choices[0]", asst, false),
            // The tool's reply once: the retry (line 5) asks what line 3 asked.
            at(3, "$.request.messages[3]", tool, false),
            at(3, "$.error", Role::Other, true),
            at(5, "$.response.choices[0]", asst, false),
            at(6, "$.request.messages[5]", tool, false),
            at(6, "$.response.choices[0]", asst, false),
        ]
    );
    let first = &t.trajectories[0];
    assert_eq!(first.steps[4].text, "Rate limit reached for gpt-4o, retry in 2s");
    assert_eq!(first.steps[2].args.as_deref(), Some("pytest -q tests/test_math.py"));
    assert_eq!(first.steps[3].ids.source_action_id.as_deref(), Some("call_1"));
    let usage = first.steps[2].usage.as_deref().expect("the call's usage");
    assert_eq!(
        (usage.input_tokens, usage.output_tokens, usage.cache_read_tokens),
        (Some(812), Some(24), Some(406))
    );
    assert!(first.steps[..2].iter().all(|s| s.usage.is_none()));
    assert_eq!(first.steps[7].timestamp.as_deref(), Some("2026-11-30T10:00:09Z"));
    assert_eq!(
        first.task.as_deref(),
        Some("Make the tests in tests/test_math.py pass without editing the tests.")
    );
    assert_eq!(
        first.final_answer.as_deref(),
        Some("Fixed `add` in src/math.py; the tests pass now.")
    );
    assert_eq!(steps(&t, 1).len(), 3);

    // Anthropic: `system` as a text, the reply a message of `tool_use` blocks, a failed
    // `tool_result`, cache reads.
    let t = golden("generic/calls_anthropic.jsonl");
    assert_eq!(
        steps(&t, 0),
        [
            at(1, "$.request.system", sys, false),
            at(1, "$.request.messages[0]", user, false),
            at(1, "$.response", asst, false),
            at(2, "$.request.messages[2]", tool, true),
            at(2, "$.response", asst, false),
        ]
    );
    let usage = t.trajectories[0].steps[2].usage.as_deref().expect("usage");
    let cache = (usage.cache_read_tokens, usage.cache_write_tokens);
    assert_eq!((usage.input_tokens, cache), (Some(420), (Some(300), Some(0))));

    // OpenAI Responses: `instructions`, `input` as a text then as items, a failed call's output.
    let t = golden("generic/calls_responses.jsonl");
    let roles: Vec<(Role, StepKind, bool)> =
        t.trajectories[0].steps.iter().map(|s| (s.role, s.kind, s.is_error)).collect();
    use StepKind::{Action, Message, Observation};
    assert_eq!(
        roles,
        [
            (sys, Message, false),
            (user, Message, false),
            (asst, Message, false),
            (asst, Action, false),
            (tool, Observation, true),
            (asst, Message, false),
        ]
    );
    // Gemini: `systemInstruction`, `contents`, `candidates`, `usageMetadata`; named by the
    // session id in `metadata`.
    let t = golden("generic/calls_gemini.jsonl");
    assert_eq!(t.trajectories[0].id, "session-7f3a");
    assert_eq!(t.trajectories[0].steps[0].loc.path.as_ref(), "$.request.systemInstruction");
    assert_eq!(t.trajectories[0].steps[3].tool.as_deref(), Some("convert"));
    let usage = t.trajectories[0].steps[4].usage.as_deref().expect("usage");
    assert_eq!((usage.input_tokens, usage.output_tokens), (Some(52), Some(14)));

    // LiteLLM's logged payloads: the request's `messages` beside the `response`, a trace id per
    // call (not a conversation's), a call that failed (`error_str`) and its retry: one
    // trajectory, each message once, the failed query's reply and the failed call errors.
    let t = golden("generic/calls_litellm.jsonl");
    assert_eq!(t.format, Format::Generic);
    assert_eq!(t.trajectories.len(), 1);
    let paths: Vec<String> =
        t.trajectories[0].steps.iter().map(|s| s.loc.path.to_string()).collect();
    assert_eq!(
        paths,
        [
            "$.messages[0]",
            "$.messages[1]",
            "$.response.choices[0]",
            "$.messages[3]",
            "$.error_str",
            "$.response.choices[0]",
            "$.messages[5]",
            "$.response.choices[0]"
        ]
    );
    let errors: Vec<bool> = t.trajectories[0].steps.iter().map(|s| s.is_error).collect();
    assert_eq!(errors, [false, false, false, true, true, false, false, false]);
    assert_eq!(
        t.trajectories[0].final_answer.as_deref(),
        Some("41 orders were refunded in March 2026.")
    );

    // A Batch API output: each request its own trajectory, named by `custom_id`; the one that
    // failed is an error.
    let t = golden("generic/calls_batch_output.jsonl");
    let ids: Vec<&str> = t.trajectories.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["task-0", "task-1", "task-2"]);
    let failed = &t.trajectories[1].steps[0];
    assert!(failed.is_error);
    assert_eq!(failed.text, "This model's maximum context length is 128000 tokens.");
    assert_eq!(t.trajectories[2].final_answer.as_deref(), Some("Berlin"));

    // An Anthropic Message Batches results file: each request its own trajectory; a result's
    // `message` is the answer (its tool call, its usage), an `errored` one's nested API error,
    // an `expired` or `canceled` one an error step that says so.
    let t = golden("generic/calls_anthropic_batch_results.jsonl");
    assert_eq!(t.format, Format::Generic);
    let ids: Vec<&str> = t.trajectories.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["ticket-101", "ticket-102", "ticket-103", "ticket-104", "ticket-105"]);
    let one: Vec<(u32, String, Role, bool)> = (0..5).flat_map(|i| steps(&t, i)).collect();
    assert_eq!(
        one,
        [
            at(1, "$.result.message", asst, false),
            at(2, "$.result.error", Role::Other, true),
            at(3, "$.result.message", asst, false),
            at(4, "$.result", Role::Other, true),
            at(5, "$.result", Role::Other, true),
        ]
    );
    let texts: Vec<&str> = t.trajectories.iter().map(|t| t.steps[0].text.as_str()).collect();
    assert_eq!(
        texts[1],
        "max_tokens: 100000 > 64000, which is the maximum allowed number of output tokens"
    );
    assert_eq!(texts[3..], ["request expired", "request canceled"]);
    let call = &t.trajectories[0].steps[0];
    assert_eq!((call.kind, call.tool.as_deref()), (StepKind::Action, Some("lookup_order")));
    let usage = call.usage.as_deref().expect("the result's usage");
    assert_eq!((usage.input_tokens, usage.cache_read_tokens), (Some(310), Some(200)));
    assert_eq!(
        t.trajectories[2].final_answer.as_deref(),
        Some("Your refund was issued on 2026-11-28.")
    );
    // Its requests file: each request's system prompt and messages, by `custom_id`.
    let t = golden("generic/calls_anthropic_batch_requests.jsonl");
    let ids: Vec<&str> = t.trajectories.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["ticket-101", "ticket-103"]);
    assert_eq!(
        steps(&t, 1),
        [
            at(2, "$.params.system", sys, false),
            at(2, "$.params.messages[0]", user, false),
            at(2, "$.params.messages[1]", asst, false),
            at(2, "$.params.messages[2]", tool, false),
        ]
    );
    assert_eq!(t.trajectories[0].task.as_deref(), Some("Where is my order A-17?"));
}

#[test]
fn a_call_log_starts_a_conversation_again_only_when_it_is_asked_again() {
    let read = |lines: &[&str]| ingest(lines.join("\n").as_bytes(), IngestOptions::default());
    let texts = |t: &Trajectory| t.steps.iter().map(|s| s.text.clone()).collect::<Vec<_>>();
    let u = r#"{"role":"user","content":"task"}"#;
    let a = |x: &str| format!(r#"{{"role":"assistant","content":"{x}"}}"#);
    let call = |asked: &[&str], answer: &str| {
        format!(
            r#"{{"request":{{"messages":[{}]}},"response":{{"choices":[{{"message":{}}}]}}}}"#,
            asked.join(","),
            a(answer)
        )
    };
    let (a1, a2) = (a("one"), a("two"));
    let more = r#"{"role":"user","content":"more"}"#;
    let again = r#"{"role":"user","content":"and again"}"#;
    // The same task asked afresh after it was answered: a second run of it.
    let t = read(&[&call(&[u], "one"), &call(&[u, &a1, more], "two"), &call(&[u], "three")]);
    let ids: Vec<&str> = t.trajectories.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["conversation-1", "conversation-2"]);
    assert_eq!(texts(&t.trajectories[0]), ["task", "one", "more", "two"]);
    assert_eq!(texts(&t.trajectories[1]), ["task", "three"]);
    // A history rewritten (as long as the last request, the answer not repeated): what follows
    // its last assistant message is new.
    let t = read(&[&call(&[u, &a1, more], "two"), &call(&[u, &a2, again], "three")]);
    assert_eq!(t.trajectories.len(), 1);
    assert_eq!(texts(&t.trajectories[0]), ["task", "one", "more", "two", "and again", "three"]);
    // The same id on two runs: the second is `id#2`, as any repeated id; plain lines stay one
    // generic trajectory, after the conversations (a batch's settle where they are read).
    let with_id = |line: String| line.replacen('{', r#"{"session_id":"s1","#, 1);
    let t = read(&[
        &with_id(call(&[u], "one")),
        r#"{"level":"info","msg":"retrying"}"#,
        &with_id(call(&[u], "again")),
    ]);
    let ids: Vec<&str> = t.trajectories.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["s1", "s1#2", "generic-1"]);
    assert_eq!(texts(&t.trajectories[2]), ["retrying"]);
    // An export's `input` list and `output` message; an `input` that is not messages is no call.
    let t = read(&[&format!(r#"{{"input":[{u}],"output":{}}}"#, a("done"))]);
    assert_eq!(texts(&t.trajectories[0]), ["task", "done"]);
    assert_eq!(t.trajectories[0].final_answer.as_deref(), Some("done"));
    let t = read(&[r#"{"input":"2+2","output":"4"}"#]);
    assert_eq!(t.trajectories[0].id, "generic-1");
    // A Responses call that goes on from an earlier answer by `previous_response_id`: that
    // answer's conversation, its input all new, its instructions sent again not repeated.
    let first = r#"{"request":{"instructions":"Be brief.","input":"list files"},"response":{"object":"response","id":"resp_1","output":[{"type":"function_call","call_id":"c1","name":"ls","arguments":"{}"}]}}"#;
    let next = r#"{"request":{"instructions":"Be brief.","previous_response_id":"resp_1","input":[{"type":"function_call_output","call_id":"c1","output":"a.txt"}]},"response":{"object":"response","id":"resp_2","output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"One file: a.txt"}]}]}}"#;
    let unknown = next.replace("resp_1", "resp_9").replace("resp_2", "resp_3");
    let t = read(&[first, next, &unknown]);
    let ids: Vec<&str> = t.trajectories.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["conversation-1", "conversation-2"]);
    assert_eq!(
        texts(&t.trajectories[0]),
        ["Be brief.", "list files", "ls({})", "a.txt", "One file: a.txt"]
    );
    // One going on from an answer not in the file is a conversation of its own.
    assert_eq!(texts(&t.trajectories[1]), ["Be brief.", "a.txt", "One file: a.txt"]);
    // A response that is a status of failure and a text body: an error step of that status.
    let t =
        read(&[r#"{"custom_id":"t-9","response":{"status_code":500,"body":"Internal error"}}"#]);
    let step = &t.trajectories[0].steps[0];
    assert_eq!((t.trajectories[0].id.as_str(), step.text.as_str()), ("t-9", "status 500"));
    assert_eq!((step.is_error, step.loc.path.as_ref()), (true, "$.response"));
    // An empty error is none (a logger that writes one on every call): `{}`, blank, `None`.
    for e in [r#"{}"#, r#"" ""#, r#""None""#, "null", "false"] {
        let line = format!(
            r#"{{"request":{{"messages":[{u}]}},"response":{{"choices":[{{"message":{}}}]}},"error":{e}}}"#,
            a("ok")
        );
        let t = read(&[&line]);
        assert_eq!(texts(&t.trajectories[0]), ["task", "ok"], "{e}");
    }
    let line = format!(r#"{{"request":{{"messages":[{u}]}},"error":"timed out"}}"#);
    let t = read(&[&line]);
    assert_eq!(texts(&t.trajectories[0]), ["task", "timed out"]);
    // A response object with no role is not taken for the answer (a cache's entry, a tool's
    // output): the call shows what it asked.
    let t = read(&[
        r#"{"request":{"messages":[{"role":"user","content":"q"}]},"response":{"content":"cached"}}"#,
    ]);
    assert_eq!(texts(&t.trajectories[0]), ["q"]);
    // Messages beside a `response` object: a logged call; beside a text, still a chat record.
    let m = r#""messages":[{"role":"user","content":"hi"}]"#;
    let t = read(&[&format!(r#"{{{m},"response":{{"choices":[{{"message":{}}}]}}}}"#, a("hello"))]);
    assert_eq!(
        (t.format, texts(&t.trajectories[0])),
        (Format::Generic, vec!["hi".into(), "hello".into()])
    );
    let t = read(&[&format!(r#"{{{m},"response":"hello"}}"#)]);
    assert_eq!((t.format, t.trajectories[0].steps.len()), (Format::Chat, 1));
    // A record whose request says nothing it can read stays a plain step.
    let t = read(&[r#"{"request":{"url":"/v1/models"},"response":{"status_code":200}}"#]);
    assert_eq!(t.trajectories[0].id, "generic-1");
    // An earlier tool reply's error is that step's, not the later messages'.
    let t = read(&[
        r#"{"request":{"messages":[{"role":"user","content":[{"type":"tool_result","is_error":true}]},{"role":"user","content":"next"}]}}"#,
    ]);
    let flagged: Vec<bool> = t.trajectories[0].steps.iter().map(|s| s.is_error).collect();
    assert_eq!(flagged, [true, false]);
}
