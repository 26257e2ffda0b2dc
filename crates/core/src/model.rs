//! The canonical trace model: every input format is converted into these types.
//!
//! A file holds one or more [`Trajectory`]s; a trajectory is an ordered list of [`Step`]s, one
//! message or event each. Everything here is plain data (serde-serialisable) so the CLI can print
//! it and the app can render it.

use serde::{Deserialize, Serialize};

/// The input formats the ingest recognises, named as reported (`--format` accepts these names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    Awtl,
    ClaudeCode,
    Codex,
    Otel,
    WhoAndWhen,
    Trajerrbench,
    Tau2,
    SweAgent,
    MiniSweAgent,
    Openhands,
    Inspect,
    Langsmith,
    OpenaiAgents,
    Chat,
    Atif,
    Langfuse,
    Smolagents,
    Generic,
}

impl Format {
    pub const ALL: [Format; 18] = [
        Format::Awtl,
        Format::ClaudeCode,
        Format::Codex,
        Format::Otel,
        Format::WhoAndWhen,
        Format::Trajerrbench,
        Format::Tau2,
        Format::SweAgent,
        Format::MiniSweAgent,
        Format::Openhands,
        Format::Inspect,
        Format::Langsmith,
        Format::OpenaiAgents,
        Format::Chat,
        Format::Atif,
        Format::Langfuse,
        Format::Smolagents,
        Format::Generic,
    ];

    /// The name as reported in JSON output and accepted by `--format`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Awtl => "awtl",
            Format::ClaudeCode => "claude-code",
            Format::Codex => "codex",
            Format::Otel => "otel",
            Format::WhoAndWhen => "who-and-when",
            Format::Trajerrbench => "trajerrbench",
            Format::Tau2 => "tau2",
            Format::SweAgent => "swe-agent",
            Format::MiniSweAgent => "mini-swe-agent",
            Format::Openhands => "openhands",
            Format::Inspect => "inspect",
            Format::Langsmith => "langsmith",
            Format::OpenaiAgents => "openai-agents",
            Format::Chat => "chat",
            Format::Atif => "atif",
            Format::Langfuse => "langfuse",
            Format::Smolagents => "smolagents",
            Format::Generic => "generic",
        }
    }

    /// The format a name means: its [`Format::name`], in any case, with `_` for `-` accepted
    /// too (`claude_code`, the adapters' module names).
    pub fn from_name(name: &str) -> Option<Format> {
        let same = |n: &str| {
            n.len() == name.len()
                && n.bytes().zip(name.bytes()).all(|(a, b)| {
                    let b = if b == b'_' { b'-' } else { b };
                    a.eq_ignore_ascii_case(&b)
                })
        };
        Format::ALL.into_iter().find(|f| same(f.name()))
    }

    /// Whether the format is line-oriented (JSONL): lines are parsed and quarantined one by one.
    pub fn is_jsonl(self) -> bool {
        matches!(
            self,
            Format::Awtl
                | Format::ClaudeCode
                | Format::Codex
                | Format::Otel
                | Format::OpenaiAgents
                | Format::Smolagents
                | Format::Generic
        )
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Who produced a step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
    Judge,
    Environment,
    #[default]
    Other,
}

impl Role {
    /// The names as serialised, in declaration order: `Role as usize` indexes it.
    pub const NAMES: [&'static str; 7] =
        ["system", "user", "assistant", "tool", "judge", "environment", "other"];

    pub fn name(self) -> &'static str {
        Role::NAMES[self as usize]
    }
}

/// What a step is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepKind {
    #[default]
    Message,
    /// An action or tool call.
    Action,
    /// An observation or tool result.
    Observation,
    JudgeResult,
    MemoryRead,
    Artifact,
    RunStart,
    RunEnd,
}

impl StepKind {
    /// The names as serialised, in declaration order: `StepKind as usize` indexes it.
    pub const NAMES: [&'static str; 8] = [
        "message",
        "action",
        "observation",
        "judge_result",
        "memory_read",
        "artifact",
        "run_start",
        "run_end",
    ];

    pub fn name(self) -> &'static str {
        StepKind::NAMES[self as usize]
    }
}

/// Where a step came from in the input file.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceLoc {
    /// 1-based line for JSONL sources (the line of the first record that formed the step);
    /// for single-document sources, the line where the step's object starts when known, else 0.
    pub line: u32,
    /// Byte offset of that line or object in the (decompressed) input.
    pub offset: u64,
    /// JSON path inside a single-document source (`$.history[3]`), empty for JSONL. A `Box<str>`
    /// (two words, not a `String`'s three): every step holds one.
    #[serde(default, skip_serializing_if = "str::is_empty")]
    pub path: Box<str>,
}

/// The identifiers a step may carry (docs/formats.md). All optional. Each is a `Box<str>`
/// (two words) rather than a `String` (three): a file of 1,000,000 steps holds every step and
/// moves each a few times, and the eight ids were 192 of a step's ~500 bytes (docs/performance.md,
/// seventh pass). Serialised as the strings they are.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepIds {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<Box<str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempt_id: Option<Box<str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<Box<str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span_id: Option<Box<str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action_id: Option<Box<str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_action_id: Option<Box<str>>,
    /// A format-specific event id (Claude Code `uuid`, OpenHands `id`, judge id, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event_id: Option<Box<str>>,
    /// The id of the step this one answers or follows (`parentUuid`, OpenHands `cause`, a tool
    /// call id for a tool result, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_id: Option<Box<str>>,
}

impl StepIds {
    pub fn is_empty(&self) -> bool {
        *self == StepIds::default()
    }
}

/// An artifact reference, normalised. One that escapes the trace root is flagged, never followed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArtifactRef {
    /// The reference as written in the trace.
    pub raw: String,
    /// Normalised form (`./a/../b` → `b`); equals `raw` when it escapes.
    pub normalized: String,
    /// True when the reference escapes the trace root (see `crate::artifact`): flagged, never
    /// followed, never in a valid case or a brief.
    pub escapes_root: bool,
    /// What the reference is (a path inside the root, a label, a URL, or escaping).
    #[serde(default)]
    pub kind: crate::artifact::RefKind,
    /// Why an escaping reference was flagged (`absolute path outside the trace root ...`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// One message or event.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// 0-based position in the trajectory (gold labels use the same index space).
    pub index: u32,
    pub loc: SourceLoc,
    /// The agent or actor name (Who&When `name`, a sub-agent id, `judge_name`, ...); empty if none.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub actor: String,
    pub role: Role,
    pub kind: StepKind,
    /// The readable content: message text, command output, judge detail. May be long.
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<Box<str>>,
    /// The command or the arguments of a tool call, as text (compact JSON for structured args).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i64>,
    /// The source flagged this step as an error (tool error, exception, failed status).
    #[serde(default)]
    pub is_error: bool,
    /// A status or result word as written (`failed`, `passed`, `warn`, `ok`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Box<str>>,
    #[serde(default, skip_serializing_if = "StepIds::is_empty")]
    pub ids: StepIds,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub artifact_refs: Vec<ArtifactRef>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub memory_node_ids: Vec<String>,
    /// As written (a `Box<str>`, as the ids: most steps of a log have one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<Box<str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub writer_seq: Option<u64>,
    /// Order of arrival in the input (0-based, over the whole file).
    pub ingest_seq: u64,
    /// Set when `text` was shortened to keep memory bounded (a very long output): it then holds
    /// a head and a tail of the full text around a visible marker line. Boxed, as `usage`: few
    /// steps have one, and inline the two would be 80 of a step's bytes (a file of 1,000,000
    /// steps holds and moves every one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_elided: Option<Box<TextElision>>,
    /// The same for `args` (a very long tool input).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args_elided: Option<Box<TextElision>>,
    /// Tokens, cost and call time the source records for the model response (or call) this
    /// step is part of, counted once per response (see `docs/usage.md`). Boxed: most steps
    /// have none, and a `None` then costs one word.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Box<Usage>>,
}

/// Usage as a source records it. A field the source does not record is `None`, never 0:
/// nothing is estimated or invented. `input_tokens` is as the source counts it (Anthropic's
/// excludes cache reads and writes; OpenAI's and Codex's include the cached part).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_read_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write_tokens: Option<u64>,
    /// Cost in US dollars, as the source records it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// Wall time of the call when the source records it (an OTel span's end − start).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
}

impl Usage {
    /// True when no field is recorded.
    pub fn is_empty(&self) -> bool {
        *self == Usage::default()
    }

    /// Adds `other` field by field; a field stays `None` only when both are. A count that
    /// would pass `u64::MAX` stays there (a trace may write any number: the sum of two huge
    /// ones is no crash and no wrapped small number).
    pub fn add(&mut self, other: &Usage) {
        fn sum<T: Copy>(a: Option<T>, b: Option<T>, add: impl Fn(T, T) -> T) -> Option<T> {
            match (a, b) {
                (Some(a), Some(b)) => Some(add(a, b)),
                (a, b) => a.or(b),
            }
        }
        let n = u64::saturating_add;
        self.input_tokens = sum(self.input_tokens, other.input_tokens, n);
        self.output_tokens = sum(self.output_tokens, other.output_tokens, n);
        self.cache_read_tokens = sum(self.cache_read_tokens, other.cache_read_tokens, n);
        self.cache_write_tokens = sum(self.cache_write_tokens, other.cache_write_tokens, n);
        self.cost_usd = sum(self.cost_usd, other.cost_usd, |a, b| a + b);
        self.duration_ms = sum(self.duration_ms, other.duration_ms, n);
    }

    /// `Some` when at least one field is recorded.
    pub fn non_empty(self) -> Option<Box<Usage>> {
        (!self.is_empty()).then(|| Box::new(self))
    }
}

/// How a long text was shortened: the stored text is the first `head_len` bytes of the full
/// text, a marker line `[… N bytes elided …]`, and the last `tail_len` bytes — a real excerpt,
/// so quotes taken from it are exact substrings of the trace. The full text can be read again
/// from the source record at `source_offset .. source_offset + source_len` of the
/// (decompressed) input; `source_len` is 0 when the record's extent is not known.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TextElision {
    /// Length of the full text in bytes.
    pub full_len: u64,
    pub head_len: u64,
    pub tail_len: u64,
    pub source_offset: u64,
    pub source_len: u64,
}

/// How a run ended, when the source says.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Failed,
    Passed,
    #[default]
    Unknown,
}

/// A gold label found in the file (Who&When `mistake_step` / `mistake_agent`, TRAJERRBENCH
/// `metadata.annotation`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GoldLabel {
    /// 0-based step index in the trajectory, in the same index space as [`Step::index`].
    pub step: Option<u32>,
    pub agent: Option<String>,
    pub reason: Option<String>,
    /// Error type / category as written by the source.
    pub category: Option<String>,
}

/// One run (or one simulation, one sample, one session).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Trajectory {
    pub id: String,
    pub outcome: Outcome,
    /// The task or question, when the source states it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
    /// The final answer or result, when the source states it separately from the steps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_answer: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gold: Option<GoldLabel>,
    pub steps: Vec<Step>,
    /// Totals the source records for the whole run and not per step (Inspect's sample
    /// `model_usage` and `total_time`); per-step usage is on the steps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Box<Usage>>,
}

/// A line (or document) that could not be taken in. Nothing is dropped: the raw bytes are kept.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuarantineEntry {
    /// 1-based line number.
    pub line: u64,
    /// Byte offset of the line's first byte in the (decompressed) input.
    pub offset: u64,
    pub reason: String,
    /// True for a final line without a terminating newline that does not parse: a writer
    /// interrupted mid-line, as opposed to damage in the middle of the file.
    pub truncated_tail: bool,
    /// The line's bytes, exactly (without the `\n` and one trailing `\r`).
    #[serde(rename = "raw_base64", with = "crate::base64_bytes")]
    pub raw: Vec<u8>,
}

/// Line accounting: `lines_total == lines_parsed + lines_blank + lines_quarantined`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IngestStats {
    pub bytes: u64,
    pub lines_total: u64,
    pub lines_parsed: u64,
    pub lines_blank: u64,
    pub lines_quarantined: u64,
}

/// The result of ingest: the trace, its quarantine and its accounting. Ingest never fails on
/// content: a single-document format that does not parse gives an empty trace and an `error`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Trace {
    pub format: Format,
    pub stats: IngestStats,
    pub quarantine: Vec<QuarantineEntry>,
    pub trajectories: Vec<Trajectory>,
    /// A whole-document error (e.g. a pretty-printed JSON file that does not parse), with
    /// position; also notes on what was read (a document over its limit, a list without its
    /// `]`, a gold step past its trajectory's last step), joined with `; `.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Trace {
    /// The trajectory ids for a message that asks for one of them: all of a few, else the
    /// first [`Trace::IDS_NAMED`] and how many more (a file of 100,000 runs would otherwise
    /// make a message of megabytes).
    pub fn ids_named(&self) -> String {
        let mut named = String::new();
        for t in self.trajectories.iter().take(Self::IDS_NAMED) {
            if !named.is_empty() {
                named.push_str(", ");
            }
            named.push_str(&t.id);
        }
        let more = self.trajectories.len().saturating_sub(Self::IDS_NAMED);
        if more > 0 {
            named += &format!(", and {more} more");
        }
        named
    }

    /// How many ids [`Trace::ids_named`] names.
    pub const IDS_NAMED: usize = 10;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file of 1,000,000 steps holds every step and moves each a few times: the size is
    /// memory and page faults (docs/performance.md, seventh pass). A field added to `Step`
    /// that makes it larger should be boxed if most steps leave it empty.
    #[cfg(target_pointer_width = "64")]
    #[test]
    fn a_step_and_its_ids_stay_small() {
        let (ids, step) = (std::mem::size_of::<StepIds>(), std::mem::size_of::<Step>());
        assert!(ids <= 128, "StepIds is {ids} bytes");
        assert!(step <= 400, "Step is {step} bytes");
    }

    #[test]
    fn a_message_names_a_few_ids_and_counts_the_rest() {
        let trace = |n: usize| Trace {
            format: Format::Awtl,
            stats: IngestStats::default(),
            quarantine: Vec::new(),
            trajectories: (0..n)
                .map(|i| Trajectory { id: format!("r{i}"), ..Trajectory::default() })
                .collect(),
            error: None,
        };
        assert_eq!(trace(0).ids_named(), "");
        assert_eq!(trace(2).ids_named(), "r0, r1");
        let ten = (0..10).map(|i| format!("r{i}")).collect::<Vec<_>>().join(", ");
        assert_eq!(trace(10).ids_named(), ten);
        assert_eq!(trace(100_000).ids_named(), format!("{ten}, and 99990 more"));
    }

    #[test]
    fn role_and_kind_names_are_their_serialised_names() {
        use Role::*;
        for r in [System, User, Assistant, Tool, Judge, Environment, Other] {
            assert_eq!(serde_json::to_value(r).unwrap(), r.name());
        }
        use StepKind::*;
        for k in [Message, Action, Observation, JudgeResult, MemoryRead, Artifact, RunStart, RunEnd]
        {
            assert_eq!(serde_json::to_value(k).unwrap(), k.name());
        }
    }
}
