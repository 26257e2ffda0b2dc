//! Two trajectories compared step by step: a sequence alignment on each step's key (role, kind,
//! tool and its normalised command or content), the first divergence, and both runs' outcomes
//! and critical steps. The CLI's `diff` and the app's compare view show this; the key and the
//! JSON are documented in `docs/diff.md`.
//!
//! The alignment is a Myers diff over interned keys (one `u32` per distinct key), after
//! the shared prefix and suffix are trimmed; a long middle is aligned in bounded pieces. No
//! clock is needed: `similar`'s Myers bounds its own work on hard inputs, and the pieces keep the
//! whole linear in the length, so two 100,000-step runs align in under a second whatever they
//! hold (`cargo bench -p trajscope-core --bench diff`). The result may be longer than the
//! shortest edit script, never wrong: every step of both runs is in exactly one row, in order.
//! Native builds run `similar`'s Myers; the web build the small exact one of [`myers`] (for the
//! bundle's size), whose rows may pair a stretch differently where two alignments are as short.

use std::fmt::Write as _;
use std::hash::{Hash as _, Hasher as _};

use serde::{Deserialize, Serialize};
#[cfg(not(target_arch = "wasm32"))]
use similar::{Algorithm, DiffOp};

pub mod myers;

use crate::attribution::TrajectoryAnalysis;
use crate::model::{Outcome, Step, Trajectory};

/// How a row of the alignment relates the two runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PairKind {
    /// Both steps have the same key (they may differ in what normalisation removed).
    Equal,
    /// Both runs have a step here, with different keys (a replaced stretch, zipped).
    Changed,
    /// Only the left run has this step.
    LeftOnly,
    /// Only the right run has this step.
    RightOnly,
}

impl PairKind {
    pub fn name(self) -> &'static str {
        match self {
            PairKind::Equal => "equal",
            PairKind::Changed => "changed",
            PairKind::LeftOnly => "left_only",
            PairKind::RightOnly => "right_only",
        }
    }
}

/// One row of the alignment: a left step, a right step, or both (0-based step indexes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pair {
    pub kind: PairKind,
    pub left: Option<u32>,
    pub right: Option<u32>,
}

/// Where the runs stop agreeing: the first row that is not `equal`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Divergence {
    /// The row of [`Comparison::pairs`].
    pub pair: usize,
    /// The first left step after the agreed ones; `None` when the left run had ended there.
    pub left_step: Option<u32>,
    /// The same for the right run.
    pub right_step: Option<u32>,
}

/// What the comparison says about one run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Side {
    pub id: String,
    pub steps: usize,
    pub outcome: Outcome,
    /// The predicted critical step (from the analysis); `None` when the run did not fail or it
    /// was not analysed.
    pub critical_step: Option<u32>,
}

impl Side {
    pub fn of(t: &Trajectory, analysis: Option<&TrajectoryAnalysis>) -> Side {
        Side {
            id: t.id.clone(),
            steps: t.steps.len(),
            outcome: t.outcome,
            critical_step: analysis.and_then(|a| a.critical.as_ref()).map(|c| c.step),
        }
    }
}

/// How many rows of each kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    pub equal: usize,
    pub changed: usize,
    pub left_only: usize,
    pub right_only: usize,
}

/// Two runs aligned. Every step of each run appears in exactly one row, in order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    pub left: Side,
    pub right: Side,
    /// `None` when the runs agree on every step (same keys, same length).
    pub first_divergence: Option<Divergence>,
    pub counts: Counts,
    pub pairs: Vec<Pair>,
}

/// Compares two trajectories; the analyses (when given) supply the critical steps.
pub fn compare(
    left: &Trajectory,
    left_analysis: Option<&TrajectoryAnalysis>,
    right: &Trajectory,
    right_analysis: Option<&TrajectoryAnalysis>,
) -> Comparison {
    let pairs = align_steps(&left.steps, &right.steps);
    let first_divergence = first_divergence(&pairs, left.steps.len(), right.steps.len());
    let mut counts = Counts::default();
    for p in &pairs {
        match p.kind {
            PairKind::Equal => counts.equal += 1,
            PairKind::Changed => counts.changed += 1,
            PairKind::LeftOnly => counts.left_only += 1,
            PairKind::RightOnly => counts.right_only += 1,
        }
    }
    Comparison {
        left: Side::of(left, left_analysis),
        right: Side::of(right, right_analysis),
        first_divergence,
        counts,
        pairs,
    }
}

/// Aligns two step lists by their keys ([`step_key`]).
pub fn align_steps(left: &[Step], right: &[Step]) -> Vec<Pair> {
    let mut interner = Interner::default();
    let mut buf = String::new();
    let l: Vec<u32> = left.iter().map(|s| interner.id(step_key_hash(s, &mut buf))).collect();
    let r: Vec<u32> = right.iter().map(|s| interner.id(step_key_hash(s, &mut buf))).collect();
    align_keys(&l, &r)
}

/// Aligns two key sequences (any `Eq` ids): the shared prefix and suffix are matched as they
/// are, the middle by `similar`'s Myers diff; a replaced stretch becomes `changed` rows, zipped,
/// its excess one-sided.
pub fn align_keys(l: &[u32], r: &[u32]) -> Vec<Pair> {
    let mut pairs = Vec::with_capacity(l.len().max(r.len()) + 8);
    let prefix = l.iter().zip(r).take_while(|(a, b)| a == b).count();
    let suffix =
        l[prefix..].iter().rev().zip(r[prefix..].iter().rev()).take_while(|(a, b)| a == b).count();
    for i in 0..prefix {
        pairs.push(both(PairKind::Equal, i, i));
    }
    let (lm, rm) = (&l[prefix..l.len() - suffix], &r[prefix..r.len() - suffix]);
    if lm.is_empty() {
        pairs.extend((0..rm.len()).map(|j| right_only(prefix + j)));
    } else if rm.is_empty() {
        pairs.extend((0..lm.len()).map(|i| left_only(prefix + i)));
    } else {
        // A middle of more than WHOLE steps is cut into pieces of at most PIECE steps a side,
        // at proportional points, each aligned on its own: the work stays linear in the length whatever the
        // runs hold (a shift longer than a piece shows as steps on one side only, never lost).
        let pieces = match lm.len() + rm.len() {
            n if n <= WHOLE => 1,
            _ => lm.len().max(rm.len()).div_ceil(PIECE),
        };
        for p in 0..pieces {
            let cut = |len: usize, k: usize| len * k / pieces;
            let (l0, l1) = (cut(lm.len(), p), cut(lm.len(), p + 1));
            let (r0, r1) = (cut(rm.len(), p), cut(rm.len(), p + 1));
            align_middle(&lm[l0..l1], &rm[r0..r1], prefix + l0, prefix + r0, &mut pairs);
        }
    }
    let (ls, rs) = (l.len() - suffix, r.len() - suffix);
    for k in 0..suffix {
        pairs.push(both(PairKind::Equal, ls + k, rs + k));
    }
    pairs
}

/// A middle of at most this many steps (both sides together) is aligned whole; a longer one
/// in pieces of at most [`PIECE`] steps a side (see [`align_keys`]). Myers' work grows with the
/// length times the differences, so this keeps it linear in the length.
const WHOLE: usize = 4096;
const PIECE: usize = 256;

/// Aligns `l` against `r` (offsets `lo`, `ro` in the runs) with [`myers::matches`], appending
/// the rows to `out`: between two matched steps, the unmatched ones of both sides are zipped
/// into `changed` rows, the excess one-sided (left first), as `similar`'s replace ops below.
#[cfg(target_arch = "wasm32")]
fn align_middle(l: &[u32], r: &[u32], lo: usize, ro: usize, out: &mut Vec<Pair>) {
    rows_between_matches(l, r, lo, ro, &myers::matches(l, r), out);
}

/// The rows of an alignment given by its matched pairs (see `align_middle`).
pub fn rows_between_matches(
    l: &[u32],
    r: &[u32],
    lo: usize,
    ro: usize,
    matches: &[(usize, usize)],
    out: &mut Vec<Pair>,
) {
    let (mut i, mut j) = (0, 0);
    let ends = matches.iter().copied().chain([(l.len(), r.len())]);
    for (mi, mj) in ends {
        let (a, b) = (mi.saturating_sub(i), mj.saturating_sub(j));
        let zipped = a.min(b);
        for k in 0..zipped {
            let kind = if l[i + k] == r[j + k] { PairKind::Equal } else { PairKind::Changed };
            out.push(both(kind, lo + i + k, ro + j + k));
        }
        out.extend((zipped..a).map(|k| left_only(lo + i + k)));
        out.extend((zipped..b).map(|k| right_only(ro + j + k)));
        if mi < l.len() && mj < r.len() {
            out.push(both(PairKind::Equal, lo + mi, ro + mj));
        }
        (i, j) = (mi.max(i) + 1, mj.max(j) + 1);
    }
}

/// Aligns `l` against `r` (offsets `lo`, `ro` in the runs) with `similar`'s Myers, appending
/// the rows to `out`.
#[cfg(not(target_arch = "wasm32"))]
fn align_middle(l: &[u32], r: &[u32], lo: usize, ro: usize, out: &mut Vec<Pair>) {
    if l.is_empty() || r.is_empty() {
        out.extend((0..l.len()).map(|i| left_only(lo + i)));
        out.extend((0..r.len()).map(|j| right_only(ro + j)));
        return;
    }
    for op in similar::capture_diff_slices(Algorithm::Myers, l, r) {
        match op {
            DiffOp::Equal { old_index, new_index, len } => out.extend(
                (0..len).map(|k| both(PairKind::Equal, lo + old_index + k, ro + new_index + k)),
            ),
            DiffOp::Delete { old_index, old_len, .. } => {
                out.extend((0..old_len).map(|k| left_only(lo + old_index + k)))
            }
            DiffOp::Insert { new_index, new_len, .. } => {
                out.extend((0..new_len).map(|k| right_only(ro + new_index + k)))
            }
            DiffOp::Replace { old_index, old_len, new_index, new_len } => {
                let zipped = old_len.min(new_len);
                for k in 0..zipped {
                    // A heuristic split may pair two equal keys here: they are equal rows.
                    let (i, j) = (old_index + k, new_index + k);
                    let kind = if l[i] == r[j] { PairKind::Equal } else { PairKind::Changed };
                    out.push(both(kind, lo + i, ro + j));
                }
                out.extend((zipped..old_len).map(|k| left_only(lo + old_index + k)));
                out.extend((zipped..new_len).map(|k| right_only(ro + new_index + k)));
            }
        }
    }
}

fn idx(i: usize) -> Option<u32> {
    Some(u32::try_from(i).unwrap_or(u32::MAX))
}

fn both(kind: PairKind, i: usize, j: usize) -> Pair {
    Pair { kind, left: idx(i), right: idx(j) }
}

fn left_only(i: usize) -> Pair {
    Pair { kind: PairKind::LeftOnly, left: idx(i), right: None }
}

fn right_only(j: usize) -> Pair {
    Pair { kind: PairKind::RightOnly, left: None, right: idx(j) }
}

/// The first row that is not `equal`, with the first step of each run after the agreed ones.
pub fn first_divergence(pairs: &[Pair], left_len: usize, right_len: usize) -> Option<Divergence> {
    let pair = pairs.iter().position(|p| p.kind != PairKind::Equal)?;
    // Every row before it is equal: `pair` steps of each run are agreed.
    let step = |len: usize| (pair < len).then(|| idx(pair)).flatten();
    Some(Divergence { pair, left_step: step(left_len), right_step: step(right_len) })
}

/// Dense ids for key hashes, in order of first appearance. (A table of a type the detector
/// has: the web bundle holds no more code for it.)
#[derive(Default)]
struct Interner {
    ids: crate::attribution::text::FastMap<u64, usize>,
}

impl Interner {
    fn id(&mut self, hash: u64) -> u32 {
        let next = self.ids.len();
        u32::try_from(*self.ids.entry(hash).or_insert(next)).unwrap_or(u32::MAX)
    }
}

/// The 64-bit hash of [`step_key`] (computed into `buf`, which is reused). Two different keys
/// share a hash with a chance of about 1 in 10^9 for 200,000 steps; they would then align as
/// equal.
fn step_key_hash(step: &Step, buf: &mut String) -> u64 {
    buf.clear();
    write_key(step, buf);
    let mut h = std::collections::hash_map::DefaultHasher::new();
    buf.hash(&mut h);
    h.finish()
}

/// What a step is compared by: `role/kind tool: body`, where the body is the tool call's
/// arguments (or command) when it has some, else its text, [`normalise`]d.
pub fn step_key(step: &Step) -> String {
    let mut out = String::new();
    write_key(step, &mut out);
    out
}

fn write_key(step: &Step, out: &mut String) {
    out.push_str(step.role.name());
    out.push('/');
    out.push_str(step.kind.name());
    out.push(' ');
    if let Some(tool) = &step.tool {
        normalise_into(tool, out);
    }
    out.push_str(": ");
    let body = match &step.args {
        Some(args) if !args.trim().is_empty() => args,
        _ => &step.text,
    };
    normalise_into(body, out);
    // How the step ended is no incidental detail: a run end that passed and one that failed,
    // or a command's exit 0 and exit 1, are not the same step.
    if let Some(status) = &step.status {
        out.push_str(" [status ");
        normalise_into(status, out);
        out.push(']');
    }
    if let Some(code) = step.exit_code {
        // Into the key's own buffer (one key per step of both runs: no string of its own).
        let _ = write!(out, " [exit {code}]");
    }
    if step.is_error {
        out.push_str(" [error]");
    }
}

/// The text as compared: runs of whitespace become one space (trimmed at the ends); an id —
/// a word of 8 or more hexadecimal digits (dashes allowed, as in a UUID) holding a digit — becomes
/// `#`, and so does every other run of digits; an absolute path (`/a/b/c`, `~/a/b/c`) of two or
/// more directories keeps only its last component, after `…/`. So two trials that differ only
/// in timestamps, counters, call ids or sandbox directories compare equal.
pub fn normalise(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(4096));
    normalise_into(text, &mut out);
    out
}

fn is_path_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'-' | b'/' | b'~' | b'+')
}

fn normalise_into(text: &str, out: &mut String) {
    let b = text.as_bytes();
    let mut i = 0;
    // Whether a space is owed before the next emitted character.
    let mut space = false;
    let start = out.len();
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            space = out.len() > start;
            i += 1;
            continue;
        }
        if space {
            out.push(' ');
            space = false;
        }
        let boundary = i == 0 || !is_path_char(b[i - 1]);
        let path_start = c == b'/' || (c == b'~' && b.get(i + 1) == Some(&b'/'));
        if boundary && path_start {
            let end = i + b[i..].iter().take_while(|&&c| is_path_char(c)).count();
            let run = &text[i..end];
            let slashes = run.bytes().filter(|&c| c == b'/').count();
            let last = run.trim_end_matches('/').rsplit('/').next().unwrap_or("");
            if slashes >= 3 && !last.is_empty() {
                out.push_str("…/");
                words_into(last, out);
            } else {
                words_into(run, out);
            }
            i = end;
            continue;
        }
        // Anything else up to the next whitespace or path start.
        let end = i
            + 1
            + b[i + 1..]
                .iter()
                .position(|&c| c.is_ascii_whitespace() || c == b'/' || c == b'~')
                .unwrap_or(b.len() - i - 1);
        words_into(&text[i..end], out);
        i = end;
    }
}

/// Writes `s` with ids and digit runs replaced (see [`normalise`]).
fn words_into(s: &str, out: &mut String) {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_alphanumeric() {
            // A word: alphanumerics, joined by single dashes.
            let mut end = i;
            while end < b.len()
                && (b[end].is_ascii_alphanumeric()
                    || (b[end] == b'-'
                        && end > i
                        && b.get(end + 1).is_some_and(u8::is_ascii_alphanumeric)))
            {
                end += 1;
            }
            let word = &s[i..end];
            let hex = word.bytes().filter(u8::is_ascii_hexdigit).count();
            let is_id = hex >= 8
                && word.bytes().all(|c| c.is_ascii_hexdigit() || c == b'-')
                && word.bytes().any(|c| c.is_ascii_digit());
            if is_id {
                out.push('#');
            } else {
                let mut in_digits = false;
                for ch in word.chars() {
                    if ch.is_ascii_digit() {
                        if !in_digits {
                            out.push('#');
                        }
                        in_digits = true;
                    } else {
                        out.push(ch);
                        in_digits = false;
                    }
                }
            }
            i = end;
        } else {
            // One character (UTF-8 safe: a multi-byte character is copied whole).
            let ch = s[i..].chars().next().unwrap_or(' ');
            out.push(ch);
            i += ch.len_utf8();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalise_folds_whitespace_numbers_ids_and_deep_paths() {
        assert_eq!(normalise("  ls   -la\n\tsrc  "), "ls -la src");
        assert_eq!(normalise("took 123 ms, retry 4"), "took # ms, retry #");
        assert_eq!(normalise("call_ab12cd34ef56 done"), "call_# done");
        assert_eq!(normalise("id 550e8400-e29b-41d4-a716-446655440000 ok"), "id # ok");
        assert_eq!(normalise("cat /tmp/run-a1/src/app.py"), "cat …/app.py");
        assert_eq!(normalise("cat /home/u/proj/src/app.py"), "cat …/app.py");
        assert_eq!(normalise("cd /repo && ls"), "cd /repo && ls");
        assert_eq!(normalise("{\"path\":\"/w/x/y/z.rs\"}"), "{\"path\":\"…/z.rs\"}");
        assert_eq!(normalise("file2.txt vs file10.txt"), "file#.txt vs file#.txt");
        assert_eq!(normalise("naïve café"), "naïve café");
        assert_eq!(normalise(""), "");
        assert_eq!(normalise("deadbeef"), "deadbeef", "no digit: a word, not an id");
    }

    #[test]
    fn keys_name_role_kind_tool_and_prefer_arguments() {
        let s = Step {
            tool: Some("bash".into()),
            args: Some("pytest -k test_3".into()),
            text: "ignored".into(),
            ..Step::default()
        };
        assert_eq!(step_key(&s), "other/message bash: pytest -k test_#");
        let m = Step { text: "Hello  world".into(), ..Step::default() };
        assert_eq!(step_key(&m), "other/message : Hello world");
    }

    #[test]
    fn how_a_step_ended_is_part_of_its_key() {
        let end = |status: &str| Step {
            kind: crate::model::StepKind::RunEnd,
            status: Some(status.into()),
            ..Step::default()
        };
        assert_ne!(step_key(&end("passed")), step_key(&end("failed")));
        assert_eq!(step_key(&end("failed")), step_key(&end("failed")));
        let obs = |code: i64, err: bool| Step {
            text: "ran 12 tests".into(),
            exit_code: Some(code),
            is_error: err,
            ..Step::default()
        };
        assert_ne!(step_key(&obs(0, false)), step_key(&obs(1, false)));
        assert_ne!(step_key(&obs(1, false)), step_key(&obs(1, true)));
        assert_eq!(step_key(&obs(1, true)), "other/message : ran # tests [exit 1] [error]");
    }

    #[test]
    fn a_replaced_stretch_is_zipped_then_one_sided() {
        let p = align_keys(&[1, 2, 3, 9], &[1, 5, 6, 7, 9]);
        let kinds: Vec<PairKind> = p.iter().map(|p| p.kind).collect();
        use PairKind::*;
        assert_eq!(kinds, [Equal, Changed, Changed, RightOnly, Equal]);
        assert_eq!(
            first_divergence(&p, 4, 5).map(|d| (d.left_step, d.right_step)),
            Some((Some(1), Some(1)))
        );
        // A left run that is a prefix of the right: it had ended at the divergence.
        let p = align_keys(&[1, 2], &[1, 2, 3]);
        let d = first_divergence(&p, 2, 3).unwrap();
        assert_eq!((d.pair, d.left_step, d.right_step), (2, None, Some(2)));
    }
}
