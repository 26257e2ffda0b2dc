//! Usage extraction on real fixtures, checked against totals computed here independently from
//! the raw JSON (not through the adapters): Claude Code's `message.usage` once per response,
//! Codex's last cumulative `token_count`, and the run- and step-level records of OTel,
//! LangSmith, Inspect and tau2.
#![cfg(not(target_arch = "wasm32"))]
// Tests read their fixtures from disk; the core itself does no I/O.
#![allow(clippy::disallowed_methods)]

use std::collections::HashMap;
use std::path::PathBuf;

use serde_json::Value;
use trajscope_core::model::{Step, Trajectory, Usage};
use trajscope_core::report::Report;
use trajscope_core::usage::{
    by_agent, parse_timestamp_ms, step_timings, trajectory_usage, UsageSummary,
};
use trajscope_core::{ingest, IngestOptions, Trace};

fn fixture(rel: &str) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures").join(rel);
    std::fs::read(&p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()))
}

fn trace(rel: &str) -> Trace {
    ingest(&fixture(rel), IngestOptions::default())
}

fn lines(rel: &str) -> Vec<Value> {
    String::from_utf8(fixture(rel))
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

fn n(v: &Value, k: &str) -> u64 {
    v.get(k).and_then(Value::as_u64).unwrap_or(0)
}

/// Sums over a whole file's trajectories: (input, output, cache read, cache write).
fn file_totals(t: &Trace) -> (u64, u64, u64, u64) {
    let mut sum = (0, 0, 0, 0);
    for tr in &t.trajectories {
        let u = trajectory_usage(tr);
        sum.0 += u.input_tokens.unwrap_or(0);
        sum.1 += u.output_tokens.unwrap_or(0);
        sum.2 += u.cache_read_tokens.unwrap_or(0);
        sum.3 += u.cache_write_tokens.unwrap_or(0);
    }
    sum
}

#[test]
fn claude_code_totals_are_the_usage_of_each_distinct_response() {
    for rel in [
        "claude_code/coverage-test-fix.jsonl",
        "claude_code/hello-world-script.jsonl",
        "claude_code/codemie-main-session.jsonl",
        "claude_code/codemie-agent-36541525.jsonl",
    ] {
        // Independently: the last line of each message.id holds the response's final usage.
        let mut by_response: HashMap<String, Value> = HashMap::new();
        let mut usage_lines = 0;
        for (i, v) in lines(rel).into_iter().enumerate() {
            let Some(u) = v.pointer("/message/usage") else { continue };
            let id = v
                .pointer("/message/id")
                .and_then(Value::as_str)
                .map_or_else(|| format!("line-{i}"), str::to_string);
            usage_lines += 1;
            by_response.insert(id, u.clone());
        }
        assert!(!by_response.is_empty(), "{rel} records usage");
        let mut want = (0, 0, 0, 0);
        for u in by_response.values() {
            want.0 += n(u, "input_tokens");
            want.1 += n(u, "output_tokens");
            want.2 += n(u, "cache_read_input_tokens");
            want.3 += n(u, "cache_creation_input_tokens");
        }
        let t = trace(rel);
        assert_eq!(file_totals(&t), want, "{rel}");
        let steps_with: usize =
            t.trajectories.iter().map(|tr| trajectory_usage(tr).steps_with_usage).sum();
        assert_eq!(steps_with, by_response.len(), "{rel}: one step per response carries it");
        if rel.contains("coverage") {
            // Several lines of one response repeat its usage (21 lines, 14 responses).
            assert!(usage_lines > by_response.len(), "{rel}");
        }
    }
    // The streaming session writes a response's usage on four lines, the output count growing
    // (4, 4, 4, 395): counted once, with the final count.
    let t = trace("claude_code/codemie-main-session.jsonl");
    let first = t.trajectories[0].steps.iter().find_map(|s| s.usage.clone()).unwrap();
    assert_eq!((first.input_tokens, first.output_tokens), (Some(3), Some(395)));
    assert_eq!(first.cache_write_tokens, Some(35066));
}

#[test]
fn claude_code_durations_come_from_the_timestamps() {
    let rel = "claude_code/hello-world-script.jsonl";
    // The steps' lines (a queue-operation line is bookkeeping and gives no step).
    let stamps: Vec<i64> = lines(rel)
        .iter()
        .filter(|v| matches!(v["type"].as_str(), Some("user" | "assistant" | "system")))
        .filter_map(|v| v.get("timestamp")?.as_str().map(str::to_string))
        .filter_map(|s| trajscope_core::usage::parse_timestamp_ms(&s))
        .collect();
    let want = (stamps.iter().max().unwrap() - stamps.iter().min().unwrap()) as u64;
    let t = trace(rel);
    assert_eq!(trajectory_usage(&t.trajectories[0]).duration_ms, Some(want));
    assert!(want > 0);
}

#[test]
fn codex_totals_are_the_last_cumulative_token_count() {
    let rel = "codex/examples-one-per-kind.jsonl";
    let last = lines(rel)
        .into_iter()
        .rev()
        .filter(|v| v.pointer("/payload/type").and_then(Value::as_str) == Some("token_count"))
        .find_map(|v| v.pointer("/payload/info/total_token_usage").cloned())
        .expect("the fixture has a token_count event");
    let t = trace(rel);
    assert_eq!(t.trajectories.len(), 1);
    let u = trajectory_usage(&t.trajectories[0]);
    assert_eq!(u.input_tokens, Some(n(&last, "input_tokens")));
    assert_eq!(u.output_tokens, Some(n(&last, "output_tokens")));
    assert_eq!(u.cache_read_tokens, Some(n(&last, "cached_input_tokens")));
    assert_eq!(u.cache_write_tokens, None, "Codex records no cache writes here");
    // A rollout without token_count events has no usage: null, not 0.
    let none = trace("codex/rollout-trimmed.jsonl");
    let u = trajectory_usage(&none.trajectories[0]);
    assert_eq!((u.input_tokens, u.output_tokens, u.steps_with_usage), (None, None, 0));
    assert!(u.duration_ms.is_some(), "the duration still comes from the timestamps");
}

#[test]
fn a_codex_rollout_that_repeats_its_cumulative_count_still_totals_the_last_one() {
    // Codex writes `token_count` after each turn with the session's running totals, often the
    // same totals again. The real rollout's one event, written three times as the session
    // grows (the same, then larger): the totals are the last event's, not a sum.
    let rel = "codex/examples-one-per-kind.jsonl";
    let text = String::from_utf8(fixture(rel)).unwrap();
    let event = text.lines().find(|l| l.contains("\"token_count\"")).unwrap();
    let v: Value = serde_json::from_str(event).unwrap();
    let total = v.pointer("/payload/info/total_token_usage").unwrap();
    let mut grown = v.clone();
    let g = grown.pointer_mut("/payload/info/total_token_usage").unwrap();
    g["input_tokens"] = (n(total, "input_tokens") + 1000).into();
    g["output_tokens"] = (n(total, "output_tokens") + 50).into();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    lines.push(event.to_string());
    lines.push(serde_json::to_string(&grown).unwrap());
    let t = ingest((lines.join("\n") + "\n").as_bytes(), IngestOptions::default());
    let u = trajectory_usage(&t.trajectories[0]);
    assert_eq!(u.input_tokens, Some(n(total, "input_tokens") + 1000));
    assert_eq!(u.output_tokens, Some(n(total, "output_tokens") + 50));
    assert_eq!(u.cache_read_tokens, Some(n(total, "cached_input_tokens")));
}

#[test]
fn otel_langsmith_inspect_and_tau2_keep_what_they_record() {
    // OTel: the span's gen_ai.usage.* attributes.
    let mut want = (0, 0);
    for v in lines("otel/genai_handoff.jsonl") {
        let text = v.to_string();
        for (key, slot) in
            [("gen_ai.usage.input_tokens", 0usize), ("gen_ai.usage.output_tokens", 1)]
        {
            for part in text.split(&format!("\"key\":\"{key}\"")).skip(1) {
                let digits: String = part
                    .trim_start_matches(|c: char| !c.is_ascii_digit())
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .collect();
                let v: u64 = digits.parse().unwrap();
                if slot == 0 {
                    want.0 += v
                } else {
                    want.1 += v
                }
            }
        }
    }
    let t = trace("otel/genai_handoff.jsonl");
    let got = file_totals(&t);
    assert_eq!((got.0, got.1), want);
    assert!(want.0 > 0);

    // LangSmith: outputs.usage_metadata of the llm run.
    let t = trace("langsmith/langsmith_py_wrap_openai_.json");
    let u = trajectory_usage(&t.trajectories[0]);
    assert_eq!((u.input_tokens, u.output_tokens, u.cache_read_tokens), (Some(9), Some(9), Some(0)));

    // Inspect: the sample's model_usage, a run-level record; total_time its duration.
    let doc: Value = serde_json::from_slice(&fixture("inspect/browser.no_events.json")).unwrap();
    let s0 = &doc["samples"][0];
    let mu = s0["model_usage"].as_object().unwrap();
    let input: u64 = mu.values().map(|m| n(m, "input_tokens")).sum();
    let cached: u64 = mu.values().map(|m| n(m, "input_tokens_cache_read")).sum();
    let t = trace("inspect/browser.no_events.json");
    let u = trajectory_usage(&t.trajectories[0]);
    assert_eq!((u.input_tokens, u.cache_read_tokens), (Some(input), Some(cached)));
    assert_eq!(u.cache_write_tokens, None);
    let secs = s0["total_time"].as_f64().unwrap();
    assert_eq!(u.duration_ms, Some((secs * 1000.0).round() as u64));

    // tau2: per-message usage and cost.
    let doc: Value = serde_json::from_slice(&fixture("tau2/airline_3_simulations.json")).unwrap();
    let sim = &doc["simulations"][0];
    let msgs = sim["messages"].as_array().unwrap();
    let prompt: u64 =
        msgs.iter().filter_map(|m| m.get("usage")).map(|u| n(u, "prompt_tokens")).sum();
    let cost: f64 = msgs.iter().filter_map(|m| m.get("cost")?.as_f64()).sum();
    let t = trace("tau2/airline_3_simulations.json");
    let u = trajectory_usage(&t.trajectories[0]);
    assert_eq!(u.input_tokens, Some(prompt));
    assert!((u.cost_usd.unwrap() - cost).abs() < 1e-9, "{:?} vs {cost}", u.cost_usd);
    let agents = by_agent(&t.trajectories[0]);
    assert_eq!(agents.iter().map(|a| a.steps).sum::<usize>(), t.trajectories[0].steps.len());
}

#[test]
fn the_report_gives_every_trajectory_a_usage_with_nulls_where_none_is_recorded() {
    let t = trace("awtl/passed_run.awtl.jsonl");
    let v = serde_json::to_value(Report::new(&t)).unwrap();
    let u = &v["trajectories"][0]["usage"];
    for k in ["input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"] {
        assert!(u.get(k).is_some_and(Value::is_null), "{k} is null: {u}");
    }
    assert!(u.get("duration_ms").is_some());
    let t = trace("claude_code/hello-world-script.jsonl");
    let r = Report::new(&t);
    assert_eq!(r.trajectories[0].usage, trajectory_usage(&t.trajectories[0]));
    assert_ne!(r.trajectories[0].usage, UsageSummary::default());
}

fn timed_step(at: Option<&str>, usage: Option<Usage>) -> Step {
    Step { timestamp: at.map(Box::from), usage: usage.map(Box::new), ..Step::default() }
}

fn call_time(ms: u64) -> Usage {
    Usage { duration_ms: Some(ms), ..Usage::default() }
}

#[test]
fn a_step_is_timed_from_the_first_instant_and_the_last_one_by_its_recorded_call_time() {
    let t = Trajectory {
        steps: vec![
            timed_step(Some("2026-01-01T00:00:10Z"), None),
            timed_step(None, None),
            timed_step(Some("2026-01-01T00:00:04Z"), None),
            timed_step(Some("2026-01-01T00:00:30Z"), Some(call_time(2_500))),
        ],
        ..Trajectory::default()
    };
    let timings = step_timings(&t);
    // Offsets from the earliest instant (the third step's), whatever order the steps are in.
    let at: Vec<_> = timings.iter().map(|s| s.at_ms).collect();
    assert_eq!(at, [Some(6_000), None, Some(0), Some(26_000)]);
    // A gap runs to the next step with an instant (never negative); the last step's is its
    // own recorded call time; a step without an instant has none.
    let gaps: Vec<_> = timings.iter().map(|s| s.gap_ms).collect();
    assert_eq!(gaps, [Some(0), None, Some(26_000), Some(2_500)]);
    // Without a recorded call time the last step's gap is unknown.
    let mut t = t;
    t.steps[3].usage = None;
    assert_eq!(step_timings(&t)[3].gap_ms, None);
}

#[test]
fn one_instant_is_no_duration_but_one_instant_and_its_call_time_are() {
    let one = |usage| Trajectory {
        steps: vec![timed_step(Some("2026-01-01T00:00:00Z"), usage)],
        ..Trajectory::default()
    };
    assert_eq!(trajectory_usage(&one(None)).duration_ms, None, "one instant: no duration");
    let timed = trajectory_usage(&one(Some(call_time(1_500))));
    assert_eq!(timed.duration_ms, Some(1_500), "a start and its end are two instants");
    // A call time alone is no token count: the step is not counted as one with usage.
    assert_eq!((timed.input_tokens, timed.steps_with_usage), (None, 0));
    // The same per agent.
    assert_eq!(by_agent(&one(Some(call_time(1_500))))[0].usage.duration_ms, Some(1_500));
    assert_eq!(by_agent(&one(None))[0].usage.duration_ms, None);
}

#[test]
fn a_date_needs_both_of_its_dashes() {
    let good = parse_timestamp_ms("2026-05-11T00:00:00Z");
    assert!(good.is_some());
    for bad in ["2026x05-11T00:00:00Z", "2026-05x11T00:00:00Z", "2026/05/11T00:00:00Z"] {
        assert_eq!(parse_timestamp_ms(bad), None, "{bad}");
    }
}

#[test]
fn a_timestamp_s_offset_and_every_field_s_range_are_read() {
    let utc = parse_timestamp_ms("2026-05-11T12:00:00Z").unwrap();
    const MIN: i64 = 60_000;
    // East of UTC is earlier in UTC, west later; minutes with or without a colon, or none.
    for (ts, minutes) in [
        ("2026-05-11T12:00:00+05:30", -330),
        ("2026-05-11T12:00:00+0530", -330),
        ("2026-05-11T12:00:00+05", -300),
        ("2026-05-11T12:00:00-03:45", 225),
        ("2026-05-11T12:00:00-0345", 225),
        ("2026-05-11T12:00:00-00:00", 0),
        ("2026-05-11T12:00:00z", 0),
        ("2026-05-11T12:00:00", 0),
        ("2026-05-11t12:00:00Z", 0),
        ("2026-05-11 12:00:00Z", 0),
        ("2026-05-11T12:00Z", 0),
    ] {
        assert_eq!(parse_timestamp_ms(ts), Some(utc + minutes * MIN), "{ts}");
    }
    // Each field counts, and a comma marks the fraction as well as a dot.
    let at = |ts: &str| parse_timestamp_ms(ts).unwrap() - utc;
    assert_eq!(at("2026-05-11T13:00:00Z"), 60 * MIN);
    assert_eq!(at("2026-05-11T12:07:00Z"), 7 * MIN);
    assert_eq!(at("2026-05-11T12:00:09Z"), 9_000);
    assert_eq!(at("2026-05-11T12:00:00,25Z"), 250);
    assert_eq!(at("2026-05-12T12:00:00Z"), 24 * 60 * MIN);
    // The largest hour, minute and (leap) second are read; one more is no time.
    assert!(parse_timestamp_ms("2026-05-11T23:59:60Z").is_some());
    for bad in [
        "2026-05-11T24:00:00Z",
        "2026-05-11T12:60:00Z",
        "2026-05-11T12:00:61Z",
        "2026-00-11T12:00:00Z",
        "2026-13-11T12:00:00Z",
        "2026-05-00T12:00:00Z",
        "2026-05-32T12:00:00Z",
        "2026-05-11T12:00:00+05:3x",
        "2026-05-11T12:00:00+x5:30",
    ] {
        assert_eq!(parse_timestamp_ms(bad), None, "{bad}");
    }
    for good in ["2026-12-31T00:00:00Z", "2026-01-01T00:00:00Z", "2026-05-31T00:00:00Z"] {
        assert!(parse_timestamp_ms(good).is_some(), "{good}");
    }
}

#[test]
fn a_number_since_the_epoch_is_told_apart_by_its_size() {
    let ms = 1_778_488_042_767;
    for (n, what) in [
        ("1778488042767000000", "nanoseconds"),
        ("1778488042767000", "microseconds"),
        ("1778488042767", "milliseconds"),
        ("1778488042.767", "seconds with a fraction"),
    ] {
        assert_eq!(parse_timestamp_ms(n), Some(ms), "{what}: {n}");
    }
    assert_eq!(parse_timestamp_ms("1778488042"), Some(1_778_488_042_000), "seconds");
    assert_eq!(parse_timestamp_ms(" 1778488042 "), Some(1_778_488_042_000), "trimmed");
    assert_eq!(parse_timestamp_ms("0"), Some(0));
}

#[test]
fn the_earliest_dates_are_counted_back_across_year_zero() {
    // 1 March of year 0 starts the 400-year era the count is based on: January and February
    // of year 0 belong to the era before (proleptic Gregorian; year 0 is a leap year).
    const DAY: i64 = 86_400_000;
    assert_eq!(parse_timestamp_ms("0000-01-01T00:00:00Z"), Some(-62_167_219_200_000));
    assert_eq!(
        parse_timestamp_ms("0000-03-01T00:00:00Z"),
        Some(-62_167_219_200_000 + (31 + 29) * DAY)
    );
    assert_eq!(parse_timestamp_ms("0001-01-01T00:00:00Z"), Some(-62_135_596_800_000));
}

/// `rel`'s lines with every `message.usage` replaced by `usage` and its `costUSD` set to `cost`
/// on those lines, and how many distinct responses carry them.
fn with_usage(rel: &str, usage: Value, cost: Value) -> (Vec<u8>, usize) {
    let mut out = Vec::new();
    let mut responses = std::collections::HashSet::new();
    for (i, mut v) in lines(rel).into_iter().enumerate() {
        if v.pointer("/message/usage").is_some() {
            let id = v.pointer("/message/id").and_then(Value::as_str);
            responses.insert(id.map_or_else(|| format!("line-{i}"), str::to_string));
            v["message"]["usage"] = usage.clone();
            v["costUSD"] = cost.clone();
        }
        out.extend_from_slice(v.to_string().as_bytes());
        out.push(b'\n');
    }
    (out, responses.len())
}

#[test]
fn counts_and_costs_are_read_as_numbers_or_numeric_strings_and_never_negative() {
    let rel = "claude_code/hello-world-script.jsonl";
    let usage = serde_json::json!({
        "input_tokens": 12.0,
        "output_tokens": " 7 ",
        "cache_read_input_tokens": -3.5,
        "cache_creation_input_tokens": "many",
    });
    let (bytes, responses) = with_usage(rel, usage, Value::from("0.25"));
    assert!(responses > 0);
    let t = ingest(&bytes, IngestOptions::default());
    let u = trajectory_usage(&t.trajectories[0]);
    let r = responses as u64;
    assert_eq!((u.input_tokens, u.output_tokens), (Some(12 * r), Some(7 * r)), "{u:?}");
    assert_eq!((u.cache_read_tokens, u.cache_write_tokens), (None, None), "{u:?}");
    assert!((u.cost_usd.unwrap() - 0.25 * r as f64).abs() < 1e-9, "{u:?}");
    // A negative cost, as a number or a string, or one that is no number, is no cost.
    for cost in [Value::from(-1.0), Value::from("-0.5"), Value::from("a lot"), Value::from(true)] {
        let (bytes, _) = with_usage(rel, serde_json::json!({"input_tokens": 1}), cost.clone());
        let t = ingest(&bytes, IngestOptions::default());
        assert_eq!(trajectory_usage(&t.trajectories[0]).cost_usd, None, "{cost}");
    }
}
