//! Claude Code session JSONL (`~/.claude/projects/<dir>/<session>.jsonl`).
//!
//! Each line is one record: `user` / `assistant` / `system` messages carry `uuid`, `parentUuid`,
//! `sessionId`, `timestamp` and a `message` in the Anthropic API shape; `summary`,
//! `queue-operation` and `file-history-snapshot` lines are bookkeeping.
//!
//! One assistant reply is split over several lines that share `message.id`, usually one content
//! block per line. We make **one step per content block**: a `text` / `thinking` block is an
//! assistant message, a `tool_use` block an action (tool name, input, `action_id` = the block id),
//! a `tool_result` block in a user line an observation (`is_error`, `source_action_id` = the
//! `tool_use_id`, the tool's name looked up from the call, `Exit code N` read as the exit code).
//! Steps of one reply share `turn_id` = `message.id`. A block repeated verbatim under the same
//! `message.id` (some versions re-write a reply as it streams) is not counted twice.
//!
//! Every line is accounted for: each message line gives at least one step, a `summary` line a
//! system step, a record of a type not known here an `other` step (status = its type);
//! `queue-operation` and `file-history-snapshot` lines are parsed but give no step.
//! Usage (`message.usage`, and `costUSD` where a version writes it) is counted once per model
//! response: the lines of one response repeat it (the last line has the final output count),
//! so the last line's usage of each `message.id` goes on the response's first step.
//! Trajectories are per session; sub-agent lines (`isSidechain`, `agentId`) form their own
//! trajectory `agent-<agentId>` with the agent as actor; in a headless run's stream a
//! sub-agent's messages (`parent_tool_use_id`) stay in the session's, their actor
//! `agent-<parent_tool_use_id>`.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::{content_text, get, get_text, parse_object, value_text, JsonlAdapter};
use crate::artifact::extract;
#[cfg(not(target_arch = "wasm32"))]
use crate::ingest::LineParse;
use crate::model::{Outcome, Role, SourceLoc, Step, StepIds, StepKind, Trajectory, Usage};
use crate::usage::{cost, count};

/// A set of block fingerprints.
type Seen = crate::attribution::text::FastMap<u64, usize>;

#[derive(Default)]
pub struct ClaudeCode {
    /// Trajectories in order of first appearance: (key, task, steps).
    runs: Vec<Run>,
    /// Run key → its position in `runs` (constant-time lookup however many sessions).
    by_key: HashMap<String, usize>,
    /// tool_use id → tool name, for naming tool results.
    calls: HashMap<String, String>,
    /// Hashes of (message.id, block) already taken, for repeated reply lines (a hash, not a
    /// copy of the block: a long session must not be held twice).
    /// The fingerprints seen (a map to nothing of a type the web bundle has for other tables).
    seen_blocks: Seen,
    /// The trajectory the last session line went to: bookkeeping lines without a session follow it.
    last_key: Option<String>,
    /// message.id → the usage of its latest line (put on the response's first step at the end).
    usage: HashMap<String, Box<Usage>>,
    /// The session's working directory (`cwd`): the trace root artifact refs are relative to.
    cwd: Option<String>,
}

#[derive(Default)]
struct Run {
    key: String,
    actor: String,
    task: Option<String>,
    steps: Vec<Step>,
    /// What the session's `result` line said (a headless run's end), when there is one.
    end: Option<End>,
}

/// A headless run's `result` line (`claude -p --output-format stream-json`, the Agent SDK's
/// result message): how it ended, its final text and its totals.
struct End {
    outcome: Outcome,
    final_answer: Option<String>,
    usage: Option<Box<Usage>>,
}

impl ClaudeCode {
    fn run(&mut self, key: &str, actor: &str) -> &mut Run {
        let i = match self.by_key.get(key) {
            Some(&i) => i,
            None => {
                self.runs.push(Run {
                    key: key.to_string(),
                    actor: actor.to_string(),
                    ..Run::default()
                });
                self.by_key.insert(key.to_string(), self.runs.len() - 1);
                self.runs.len() - 1
            }
        };
        &mut self.runs[i]
    }
}

impl JsonlAdapter for ClaudeCode {
    fn push_line(&mut self, line: &str, loc: SourceLoc, ingest_seq: u64) -> Result<(), String> {
        let parsed = parse_seen(line, Some(&mut self.seen_blocks))?;
        self.apply(parsed, &loc, ingest_seq);
        Ok(())
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn push_parsed(
        &mut self,
        parsed: LineParse,
        loc: SourceLoc,
        ingest_seq: u64,
    ) -> Result<Result<(), String>, SourceLoc> {
        let LineParse::ClaudeCode(parsed) = parsed else { return Err(loc) };
        Ok(parsed.map(|parsed| self.apply(parsed, &loc, ingest_seq)))
    }

    fn finish(self: Box<Self>) -> Vec<Trajectory> {
        let mut runs = self.runs;
        let mut usage = self.usage;
        // Bookkeeping that came before any session line joins the first session.
        if let Some(i) = runs.iter().position(|r| r.key.is_empty()) {
            if let Some(j) = runs.iter().position(|r| !r.key.is_empty() && r.actor.is_empty()) {
                let orphan = runs.remove(i);
                let j = if j > i { j - 1 } else { j };
                runs[j].steps.extend(orphan.steps);
                crate::sort::sort_by_key(&mut runs[j].steps, |s| s.ingest_seq);
            }
        }
        runs.into_iter()
            .enumerate()
            .map(|(n, mut r)| {
                for (i, s) in r.steps.iter_mut().enumerate() {
                    s.index = i as u32;
                    if let Some(u) = s.ids.turn_id.as_deref().and_then(|id| usage.remove(id)) {
                        s.usage = Some(u);
                    }
                }
                let id = if r.key.is_empty() { format!("session-{}", n + 1) } else { r.key };
                let (outcome, final_answer, usage) = match r.end {
                    Some(e) => (e.outcome, e.final_answer, e.usage),
                    None => (Outcome::Unknown, None, None),
                };
                let (task, steps) = (r.task, r.steps);
                Trajectory { id, outcome, task, final_answer, steps, usage, ..Default::default() }
            })
            .collect()
    }

    /// The first session as read so far (sessions have no end marker): its first steps
    /// numbered from 0, each reply's usage as read so far on its first step, its id and task.
    /// Provisional: later lines may add to it. `None` when the file starts with bookkeeping
    /// lines of no session (they join a session at the end).
    fn snapshot_first(&self, max_steps: usize) -> Option<Trajectory> {
        let run = self.runs.first().filter(|r| !r.key.is_empty() && !r.steps.is_empty())?;
        let mut steps = run.steps[..run.steps.len().min(max_steps)].to_vec();
        let mut given = HashMap::<String, usize>::new();
        for (i, s) in steps.iter_mut().enumerate() {
            s.index = i as u32;
            let first_of_reply =
                s.ids.turn_id.as_deref().filter(|id| given.insert(id.to_string(), 0).is_none());
            if let Some(u) = first_of_reply.and_then(|id| self.usage.get(id)) {
                s.usage = Some(u.clone());
            }
        }
        Some(Trajectory {
            id: run.key.clone(),
            task: run.task.clone(),
            steps,
            ..Trajectory::default()
        })
    }
}

/// A line read ahead of its turn, on another thread ([`crate::ingest::PreparedChunk`]): what
/// the line alone says (its steps, their blocks' fingerprints, the session and working
/// directory it names, its usage). [`ClaudeCode::apply`] files it with what the lines before
/// said (the session of a line that names none, repeated blocks, the names of tool calls, the
/// working directory). The parsed tree is freed where it was parsed.
pub struct Parsed {
    /// `agent-<agentId>` of a sidechain line (its trajectory and actor), `sessionId` as text.
    agent: Option<String>,
    session: Option<String>,
    cwd: Option<String>,
    /// The role of a message line's blocks (its "repeated" step's role).
    role: Role,
    /// The line's steps, and what the reader's state adds to each (`pending[i]` for
    /// `steps[i]`).
    steps: Vec<Step>,
    pending: Vec<Pending>,
    usage: Option<Box<Usage>>,
    end: Option<End>,
}

/// What a step of a line still needs from the reader's state (besides a tool call's id and
/// name, remembered to name its result, and a tool result's call id, whose name it takes: the
/// step holds those).
#[derive(Default)]
struct Pending {
    /// The block's fingerprint under its reply (blocks of a reply with an id): a block seen
    /// before gives no step. A line parsed in its turn has it taken already: `repeat` says.
    hash: Option<u64>,
    repeat: bool,
    /// A tool call's raw artifact refs, resolved against the session's working directory
    /// when filed.
    raw_refs: Option<Vec<String>>,
}

/// A line's steps, or why the line cannot be read: the pure half of
/// [`ClaudeCode::push_line`] (the other, [`ClaudeCode::apply`], files them).
pub fn parse(line: &str) -> Result<Parsed, String> {
    parse_seen(line, None)
}

/// [`parse`] taking the line's blocks into `seen` (the reader's fingerprints of the blocks
/// taken) when it is given, as [`ClaudeCode::apply`] would: a block taken before gives no step,
/// so only the line's shared fields are kept for it (what a line whose every block repeats
/// earlier ones keeps). A line parsed in its turn saves building those steps.
fn parse_seen(line: &str, seen: Option<&mut Seen>) -> Result<Parsed, String> {
    let o = parse_object(line)?;
    let ty = get(&o, &["type"]).and_then(Value::as_str).unwrap_or("");
    let sidechain = matches!(o.get("isSidechain"), Some(Value::Bool(true)));
    let named = get_text(&o, &["agentId"]).filter(|_| sidechain);
    // `session_id` in a headless run's stream (`claude -p --output-format stream-json`).
    let session = get_text(&o, &["sessionId", "session_id"]);
    // A sub-agent's messages in a headless run's stream name the call that started it
    // (`parent_tool_use_id`, a `Task` call's id): they stay in the session's trajectory, in
    // the order they came, spoken by that agent.
    let parent = get_text(&o, &["parent_tool_use_id"]);
    let actor = named.as_ref().or(parent.as_ref()).map(|a| format!("agent-{a}"));
    let agent = named.and(actor.clone());
    let actor = actor.unwrap_or_default();
    let base = Step {
        actor,
        timestamp: get_text(&o, &["timestamp"]).map(Box::from),
        ids: StepIds {
            run_id: session.as_deref().map(Box::from),
            event_id: get_text(&o, &["uuid"]).map(Box::from),
            parent_id: get_text(&o, &["parentUuid", "leafUuid"]).map(Box::from),
            ..StepIds::default()
        },
        ..Step::default()
    };
    let mut role = Role::User;
    let mut end = None;
    let (steps, pending) = match ty {
        "user" | "assistant" => message_steps(&o, ty, base, &mut role, seen),
        // A headless run's first line: its tools, model and settings (the `cwd` is kept).
        "system" if get_text(&o, &["subtype"]).as_deref() == Some("init") => {
            (Vec::new(), Vec::new())
        }
        "result" if o.contains_key("subtype") => {
            let subtype = get_text(&o, &["subtype"]).unwrap_or_default();
            let failed = matches!(o.get("is_error"), Some(Value::Bool(true)))
                || subtype.starts_with("error");
            let said = get_text(&o, &["result"]).filter(|r| !r.trim().is_empty());
            let u = o.get("usage").and_then(Value::as_object);
            let field = |k: &str| count(u.and_then(|u| u.get(k)));
            let usage = Usage {
                input_tokens: field("input_tokens"),
                output_tokens: field("output_tokens"),
                cache_read_tokens: field("cache_read_input_tokens"),
                cache_write_tokens: field("cache_creation_input_tokens"),
                cost_usd: cost(o.get("total_cost_usd").or_else(|| o.get("cost_usd"))),
                duration_ms: count(o.get("duration_ms")),
            };
            // A run that ended in error says so in a step of its own: its words, else its
            // `errors`, else its subtype (`error_max_turns` ...).
            let steps = match failed {
                false => (Vec::new(), Vec::new()),
                true => one(Step {
                    role: Role::System,
                    text: said.clone().unwrap_or_else(|| match o.get("errors") {
                        Some(e @ Value::Array(list)) if !list.is_empty() => content_text(e),
                        _ => subtype.clone(),
                    }),
                    is_error: true,
                    status: Some(subtype.as_str().into()),
                    ..base
                }),
            };
            end = Some(End {
                outcome: if failed { Outcome::Failed } else { Outcome::Unknown },
                final_answer: said.filter(|_| !failed),
                usage: usage.non_empty(),
            });
            steps
        }
        "system" => {
            let level = get_text(&o, &["level"]).unwrap_or_default();
            one(Step {
                role: Role::System,
                text: get(&o, &["content", "message"]).map(content_text).unwrap_or_default(),
                is_error: level == "error",
                status: get_text(&o, &["subtype"]).map(Box::from),
                ..base
            })
        }
        "summary" => one(Step {
            role: Role::System,
            text: get_text(&o, &["summary"]).unwrap_or_default(),
            status: Some("summary".into()),
            ..base
        }),
        // A headless run's partial-message deltas (`--include-partial-messages`): the whole
        // message follows on a line of its own.
        "queue-operation" | "file-history-snapshot" | "stream_event" => (Vec::new(), Vec::new()),
        _ if o.contains_key("message") => message_steps(&o, ty, base, &mut role, seen),
        // A record type this reader does not know (newer versions add some): kept visible.
        other => one(Step {
            role: Role::Other,
            text: get(&o, &["content", "text"])
                .map(content_text)
                .unwrap_or_else(|| crate::json::to_text(&Value::Object(o.clone()))),
            status: Some(other.into()),
            ..base
        }),
    };
    Ok(Parsed {
        agent,
        session,
        cwd: get_text(&o, &["cwd"]),
        role,
        usage: if steps.is_empty() || end.is_some() { None } else { line_usage(&o) },
        steps,
        pending,
        end,
    })
}

/// A line's one step, which needs nothing more from the reader's state.
fn one(step: Step) -> (Vec<Step>, Vec<Pending>) {
    (vec![step], vec![Pending::default()])
}

impl ClaudeCode {
    /// Files a parsed line's steps under their trajectory.
    fn apply(&mut self, p: Parsed, loc: &SourceLoc, ingest_seq: u64) {
        let has_session = p.session.is_some();
        let key = match (p.agent, p.session) {
            (Some(a), _) => a,
            (None, Some(s)) => s,
            (None, None) => self.last_key.clone().unwrap_or_default(),
        };
        if has_session {
            self.last_key = Some(key.clone());
        }
        if let Some(cwd) = p.cwd {
            self.cwd = Some(cwd);
        }
        if let Some(end) = p.end {
            self.run(&key, "").end = Some(end);
        }
        if p.steps.is_empty() {
            return;
        }
        let mut steps = Vec::with_capacity(p.steps.len());
        let mut repeated = None;
        for (mut step, pending) in p.steps.into_iter().zip(p.pending) {
            if pending.repeat
                || pending.hash.is_some_and(|h| self.seen_blocks.insert(h, 0).is_some())
            {
                // The same block of the same reply, written again.
                repeated.get_or_insert(step);
                continue;
            }
            match step.kind {
                StepKind::Action => {
                    if let (Some(id), Some(name)) = (&step.ids.action_id, &step.tool) {
                        self.calls.insert(id.to_string(), name.to_string());
                    }
                }
                StepKind::Observation => {
                    let call = step.ids.source_action_id.as_deref();
                    step.tool = call.and_then(|c| self.calls.get(c)).map(|t| Box::from(t.as_str()));
                }
                _ => {}
            }
            if let Some(raw) = pending.raw_refs {
                step.artifact_refs = extract::refs(raw, self.cwd.as_deref());
            }
            steps.push(step);
        }
        if let (true, Some(s)) = (steps.is_empty(), repeated) {
            // Every block repeated an earlier line: keep the line visible as an empty step of
            // the same reply rather than lose it (the line's own fields, which its steps share).
            let ids = StepIds { action_id: None, source_action_id: None, ..s.ids };
            let status = Some("repeated".into());
            let (actor, timestamp) = (s.actor, s.timestamp);
            steps.push(Step { role: p.role, actor, timestamp, ids, status, ..Step::default() });
        }
        for s in &mut steps {
            s.loc = loc.clone();
            s.ingest_seq = ingest_seq;
        }
        if let Some(u) = p.usage {
            match steps[0].ids.turn_id.as_deref().map(str::to_owned) {
                Some(reply) => {
                    self.usage.insert(reply, u);
                }
                None => steps[0].usage = Some(u),
            }
        }
        let actor = steps[0].actor.clone();
        let run = self.run(&key, &actor);
        if run.task.is_none() {
            run.task = steps
                .iter()
                .find(|s| s.role == Role::User && s.kind == StepKind::Message)
                .map(|s| s.text.clone());
        }
        run.steps.append(&mut steps);
    }
}

/// A message line's steps: one per content block (a text or a string content: one step).
fn message_steps(
    o: &Map<String, Value>,
    ty: &str,
    base: Step,
    role_out: &mut Role,
    mut seen: Option<&mut Seen>,
) -> (Vec<Step>, Vec<Pending>) {
    let msg = get(o, &["message"]);
    let role_word = msg.and_then(|m| m.get("role")).and_then(Value::as_str).unwrap_or(ty);
    let role = if role_word == "assistant" { Role::Assistant } else { Role::User };
    *role_out = role;
    let reply_id = msg.and_then(|m| m.get("id")).and_then(Value::as_str);
    let content = msg.and_then(|m| m.get("content")).unwrap_or(&Value::Null);
    let is_meta = matches!(o.get("isMeta"), Some(Value::Bool(true)));
    let mut base = base;
    base.ids.turn_id = reply_id.map(Box::from);
    let blocks: &[Value] = match content {
        Value::Array(items) => items,
        _ => &[],
    };
    if blocks.is_empty() {
        let role = if is_meta { Role::System } else { role };
        return one(Step { role, text: content_text(content), ..base });
    }
    let mut steps = Vec::with_capacity(blocks.len());
    let mut pending = Vec::with_capacity(blocks.len());
    for block in blocks {
        let mut hash = reply_id.map(|id| block_hash(id, block));
        let mut repeat = false;
        if let Some(seen) = seen.as_deref_mut() {
            repeat = hash.take().is_some_and(|h| seen.insert(h, 0).is_some());
        }
        let (step, raw_refs) = match repeat {
            true => (base.clone(), None),
            false => block_step(block, role, &base),
        };
        pending.push(Pending { hash, repeat, raw_refs });
        steps.push(step);
    }
    (steps, pending)
}

/// A content block's step, and a tool call's raw artifact refs (see [`Pending`]).
fn block_step(block: &Value, role: Role, base: &Step) -> (Step, Option<Vec<String>>) {
    let Some(b) = block.as_object() else {
        return (Step { role, text: content_text(block), ..base.clone() }, None);
    };
    let bty = get(b, &["type"]).and_then(Value::as_str).unwrap_or("");
    match bty {
        "tool_use" | "server_tool_use" => {
            let name = get_text(b, &["name"]).unwrap_or_default();
            let input = get(b, &["input"]);
            let args = input.map(|i| match i.get("command") {
                Some(Value::String(c)) => c.clone(),
                _ => value_text(i),
            });
            let id = get_text(b, &["id"]);
            let mut ids = base.ids.clone();
            ids.action_id = id.map(Box::from);
            let description = input.and_then(|i| i.get("description")).and_then(Value::as_str);
            let text = match (description, &args) {
                (Some(d), Some(a)) => format!("{d}\n{a}"),
                (None, Some(a)) => a.clone(),
                (Some(d), None) => d.to_string(),
                (None, None) => String::new(),
            };
            let raw_refs = input.map(|i| extract::claude_code(&name, i)).unwrap_or_default();
            let step = Step {
                role: Role::Assistant,
                kind: StepKind::Action,
                tool: Some(name.into()),
                args,
                text,
                ids,
                ..base.clone()
            };
            (step, Some(raw_refs))
        }
        "tool_result" | "web_search_tool_result" => {
            let text = b.get("content").map(content_text).unwrap_or_default();
            let call_id = get_text(b, &["tool_use_id"]);
            let exit_code = text
                .strip_prefix("Exit code ")
                .and_then(|r| r.split(|c: char| !c.is_ascii_digit() && c != '-').next())
                .and_then(|d| d.parse().ok());
            let is_error = matches!(b.get("is_error"), Some(Value::Bool(true)))
                || exit_code.is_some_and(|c: i64| c != 0);
            let mut ids = base.ids.clone();
            ids.source_action_id = call_id.map(Box::from);
            let step = Step {
                role: Role::Tool,
                kind: StepKind::Observation,
                exit_code,
                is_error,
                text,
                ids,
                ..base.clone()
            };
            (step, None)
        }
        "thinking" | "redacted_thinking" => {
            let text = get_text(b, &["thinking", "data"]).unwrap_or_default();
            let status = Some("thinking".into());
            (Step { role, text, status, ..base.clone() }, None)
        }
        "image" | "document" => (Step { role, text: format!("[{bty}]"), ..base.clone() }, None),
        _ => (Step { role, text: content_text(block), ..base.clone() }, None),
    }
}

/// The usage a line records: `message.usage` (Anthropic API names) and a top-level `costUSD`.
fn line_usage(o: &Map<String, Value>) -> Option<Box<Usage>> {
    let u = o.get("message").and_then(|m| m.get("usage")).and_then(Value::as_object);
    let field = |k: &str| count(u.and_then(|u| u.get(k)));
    Usage {
        input_tokens: field("input_tokens"),
        output_tokens: field("output_tokens"),
        cache_read_tokens: field("cache_read_input_tokens"),
        cache_write_tokens: field("cache_creation_input_tokens"),
        cost_usd: cost(o.get("costUSD")),
        duration_ms: None,
    }
    .non_empty()
}

/// A fingerprint of one content block of one reply.
fn block_hash(reply_id: &str, block: &Value) -> u64 {
    use std::hash::{Hash, Hasher};
    // SipHash with fixed keys: deterministic across runs and platforms.
    let mut h = std::collections::hash_map::DefaultHasher::new();
    reply_id.hash(&mut h);
    hash_json(block, &mut h);
    h.finish()
}

/// Feeds `v` to `h` so that two values feed the same only when their JSON texts are the same
/// (`json::to_text`, whose hash this was: writing every block out cost a tenth of a
/// transcript's read). Keys come in the map's (sorted) order, as they are written; a float
/// feeds its bits (`-0.0` is not `0.0`, as written) apart from an integer (`1.0` is not `1`).
pub(crate) fn hash_json(v: &Value, h: &mut impl std::hash::Hasher) {
    use std::hash::Hash;
    match v {
        Value::Null => h.write_u8(0),
        Value::Bool(b) => h.write_u8(1 + u8::from(*b)),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => (3u8, u).hash(h),
            (None, Some(i)) => (4u8, i).hash(h),
            _ => (5u8, n.as_f64().unwrap_or_default().to_bits()).hash(h),
        },
        Value::String(s) => (6u8, s).hash(h),
        Value::Array(items) => {
            (7u8, items.len()).hash(h);
            items.iter().for_each(|i| hash_json(i, h));
        }
        Value::Object(o) => {
            (8u8, o.len()).hash(h);
            for (k, v) in o {
                k.hash(h);
                hash_json(v, h);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_hash_alike_only_when_written_alike() {
        let texts = [
            r#"{"type":"text","text":"a"}"#,
            r#"{"text":"a","type":"text"}"#,
            r#"{"type":"text","text":"b"}"#,
            r#"{"type":"text","text":"a","x":null}"#,
            r#"{"n":1}"#,
            r#"{"n":1.0}"#,
            r#"{"n":-1}"#,
            r#"{"n":0.0}"#,
            r#"{"n":-0.0}"#,
            r#"{"n":-0}"#,
            r#"{"n":0}"#,
            r#"{"n":"1"}"#,
            r#"{"n":[1]}"#,
            r#"{"n":[[1]]}"#,
            r#"{"n":[1,[]]}"#,
            r#"{"n":[[],1]}"#,
            r#"{"n":{"":1}}"#,
            r#"{"n":true}"#,
            r#"{"n":false}"#,
            r#"{"n":null}"#,
            r#"{"n":18446744073709551615}"#,
            // Two integers one float cannot tell apart.
            r#"{"n":-9007199254740993}"#,
            r#"{"n":-9007199254740992}"#,
            r#"{"n":1e300}"#,
        ];
        let values: Vec<Value> = texts.iter().map(|t| serde_json::from_str(t).unwrap()).collect();
        for a in &values {
            for b in &values {
                let same_text = crate::json::to_text(a) == crate::json::to_text(b);
                assert_eq!(block_hash("r", a) == block_hash("r", b), same_text, "{a} / {b}");
            }
        }
        assert_ne!(block_hash("r", &values[0]), block_hash("s", &values[0]));
    }

    fn run(lines: &[&str]) -> (Vec<Trajectory>, Vec<Result<(), String>>) {
        let mut a: Box<ClaudeCode> = Box::default();
        let results = lines
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let loc = SourceLoc { line: i as u32 + 1, ..SourceLoc::default() };
                a.push_line(l, loc, i as u64)
            })
            .collect();
        (a.finish(), results)
    }

    #[test]
    fn a_reply_rewritten_as_it_streams_counts_each_block_once() {
        // Some versions write the whole reply so far on every line.
        let (ts, results) = run(&[
            r#"{"type":"user","sessionId":"s","uuid":"u1","message":{"role":"user","content":"go"}}"#,
            r#"{"type":"assistant","sessionId":"s","uuid":"a1","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"Let me look."}]}}"#,
            r#"{"type":"assistant","sessionId":"s","uuid":"a2","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"Let me look."},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}"#,
            r#"{"type":"user","sessionId":"s","uuid":"u2","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"Exit code 2\nls: cannot access","is_error":true}]}}"#,
        ]);
        assert!(results.iter().all(Result::is_ok));
        let steps = &ts[0].steps;
        let kinds: Vec<StepKind> = steps.iter().map(|s| s.kind).collect();
        assert_eq!(
            kinds,
            [StepKind::Message, StepKind::Message, StepKind::Action, StepKind::Observation]
        );
        assert_eq!(steps[2].ids.turn_id, steps[1].ids.turn_id);
        let result = &steps[3];
        assert_eq!(
            (result.tool.as_deref(), result.exit_code, result.is_error),
            (Some("Bash"), Some(2), true)
        );
    }

    #[test]
    fn a_line_whose_blocks_all_repeat_earlier_ones_stays_as_one_repeated_step() {
        let (ts, results) = run(&[
            r#"{"type":"assistant","sessionId":"s","uuid":"a1","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"Look."},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}"#,
            r#"{"type":"assistant","sessionId":"s","uuid":"a2","parentUuid":"a1","timestamp":"T2","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"Look."},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}],"usage":{"input_tokens":3,"output_tokens":7}}}"#,
            r#"{"type":"user","sessionId":"s","uuid":"u1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}"#,
        ]);
        assert!(results.iter().all(Result::is_ok));
        let steps = &ts[0].steps;
        assert_eq!(steps.len(), 4, "two blocks, the repeated line, the result");
        let r = &steps[2];
        assert_eq!(
            (r.role, r.kind, r.status.as_deref()),
            (Role::Assistant, StepKind::Message, Some("repeated"))
        );
        assert_eq!((r.text.as_str(), r.tool.as_deref(), r.args.as_deref()), ("", None, None));
        assert_eq!(
            (r.ids.event_id.as_deref(), r.ids.parent_id.as_deref(), r.ids.turn_id.as_deref()),
            (Some("a2"), Some("a1"), Some("m1"))
        );
        assert_eq!((r.ids.action_id.as_deref(), r.timestamp.as_deref()), (None, Some("T2")));
        // The reply's usage (its latest line's) goes on its first step, not on the repeat.
        assert_eq!(steps[0].usage.as_ref().map(|u| u.output_tokens), Some(Some(7)));
        assert!(r.usage.is_none());
        // The call of the first line names the result.
        assert_eq!(steps[3].tool.as_deref(), Some("Bash"));
    }

    #[test]
    fn sidechain_lines_in_the_main_file_form_their_own_trajectory() {
        let (ts, _) = run(&[
            r#"{"type":"summary","summary":"Earlier work","leafUuid":"x"}"#,
            r#"{"type":"user","sessionId":"s","uuid":"u1","message":{"role":"user","content":"go"}}"#,
            r#"{"type":"user","sessionId":"s","isSidechain":true,"agentId":"ab12","uuid":"w1","message":{"role":"user","content":"Warmup"}}"#,
            r#"{"type":"assistant","sessionId":"s","uuid":"a1","parentUuid":"u1","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"ok"}]}}"#,
        ]);
        let shape: Vec<(String, usize)> =
            ts.iter().map(|t| (t.id.clone(), t.steps.len())).collect();
        assert_eq!(shape, [("s".to_string(), 3), ("agent-ab12".to_string(), 1)]);
        assert_eq!(ts[0].steps[0].status.as_deref(), Some("summary"));
        assert_eq!(ts[1].steps[0].actor, "agent-ab12");
    }

    #[test]
    fn lines_of_no_session_join_the_main_session_not_a_sub_agent_and_are_not_copied_early() {
        let lines = [
            r#"{"type":"summary","summary":"Earlier work","leafUuid":"x"}"#,
            r#"{"type":"user","sessionId":"s","isSidechain":true,"agentId":"ab12","uuid":"w1","message":{"role":"user","content":"Warmup"}}"#,
            r#"{"type":"user","sessionId":"s","uuid":"u1","message":{"role":"user","content":"go"}}"#,
        ];
        let (ts, _) = run(&lines);
        let shape: Vec<(String, usize)> =
            ts.iter().map(|t| (t.id.clone(), t.steps.len())).collect();
        assert_eq!(shape, [("agent-ab12".to_string(), 1), ("s".to_string(), 2)]);
        assert_eq!(ts[1].steps[0].status.as_deref(), Some("summary"));
        // Each step names the session of its line.
        let runs: Vec<Option<&str>> =
            ts.iter().flat_map(|t| &t.steps).map(|s| s.ids.run_id.as_deref()).collect();
        assert_eq!(runs, [Some("s"), None, Some("s")]);
        // While read, the first trajectory is the lines of no session: no copy of it.
        let mut a: Box<ClaudeCode> = Box::default();
        for (i, l) in lines.iter().enumerate() {
            a.push_line(l, SourceLoc::default(), i as u64).unwrap();
            assert!(a.snapshot_first(10).is_none(), "after line {i}");
        }
    }

    #[test]
    fn system_summary_and_message_lines_of_any_type_are_read_for_what_they_are() {
        let (ts, _) = run(&[
            r#"{"type":"assistant","sessionId":"s","uuid":"a0","message":{"id":"m0","role":"assistant","content":"Hello."}}"#,
            r#"{"type":"system","sessionId":"s","subtype":"api_error","level":"error","content":"API Error: 529"}"#,
            r#"{"type":"system","sessionId":"s","subtype":"compact","level":"info","content":"Compacted"}"#,
            r#"{"type":"summary","sessionId":"s","summary":"Earlier work"}"#,
            r#"{"type":"progress","sessionId":"s","message":{"role":"assistant","content":"working"}}"#,
            r#"{"type":"user","sessionId":"s","uuid":"u1","message":{"role":"user","content":"Fix the build."}}"#,
        ]);
        let seen: Vec<(Role, &str, bool, Option<&str>)> = ts[0]
            .steps
            .iter()
            .map(|s| (s.role, s.text.as_str(), s.is_error, s.status.as_deref()))
            .collect();
        assert_eq!(
            seen,
            [
                (Role::Assistant, "Hello.", false, None),
                (Role::System, "API Error: 529", true, Some("api_error")),
                (Role::System, "Compacted", false, Some("compact")),
                (Role::System, "Earlier work", false, Some("summary")),
                (Role::Assistant, "working", false, None),
                (Role::User, "Fix the build.", false, None),
            ]
        );
        // The task is the first message of the user's, not the first message.
        assert_eq!(ts[0].task.as_deref(), Some("Fix the build."));
    }

    #[test]
    fn a_tool_result_failed_when_flagged_or_when_its_exit_code_is_not_zero() {
        let result = |content: &str, flag: &str| {
            let line = format!(
                r#"{{"type":"user","sessionId":"s","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"t1","content":"{content}"{flag}}}]}}}}"#
            );
            let s = &run(&[&line]).0[0].steps[0];
            (s.exit_code, s.is_error)
        };
        assert_eq!(result("Exit code 1\\nboom", ""), (Some(1), true));
        assert_eq!(result("Exit code 0\\nfine", ""), (Some(0), false));
        assert_eq!(result("denied", r#","is_error":true"#), (None, true));
        assert_eq!(result("fine", ""), (None, false));
    }

    #[test]
    fn thinking_images_and_bare_texts_in_a_reply_are_steps_of_their_own() {
        let (ts, _) = run(&[
            r#"{"type":"assistant","sessionId":"s","uuid":"a1","message":{"id":"m1","role":"assistant","content":[{"type":"thinking","thinking":"Which file?"},{"type":"redacted_thinking","data":"xyz"},{"type":"image","source":{}},"plain words"]}}"#,
        ]);
        let seen: Vec<(Role, &str, Option<&str>)> =
            ts[0].steps.iter().map(|s| (s.role, s.text.as_str(), s.status.as_deref())).collect();
        assert_eq!(
            seen,
            [
                (Role::Assistant, "Which file?", Some("thinking")),
                (Role::Assistant, "xyz", Some("thinking")),
                (Role::Assistant, "[image]", None),
                (Role::Assistant, "plain words", None),
            ]
        );
    }

    #[test]
    fn a_repeated_call_or_result_line_names_no_call_and_keeps_its_agent() {
        // (A result's line repeats only when its message has an id, as a reply's has.)
        let call = r#"{"type":"assistant","sessionId":"s","isSidechain":true,"agentId":"ab","uuid":"UUID","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}"#;
        let result = r#"{"type":"user","sessionId":"s","isSidechain":true,"agentId":"ab","uuid":"UUID","message":{"id":"r1","role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}"#;
        let lines = [
            call.replace("UUID", "a1"),
            call.replace("UUID", "a2"),
            result.replace("UUID", "u1"),
            result.replace("UUID", "u2"),
        ];
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        // Read in turn, and parsed ahead (as on the CLI's parser threads: the repeats found
        // when the parses are filed).
        let mut ahead: Box<ClaudeCode> = Box::default();
        for (i, l) in lines.iter().enumerate() {
            ahead.apply(parse_seen(l, None).unwrap(), &SourceLoc::default(), i as u64);
        }
        for ts in [run(&lines).0, ahead.finish()] {
            let seen: Vec<_> = ts[0]
                .steps
                .iter()
                .map(|s| {
                    let ids = &s.ids;
                    let (call, answers) =
                        (ids.action_id.as_deref(), ids.source_action_id.as_deref());
                    (call, answers, s.status.as_deref(), s.actor.as_str())
                })
                .collect();
            assert_eq!(
                seen,
                [
                    (Some("t1"), None, None, "agent-ab"),
                    (None, None, Some("repeated"), "agent-ab"),
                    (None, Some("t1"), None, "agent-ab"),
                    (None, None, Some("repeated"), "agent-ab"),
                ]
            );
        }
    }

    #[test]
    fn a_record_of_an_unknown_type_stays_visible_as_a_step() {
        let (ts, results) = run(&[r#"{"type":"mystery","sessionId":"s","content":"new"}"#]);
        assert!(results[0].is_ok());
        let s = &ts[0].steps[0];
        assert_eq!(
            (s.role, s.status.as_deref(), s.text.as_str()),
            (Role::Other, Some("mystery"), "new")
        );
    }
}
