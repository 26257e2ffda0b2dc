//! AWTL, the native event format (docs/formats.md): one JSON object per line with `type` one of
//! `action`, `observation`, `judge_result`, `memory_read`, `artifact`, `run_start`, `run_end`,
//! `message`. snake_case and camelCase keys are both accepted.
//!
//! Steps are grouped into one trajectory per `run_id` (a file without run ids is one run), in
//! canonical order: `writer_seq` where present, else arrival order.
//!
//! Hot path: a line is read straight into [`Fields`] — only the keys AWTL knows, strings
//! borrowed from the line when they hold no escapes, every other key skipped without building a
//! value. A line that does not read that way (not an object, too deep, bad JSON) goes through
//! the `serde_json::Value` path, which gives the quarantine its reason (and reads any valid
//! object the same way). Very long texts are kept as a head and a tail (see
//! [`crate::ingest::compact_text`]).

use std::borrow::Cow;
use std::collections::HashMap;

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::{artifact_ref, parse_object, JsonlAdapter};
#[cfg(not(target_arch = "wasm32"))]
use crate::ingest::LineParse;
use crate::ingest::{compact_text, Settled};
use crate::model::{Outcome, Role, SourceLoc, Step, StepIds, StepKind, Trajectory};

#[derive(Default)]
pub struct Awtl {
    runs: Vec<Run>,
    /// Run id → its position in `runs`, so a line finds its run in constant time however many
    /// runs the file holds (see [`RunIndex`]).
    by_id: RunIndex,
    /// Runs whose `run_end` was read and that are not handed over yet (positions in `runs`).
    ended: Vec<usize>,
}

/// Run ids → positions in `runs`, keyed by the id's hash: SipHash with this process's random
/// keys (the ids are untrusted), computed once per id, so the table stores no copy of the id and
/// grows without hashing every id again. An id whose hash an earlier, different id already holds
/// (practically never) goes to `collided`, keyed by the id itself.
#[derive(Default)]
struct RunIndex {
    keys: std::hash::RandomState,
    by_hash: ByHash,
    collided: HashMap<String, usize>,
}

/// The table of the ids' hashes, keyed by the hash as it is. The web build uses the detector's
/// map type instead (a hash of a hash is one multiply there): one table type less in the bundle
/// (docs/performance.md, "Bundle").
#[cfg(not(target_arch = "wasm32"))]
type ByHash = HashMap<u64, usize, std::hash::BuildHasherDefault<HashIs>>;
#[cfg(target_arch = "wasm32")]
type ByHash = crate::attribution::text::FastMap<u64, usize>;

impl RunIndex {
    /// The position of the run `id` (looked up in `runs`), or the id's hash to insert it with.
    fn get(&self, id: &str, runs: &[Run]) -> Result<usize, u64> {
        use std::hash::BuildHasher as _;
        let hash = self.keys.hash_one(id);
        match self.by_hash.get(&hash) {
            Some(&i) if runs[i].id == id => Ok(i),
            Some(_) => self.collided.get(id).copied().ok_or(hash),
            None => Err(hash),
        }
    }

    /// Adds the run `id` at `position`, `hash` as [`RunIndex::get`] gave it.
    fn insert(&mut self, hash: u64, id: &str, position: usize) {
        match self.by_hash.entry(hash) {
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(position);
            }
            std::collections::hash_map::Entry::Occupied(_) => {
                self.collided.insert(id.to_string(), position);
            }
        }
    }
}

/// A hasher for keys that are already hashes: the `u64` as it is.
#[cfg(not(target_arch = "wasm32"))]
#[derive(Default)]
struct HashIs(u64);

#[cfg(not(target_arch = "wasm32"))]
impl std::hash::Hasher for HashIs {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only `u64` keys are hashed with it; any other input still hashes deterministically.
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

#[derive(Default)]
struct Run {
    id: String,
    /// As the run's events say (`run_end`); a missing one is inferred when the run is finished.
    outcome: Outcome,
    task: Option<String>,
    final_answer: Option<String>,
    /// The run's steps in arrival order; once the run is handed over, only those read after.
    steps: Vec<Step>,
    ended: bool,
    handed_over: bool,
}

/// A line read ahead of its turn, on another thread ([`crate::ingest::PreparedChunk`]): its
/// step (place and arrival order set when it is applied) and the task and answer a run's start
/// or end carries. What [`parse`] gives depends on the line's text alone.
pub struct Parsed {
    step: Step,
    task: Option<String>,
    answer: Option<String>,
}

/// A line's step, or why the line cannot be read: the pure half of [`Awtl::push_line`] (the
/// other half, [`Awtl::apply`], files the step under its run).
pub fn parse(line: &str) -> Result<Parsed, String> {
    parse_at(line, SourceLoc::default(), 0)
}

/// [`parse`], the step placed at `loc` and `ingest_seq` (a line parsed in its turn).
#[inline(always)]
fn parse_at(line: &str, loc: SourceLoc, ingest_seq: u64) -> Result<Parsed, String> {
    let value;
    let f = match crate::json::from_str::<Fields>(line) {
        // Skipped values are not depth-checked by the parser: the one verdict on nesting
        // every adapter gives (see `super::too_deep`).
        Ok(_) if super::too_deep(line) => return Err(super::TOO_DEEP.to_string()),
        Ok(f) => f,
        Err(_) => {
            // The reason comes from the general parser; a valid object reads the same way.
            value = Value::Object(parse_object(line)?);
            Fields::deserialize(&value).map_err(|e| e.to_string())?
        }
    };
    let source_len = line.len() as u64;
    let kind = kind_of(&f);
    // Only a run's start and end carry its task and answer.
    let (task, answer) = match kind {
        StepKind::RunStart | StepKind::RunEnd => run_fields(&f),
        _ => (None, None),
    };
    let step = step_of_kind(f, kind, loc, ingest_seq, source_len);
    Ok(Parsed { step, task, answer })
}

impl Parsed {
    /// What a parse made ahead could not know: where the line is and when it came.
    #[cfg(not(target_arch = "wasm32"))]
    fn place(&mut self, loc: SourceLoc, ingest_seq: u64) {
        let step = &mut self.step;
        for e in
            [step.text_elided.as_deref_mut(), step.args_elided.as_deref_mut()].into_iter().flatten()
        {
            e.source_offset = loc.offset;
        }
        step.loc = loc;
        step.ingest_seq = ingest_seq;
    }
}

impl Awtl {
    /// Files a parsed line's step under its run.
    #[inline(always)]
    fn apply(&mut self, parsed: Parsed) {
        let Parsed { step, task, answer } = parsed;
        let run_id = step.ids.run_id.as_deref().unwrap_or_default();
        // Most lines belong to the run of the line before: checked first, without hashing.
        let position = match self.runs.last() {
            Some(last) if last.id == run_id => self.runs.len() - 1,
            _ => match self.by_id.get(run_id, &self.runs) {
                Ok(i) => i,
                Err(hash) => {
                    self.runs.push(Run { id: run_id.to_string(), ..Run::default() });
                    self.by_id.insert(hash, run_id, self.runs.len() - 1);
                    self.runs.len() - 1
                }
            },
        };
        let run = &mut self.runs[position];
        match step.kind {
            StepKind::RunStart => run.task = task.or(run.task.take()),
            StepKind::RunEnd => {
                run.outcome = outcome_word(step.status.as_deref()).unwrap_or(run.outcome);
                run.final_answer = answer.or(run.final_answer.take());
                if !run.ended && !run.handed_over {
                    run.ended = true;
                    self.ended.push(position);
                }
            }
            _ => {}
        }
        if run.steps.capacity() == 0 {
            // A new run's first step: room for one, not the default four (a file of 100,000
            // one-step runs would hold three unused steps per run).
            run.steps.reserve_exact(1);
        } else if cfg!(not(target_arch = "wasm32"))
            && run.steps.len() == run.steps.capacity()
            && run.steps.len() >= BIG_RUN_STEPS
        {
            // A very long run grows fourfold, not twofold: each growth writes the steps into
            // fresh pages (a page fault each) and the old ones are freed, so doubling a run of
            // 1,000,000 steps wrote 1 GB for 0.5 GB of steps. Natively the room not yet used is
            // only address space; in wasm32 memory it would be taken, so there it doubles.
            run.steps.reserve_exact(run.steps.len() * 3);
        }
        run.steps.push(step);
    }
}

impl JsonlAdapter for Awtl {
    fn push_line(&mut self, line: &str, loc: SourceLoc, ingest_seq: u64) -> Result<(), String> {
        self.apply(parse_at(line, loc, ingest_seq)?);
        Ok(())
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn push_parsed(
        &mut self,
        parsed: LineParse,
        loc: SourceLoc,
        ingest_seq: u64,
    ) -> Result<Result<(), String>, SourceLoc> {
        let LineParse::Awtl(parsed) = parsed else { return Err(loc) };
        Ok(parsed.map(|mut parsed| {
            parsed.place(loc, ingest_seq);
            self.apply(parsed);
        }))
    }

    fn finish(self: Box<Self>) -> Vec<Trajectory> {
        self.finish_with(Vec::new()).0
    }

    fn trajectory_count(&self) -> usize {
        self.runs.len()
    }

    /// One run per `run_id` read ([`RunIndex`]), each keeping its id, unless a run had none:
    /// that one is named `run-N` after its place ([`finished`]), which another run may be.
    fn ids_distinct(&self) -> bool {
        self.by_id.get("", &self.runs).is_err()
    }

    /// Every step is compacted as its line is read ([`step_of_kind`]).
    fn compacts_steps(&self) -> bool {
        true
    }

    /// A run is settled when its `run_end` is read. A later line of the same run (rare: a
    /// writer that logs after the end) reopens it: it is merged back when finishing and
    /// reported as changed.
    fn take_settled(&mut self) -> Vec<Settled> {
        std::mem::take(&mut self.ended)
            .into_iter()
            .map(|position| {
                let run = &mut self.runs[position];
                run.handed_over = true;
                let steps = std::mem::take(&mut run.steps);
                // What a later line may update starts again from nothing (`finished` takes the
                // task and answer); the trajectory keeps the values read so far (merged back in
                // `finish_with`). The id stays: later lines of the run are matched by it.
                let id = run.id.clone();
                let trajectory = finished(position, run, id, steps);
                Settled { position, trajectory }
            })
            .collect()
    }

    /// The first run while its `run_end` is not read: its first steps copied (in the order
    /// [`finished`] gives them, numbered from 0), its id and task as far as read. The
    /// run itself is untouched: it settles, or is finished, as without the copy.
    fn snapshot_first(&self, max_steps: usize) -> Option<Trajectory> {
        let run = self.runs.first().filter(|r| !r.ended && !r.handed_over)?;
        let steps = run.steps[..run.steps.len().min(max_steps)].to_vec();
        // Its outcome and final answer are a `run_end`'s, not read yet: the defaults.
        let mut copy = Run { task: run.task.clone(), ..Run::default() };
        Some(finished(0, &mut copy, run.id.clone(), steps))
    }

    fn finish_with(self: Box<Self>, returned: Vec<Settled>) -> (Vec<Trajectory>, Vec<usize>) {
        // Matched to their runs in order of position, not through a slot per run (a list of
        // 100,000 empty trajectories was 19 MB written when nothing settled).
        let mut returned = returned;
        if !returned.is_sorted_by_key(|s| s.position) {
            crate::sort::sort_by_key(&mut returned, |s| s.position);
        }
        let mut returned = returned.into_iter().peekable();
        let mut changed = Vec::new();
        let trajectories = self
            .runs
            .into_iter()
            .enumerate()
            .map(|(i, mut run)| match returned.next_if(|s| s.position == i).map(|s| s.trajectory) {
                None => {
                    debug_assert!(!run.handed_over, "a handed-over run must be given back");
                    let steps = std::mem::take(&mut run.steps);
                    let id = std::mem::take(&mut run.id);
                    finished(i, &mut run, id, steps)
                }
                Some(t) if run.steps.is_empty() => t,
                Some(t) => {
                    // Reopened: its steps again in arrival order, the later ones after them.
                    changed.push(i);
                    let mut steps = t.steps;
                    crate::sort::sort_by_key(&mut steps, |s| s.ingest_seq);
                    steps.append(&mut run.steps);
                    run.task = run.task.or(t.task);
                    run.final_answer = run.final_answer.or(t.final_answer);
                    let id = std::mem::take(&mut run.id);
                    finished(i, &mut run, id, steps)
                }
            })
            .collect();
        (trajectories, changed)
    }
}

/// From this many steps (about 32 MB of them) a run's step list grows fourfold (natively).
const BIG_RUN_STEPS: usize = 1 << 16;

/// A run as a trajectory: steps in canonical order and indexed, outcome and id settled. The
/// run's task and final answer move into it (no copy per trajectory).
fn finished(position: usize, run: &mut Run, id: String, mut steps: Vec<Step>) -> Trajectory {
    // Steps arrive in ingest_seq order. Mixed or absent writer_seq: arrival order is the only
    // total order; else writer_seq (skipping the sort, and its buffer of half the steps, when
    // the writer's order is the arrival order).
    // One pass numbers the steps and sees whether a sort is needed (a long run's steps are
    // hundreds of MB: each pass over them is a read of all that memory); a sort numbers them
    // again.
    let key = |s: &Step| (s.writer_seq.unwrap_or(u64::MAX), s.ingest_seq);
    let (mut all_seq, mut sorted, mut last) = (true, true, (0, 0));
    for (idx, s) in steps.iter_mut().enumerate() {
        s.index = idx as u32;
        all_seq &= s.writer_seq.is_some();
        let k = key(s);
        sorted &= last <= k;
        last = k;
    }
    if all_seq && !sorted {
        crate::sort::sort_by_key(&mut steps, key);
        for (idx, s) in steps.iter_mut().enumerate() {
            s.index = idx as u32;
        }
    }
    let outcome = match run.outcome {
        Outcome::Unknown => inferred_outcome(&steps),
        known => known,
    };
    let id = if id.is_empty() { format!("run-{}", position + 1) } else { id };
    Trajectory {
        id,
        outcome,
        task: run.task.take(),
        final_answer: run.final_answer.take(),
        gold: None,
        steps,
        usage: None,
    }
}

/// The last verdict decides when no `run_end` says: a failed judge result that no later judge
/// passed means the run failed.
fn inferred_outcome(steps: &[Step]) -> Outcome {
    steps
        .iter()
        .rev()
        .filter(|s| s.kind == StepKind::JudgeResult)
        .find_map(|s| outcome_word(s.status.as_deref()))
        .unwrap_or(Outcome::Unknown)
}

fn outcome_word(word: Option<&str>) -> Option<Outcome> {
    // Compared in any ASCII case, without a lower-cased copy (every step with a status asks).
    const FAILED: [&str; 7] =
        ["failed", "fail", "failure", "error", "errored", "rejected", "timeout"];
    const PASSED: [&str; 7] =
        ["passed", "pass", "success", "succeeded", "ok", "accepted", "completed"];
    let word = word?;
    if FAILED.iter().any(|w| w.eq_ignore_ascii_case(word)) {
        Some(Outcome::Failed)
    } else if PASSED.iter().any(|w| w.eq_ignore_ascii_case(word)) {
        Some(Outcome::Passed)
    } else {
        None
    }
}

/// The run's task (`run_start`) and final answer (`run_end`), read before the step takes the
/// line's texts.
fn run_fields(f: &Fields<'_>) -> (Option<String>, Option<String>) {
    (
        f.text(&[K::Task, K::Goal, K::Prompt]),
        f.text(&[K::FinalAnswer, K::FinalAnswerCamel, K::Answer]),
    )
}

macro_rules! keys {
    ($($name:ident = $key:literal,)*) => {
        /// The keys AWTL reads (snake_case and camelCase spellings).
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        enum K { $($name,)* }

        const KEY_COUNT: usize = [$($key,)*].len();
        // `Fields::slot` holds positions in a byte.
        const _: () = assert!(KEY_COUNT < u8::MAX as usize);

        fn key_of(name: &str) -> Option<K> {
            match name {
                $($key => Some(K::$name),)*
                _ => None,
            }
        }
    };
}

keys! {
    Type = "type", Event = "event", Kind = "kind", Role = "role",
    RunId = "run_id", RunIdCamel = "runId", AttemptId = "attempt_id", AttemptIdCamel = "attemptId",
    TurnId = "turn_id", TurnIdCamel = "turnId", SpanId = "span_id", SpanIdCamel = "spanId",
    ActionId = "action_id", ActionIdCamel = "actionId",
    SourceActionId = "source_action_id", SourceActionIdCamel = "sourceActionId",
    EventId = "event_id", EventIdCamel = "eventId", Id = "id", JudgeId = "judge_id",
    JudgeIdCamel = "judgeId", ParentId = "parent_id", ParentIdCamel = "parentId",
    Status = "status", Result = "result", Verdict = "verdict",
    ExitCode = "exit_code", ExitCodeCamel = "exitCode",
    Tool = "tool", ToolName = "tool_name", ToolNameCamel = "toolName",
    Command = "command", Cmd = "cmd", Args = "args", Arguments = "arguments", Input = "input",
    Detail = "detail", Reason = "reason", MessageText = "message_text",
    Summary = "summary", Output = "output", Text = "text", Content = "content",
    Message = "message", Stdout = "stdout", Stderr = "stderr",
    NodeIds = "node_ids", NodeIdsCamel = "nodeIds", NodeId = "node_id", NodeIdCamel = "nodeId",
    ArtifactRefs = "artifact_refs", ArtifactRefsCamel = "artifactRefs",
    Path = "path", Ref = "ref", Uri = "uri", Artifact = "artifact",
    Error = "error", IsError = "is_error", IsErrorCamel = "isError",
    Agent = "agent", Actor = "actor", JudgeName = "judge_name", JudgeNameCamel = "judgeName",
    Name = "name", Ts = "ts", Timestamp = "timestamp", Time = "time",
    WriterSeq = "writer_seq", WriterSeqCamel = "writerSeq", Seq = "seq",
    Task = "task", Goal = "goal", Prompt = "prompt",
    FinalAnswer = "final_answer", FinalAnswerCamel = "finalAnswer", Answer = "answer",
}

/// The value of a known key: a string borrowed from the line when it holds no escape, any other
/// value as JSON.
#[derive(Debug)]
enum Field<'a> {
    Null,
    Str(Cow<'a, str>),
    Json(Value),
}

impl<'de> Deserialize<'de> for Field<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Field<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Field<'de>, E> {
                Ok(Field::Str(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Field<'de>, E> {
                Ok(Field::Str(Cow::Owned(v.to_string())))
            }
            fn visit_string<E>(self, v: String) -> Result<Field<'de>, E> {
                Ok(Field::Str(Cow::Owned(v)))
            }
            fn visit_unit<E>(self) -> Result<Field<'de>, E> {
                Ok(Field::Null)
            }
            fn visit_none<E>(self) -> Result<Field<'de>, E> {
                Ok(Field::Null)
            }
            fn visit_bool<E>(self, v: bool) -> Result<Field<'de>, E> {
                Ok(Field::Json(Value::Bool(v)))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Field<'de>, E> {
                Ok(Field::Json(Value::from(v)))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Field<'de>, E> {
                Ok(Field::Json(Value::from(v)))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Field<'de>, E> {
                Ok(Field::Json(Value::from(v)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Field<'de>, A::Error> {
                Value::deserialize(de::value::SeqAccessDeserializer::new(seq)).map(Field::Json)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Field<'de>, A::Error> {
                Value::deserialize(de::value::MapAccessDeserializer::new(map)).map(Field::Json)
            }
        }
        d.deserialize_any(V)
    }
}

/// An object key, read as the known key it names (if any) without being copied.
struct Key(Option<K>);

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Key;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object key")
            }
            fn visit_str<E>(self, v: &str) -> Result<Key, E> {
                Ok(Key(key_of(v)))
            }
        }
        d.deserialize_str(V)
    }
}

/// The known keys of one event line. A repeated key keeps its last value (as a JSON object
/// parsed into a map would).
///
/// Kept small on purpose: a line sets a handful of the keys, so the values sit in a short list
/// and a byte per key points into it (a full array of optional values is kilobytes, copied on
/// every move of the struct).
struct Fields<'a> {
    /// 1-based position in `values` of each key's value, 0 when the line does not set it.
    slot: [u8; KEY_COUNT],
    values: Vec<Field<'a>>,
}

impl<'a> Fields<'a> {
    fn set(&mut self, k: K, value: Field<'a>) {
        match self.slot[k as usize] {
            0 => {
                self.values.push(value);
                self.slot[k as usize] = self.values.len() as u8;
            }
            i => self.values[i as usize - 1] = value,
        }
    }

    fn value(&self, k: K) -> Option<&Field<'a>> {
        match self.slot[k as usize] {
            0 => None,
            i => Some(&self.values[i as usize - 1]),
        }
    }
}

impl<'de> Deserialize<'de> for Fields<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Fields<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an event object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Fields<'de>, A::Error> {
                let mut fields = Fields { slot: [0; KEY_COUNT], values: Vec::with_capacity(16) };
                while let Some(Key(key)) = map.next_key::<Key>()? {
                    match key {
                        Some(k) => fields.set(k, map.next_value::<Field<'de>>()?),
                        None => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(fields)
            }
        }
        d.deserialize_map(V)
    }
}

impl<'a> Fields<'a> {
    /// The first of `keys` present with a non-null value.
    fn get(&self, keys: &[K]) -> Option<&Field<'a>> {
        keys.iter().find_map(|k| match self.value(*k) {
            None | Some(Field::Null) => None,
            Some(f) => Some(f),
        })
    }

    /// Takes the first of `keys` present with a non-null value out of the fields.
    fn take(&mut self, keys: &[K]) -> Option<Field<'a>> {
        let k = keys.iter().find(|k| !matches!(self.value(**k), None | Some(Field::Null)))?;
        Some(std::mem::replace(&mut self.values[self.slot[*k as usize] as usize - 1], Field::Null))
    }

    fn str(&self, keys: &[K]) -> Option<&str> {
        match self.get(keys)? {
            Field::Str(s) => Some(s),
            _ => None,
        }
    }

    /// As display text: a string as it is, any other value as compact JSON.
    fn text(&self, keys: &[K]) -> Option<String> {
        self.get(keys).map(|f| match f {
            Field::Str(s) => s.to_string(),
            Field::Json(v) => super::json_text(v),
            Field::Null => String::new(),
        })
    }

    /// [`Fields::text`] as a boxed string, allocated once at its length (a step's ids).
    fn text_box(&self, keys: &[K]) -> Option<Box<str>> {
        self.get(keys).map(|f| match f {
            Field::Str(s) => Box::from(&**s),
            Field::Json(v) => super::json_text(v).into_boxed_str(),
            Field::Null => Box::default(),
        })
    }

    fn int(&self, keys: &[K]) -> Option<i64> {
        match self.get(keys)? {
            Field::Str(s) => s.trim().parse().ok(),
            Field::Json(v) => super::value_i64(v),
            Field::Null => None,
        }
    }

    /// A list of strings from a string or an array (other items as JSON text).
    fn strings(&self, keys: &[K]) -> Vec<String> {
        match self.get(keys) {
            Some(Field::Str(s)) => vec![s.to_string()],
            Some(Field::Json(v)) => super::value_strings(v),
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
fn step_from_fields(f: Fields<'_>, loc: SourceLoc, ingest_seq: u64, source_len: u64) -> Step {
    let kind = kind_of(&f);
    step_of_kind(f, kind, loc, ingest_seq, source_len)
}

/// What the line's event type (`type`, `event` or `kind`) makes its step.
fn kind_of(f: &Fields<'_>) -> StepKind {
    let ty = f.str(&[K::Type, K::Event, K::Kind]).unwrap_or("message");
    match ty {
        "action" | "tool_call" => StepKind::Action,
        "observation" | "tool_result" => StepKind::Observation,
        "judge_result" | "judgeResult" | "verifier_result" => StepKind::JudgeResult,
        "memory_read" | "memoryRead" => StepKind::MemoryRead,
        "artifact" => StepKind::Artifact,
        "run_start" | "runStart" => StepKind::RunStart,
        "run_end" | "runEnd" => StepKind::RunEnd,
        _ => StepKind::Message,
    }
}

/// A line's step, its kind already read ([`kind_of`]).
fn step_of_kind(
    mut f: Fields<'_>,
    kind: StepKind,
    loc: SourceLoc,
    ingest_seq: u64,
    source_len: u64,
) -> Step {
    let role = match kind {
        StepKind::Action => Role::Assistant,
        StepKind::Observation => Role::Tool,
        StepKind::JudgeResult => Role::Judge,
        StepKind::MemoryRead | StepKind::Artifact | StepKind::RunStart | StepKind::RunEnd => {
            Role::Environment
        }
        StepKind::Message => match f.get(&[K::Role]) {
            Some(Field::Str(r)) => match r.as_ref() {
                "system" => Role::System,
                "user" => Role::User,
                "tool" => Role::Tool,
                "assistant" => Role::Assistant,
                _ => Role::Other,
            },
            _ => Role::Assistant,
        },
    };
    let ids = StepIds {
        run_id: f.text_box(&[K::RunId, K::RunIdCamel]),
        attempt_id: f.text_box(&[K::AttemptId, K::AttemptIdCamel]),
        turn_id: f.text_box(&[K::TurnId, K::TurnIdCamel]),
        span_id: f.text_box(&[K::SpanId, K::SpanIdCamel]),
        action_id: f.text_box(&[K::ActionId, K::ActionIdCamel]),
        source_action_id: f.text_box(&[K::SourceActionId, K::SourceActionIdCamel]),
        event_id: f.text_box(&[K::EventId, K::EventIdCamel, K::Id, K::JudgeId, K::JudgeIdCamel]),
        parent_id: f.text_box(&[K::ParentId, K::ParentIdCamel]),
    };
    let status = f.text_box(&[K::Status, K::Result, K::Verdict]);
    let exit_code = f.int(&[K::ExitCode, K::ExitCodeCamel]);
    let tool = f.text_box(&[K::Tool, K::ToolName, K::ToolNameCamel]);
    let args = f.text(&[K::Command, K::Cmd, K::Args, K::Arguments, K::Input]);
    let detail_keys = [K::Detail, K::Reason, K::MessageText];
    let body_keys = [K::Summary, K::Output, K::Text, K::Content, K::Message, K::Stdout];
    let memory_node_ids = f.strings(&[K::NodeIds, K::NodeIdsCamel, K::NodeId, K::NodeIdCamel]);
    let mut refs = f.strings(&[K::ArtifactRefs, K::ArtifactRefsCamel]);
    if kind == StepKind::Artifact {
        if let Some(p) = f.text(&[K::Path, K::Ref, K::Uri, K::Artifact]) {
            refs.push(p);
        }
    }
    let error_flag = match f.get(&[K::Error, K::IsError, K::IsErrorCamel]) {
        Some(Field::Json(Value::Bool(b))) => *b,
        Some(Field::Str(s)) => !s.is_empty(),
        Some(Field::Json(Value::Object(_))) => true,
        _ => false,
    };
    let failed_status =
        status.as_deref().is_some_and(|s| outcome_word(Some(s)) == Some(Outcome::Failed));
    let is_error = error_flag || exit_code.is_some_and(|c| c != 0) || failed_status;

    // The readable text: what a reviewer needs first, built straight from the line's strings
    // (a string the parser had to unescape is moved, not copied).
    let mut text = String::new();
    let mut push = |field: Option<Field<'_>>| {
        let piece: Cow<'_, str> = match field {
            Some(Field::Str(s)) => s,
            Some(Field::Json(v)) => Cow::Owned(super::json_text(&v)),
            _ => return,
        };
        if piece.is_empty() {
            return;
        }
        if text.is_empty() {
            text = piece.into_owned();
        } else {
            text.push('\n');
            text.push_str(&piece);
        }
    };
    match kind {
        StepKind::Action => {
            push(f.take(&[K::Command, K::Cmd, K::Args, K::Arguments, K::Input]));
            push(f.take(&body_keys));
        }
        StepKind::MemoryRead => push(f.take(&body_keys)),
        _ => {
            push(f.take(&body_keys));
            push(f.take(&detail_keys));
        }
    }
    push(f.take(&[K::Stderr]));
    if let Some(Field::Str(_)) = f.get(&[K::Error]) {
        push(f.take(&[K::Error]));
    }
    let actor =
        f.text(&[K::Agent, K::Actor, K::JudgeName, K::JudgeNameCamel, K::Name]).unwrap_or_default();
    let mut step = Step {
        index: 0,
        loc,
        actor,
        role,
        kind,
        text,
        tool,
        args,
        exit_code,
        is_error,
        status,
        ids,
        artifact_refs: refs.iter().map(|r| artifact_ref(r)).collect(),
        memory_node_ids,
        timestamp: f.text(&[K::Ts, K::Timestamp, K::Time]).map(Box::from),
        writer_seq: f.int(&[K::WriterSeq, K::WriterSeqCamel, K::Seq]).map(|n| n.max(0) as u64),
        ingest_seq,
        ..Step::default()
    };
    compact_text(&mut step, source_len);
    step
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn loc() -> SourceLoc {
        SourceLoc { line: 1, offset: 0, path: Box::default() }
    }

    /// The hot path (borrowed, straight from the text) and the `Value` path give the same step.
    fn both_paths(line: &str) -> (Step, Step) {
        let fast: Fields = serde_json::from_str(line).expect("reads on the hot path");
        let fast = step_from_fields(fast, loc(), 0, line.len() as u64);
        let value: Value = serde_json::from_str(line).expect("valid JSON");
        let slow = Fields::deserialize(&value).expect("an object");
        let slow = step_from_fields(slow, loc(), 0, line.len() as u64);
        (fast, slow)
    }

    #[test]
    fn a_run_id_whose_hash_another_id_holds_is_found_by_the_id_itself() {
        use std::hash::BuildHasher as _;
        let mut index = RunIndex::default();
        let runs: Vec<Run> =
            ["a", "b"].iter().map(|id| Run { id: id.to_string(), ..Run::default() }).collect();
        // As if `a` had the same hash as `b`: `a` holds it.
        let hash = index.keys.hash_one("b");
        index.insert(hash, "a", 0);
        assert_eq!(index.get("b", &runs), Err(hash));
        index.insert(hash, "b", 1);
        assert_eq!(index.get("b", &runs), Ok(1));
        assert_eq!(index.collided.len(), 1);
        assert_eq!(index.get("c", &runs), Err(index.keys.hash_one("c")));
    }

    #[test]
    fn many_runs_interleaved_each_get_their_own_lines() {
        let mut awtl = Awtl::default();
        for i in 0..3000u64 {
            let line = format!(r#"{{"type":"action","run_id":"r{}","command":"c{i}"}}"#, i % 1000);
            awtl.push_line(&line, loc(), i).unwrap();
        }
        let ts = Box::new(awtl).finish();
        assert_eq!(ts.len(), 1000);
        for (n, t) in ts.iter().enumerate() {
            assert_eq!(t.id, format!("r{n}"));
            let args: Vec<_> = t.steps.iter().map(|s| s.args.clone().unwrap()).collect();
            assert_eq!(args, [format!("c{n}"), format!("c{}", n + 1000), format!("c{}", n + 2000)]);
        }
    }

    #[test]
    fn snake_and_camel_keys_escapes_and_non_string_values() {
        let line = r#"{"type":"observation","spanId":"s-1","exitCode":"2","output":"a\"b\nc","stderr":{"x":[1,2.5,null]},"error":"boom","writerSeq":7,"node_ids":"m-1","unknown":[[[{"deep":1}]]]}"#;
        let (fast, slow) = both_paths(line);
        assert_eq!(fast, slow);
        assert_eq!(fast.text, "a\"b\nc\n{\"x\":[1,2.5,null]}\nboom");
        assert_eq!((fast.exit_code, fast.writer_seq, fast.is_error), (Some(2), Some(7), true));
        assert_eq!(fast.ids.span_id.as_deref(), Some("s-1"));
        assert_eq!(fast.memory_node_ids, vec!["m-1".to_string()]);
    }

    #[test]
    fn a_repeated_key_keeps_its_last_value_and_null_means_absent() {
        let line = r#"{"type":"action","command":"first","command":"second","summary":null,"output":"out"}"#;
        let (fast, slow) = both_paths(line);
        assert_eq!(fast, slow);
        assert_eq!(fast.args.as_deref(), Some("second"));
        assert_eq!(fast.text, "second\nout");
    }

    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
            "(?s).{0,12}".prop_map(Value::String),
            prop_oneof![Just("action"), Just("observation"), Just("judge_result"), Just("failed")]
                .prop_map(|s| Value::String(s.to_string())),
        ];
        leaf.prop_recursive(3, 12, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                proptest::collection::btree_map("[a-z]{1,3}", inner, 0..3)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn the_hot_path_and_the_value_path_agree(
            entries in proptest::collection::vec(
                (proptest::sample::select(vec![
                    "type", "event", "role", "run_id", "runId", "span_id", "exit_code",
                    "exitCode", "tool", "command", "args", "summary", "output", "text", "detail",
                    "reason", "stderr", "error", "isError", "node_ids", "artifact_refs", "path",
                    "agent", "name", "ts", "writer_seq", "seq", "status", "other",
                ]), json_value()),
                0..12,
            )
        ) {
            let body: Vec<String> = entries
                .iter()
                .map(|(k, v)| format!("{}:{}", Value::from(*k), v))
                .collect();
            let line = format!("{{{}}}", body.join(","));
            let (fast, slow) = both_paths(&line);
            prop_assert_eq!(fast, slow);
        }
    }
}
