//! Speed of the analysis (the target: a 1,000,000-step trace natively in under 2 s): the whole
//! pipeline — triggers, instances, ranking, classification, record — on a synthetic trajectory
//! of actions, observations (some failing, some repeated), claims, memory reads and verdicts.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use trajscope_core::attribution::{analyze_trajectory, AnalysisOptions};
use trajscope_core::model::{Outcome, Role, Step, StepIds, StepKind, Trajectory};

fn synthetic(n: usize) -> Trajectory {
    let mut steps = Vec::with_capacity(n);
    let mut i = 0usize;
    while steps.len() < n {
        let k = steps.len();
        let span = format!("s-{i}");
        let action_id = format!("act-{i}");
        let cmd = match i % 7 {
            0 => format!("sed -i 's/a{i}/b{i}/' src/file{}.rs", i % 97),
            1 | 2 => "cargo test".to_string(),
            3 => format!("grep -rn item{} src", i % 13),
            _ => format!("python run.py --case {}", i % 101),
        };
        steps.push(Step {
            index: k as u32,
            actor: "coder".into(),
            role: Role::Assistant,
            kind: StepKind::Action,
            tool: Some(if i % 7 == 0 { "edit".into() } else { "shell".into() }),
            text: cmd.clone(),
            args: Some(cmd),
            ids: StepIds {
                span_id: Some(span.as_str().into()),
                action_id: Some(action_id.as_str().into()),
                ..StepIds::default()
            },
            ..Step::default()
        });
        let fail = i % 5 == 1;
        steps.push(Step {
            index: (k + 1) as u32,
            role: Role::Tool,
            kind: StepKind::Observation,
            exit_code: Some(if fail { 1 } else { 0 }),
            is_error: fail,
            text: if fail {
                format!("running 42 tests\ntest case_{i} ... FAILED\nAssertionError: expected {i}, got {}\n", i + 1)
            } else {
                "test result: ok. 42 passed; 0 failed".to_string()
            },
            ids: StepIds { span_id: Some(span.into()), ..StepIds::default() },
            ..Step::default()
        });
        if i % 50 == 0 {
            steps.push(Step {
                index: (k + 2) as u32,
                actor: "coder".into(),
                role: Role::Assistant,
                kind: StepKind::Message,
                text: "All tests pass now, the change is done.".into(),
                ..Step::default()
            });
        }
        if i % 211 == 0 {
            steps.push(Step {
                index: steps.len() as u32,
                role: Role::Environment,
                kind: StepKind::MemoryRead,
                text: "Rule: run the verifier before closeout.".into(),
                memory_node_ids: vec!["memory:rule".into()],
                ..Step::default()
            });
        }
        if i % 97 == 0 {
            steps.push(Step {
                index: steps.len() as u32,
                actor: "verifier".into(),
                role: Role::Judge,
                kind: StepKind::JudgeResult,
                status: Some(if i % 2 == 0 { "failed".into() } else { "passed".into() }),
                text: "contract mismatch: field removed".into(),
                ids: StepIds { source_action_id: Some(action_id.into()), ..StepIds::default() },
                ..Step::default()
            });
        }
        i += 1;
    }
    steps.truncate(n);
    for (ix, s) in steps.iter_mut().enumerate() {
        s.index = ix as u32;
    }
    Trajectory { id: "bench".into(), outcome: Outcome::Failed, steps, ..Trajectory::default() }
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("analysis");
    g.sample_size(10);
    for n in [10_000usize, 1_000_000] {
        let t = synthetic(n);
        let opts = AnalysisOptions::default();
        g.bench_function(format!("analyze_trajectory/{n}_steps"), |b| {
            b.iter_batched(|| (), |()| analyze_trajectory(&t, &opts), BatchSize::SmallInput)
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
