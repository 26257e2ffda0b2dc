//! A deterministic generator of realistic AWTL traces (docs/formats.md) for benchmarks: many runs of
//! actions, observations (mostly short, some long build logs, some errors), judge results,
//! memory reads, artifacts and assistant messages, with snake_case and camelCase keys mixed,
//! JSON escapes and non-ASCII text. Same seed, same bytes. No I/O: it writes into any
//! `std::io::Write`.

use std::io::Write;

/// SplitMix64: small, fast, deterministic.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
}

const WORDS: &[&str] = &[
    "the",
    "test",
    "contract",
    "build",
    "module",
    "function",
    "returns",
    "expected",
    "value",
    "config",
    "schema",
    "request",
    "handler",
    "cache",
    "fixture",
    "update",
    "parser",
    "error",
    "retry",
    "timeout",
    "migration",
    "endpoint",
    "field",
    "missing",
    "null",
    "check",
    "assert",
    "patch",
    "version",
    "dependency",
    "lockfile",
    "compile",
    "warning",
    "deprecated",
    "index",
    "größe",
    "naïve",
    "café",
    "数据",
    "テスト",
];
const TOOLS: &[&str] = &["shell", "edit_file", "read_file", "search", "python"];
const COMMANDS: &[&str] = &[
    "npm test",
    "cargo test --workspace",
    "pytest -x tests/test_api.py",
    "git diff --stat",
    "rg -n \"fn parse\" src/",
    "cat src/lib.rs",
    "make build",
    "python -c \"import json; print(json.load(open('a.json'))['k'])\"",
];
const JUDGES: &[&str] = &["contract-verifier", "unit-tests", "lint", "type-check"];
const STATUSES: &[&str] = &["passed", "passed", "passed", "failed", "warn"];

/// Between `min` and `min + spread - 1` words.
fn sentence(rng: &mut Rng, min: u64, spread: u64, out: &mut String) {
    let words = min + rng.below(spread);
    for i in 0..words {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(rng.pick(WORDS));
    }
}

/// A tool output: mostly a few lines, sometimes a long log (up to ~200 KB), with quotes, tabs
/// and newlines that need JSON escapes.
fn output(rng: &mut Rng, failed: bool, long: bool) -> String {
    let lines = match rng.below(100) {
        0..=2 if long => 300 + rng.below(2500),
        3..=20 if long => 20 + rng.below(80),
        _ => 1 + rng.below(12),
    };
    let mut s = String::new();
    for i in 0..lines {
        match rng.below(4) {
            0 => s.push_str(&format!("test tests::case_{i} ... ok\n")),
            1 => s.push_str(&format!("\tat module_{}.rs:{}:{}\n", rng.below(50), i, rng.below(80))),
            2 => {
                s.push_str("info: \"");
                sentence(rng, 6, 10, &mut s);
                s.push_str("\"\n");
            }
            _ => {
                sentence(rng, 4, 16, &mut s);
                s.push('\n');
            }
        }
    }
    if failed {
        s.push_str("Error: assertion failed: expected `200`, got `500` (contract mismatch)\n");
    }
    s
}

fn key<'a>(camel: bool, snake: &'a str, camel_name: &'a str) -> &'a str {
    if camel {
        camel_name
    } else {
        snake
    }
}

fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_string())
}

/// The shape of a generated trace: how many runs, how many steps each, how long the outputs.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    /// Stop after this many bytes (checked after every line).
    pub target_bytes: u64,
    /// Stop after this many runs (`u64::MAX`: only the size stops).
    pub runs: u64,
    /// Steps per run (besides `run_start` and `run_end`): `steps_min + below(steps_spread)`.
    pub steps_min: u64,
    pub steps_spread: u64,
    /// Whether runs carry `run_start`/`run_end` lines (false: every line is a run of its own
    /// kind, as in a log of one-event runs).
    pub framed: bool,
    /// Whether tool outputs can be long build logs (false: a few lines at most).
    pub long_outputs: bool,
    /// Whether assistant messages run to 30–229 words (false: 5–34).
    pub long_messages: bool,
}

impl Shape {
    /// Few long runs of 20–219 steps with some long logs until `target_bytes` (the original
    /// benchmark shape).
    pub fn long(target_bytes: u64) -> Shape {
        Shape {
            target_bytes,
            runs: u64::MAX,
            steps_min: 20,
            steps_spread: 200,
            framed: true,
            long_outputs: true,
            long_messages: true,
        }
    }

    /// The named shapes of bench/native.sh and bench/app.sh: `long` (SIZE_MB), `short` (10,000
    /// runs of about 35 steps), `one-step` (100,000 runs of one step, no run_start/run_end),
    /// `huge-run` (one run of 1,000,000 short steps). `scale` divides the run or step count
    /// (1 = full size), for quick runs and tests.
    pub fn named(name: &str, size_mb: u64, scale: u64) -> Option<Shape> {
        let scale = scale.max(1);
        let long = Shape::long(size_mb * 1_000_000);
        Some(match name {
            "long" => long,
            "short" => Shape {
                target_bytes: u64::MAX,
                runs: 10_000 / scale,
                steps_min: 30,
                steps_spread: 11,
                long_outputs: false,
                ..long
            },
            "one-step" => Shape {
                target_bytes: u64::MAX,
                runs: 100_000 / scale,
                steps_min: 1,
                steps_spread: 1,
                framed: false,
                long_outputs: false,
                long_messages: false,
            },
            "huge-run" => Shape {
                target_bytes: u64::MAX,
                runs: 1,
                steps_min: 1_000_000 / scale,
                steps_spread: 1,
                framed: true,
                long_outputs: false,
                long_messages: false,
            },
            _ => return None,
        })
    }
}

/// Writes AWTL lines until at least `target_bytes` were written (whole runs are not
/// guaranteed: the last run may end without `run_end`, as a live trace would).
pub fn generate(seed: u64, target_bytes: u64, out: &mut impl Write) -> std::io::Result<u64> {
    generate_shape(seed, Shape::long(target_bytes), out)
}

/// Writes the AWTL lines of `shape`; returns the bytes written.
pub fn generate_shape(seed: u64, shape: Shape, out: &mut impl Write) -> std::io::Result<u64> {
    let target_bytes = shape.target_bytes;
    let mut rng = Rng(seed);
    let mut written = 0u64;
    let mut run = 0u64;
    let mut line = String::with_capacity(1 << 16);
    while written < target_bytes && run < shape.runs {
        run += 1;
        let camel = rng.chance(25);
        let run_id = format!("run-{run:05}");
        let (k_run, k_span, k_seq) = (
            key(camel, "run_id", "runId"),
            key(camel, "span_id", "spanId"),
            key(camel, "writer_seq", "writerSeq"),
        );
        let steps = shape.steps_min + rng.below(shape.steps_spread);
        let mut seq = 0u64;
        let mut ts = 1_700_000_000_000u64 + run * 3_600_000;
        let emit = |line: &mut String, out: &mut dyn Write| -> std::io::Result<u64> {
            line.push('\n');
            out.write_all(line.as_bytes())?;
            let n = line.len() as u64;
            line.clear();
            Ok(n)
        };
        seq += 1;
        if shape.framed {
            let mut task = String::new();
            sentence(&mut rng, 20, 1, &mut task);
            line.push_str(&format!(
                "{{\"type\":\"run_start\",\"{k_run}\":\"{run_id}\",\"{k_seq}\":{seq},\"ts\":{ts},\"task\":{}}}",
                json_str(&task)
            ));
            written += emit(&mut line, out)?;
        }
        let mut last_failed = false;
        for turn in 0..steps {
            seq += 1;
            ts += 500 + rng.below(20_000);
            let span = format!("s-{run}-{turn}");
            let turn_id = format!("turn-{run}-{}", turn / 4 + 1);
            let k_turn = key(camel, "turn_id", "turnId");
            match rng.below(100) {
                0..=29 => {
                    let tool = rng.pick(TOOLS);
                    let k_action = key(camel, "action_id", "actionId");
                    line.push_str(&format!(
                        "{{\"type\":\"action\",\"{k_run}\":\"{run_id}\",\"{k_turn}\":\"{turn_id}\",\"{k_span}\":\"{span}\",\"{k_action}\":\"a-{run}-{turn}\",\"tool\":\"{tool}\",\"command\":{},\"agent\":\"coder\",\"ts\":{ts},\"{k_seq}\":{seq}}}",
                        json_str(rng.pick(COMMANDS))
                    ));
                }
                30..=59 => {
                    let failed = rng.chance(15);
                    last_failed = failed;
                    let code = if failed { 1 + rng.below(2) } else { 0 };
                    let k_exit = key(camel, "exit_code", "exitCode");
                    line.push_str(&format!(
                        "{{\"type\":\"observation\",\"{k_run}\":\"{run_id}\",\"{k_turn}\":\"{turn_id}\",\"{k_span}\":\"{span}\",\"{k_exit}\":{code},\"output\":{}",
                        json_str(&output(&mut rng, failed, shape.long_outputs))
                    ));
                    if failed && rng.chance(50) {
                        line.push_str(&format!(
                            ",\"stderr\":{}",
                            json_str("npm ERR! Test failed.  See above for more details.")
                        ));
                    }
                    line.push_str(&format!(",\"ts\":{ts},\"{k_seq}\":{seq}}}"));
                }
                60..=74 => {
                    let mut text = String::new();
                    if shape.long_messages {
                        sentence(&mut rng, 30, 200, &mut text);
                    } else {
                        sentence(&mut rng, 5, 30, &mut text);
                    }
                    line.push_str(&format!(
                        "{{\"type\":\"message\",\"role\":\"assistant\",\"{k_run}\":\"{run_id}\",\"{k_turn}\":\"{turn_id}\",\"text\":{},\"ts\":{ts},\"{k_seq}\":{seq}}}",
                        json_str(&text)
                    ));
                }
                75..=86 => {
                    let status = if last_failed { "failed" } else { rng.pick(STATUSES) };
                    let mut reason = String::new();
                    sentence(&mut rng, 8, 20, &mut reason);
                    line.push_str(&format!(
                        "{{\"type\":\"judge_result\",\"{k_run}\":\"{run_id}\",\"{k_span}\":\"{span}\",\"judge_name\":\"{}\",\"status\":\"{status}\",\"source_action_id\":\"a-{run}-{}\",\"artifact_refs\":[\"artifact:build-output\",\"src/module_{}.rs\"],\"reason\":{},\"ts\":{ts},\"{k_seq}\":{seq}}}",
                        rng.pick(JUDGES), turn.saturating_sub(1), rng.below(50), json_str(&reason)
                    ));
                }
                87..=93 => {
                    line.push_str(&format!(
                        "{{\"type\":\"memory_read\",\"{k_run}\":\"{run_id}\",\"{k_span}\":\"{span}\",\"node_ids\":[\"memory:contract-rule\",\"memory:n-{}\"],\"summary\":\"recalled rule\",\"ts\":{ts},\"{k_seq}\":{seq}}}",
                        rng.below(1000)
                    ));
                }
                _ => {
                    let path = if rng.chance(5) {
                        "../outside/secret.txt".to_string()
                    } else {
                        format!("out/report-{turn}.txt")
                    };
                    line.push_str(&format!(
                        "{{\"type\":\"artifact\",\"{k_run}\":\"{run_id}\",\"path\":\"{path}\",\"ts\":{ts},\"{k_seq}\":{seq}}}"
                    ));
                }
            }
            written += emit(&mut line, out)?;
            if written >= target_bytes {
                return Ok(written);
            }
        }
        if !shape.framed {
            continue;
        }
        seq += 1;
        let status = if last_failed { "failed" } else { "passed" };
        line.push_str(&format!(
            "{{\"type\":\"run_end\",\"{k_run}\":\"{run_id}\",\"status\":\"{status}\",\"ts\":{ts},\"{k_seq}\":{seq}}}"
        ));
        written += emit(&mut line, out)?;
    }
    Ok(written)
}
