//! Which trajectory is open, its ranked candidates as the page shows them, and a deep link
//! (the URL hash) waiting for its file and columns.

use std::rc::Rc;

use super::page::Mode;
use crate::protocol::{Grain, Overview};

/// A ranked critical-step candidate, as the attribution gives it.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    pub step: u32,
    pub line: u32,
    pub summary: String,
    pub quotes: Vec<String>,
    /// The features that placed it, in words.
    pub why: Vec<String>,
}

impl Candidate {
    /// The candidates of a trajectory as the page shows them.
    pub fn all_of(t: &Overview) -> Vec<Candidate> {
        t.candidates
            .iter()
            .map(|c| Candidate {
                step: c.step,
                line: c.line,
                // In words; the score itself is the model's business (its `why` says what counts).
                summary: format!(
                    "{} in {} · {}{}",
                    c.category.name().replace('_', " "),
                    c.phase.name().replace('_', " "),
                    c.state.name().replace('_', " "),
                    if c.agent.is_empty() { String::new() } else { format!(" · {}", c.agent) }
                ),
                quotes: c
                    .evidence
                    .iter()
                    .map(|e| e.quote.clone())
                    .filter(|q| !q.is_empty())
                    .collect(),
                why: c.why.clone(),
            })
            .collect()
    }
}

/// What the URL hash holds: file position in the queue, trajectory, step and grain.
#[derive(Clone, Debug, PartialEq)]
pub struct HashView {
    pub file: u32,
    pub traj: u32,
    pub step: Option<u32>,
    pub grain: Grain,
    /// `m=annotate` while annotating, `m=compare` while comparing (absent in Review, the
    /// default).
    pub mode: Mode,
    /// While comparing: the right run, `vs=FILE.TRAJ` (file position in the queue).
    pub vs: Option<(u32, u32)>,
}

impl HashView {
    pub fn parse(hash: &str) -> Option<HashView> {
        let mut h = HashView {
            file: 0,
            traj: 0,
            step: None,
            grain: Grain::default(),
            mode: Mode::Review,
            vs: None,
        };
        let mut any = false;
        for part in hash.trim_start_matches('#').split('&') {
            let (k, v) = part.split_once('=')?;
            any = true;
            match k {
                "f" => h.file = v.parse().ok()?,
                "t" => h.traj = v.parse().ok()?,
                "s" => h.step = Some(v.parse().ok()?),
                "g" => h.grain = Grain::from_name(v)?,
                "m" => {
                    h.mode = match v {
                        "annotate" => Mode::Annotate,
                        "review" => Mode::Review,
                        "compare" => Mode::Compare,
                        _ => return None,
                    }
                }
                "vs" => {
                    let (f, t) = v.split_once('.')?;
                    h.vs = Some((f.parse().ok()?, t.parse().ok()?));
                }
                _ => {}
            }
        }
        any.then_some(h)
    }

    pub fn to_hash(&self) -> String {
        let mut s = format!("#f={}&t={}", self.file, self.traj);
        if let Some(step) = self.step {
            s.push_str(&format!("&s={step}"));
        }
        s.push_str(&format!("&g={}", self.grain.name()));
        match (self.mode, self.vs) {
            (Mode::Annotate, _) => s.push_str("&m=annotate"),
            (Mode::Compare, vs) => {
                s.push_str("&m=compare");
                if let Some((f, t)) = vs {
                    s.push_str(&format!("&vs={f}.{t}"));
                }
            }
            (Mode::Review, _) => {}
        }
        s
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Selection {
    /// The open (file id, trajectory index).
    pub current: Option<(u32, u32)>,
    /// The open trajectory's ranked candidates.
    pub candidates: Rc<Vec<Candidate>>,
    /// A deep link not applied yet: its file is not loaded, or its columns have not arrived.
    pub pending: Option<HashView>,
}

impl Selection {
    /// Opens trajectory `traj` of `file` (its overview, if loaded, gives the candidates).
    pub fn open(&mut self, file: u32, traj: u32, info: Option<&Overview>) {
        self.current = Some((file, traj));
        self.candidates = Rc::new(info.map(Candidate::all_of).unwrap_or_default());
    }

    pub fn close(&mut self) {
        self.current = None;
    }

    /// Whether trajectory `traj` of `file` is the open one.
    pub fn is(&self, file: u32, traj: u32) -> bool {
        self.current == Some((file, traj))
    }

    /// New overviews of `file`: the open trajectory's candidates follow them.
    pub fn analysed(&mut self, file: u32, overviews: &[(u32, Overview)]) {
        if let Some((_, o)) = overviews.iter().find(|(t, _)| self.is(file, *t)) {
            self.candidates = Rc::new(Candidate::all_of(o));
        }
    }

    /// The candidate `d` away from `step` in rank order (wrapping); from no candidate, the
    /// first (`d > 0`) or the last.
    pub fn candidate_after(&self, step: Option<u32>, d: i64) -> Option<u32> {
        let n = self.candidates.len();
        if n == 0 {
            return None;
        }
        let cur = step.and_then(|s| self.candidates.iter().position(|c| c.step == s));
        let next = match cur {
            None if d > 0 => 0,
            None => n - 1,
            Some(i) => (i as i64 + d).rem_euclid(n as i64) as usize,
        };
        Some(self.candidates[next].step)
    }
}
