//! Generated AWTL runs with one planted failure each (environment blocker, misapplied memory,
//! wrong edit, loop, an edit the task forbids), around a random number of harmless steps: the planted action must be the
//! critical step, with the class and evidence its kind calls for. And on every fixture in the
//! repository, no judge or verifier report is ever the predicted critical step.
#![cfg(not(target_arch = "wasm32"))]
// The fixture sweep reads files from disk; the core itself does no I/O.
#![allow(clippy::disallowed_methods)]

use std::path::{Path, PathBuf};

use trajscope_core::attribution::{analyze_trajectory, AnalysisOptions, Rule, TrajectoryAnalysis};
use trajscope_core::model::{Role, StepKind, Trajectory};
use trajscope_core::record::FailureClass;
use trajscope_core::{ingest, IngestOptions};

/// A small deterministic generator (splitmix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// An AWTL run being written: one JSON object per line.
struct Run {
    lines: Vec<String>,
    seq: u32,
    /// Step index of the next line (every line here is one step).
    step: u32,
}

impl Run {
    fn new(task: &str) -> Run {
        let mut r = Run { lines: Vec::new(), seq: 0, step: 0 };
        r.push(serde_json::json!({"type": "run_start", "run_id": "run-p", "task": task}));
        r
    }
    fn push(&mut self, mut v: serde_json::Value) -> u32 {
        self.seq += 1;
        v["writer_seq"] = self.seq.into();
        v["run_id"] = "run-p".into();
        self.lines.push(v.to_string());
        self.step += 1;
        self.step - 1
    }
    /// An action and its observation; returns the action's step.
    fn act(&mut self, id: &str, tool: &str, command: &str, exit: i64, output: &str) -> u32 {
        let span = format!("s-{id}");
        let a = self.push(serde_json::json!({"type": "action", "span_id": span, "action_id": id,
            "agent": "coder", "tool": tool, "command": command}));
        self.push(serde_json::json!({"type": "observation", "span_id": span, "exit_code": exit,
            "output": output}));
        a
    }
    /// Between `min` and `min + spread - 1` harmless steps: reads and listings that succeed.
    fn filler(&mut self, rng: &mut Rng, min: u64, spread: u64) {
        let n = min + rng.below(spread);
        const CMDS: &[(&str, &str)] = &[
            ("cat README.md", "# project\nA small service."),
            ("ls src", "main.rs\nlib.rs"),
            ("git status", "On branch feature\nnothing to commit"),
            ("rg -n \"fn main\" src", "src/main.rs:3:fn main() {"),
        ];
        for _ in 0..n {
            let k = rng.below(CMDS.len() as u64) as usize;
            let id = format!("f-{}", self.seq);
            self.act(&id, "shell", CMDS[k].0, 0, CMDS[k].1);
        }
    }
    fn judge(&mut self, status: &str, source: Option<&str>, reason: &str) -> u32 {
        let mut v = serde_json::json!({"type": "judge_result", "judge_name": "gate",
            "event_id": format!("judge-{}", self.seq), "status": status, "reason": reason});
        if let Some(s) = source {
            v["source_action_id"] = s.into();
        }
        self.push(v)
    }
    fn finish(mut self) -> (Trajectory, TrajectoryAnalysis) {
        self.push(serde_json::json!({"type": "run_end", "status": "failed"}));
        let text = self.lines.join("\n") + "\n";
        let trace = ingest(text.as_bytes(), IngestOptions::default());
        assert_eq!(trace.trajectories.len(), 1);
        let t = trace.trajectories.into_iter().next().unwrap();
        let a = analyze_trajectory(&t, &AnalysisOptions::default());
        assert_quotes_verbatim(&t, &a);
        (t, a)
    }
}

fn assert_quotes_verbatim(t: &Trajectory, a: &TrajectoryAnalysis) {
    for c in &a.candidates {
        for e in &c.evidence {
            let s = &t.steps[e.step as usize];
            assert!(
                s.text.contains(&e.quote) || s.args.as_deref().unwrap_or("").contains(&e.quote),
                "quote {:?} not in step {}",
                e.quote,
                e.step
            );
        }
        assert!(!c.why.is_empty(), "every candidate says why");
    }
}

const SEEDS: u64 = 10;

#[test]
fn an_environment_blocker_is_the_action_whose_observation_shows_it() {
    for seed in 0..SEEDS {
        let mut rng = Rng(seed);
        let mut run = Run::new("Run the e2e suite for the settings page.");
        run.filler(&mut rng, 1, 6);
        let planted = run.act(
            "act-e2e",
            "shell",
            "npx playwright test e2e/settings.spec.ts",
            1,
            "Running 4 tests\nbrowserType.launch: Executable doesn't exist at /ms-playwright/chromium/chrome\n4 failed",
        );
        run.filler(&mut rng, 0, 3);
        let source = (seed % 2 == 0).then_some("act-e2e");
        run.judge("failed", source, "e2e suite did not run: browser binary missing");
        let (_, a) = run.finish();
        let c = a.critical.expect("the run failed");
        assert_eq!(c.step, planted, "seed {seed}");
        assert_eq!(c.agent, "environment", "seed {seed}: the agent is not blamed");
        assert_eq!(a.classification, Some(FailureClass::EnvironmentBlocker), "seed {seed}");
        assert!(c.evidence.iter().any(|e| e.quote.contains("Executable doesn't exist")));
    }
}

#[test]
fn a_misapplied_memory_blames_the_action_that_applied_it() {
    for seed in 0..SEEDS {
        let mut rng = Rng(100 + seed);
        let mut run = Run::new("Add the discount column and deploy the migration to staging.");
        run.filler(&mut rng, 0, 4);
        let memory = run.push(serde_json::json!({"type": "memory_read", "span_id": "m-1",
            "node_ids": ["memory:fake-migrations"],
            "content": "Hint: in CI, apply migrations with --fake to skip slow schema changes."}));
        run.filler(&mut rng, 0, 4);
        let planted = run.act(
            "act-mig",
            "shell",
            "./manage.py migrate --fake --settings=staging",
            0,
            "Applying orders.0042_order_discount... FAKED",
        );
        run.filler(&mut rng, 0, 3);
        // Half the verdicts name the action; the others only say what they are about.
        let source = (seed % 2 == 0).then_some("act-mig");
        run.judge(
            "failed",
            source,
            "column orders.discount does not exist: manage.py migrate recorded the migration but did not apply it",
        );
        let (_, a) = run.finish();
        let c = a.critical.expect("the run failed");
        assert_eq!(c.step, planted, "seed {seed}");
        assert_eq!(c.agent, "coder");
        assert!(
            c.evidence.iter().any(|e| e.rule == Rule::MemoryMisapplied && e.step == memory),
            "seed {seed}: the memory node is in the evidence: {:?}",
            c.evidence
        );
        assert_eq!(a.record.memory_read_node_ids, vec!["memory:fake-migrations".to_string()]);
    }
}

#[test]
fn a_wrong_edit_is_blamed_not_the_test_that_shows_it() {
    for seed in 0..SEEDS {
        let mut rng = Rng(200 + seed);
        let mut run = Run::new("Rename the user id field in the API client.");
        run.filler(&mut rng, 1, 5);
        let planted = run.act(
            "act-edit",
            "edit",
            "sed -i 's/userId/customerId/g' src/client.ts",
            0,
            "edited src/client.ts",
        );
        run.filler(&mut rng, 0, 3);
        run.act(
            "act-test",
            "shell",
            "npm test",
            1,
            "FAIL src/client.test.ts\nAssertionError: expected property userId",
        );
        if seed % 2 == 0 {
            run.judge("failed", Some("act-test"), "tests fail after the rename");
        }
        let (t, a) = run.finish();
        let c = a.critical.expect("the run failed");
        assert_eq!(c.step, planted, "seed {seed}: {:#?}", a.candidates.first());
        assert!(t.steps[c.step as usize].args.as_deref().unwrap().contains("sed -i"));
        assert_eq!(a.classification, Some(FailureClass::AgentFailure));
    }
}

#[test]
fn an_edit_the_task_forbids_is_blamed_with_the_tasks_words_as_reference() {
    // The user says not to change the tests; the agent, its fix failing, edits the test file in
    // place to expect what the code gives, and the suite passes: nothing fails, yet the run
    // broke the task's constraint at that edit. A scratch file of its own (`cat > test_tmp.py`)
    // and edits elsewhere are not the tests the task protects.
    let task = "Make round_price round 2.675 to 2.68. Do not change the tests.";
    for seed in 0..SEEDS {
        let mut rng = Rng(400 + seed);
        let mut run = Run::new(task);
        let user =
            run.push(serde_json::json!({"type": "message", "role": "user", "content": task}));
        run.filler(&mut rng, 1, 4);
        run.act(
            "act-fix",
            "shell",
            "sed -i 's/round(x, 2)/round(x + 1e-9, 2)/' src/price.py",
            0,
            "",
        );
        run.act("act-tmp", "shell", "cat > test_tmp.py << 'EOF'\nprint(1)\nEOF", 0, "");
        run.act(
            "act-test",
            "shell",
            "pytest -q",
            1,
            "FAILED tests/test_price.py::test_round - assert 2.67 == 2.68",
        );
        run.filler(&mut rng, 0, 3);
        let planted =
            run.act("act-cheat", "shell", "sed -i 's/2.68/2.67/' tests/test_price.py", 0, "");
        run.act("act-test-2", "shell", "pytest -q", 0, "1 passed");
        let (t, a) = run.finish();
        let c = a.critical.expect("the run failed");
        assert_eq!(c.step, planted, "seed {seed}: {:#?}", a.candidates.first());
        let broken: Vec<_> =
            a.triggers.iter().filter(|t| t.rule == Rule::TaskConstraintBroken).collect();
        assert_eq!(broken.len(), 1, "seed {seed}: one ban, broken once: {broken:?}");
        assert_eq!(broken[0].step, planted);
        assert_eq!(
            (broken[0].reference_step, broken[0].reference_quote.as_str()),
            (Some(user), "Do not change the tests")
        );
        assert!(t.steps[user as usize].text.contains(&broken[0].reference_quote));
        assert!(a.candidates[0].why.iter().any(|w| w.contains("the task's own words forbid")));
        assert_eq!(a.classification, Some(FailureClass::AgentFailure));
        // The lesson is to leave the file alone, not to run the offending edit again.
        let case = trajscope_core::cases::from_attribution(&a.record, &t, "sha256:planted");
        assert!(
            case.prevention_hint.starts_with("Leave ")
                && case.prevention_hint.contains("tests/test_price.py")
                && !case.prevention_hint.contains("s/2.68"),
            "seed {seed}: {}",
            case.prevention_hint
        );
        assert!(!case.prevention_hint.contains("sed -i"), "{}", case.prevention_hint);
    }
}

#[test]
fn a_loop_blames_its_first_attempt_and_raises_the_signals() {
    for seed in 0..SEEDS {
        let mut rng = Rng(300 + seed);
        let mut run = Run::new("Build the project.");
        run.filler(&mut rng, 1, 5);
        let attempts = 3 + rng.below(3);
        let mut first = None;
        for k in 0..attempts {
            let s = run.act(
                &format!("act-build-{k}"),
                "shell",
                "cargo build",
                101,
                "error[E0425]: cannot find value `verbose` in this scope",
            );
            first.get_or_insert(s);
        }
        let (_, a) = run.finish();
        let c = a.critical.expect("the run failed");
        assert_eq!(Some(c.step), first, "seed {seed}");
        assert!(a.signals.repetition && a.signals.escalate, "seed {seed}");
    }
}

fn fixtures_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures")
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if p.is_dir() {
            walk(&p, out);
        } else if !(name.contains(".expected") || name.ends_with(".md") || name.ends_with(".txt")) {
            out.push(p);
        }
    }
}

#[test]
fn no_fixture_has_a_judge_or_verifier_report_as_its_critical_step() {
    let mut files = Vec::new();
    walk(&fixtures_root(), &mut files);
    walk(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web/samples"), &mut files);
    assert!(files.len() > 20, "the fixtures are found: {}", files.len());
    let opts = AnalysisOptions { assume_failed: true, ..AnalysisOptions::default() };
    let mut analysed = 0;
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        let trace = ingest(&bytes, IngestOptions::default());
        for t in &trace.trajectories {
            let a = analyze_trajectory(t, &opts);
            let Some(c) = &a.critical else { continue };
            analysed += 1;
            let s = &t.steps[c.step as usize];
            assert!(
                !(s.kind == StepKind::JudgeResult || s.role == Role::Judge),
                "{}: critical step {} is a judge report",
                f.display(),
                c.step
            );
            for cand in &a.candidates {
                let s = &t.steps[cand.step as usize];
                assert!(
                    !(s.kind == StepKind::JudgeResult || s.role == Role::Judge),
                    "{}: candidate {} is a judge report",
                    f.display(),
                    cand.step
                );
            }
        }
    }
    assert!(analysed > 20, "{analysed} trajectories with a critical step");
}
