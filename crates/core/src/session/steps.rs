//! Step projections of a session: per-step columns (compact for 100,000 steps) and the text of
//! some steps at a grain, as the step list shows them.

use serde::{Deserialize, Serialize};

use crate::attribution::{self, Trigger};
use crate::model::Trajectory;
use crate::views::{self, Grain, ViewOptions};

/// Per-step facts of one trajectory, column-wise.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StepColumns {
    pub line: Vec<u32>,
    pub is_error: Vec<bool>,
    /// Index into [`crate::model::Role::NAMES`].
    pub role: Vec<u8>,
    /// Index into `actors` (`u16::MAX` when the step has no actor).
    pub actor: Vec<u16>,
    pub actors: Vec<String>,
    /// Index into [`crate::model::StepKind::NAMES`].
    pub kind: Vec<u8>,
    /// Tokens each step records (input + output + cache), 0 where none; empty when no step
    /// of the trajectory records usage.
    #[serde(default)]
    pub tokens: Vec<u64>,
    /// Steps followed by a gap of at least `usage::STALL_MS` before the next step.
    #[serde(default)]
    pub stalls: Vec<u32>,
}

/// One step's text at a grain.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepView {
    pub index: u32,
    pub grain: Grain,
    /// The view (`views::step_view_with_quotes`): never more than the grain's bound.
    pub text: String,
    /// Characters of the step's parts at no bound (`views::step_parts_full_chars`): more than
    /// `parts` hold (`StepParts::chars`) when they were elided.
    pub full_chars: u32,
    pub timestamp: Option<String>,
    /// The usage the step records (tokens, cost, call time).
    #[serde(default)]
    pub usage: Option<crate::model::Usage>,
    /// The same step in parts for a transcript (`views::step_parts_with_quotes`): tool,
    /// arguments, text and identifiers apart, together within the grain's bound.
    #[serde(default)]
    pub parts: Option<views::StepParts>,
    /// Where the step's record is in the input, when the step's text or arguments were kept as
    /// a head and a tail (`ingest::compact`): the bytes `offset .. offset + len` of the
    /// (decompressed) input hold what the step keeps only in part (`len` 0: the extent is not
    /// known; the record starts at `offset`, on its line).
    #[serde(default)]
    pub source: Option<SourceSpan>,
}

/// A byte range of the (decompressed) input; `len` 0 when only its start is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceSpan {
    pub offset: u64,
    pub len: u64,
}

/// The record a compacted step was read from; none when where it starts is not known (a step
/// of a whole document whose place was not kept: line 0).
fn elided_source(s: &crate::model::Step) -> Option<SourceSpan> {
    if s.loc.line == 0 {
        return None;
    }
    [s.text_elided.as_deref(), s.args_elided.as_deref()]
        .into_iter()
        .flatten()
        .max_by_key(|e| e.source_len)
        .map(|e| SourceSpan { offset: e.source_offset, len: e.source_len })
}

pub fn columns(t: &Trajectory) -> StepColumns {
    let mut c = StepColumns::default();
    // (`usize`: a table type the detector has, so no more code for it in the web bundle.)
    let mut actor_ids = attribution::text::FastMap::<&str, usize>::default();
    for s in &t.steps {
        c.line.push(s.loc.line);
        c.is_error.push(s.is_error);
        c.role.push(s.role as u8);
        c.kind.push(s.kind as u8);
        let actor = if s.actor.is_empty() {
            u16::MAX
        } else if let Some(&id) = actor_ids.get(s.actor.as_str()) {
            id as u16
        } else if c.actors.len() < usize::from(u16::MAX) {
            let id = c.actors.len() as u16;
            c.actors.push(s.actor.clone());
            actor_ids.insert(&s.actor, usize::from(id));
            id
        } else {
            u16::MAX
        };
        c.actor.push(actor);
    }
    if t.steps.iter().any(|s| s.usage.is_some()) {
        c.tokens = t
            .steps
            .iter()
            .map(|s| {
                s.usage.as_ref().map_or(0, |u| {
                    // Saturating, as `Usage::add`: a trace may write any count.
                    [u.input_tokens, u.output_tokens, u.cache_read_tokens, u.cache_write_tokens]
                        .iter()
                        .flatten()
                        .fold(0u64, |a, &b| a.saturating_add(b))
                })
            })
            .collect();
    }
    c.stalls = crate::usage::step_timings(t)
        .iter()
        .enumerate()
        .filter(|(_, s)| s.stall)
        .map(|(i, _)| i as u32)
        .collect();
    c
}

/// The views of the steps `items` names (index, grain); indices out of range are left out.
pub fn step_views(
    t: &Trajectory,
    triggers: Option<&[Trigger]>,
    items: &[(u32, Grain)],
    opts: &ViewOptions,
) -> Vec<StepView> {
    items
        .iter()
        .filter_map(|&(i, g)| t.steps.get(i as usize).map(|s| (i, s, g)))
        .map(|(i, s, grain)| {
            let quotes = triggers.map(|tr| attribution::quotes_on(tr, i)).unwrap_or_default();
            StepView {
                index: i,
                grain,
                text: views::step_view_with_quotes(s, grain, opts, &quotes),
                // The parts' length at no bound: what a transcript shows of the step whole
                // (its header and arguments are not counted as `full_text` writes them).
                full_chars: views::step_parts_full_chars(s).min(u32::MAX as usize) as u32,
                timestamp: s.timestamp.as_deref().map(str::to_owned),
                usage: s.usage.as_deref().cloned(),
                parts: Some(views::step_parts_with_quotes(s, grain, opts, &quotes)),
                source: elided_source(s),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{SourceLoc, Step, TextElision};

    fn compacted(line: u32, offset: u64, source_len: u64) -> Step {
        let elided = TextElision {
            full_len: 20_000,
            head_len: 10,
            tail_len: 10,
            source_offset: offset,
            source_len,
        };
        Step {
            loc: SourceLoc { line, offset, path: Box::default() },
            text: "head [… elided …] tail".into(),
            text_elided: Some(Box::new(elided)),
            ..Step::default()
        }
    }

    #[test]
    fn a_compacted_step_says_where_its_record_is_when_its_place_is_known() {
        let t = Trajectory {
            steps: vec![
                compacted(3, 120, 20_100),
                compacted(4, 20_221, 0),
                compacted(0, 0, 0),
                Step::default(),
            ],
            ..Trajectory::default()
        };
        let items: Vec<(u32, Grain)> = (0..4).map(|i| (i, Grain::Medium)).collect();
        let spans: Vec<Option<SourceSpan>> = step_views(&t, None, &items, &ViewOptions::default())
            .into_iter()
            .map(|v| v.source)
            .collect();
        assert_eq!(
            spans,
            [
                Some(SourceSpan { offset: 120, len: 20_100 }),
                // The extent is not known: the record starts there.
                Some(SourceSpan { offset: 20_221, len: 0 }),
                // A step of a whole document whose place was not kept: nothing to read again.
                None,
                // Not compacted: the step holds all of it.
                None,
            ]
        );
    }
}
