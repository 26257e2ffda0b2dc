//! Speed of the step alignment (the target: two 100,000-step trajectories in under 1 s), keys
//! included, on four shapes: identical runs; a shared half then nothing in common; a run and a
//! copy with one step in ten edited, inserted or deleted; and two unrelated runs drawn from a
//! small vocabulary of commands (the hard case for a diff: many matches, none of them useful),
//! that last one also on interned keys alone (the alignment without the keys' cost).

use criterion::{criterion_group, criterion_main, Criterion};
use trajscope_core::diff::{align_keys, compare};
use trajscope_core::model::{Role, Step, StepKind, Trajectory};

const N: usize = 100_000;

/// A small deterministic generator (xorshift64*), so the bench needs no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn step(i: usize, cmd: String) -> Step {
    let action = i % 2 == 0;
    Step {
        index: i as u32,
        role: if action { Role::Assistant } else { Role::Tool },
        kind: if action { StepKind::Action } else { StepKind::Observation },
        tool: action.then(|| "shell".into()),
        args: action.then(|| cmd.clone()),
        text: if action { cmd } else { format!("ok: {cmd}\n{} lines", i % 40) },
        ..Step::default()
    }
}

/// Commands with words that normalisation keeps (so most keys are distinct).
fn distinct(n: usize, tag: &str) -> Vec<Step> {
    const WORDS: [&str; 8] = ["alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta"];
    (0..n)
        .map(|i| {
            let a = WORDS[i % 8];
            let b = WORDS[(i / 8) % 8];
            let c = WORDS[(i / 64) % 8];
            let d = WORDS[(i / 512) % 8];
            let e = WORDS[(i / 4096) % 8];
            let f = WORDS[(i / 32768) % 8];
            step(i, format!("{tag} cat {a}_{b}_{c}_{d}_{e}_{f}.rs"))
        })
        .collect()
}

fn traj(id: &str, steps: Vec<Step>) -> Trajectory {
    let steps = steps.into_iter().enumerate().map(|(i, s)| Step { index: i as u32, ..s }).collect();
    Trajectory { id: id.into(), steps, ..Trajectory::default() }
}

fn shapes() -> Vec<(&'static str, Trajectory, Trajectory)> {
    let base = distinct(N, "run");
    let identical = (traj("a", base.clone()), traj("b", base.clone()));

    let mut half = base[..N / 2].to_vec();
    half.extend(distinct(N / 2, "other"));
    let diverged = (traj("a", base.clone()), traj("b", half));

    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut edited = Vec::with_capacity(N);
    for (i, s) in base.iter().enumerate() {
        match rng.below(30) {
            0 => {}                                                              // deleted
            1 => edited.push(step(i, format!("edited {}", rng.below(1 << 30)))), // changed
            2 => {
                edited.push(s.clone());
                edited.push(step(i, format!("inserted {}", rng.next()))); // inserted
            }
            _ => edited.push(s.clone()),
        }
    }
    edited.truncate(N);
    let mutated = (traj("a", base.clone()), traj("b", edited));

    let vocab = ["ls", "cargo test", "cargo build", "git status", "cat a.rs", "vim b.rs"];
    let draw = |rng: &mut Rng| -> Vec<Step> {
        (0..N).map(|i| step(i, vocab[rng.below(vocab.len() as u64) as usize].to_string())).collect()
    };
    let mut r1 = Rng(1);
    let mut r2 = Rng(2);
    let unrelated = (traj("a", draw(&mut r1)), traj("b", draw(&mut r2)));

    vec![
        ("identical", identical.0, identical.1),
        ("shared half", diverged.0, diverged.1),
        ("one in ten edited", mutated.0, mutated.1),
        ("unrelated, small vocabulary", unrelated.0, unrelated.1),
    ]
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("diff 100k x 100k steps");
    g.sample_size(10);
    for (name, a, b) in shapes() {
        g.bench_function(name, |bench| bench.iter(|| compare(&a, None, &b, None)));
    }
    // The alignment alone, on keys already interned (six distinct ones, drawn at random).
    let mut r1 = Rng(3);
    let mut r2 = Rng(4);
    let l: Vec<u32> = (0..N).map(|_| r1.below(6) as u32).collect();
    let r: Vec<u32> = (0..N).map(|_| r2.below(6) as u32).collect();
    g.bench_function("keys only, unrelated", |bench| bench.iter(|| align_keys(&l, &r)));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
