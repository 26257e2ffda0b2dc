//! The analysis on the fixtures: the invariants every fixture must hold (quotes are verbatim,
//! views are bounded and keep the quotes) and what particular scenarios must give (the AWTL
//! scenario fixtures, tests/fixtures/awtl/). The golden rendering of every fixture's analysis is
//! in `golden.rs` (`<fixture>.expected`).
#![cfg(not(target_arch = "wasm32"))]
// The tests read fixtures from disk; the library itself does no I/O.
#![allow(clippy::disallowed_methods)]

mod common;

use std::path::{Path, PathBuf};

use trajscope_core::attribution::{
    analyze_trajectory, quotes_on, AnalysisOptions, Rule, TrajectoryAnalysis, Weights,
};
use trajscope_core::model::{Trace, Trajectory};
use trajscope_core::record::FailureClass;
use trajscope_core::views::{step_view_with_quotes, Grain};
use trajscope_core::{ingest, IngestOptions};

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/awtl")
}

fn load(path: &Path) -> Trace {
    let bytes = std::fs::read(path).unwrap();
    ingest(&bytes, IngestOptions::default())
}

fn fixture(name: &str) -> (Trajectory, TrajectoryAnalysis) {
    let trace = load(&fixtures_dir().join(format!("{name}.awtl.jsonl")));
    let t = trace.trajectories.into_iter().next().unwrap();
    let a = analyze_trajectory(&t, &AnalysisOptions::default());
    (t, a)
}

#[test]
fn every_quote_is_an_exact_substring_of_its_step_and_survives_the_high_view() {
    for rel in common::source_fixtures() {
        let path = common::fixture_path(&rel);
        let trace = load(&path);
        for t in &trace.trajectories {
            let a = analyze_trajectory(t, &AnalysisOptions::default());
            for tr in &a.triggers {
                let in_step = |step: u32, q: &str| {
                    let s = &t.steps[step as usize];
                    s.text.contains(q) || s.args.as_deref().is_some_and(|x| x.contains(q))
                };
                assert!(in_step(tr.step, &tr.wrong_quote), "{path:?}: {tr:?}");
                let r = tr.reference_step.expect("every trigger names its reference");
                assert!(in_step(r, &tr.reference_quote), "{path:?}: {tr:?}");
            }
            let opts = AnalysisOptions::default().views;
            for s in &t.steps {
                let quotes = quotes_on(&a.triggers, s.index);
                let high = step_view_with_quotes(s, Grain::High, &opts, &quotes);
                for q in &quotes {
                    assert!(
                        high.contains(q),
                        "{path:?} step {}: {q:?} missing from\n{high}",
                        s.index
                    );
                }
                for g in [Grain::High, Grain::Medium, Grain::Low] {
                    let v = step_view_with_quotes(s, g, &opts, &quotes);
                    assert!(v.chars().count() <= opts.bound(g));
                }
            }
        }
    }
}

#[test]
fn bundled_sample_blames_the_edit_that_removed_the_alias() {
    let trace =
        load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web/samples/sample.awtl.jsonl"));
    let t = &trace.trajectories[0];
    let a = analyze_trajectory(t, &AnalysisOptions::default());
    let c = a.critical.expect("the sample run failed");
    assert_eq!(c.action_id.as_deref(), Some("act-3"));
    assert_eq!(c.agent, "coder");
    assert!(t.steps[c.step as usize].text.contains("sed -i 's/userId/customerId/g'"));
    assert_eq!(a.classification, Some(FailureClass::AgentFailure));
    assert_eq!(a.record.failure_event.as_deref(), Some("judge-17"));
    assert_eq!(a.record.source_action_ids, vec!["act-3".to_string()]);
    assert_eq!(a.record.verifier_action_id.as_deref(), Some("judge-17"));
    assert_eq!(a.record.memory_read_node_ids, vec!["memory:contract-rule".to_string()]);
    assert!(a.record.failed_artifact_refs.contains(&"artifact:build-output".to_string()));
    // The false "all tests pass" claim is caught against the failed test run.
    assert!(a
        .triggers
        .iter()
        .any(|t| t.rule == Rule::ClaimContradicted && t.wrong_quote.contains("all tests pass")));
}

#[test]
fn wrong_edit_caught_by_the_verifier_is_critical() {
    let (t, a) = fixture("wrong_edit_verifier");
    let c = a.critical.unwrap();
    assert_eq!(c.action_id.as_deref(), Some("act-2"));
    assert!(t.steps[c.step as usize].args.as_deref().unwrap().contains("retries: 0"));
    assert_eq!(a.classification, Some(FailureClass::AgentFailure));
}

#[test]
fn a_missing_browser_binary_is_never_blamed_on_the_agent() {
    let (_, a) = fixture("env_blocker_browser");
    assert_eq!(a.classification, Some(FailureClass::EnvironmentBlocker));
    let c = a.critical.unwrap();
    assert_eq!(c.agent, "environment");
    assert!(c.evidence.iter().any(|e| e.quote.contains("Executable doesn't exist")));
    assert_eq!(a.failure_mode, Some(trajscope_core::record::FailureMode::Deterministic));
}

#[test]
fn a_repetition_loop_raises_the_loop_signals_and_blames_its_first_attempt() {
    let (_, a) = fixture("repetition_loop");
    assert!(a.signals.repetition);
    assert!(a.signals.budget_exhausted);
    assert!(a.signals.escalate);
    assert_eq!(a.signals.repeated_failures, 4);
    assert_eq!(a.critical.unwrap().action_id.as_deref(), Some("act-1"));
    // Identical attempts with no repair in between are one error instance.
    let loop_instances = a.instances.iter().filter(|i| i.object.starts_with("cmd:")).count();
    assert_eq!(loop_instances, 1);
}

#[test]
fn the_action_after_a_misapplied_memory_is_critical() {
    let (_, a) = fixture("misapplied_memory");
    let c = a.critical.unwrap();
    assert_eq!(c.action_id.as_deref(), Some("act-3"));
    assert!(c
        .evidence
        .iter()
        .any(|e| e.rule == Rule::MemoryMisapplied && e.quote.contains("--fake")));
    assert_eq!(a.record.memory_read_node_ids, vec!["memory:fake-migrations".to_string()]);
}

#[test]
fn an_error_fixed_at_once_is_not_the_critical_step() {
    let (t, a) = fixture("fixed_at_once");
    let early = t.steps.iter().position(|s| s.exit_code == Some(101)).unwrap() as u32;
    let inst = a.instances.iter().find(|i| i.last_step == early).unwrap();
    assert_eq!(inst.state.name(), "cheap_resolution");
    // Its instance places no candidate: the step is at most an out-of-set candidate, ranked by
    // its own features below the verifier-linked push.
    let cheap = a.instances.iter().position(|i| i.last_step == early).unwrap();
    assert!(a.candidates.iter().all(|c| c.instance != Some(cheap)));
    assert!(a
        .candidates
        .iter()
        .filter(|c| c.step + 1 == early)
        .all(|c| c.instance.is_none() && c.score < a.candidates[0].score));
    assert_eq!(a.critical.unwrap().action_id.as_deref(), Some("act-6"));
}

#[test]
fn a_run_that_passed_has_no_critical_step() {
    let (_, a) = fixture("passed_run");
    assert!(a.critical.is_none());
    assert!(a.candidates.is_empty());
    assert_eq!(a.classification, None);
    assert!(!a.triggers.is_empty(), "the failed grep is still a trigger");
}

#[test]
fn a_repair_that_fails_again_is_a_new_instance() {
    let text = concat!(
        r#"{"type":"action","action_id":"a1","span_id":"s1","agent":"c","tool":"shell","command":"make"}"#,
        "\n",
        r#"{"type":"observation","span_id":"s1","exit_code":2,"output":"error: missing header foo.h"}"#,
        "\n",
        r#"{"type":"action","action_id":"a2","span_id":"s2","agent":"c","tool":"edit","command":"apply_patch add-include.diff"}"#,
        "\n",
        r#"{"type":"observation","span_id":"s2","exit_code":0,"output":"ok"}"#,
        "\n",
        r#"{"type":"action","action_id":"a3","span_id":"s3","agent":"c","tool":"shell","command":"make"}"#,
        "\n",
        r#"{"type":"observation","span_id":"s3","exit_code":2,"output":"error: missing header foo.h"}"#,
        "\n",
        r#"{"type":"run_end","status":"failed"}"#,
        "\n",
    );
    let trace = ingest(text.as_bytes(), IngestOptions::default());
    let a = analyze_trajectory(&trace.trajectories[0], &AnalysisOptions::default());
    let make: Vec<_> = a.instances.iter().filter(|i| i.object.starts_with("cmd:")).collect();
    assert_eq!(make.len(), 2, "{:#?}", a.instances);
    assert_ne!(make[0].origin_step, make[1].origin_step);
}

#[test]
fn history_keeps_the_quotes_of_every_step() {
    let (t, a) = fixture("env_blocker_browser");
    let by_step = trajscope_core::attribution::quotes_by_step(&a.triggers);
    let opts = AnalysisOptions::default().views;
    // Far from the blocked step (rendered low), the blocker line is still kept.
    let h = trajscope_core::views::history_with_quotes(&t, 0, &opts, |s| {
        by_step.get(&s).cloned().unwrap_or_default()
    });
    assert!(h.contains("browserType.launch: Executable doesn't exist at /ms-playwright"));
    assert!(h.contains("e2e suite did not run: browser binary missing"));
    assert_eq!(quotes_on(&a.triggers, 6), by_step[&6]);
}

#[test]
fn the_agent_stage_reranks_by_agent_votes_and_says_so_only_when_on() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures");
    let trace = load(&root.join("who_and_when/hc_6.json"));
    let t = trace.trajectories.into_iter().next().unwrap();
    let votes = |a: &TrajectoryAnalysis| {
        a.candidates.iter().filter(|c| c.why.iter().any(|w| w.contains("of the votes"))).count()
    };
    let off = analyze_trajectory(&t, &AnalysisOptions::default());
    // The shipped orchestrated weights put the orchestrator's first declaration of success
    // first here, which no worker reply backs (its golden, `hc_6.json.expected`).
    assert_eq!(off.critical.as_ref().map(|c| c.agent.as_str()), Some("Orchestrator"));
    assert_eq!(votes(&off), 0, "off in the shipped weights: no candidate claims votes");
    // A Magentic-One run is orchestrated: the group-chat weights do not rank it.
    let mut chat_only = AnalysisOptions::default();
    chat_only.weights.agent_support = 1.5;
    chat_only.weights.support_depth = 10.0;
    assert_eq!(analyze_trajectory(&t, &chat_only).candidates, off.candidates);
    let mut opts = AnalysisOptions::default();
    // Votes that outweigh every first-stage difference: the agent holding the most goes first.
    opts.orchestrated_weights.agent_support = 50.0;
    opts.orchestrated_weights.support_depth = 10.0;
    let on = analyze_trajectory(&t, &opts);
    let c = on.candidates.first().unwrap();
    let most = on.candidates.iter().map(|c| c.features.agent_support).fold(0.0, f64::max);
    assert!(most > 0.0);
    assert_eq!(c.features.agent_support, most, "{:?}", c.why);
    assert!(
        c.why.iter().any(|w| w.contains("of the votes of the top 10 candidates")),
        "{:?}",
        c.why
    );
    assert_eq!(votes(&on), on.candidates.len(), "every candidate's agent got votes here");
    // Each score is the first stage's plus the weighted support of its agent.
    let w = &opts.orchestrated_weights;
    for c in &on.candidates {
        let first = trajscope_core::attribution::score::score(&c.features, w);
        let expected = first + w.agent_support * c.features.agent_support;
        assert!((c.score - expected).abs() < 0.01, "{} against {expected}: {c:?}", c.score);
    }
}

/// A Who&When-style group chat: `(agent, content)` turns, the terminal's output included.
fn chat(turns: &[(&str, &str)]) -> Trajectory {
    let history: Vec<serde_json::Value> = turns
        .iter()
        .map(|(name, content)| serde_json::json!({"name": name, "role": "assistant", "content": content}))
        .collect();
    let doc = serde_json::json!({"question": "Which dish left the menu?", "ground_truth": "x",
        "history": history, "mistake_agent": "", "mistake_step": "0", "mistake_reason": ""});
    let trace = ingest(doc.to_string().as_bytes(), IngestOptions::default());
    trace.trajectories.into_iter().next().unwrap()
}

#[test]
fn a_timeout_in_the_agents_own_code_is_its_failed_command_not_a_flaky_blocker() {
    let code = "Let me fetch the archived menu.\n```python\nimport requests\nprint(requests.get(URL, timeout=5).text)\n```";
    let timeout = "exitcode: 1 (execution failed)\nCode output: TimeoutError: [Errno 110] Connection timed out";
    let t = chat(&[
        ("Menu_Expert", "The plan: compare the two archived menus."),
        ("Wayback_Expert", code),
        ("Computer_terminal", timeout),
        ("Menu_Expert", "The dish that left is shrimp and grits."),
    ]);
    let opts = AnalysisOptions { assume_failed: true, ..AnalysisOptions::default() };
    let a = analyze_trajectory(&t, &opts);
    let on_code: Vec<Rule> = a.triggers.iter().filter(|t| t.step == 1).map(|t| t.rule).collect();
    assert!(on_code.contains(&Rule::FailedCommand), "{on_code:?}");
    assert!(a.triggers.iter().all(|t| t.rule != Rule::FlakyBlocker && t.blocker.is_none()));
    assert!(a.candidates.iter().all(|c| c.agent != "environment"));
    assert_ne!(a.classification, Some(FailureClass::FlakyBlocker));
    // A missing network is the environment's whatever ran: it stays a blocker.
    let offline = "exitcode: 6 (execution failed)\nCode output: curl: (6) Could not resolve host: web.archive.org";
    let t = chat(&[
        ("Menu_Expert", "The plan: compare the two archived menus."),
        ("Wayback_Expert", code),
        ("Computer_terminal", offline),
    ]);
    let a = analyze_trajectory(&t, &opts);
    assert!(a.triggers.iter().any(|t| t.step == 1 && t.rule == Rule::EnvironmentBlocker));
    assert_eq!(a.critical.as_ref().map(|c| c.agent.as_str()), Some("environment"));
}

#[test]
fn a_lookup_of_a_placeholder_host_is_the_agents_command_not_a_blocker() {
    // The agent's command kept a placeholder for the URL: the lookup of `<URL>` failing shows
    // no missing network. The terminal's output names the placeholder the command holds, an
    // explicit report: the command is the critical step and its agent is blamed.
    let code = "I'll draft the command.\n```sh\ncurl -o data.csv \"<URL>\"\n```";
    let placeholder =
        "exitcode: 6 (execution failed)\nCode output: curl: (6) Could not resolve host: <URL>";
    let t = chat(&[
        ("Planner", "The plan: assume the dataset is online, download it and count the rows."),
        ("Data_Expert", code),
        ("Computer_terminal", placeholder),
        ("Planner", "The count is 12."),
    ]);
    let opts = AnalysisOptions { assume_failed: true, ..AnalysisOptions::default() };
    let a = analyze_trajectory(&t, &opts);
    assert!(a.triggers.iter().all(|t| t.blocker.is_none()), "{:?}", a.triggers);
    assert!(a.triggers.iter().any(|t| t.step == 1 && t.rule == Rule::PlaceholderCommand));
    let c = a.critical.as_ref().expect("a failed run has a critical step");
    assert_eq!((c.step, c.agent.as_str()), (1, "Data_Expert"));
    let top = &a.candidates[0];
    assert!(top.evidence.iter().any(|e| e.quote.ends_with("Could not resolve host: <URL>")));
    assert!(top.why.iter().any(|w| w == "rule: placeholder_command"), "{:?}", top.why);
    assert!(a.candidates.iter().all(|c| c.agent != "environment"));
    assert_ne!(a.classification, Some(FailureClass::EnvironmentBlocker));
    // A name no host can have that the command does not hold (the agent did not write it):
    // still no blocker, but only the agent's failed command, no explicit report.
    let elsewhere =
        "exitcode: 6 (execution failed)\nCode output: curl: (6) Could not resolve host: {mirror}";
    let t = chat(&[
        ("Planner", "The plan: download the dataset and count the rows."),
        ("Data_Expert", code),
        ("Computer_terminal", elsewhere),
    ]);
    let a = analyze_trajectory(&t, &opts);
    assert!(a.triggers.iter().all(|t| t.blocker.is_none()), "{:?}", a.triggers);
    assert!(a.triggers.iter().any(|t| t.step == 1 && t.rule == Rule::FailedCommand));
    assert!(a.triggers.iter().all(|t| t.rule != Rule::PlaceholderCommand));
}

#[test]
fn the_agent_vote_puts_first_the_best_step_of_the_agent_most_candidates_point_at() {
    // Five turns, no error: with earliness alone every step scores 1 − step / 5, so the opening
    // plan (step 0) is best. Expert_B's three steps just after it hold more of the score mass
    // than Planner's two (steps 0 and 4), so with the vote on its best step (1) goes first.
    let t = chat(&[
        ("Planner", "The plan: read the menu archive and compare."),
        ("Expert_B", "The archived menu lists shrimp and grits."),
        ("Expert_B", "The newer menu does not list it."),
        ("Expert_B", "So the dish that left is shrimp and grits."),
        ("Planner", "Agreed."),
    ]);
    let mut w = trajscope_core::attribution::Weights::default();
    for k in 0..trajscope_core::attribution::Weights::LEN {
        w.set(k, 0.0);
    }
    w.earliness = 1.0;
    let mut opts =
        AnalysisOptions { assume_failed: true, weights: w, ..AnalysisOptions::default() };
    let off = analyze_trajectory(&t, &opts);
    assert_eq!(off.critical.as_ref().map(|c| (c.step, c.agent.as_str())), Some((0, "Planner")));
    assert!(off.candidates.iter().all(|c| !c.why.iter().any(|w| w.contains("agent vote"))));
    opts.weights.agent_vote = 0.5;
    let on = analyze_trajectory(&t, &opts);
    assert_eq!(on.critical.as_ref().map(|c| (c.step, c.agent.as_str())), Some((1, "Expert_B")));
    let top = &on.candidates[0];
    assert!(top.why.iter().any(|w| w.contains("moved first by the agent vote")), "{:?}", top.why);
    // Only the promoted step says so; the others keep their order behind it.
    let rest: Vec<u32> = on.candidates[1..].iter().map(|c| c.step).collect();
    assert_eq!(rest, vec![0, 2, 3, 4]);
    assert!(on.candidates[1..].iter().all(|c| !c.why.iter().any(|w| w.contains("agent vote"))));
    // An explicitly reported error is not outvoted: the shipped group-chat weights vote, and a
    // verifier-linked candidate keeps its agent (checked on every AWTL fixture by the goldens).
    assert!(AnalysisOptions::default().weights.agent_vote > 0.0);
    assert_eq!(AnalysisOptions::default().orchestrated_weights.agent_vote, 0.0);
}

/// A Who&When item's trajectory: `question`, its `history` turns and any `extra` fields.
fn who_and_when(
    question: &str,
    history: Vec<serde_json::Value>,
    extra: serde_json::Value,
) -> Trajectory {
    let mut doc = serde_json::json!({"question": question, "ground_truth": "x",
        "history": history, "mistake_agent": "", "mistake_step": "0", "mistake_reason": ""});
    if let (Some(doc), Some(extra)) = (doc.as_object_mut(), extra.as_object()) {
        doc.extend(extra.clone());
    }
    let trace = ingest(doc.to_string().as_bytes(), IngestOptions::default());
    trace.trajectories.into_iter().next().unwrap()
}

/// A Who&When Hand-Crafted (Magentic-One) run: `(role, content)` turns.
fn orchestrated(turns: &[(&str, &str)]) -> Trajectory {
    let history = turns
        .iter()
        .map(|(role, content)| serde_json::json!({"role": role, "content": content}))
        .collect();
    who_and_when("Which park is closest?", history, serde_json::json!({}))
}

#[test]
fn the_answer_after_final_answer_is_traced_not_the_harness_lines_after_it() {
    // Magentic-One's closing step holds the answer, then the harness's own lines. The answer
    // is the value after `FINAL ANSWER:`, and its origin is the worker reply that first said it.
    let t = orchestrated(&[
        ("human", "Which park is closest?"),
        ("Orchestrator (thought)", "Initial plan: search the parks."),
        ("Orchestrator (-> WebSurfer)", "Please search for parks near the museum."),
        ("WebSurfer", "I typed 'parks near the museum'. The closest is Riverside Commons."),
        ("Orchestrator (thought)", "Request satisfied."),
        (
            "Orchestrator (termination condition)",
            "No agent selected.\nFINAL ANSWER: Riverside Commons\nSCENARIO.PY COMPLETE !#!#\nRUN.SH COMPLETE !#!#",
        ),
    ]);
    let opts = AnalysisOptions { assume_failed: true, ..AnalysisOptions::default() };
    let a = analyze_trajectory(&t, &opts);
    let origin: Vec<_> = a.triggers.iter().filter(|t| t.rule == Rule::AnswerOrigin).collect();
    assert_eq!(origin.len(), 1, "{:?}", a.triggers);
    assert_eq!(origin[0].step, 3, "the worker reply that first states the answer");
    assert_eq!(origin[0].reference_step, Some(5));
    assert_eq!(origin[0].reference_quote, "FINAL ANSWER: Riverside Commons");
    assert!(a.triggers.iter().all(|t| !t.wrong_quote.contains("COMPLETE")));
    // A marked answer too short to trace (one character) traces nothing, not the lines after it.
    let t = orchestrated(&[
        ("human", "Which park is closest?"),
        ("Orchestrator (-> WebSurfer)", "Please count the parks."),
        ("WebSurfer", "There are 6 parks."),
        ("Orchestrator (termination condition)", "FINAL ANSWER: 6\nSCENARIO.PY COMPLETE !#!#"),
    ]);
    let a = analyze_trajectory(&t, &opts);
    assert!(a.triggers.iter().all(|t| t.rule != Rule::AnswerOrigin), "{:?}", a.triggers);
}

/// A group chat (CaptainAgent's shape: the agent in `name`) from its turns.
fn group_chat(turns: &[(&str, &str)]) -> Trajectory {
    let history = turns
        .iter()
        .map(|(name, content)| serde_json::json!({"role": "assistant", "name": name, "content": content}))
        .collect();
    let extra = serde_json::json!({"system_prompt": {}, "level": 1, "is_correct": false});
    who_and_when("Which of the two homes sold for more?", history, extra)
}

#[test]
fn the_answer_is_traced_to_the_step_that_wrote_its_number_with_thousands_separators() {
    // The value entered the run as `$950,000` and was reformatted as `950000` by the step
    // after it: the step that first wrote the value, in either spelling, is its origin.
    let t = group_chat(&[
        ("Planner_Expert", "Which of the two homes sold for more? Please gather the prices."),
        ("RealEstate_Expert", "Here is the sales data:\n- 2017 Komo Mai Drive: Sold for $950,000"),
        ("Validation_Expert", "Formatted without commas: 950000. This is the higher price."),
        ("Planner_Expert", "The home that sold for more sold for 950000.\nTERMINATE"),
    ]);
    let opts = AnalysisOptions { assume_failed: true, ..AnalysisOptions::default() };
    let a = analyze_trajectory(&t, &opts);
    let origin: Vec<_> = a.triggers.iter().filter(|t| t.rule == Rule::AnswerOrigin).collect();
    assert_eq!(origin.len(), 1, "{:?}", a.triggers);
    assert_eq!(origin[0].step, 1, "the step that first wrote the value, as `$950,000`");
    assert_eq!(origin[0].wrong_quote, "- 2017 Komo Mai Drive: Sold for $950,000");
    assert_eq!(origin[0].reference_step, Some(3));
    // The reverse: an answer written with separators, first written without them.
    let t = group_chat(&[
        ("Planner_Expert", "Which of the two homes sold for more? Please gather the prices."),
        ("RealEstate_Expert", "The sale price was 950000 dollars."),
        ("Validation_Expert", "Confirmed: $950,000 is the higher price.\nTERMINATE"),
    ]);
    let a = analyze_trajectory(&t, &opts);
    let origin: Vec<_> = a.triggers.iter().filter(|t| t.rule == Rule::AnswerOrigin).collect();
    assert_eq!(origin.len(), 1, "{:?}", a.triggers);
    assert_eq!(origin[0].step, 1);
    // A different number that only shares digits is not the value (`95,000` is not `950000`).
    let t = group_chat(&[
        ("Planner_Expert", "Which of the two homes sold for more? Please gather the prices."),
        ("RealEstate_Expert", "The other home sold for $95,000."),
        ("Validation_Expert", "The higher price is 950000.\nTERMINATE"),
    ]);
    let a = analyze_trajectory(&t, &opts);
    let origin: Vec<_> = a.triggers.iter().filter(|t| t.rule == Rule::AnswerOrigin).collect();
    assert_eq!(origin.len(), 1, "{:?}", a.triggers);
    assert_eq!(origin[0].step, 2);
}

/// The candidate at `step` of an analysis (a failed run).
fn candidate_at(a: &TrajectoryAnalysis, step: u32) -> &trajscope_core::attribution::Candidate {
    a.candidates.iter().find(|c| c.step == step).unwrap_or_else(|| panic!("no step {step}"))
}

#[test]
fn the_first_worker_reply_showing_the_answer_is_found_with_case_and_punctuation_ignored() {
    // The answer says "CSI Cyber"; the first reply that shows it spells it "CSI: Cyber" (an
    // exact match finds only the later reply).
    let t = orchestrated(&[
        ("human", "Which park is closest?"),
        ("Orchestrator (thought)", "Initial plan: search the listings."),
        ("Orchestrator (-> WebSurfer)", "Please search for the series."),
        ("WebSurfer", "I typed 'series'.\nResults: Cheers, CSI: Cyber, The Good Place."),
        ("Orchestrator (-> WebSurfer)", "Please open the second result."),
        ("WebSurfer", "I clicked 'CSI Cyber'. CSI Cyber ran for two seasons."),
        (
            "Orchestrator (termination condition)",
            "FINAL ANSWER: CSI Cyber\nSCENARIO.PY COMPLETE !#!#",
        ),
    ]);
    let opts = AnalysisOptions { assume_failed: true, ..AnalysisOptions::default() };
    let a = analyze_trajectory(&t, &opts);
    let shown = candidate_at(&a, 3);
    assert!(shown.features.shows_answer);
    assert!(
        shown
            .why
            .iter()
            .any(|w| w
                == "first worker reply whose text states the final answer's value 'CSI: Cyber'"),
        "{:?}",
        shown.why
    );
    // Its evidence quotes the line as the reply spells it, verbatim.
    let e = shown.evidence.iter().find(|e| e.rule == Rule::AnswerOrigin).expect("evidence");
    assert_eq!(e.quote, "Results: Cheers, CSI: Cyber, The Good Place.");
    assert!(t.steps[3].text.contains(&e.quote));
    for c in &a.candidates {
        for e in &c.evidence {
            assert!(t.steps[e.step as usize].text.contains(&e.quote), "{e:?}");
        }
    }
    // Only the first reply is marked. The shipped weights keep it (and rank it in the first
    // two, behind the later reply that states the value exactly, an observed `answer_origin`
    // instance); with the feature weighted as much as an instance it ranks first.
    assert!(!candidate_at(&a, 5).features.shows_answer);
    assert!(AnalysisOptions::default().orchestrated_weights.shows_answer > 0.0);
    assert!(a.candidates.iter().take(2).any(|c| c.step == 3), "{:?}", a.candidates);
    let mut heavier = opts.clone();
    heavier.orchestrated_weights.shows_answer = 1.0;
    let b = analyze_trajectory(&t, &heavier);
    assert_eq!(b.critical.as_ref().map(|c| c.step), Some(3));
}

#[test]
fn a_number_inside_another_or_a_value_from_the_task_is_not_the_answer_shown() {
    let opts = AnalysisOptions { assume_failed: true, ..AnalysisOptions::default() };
    let marked = |a: &TrajectoryAnalysis| -> Vec<u32> {
        a.candidates.iter().filter(|c| c.features.shows_answer).map(|c| c.step).collect()
    };
    // "2.70" is not "70"; "70 km" is.
    let t = orchestrated(&[
        ("human", "Which park is closest?"),
        ("Orchestrator (-> WebSurfer)", "Please measure the distance."),
        ("WebSurfer", "The ticket costs 2.70 dollars."),
        ("Orchestrator (-> WebSurfer)", "Please look again."),
        ("WebSurfer", "The park is 70 km away."),
        ("Orchestrator (termination condition)", "FINAL ANSWER: 70"),
    ]);
    assert_eq!(marked(&analyze_trajectory(&t, &opts)), [4]);
    // A value the task already names was not introduced by a reply.
    let t = orchestrated(&[
        ("human", "Which park is closest?"),
        ("Orchestrator (-> WebSurfer)", "Please search."),
        ("WebSurfer", "The closest PARK is far."),
        ("Orchestrator (termination condition)", "FINAL ANSWER: park"),
    ]);
    assert!(marked(&analyze_trajectory(&t, &opts)).is_empty());
    // Case is ignored beyond ASCII too.
    let t = orchestrated(&[
        ("human", "Which park is closest?"),
        ("Orchestrator (-> WebSurfer)", "Please search."),
        ("WebSurfer", "Top pick: CAFÉ MÜLLER!"),
        ("Orchestrator (termination condition)", "FINAL ANSWER: Café Müller"),
    ]);
    assert_eq!(marked(&analyze_trajectory(&t, &opts)), [2]);
    // A run cut short has no answer: the value of whatever a worker said last (a page's
    // footer) is not traced back.
    let t = orchestrated(&[
        ("human", "Which park is closest?"),
        ("Orchestrator (-> WebSurfer)", "Please search."),
        ("WebSurfer", "Results.\n- © 2024 Microsoft"),
        ("Orchestrator (-> WebSurfer)", "Please scroll."),
        ("WebSurfer", "More results.\n- © 2024 Microsoft"),
    ]);
    assert!(marked(&analyze_trajectory(&t, &opts)).is_empty());
    // A group chat has no worker replies: the feature never fires there.
    let doc = serde_json::json!({"question": "Which series?", "history": [
        {"name": "Planner", "role": "assistant", "content": "Results: CSI: Cyber."},
        {"name": "Expert", "role": "assistant", "content": "FINAL ANSWER: CSI Cyber"},
    ], "mistake_agent": "Planner", "mistake_step": "0", "mistake_reason": ""});
    let t = ingest(doc.to_string().as_bytes(), IngestOptions::default()).trajectories.remove(0);
    assert!(marked(&analyze_trajectory(&t, &opts)).is_empty());
}

#[test]
fn the_first_worker_reply_showing_an_item_of_a_list_answer_is_the_answer_shown() {
    // The answer lists two gyms; no reply shows both, the second reply is the first to show
    // one of them (the third shows the other): it brought a value of the wrong answer in.
    let t = orchestrated(&[
        ("human", "Which gyms are within 5 miles?"),
        ("Orchestrator (thought)", "Initial plan: search the listings."),
        ("Orchestrator (-> WebSurfer)", "Please search for gyms near the museum."),
        ("WebSurfer", "I typed 'gyms near the museum'.\nResults: 12 listings."),
        ("Orchestrator (-> WebSurfer)", "Please open the first listing."),
        ("WebSurfer", "I clicked 'Iron Temple Fitness'.\nIron Temple Fitness, 2 miles away."),
        ("Orchestrator (-> WebSurfer)", "Please open the second listing."),
        ("WebSurfer", "I clicked 'Northside Barbell'. Open until 9 pm."),
        (
            "Orchestrator (termination condition)",
            "FINAL ANSWER: Iron Temple Fitness, Northside Barbell\nSCENARIO.PY COMPLETE !#!#",
        ),
    ]);
    let opts = AnalysisOptions { assume_failed: true, ..AnalysisOptions::default() };
    let a = analyze_trajectory(&t, &opts);
    let marked: Vec<u32> =
        a.candidates.iter().filter(|c| c.features.shows_answer).map(|c| c.step).collect();
    assert_eq!(marked, [5]);
    let shown = candidate_at(&a, 5);
    assert!(
        shown.why.iter().any(|w| w
            == "first worker reply whose text states an item of the final answer's list, \
                'Iron Temple Fitness'"),
        "{:?}",
        shown.why
    );
    let e = shown.evidence.iter().find(|e| e.rule == Rule::AnswerOrigin).expect("evidence");
    assert!(t.steps[5].text.contains(&e.quote) && e.quote.contains("Iron Temple Fitness"));
    // With the shipped weights it outranks the earlier reply that shows nothing of the answer.
    assert_eq!(a.critical.as_ref().map(|c| c.step), Some(5), "{:?}", a.candidates);
    // An item of two characters (a two-digit number) is too common to trace; a comma inside a
    // number does not cut the answer into items; an item the task names is not traced.
    let run = |answer: &str, reply: &str| -> Vec<u32> {
        let closing = format!("FINAL ANSWER: {answer}");
        let t = orchestrated(&[
            ("human", "Which park is closest?"),
            ("Orchestrator (-> WebSurfer)", "Please search."),
            ("WebSurfer", reply),
            ("Orchestrator (-> WebSurfer)", "Please look again."),
            ("WebSurfer", "Nothing more here."),
            ("Orchestrator (termination condition)", closing.as_str()),
        ]);
        let a = analyze_trajectory(&t, &opts);
        a.candidates.iter().filter(|c| c.features.shows_answer).map(|c| c.step).collect()
    };
    assert!(run("23, 145", "See page 23.").is_empty());
    assert_eq!(run("23, 145", "See page 145."), [2]);
    assert!(run("1,080,000", "It sold for 080 dollars.").is_empty());
    // (The task of these runs is "Which park is closest?".)
    assert!(run("park, Iron Temple", "The park is long.").is_empty());
    assert_eq!(run("park, Iron Temple", "Iron Temple is open."), [2]);
}

/// A Magentic-One progress ledger whose `is_request_satisfied` answer is `satisfied`.
fn ledger(satisfied: bool) -> String {
    format!(
        "Updated Ledger:\n{{\n  \"is_request_satisfied\": {{\n    \"reason\": \"The count has \
         an answer.\",\n    \"answer\": {satisfied}\n  }},\n  \"is_in_loop\": {{\n    \
         \"reason\": \"No.\",\n    \"answer\": false\n  }}\n}}"
    )
}

#[test]
fn the_reply_the_run_accepted_its_wrong_answer_from_is_the_critical_step() {
    let opts = AnalysisOptions { assume_failed: true, ..AnalysisOptions::default() };
    let done = ledger(true);
    let t = orchestrated(&[
        ("human", "How many parks are between the museum and the river?"),
        ("Orchestrator (thought)", "Initial plan: find the parks, then count them."),
        ("Orchestrator (-> WebSurfer)", "Please list the parks near the museum."),
        ("WebSurfer", "I typed 'parks near the museum'. Results: Elm Park, Oak Park, Ash Park."),
        ("Orchestrator (-> Assistant)", "Count the parks between the museum and the river."),
        ("Assistant", "Counting the listed parks:\nThere are 6 parks between them.\nTERMINATE"),
        ("Orchestrator (thought)", done.as_str()),
        ("Orchestrator (thought)", "Request satisfied."),
        ("Orchestrator (termination condition)", "No agent selected.\nFINAL ANSWER: 6"),
    ]);
    let a = analyze_trajectory(&t, &opts);
    let accepted = candidate_at(&a, 5);
    assert!(accepted.features.concludes_answer, "{:?}", accepted.features);
    assert!(
        accepted.why.iter().any(|w| w
            == "the worker reply the run accepted its answer from: it states the final \
                answer's value '6', and the orchestrator next declared the request satisfied \
                (step 6)"),
        "{:?}",
        accepted.why
    );
    // Its evidence quotes the line that states the value, verbatim, once.
    let e = accepted.evidence.iter().find(|e| e.rule == Rule::AnswerOrigin).expect("evidence");
    assert_eq!(e.quote, "There are 6 parks between them.");
    assert_eq!(accepted.evidence.iter().filter(|x| *x == e).count(), 1, "{:?}", accepted.evidence);
    assert!(a.candidates.iter().all(|c| c.features.orchestrated));
    for c in &a.candidates {
        for e in &c.evidence {
            assert!(t.steps[e.step as usize].text.contains(&e.quote), "{e:?}");
        }
    }
    // No other step carries it, and with the shipped weights it is the critical step, its
    // agent the Assistant (the worker that concluded the value), not the first WebSurfer reply.
    assert!(a.candidates.iter().filter(|c| c.features.concludes_answer).count() == 1);
    let critical = a.critical.as_ref().expect("a critical step");
    assert_eq!((critical.step, critical.agent.as_str()), (5, "Assistant"));
    assert!(AnalysisOptions::default().orchestrated_weights.concludes_answer > 0.0);

    let fires = |turns: &[(&str, &str)]| -> Vec<u32> {
        let a = analyze_trajectory(&orchestrated(turns), &opts);
        a.candidates.iter().filter(|c| c.features.concludes_answer).map(|c| c.step).collect()
    };
    // The reply before the declaration does not state the answer: nothing is marked (the
    // value came from elsewhere).
    assert!(fires(&[
        ("human", "How many parks are there?"),
        ("Orchestrator (-> WebSurfer)", "Please count the parks."),
        ("WebSurfer", "I scrolled down. The page lists parks."),
        ("Orchestrator (thought)", done.as_str()),
        ("Orchestrator (termination condition)", "FINAL ANSWER: 6"),
    ])
    .is_empty());
    // A ledger that says the request is not satisfied declares nothing; nor does a run that
    // stops without a declaration.
    let open = ledger(false);
    assert!(fires(&[
        ("human", "How many parks are there?"),
        ("Orchestrator (-> WebSurfer)", "Please count the parks."),
        ("WebSurfer", "There are 6 parks."),
        ("Orchestrator (thought)", open.as_str()),
        ("Orchestrator (termination condition)", "FINAL ANSWER: 6"),
    ])
    .is_empty());
    // The reply is the last one before the first declaration, not an earlier one that said
    // the value too, and one-letter answers count.
    assert_eq!(
        fires(&[
            ("human", "Which letter is missing?"),
            ("Orchestrator (-> WebSurfer)", "Please read the code."),
            ("WebSurfer", "The code ends with k in one version."),
            ("Orchestrator (-> Assistant)", "Which character is missing?"),
            ("Assistant", "The missing character is k.\nTERMINATE"),
            ("Orchestrator (thought)", "Request satisfied."),
            ("Orchestrator (termination condition)", "FINAL ANSWER: k"),
        ]),
        [4]
    );
    // A value the task gives was not concluded by the reply.
    let history = serde_json::json!([
        {"role": "human", "content": "Is the answer 6 or 7 parks?"},
        {"role": "Orchestrator (-> Assistant)", "content": "Which is it?"},
        {"role": "Assistant", "content": "It is 6 parks."},
        {"role": "Orchestrator (thought)", "content": "Request satisfied."},
        {"role": "Orchestrator (termination condition)", "content": "FINAL ANSWER: 6"},
    ]);
    let doc = serde_json::json!({"question": "Is the answer 6 or 7 parks?", "history": history,
        "mistake_agent": "", "mistake_step": "0", "mistake_reason": ""});
    let t = ingest(doc.to_string().as_bytes(), IngestOptions::default()).trajectories.remove(0);
    let a = analyze_trajectory(&t, &opts);
    assert!(a.candidates.iter().all(|c| !c.features.concludes_answer), "{:?}", a.candidates);
    // A marked answer of more than 80 characters is no value to trace (a sentence, not a
    // value), even when a reply said it word for word; only a one-character answer is looked
    // for in the replies when the marked one holds no value.
    let long =
        "the park on the north bank of the river between the museum and the old stone bridge";
    assert!(long.len() > 80);
    let said = serde_json::json!([
        {"role": "human", "content": "Which park is it?"},
        {"role": "Orchestrator (-> Assistant)", "content": "Which is it?"},
        {"role": "Assistant", "content": format!("It is {long}.")},
        {"role": "Orchestrator (thought)", "content": "Request satisfied."},
        {"role": "Orchestrator (termination condition)", "content": format!("FINAL ANSWER: {long}")},
    ]);
    let doc = serde_json::json!({"question": "Which park is it?", "history": said,
        "mistake_agent": "", "mistake_step": "0", "mistake_reason": ""});
    let t = ingest(doc.to_string().as_bytes(), IngestOptions::default()).trajectories.remove(0);
    let a = analyze_trajectory(&t, &opts);
    assert!(a.candidates.iter().all(|c| !c.features.concludes_answer), "{:?}", a.candidates);
    // Without the task's 6 the same run marks the reply (so the line above tests the task).
    let doc = serde_json::json!({"question": "How many parks?", "history": history,
        "mistake_agent": "", "mistake_step": "0", "mistake_reason": ""});
    let t = ingest(doc.to_string().as_bytes(), IngestOptions::default()).trajectories.remove(0);
    let a = analyze_trajectory(&t, &opts);
    assert!(candidate_at(&a, 2).features.concludes_answer);
}

#[test]
fn a_declaration_of_success_no_worker_reply_backs_is_the_orchestrators_own_step() {
    let opts = AnalysisOptions { assume_failed: true, ..AnalysisOptions::default() };
    let done = ledger(true);
    let marked = |turns: &[(&str, &str)]| -> Vec<u32> {
        let a = analyze_trajectory(&orchestrated(turns), &opts);
        a.candidates.iter().filter(|c| c.features.unbacked_declaration).map(|c| c.step).collect()
    };
    // The reply before the first declaration does not state the answer's value: the
    // orchestrator took it from nowhere a worker showed, and its declaration is marked.
    let unbacked = [
        ("human", "How many parks are between the museum and the river?"),
        ("Orchestrator (thought)", "Initial plan: find the parks, then count them."),
        ("Orchestrator (-> WebSurfer)", "Please list the parks near the museum."),
        ("WebSurfer", "I typed 'parks near the museum'. The page lists parks."),
        ("Orchestrator (thought)", done.as_str()),
        ("Orchestrator (thought)", "Request satisfied."),
        ("Orchestrator (termination condition)", "No agent selected.\nFINAL ANSWER: 6"),
    ];
    assert_eq!(marked(&unbacked), [4], "the first declaration only, not the later line");
    let a = analyze_trajectory(&orchestrated(&unbacked), &opts);
    let c = candidate_at(&a, 4);
    assert!(
        c.why.iter().any(|w| w
            == "the orchestrator's first declaration that the request is satisfied, and the \
                worker reply before it does not state the final answer's value"),
        "{:?}",
        c.why
    );
    // It is structural, not weighted: the critical step, the orchestrator's, whatever the
    // weights (every weight held at 0 too), and its `why` says it outranks the rest.
    assert!(c.why.iter().any(|w| w.contains("outranks every inferred candidate")), "{:?}", c.why);
    let critical = a.critical.as_ref().expect("a critical step");
    assert_eq!((critical.step, critical.agent.as_str()), (4, "Orchestrator"));
    let mut off = opts.clone();
    for k in 0..Weights::LEN {
        off.orchestrated_weights.set(k, 0.0);
    }
    let b = analyze_trajectory(&orchestrated(&unbacked), &off);
    assert_eq!(b.critical.as_ref().map(|c| c.step), Some(4));
    // A reply that states the value backs the declaration: that reply concludes the answer
    // and the declaration is not marked.
    assert!(marked(&[
        ("human", "How many parks are there?"),
        ("Orchestrator (-> WebSurfer)", "Please count the parks."),
        ("WebSurfer", "There are 6 parks."),
        ("Orchestrator (thought)", done.as_str()),
        ("Orchestrator (termination condition)", "FINAL ANSWER: 6"),
    ])
    .is_empty());
    // No declaration (a ledger that says not satisfied), or no marked answer: nothing.
    let open = ledger(false);
    assert!(marked(&[
        ("human", "How many parks are there?"),
        ("Orchestrator (-> WebSurfer)", "Please count the parks."),
        ("WebSurfer", "The page lists parks."),
        ("Orchestrator (thought)", open.as_str()),
        ("Orchestrator (termination condition)", "FINAL ANSWER: 6"),
    ])
    .is_empty());
    assert!(marked(&[
        ("human", "How many parks are there?"),
        ("Orchestrator (-> WebSurfer)", "Please count the parks."),
        ("WebSurfer", "The page lists parks."),
        ("Orchestrator (thought)", done.as_str()),
    ])
    .is_empty());
    // A group chat has no orchestrator: never marked there.
    let doc = serde_json::json!({"question": "How many parks?", "history": [
        {"name": "Planner", "role": "assistant", "content": "Request satisfied."},
        {"name": "Expert", "role": "assistant", "content": "FINAL ANSWER: 6"},
    ], "mistake_agent": "Planner", "mistake_step": "0", "mistake_reason": ""});
    let t = ingest(doc.to_string().as_bytes(), IngestOptions::default()).trajectories.remove(0);
    let a = analyze_trajectory(&t, &opts);
    assert!(a.candidates.iter().all(|c| !c.features.unbacked_declaration));
}

#[test]
fn the_opening_message_states_an_assumption_only_in_its_own_words_not_the_tasks() {
    let opts = AnalysisOptions { assume_failed: true, ..AnalysisOptions::default() };
    let run = |opening: &str| {
        let doc = serde_json::json!({"question": "Assume a fictional city. How many parks?",
            "history": [
            {"name": "Planner", "role": "assistant", "content": opening},
            {"name": "Computer_terminal", "role": "user", "content": "exitcode: 0 (execution succeeded)\nCode output: 6"},
            {"name": "Checker", "role": "assistant", "content": "The count is 6. TERMINATE"},
        ], "mistake_agent": "Planner", "mistake_step": "0", "mistake_reason": ""});
        let t = ingest(doc.to_string().as_bytes(), IngestOptions::default()).trajectories.remove(0);
        candidate_at(&analyze_trajectory(&t, &opts), 0).features.assumption
    };
    // The opening message quotes the task (its "Assume … fictional" is the task's words).
    assert!(!run("# General Task\nAssume a fictional city. How many parks?\n# Plan\nCount them."));
    // Its own code assumes a column: that is the step's assumption, step 0 or not.
    assert!(run(
        "# General Task\nAssume a fictional city. How many parks?\n```python\n# Assuming the \
         column is 'Parks'\nprint(6)\n```"
    ));
}

#[test]
fn a_step_that_reports_a_check_it_never_ran_is_the_critical_step() {
    // A group chat whose checks run only as code in the terminal. The expert writes the code
    // and the terminal prints the menu; then the checker says it visited the site by hand,
    // ran nothing, and states a fact no output shows. With the shipped weights that report is
    // the critical step, and its `why` quotes the phrase verbatim.
    let code = "Let me fetch the archived menu.\n```python\nprint(open('menu.txt').read())\n```";
    let t = chat(&[
        ("Menu_Expert", "The plan: compare the two archived menus."),
        ("Wayback_Expert", code),
        (
            "Computer_terminal",
            "exitcode: 0 (execution succeeded)\nCode output: shrimp and grits, gumbo",
        ),
        ("Checker_Expert", "Upon visiting the newer menu page, the dish missing is gumbo."),
        ("Menu_Expert", "So the answer is gumbo. TERMINATE"),
    ]);
    let opts = AnalysisOptions { assume_failed: true, ..AnalysisOptions::default() };
    let a = analyze_trajectory(&t, &opts);
    let c = a.critical.as_ref().expect("a failed run has a critical step");
    assert_eq!((c.step, c.agent.as_str()), (3, "Checker_Expert"));
    let why = &candidate_at(&a, 3).why;
    assert!(
        why.iter().any(|w| w
            == "reports a check as done ('Upon visiting the newer menu page') but ran no code \
                and issued no command"),
        "{why:?}"
    );
    assert!(t.steps[3].text.contains("Upon visiting the newer menu page"));
    // Held out (weight 0), the expert's code is first again: the feature decided.
    let mut off = opts.clone();
    off.weights.claimed_check = 0.0;
    let b = analyze_trajectory(&t, &off);
    assert_ne!(b.critical.as_ref().map(|c| c.step), Some(3));
    assert!(candidate_at(&b, 3).features.claimed_check);

    // The same words right after the output of the speaker's own command that did not fail
    // sum up what it returned (a tool-using agent's "I have checked"): no claim.
    let own = chat(&[
        ("Menu_Expert", "The plan: compare the two archived menus."),
        ("Checker_Expert", code),
        (
            "Computer_terminal",
            "exitcode: 0 (execution succeeded)\nCode output: shrimp and grits, gumbo",
        ),
        ("Checker_Expert", "Upon visiting the newer menu page, the dish missing is gumbo."),
    ]);
    let a = analyze_trajectory(&own, &opts);
    assert!(!candidate_at(&a, 3).features.claimed_check, "{:?}", candidate_at(&a, 3).why);
    // After a failed run of its own command the report is unbacked again.
    let failed = chat(&[
        ("Menu_Expert", "The plan: compare the two archived menus."),
        ("Checker_Expert", code),
        (
            "Computer_terminal",
            "exitcode: 1 (execution failed)\nCode output: FileNotFoundError: menu.txt",
        ),
        ("Checker_Expert", "Upon visiting the newer menu page, the dish missing is gumbo."),
    ]);
    let a = analyze_trajectory(&failed, &opts);
    assert!(candidate_at(&a, 3).features.claimed_check);
    // A step that runs code reports what it ran, not a check it never made.
    let with_code = chat(&[
        ("Menu_Expert", "The plan: compare the two archived menus."),
        ("Checker_Expert", "I have checked the page; now the list:\n```python\nprint(1)\n```"),
    ]);
    let a = analyze_trajectory(&with_code, &opts);
    assert!(!candidate_at(&a, 1).features.claimed_check);
    // Orchestrated runs do not weigh it (their workers browse for themselves).
    assert_eq!(AnalysisOptions::default().orchestrated_weights.claimed_check, 0.0);
}

/// An AWTL run of `actions` (agent `c`, each a command and, if it ran, its exit code and
/// output) ending `status`; `None` as an exit code writes a user's message of that text instead
/// (a step that is no agent action).
fn awtl_run(actions: &[(&str, Option<i64>, &str)], status: &str) -> Trajectory {
    let mut lines = Vec::new();
    for (i, &(command, exit, out)) in actions.iter().enumerate() {
        match exit {
            Some(code) => lines.extend([shell(i, command), output(i, code, out)]),
            None => {
                lines.push(serde_json::json!({"type": "message", "role": "user", "text": command}))
            }
        }
    }
    lines.push(serde_json::json!({"type": "run_end", "status": status}));
    awtl_lines(&lines)
}

/// Agent `c`'s shell command `command`: action `a{n}` in span `s{n}`.
fn shell(n: usize, command: &str) -> serde_json::Value {
    serde_json::json!({"type": "action", "action_id": format!("a{n}"), "span_id": format!("s{n}"),
        "agent": "c", "tool": "shell", "command": command})
}

/// The policy verifier's failed verdict on action `a{n}`, a push to main.
fn rejected_push(n: usize) -> serde_json::Value {
    serde_json::json!({"type": "judge_result", "judge_name": "policy", "event_id": "j1",
        "status": "failed", "source_action_id": format!("a{n}"),
        "reason": "pushed to main instead of a pull request"})
}

/// The output of span `s{n}`'s command.
fn output(n: usize, exit_code: i64, output: &str) -> serde_json::Value {
    serde_json::json!({"type": "observation", "span_id": format!("s{n}"), "exit_code": exit_code,
        "output": output})
}

#[test]
fn a_failed_command_run_again_after_an_edit_is_a_retry_not_a_repeat() {
    let repeats = |t: &Trajectory| -> Vec<u32> {
        let a = analyze_trajectory(t, &AnalysisOptions::default());
        a.triggers.iter().filter(|tr| tr.rule == Rule::RepeatedAction).map(|tr| tr.step).collect()
    };
    let fail = "FAILED tests/test_a.py::test_total - AssertionError";
    // Nothing between the two runs: the second is the repeat (steps 0-1, then 2-3).
    let again = awtl_run(&[("pytest", Some(1), fail), ("pytest", Some(1), fail)], "failed");
    assert_eq!(repeats(&again), vec![2]);
    // An edit between: the second run checks a fix, however it turned out.
    let fixed = awtl_run(
        &[
            ("pytest", Some(1), fail),
            ("sed -i 's/+/-/' src/a.py", Some(0), ""),
            ("pytest", Some(1), fail),
        ],
        "failed",
    );
    assert_eq!(repeats(&fixed), Vec::<u32>::new());
    // An edit before the failure fixes nothing that failed after it.
    let before = awtl_run(
        &[
            ("sed -i 's/+/-/' src/a.py", Some(0), ""),
            ("pytest", Some(1), fail),
            ("pytest", Some(1), fail),
        ],
        "failed",
    );
    assert_eq!(repeats(&before), vec![4]);
    // A failing edit repeated as it was is still a repeat.
    let sed = awtl_run(
        &[(
            "sed -i 's/+/-/' src/missing.py",
            Some(2),
            "sed: can't read src/missing.py: No such file or directory",
        ); 2],
        "failed",
    );
    assert_eq!(repeats(&sed), vec![2]);
}

#[test]
fn a_command_failing_twice_is_no_loop_three_attempts_are() {
    let twice = awtl_run(&[("make", Some(2), "error: x"), ("make", Some(2), "error: x")], "failed");
    let s = analyze_trajectory(&twice, &AnalysisOptions::default()).signals;
    assert_eq!((s.repeated_actions, s.repeated_failures, s.attempts), (2, 2, 2));
    assert!(!s.repetition && !s.escalate, "{s:?}");
    // Three identical attempts that each fail differently: the actions repeat, not the failure.
    let thrice = awtl_run(
        &[
            ("make", Some(2), "error: a"),
            ("make", Some(2), "error: b"),
            ("make", Some(2), "error: c"),
        ],
        "failed",
    );
    let s = analyze_trajectory(&thrice, &AnalysisOptions::default()).signals;
    assert_eq!((s.repeated_actions, s.repeated_failures, s.attempts), (3, 1, 3));
    assert!(s.repetition && s.escalate, "{s:?}");
    // The same three actions, only the first failing: no loop of failed attempts.
    let once = awtl_run(
        &[("make", Some(2), "error: a"), ("make", Some(0), "ok"), ("make", Some(0), "ok")],
        "failed",
    );
    let s = analyze_trajectory(&once, &AnalysisOptions::default()).signals;
    assert_eq!((s.repeated_actions, s.attempts), (3, 1));
    assert!(!s.repetition, "{s:?}");
}

#[test]
fn attempts_are_exceeded_past_the_maximum_not_at_it() {
    let opts = AnalysisOptions::default();
    for n in [opts.max_attempts, opts.max_attempts + 1] {
        let outputs: Vec<String> = (0..n).map(|i| format!("error: attempt {i}")).collect();
        let actions: Vec<_> = outputs.iter().map(|o| ("make", Some(2), o.as_str())).collect();
        let s = analyze_trajectory(&awtl_run(&actions, "failed"), &opts).signals;
        assert_eq!(s.attempts, n);
        assert_eq!(s.attempts_exceeded, n > opts.max_attempts, "{n} attempts: {s:?}");
    }
}

#[test]
fn a_users_message_between_two_identical_failures_is_no_repair() {
    let t = awtl_run(
        &[("make", Some(2), "error: x"), ("try again", None, ""), ("make", Some(2), "error: x")],
        "failed",
    );
    let a = analyze_trajectory(&t, &AnalysisOptions::default());
    let make: Vec<_> = a.instances.iter().filter(|i| i.object.starts_with("cmd:")).collect();
    assert_eq!(make.len(), 1, "{:#?}", a.instances);
    assert_eq!((make[0].origin_step, make[0].last_step), (0, 4));
}

/// One AWTL run of `lines`, each given the run id `r1`.
fn awtl_lines(lines: &[serde_json::Value]) -> Trajectory {
    let text: String = lines
        .iter()
        .map(|l| {
            let mut l = l.clone();
            l["run_id"] = "r1".into();
            format!("{l}\n")
        })
        .collect();
    let trace = ingest(text.as_bytes(), IngestOptions::default());
    assert!(trace.quarantine.is_empty(), "{:?}", trace.quarantine);
    trace.trajectories.into_iter().next().unwrap()
}

/// The step that resolved the instance of `object`.
fn resolved_at(a: &TrajectoryAnalysis, object: &str) -> Option<u32> {
    let inst = a.instances.iter().find(|i| i.object == object);
    inst.unwrap_or_else(|| panic!("no instance of {object}: {:#?}", a.instances)).resolved_at
}

#[test]
fn an_edit_a_verified_action_and_a_verdict_are_resolved_by_a_later_green_step() {
    use serde_json::json;
    // An edit that broke the tests, fixed by a second edit: the passing test run resolves it.
    let edit = awtl_lines(&[
        json!({"type":"action","action_id":"a1","span_id":"s1","agent":"c","tool":"edit",
            "command":"apply_patch retry.diff","artifact_refs":["src/net.rs"]}),
        output(1, 0, "patched src/net.rs"),
        shell(2, "cargo test"),
        output(2, 101, "test net::retries ... FAILED"),
        json!({"type":"action","action_id":"a3","span_id":"s3","agent":"c","tool":"edit",
            "command":"apply_patch fix-retry.diff","artifact_refs":["src/net.rs"]}),
        output(3, 0, "patched src/net.rs"),
        shell(4, "cargo test"),
        output(4, 0, "test result: ok"),
        json!({"type":"run_end","status":"failed"}),
    ]);
    let a = analyze_trajectory(&edit, &AnalysisOptions::default());
    assert!(a.triggers.iter().any(|t| t.rule == Rule::EditBrokeTest && t.object == "edit:0"));
    assert_eq!(resolved_at(&a, "edit:0"), Some(7));
    // A push the verifier rejected, then a pull request it accepted.
    let act = awtl_lines(&[
        shell(1, "git push origin HEAD:main"),
        output(1, 0, "pushed"),
        rejected_push(1),
        shell(2, "gh pr create"),
        output(2, 0, "opened #4"),
        json!({"type":"judge_result","judge_name":"policy","event_id":"j2","status":"passed",
            "source_action_id":"a2","reason":"a pull request"}),
        json!({"type":"run_end","status":"failed"}),
    ]);
    let a = analyze_trajectory(&act, &AnalysisOptions::default());
    assert_eq!(resolved_at(&a, "act:0"), Some(5));
    // A verdict before any agent step (no action to trace it to), then the same judge passing.
    let failed = json!({"type":"judge_result","judge_name":"gate","event_id":"j1",
        "status":"failed","reason":"no answer yet"});
    let passed = json!({"type":"judge_result","judge_name":"gate","event_id":"j2",
        "status":"passed","reason":"answer present"});
    let end = json!({"type":"run_end","status":"failed"});
    let judge = awtl_lines(&[failed.clone(), passed, end.clone()]);
    let a = analyze_trajectory(&judge, &AnalysisOptions::default());
    assert_eq!(resolved_at(&a, "judge:gate"), Some(1));
    let unresolved = awtl_lines(&[failed, end]);
    let a = analyze_trajectory(&unresolved, &AnalysisOptions::default());
    assert_eq!(resolved_at(&a, "judge:gate"), None);
}

#[test]
fn an_action_issued_before_the_failure_was_seen_is_no_repair() {
    use serde_json::json;
    // `ls` is issued beside `make`, before make's failure comes back: nothing was tried after
    // the failure, so the second `make` failing is the same instance.
    let t = awtl_lines(&[
        shell(1, "make"),
        shell(2, "ls"),
        output(1, 2, "error: x"),
        output(2, 0, "Makefile"),
        shell(3, "make"),
        output(3, 2, "error: x"),
        json!({"type":"run_end","status":"failed"}),
    ]);
    let a = analyze_trajectory(&t, &AnalysisOptions::default());
    let make: Vec<_> = a.instances.iter().filter(|i| i.object.starts_with("cmd:")).collect();
    assert_eq!(make.len(), 1, "{:#?}", a.instances);
    assert_eq!((make[0].origin_step, make[0].last_step), (0, 5));
}

#[test]
fn a_verdict_given_before_the_agent_acted_is_a_verification_failure() {
    use serde_json::json;
    let ask = json!({"type":"message","role":"user","text":"What is 2 + 2?"});
    let answer = json!({"type":"message","role":"assistant","agent":"c","text":"The answer is 4."});
    let end = json!({"type":"run_end","status":"failed"});
    let early = json!({"type":"judge_result","judge_name":"gate","event_id":"j1",
        "status":"failed","reason":"no answer yet"});
    let t = awtl_lines(&[ask.clone(), early, answer.clone(), end.clone()]);
    let a = analyze_trajectory(&t, &AnalysisOptions::default());
    // The verdict is the run's only error and no agent step precedes it: the critical step is the
    // agent's (out of set), the class the verifier's.
    assert_eq!(a.critical.as_ref().map(|c| c.step), Some(2));
    assert_eq!(a.classification, Some(FailureClass::VerificationFailure));
    assert_eq!(a.failure_mode, Some(trajscope_core::record::FailureMode::Reasoning));
    // Such a verdict naming a blocker is that blocker, not the agent's failure.
    let blocked = json!({"type":"judge_result","judge_name":"gate","event_id":"j1",
        "status":"failed","reason":"e2e suite did not run: browser binary missing"});
    let t = awtl_lines(&[ask.clone(), blocked, answer.clone(), end.clone()]);
    let a = analyze_trajectory(&t, &AnalysisOptions::default());
    assert_eq!(a.classification, Some(FailureClass::HarnessBlocker));
    // With another error in the run (the agent's own failed command), the agent's failure.
    let early = json!({"type":"judge_result","judge_name":"gate","event_id":"j1",
        "status":"failed","reason":"no answer yet"});
    let run = shell(1, "python3 calc.py");
    let failed = output(1, 1, "Traceback: NameError: name 'x' is not defined");
    let t = awtl_lines(&[ask.clone(), early, run, failed, answer.clone(), end.clone()]);
    let a = analyze_trajectory(&t, &AnalysisOptions::default());
    assert_eq!(a.classification, Some(FailureClass::AgentFailure));
    // The same verdict given after the agent answered is about that answer: the agent's failure.
    let late = json!({"type":"judge_result","judge_name":"gate","event_id":"j1",
        "status":"failed","reason":"wrong answer"});
    let t = awtl_lines(&[ask, answer, late, end]);
    let a = analyze_trajectory(&t, &AnalysisOptions::default());
    assert_eq!(a.critical.as_ref().map(|c| c.step), Some(1));
    assert_eq!(a.classification, Some(FailureClass::AgentFailure));
}

#[test]
fn a_report_or_a_judges_message_is_a_judge_step_an_agents_is_not() {
    use trajscope_core::attribution::ranking::is_judge_step;
    use trajscope_core::model::{Role, Step, StepKind};
    let verdict = Step { kind: StepKind::JudgeResult, role: Role::Other, ..Step::default() };
    let judge_says = Step { kind: StepKind::Message, role: Role::Judge, ..Step::default() };
    let agent_says = Step { kind: StepKind::Message, role: Role::Assistant, ..Step::default() };
    assert!(is_judge_step(&verdict));
    assert!(is_judge_step(&judge_says));
    assert!(!is_judge_step(&agent_says));
}

#[test]
fn candidates_say_where_they_stand_against_the_first_error() {
    let t = awtl_lines(&[
        serde_json::json!({"type":"message","role":"assistant","agent":"c",
            "text":"Plan: build, then run the tests."}),
        shell(1, "make"),
        output(1, 2, "error: missing header foo.h"),
        serde_json::json!({"type":"message","role":"assistant","agent":"c",
            "text":"The build failed; stopping."}),
        serde_json::json!({"type":"run_end","status":"failed"}),
    ]);
    let a = analyze_trajectory(&t, &AnalysisOptions::default());
    let says = |step: u32, what: &str| {
        let c = candidate_at(&a, step);
        assert!(c.why.iter().any(|w| w == what), "step {step}: {:?}", c.why);
        assert_eq!(c.features.first_error_step, Some(2));
        assert!(!c.features.orchestrated);
    };
    says(0, "before the first error signal (step 2)");
    says(1, "introduced the first error signal (step 2)");
    says(3, "after the first error signal (step 2)");
    assert!(candidate_at(&a, 1).features.introduces_first_error);
    assert!(candidate_at(&a, 0).features.before_first_error);
}

#[test]
fn a_step_before_the_top_candidate_with_its_own_error_keeps_its_rules() {
    use serde_json::json;
    let t = awtl_lines(&[
        shell(1, "make lint"),
        output(1, 2, "error: unused import"),
        shell(2, "git push origin HEAD:main"),
        output(2, 0, "pushed"),
        rejected_push(2),
        json!({"type":"run_end","status":"failed"}),
    ]);
    let a = analyze_trajectory(&t, &AnalysisOptions::default());
    assert_eq!(a.critical.as_ref().map(|c| c.step), Some(2));
    let before = candidate_at(&a, 0);
    assert_eq!(before.features.rules, vec![Rule::FailedCommand], "{:?}", before.evidence);
}

#[test]
fn without_a_task_the_users_opening_words_are_the_task() {
    use serde_json::json;
    // The agent quotes the user's request, whose assumption is the user's: none of its own.
    let t = awtl_lines(&[
        json!({"type":"message","role":"user","text":"Assume the input file is UTF-8 and count its lines."}),
        json!({"type":"message","role":"assistant","agent":"c",
            "text":"Task: Assume the input file is UTF-8 and count its lines.\nCounting now."}),
        json!({"type":"run_end","status":"failed"}),
    ]);
    assert_eq!(t.task, None);
    let a = analyze_trajectory(&t, &AnalysisOptions::default());
    assert!(!candidate_at(&a, 1).features.assumption, "{:?}", candidate_at(&a, 1).why);
    // The same words with nothing before them are the agent's own.
    let t = awtl_lines(&[
        json!({"type":"message","role":"assistant","agent":"c",
            "text":"Task: Assume the input file is UTF-8 and count its lines.\nCounting now."}),
        json!({"type":"run_end","status":"failed"}),
    ]);
    let a = analyze_trajectory(&t, &AnalysisOptions::default());
    assert!(candidate_at(&a, 0).features.assumption, "{:?}", candidate_at(&a, 0).why);
}

#[test]
fn a_lone_candidate_holds_its_agents_whole_mass() {
    let t = awtl_run(&[("ls", Some(0), "Makefile")], "failed");
    let a = analyze_trajectory(&t, &AnalysisOptions::default());
    assert_eq!(a.candidates.len(), 1, "{:?}", a.candidates);
    assert_eq!(a.candidates[0].features.agent_mass, 1.0);
}

#[test]
fn rerank_under_the_weights_a_run_was_ranked_with_keeps_its_order() {
    // What `eval` relies on when it fits weights: re-ranking the candidates reproduces `rank`.
    let opts = AnalysisOptions {
        assume_failed: true,
        max_candidates: usize::MAX,
        ..AnalysisOptions::default()
    };
    let mut checked = 0;
    for rel in common::source_fixtures() {
        for t in &load(&common::fixture_path(&rel)).trajectories {
            let a = analyze_trajectory(t, &opts);
            let Some(first) = a.candidates.first() else { continue };
            let w = opts.weights_for(first.features.orchestrated);
            let order = trajscope_core::attribution::ranking::rerank(&a.candidates, w);
            assert_eq!(order, (0..a.candidates.len()).collect::<Vec<_>>(), "{rel}: {}", t.id);
            checked += usize::from(a.candidates.len() > 1);
        }
    }
    assert!(checked > 10, "only {checked} runs with several candidates");
}

#[test]
fn a_check_reported_before_its_own_command_answered_or_after_it_failed_is_unbacked() {
    use serde_json::json;
    let claim = "I have verified the totals.";
    // Right after its own command, before any output came back: nothing to sum up.
    let t = chat(&[
        ("Menu_Expert", "The plan: compare the two archived menus."),
        ("Checker_Expert", "```python\nprint(sum([1, 2]))\n```"),
        ("Checker_Expert", claim),
    ]);
    let opts = AnalysisOptions { assume_failed: true, ..AnalysisOptions::default() };
    assert!(candidate_at(&analyze_trajectory(&t, &opts), 2).features.claimed_check);
    // After an output that failed without an exit code (an error status alone).
    let run = |status: &str| {
        let t = awtl_lines(&[
            shell(1, "python3 totals.py"),
            json!({"type":"observation","span_id":"s1","status":status,"output":"done"}),
            json!({"type":"message","role":"assistant","agent":"c","text":claim}),
            json!({"type":"run_end","status":"failed"}),
        ]);
        assert_eq!(t.steps[1].exit_code, None);
        candidate_at(&analyze_trajectory(&t, &opts), 2).features.claimed_check
    };
    assert!(run("error"));
    assert!(!run("ok"));
}

#[test]
fn at_most_max_out_of_set_agent_steps_are_scored() {
    use trajscope_core::attribution::ranking::MAX_OUT_OF_SET;
    // Plain agent messages, the ones past the cap each with code (a feature that lifts them
    // above every message before them): none of those is scored out of set.
    let n = MAX_OUT_OF_SET + 40;
    let turns: Vec<(String, String)> = (0..n)
        .map(|i| {
            let text = if i < MAX_OUT_OF_SET {
                format!("Note {i}.")
            } else {
                format!("Step {i}:\n```python\nprint({i})\n```")
            };
            (format!("Expert_{}", i % 2), text)
        })
        .collect();
    let turns: Vec<(&str, &str)> = turns.iter().map(|(a, t)| (a.as_str(), t.as_str())).collect();
    let opts = AnalysisOptions {
        assume_failed: true,
        max_candidates: usize::MAX,
        ..AnalysisOptions::default()
    };
    let a = analyze_trajectory(&chat(&turns), &opts);
    // (The last step, which states the final answer, is a candidate of its own instance.)
    let out_of_set: Vec<_> = a.candidates.iter().filter(|c| c.instance.is_none()).collect();
    assert_eq!(out_of_set.len(), MAX_OUT_OF_SET);
    assert!(out_of_set.iter().all(|c| (c.step as usize) < MAX_OUT_OF_SET));
}

/// `t` with a message of a judge's role (as a reader that knows a judge only by its role
/// gives one: a grader's chat message) inserted at step `at`, the steps renumbered.
fn with_judge_message(mut t: Trajectory, at: usize, status: &str, text: &str) -> Trajectory {
    use trajscope_core::model::{Role, Step, StepKind};
    let judge = Step {
        actor: "grader".into(),
        role: Role::Judge,
        kind: StepKind::Message,
        text: text.into(),
        status: Some(status.into()),
        ..Step::default()
    };
    t.steps.insert(at, judge);
    for (i, s) in t.steps.iter_mut().enumerate() {
        s.index = i as u32;
    }
    t
}

#[test]
fn a_judges_message_is_a_verdict_failed_or_passed_and_no_status_is_no_failure() {
    use trajscope_core::attribution::triggers::detect;
    let run = || awtl_run(&[("make", Some(2), "error: no rule to make target 'all'")], "failed");
    // Failed: a verdict against the agent's last step, as a judge_result's would be.
    let failed = with_judge_message(run(), 2, "failed", "the build does not exist");
    let found = detect(&failed);
    assert_eq!(found.failed_judges, vec![2]);
    assert!(
        found.triggers.iter().any(|t| t.rule == Rule::VerifierRejected),
        "{:?}",
        found.triggers
    );
    // Passed: a green state, like a passing judge_result.
    let passed = with_judge_message(run(), 2, "passed", "the build is fine");
    let found = detect(&passed);
    assert_eq!(found.green_steps, vec![2]);
    assert!(found.failed_judges.is_empty());
    // A judge_result that gives no status and no error flag reports no failure.
    let silent = awtl_lines(&[
        shell(0, "make"),
        output(0, 0, "built"),
        serde_json::json!({"type": "judge_result", "judge_name": "policy", "detail": "looked at it"}),
    ]);
    let found = detect(&silent);
    assert!(found.failed_judges.is_empty(), "{:?}", found.triggers);
    assert!(found.triggers.iter().all(|t| t.rule != Rule::VerifierRejected));
}

#[test]
fn an_action_addressed_to_another_agent_is_an_instruction_one_named_for_its_own_agent_is_not() {
    use trajscope_core::attribution::triggers::detect;
    let run = |actor: &str, to: &str| {
        awtl_lines(&[
            serde_json::json!({"type": "message", "role": "user", "text": "Find the opening year."}),
            serde_json::json!({"type": "action", "agent": actor, "tool": to, "command": "search the archive"}),
            serde_json::json!({"type": "message", "role": "assistant", "agent": to, "text": "It opened in 1990."}),
        ])
    };
    assert_eq!(detect(&run("Orchestrator", "WebSurfer")).instructed, vec![2]);
    // A tool named like the agent that calls it (an agent `search` calling `search`) addresses
    // nobody: its next message is no worker's reply.
    assert_eq!(detect(&run("search", "search")).instructed, Vec::<u32>::new());
}

#[test]
fn reading_a_file_the_task_forbids_changing_breaks_nothing() {
    let t = awtl_lines(&[
        serde_json::json!({"type": "message", "role": "user",
            "text": "Fix the rounding in src/price.py. Do not change the tests."}),
        shell(1, "cat tests/test_price.py"),
        output(1, 0, "def test_round():\n    assert price(2.675) == 2.68"),
        shell(2, "sed -i 's/2.68/2.67/' tests/test_price.py"),
        output(2, 0, ""),
        serde_json::json!({"type": "run_end", "status": "failed"}),
    ]);
    let a = analyze_trajectory(&t, &AnalysisOptions::default());
    let broken: Vec<u32> = a
        .triggers
        .iter()
        .filter(|t| t.rule == Rule::TaskConstraintBroken)
        .map(|t| t.step)
        .collect();
    assert_eq!(broken, vec![3], "the edit, not the read: {:?}", a.triggers);
}

#[test]
fn a_step_that_claims_success_beside_its_own_error_contradicts_itself() {
    let t = chat(&[
        ("Planner", "Run the script and report."),
        ("Coder", "Traceback (most recent call last):\nValueError: bad row\nAll tests pass."),
    ]);
    let opts = AnalysisOptions { assume_failed: true, ..AnalysisOptions::default() };
    let a = analyze_trajectory(&t, &opts);
    let own: Vec<_> = a
        .triggers
        .iter()
        .filter(|t| t.rule == Rule::ClaimContradicted && t.reference_step == Some(t.step))
        .collect();
    assert_eq!(own.len(), 1, "{:?}", a.triggers);
    assert_eq!((own[0].step, own[0].wrong_quote.as_str()), (1, "All tests pass."));
    // A weak mention of an error (no traceback, exception, `Error:` or FAILED) is no conflict.
    let t = chat(&[
        ("Planner", "Run the script and report."),
        ("Coder", "The earlier error is gone.\nAll tests pass."),
    ]);
    let a = analyze_trajectory(&t, &opts);
    assert!(a.triggers.iter().all(|t| t.rule != Rule::ClaimContradicted), "{:?}", a.triggers);
}

#[test]
fn a_placeholder_only_the_commands_arguments_hold_is_still_the_commands() {
    // An ATIF step keeps the call's arguments apart from the agent's words: only the arguments
    // hold the placeholder the failed lookup names.
    let doc = serde_json::json!({"schema_version": "ATIF-v1.6", "session_id": "ph",
        "agent": {"name": "claude-code"}, "steps": [
        {"step_id": 1, "source": "user", "message": "Count the rows of the dataset."},
        {"step_id": 2, "source": "agent", "message": "Download the data first.",
         "tool_calls": [{"tool_call_id": "t1", "function_name": "Bash",
                         "arguments": {"command": "curl -fsS -o data.csv \"<URL>\""}}],
         "observation": {"results": [{"source_call_id": "t1",
                         "content": "exitcode: 6 (execution failed)\nCode output: curl: (6) Could not resolve host: <URL>"}]}}]});
    let trace = ingest(doc.to_string().as_bytes(), IngestOptions::default());
    let t = &trace.trajectories[0];
    let call = t.steps.iter().find(|s| s.args.is_some()).expect("the call");
    assert!(!call.text.contains("<URL>") && call.args.as_deref().unwrap().contains("<URL>"));
    let opts = AnalysisOptions { assume_failed: true, ..AnalysisOptions::default() };
    let a = analyze_trajectory(t, &opts);
    assert!(
        a.triggers.iter().any(|tr| tr.step == call.index && tr.rule == Rule::PlaceholderCommand),
        "{:?}",
        a.triggers
    );
}

#[test]
fn an_exit_status_printed_in_a_tool_message_decides_whether_it_failed() {
    // A chat log's tool message carries no exit code of its own; a terminal's printed status
    // line does: a non-zero status fails even without an error word, a zero status passes even
    // with one.
    let run = |out: &str| {
        let rec = serde_json::json!({"id": "exit", "messages": [
            {"role": "user", "content": "Run the report."},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function",
                "function": {"name": "bash", "arguments": "{\"command\":\"python report.py\"}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": out}]});
        let trace = ingest(format!("{rec}\n").as_bytes(), IngestOptions::default());
        let t = trace.trajectories.into_iter().next().unwrap();
        assert_eq!(t.steps[2].exit_code, None);
        let found = trajscope_core::attribution::triggers::detect(&t);
        found
            .triggers
            .iter()
            .filter(|t| t.rule == Rule::FailedCommand)
            .map(|t| t.step)
            .collect::<Vec<_>>()
    };
    assert_eq!(run("exitcode: 1 (execution failed)\nCode output: "), vec![1]);
    assert_eq!(
        run("exitcode: 0 (execution succeeded)\nCode output: 3 FAILED rows skipped"),
        Vec::<u32>::new()
    );
}

#[test]
fn a_worker_reply_that_gives_the_final_answer_does_not_show_it_before_itself() {
    use trajscope_core::attribution::triggers::detect;
    let t = orchestrated(&[
        ("human", "How many parks are there?"),
        ("Orchestrator (-> Assistant)", "Count the parks."),
        ("Assistant", "FINAL ANSWER: 12"),
    ]);
    let found = detect(&t);
    assert_eq!(found.instructed, vec![2]);
    assert_eq!(found.answer_shown, None);
    // A reply before it that states the value does.
    let t = orchestrated(&[
        ("human", "How many parks are there?"),
        ("Orchestrator (-> WebSurfer)", "Read the list."),
        ("WebSurfer", "The list shows 12 parks."),
        ("Orchestrator (-> Assistant)", "Count the parks."),
        ("Assistant", "FINAL ANSWER: 12"),
    ]);
    assert_eq!(detect(&t).answer_shown.map(|s| s.step), Some(2));
}

#[test]
fn a_reply_showing_one_item_of_a_list_answer_brought_that_item_in() {
    use trajscope_core::attribution::triggers::detect;
    let shown = |reply: &str, answer: &str| {
        let t = orchestrated(&[
            ("human", "Which cities and what total?"),
            ("Orchestrator (-> WebSurfer)", "Read the table."),
            ("WebSurfer", reply),
            ("Orchestrator (-> Assistant)", "Sum it up."),
            ("Assistant", &format!("FINAL ANSWER: {answer}")),
        ]);
        detect(&t).answer_shown.map(|s| (s.step, s.value, s.item))
    };
    // One item of `A; B`, or of `A, B`; a comma inside a number does not cut it.
    assert_eq!(
        shown("The table lists Lyon first.", "1,080,000; Lyon"),
        Some((2, "Lyon".into(), true))
    );
    assert_eq!(
        shown("The total is 1,080,000 euros.", "1,080,000; Lyon"),
        Some((2, "1,080,000".into(), true))
    );
    assert_eq!(shown("Only Milan is listed.", "Rome, Milan"), Some((2, "Milan".into(), true)));
    assert_eq!(
        shown("Only Turin is listed.", "Rome, Milan, Turin"),
        Some((2, "Turin".into(), true))
    );
    // A comma right after a word cuts, even before a digit.
    assert_eq!(shown("It opened in 1990.", "Rome,1990"), Some((2, "1990".into(), true)));
    // A list cut at a leading comma still reads its items.
    assert_eq!(shown("Only Milan is listed.", ", Rome, Milan"), Some((2, "Milan".into(), true)));
    // A reply that shows no item brought none in.
    assert_eq!(shown("The table is long.", "Rome, Milan"), None);
}

/// The overview's repeated action is the action done most often (twice or more), and of two done
/// equally often the smaller (tool, then arguments); a run whose actions all differ has none.
#[test]
fn the_overview_names_the_most_repeated_action_ties_to_the_smaller() {
    use trajscope_core::report::Overview;
    let repeated = |commands: &[&str]| {
        let actions: Vec<_> = commands.iter().map(|c| (*c, Some(0), "ok")).collect();
        Overview::of(&awtl_run(&actions, "failed"), None).repeated_action
    };
    assert_eq!(repeated(&["make", "ls", "make", "ls", "cat x"]), Some(("shell ls".into(), 2)));
    assert_eq!(repeated(&["ls", "make", "make", "ls", "make"]), Some(("shell make".into(), 3)));
    assert_eq!(repeated(&["zz", "zz", "aa"]), Some(("shell zz".into(), 2)));
    assert_eq!(repeated(&["make", "ls", "cat x"]), None);
    assert_eq!(repeated(&["make"]), None);
}
