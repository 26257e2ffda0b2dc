//! Model call logs, read by the generic fallback: one model call per record, its request and
//! its response (docs/formats.md, "Model call logs"). The record shapes:
//! - `{"request": {...}, "response": {...}}`, the usual way a proxy or a wrapper logs a call;
//! - an OpenAI Batch input line (`{"custom_id", "body": {...}}`) or output line
//!   (`{"custom_id", "response": {"status_code", "body": {...}}}`);
//! - an Anthropic Message Batches request (`{"custom_id", "params": {...}}`) or result
//!   (`{"custom_id", "result": {"type", "message": {...}}}`, or its `error`);
//! - `{"input": [messages], "output": {...}}` (an observability tool's export of a generation);
//! - `{"messages": [...], "response": {...}}`, a logging proxy's payload (LiteLLM's).
//!
//! A request's messages are `messages` (OpenAI chat, Anthropic), `contents` (Gemini) or `input`
//! (OpenAI Responses: a list of items or one text), after its `system` / `instructions` /
//! `system_instruction`; a response's are its `choices[].message`, `candidates[].content`,
//! `output` items, or the response itself when it is a message (Anthropic). Each message is read
//! as the generic fallback reads a message (`generic::generic_step`).
//!
//! Calls are grouped into conversations: a record's `session_id`, `conversation_id`,
//! `thread_id` or `custom_id` (on it or in its `metadata`) with the conversation's
//! opening (its first message after the system prompt). A request repeats the conversation so
//! far, so the first call of a conversation shows all its messages and a later call only those
//! after its last assistant message (the tools' replies, a new user turn), unless the previous
//! request ended with the same (a retry of a call that failed); then its answer. A request
//! with no assistant message in a conversation that already has an answer starts the
//! conversation again (the same task run twice): a trajectory of its own. A Responses call that
//! goes on from an earlier answer (`previous_response_id`) joins that answer's conversation,
//! its input all new but the instructions sent again.

use std::hash::{Hash, Hasher};

use serde_json::{Map, Value};

use super::claude_code::hash_json;
use super::generic::{generic_step, is_error_value, role_of};
use super::{get, get_text, value_text};
use crate::ingest::Settled;
use crate::model::{Role, SourceLoc, Trajectory, Usage};
use crate::usage::count;

/// The conversations of a call log, in the order they opened.
#[derive(Default)]
pub(crate) struct Calls {
    convs: Vec<Trajectory>,
    /// A conversation's key (its id and opening) → its position in `convs` (a table type the
    /// detector has: the web bundle holds no more code for it).
    open: crate::attribution::text::FastMap<u64, usize>,
    /// A hash of what each conversation's last request asked after its last assistant message.
    tails: Vec<u64>,
    /// A Responses answer's `id` → its conversation, for a call that goes on from it.
    responses: std::collections::HashMap<String, usize>,
    /// Conversations complete as read (a batch line's), not yet handed over.
    ended: Vec<usize>,
    /// Whether each conversation was handed over ([`Calls::take_settled`]).
    handed: Vec<bool>,
}

// Not `trace_id`: a logging proxy may start a trace per call (LiteLLM does unless told one).
const ID_KEYS: [&str; 4] = ["session_id", "conversation_id", "thread_id", "custom_id"];

/// A message of a call and its JSON path.
type Said<'a> = (&'a Map<String, Value>, String);

/// A hash of messages, after `seed` (SipHash with fixed keys: the same on every run). Texts
/// are fed as `str`'s `Hash` feeds them, ended by a byte no text holds.
fn hash_of(seed: &[u8], said: &[Said]) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    seed.hash(&mut h);
    for (k, v) in said.iter().flat_map(|(m, _)| m.iter()) {
        k.hash(&mut h);
        hash_json(v, &mut h);
    }
    h.finish()
}

/// The objects of `list`, when it is a list, each with its path under `base`.
fn items<'a>(list: Option<&'a Value>, base: String, out: &mut Vec<Said<'a>>) -> bool {
    let Some(Value::Array(items)) = list else { return false };
    for (i, m) in items.iter().enumerate() {
        if let Value::Object(m) = m {
            out.push((m, format!("{base}[{i}]")));
        }
    }
    true
}

/// The text of an error a call returned, read as the generic fallback reads an `error`
/// ([`is_error_value`]): its `message` (or its own `error`'s, as Anthropic's API nests it), else
/// its text.
fn failure(e: Option<&Value>) -> Option<String> {
    let e = e.filter(|e| is_error_value(e))?;
    let message = e.get("message").or_else(|| e.get("error")?.get("message"));
    Some(message.map(value_text).unwrap_or_else(|| value_text(e)))
}

impl Calls {
    /// Reads `o` when it is a call record; `false` (nothing read) when it is not.
    pub(crate) fn push(&mut self, o: &Map<String, Value>, loc: &SourceLoc, seq: u64) -> bool {
        // The request: `request`, an OpenAI batch line's `body`, an Anthropic one's `params`, an
        // export's `input` of messages; the response beside it (`output` beside `input`, an
        // Anthropic batch's `result`).
        let named = o.contains_key("custom_id");
        let anthropic = named && !o.contains_key("response");
        let (req_key, req) = ["request", "body", "params", "input"]
            .into_iter()
            .find_map(|k| {
                let r = o.get(k)?;
                let list = matches!(r, Value::Array(m) if m.first().is_some_and(Value::is_object));
                let is = match k {
                    "input" => list || r.get("messages").is_some(),
                    "params" => anthropic,
                    _ => true,
                };
                is.then_some((k, r))
            })
            .unwrap_or(("", &Value::Null));
        let resp_key = match req_key {
            "input" => "output",
            _ if anthropic && o.contains_key("result") => "result",
            _ => "response",
        };
        if req_key.is_empty() && !o.contains_key(resp_key) {
            // Neither a request nor a response: a plain line (most of a generic file's).
            return false;
        }
        let resp = o.get(resp_key).unwrap_or(&Value::Null);
        // A batch output's response wraps the API's reply in `body`, beside its status; an
        // Anthropic batch's result in `message`, beside its `type` (as Ollama's reply does).
        let wrapped = ["body", "message"]
            .into_iter()
            .find_map(|k| Some((k, resp.get(k).filter(|b| b.is_object())?)));
        let (reply, at) = match wrapped {
            Some((k, b)) => (b, format!("$.{resp_key}.{k}")),
            None => (resp, format!("$.{resp_key}")),
        };
        // Messages made of a system prompt given apart (Anthropic, Responses, Gemini) and of a
        // Responses `input` given as one text (the user's).
        let mut made = Vec::new();
        for key in ["system", "instructions", "system_instruction", "systemInstruction", "input"] {
            let v = match req.get(key) {
                Some(v) if !v.is_null() && (key != "input" || v.is_string()) => v,
                _ => continue,
            };
            let mut m = Map::new();
            let role = if key == "input" { "user" } else { "system" };
            m.insert("role".into(), Value::from(role));
            // Gemini's is a content of `parts`.
            m.insert("content".into(), v.get("parts").unwrap_or(v).clone());
            made.push((m, format!("$.{req_key}.{key}")));
        }
        // A failed call: one more message, of its error (an error step, as the generic
        // fallback reads `"error": true`).
        let status = resp.get("status_code").and_then(Value::as_u64).filter(|s| *s >= 400);
        let status = status.map(|s| format!("status {s}")).or_else(|| {
            // An Anthropic batch's request that never ran.
            let kind = resp.get("type").and_then(Value::as_str)?;
            matches!(kind, "canceled" | "expired").then(|| format!("request {kind}"))
        });
        // The record's own: `error`, or LiteLLM's `error_str`.
        let top = ["error", "error_str"].into_iter().find_map(|k| Some((failure(o.get(k))?, k)));
        let failed = match (failure(reply.get("error")), top, status) {
            (Some(e), _, _) => Some((e, format!("{at}.error"))),
            (_, Some((e, k)), _) => Some((e, format!("$.{k}"))),
            (_, _, Some(s)) => Some((s, at.clone())),
            _ => None,
        };
        let failed = failed.map(|(text, path)| {
            let mut m = Map::new();
            m.insert("error".into(), Value::Bool(true));
            m.insert("content".into(), Value::String(text));
            (m, path)
        });
        let mut asked: Vec<Said> = made.iter().map(|(m, p)| (m, p.clone())).collect();
        if !items(Some(req), format!("$.{req_key}"), &mut asked) {
            let list =
                ["messages", "contents", "input"].into_iter().find_map(|k| Some((k, req.get(k)?)));
            match list {
                Some((k, list)) => items(Some(list), format!("$.{req_key}.{k}"), &mut asked),
                // A logging proxy's record: the request's messages beside the response (LiteLLM).
                None => items(o.get("messages"), "$.messages".into(), &mut asked),
            };
        }
        let mut answers = Vec::new();
        let listed = ["choices", "candidates", "output"]
            .into_iter()
            .any(|k| items(reply.get(k), format!("{at}.{k}"), &mut answers));
        match reply {
            // An Anthropic response is a message.
            Value::Object(m) if !listed && m.contains_key("role") && m.contains_key("content") => {
                answers.push((m, at.clone()))
            }
            _ => {}
        }
        for a in answers.iter_mut() {
            // A choice's `message`, a Gemini candidate's `content`.
            let choice = a.0;
            if let Some(Value::Object(m)) = choice.get("message").or_else(|| choice.get("content"))
            {
                a.0 = m;
            }
        }
        // A call: messages asked or answered, or a response that is an error.
        if asked.is_empty() && answers.is_empty() && (failed.is_none() || !o.contains_key(resp_key))
        {
            return false;
        }
        answers.extend(failed.iter().map(|(m, p)| (m, p.clone())));
        let meta = o.get("metadata").and_then(Value::as_object);
        let id = get_text(o, &ID_KEYS).or_else(|| meta.and_then(|m| get_text(m, &ID_KEYS)));
        // The key: the id and the opening (the first message not the system prompt's, which a
        // wrapper may send with the first call only). A response alone (a batch's output line)
        // without an id is a call of its own.
        let opening = asked.iter().position(|(m, _)| !is_system(m));
        let alone = seq.to_le_bytes();
        let seed = match (&id, opening) {
            (None, None) => &alone[..],
            (id, _) => id.as_deref().unwrap_or("").as_bytes(),
        };
        let key = hash_of(seed, opening.map_or(&[][..], |i| &asked[i..=i]));
        let asked_again = !asked.iter().any(|(m, _)| is_assistant(m));
        // A batch's line is one request, whole: a conversation of its own, complete as read
        // (a batch names each request once; two batches' lines may share a name).
        let batch = named
            && (matches!(req_key, "body" | "params")
                || resp_key == "result"
                || matches!(o.get("response"), Some(Value::Null))
                || resp.get("status_code").is_some());
        // A Responses call that goes on from an earlier one (`previous_response_id`): that call's
        // conversation.
        let prev = req.get("previous_response_id").and_then(Value::as_str);
        let prev = prev.and_then(|p| self.responses.get(p)).copied();
        let open = if batch { None } else { self.open.get(&key) };
        let at = match (prev, open) {
            // (Never a batch line's: their answers are not kept in `responses`.)
            (Some(i), _) => i,
            // Asked again from the start after an answer: the same task run again.
            (None, Some(&i))
                if !(asked_again
                    && self.convs[i].steps.iter().any(|s| s.role == Role::Assistant)) =>
            {
                i
            }
            _ => {
                let n = self.convs.len();
                let id = id.unwrap_or_else(|| format!("conversation-{}", n + 1));
                self.convs.push(Trajectory { id, ..Trajectory::default() });
                self.tails.push(0);
                self.handed.push(false);
                if batch {
                    // Handed over natively only (`Generic::take_settled`).
                    if cfg!(not(target_arch = "wasm32")) {
                        self.ended.push(n);
                    }
                } else {
                    self.open.insert(key, n);
                }
                n
            }
        };
        let t = &mut self.convs[at];
        // A later call repeats what was said: only what follows its last assistant message is
        // new, unless the last request ended the same (a retry of a call that failed).
        let tail = asked.iter().rposition(|(m, _)| is_assistant(m)).map_or(0, |i| i + 1);
        let hash = hash_of(b"", &asked[tail..]);
        let from = match (prev, t.steps.is_empty(), std::mem::replace(&mut self.tails[at], hash)) {
            // Its input holds only what is new, after the instructions sent again.
            (Some(_), ..) => asked.iter().take_while(|(m, _)| is_system(m)).count(),
            (None, true, _) => 0,
            (None, false, last) if last == hash => asked.len(),
            _ => tail,
        };
        let time = get_text(o, &["timestamp", "created_at", "time", "ts"]).map(Box::<str>::from);
        let usage = reply.get("usage").or_else(|| reply.get("usageMetadata"));
        let mut usage = usage.and_then(Value::as_object).and_then(call_usage);
        let first_answer = t.steps.len() + asked.len() - from;
        // Room for just these steps when the conversation opens (most have one call: a
        // list's first growth would hold four steps, 1.6 KB, for one).
        let adding = first_answer - t.steps.len() + answers.len();
        if t.steps.is_empty() {
            t.steps.reserve_exact(adding);
        }
        for (m, path) in asked.drain(from..).chain(answers) {
            let at = SourceLoc { path: path.into(), ..loc.clone() };
            let mut step = generic_step(m, t.steps.len() as u32, at, seq);
            step.timestamp = step.timestamp.or_else(|| time.clone());
            if t.steps.len() == first_answer {
                // The call's usage, on its first answer.
                step.usage = usage.take();
            }
            t.steps.push(step);
        }
        if !batch && reply.get("object").is_some_and(|k| k == "response") {
            if let Some(id) = reply.get("id").and_then(Value::as_str) {
                self.responses.insert(id.to_string(), at);
            }
        }
        true
    }

    /// The conversations complete since the last call (a batch's lines), in their final form;
    /// each at its place among the conversations, which is its place in the trace.
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn take_settled(&mut self) -> Vec<Settled> {
        let convs = &mut self.convs;
        self.ended
            .drain(..)
            .map(|position| {
                self.handed[position] = true;
                let t = &mut convs[position];
                // Nothing looks a conversation up by its id: the placeholder left keeps none.
                let t = Trajectory {
                    id: std::mem::take(&mut t.id),
                    steps: std::mem::take(&mut t.steps),
                    ..Trajectory::default()
                };
                Settled { position, trajectory: super::settle(t) }
            })
            .collect()
    }

    /// The conversations, their task and final answer filled in; those handed over
    /// ([`Calls::take_settled`]) taken from `returned` (none changes after).
    pub(crate) fn finish(self, returned: Vec<Settled>) -> Vec<Trajectory> {
        let mut out: Vec<Trajectory> = self.convs.into_iter().map(super::settle).collect();
        for s in returned {
            if let Some(t) = out.get_mut(s.position) {
                *t = s.trajectory;
            }
        }
        out
    }

    /// Whether a call was read.
    pub(crate) fn any(&self) -> bool {
        !self.convs.is_empty()
    }

    /// The first conversation as read so far (its first `max` steps), while not handed over.
    pub(crate) fn first(&self, max: usize) -> Option<Trajectory> {
        let t = self.convs.first().filter(|_| !self.handed[0])?;
        let steps = t.steps[..t.steps.len().min(max)].to_vec();
        Some(Trajectory { id: t.id.clone(), steps, ..Trajectory::default() })
    }
}

/// A request message's role, as written.
fn role<'m>(m: &'m Map<String, Value>, key: &str) -> &'m str {
    m.get(key).and_then(Value::as_str).unwrap_or("")
}

/// Whether a message of a request is the system prompt (its role word as the generic fallback
/// reads it).
fn is_system(m: &Map<String, Value>) -> bool {
    role_of(role(m, "role")) == Some(Role::System)
}

/// Whether a message of a request is the model's own (an assistant's role word, a Responses
/// call or reasoning item).
fn is_assistant(m: &Map<String, Value>) -> bool {
    role_of(role(m, "role")) == Some(Role::Assistant)
        || matches!(role(m, "type"), "function_call" | "reasoning")
}

/// A call's `usage`: OpenAI's `prompt_tokens` / `completion_tokens` (with their cached part),
/// the Responses API's and Anthropic's `input_tokens` / `output_tokens` (with cache reads and
/// writes), Gemini's `promptTokenCount` / `candidatesTokenCount`.
fn call_usage(u: &Map<String, Value>) -> Option<Box<Usage>> {
    let tok = |keys: &[&str]| count(get(u, keys));
    let details = ["prompt_tokens_details", "input_tokens_details"];
    let cached = details.iter().find_map(|k| count(u.get(*k)?.get("cached_tokens")));
    Usage {
        input_tokens: tok(&["prompt_tokens", "input_tokens", "promptTokenCount"]),
        output_tokens: tok(&["completion_tokens", "output_tokens", "candidatesTokenCount"]),
        cache_read_tokens: cached.or_else(|| tok(&["cache_read_input_tokens"])),
        cache_write_tokens: tok(&["cache_creation_input_tokens"]),
        ..Usage::default()
    }
    .non_empty()
}
