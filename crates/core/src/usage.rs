//! Usage totals: tokens, cost and time per trajectory, per agent and per step, from the
//! [`Usage`] the format adapters record and the steps' timestamps (see `docs/usage.md`).
//!
//! Nothing is invented: a total is `None` when no step (and no run-level record) has that
//! field, and a duration is `None` when fewer than two instants can be read.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::{Trajectory, Usage};

/// A gap between two consecutive steps at least this long is a stall (60 s).
pub const STALL_MS: u64 = 60_000;

/// The usage of a trajectory (or of one agent in it), as `analyze --json` reports it: every
/// field is present, `null` where the format records none.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct UsageSummary {
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    pub cache_read_tokens: Option<u64>,
    pub cache_write_tokens: Option<u64>,
    /// Cost in US dollars as the source records it (never estimated).
    #[serde(default)]
    pub cost_usd: Option<f64>,
    /// From the first step's start to the last step's end (its start plus its recorded call
    /// time), or the run time the source records; `null` without two readable instants.
    pub duration_ms: Option<u64>,
    /// How many steps carry tokens or cost (0 when only a run-level record exists).
    #[serde(default)]
    pub steps_with_usage: usize,
}

/// The usage of one agent (`actor`; empty for the main agent / an unnamed actor).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AgentUsage {
    pub agent: String,
    pub steps: usize,
    pub usage: UsageSummary,
}

/// The timing of one step: when it started and how long until the next step started.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepTiming {
    /// Milliseconds since the trajectory's first readable instant.
    pub at_ms: Option<u64>,
    /// Milliseconds until the next step with a readable instant (or this step's recorded
    /// call time for the last one).
    pub gap_ms: Option<u64>,
    /// `gap_ms` is at least [`STALL_MS`].
    pub stall: bool,
}

/// The usage totals of a trajectory.
pub fn trajectory_usage(t: &Trajectory) -> UsageSummary {
    let mut s = summarise(t.steps.iter().map(|s| (s.timestamp.as_deref(), s.usage.as_deref())));
    if let Some(run) = &t.usage {
        if s.steps_with_usage == 0 {
            s.input_tokens = run.input_tokens;
            s.output_tokens = run.output_tokens;
            s.cache_read_tokens = run.cache_read_tokens;
            s.cache_write_tokens = run.cache_write_tokens;
            s.cost_usd = run.cost_usd;
        }
        // Steps that count tokens but no cost, and a run that states its cost (a headless
        // Claude Code run's `total_cost_usd`): the run's.
        if s.cost_usd.is_none() {
            s.cost_usd = run.cost_usd;
        }
        if run.duration_ms.is_some() {
            s.duration_ms = run.duration_ms;
        }
    }
    s
}

/// The usage per agent, in order of the agents' first step.
pub fn by_agent(t: &Trajectory) -> Vec<AgentUsage> {
    let mut agents: Vec<(&str, Vec<usize>)> = Vec::new();
    for (i, s) in t.steps.iter().enumerate() {
        match agents.iter_mut().find(|(a, _)| *a == s.actor) {
            Some((_, v)) => v.push(i),
            None => agents.push((&s.actor, vec![i])),
        }
    }
    agents
        .into_iter()
        .map(|(agent, idx)| AgentUsage {
            agent: agent.to_string(),
            steps: idx.len(),
            usage: summarise(
                idx.iter().map(|&i| (t.steps[i].timestamp.as_deref(), t.steps[i].usage.as_deref())),
            ),
        })
        .collect()
}

/// The timing of every step (same order as `t.steps`).
pub fn step_timings(t: &Trajectory) -> Vec<StepTiming> {
    let instants: Vec<Option<i64>> =
        t.steps.iter().map(|s| s.timestamp.as_deref().and_then(parse_timestamp_ms)).collect();
    let first = instants.iter().flatten().min().copied();
    // The next recorded instant after each step, in one backward pass (a scan per step would
    // be quadratic on a long trajectory without timestamps).
    let mut next_at: Vec<Option<i64>> = vec![None; instants.len()];
    let mut seen = None;
    for (i, at) in instants.iter().enumerate().rev() {
        next_at[i] = seen;
        if at.is_some() {
            seen = *at;
        }
    }
    let mut out = Vec::with_capacity(instants.len());
    for (i, at) in instants.iter().enumerate() {
        let next = next_at[i].as_ref();
        let gap = match (at, next) {
            (Some(a), Some(n)) => Some(n.saturating_sub(*a).max(0) as u64),
            (Some(_), None) => t.steps[i].usage.as_deref().and_then(|u| u.duration_ms),
            _ => None,
        };
        out.push(StepTiming {
            at_ms: at.zip(first).map(|(a, f)| (a - f).max(0) as u64),
            gap_ms: gap,
            stall: gap.is_some_and(|g| g >= STALL_MS),
        });
    }
    out
}

fn summarise<'a>(
    steps: impl Iterator<Item = (Option<&'a str>, Option<&'a Usage>)>,
) -> UsageSummary {
    let mut total = Usage::default();
    let mut with = 0;
    let (mut start, mut end): (Option<i64>, Option<i64>) = (None, None);
    let mut instants = 0;
    for (ts, usage) in steps {
        if let Some(u) = usage {
            let mut tokens = u.clone();
            tokens.duration_ms = None;
            if !tokens.is_empty() {
                total.add(&tokens);
                with += 1;
            }
        }
        if let Some(at) = ts.and_then(parse_timestamp_ms) {
            let took = usage.and_then(|u| u.duration_ms);
            instants += 1 + usize::from(took.is_some());
            let done = at.saturating_add(took.map_or(0, |d| d.min(i64::MAX as u64) as i64));
            start = Some(start.map_or(at, |s| s.min(at)));
            end = Some(end.map_or(done, |e| e.max(done)));
        }
    }
    let duration_ms = match (start, end) {
        (Some(s), Some(e)) if instants >= 2 => Some(e.saturating_sub(s).max(0) as u64),
        _ => None,
    };
    UsageSummary {
        input_tokens: total.input_tokens,
        output_tokens: total.output_tokens,
        cache_read_tokens: total.cache_read_tokens,
        cache_write_tokens: total.cache_write_tokens,
        cost_usd: total.cost_usd,
        duration_ms,
        steps_with_usage: with,
    }
}

/// Milliseconds since the Unix epoch of a timestamp as traces write them: RFC 3339 / ISO 8601
/// (`2026-05-11T08:27:22.767Z`, `…+02:00`, a space for `T`, no zone read as UTC) or a number
/// of seconds, milliseconds or nanoseconds since the epoch (told apart by magnitude).
pub fn parse_timestamp_ms(s: &str) -> Option<i64> {
    // The usual case first, in one pass: 1 to 15 digits (a time in milliseconds has 13), an
    // integer below 2^53, which an `f64` holds exactly: the float parser below would give
    // this very value (and there is nothing to trim).
    if (1..=15).contains(&s.len()) {
        let mut n = 0u64;
        for &b in s.as_bytes() {
            if !b.is_ascii_digit() {
                n = u64::MAX;
                break;
            }
            n = n * 10 + u64::from(b - b'0');
        }
        if n != u64::MAX {
            return Some(epoch_number_ms(n as f64));
        }
    }
    let s = s.trim();
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        let v = crate::num::parse_f64(s)?;
        return Some(epoch_number_ms(v));
    }
    let b = s.as_bytes();
    // A field of 1 to 4 digits, read digit by digit (`str::parse` per field was most of a
    // timestamp's cost, and every step's is read for the usage summary).
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let part = b.get(r).filter(|p| !p.is_empty())?;
        part.iter().try_fold(0i64, |v, &c| c.is_ascii_digit().then(|| v * 10 + i64::from(c - b'0')))
    };
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    if b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') {
        return None;
    }
    let (mut h, mut mi, mut sec, mut ms) = (0, 0, 0, 0i64);
    let mut i = 10;
    if matches!(b.get(10), Some(b'T' | b't' | b' ')) {
        h = num(11..13)?;
        mi = num(14..16)?;
        i = 16;
        if b.get(16) == Some(&b':') {
            sec = num(17..19)?;
            i = 19;
        }
        if matches!(b.get(i), Some(b'.' | b',')) {
            let digits = b[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
            let frac = &s[i + 1..i + 1 + digits];
            let mut v = 0i64;
            for (n, c) in frac.bytes().take(3).enumerate() {
                v += i64::from(c - b'0') * 10i64.pow(2 - n as u32);
            }
            ms = v;
            i += 1 + digits;
        }
    }
    let offset_min = match b.get(i) {
        None | Some(b'Z' | b'z') => 0,
        Some(c @ (b'+' | b'-')) => {
            let sign = if *c == b'-' { -1 } else { 1 };
            let oh = num(i + 1..i + 3)?;
            let om = if b.get(i + 3) == Some(&b':') {
                num(i + 4..i + 6)?
            } else {
                num(i + 3..i + 5).unwrap_or(0)
            };
            sign * (oh * 60 + om)
        }
        _ => return None,
    };
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    let days = days_from_civil(year, month, day);
    Some(((days * 24 + h) * 60 + mi - offset_min) * 60_000 + sec * 1000 + ms)
}

/// A number since the epoch in milliseconds: nanoseconds (OTLP), microseconds, milliseconds
/// or seconds, told apart by size.
fn epoch_number_ms(v: f64) -> i64 {
    let ms = if v >= 1e17 {
        v / 1e6
    } else if v >= 1e14 {
        v / 1e3
    } else if v >= 1e11 {
        v
    } else {
        v * 1e3
    };
    ms as i64
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// A token count: a non-negative integer, or a numeric string (OTLP `intValue` is a string).
pub(crate) fn count(v: Option<&Value>) -> Option<u64> {
    match v? {
        Value::Number(n) => {
            n.as_u64().or_else(|| n.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64))
        }
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// A cost: a non-negative number or numeric string.
pub(crate) fn cost(v: Option<&Value>) -> Option<f64> {
    let f = match v? {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => crate::num::parse_f64(s.trim()),
        _ => None,
    }?;
    (f.is_finite() && f >= 0.0).then_some(f)
}

/// Seconds (a number) as whole milliseconds.
pub(crate) fn seconds_ms(v: Option<&Value>) -> Option<u64> {
    cost(v).map(|s| (s * 1000.0).round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Step;

    #[test]
    fn timestamps_of_the_usual_shapes_are_read() {
        let z = parse_timestamp_ms("2026-05-11T08:27:22.767Z").unwrap();
        assert_eq!(z, 1_778_488_042_767);
        assert_eq!(parse_timestamp_ms("2026-05-11T10:27:22.767+02:00"), Some(z));
        assert_eq!(parse_timestamp_ms("2026-05-11 08:27:22.767123"), Some(z));
        assert_eq!(parse_timestamp_ms("1778488042767000000"), Some(z));
        assert_eq!(parse_timestamp_ms("1778488042767"), Some(z));
        assert_eq!(parse_timestamp_ms("1970-01-01T00:00:00Z"), Some(0));
        for bad in [
            "",
            "yesterday",
            "2026-13-01T00:00:00Z",
            "2026-05-11T08:27:22Q",
            "2026-05",
            "+026-05-11T08:27:22Z",
            "2026-+5-11T08:27:22Z",
            "2026-05-11T08:2a:22Z",
            "2026-05-11T08:27:22+0x:00",
            "2026-05-11T",
        ] {
            assert_eq!(parse_timestamp_ms(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_number_of_up_to_15_digits_is_read_as_the_float_parser_reads_it() {
        // The integer path against the float parser, around every magnitude `epoch_number_ms`
        // tells apart (seconds, milliseconds, microseconds) and past the 15 digits it takes.
        let mut cases = vec!["0".to_string(), "000000000000001".to_string(), "9".repeat(15)];
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for digits in 1..=17u32 {
            for _ in 0..200 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                cases.push(format!("{:0width$}", x % 10u64.pow(digits), width = digits as usize));
            }
        }
        for c in &cases {
            let by_float = epoch_number_ms(crate::num::parse_f64(c).unwrap());
            assert_eq!(parse_timestamp_ms(c), Some(by_float), "{c}");
        }
    }

    fn step(actor: &str, ts: Option<&str>, usage: Option<Usage>) -> Step {
        Step {
            actor: actor.to_string(),
            timestamp: ts.map(Box::from),
            usage: usage.map(Box::new),
            ..Step::default()
        }
    }

    #[test]
    fn totals_are_null_where_nothing_is_recorded_and_sums_elsewhere() {
        let u = |i, o| Usage { input_tokens: Some(i), output_tokens: o, ..Usage::default() };
        let t = Trajectory {
            steps: vec![
                step("", Some("2026-01-01T00:00:00Z"), Some(u(10, Some(2)))),
                step("helper", Some("2026-01-01T00:01:30Z"), None),
                step("helper", Some("2026-01-01T00:01:31Z"), Some(u(5, None))),
            ],
            ..Trajectory::default()
        };
        let s = trajectory_usage(&t);
        assert_eq!(
            (s.input_tokens, s.output_tokens, s.cache_read_tokens),
            (Some(15), Some(2), None)
        );
        assert_eq!((s.duration_ms, s.steps_with_usage, s.cost_usd), (Some(91_000), 2, None));
        let agents = by_agent(&t);
        assert_eq!(agents.len(), 2);
        assert_eq!((agents[1].agent.as_str(), agents[1].usage.input_tokens), ("helper", Some(5)));
        let timing = step_timings(&t);
        assert_eq!(timing[0].gap_ms, Some(90_000));
        assert!(timing[0].stall && !timing[1].stall);
        let none = trajectory_usage(&Trajectory {
            steps: vec![step("", None, None)],
            ..Trajectory::default()
        });
        assert_eq!(none, UsageSummary::default());
    }
}
