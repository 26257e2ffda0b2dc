//! Text compaction: a step's very long `text` or `args` kept as its head and tail around a
//! visible marker line, so memory grows with what the views need rather than with every
//! payload. The AWTL adapter compacts each step as it reads it (its files are the largest;
//! `JsonlAdapter::compacts_steps`); the ingest compacts every other adapter's steps when their
//! trajectories are finished, so every step that leaves the ingest is compacted the same way.

use crate::model::{Step, TextElision};

/// A text longer than this is kept as a head and a tail (see [`compact_text`]).
pub const TEXT_COMPACT_ABOVE: usize = 12 * 1024;
/// Bytes kept at the start and at the end of a compacted text: more than the most detailed view
/// shows (see `docs/limits.md`: 3000 characters), with room for the error lines at the end of a log.
pub const TEXT_KEEP_HEAD: usize = 4 * 1024;
pub const TEXT_KEEP_TAIL: usize = 4 * 1024;

/// Keeps memory growing with what the views need, not with every payload: a step's `text` or
/// `args` longer than [`TEXT_COMPACT_ABOVE`] becomes its head and tail around a visible marker
/// line, with a [`TextElision`] saying what was left out and where the full text is (the record
/// at `step.loc.offset`, `source_len` bytes long; 0 if unknown). Compacting a compacted
/// step changes nothing.
pub fn compact_text(step: &mut Step, source_len: u64) {
    let offset = step.loc.offset;

    if let Some(e) = elide(&mut step.text, offset, source_len) {
        step.text_elided = Some(Box::new(e));
    }
    if let Some(args) = step.args.as_mut() {
        if let Some(e) = elide(args, offset, source_len) {
            step.args_elided = Some(Box::new(e));
        }
    }
}

fn elide(s: &mut String, source_offset: u64, source_len: u64) -> Option<TextElision> {
    if s.len() <= TEXT_COMPACT_ABOVE {
        return None;
    }
    let mut head = TEXT_KEEP_HEAD;
    while !s.is_char_boundary(head) {
        head -= 1;
    }
    // End the head at a line end when one is near, so the marker stands on its own line.
    if let Some(nl) = s[..head].rfind('\n').filter(|&nl| nl >= head * 3 / 4) {
        head = nl + 1;
    }
    let mut tail = s.len() - TEXT_KEEP_TAIL;
    while !s.is_char_boundary(tail) {
        tail += 1;
    }
    if let Some(nl) = s[tail..].find('\n').filter(|&nl| nl < TEXT_KEEP_TAIL / 4) {
        tail += nl + 1;
    }
    let full_len = s.len();
    let sep = if s[..head].ends_with('\n') { "" } else { "\n" };
    let marker = format!("{sep}[… {} bytes elided …]\n", tail - head);
    let mut out = String::with_capacity(head + marker.len() + (full_len - tail));
    out.push_str(&s[..head]);
    out.push_str(&marker);
    out.push_str(&s[tail..]);
    *s = out;
    Some(TextElision {
        full_len: full_len as u64,
        head_len: head as u64,
        tail_len: (full_len - tail) as u64,
        source_offset,
        source_len,
    })
}

/// Compacts every step of finished trajectories (the adapters that do not compact as they read).
pub(crate) fn compact_all(trajectories: &mut [crate::model::Trajectory]) {
    for t in trajectories {
        for step in &mut t.steps {
            compact_text(step, 0);
        }
    }
}
