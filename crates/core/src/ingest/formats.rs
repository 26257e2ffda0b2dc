//! Format adapters: each turns one source format into canonical [`Trajectory`]s.
//!
//! JSONL formats implement [`JsonlAdapter`] (fed one line at a time, so a 200 MB file streams);
//! single-document formats implement a `from_document` function over a parsed JSON value.

pub mod atif;
pub mod awtl;
pub(crate) mod calls;
pub mod chat;
pub mod claude_code;
pub mod codex;
pub mod eval_zip;
pub mod generic;
pub mod inspect;
pub mod langfuse;
pub mod langsmith;
pub mod mini_swe_agent;
pub mod openai_agents;
pub mod openhands;
pub mod otel;
#[cfg(not(target_arch = "wasm32"))]
pub mod smolagents;
pub mod swe_agent;
pub mod tau2;
pub mod trajerrbench;
pub mod who_and_when;

use serde_json::{Map, Value};

#[cfg(not(target_arch = "wasm32"))]
use crate::ingest::LineParse;
use crate::ingest::Settled;
use crate::model::{ArtifactRef, Format, Outcome, Role, SourceLoc, StepKind, Trajectory};

/// A line-oriented adapter. `push_line` gets one non-blank, valid UTF-8 line; an `Err` is the
/// human-readable reason the line is quarantined.
pub trait JsonlAdapter {
    fn push_line(&mut self, line: &str, loc: SourceLoc, ingest_seq: u64) -> Result<(), String>;

    /// [`JsonlAdapter::push_line`] for a line whose parse was made ahead
    /// ([`crate::ingest::PreparedChunk`]): `Ok` with the same result, or the line's place back
    /// (`Err`) for a parse the adapter does not read (another format's, or any for an adapter
    /// that reads none), whose line the ingestor then pushes.
    #[cfg(not(target_arch = "wasm32"))]
    fn push_parsed(
        &mut self,
        _parsed: LineParse,
        loc: SourceLoc,
        _ingest_seq: u64,
    ) -> Result<Result<(), String>, SourceLoc> {
        Err(loc)
    }

    /// Whether this input's lines are still worth parsing ahead: `false` once too many of
    /// the parses given had to be refused ([`JsonlAdapter::push_parsed`]'s `Err`), each of
    /// those lines parsed twice.
    #[cfg(not(target_arch = "wasm32"))]
    fn parses_ahead_well(&self) -> bool {
        true
    }

    fn finish(self: Box<Self>) -> Vec<Trajectory>;

    /// Trajectories opened so far, for [`crate::ingest::Limits::max_trajectories`] (a format
    /// that does not count them is not limited).
    fn trajectory_count(&self) -> usize {
        0
    }

    /// Whether the trajectories [`JsonlAdapter::finish_with`] gives have distinct ids by
    /// construction (one per id read), so the ingest need not check them.
    fn ids_distinct(&self) -> bool {
        false
    }

    /// Whether the adapter compacts each step as it reads it (`crate::ingest::compact_text`), so
    /// the ingest need not pass over the steps again when the trace is finished.
    fn compacts_steps(&self) -> bool {
        false
    }

    /// Trajectories the format marks complete since the last call, in their final form and
    /// with their final position, handed over early (see [`crate::Ingestor::take_settled`]).
    /// Formats with no end marker settle nothing.
    fn take_settled(&mut self) -> Vec<Settled> {
        Vec::new()
    }

    /// [`JsonlAdapter::finish`] with the settled trajectories given back: the full list, and
    /// the positions of those that changed after they were handed over (a later line of the
    /// same trajectory).
    fn finish_with(self: Box<Self>, returned: Vec<Settled>) -> (Vec<Trajectory>, Vec<usize>) {
        debug_assert!(returned.is_empty(), "this format hands nothing over");
        (self.finish(), Vec::new())
    }

    /// A copy of the first trajectory as read so far, while it is still open (not settled,
    /// not handed over): at most its first `max_steps` steps, the adapter keeping its own (see
    /// [`crate::Ingestor::snapshot_first`]). Formats that cannot say `None`.
    fn snapshot_first(&self, _max_steps: usize) -> Option<Trajectory> {
        None
    }
}

/// A span format's copy of its first trace as read so far (`JsonlAdapter::snapshot_first`):
/// the first `max_steps` spans (in arrival order) of the trace of the first span, assembled as
/// at the end, at most `max_steps` steps; `None` before any span or step.
fn first_trace_copy<S: Clone>(
    spans: &[S],
    trace: impl Fn(&S) -> &String,
    max_steps: usize,
    assemble: impl FnOnce(Vec<S>) -> Vec<Trajectory>,
) -> Option<Trajectory> {
    let first = trace(spans.first()?);
    let spans = spans.iter().filter(|s| trace(s) == first).take(max_steps).cloned().collect();
    let mut copy = assemble(spans).into_iter().next()?;
    copy.steps.truncate(max_steps);
    (!copy.steps.is_empty()).then_some(copy)
}

/// The adapter for a JSONL format.
pub fn jsonl_adapter(format: Format) -> Box<dyn JsonlAdapter> {
    match format {
        Format::Awtl => Box::new(awtl::Awtl::default()),
        Format::ClaudeCode => Box::new(claude_code::ClaudeCode::default()),
        Format::Codex => Box::new(codex::Codex::default()),
        Format::Otel => Box::new(otel::Otel::default()),
        Format::OpenaiAgents => Box::new(openai_agents::OpenaiAgents::default()),
        // A document format whose runs may also come one per line.
        Format::Langsmith => Box::new(langsmith::Lines::default()),
        Format::Langfuse => Box::new(langfuse::Lines::default()),
        #[cfg(not(target_arch = "wasm32"))]
        Format::Smolagents => Box::new(smolagents::Smolagents::default()),
        _ => Box::new(generic::Generic::new(format)),
    }
}

/// Converts one parsed document of a single-document format.
pub fn from_document(format: Format, value: Value) -> Result<Vec<Trajectory>, String> {
    match format {
        Format::WhoAndWhen => who_and_when::from_document(value),
        Format::Trajerrbench => trajerrbench::from_document(value),
        Format::Tau2 => tau2::from_document(value),
        Format::SweAgent => swe_agent::from_document(value),
        Format::MiniSweAgent => mini_swe_agent::from_document(value),
        Format::Openhands => openhands::from_document(value),
        Format::Inspect => inspect::from_document(value),
        Format::Langsmith => langsmith::from_document(value),
        Format::Chat => chat::from_document(value),
        Format::Atif => atif::from_document(value),
        Format::Langfuse => langfuse::from_document(value),
        // A line format whose batch may also come as one pretty-printed document.
        Format::OpenaiAgents => openai_agents::from_document(value),
        #[cfg(not(target_arch = "wasm32"))]
        Format::Smolagents => smolagents::from_document(value),
        f if f.is_jsonl() => Err(format!("{f} is a line format, not a document")),
        f => Err(format!("the {f} format is not supported yet")),
    }
}

/// The document as an object, or the reason it is not one.
pub(crate) fn as_object<'a>(v: &'a Value, what: &str) -> Result<&'a Map<String, Value>, String> {
    v.as_object().ok_or_else(|| format!("{what} is {}, not an object", json_kind(v)))
}

/// [`as_object`] naming `what` only when it is not one: for the elements of a list, whose
/// names are built per element (a `format!` per message cost a twentieth of a chat file's read).
pub(crate) fn object_or(
    v: &Value,
    what: impl FnOnce() -> String,
) -> Result<&Map<String, Value>, String> {
    match v {
        Value::Object(o) => Ok(o),
        other => as_object(other, &what()),
    }
}

/// An array member of an object, or the reason it is missing.
pub(crate) fn array_field<'a>(
    o: &'a Map<String, Value>,
    key: &str,
    what: &str,
) -> Result<&'a Vec<Value>, String> {
    match o.get(key) {
        Some(Value::Array(a)) => Ok(a),
        Some(other) => Err(format!("{what} `{key}` is {}, not a list", json_kind(other))),
        None => Err(format!("{what} has no `{key}` list")),
    }
}

/// The text of tool calls that came with no text of their own: `name(arguments)`, one a line.
pub(crate) fn calls_text(names: &[String], args: &[String]) -> String {
    names.iter().zip(args).map(|(n, a)| format!("{n}({a})")).collect::<Vec<_>>().join("\n")
}

/// A span's id, its agent's name (if the span is an agent's) and its parent span's id.
pub(crate) type SpanLink<'a> = (Option<&'a str>, Option<&'a str>, Option<&'a str>);

/// The agent each span runs under: its own, else the nearest ancestor's (at most 64 levels up,
/// so a cycle of parent ids ends); empty for a span under no agent.
pub(crate) fn span_actors(links: &[SpanLink]) -> Vec<String> {
    // Span id → its link.
    let by_id: crate::attribution::text::FastMap<&str, usize> =
        links.iter().enumerate().filter_map(|(i, &(id, ..))| Some((id?, i))).collect();
    let actor = |&(_, own, parent): &SpanLink| {
        let (mut actor, mut cursor, mut hops) = (own, parent, 0);
        while actor.is_none() && hops < 64 {
            let Some(&(_, agent, up)) = cursor.and_then(|p| by_id.get(p)).map(|&i| &links[i])
            else {
                break;
            };
            actor = agent;
            cursor = up;
            hops += 1;
        }
        actor.unwrap_or_default().to_string()
    };
    links.iter().map(actor).collect()
}

/// A JSON value's kind in words, for error messages.
pub(crate) fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// The readable text of a message `content`: a string as it is; a list of content parts
/// (`{"type":"text","text":...}` and the like) joined by newlines; anything else as JSON.
pub(crate) fn content_text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Array(parts) => {
            let mut out = String::new();
            for p in parts {
                let t = match p {
                    Value::Object(o) => {
                        get(o, &["text", "content", "thinking", "reasoning", "refusal"])
                            .map(content_text)
                            .unwrap_or_else(|| crate::json::to_text(p))
                    }
                    other => content_text(other),
                };
                if t.is_empty() {
                    continue;
                }
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(&t);
            }
            out
        }
        Value::Object(o) => match get(o, &["text", "content"]) {
            Some(inner) => content_text(inner),
            None => crate::json::to_text(v),
        },
        other => crate::json::to_text(other),
    }
}

/// A conventional chat role word.
pub(crate) fn role_word(word: &str) -> Role {
    match word.to_ascii_lowercase().as_str() {
        "system" | "developer" => Role::System,
        "user" | "human" => Role::User,
        "assistant" | "ai" | "agent" | "model" => Role::Assistant,
        "tool" | "function" | "ipython" | "observation" => Role::Tool,
        "judge" | "grader" | "scorer" => Role::Judge,
        "environment" | "env" => Role::Environment,
        _ => Role::Other,
    }
}

/// An outcome from a numeric reward: full reward passes, anything less fails.
pub(crate) fn reward_outcome(v: &Value) -> Outcome {
    match v.as_f64().or_else(|| v.as_str().and_then(|s| crate::num::parse_f64(s.trim()))) {
        Some(r) if r >= 1.0 => Outcome::Passed,
        Some(r) if r.is_finite() => Outcome::Failed,
        _ => Outcome::Unknown,
    }
}

/// The first verdict among `places` (objects of a record, in order): a boolean `resolved`,
/// `success`, `passed`, `is_correct` or `correct` (`false` fails), else a numeric `reward` or
/// `score` (full reward passes, less fails); `unknown` without one.
pub(crate) fn verdict<'a>(places: impl IntoIterator<Item = &'a Map<String, Value>>) -> Outcome {
    for place in places {
        // `true` / `false`, or their text in any case (`"False"`, as Python's `str` writes it).
        let flag = get(place, &["resolved", "success", "passed", "is_correct", "correct"]);
        if let Some(ok) = value_bool(flag) {
            return if ok { Outcome::Passed } else { Outcome::Failed };
        }
        if let Some(r) = get(place, &["reward", "score"]) {
            let outcome = reward_outcome(r);
            if outcome != Outcome::Unknown {
                return outcome;
            }
        }
    }
    Outcome::Unknown
}

/// A boolean from `true` / `false`, or from the text `"true"` / `"false"` in any case (as
/// Python's `str(True)` and CSV exports write it); anything else is no boolean.
pub(crate) fn value_bool(v: Option<&Value>) -> Option<bool> {
    match v? {
        Value::Bool(b) => Some(*b),
        Value::String(s) if s.trim().eq_ignore_ascii_case("true") => Some(true),
        Value::String(s) if s.trim().eq_ignore_ascii_case("false") => Some(false),
        _ => None,
    }
}

/// A gold label whose step is past the trajectory's last step names no step of it: that step
/// is dropped (so `eval` does not score against it; the label's agent, reason and category
/// stay) and the returned note says so, for the trace's `error`. Checked where a record
/// becomes its trajectory, after it is named, so a trajectory handed over early is final.
pub(crate) fn check_gold(t: &mut Trajectory) -> Option<String> {
    let gold = t.gold.as_mut()?;
    let step = gold.step.filter(|&s| s as usize >= t.steps.len())?;
    gold.step = None;
    if *gold == crate::model::GoldLabel::default() {
        t.gold = None;
    }
    Some(format!(
        "trajectory {}: its gold step {step} is past its last step (it has {} steps): not used \
         as a gold step",
        t.id,
        t.steps.len()
    ))
}

/// A non-negative step index from a number or a numeric string (`"12"`).
pub(crate) fn value_index(v: &Value) -> Option<u32> {
    match v {
        Value::Number(n) => n.as_u64().and_then(|n| u32::try_from(n).ok()),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// `t` with its task (the first user message) and final answer (the last step, when it is an
/// assistant's message that calls no tool) filled in from its steps.
pub(crate) fn settle(mut t: Trajectory) -> Trajectory {
    t.task = t.steps.iter().find(|s| s.role == Role::User).map(|s| s.text.clone());
    t.final_answer = t
        .steps
        .last()
        .filter(|s| s.role == Role::Assistant && s.kind == StepKind::Message)
        .map(|s| s.text.clone())
        .filter(|a| !a.is_empty());
    t
}

/// `base`'s place with a JSON path suffix (`$.post[0]`, `$.child_runs[1]`): its line and offset
/// kept, its path (`$` for a line of its own) extended.
pub(crate) fn at(base: &SourceLoc, suffix: &str) -> SourceLoc {
    let path = if base.path.is_empty() { "$" } else { &base.path };
    SourceLoc { path: format!("{path}{suffix}").into(), ..base.clone() }
}

/// A JSON path segment for a list element: `$.history[3]`.
pub(crate) fn path_at(base: &str, key: &str, i: usize) -> SourceLoc {
    SourceLoc { line: 0, offset: 0, path: format!("{base}.{key}[{i}]").into() }
}

/// Parses a line as JSON, with a reason fit for the quarantine on failure. Two things are
/// valid JSON that the parser refuses, and are read instead of refused ([`mended`]): a number
/// too large for a 64-bit float (`1e400`, a 5,000-digit integer), kept as its text (a JSON
/// string of its digits), and a `\u` escape of half a UTF-16 surrogate pair, read as U+FFFD.
/// And one thing that is not JSON but that Python's `json` writes and reads: `NaN`, `Infinity`
/// and `-Infinity`, kept as their text too.
pub fn parse_value(text: &str) -> Result<Value, String> {
    match crate::json::from_str(text) {
        Ok(v) => Ok(v),
        Err(_) if is_plain_text(text) => Err(PLAIN_TEXT.to_string()),
        // A line refused at a huge number, a lone surrogate or Python's `NaN` / `Infinity` is
        // looked at once more (once: what [`mended`] gives has nothing to mend): Python's
        // `json` writes lone surrogates for text it decoded with `surrogateescape` (a command's
        // output that was not UTF-8), and reads them back, as JavaScript's `JSON.parse` does;
        // UTF-8 cannot hold them.
        Err(e) => {
            let msg = super::describe_json_error(&e);
            match mendable(&msg, text).then(|| mended(text)).flatten() {
                // Still refused: the reason is the mended text's (the same columns unless a
                // number before the fault was quoted: two bytes further each).
                Some(t) => parse_value(&t),
                None => Err(reason_of(&e, &msg)),
            }
        }
    }
}

/// The reason of a line that is text, not JSON at all: a log line, a traceback, a banner
/// printed into the file between its records. Said as such rather than with the JSON parser's
/// complaint about its first character.
pub const PLAIN_TEXT: &str = "not JSON: a plain-text line (a log line?)";

/// Whether a line that failed to parse is prose rather than damaged JSON: it does not open an
/// object or a string, and outside double-quoted strings it holds a word (two letters or more)
/// other than JSON's only bare words `true`, `false` and `null`. `2026-12-01 10:00:00 INFO
/// starting agent`, `[INFO] ready`, `Traceback (most recent call last):` are; `{"a": 1,` and
/// `[1, 2` are not, nor a line with control characters other than tab and carriage return
/// (binary damage, such as a zip header glued to a record, is not text).
fn is_plain_text(text: &str) -> bool {
    let t = text.trim_start();
    if t.is_empty()
        || t.starts_with(['{', '"'])
        || t.chars().any(|c| c.is_control() && !matches!(c, '\t' | '\r'))
    {
        return false;
    }
    let (mut in_string, mut escaped, mut word) = (false, false, String::new());
    let bare_word = |w: &str| w.chars().count() >= 2 && !matches!(w, "true" | "false" | "null");
    for c in t.chars() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        if c.is_alphabetic() {
            word.push(c);
            continue;
        }
        if bare_word(&word) {
            return true;
        }
        word.clear();
        in_string = c == '"';
    }
    bare_word(&word)
}

/// A whole document, with [`parse_value`]'s treatment of huge numbers, lone surrogates and
/// Python's non-finite floats; the error is the original one (its position is the file's).
pub fn parse_document(bytes: &[u8]) -> Result<Value, serde_json::Error> {
    match serde_json::from_slice(bytes) {
        Err(e) => std::str::from_utf8(bytes)
            .ok()
            .filter(|text| mendable(&super::describe_json_error(&e), text))
            .and_then(mended)
            .and_then(|t| crate::json::from_str(&t).ok())
            .ok_or(e),
        other => other,
    }
}

/// Whether the parser refused at something [`mended`] rewrites (a huge number, a lone
/// surrogate's escape, on a line that holds one, Python's `NaN` or `Infinity`): any other
/// refusal is not scanned again (a file of damaged lines spent a sixteenth of its time in that
/// scan).
fn mendable(msg: &str, text: &str) -> bool {
    ["number out of range", "lone leading surrogate", "unexpected end of hex escape"]
        .iter()
        .any(|m| msg.starts_with(m))
        || (["expected value", "invalid number"].iter().any(|m| msg.starts_with(m))
            && (text.contains("NaN") || text.contains("Infinity")))
}

/// The JSON text with every number that overflows a 64-bit float written as a string of its
/// text, so is each `NaN`, `Infinity` and `-Infinity` (Python's `json.dumps` writes them for
/// floats that are not finite; they are not JSON), and each `\u` escape of a lone surrogate
/// (U+D800 to U+DFFF, not a high one followed by a low one) written `\uFFFD`; `None` when there
/// is none of them (a line may hold several: the parser names only the first it meets). A
/// surrogate escape and its replacement are both six bytes: with no token quoted, every other
/// byte stays in place.
fn mended(text: &str) -> Option<String> {
    let b = text.as_bytes();
    // The code unit of a `\uXXXX` escape at `at`.
    let unit = |at: usize| match b.get(at..at + 6)? {
        [b'\\', b'u', hex @ ..] => {
            hex.iter().try_fold(0, |n, &c| Some(n * 16 + char::from(c).to_digit(16)?))
        }
        _ => None,
    };
    let is = |at: usize, lo: u32, hi: u32| unit(at).is_some_and(|u| (lo..hi).contains(&u));
    let mut out = String::new();
    let (mut i, mut copied) = (0, 0);
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    if b[i] != b'\\' {
                        i += 1;
                    } else if is(i, 0xD800, 0xDC00) && is(i + 6, 0xDC00, 0xE000) {
                        i += 12;
                    } else if is(i, 0xD800, 0xE000) {
                        out.push_str(&text[copied..i + 2]);
                        out.push_str("FFFD");
                        i += 6;
                        copied = i;
                    } else {
                        i += 2;
                    }
                }
                i += 1;
            }
            // A number, or Python's `NaN`, `Infinity`, `-Infinity` (a word that is not one of
            // them does not parse as a float, and is left as it is).
            b'-' | b'0'..=b'9' | b'N' | b'I' => {
                let start = i;
                i += 1;
                while i < b.len()
                    && (b[i].is_ascii_alphanumeric() || matches!(b[i], b'.' | b'+' | b'-'))
                {
                    i += 1;
                }
                let token = &text[start..i];
                if crate::num::parse_f64(token).is_some_and(|f| !f.is_finite()) {
                    out.push_str(&text[copied..start]);
                    out.push('"');
                    out.push_str(token);
                    out.push('"');
                    copied = i;
                }
            }
            _ => i += 1,
        }
    }
    // Something was rewritten exactly when something was copied.
    if copied == 0 {
        return None;
    }
    out.push_str(&text[copied.min(text.len())..]);
    Some(out)
}

/// Arrays and objects nested deeper than this are refused, by every adapter alike (the JSON
/// parser's own recursion limit: 127 levels parse, 128 do not).
pub const MAX_NESTING: usize = 127;

/// The quarantine reason for a line nested deeper than [`MAX_NESTING`].
pub const TOO_DEEP: &str = "JSON nested deeper than the parser allows (128 levels)";

/// Whether a JSON text nests arrays and objects deeper than [`MAX_NESTING`] (outside strings).
/// Cheap for ordinary lines: fewer opening brackets than the limit cannot nest that deep.
pub fn too_deep(text: &str) -> bool {
    let b = text.as_bytes();
    if memchr::memchr2_iter(b'{', b'[', b).nth(MAX_NESTING).is_none() {
        return false;
    }
    let (mut depth, mut i) = (0usize, 0);
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'{' | b'[' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return true;
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    false
}

/// Parses a line that must be a JSON object.
pub fn parse_object(text: &str) -> Result<serde_json::Map<String, Value>, String> {
    match parse_value(text)? {
        Value::Object(o) => Ok(o),
        other => Err(super::not_an_object_reason(&other)),
    }
}

/// The quarantine reason for a JSON parse error.
pub fn json_reason(e: &serde_json::Error) -> String {
    reason_of(e, &super::describe_json_error(e))
}

/// [`json_reason`] from the parser's message already worked out.
fn reason_of(e: &serde_json::Error, msg: &str) -> String {
    if msg.contains("recursion limit") {
        return TOO_DEEP.to_string();
    }
    if e.is_eof() {
        return format!("invalid JSON: the line ends inside a value ({msg})");
    }
    format!("invalid JSON at column {}: {msg}", e.column())
}

/// The value of the first of `keys` that has one (not null): snake_case and camelCase
/// spellings, or the names several conventions give the same thing.
pub fn get<'a>(o: &'a serde_json::Map<String, Value>, keys: &[&str]) -> Option<&'a Value> {
    keys.iter().find_map(|k| o.get(*k).filter(|v| !v.is_null()))
}

/// First present key as text: strings as they are, other values as compact JSON.
pub fn get_text(o: &serde_json::Map<String, Value>, keys: &[&str]) -> Option<String> {
    get(o, keys).map(value_text)
}

/// A value as display text: a string as it is, anything else as compact JSON.
pub fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => json_text(other),
    }
}

/// A value as compact JSON text. Integers (timestamps, sequence numbers: most of the
/// non-string values in a trace) take the integer formatter, which sizes its string exactly,
/// instead of the general writer; the text is the same.
pub fn json_text(v: &Value) -> String {
    match v {
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => u.to_string(),
            (None, Some(i)) => i.to_string(),
            (None, None) => n.to_string(),
        },
        other => crate::json::to_text(other),
    }
}

/// An integer from a number or a numeric string.
pub fn value_i64(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64().or_else(|| n.as_f64().map(|f| f as i64)),
        Value::String(s) => s.trim().parse().ok(),
        Value::Bool(b) => Some(*b as i64),
        _ => None,
    }
}

/// A list of strings from a string or an array of strings (other items as JSON text).
pub fn value_strings(v: &Value) -> Vec<String> {
    match v {
        Value::Array(items) => items.iter().map(value_text).collect(),
        Value::Null => Vec::new(),
        other => vec![value_text(other)],
    }
}

/// Normalises an artifact reference with no known trace root; flags one that escapes it (never
/// resolved). See [`crate::artifact`].
pub fn artifact_ref(raw: &str) -> ArtifactRef {
    crate::artifact::classify(raw)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_span_runs_under_its_own_agent_or_the_nearest_ancestors() {
        let links: [SpanLink; 7] = [
            (Some("run"), Some("Triage"), None),
            (Some("tool"), None, Some("run")),
            (Some("deep"), None, Some("tool")),
            (Some("sub"), Some("Refunds"), Some("run")),
            (Some("a"), None, Some("b")),
            (Some("b"), None, Some("a")),
            (None, None, Some("gone")),
        ];
        let actors = span_actors(&links);
        assert_eq!(actors[..4], ["Triage", "Triage", "Triage", "Refunds"]);
        assert_eq!(actors[4..], ["", "", ""], "a cycle of parents ends; an unknown parent is none");
    }

    #[test]
    fn json_text_writes_numbers_as_the_json_writer_does() {
        for text in [
            "0",
            "-1",
            "1700003600000",
            "18446744073709551615",
            "-9223372036854775808",
            "2.5",
            "1e300",
            "[1,\"a\"]",
            "true",
            "null",
        ] {
            let v: Value = serde_json::from_str(text).expect("valid JSON");
            assert_eq!(json_text(&v), v.to_string(), "{text}");
        }
        assert_eq!(json_text(&Value::from(u64::MAX)), "18446744073709551615");
    }

    /// Any sequence of UTF-16 code units written as `\u` escapes (Python's `json.dumps` of a
    /// string holding lone surrogates) reads as `String::from_utf16_lossy` decodes the units:
    /// pairs as their character, each lone surrogate as U+FFFD. Huge numbers beside them too.
    #[test]
    fn escaped_lone_surrogates_read_as_replacement_characters() {
        use proptest::prelude::*;
        let surrogates = prop_oneof![0xD800u16..0xE000, 0u16..0x80, any::<u16>()];
        proptest!(|(units in prop::collection::vec(surrogates, 0..24), huge in any::<bool>())| {
            let escaped: String = units.iter().map(|u| format!("\\u{u:04x}")).collect();
            let number = if huge { "1e400" } else { "1" };
            let line = format!("{{\"text\":\"{escaped}\",\"n\":{number}}}");
            let v = parse_value(&line).map_err(TestCaseError::fail)?;
            let decoded = String::from_utf16_lossy(&units);
            prop_assert_eq!(v["text"].as_str(), Some(decoded.as_str()));
            prop_assert_eq!(v["n"].is_string(), huge);
            let doc = parse_document(line.as_bytes())
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(doc, v);
        });
    }

    #[test]
    fn only_escapes_of_lone_surrogates_are_rewritten() {
        let cases = [
            // An escaped backslash before `ud800` is text, not an escape.
            (r#"{"a":"\\ud800"}"#, None),
            (r#"{"a":"\ud83d\ude00 ok"}"#, None),
            (r#"{"a":"\ud83d x"}"#, Some(r#"{"a":"\uFFFD x"}"#)),
            (r#"{"a":"\ude00\ud83d"}"#, Some(r#"{"a":"\uFFFD\uFFFD"}"#)),
            (r#"{"a":"\\\udc80"}"#, Some(r#"{"a":"\\\uFFFD"}"#)),
            (r#"{"a":"\ud800\ud83d\ude00"}"#, Some(r#"{"a":"\uFFFD\ud83d\ude00"}"#)),
            // Cut short: no panic, nothing rewritten that is not a whole escape.
            (r#"{"a":"x\"#, None),
            (r#"{"a":"\ud8"#, None),
            (r#"{"a":"\udc0"#, None),
        ];
        for (text, want) in cases {
            assert_eq!(mended(text).as_deref(), want, "{text}");
        }
        // A line that is broken otherwise keeps the parser's reason for it.
        let reason = parse_value(r#"{"a":"\ud800", "b": }"#).unwrap_err();
        assert_eq!(reason, "invalid JSON at column 21: expected value");
    }

    #[test]
    fn artifact_refs_that_leave_the_root_are_flagged() {
        assert!(!artifact_ref("src/./a/../b.rs").escapes_root);
        assert_eq!(artifact_ref("src/./a/../b.rs").normalized, "src/b.rs");
        assert!(artifact_ref("../secret").escapes_root);
        assert!(artifact_ref("a/../../secret").escapes_root);
        assert!(artifact_ref("/etc/passwd").escapes_root);
        assert!(artifact_ref("file:///etc/passwd").escapes_root);
        assert!(artifact_ref("C:\\Windows\\x").escapes_root);
        assert!(!artifact_ref("artifact:build-output").escapes_root);
    }
}
