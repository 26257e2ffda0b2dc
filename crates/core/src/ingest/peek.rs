//! A copy of the first steps of a document while it is read. A document format is parsed
//! whole once its last byte is read (`Mode::Document`), so a 50 MB SWE-agent `.traj` showed
//! nothing until then. Its steps are one list: of the top-level object (SWE-agent's
//! `trajectory`, mini-swe-agent's `messages`, an OpenHands evaluation output's `history`) or
//! the document itself (an OpenHands event list), so the peek follows the bytes as they arrive,
//! finds that list and turns each of its elements into steps as soon as the element's closing
//! bracket is read, with the format's own per-element reader. A document of many trajectories
//! (an Inspect log's `samples`, a tau2 results file's `simulations`) gives its first one whole
//! once its element is read. What a shell shows of the file meanwhile
//! ([`crate::Ingestor::snapshot_first`]) is that copy; the document parsed at the end replaces
//! it (its id, task and outcome are known only then).
//!
//! The scanner follows only strings and brackets (as `list.rs` does), keeps the bytes of one
//! element at a time and stops for good at the list's end, after the steps asked for
//! (`IngestOptions::copy_document_steps`; the CLI asks for none and pays nothing), at an element
//! it cannot read or longer than the longest line kept whole, or when the input is not an
//! object: a copy is a view, never the trace, so it gives up rather than guess.

use std::collections::HashMap;

use serde_json::Value;

use super::formats::{inspect, mini_swe_agent, openhands, swe_agent, tau2};
use super::sniff::is_openhands_event;
use crate::model::{Format, Outcome, Step, Trajectory};

/// The longest key remembered (the keys looked for are short).
const KEY_MAX: usize = 32;

pub(crate) struct DocPeek {
    started: bool,
    done: bool,
    depth: u32,
    in_string: bool,
    escape: bool,
    /// At depth 1, the next string is a key.
    expect_key: bool,
    /// Reading a key at depth 1 (its bytes, at most `KEY_MAX`).
    in_key: bool,
    key: Vec<u8>,
    /// The keys seen at depth 1 before the list (mini-swe-agent's `info`, TRAJERRBENCH's
    /// `metadata`).
    seen_info: bool,
    seen_metadata: bool,
    seen_eval: bool,
    /// Inside the list of steps, of this format (OpenHands until its first element says
    /// otherwise), whose elements open at depth `level` (1 in a top-level list, 2 under a key).
    list: Option<Format>,
    level: u32,
    /// The bytes of the open element, if one is open.
    elem: Option<Vec<u8>>,
    /// OpenHands: the tool of each action read so far, for the observations that answer it.
    tools: HashMap<String, String>,
    index: usize,
    max_elem: usize,
    max_steps: usize,
    format: Option<Format>,
    steps: Vec<Step>,
    /// A whole first trajectory (Inspect, tau2): its fields but the steps, which are in `steps`.
    first: Option<Trajectory>,
}

impl DocPeek {
    pub(crate) fn new(max_elem: usize, max_steps: usize) -> DocPeek {
        DocPeek {
            started: false,
            done: false,
            depth: 0,
            in_string: false,
            escape: false,
            expect_key: false,
            in_key: false,
            key: Vec::new(),
            seen_info: false,
            seen_metadata: false,
            seen_eval: false,
            list: None,
            level: 2,
            elem: None,
            tools: HashMap::new(),
            index: 0,
            max_elem,
            max_steps,
            format: None,
            steps: Vec::new(),
            first: None,
        }
    }

    /// Whether it stopped reading (at the list's end or for good).
    pub(crate) fn done(&self) -> bool {
        self.done
    }

    /// The format of the steps copied, once one was.
    pub(crate) fn format(&self) -> Option<Format> {
        self.format.filter(|_| !self.steps.is_empty())
    }

    /// The copy: the first `max_steps` steps read so far, in a trajectory named as the format
    /// names one without an id; `None` before the first step.
    pub(crate) fn snapshot(&self, max_steps: usize) -> Option<Trajectory> {
        let format = self.format()?;
        let mut steps: Vec<Step> = self.steps[..self.steps.len().min(max_steps)].to_vec();
        for (i, s) in steps.iter_mut().enumerate() {
            s.index = i as u32;
            s.ingest_seq = i as u64;
        }
        if let Some(first) = &self.first {
            return Some(Trajectory { steps, ..first.clone() });
        }
        Some(Trajectory {
            // As a document without an id of its own is named (`swe-agent-1`).
            id: format!("{format}-1"),
            outcome: Outcome::Unknown,
            task: None,
            final_answer: None,
            gold: None,
            steps,
            usage: None,
        })
    }

    /// Feeds the next bytes of the input.
    pub(crate) fn push(&mut self, bytes: &[u8]) {
        let mut i = 0;
        // Where the open element's bytes start in `bytes`.
        let mut from = self.elem.is_some().then_some(0);
        while i < bytes.len() && !self.done {
            if self.in_string {
                if self.escape {
                    self.escape = false;
                    self.key_byte(bytes[i]);
                    i += 1;
                    continue;
                }
                match memchr::memchr2(b'"', b'\\', &bytes[i..]) {
                    None => {
                        self.key_bytes(&bytes[i..]);
                        i = bytes.len();
                    }
                    Some(k) => {
                        self.key_bytes(&bytes[i..i + k]);
                        i += k;
                        if bytes[i] == b'\\' {
                            self.escape = true;
                            self.key_byte(b'\\');
                        } else {
                            self.in_string = false;
                            if self.in_key {
                                self.in_key = false;
                                self.seen_info |= self.key == b"info";
                                self.seen_metadata |= self.key == b"metadata";
                                self.seen_eval |= self.key == b"eval";
                            }
                        }
                        i += 1;
                    }
                }
                continue;
            }
            match bytes[i] {
                b' ' | b'\t' | b'\r' | b'\n' => {}
                b'"' if self.depth == 0 => self.done = true,
                b'"' => {
                    self.in_string = true;
                    if self.depth == 1 && self.expect_key {
                        (self.in_key, self.expect_key) = (true, false);
                        self.key.clear();
                    }
                }
                b'{' if self.depth == 0 && !self.started => {
                    (self.started, self.depth, self.expect_key) = (true, 1, true);
                }
                // A top-level list: an OpenHands event list, if its first element is an event.
                b'[' if self.depth == 0 && !self.started => {
                    (self.started, self.depth) = (true, 1);
                    (self.list, self.level) = (Some(Format::Openhands), 1);
                }
                b'{' | b'[' if self.depth == 0 => self.done = true,
                b'{' | b'[' => {
                    if self.depth == 1 && self.level == 2 && bytes[i] == b'[' {
                        self.list = self.target();
                    } else if self.depth == self.level && self.list.is_some() {
                        self.elem = Some(Vec::new());
                        from = Some(i);
                    }
                    self.depth += 1;
                }
                b'}' | b']' => {
                    self.depth = self.depth.saturating_sub(1);
                    if self.depth == self.level && self.elem.is_some() {
                        let mut elem = self.elem.take().unwrap_or_default();
                        elem.extend_from_slice(&bytes[from.take().unwrap_or(0)..=i]);
                        self.element(&elem);
                    } else if self.depth < self.level && self.list.is_some() {
                        // The list of steps ended (or the document did).
                        self.done = true;
                    } else if self.depth == 0 {
                        self.done = true;
                    }
                }
                b',' if self.depth == 1 => self.expect_key = true,
                // A document that is not an object: nothing to copy.
                _ if self.depth == 0 => self.done = true,
                _ => {}
            }
            i += 1;
        }
        if let (Some(start), Some(elem)) = (from, self.elem.as_mut()) {
            elem.extend_from_slice(&bytes[start.min(bytes.len())..]);
            if elem.len() > self.max_elem {
                self.stop();
            }
        }
        if self.done {
            self.elem = None;
        }
    }

    fn key_byte(&mut self, b: u8) {
        if self.in_key && self.key.len() < KEY_MAX {
            self.key.push(b);
        }
    }

    fn key_bytes(&mut self, b: &[u8]) {
        if self.in_key {
            let room = KEY_MAX.saturating_sub(self.key.len());
            self.key.extend_from_slice(&b[..room.min(b.len())]);
        }
    }

    /// The format whose steps the list opening now under the last key holds, if any.
    fn target(&self) -> Option<Format> {
        match self.key.as_slice() {
            b"trajectory" => Some(Format::SweAgent),
            b"messages" if self.seen_info && !self.seen_metadata => Some(Format::MiniSweAgent),
            // OpenHands evaluation output, if its first element is an event (Who&When items
            // keep their messages under `history` too).
            b"history" => Some(Format::Openhands),
            // An Inspect log (its `eval` header first) or a tau2 results file: whole
            // trajectories, the first one copied.
            b"samples" if self.seen_eval => Some(Format::Inspect),
            b"simulations" => Some(Format::Tau2),
            _ => None,
        }
    }

    /// One element of the list ended: its steps, by its format's reader.
    fn element(&mut self, bytes: &[u8]) {
        let Some(format) = self.list else { return };
        let Ok(Value::Object(e)) = serde_json::from_slice::<Value>(bytes) else {
            // The parse at the end says what is wrong with it.
            return self.stop();
        };
        let i = self.index;
        if format == Format::Openhands && i == 0 && !is_openhands_event(&e) {
            return self.stop();
        }
        self.index += 1;
        match format {
            Format::Inspect | Format::Tau2 => {
                let t = match format {
                    Format::Inspect => inspect::sample(&e, "$.samples[0]"),
                    _ => tau2::peek_simulation(&e),
                };
                let Ok(mut t) = t else { return self.stop() };
                self.steps = std::mem::take(&mut t.steps);
                self.steps.truncate(self.max_steps);
                (self.first, self.format, self.done) = (Some(t), Some(format), true);
                return;
            }
            Format::SweAgent => swe_agent::turn_steps(i, &e, None, &mut self.steps),
            Format::Openhands => {
                let base = if self.level == 1 { "$" } else { "$.history" };
                self.steps.push(openhands::peek_step(&e, base, i, &mut self.tools));
            }
            _ => self.steps.push(mini_swe_agent::peek_step(&e, i)),
        }
        self.format = Some(format);
        if self.steps.len() >= self.max_steps {
            self.steps.truncate(self.max_steps);
            self.done = true;
        }
    }

    fn stop(&mut self) {
        self.done = true;
        self.elem = None;
    }
}
