//! Benchmark dataset export (docs/dataset.md): labelled trajectories of real fixtures in four
//! source formats become items that satisfy each style's schema rules (checked rule by rule by
//! `validate`, not by a snapshot), read back to the same steps, the same gold label and the same
//! annotators' labels; the agreement of several annotators; redaction on by default.
#![cfg(not(target_arch = "wasm32"))]

use serde_json::Value;
use trajscope_core::attribution::{analyze_trajectory, AnalysisOptions};
use trajscope_core::dataset::{self, agree, ExportOptions, LabelIndex, Source, Style};
use trajscope_core::labels::{self, content_hash, ImportOptions, Label};
use trajscope_core::model::{Format, Outcome, Role, Trace, Trajectory};
use trajscope_core::record::{Category, Phase};
use trajscope_core::{ingest, IngestOptions};

/// A fixture's bytes (the core's tests read no files: they are built in).
macro_rules! fixture {
    ($path:literal) => {
        include_bytes!(concat!("../../../tests/fixtures/", $path)).as_slice()
    };
}

fn load(bytes: &[u8]) -> Trace {
    ingest(bytes, IngestOptions::default())
}

/// The schema rules of each style (docs/dataset.md), checked on one exported item: `Err` names
/// the first rule broken.
fn validate(style: Style, item: &Value) -> Result<(), String> {
    let o = item.as_object().ok_or("an item is a JSON object")?;
    let text = |v: Option<&Value>, what: &str| -> Result<(), String> {
        v.and_then(Value::as_str).map(|_| ()).ok_or(format!("{what} is a string"))
    };
    let text_or_null = |v: Option<&Value>, what: &str| -> Result<(), String> {
        match v {
            Some(Value::Null) | Some(Value::String(_)) => Ok(()),
            _ => Err(format!("{what} is a string or null")),
        }
    };
    let (messages, extra) = match style {
        Style::Trajerrbench => {
            let messages =
                o.get("messages").and_then(Value::as_array).ok_or("messages is an array")?;
            for (i, m) in messages.iter().enumerate() {
                if m.get("step").and_then(Value::as_u64) != Some(i as u64) {
                    return Err(format!("messages[{i}].step equals its index"));
                }
                let role = m.get("role").and_then(Value::as_str).unwrap_or("");
                if !["user", "assistant", "tool", "system"].contains(&role) {
                    return Err(format!("messages[{i}].role is user|assistant|tool|system"));
                }
                text(m.get("content"), &format!("messages[{i}].content"))?;
                text(m.get("name"), &format!("messages[{i}].name"))?;
            }
            let meta = o.get("metadata").and_then(Value::as_object).ok_or("metadata")?;
            text(meta.get("task_id"), "metadata.task_id")?;
            text(meta.get("dataset"), "metadata.dataset")?;
            text(meta.get("task_description"), "metadata.task_description")?;
            if let Some(r) = meta.get("reward") {
                if r != 0 && r != 1 {
                    return Err("metadata.reward is 0 or 1".into());
                }
            }
            let ann = meta
                .get("annotation")
                .and_then(Value::as_object)
                .ok_or("metadata.annotation is an object")?;
            match ann.get("critical_error_step") {
                Some(Value::Null) => {}
                Some(Value::Number(n)) => {
                    let s = n.as_u64().ok_or("critical_error_step is a non-negative integer")?;
                    let m = messages
                        .get(s as usize)
                        .ok_or("critical_error_step is an index into messages")?;
                    if m["role"] == "user" {
                        return Err("critical_error_step is never a user message".into());
                    }
                }
                _ => return Err("critical_error_step is an integer or null".into()),
            }
            match ann.get("critical_error_type") {
                Some(Value::Null) => {}
                Some(Value::String(t)) => {
                    let module = t.split('.').next().unwrap_or("");
                    let modules = ["plan", "reason", "act", "obs", "verify"];
                    let camel = t.chars().next().is_some_and(char::is_uppercase);
                    if !(modules.contains(&module) || (camel && !t.contains('.'))) {
                        return Err(format!("critical_error_type `{t}` is <module>.<subtype>"));
                    }
                }
                _ => return Err("critical_error_type is a string or null".into()),
            }
            if ann.contains_key("human_rationale") {
                text(ann.get("human_rationale"), "human_rationale")?;
            }
            let extra = meta.get("extra").and_then(Value::as_object).ok_or("metadata.extra")?;
            (messages, extra)
        }
        Style::WhoAndWhen => {
            let history =
                o.get("history").and_then(Value::as_array).ok_or("history is an array")?;
            for (i, h) in history.iter().enumerate() {
                text(h.get("content"), &format!("history[{i}].content"))?;
                text(h.get("role"), &format!("history[{i}].role"))?;
                text(h.get("name"), &format!("history[{i}].name"))?;
                if h.get("step").is_some() {
                    return Err(format!("history[{i}] has no step: its index is the step"));
                }
            }
            text(o.get("question"), "question")?;
            text(o.get("question_ID"), "question_ID")?;
            match o.get("mistake_step") {
                Some(Value::Null) => {}
                Some(Value::String(s)) => {
                    let i: usize = s.parse().map_err(|_| "mistake_step holds an integer")?;
                    if i >= history.len() {
                        return Err("mistake_step is a 0-based index into history".into());
                    }
                }
                _ => return Err("mistake_step is a string or null".into()),
            }
            text_or_null(o.get("mistake_agent"), "mistake_agent")?;
            text_or_null(o.get("mistake_reason"), "mistake_reason")?;
            if let Some(c) = o.get("is_correct") {
                c.as_bool().ok_or("is_correct is a boolean")?;
            }
            let extra = o
                .get("metadata")
                .and_then(|m| m.get("extra"))
                .and_then(Value::as_object)
                .ok_or("metadata.extra")?;
            (history, extra)
        }
    };
    let _ = messages;
    text(extra.get("source_file"), "extra.source_file")?;
    text(extra.get("trajectory_id"), "extra.trajectory_id")?;
    let hash = extra.get("content_hash").and_then(Value::as_str).unwrap_or("");
    let hex = hash.strip_prefix("sha256:").unwrap_or("");
    if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!("extra.content_hash `{hash}` is sha256:<64 hex>"));
    }
    extra.get("labels").and_then(Value::as_array).ok_or("extra.labels is a list")?;
    let agreement = extra.get("agreement").and_then(Value::as_object).ok_or("extra.agreement")?;
    agreement.get("tie").and_then(Value::as_bool).ok_or("agreement.tie is a boolean")?;
    agreement.get("tied_steps").and_then(Value::as_array).ok_or("agreement.tied_steps")?;
    Ok(())
}

fn label(hash: &str, id: &str, annotator: &str, step: Option<u32>) -> Label {
    let mut l = Label::new(hash, id);
    l.annotator = annotator.into();
    l.critical_step = step;
    l.time = "2026-12-02T05:00:00Z".into();
    l.outcome = Outcome::Failed;
    l
}

/// The first step an agent took that is not a user message (a label a style accepts).
fn agent_step(t: &Trajectory, skip: usize) -> (u32, String) {
    let s = t
        .steps
        .iter()
        .filter(|s| matches!(s.role, Role::Assistant | Role::Tool))
        .nth(skip)
        .unwrap_or_else(|| panic!("{} has an agent step", t.id));
    (s.index, s.actor.clone())
}

/// Labels for a trace: the first trajectory by three annotators (two agree, one does not), the
/// second (if any) "no critical step", the third (if any) a tie.
fn labels_for(trace: &Trace, hash: &str) -> Vec<Label> {
    let mut out = Vec::new();
    let t = &trace.trajectories[0];
    let (s1, agent) = agent_step(t, 1);
    let (s2, _) = agent_step(t, 0);
    for (who, step) in [("ana", s1), ("bo", s1), ("cy", s2)] {
        let mut l = label(hash, &t.id, who, Some(step));
        l.responsible_agent =
            Some(if agent.is_empty() { "assistant".into() } else { agent.clone() });
        l.category = Some(Category::HistoryConflict);
        l.phase = Some(Phase::Action);
        l.rationale = format!("{who}: the step ignores what came before");
        out.push(l);
    }
    if let Some(t) = trace.trajectories.get(1) {
        out.push(label(hash, &t.id, "ana", None));
    }
    if let Some(t) = trace.trajectories.get(2) {
        let (a, _) = agent_step(t, 0);
        let (b, _) = agent_step(t, 1);
        out.push(label(hash, &t.id, "ana", Some(a)));
        out.push(label(hash, &t.id, "bo", Some(b)));
    }
    out
}

const FIXTURES: &[(&str, &[u8], Format)] = &[
    (
        "claude_code/coverage-test-fix.jsonl",
        fixture!("claude_code/coverage-test-fix.jsonl"),
        Format::ClaudeCode,
    ),
    (
        "swe_agent/pydicom__pydicom-1458.traj",
        fixture!("swe_agent/pydicom__pydicom-1458.traj"),
        Format::SweAgent,
    ),
    ("tau2/airline_3_simulations.json", fixture!("tau2/airline_3_simulations.json"), Format::Tau2),
    ("who_and_when/hc_1.json", fixture!("who_and_when/hc_1.json"), Format::WhoAndWhen),
];

fn sorted(mut labels: Vec<Label>) -> Vec<Label> {
    labels.sort_by(|a, b| (&a.trajectory_id, &a.annotator).cmp(&(&b.trajectory_id, &b.annotator)));
    labels
}

#[test]
fn labelled_fixtures_in_four_formats_export_to_valid_items_of_each_style_and_read_back() {
    for &(path, bytes, format) in FIXTURES {
        let trace = load(bytes);
        assert_eq!(trace.format, format, "{path}");
        let hash = content_hash(bytes);
        let given = labels_for(&trace, &hash);
        let index = LabelIndex::new(given.clone());
        let source = Source {
            file: path.into(),
            subset: "fixtures".into(),
            format: Some(trace.format),
            content_hash: hash.clone(),
        };
        for style in Style::ALL {
            let items: Vec<_> =
                dataset::items(&index, &trace, &source, ExportOptions::new(style)).collect();
            assert_eq!(items.len(), trace.trajectories.len().min(3), "{path} {style:?}");
            let mut back_labels = Vec::new();
            for item in &items {
                let line = &item.line;
                assert_eq!(line.last(), Some(&b'\n'));
                assert_eq!(line.iter().filter(|&&b| b == b'\n').count(), 1, "one line per item");
                let value: Value = serde_json::from_slice(line).unwrap();
                if let Err(rule) = validate(style, &value) {
                    panic!(
                        "{path} as {style:?}, item {}: breaks the rule: {rule}",
                        item.trajectory_id
                    );
                }
                assert!(item.warnings.is_empty(), "{:?}", item.warnings);
                let source_t =
                    trace.trajectories.iter().find(|t| t.id == item.trajectory_id).unwrap();

                // Read back as a trace: the same steps at the same indices, the same run.
                let back = load(line);
                assert!(back.quarantine.is_empty(), "{path} {style:?}: {:?}", back.quarantine);
                assert_eq!(back.trajectories.len(), 1);
                let bt = &back.trajectories[0];
                assert_eq!(bt.id, source_t.id);
                assert_eq!(bt.outcome, source_t.outcome);
                assert_eq!(bt.task, source_t.task);
                assert_eq!(bt.steps.len(), source_t.steps.len());
                for (a, b) in bt.steps.iter().zip(&source_t.steps) {
                    assert_eq!(a.index, b.index);
                    assert_eq!(
                        (
                            a.role,
                            a.kind,
                            &a.actor,
                            &a.text,
                            &a.tool,
                            &a.args,
                            a.exit_code,
                            a.is_error
                        ),
                        (
                            b.role,
                            b.kind,
                            &b.actor,
                            &b.text,
                            &b.tool,
                            &b.args,
                            b.exit_code,
                            b.is_error
                        ),
                        "{path} {style:?} step {}",
                        a.index
                    );
                    assert_eq!(a.artifact_refs, b.artifact_refs);
                    assert_eq!(a.ids, b.ids);
                }
                // The item's label is the agreed label, as `eval --labels` scores it.
                let own = index.get(&hash, &source_t.id);
                assert_eq!(bt.gold.as_ref().map(|g| g.step), agree(own).gold().map(|g| g.step));
                assert_eq!(
                    bt.gold.as_ref().and_then(|g| g.agent.clone()),
                    agree(own).gold().and_then(|g| g.agent)
                );
                // The detector sees the same run.
                let opts = AnalysisOptions { assume_failed: true, ..AnalysisOptions::default() };
                let (x, y) = (analyze_trajectory(bt, &opts), analyze_trajectory(source_t, &opts));
                assert_eq!(
                    x.critical.as_ref().map(|c| (c.step, &c.agent)),
                    y.critical.as_ref().map(|c| (c.step, &c.agent))
                );
                let steps = |a: &trajscope_core::attribution::TrajectoryAnalysis| {
                    a.candidates.iter().map(|c| c.step).collect::<Vec<_>>()
                };
                assert_eq!(steps(&x), steps(&y), "{path} {style:?}");

                // Re-imported as labels: every annotator's own label, keyed by the source.
                let read = labels::import(line, &ImportOptions::default());
                assert!(read.problems.is_empty(), "{:?}", read.problems);
                back_labels.extend(read.labels);
            }
            assert_eq!(sorted(back_labels), sorted(given.clone()), "{path} {style:?}");
        }
    }
}

#[test]
fn the_first_trajectory_agrees_by_majority_the_second_has_no_step_the_third_ties() {
    let bytes = fixture!("tau2/airline_3_simulations.json");
    let trace = load(bytes);
    let hash = content_hash(bytes);
    let given = labels_for(&trace, &hash);
    let index = LabelIndex::new(given);
    let source = Source { content_hash: hash.clone(), ..Source::default() };
    let items: Vec<Value> =
        dataset::items(&index, &trace, &source, ExportOptions::new(Style::Trajerrbench))
            .map(|i| serde_json::from_slice(&i.line).unwrap())
            .collect();
    let (majority, _) = agent_step(&trace.trajectories[0], 1);
    let ann = |i: usize| &items[i]["metadata"]["annotation"];
    let agreement = |i: usize| &items[i]["metadata"]["extra"]["agreement"];
    assert_eq!(ann(0)["critical_error_step"], majority);
    assert_eq!(ann(0)["critical_error_type"], "act.HistoryConflict");
    assert_eq!(agreement(0)["tie"], false);
    assert_eq!(agreement(0)["annotators"], 3);
    assert_eq!(items[0]["metadata"]["extra"]["labels"].as_array().unwrap().len(), 3);
    let humans = &items[0]["metadata"]["extra"]["critical_step_labels"]["human_annotators"];
    assert_eq!(humans.as_array().unwrap().len(), 3);
    assert_eq!(humans[2]["labeler"], "cy");
    // "No critical step": a null step, not a tie.
    assert_eq!(ann(1)["critical_error_step"], Value::Null);
    assert_eq!(agreement(1)["tie"], false);
    // A tie: a null step, the tied steps listed.
    let (a, _) = agent_step(&trace.trajectories[2], 0);
    let (b, _) = agent_step(&trace.trajectories[2], 1);
    assert_eq!(ann(2)["critical_error_step"], Value::Null);
    assert_eq!(agreement(2)["tie"], true);
    assert_eq!(agreement(2)["tied_steps"], serde_json::json!([a, b]));
}

#[test]
fn agreement_takes_each_annotators_latest_label_and_breaks_no_tie() {
    let mut old = label("h", "t", "ana", Some(3));
    old.time = "2026-12-01T00:00:00Z".into();
    let new = label("h", "t", "ana", Some(5));
    let bo = label("h", "t", "bo", Some(5));
    let a = agree([&old, &new, &bo]);
    assert_eq!(a.labels.len(), 2);
    assert_eq!(a.label.as_ref().and_then(|l| l.critical_step), Some(5));
    // Two against two, one of them "no critical step": a tie, both listed.
    let c = label("h", "t", "cy", None);
    let d = label("h", "t", "di", None);
    let tie = agree([&new, &bo, &c, &d]);
    assert_eq!(tie.label, None);
    assert_eq!(tie.tied(), vec![None, Some(5)]);
    assert_eq!(tie.gold(), None);
    // Agents among those who chose the agreed step; their tie leaves the agent empty.
    let mut x = label("h", "t", "x", Some(2));
    x.responsible_agent = Some("WebSurfer".into());
    let mut y = label("h", "t", "y", Some(2));
    y.responsible_agent = Some("Orchestrator".into());
    let mut z = label("h", "t", "z", Some(9));
    z.responsible_agent = Some("Orchestrator".into());
    let agreed = agree([&x, &y, &z]).label.unwrap();
    assert_eq!((agreed.critical_step, agreed.responsible_agent), (Some(2), None));
}

const PLANTED: &[&str] = &[
    "Hunter2-Sup3r",
    "sk-proj-Q7fLm2Xr9TbW4KcZ8NvY1HsD6GjP3AeR",
    "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngXyZ12345678",
    "AKIAQ3EXAMPLE7RTY2WP",
    "sk-ant-api03-Zk8Qw2Er4Ty6Ui8Op0As2Df4Gh6Jk8Lz0Xc2Vb4Nm6-Qw8Er0Ty2AA",
    "sk_live_51Hq8ZxLm3Np7Rt2Vw9Yb4Kc",
    "hf_Ab3Cd5Ef7Gh9Ij1Kl3Mn5Op7Qr9St1Uv3Wx",
];

#[test]
fn a_dataset_is_redacted_by_default_and_only_an_explicit_opt_out_keeps_secrets() {
    let bytes = fixture!("redact/planted-secrets.awtl.jsonl");
    let trace = load(bytes);
    let hash = content_hash(bytes);
    let t = &trace.trajectories[0];
    let mut l = label(&hash, &t.id, "ana", Some(2));
    l.rationale = "the agent pasted sk_live_51Hq8ZxLm3Np7Rt2Vw9Yb4Kc into the command".into();
    let index = LabelIndex::new([l]);
    let source = Source { content_hash: hash, ..Source::default() };
    for style in Style::ALL {
        let export = |opts: ExportOptions| -> String {
            dataset::items(&index, &trace, &source, opts)
                .map(|i| String::from_utf8(i.line).unwrap())
                .collect()
        };
        let shared = export(ExportOptions::new(style));
        let kept = export(ExportOptions { style, redact: false });
        for secret in PLANTED {
            assert!(!shared.contains(secret), "{style:?}: {secret} leaked into the export");
            assert!(kept.contains(secret), "{style:?}: the opt-out keeps {secret}");
        }
        assert!(shared.contains("[REDACTED:"));
        let v: Value = serde_json::from_str(shared.trim_end()).unwrap();
        validate(style, &v).unwrap();
    }
}

#[test]
fn a_label_on_a_user_message_is_exported_with_a_warning_for_trajerrbench() {
    let bytes = fixture!("who_and_when/hc_1.json");
    let trace = load(bytes);
    let hash = content_hash(bytes);
    let t = &trace.trajectories[0];
    assert_eq!(t.steps[0].role, Role::User);
    let index = LabelIndex::new([label(&hash, &t.id, "ana", Some(0))]);
    let source = Source { content_hash: hash, ..Source::default() };
    let item = dataset::items(&index, &trace, &source, ExportOptions::new(Style::Trajerrbench))
        .next()
        .unwrap();
    assert_eq!(item.step, Some(0));
    assert_eq!(item.warnings.len(), 1, "{:?}", item.warnings);
    let w = dataset::items(&index, &trace, &source, ExportOptions::new(Style::WhoAndWhen))
        .next()
        .unwrap();
    assert!(w.warnings.is_empty());
}

#[test]
fn origin_names_the_source_of_an_exported_line_and_nothing_else() {
    let bytes = fixture!("who_and_when/ag_1.json");
    let trace = load(bytes);
    let hash = content_hash(bytes);
    let index = LabelIndex::new([label(&hash, &trace.trajectories[0].id, "ana", Some(1))]);
    let source = Source {
        file: "dev/Algorithm-Generated/1.json".into(),
        subset: "Algorithm-Generated".into(),
        format: Some(Format::WhoAndWhen),
        content_hash: hash.clone(),
    };
    let item = dataset::items(&index, &trace, &source, ExportOptions::new(Style::WhoAndWhen))
        .next()
        .unwrap();
    let o = dataset::origin(item.line.trim_ascii_end()).unwrap();
    assert_eq!(o.source_file, "dev/Algorithm-Generated/1.json");
    assert_eq!(o.subset, "Algorithm-Generated");
    assert_eq!(o.content_hash, hash);
    assert_eq!(dataset::origin(bytes), None, "a benchmark's own item is not an export");
}

#[test]
fn each_style_is_found_by_its_name_in_any_case() {
    assert_eq!(Style::Trajerrbench.name(), "trajerrbench");
    assert_eq!(Style::WhoAndWhen.name(), "who-and-when");
    for style in Style::ALL {
        assert_eq!(Style::from_name(style.name()), Some(style));
        assert_eq!(Style::from_name(&style.name().to_uppercase()), Some(style));
    }
    assert_eq!(Style::from_name("who_and_when"), None);
    assert_eq!(Style::from_name(""), None);
}

#[test]
fn a_label_index_counts_labelled_items_and_gives_each_its_agreed_gold_label() {
    let bytes = fixture!("tau2/airline_3_simulations.json");
    let hash = content_hash(bytes);
    let mut trace = load(bytes);
    let empty = LabelIndex::new([]);
    assert!(empty.is_empty());
    assert_eq!(empty.len(), 0);
    assert_eq!(empty.apply_gold(&mut trace, &hash), 0);
    assert!(trace.trajectories.iter().all(|t| t.gold.is_none()));
    // Three annotators on the first trajectory, one "no critical step" on the second, a tie on
    // the third: three items, and only the first has a gold step.
    let index = LabelIndex::new(labels_for(&trace, &hash));
    assert!(!index.is_empty());
    assert_eq!(index.len(), 3);
    assert_eq!(index.apply_gold(&mut trace, &hash), 3);
    let (majority, _) = agent_step(&trace.trajectories[0], 1);
    assert_eq!(trace.trajectories[0].gold.as_ref().and_then(|g| g.step), Some(majority));
    assert_eq!(trace.trajectories[1].gold, None);
    assert_eq!(trace.trajectories[2].gold, None);
    // Labels of another file set nothing.
    let mut other = load(bytes);
    assert_eq!(index.apply_gold(&mut other, "sha256:other"), 0);
}

#[test]
fn a_tool_call_with_no_words_of_its_own_is_written_as_the_benchmark_writes_one() {
    let text = [
        r#"{"type":"message","run_id":"r","role":"user","content":"List the files."}"#,
        r#"{"type":"action","run_id":"r","agent":"coder","tool":"shell","command":"ls -la"}"#,
        r#"{"type":"observation","run_id":"r","output":"a.txt"}"#,
        r#"{"type":"action","run_id":"r","agent":"coder","tool":"shell","command":"cat a.txt","text":"Read the one file."}"#,
        r#"{"type":"action","run_id":"r","agent":"coder","tool":"submit"}"#,
        r#"{"type":"run_end","run_id":"r","status":"failed"}"#,
    ]
    .join("\n");
    let trace = load(text.as_bytes());
    let t = &trace.trajectories[0];
    let source = Source::default();
    for style in Style::ALL {
        let item = dataset::item(t, &source, &[], ExportOptions::new(style));
        let v: Value = serde_json::from_slice(&item.line).unwrap();
        let messages = match style {
            Style::Trajerrbench => &v["messages"],
            Style::WhoAndWhen => &v["history"],
        };
        let content = |i: usize| messages[i]["content"].as_str().unwrap().to_string();
        assert_eq!(content(0), "List the files.");
        // The command is the call's only text: written as a call.
        assert_eq!(t.steps[1].text, "ls -la");
        assert_eq!(content(1), "[tool_calls]\n- shell(ls -la)", "{style:?}");
        // So is a call with no text at all.
        assert_eq!(t.steps[4].text, "");
        assert_eq!(content(4), "[tool_calls]\n- submit()", "{style:?}");
        assert_eq!(content(2), "a.txt");
        // A call with its own words keeps them.
        assert_eq!(content(3), t.steps[3].text, "{style:?}");
        assert!(!t.steps[3].text.is_empty() && t.steps[3].text != "cat a.txt");
    }
}

#[test]
fn agreement_keeps_an_annotators_later_label_names_one_annotator_and_skips_blank_agents() {
    // The same annotator twice at the same time: the label given last counts; an earlier
    // label given after a later one does not replace it.
    let first = label("h", "t", "ana", Some(3));
    let last = label("h", "t", "ana", Some(4));
    assert_eq!(agree([&first, &last]).label.and_then(|l| l.critical_step), Some(4));
    let mut old = label("h", "t", "ana", Some(7));
    old.time = "2026-11-30T00:00:00Z".into();
    assert_eq!(agree([&last, &old]).label.and_then(|l| l.critical_step), Some(4));
    // One annotator's label is theirs; several agree as the majority.
    assert_eq!(agree([&last]).label.unwrap().annotator, "ana");
    let bo = label("h", "t", "bo", Some(4));
    assert_eq!(agree([&last, &bo]).label.unwrap().annotator, "majority");
    // A blank agent is no vote.
    let mut x = label("h", "t", "x", Some(2));
    x.responsible_agent = Some("  ".into());
    let mut y = label("h", "t", "y", Some(2));
    y.responsible_agent = Some("WebSurfer".into());
    assert_eq!(agree([&x, &y]).label.unwrap().responsible_agent.as_deref(), Some("WebSurfer"));
}

#[test]
fn a_label_naming_only_an_agent_or_only_a_reason_is_a_gold_label() {
    let mut agent = label("h", "t", "ana", None);
    agent.responsible_agent = Some("Orchestrator".into());
    let gold = agree([&agent]).gold().expect("an agent alone is a label");
    assert_eq!((gold.step, gold.agent.as_deref()), (None, Some("Orchestrator")));
    let mut reason = label("h", "t", "ana", None);
    reason.rationale = "gave up early".into();
    assert_eq!(agree([&reason]).gold().and_then(|g| g.reason).as_deref(), Some("gave up early"));
    assert_eq!(agree([&label("h", "t", "ana", None)]).gold(), None);
    let step = label("h", "t", "ana", Some(1));
    assert_eq!(agree([&step]).gold().and_then(|g| g.step), Some(1));
}
