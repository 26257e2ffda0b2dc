//! The app's state and its transitions (a Yew reducer). Side effects (requests to the worker,
//! scrolling, the URL) happen in the components; this file only computes the next state.

use std::collections::HashMap;
use std::rc::Rc;

use yew::Reducible;

use crate::protocol::{Grain, Response, StepColumns, StepView, TraceSummary};

#[derive(Clone, Debug, PartialEq)]
pub enum FileStatus {
    Loading { bytes: f64, total: f64, lines: f64, quarantined: f64 },
    Ready(Rc<TraceSummary>),
    Failed(String),
    Cancelled,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FileEntry {
    pub id: u32,
    pub name: String,
    pub size: f64,
    pub status: FileStatus,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Filter {
    pub errors_only: bool,
    pub agent: Option<u16>,
    pub role: Option<u8>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Search {
    pub query: String,
    /// A next / previous asked before the worker answered, done when it does.
    pub pending_move: Option<i64>,
    /// Matching step indices (all of the trajectory, ascending), once the worker answered.
    pub hits: Option<Rc<Vec<u32>>>,
}

/// What the page is for right now: reading a diagnosis, or labelling.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// The diagnosis and the transcript.
    #[default]
    Review,
    /// The queue with its progress, the transcript and the label form beside it.
    Annotate,
    /// Two runs side by side (`view/compare.rs`).
    Compare,
}

/// Which trajectories the queue lists.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QueueFilter {
    pub failed_only: bool,
    pub unlabelled_only: bool,
    /// Only files of this format.
    pub format: Option<String>,
}

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

/// What the URL hash holds: file position in the queue, trajectory, step and grain.
#[derive(Clone, Debug, PartialEq)]
pub struct HashView {
    pub file: u32,
    pub traj: u32,
    pub step: Option<u32>,
    pub grain: Grain,
    /// `m=annotate` while annotating, `m=compare` while comparing (absent in Review, the default).
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
pub struct State {
    pub files: Vec<FileEntry>,
    /// Selected (file id, trajectory index).
    pub sel: Option<(u32, u32)>,
    pub columns: Option<Rc<StepColumns>>,
    /// Step indices passing the filter, ascending.
    pub visible: Rc<Vec<u32>>,
    pub cache: Rc<HashMap<(u32, Grain), Rc<StepView>>>,
    pub selected_step: Option<u32>,
    pub grain: Grain,
    /// Focus + context: the selected step high, its neighbours medium, the rest low.
    pub focus: bool,
    pub filter: Filter,
    pub search: Search,
    pub candidates: Rc<Vec<Candidate>>,
    /// (step, nonce): the list scrolls to the step when the nonce changes.
    pub scroll_to: Option<(u32, u32)>,
    pub nonce: u32,
    /// Counts the `c` presses on a selected step (the annotate panel marks it on change).
    pub mark_count: u32,
    pub pending_hash: Option<HashView>,
    pub help_open: bool,
    pub paste_open: bool,
    pub drag_over: bool,
    pub notice: Option<String>,
    pub crashes: u32,
    /// The critical step of the annotator's label for the selected trajectory.
    pub label_step: Option<u32>,
    /// Label status per (file id, trajectory id): the labelled critical step, if any.
    pub labels: Rc<HashMap<(u32, String), Option<u32>>>,
    /// The worker said it is listening (a worker that never started is not restarted).
    pub worker_up: bool,
    pub mode: Mode,
    pub queue_filter: QueueFilter,
    pub compare: super::compare::Compare,
}

pub enum Action {
    Worker(Box<Response>),
    WorkerCrashed(String),
    AddFile {
        id: u32,
        name: String,
        size: f64,
    },
    FileFailed {
        id: u32,
        error: String,
    },
    Forget(u32),
    Select {
        file: u32,
        traj: u32,
    },
    SelectStep(u32),
    GoStep(u32),
    MoveStep(i64),
    MoveCandidate(i64),
    SetGrain(Grain),
    ToggleFocus,
    ErrorsOnly(bool),
    Agent(Option<u16>),
    Role(Option<u8>),
    SearchQuery(String),
    SearchMove(i64),
    MarkCritical,
    PendingHash(HashView),
    Notice(String),
    DragOver(bool),
    TogglePaste,
    ToggleHelp,
    CloseHelp,
    SetMode(Mode),
    /// Open the next trajectory (in queue order, after the selected one) without a label.
    NextUnlabelled,
    QueueFilter(QueueFilter),
    /// The annotate panel changed (or loaded) the label of the selected trajectory.
    Label {
        file: u32,
        trajectory_id: String,
        critical: Option<u32>,
    },
    /// The compare view (`view/compare.rs`).
    Compare(super::compare::Msg),
}

/// Most step texts kept on the page; beyond it the cache starts over.
const CACHE_MAX: usize = 3000;

/// The candidates of a trajectory as the page shows them.
fn candidates_of(t: &crate::protocol::Overview) -> Vec<Candidate> {
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
            quotes: c.evidence.iter().map(|e| e.quote.clone()).filter(|q| !q.is_empty()).collect(),
            why: c.why.clone(),
        })
        .collect()
}

impl State {
    /// Applies `f` to the summary of a loaded file.
    fn update_summary(&mut self, file: u32, f: impl FnOnce(&mut TraceSummary)) {
        if let Some(entry) = self.files.iter_mut().find(|e| e.id == file) {
            if let FileStatus::Ready(s) = &mut entry.status {
                f(Rc::make_mut(s));
            }
        }
    }

    /// `data-state` of the app root.
    pub fn attr(&self) -> &'static str {
        if self.files.is_empty() {
            return "empty";
        }
        if self.files.iter().any(|f| matches!(f.status, FileStatus::Loading { .. })) {
            return "loading";
        }
        if self.sel.is_some() {
            return if self.columns.is_some() { "ready" } else { "loading" };
        }
        if self.files.iter().any(|f| matches!(f.status, FileStatus::Failed(_))) {
            return "error";
        }
        "empty"
    }

    pub fn summary(&self, file: u32) -> Option<&Rc<TraceSummary>> {
        self.files.iter().find(|f| f.id == file).and_then(|f| match &f.status {
            FileStatus::Ready(s) => Some(s),
            _ => None,
        })
    }

    pub fn hash_view(&self) -> Option<HashView> {
        let (file, traj) = self.sel?;
        let pos = self.files.iter().position(|f| f.id == file)? as u32;
        let vs = super::compare::right_of(self)
            .and_then(|(f, t)| Some((self.files.iter().position(|x| x.id == f)? as u32, t)));
        Some(HashView {
            file: pos,
            traj,
            step: self.selected_step,
            grain: self.grain,
            mode: self.mode,
            vs: vs.filter(|_| self.mode == Mode::Compare),
        })
    }

    /// The grain step `i` is shown at.
    pub fn grain_of(&self, i: u32) -> Grain {
        match (self.focus, self.selected_step) {
            (true, Some(sel)) => match sel.abs_diff(i) {
                0 => Grain::High,
                1..=2 => Grain::Medium,
                _ => Grain::Low,
            },
            (true, None) => Grain::Low,
            (false, _) => self.grain,
        }
    }

    fn compute_visible(&mut self) {
        let Some(c) = &self.columns else {
            self.visible = Rc::new(Vec::new());
            return;
        };
        let f = &self.filter;
        let v = (0..c.line.len() as u32)
            .filter(|&i| {
                let i = i as usize;
                (!f.errors_only || c.is_error[i])
                    && f.agent.is_none_or(|a| c.actor[i] == a)
                    && f.role.is_none_or(|r| c.role[i] == r)
            })
            .collect();
        self.visible = Rc::new(v);
    }

    fn go(&mut self, step: u32) {
        self.selected_step = Some(step);
        self.nonce += 1;
        self.scroll_to = Some((step, self.nonce));
    }

    pub(super) fn select(&mut self, file: u32, traj: u32) {
        self.sel = Some((file, traj));
        self.columns = None;
        self.cache = Rc::new(HashMap::new());
        self.selected_step = None;
        self.search.hits = None;
        self.filter = Filter::default();
        self.visible = Rc::new(Vec::new());
        let info = self.summary(file).and_then(|s| s.trajectories.get(traj as usize));
        self.candidates = Rc::new(info.map(candidates_of).unwrap_or_default());
        self.label_step = None;
        let empty = self.summary(file).is_some_and(|s| s.trajectories.len() <= traj as usize);
        if empty {
            self.columns = Some(Rc::new(StepColumns::default()));
        }
    }

    fn select_first_ready(&mut self) {
        self.sel = None;
        self.columns = None;
        let first =
            self.files.iter().find(|f| matches!(f.status, FileStatus::Ready(_))).map(|f| f.id);
        if let Some(id) = first {
            self.select(id, 0);
        }
    }

    fn on_worker(&mut self, resp: Response) {
        match resp {
            Response::Ready => self.worker_up = true,
            Response::Analysed { file, overviews } => {
                if let Some((_, o)) = overviews.iter().find(|(t, _)| self.sel == Some((file, *t))) {
                    self.candidates = Rc::new(candidates_of(o));
                }
                // One update (one re-render) per batch.
                self.update_summary(file, |s| {
                    for (traj, o) in overviews {
                        if let Some(t) = s.trajectories.get_mut(traj as usize) {
                            if !t.analysed && o.analysed {
                                s.analysed += 1;
                            }
                            *t = o;
                        }
                    }
                });
            }
            Response::Identity { file, content_hash } => {
                self.update_summary(file, |s| s.content_hash = content_hash);
            }
            Response::CasesReady { file, cases, cases_jsonl, brief_markdown } => {
                self.update_summary(file, |s| {
                    s.cases = cases;
                    s.cases_jsonl = cases_jsonl;
                    s.brief_markdown = brief_markdown;
                    s.analysis_done = true;
                });
            }
            Response::QuarantineJsonl { .. } => {}
            Response::Compared { left, right, comparison, left_columns, right_columns, .. } => {
                super::compare::on_compared(
                    self,
                    left,
                    right,
                    *comparison,
                    *left_columns,
                    *right_columns,
                );
            }
            Response::Progress { file, bytes, total, lines, quarantined } => {
                if let Some(f) = self.files.iter_mut().find(|f| f.id == file) {
                    if matches!(f.status, FileStatus::Loading { .. }) {
                        f.status = FileStatus::Loading { bytes, total, lines, quarantined };
                    }
                }
            }
            Response::Loaded { file, summary } => {
                let pos = self.files.iter().position(|f| f.id == file);
                if let Some(p) = pos {
                    self.files[p].status = FileStatus::Ready(Rc::new(*summary));
                }
                let pending = self.pending_hash.clone().filter(|h| Some(h.file as usize) == pos);
                // A newly opened file becomes the view (a deep link's file when one waits).
                let waiting_for_other =
                    self.pending_hash.as_ref().is_some_and(|h| Some(h.file as usize) != pos);
                if let Some(h) = pending {
                    self.select(file, h.traj);
                } else if self.sel.is_none() || !waiting_for_other {
                    self.select(file, 0);
                }
            }
            Response::Failed { file, error } => self.fail(file, error),
            Response::Cancelled { file } => {
                if let Some(f) = self.files.iter_mut().find(|f| f.id == file) {
                    f.status = FileStatus::Cancelled;
                }
            }
            Response::Columns { file, traj, columns, .. } => {
                if self.sel == Some((file, traj)) {
                    self.columns = Some(Rc::new(columns));
                    self.compute_visible();
                    let pos = self.files.iter().position(|f| f.id == file).map(|p| p as u32);
                    if let Some(h) = self.pending_hash.take() {
                        if Some(h.file) == pos && h.traj == traj {
                            self.grain = h.grain;
                            if let Some(s) = h.step.filter(|&s| (s as usize) < self.visible.len()) {
                                self.go(s);
                            }
                        } else {
                            self.pending_hash = Some(h);
                        }
                    }
                }
            }
            Response::Steps { file, traj, steps, .. } => {
                super::compare::on_steps(&mut self.compare, file, traj, &steps);
                if self.sel == Some((file, traj)) {
                    let mut cache = (*self.cache).clone();
                    if cache.len() > CACHE_MAX {
                        cache.clear();
                    }
                    for s in steps {
                        cache.insert((s.index, s.grain), Rc::new(s));
                    }
                    self.cache = Rc::new(cache);
                }
            }
            Response::SearchHits { file, traj, query, hits, .. } => {
                if self.sel == Some((file, traj)) && query == self.search.query {
                    self.search.hits = Some(Rc::new(hits));
                    if let Some(d) = self.search.pending_move.take() {
                        self.move_search(d);
                    }
                }
            }
        }
    }

    fn fail(&mut self, file: u32, error: String) {
        if let Some(f) = self.files.iter_mut().find(|f| f.id == file) {
            f.status = FileStatus::Failed(error);
        }
    }

    /// The position of the selected step in `visible`, or where it would be.
    fn visible_pos(&self) -> Result<usize, usize> {
        match self.selected_step {
            Some(s) => self.visible.binary_search(&s),
            None => Err(0),
        }
    }

    fn move_step(&mut self, d: i64) {
        if self.visible.is_empty() {
            return;
        }
        let last = self.visible.len() as i64 - 1;
        let target = match (self.selected_step, self.visible_pos()) {
            (None, _) => 0,
            (Some(_), Ok(p)) => (p as i64 + d).clamp(0, last),
            (Some(_), Err(p)) if d > 0 => (p as i64).min(last),
            (Some(_), Err(p)) => (p as i64 - 1).clamp(0, last),
        };
        self.go(self.visible[target as usize]);
    }

    fn move_search(&mut self, d: i64) {
        let Some(hits) = self.search.hits.clone() else {
            if !self.search.query.is_empty() {
                self.search.pending_move = Some(d);
            }
            return;
        };
        let shown: Vec<u32> =
            hits.iter().copied().filter(|h| self.visible.binary_search(h).is_ok()).collect();
        if shown.is_empty() {
            return;
        }
        let target = match self.selected_step {
            None => shown[0],
            Some(s) if d > 0 => shown.iter().copied().find(|&h| h > s).unwrap_or(shown[0]),
            Some(s) => {
                shown.iter().rev().copied().find(|&h| h < s).unwrap_or(shown[shown.len() - 1])
            }
        };
        self.go(target);
    }

    /// Whether trajectory `id` of `file` carries a saved label.
    pub fn is_labelled(&self, file: u32, id: &str) -> bool {
        self.labels.contains_key(&(file, id.to_string()))
    }

    /// (labelled, total) over every trajectory of every loaded file.
    pub fn progress(&self) -> (usize, usize) {
        let mut done = 0;
        let mut total = 0;
        for f in &self.files {
            if let FileStatus::Ready(s) = &f.status {
                total += s.trajectories.len();
                done += s.trajectories.iter().filter(|t| self.is_labelled(f.id, &t.id)).count();
            }
        }
        (done, total)
    }

    /// Whether the queue lists trajectory `t` of `file` under its filter.
    pub fn queue_shows(&self, file: u32, format: &str, t: &crate::protocol::Overview) -> bool {
        let f = &self.queue_filter;
        f.format.as_deref().is_none_or(|want| want == format)
            && (!f.failed_only || t.outcome == trajscope_core::model::Outcome::Failed)
            && (!f.unlabelled_only || !self.is_labelled(file, &t.id))
    }

    /// The next trajectory without a label after the selected one, in queue order (wrapping),
    /// among those the queue's filter shows.
    pub fn next_unlabelled(&self) -> Option<(u32, u32)> {
        let mut all: Vec<(u32, u32)> = Vec::new();
        for f in &self.files {
            if let FileStatus::Ready(s) = &f.status {
                for (i, t) in s.trajectories.iter().enumerate() {
                    let filter =
                        QueueFilter { unlabelled_only: false, ..self.queue_filter.clone() };
                    let shown = filter.format.as_deref().is_none_or(|w| w == s.format)
                        && (!filter.failed_only
                            || t.outcome == trajscope_core::model::Outcome::Failed);
                    if shown && !self.is_labelled(f.id, &t.id) {
                        all.push((f.id, i as u32));
                    }
                }
            }
        }
        let order = |k: &(u32, u32)| {
            let fpos = self.files.iter().position(|f| f.id == k.0).unwrap_or(usize::MAX);
            (fpos, k.1)
        };
        let cur = self.sel.map(|k| order(&k));
        all.iter()
            .copied()
            .find(|k| cur.is_none_or(|c| order(k) > c))
            .or_else(|| all.iter().copied().find(|k| Some(*k) != self.sel))
    }

    fn move_candidate(&mut self, d: i64) {
        let n = self.candidates.len();
        if n == 0 {
            return;
        }
        let cur = self.selected_step.and_then(|s| self.candidates.iter().position(|c| c.step == s));
        let next = match cur {
            None if d > 0 => 0,
            None => n - 1,
            Some(i) => (i as i64 + d).rem_euclid(n as i64) as usize,
        };
        let step = self.candidates[next].step;
        self.go(step);
    }
}

impl Reducible for State {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        // While comparing, the shared keys mean the compare view's moves.
        let Some(action) = super::compare::route(&self, action) else { return self };
        let mut s = (*self).clone();
        match action {
            Action::Worker(resp) => s.on_worker(*resp),
            Action::WorkerCrashed(msg) => {
                for f in &mut s.files {
                    f.status = match &f.status {
                        FileStatus::Loading { bytes, .. } => FileStatus::Failed(format!(
                            "The browser ran out of room for this trace after {:.0} MB ({msg}). \
                             Use the trajscope CLI for files this big, or split the file.",
                            bytes / 1e6
                        )),
                        FileStatus::Ready(_) => FileStatus::Failed(
                            "The ingest worker stopped; load this file again.".into(),
                        ),
                        other => other.clone(),
                    };
                }
                s.sel = None;
                s.columns = None;
                if s.worker_up {
                    s.worker_up = false;
                    s.crashes += 1;
                } else {
                    s.notice = Some(format!("The ingest worker could not start: {msg}"));
                }
            }
            Action::AddFile { id, name, size } => {
                s.notice = None;
                s.files.push(FileEntry {
                    id,
                    name,
                    size,
                    status: FileStatus::Loading {
                        bytes: 0.0,
                        total: size,
                        lines: 0.0,
                        quarantined: 0.0,
                    },
                });
            }
            Action::FileFailed { id, error } => s.fail(id, error),
            Action::Forget(id) => {
                s.files.retain(|f| f.id != id);
                if s.sel.is_some_and(|(f, _)| f == id) {
                    s.select_first_ready();
                }
            }
            Action::Select { file, traj } => {
                if s.sel != Some((file, traj)) {
                    s.select(file, traj);
                }
            }
            Action::SelectStep(i) => s.selected_step = Some(i),
            Action::GoStep(i) => s.go(i),
            Action::MoveStep(d) => s.move_step(d),
            Action::MoveCandidate(d) => s.move_candidate(d),
            Action::SetGrain(g) => {
                s.grain = g;
                s.focus = false;
                if let Some(step) = s.selected_step {
                    s.go(step);
                }
            }
            Action::ToggleFocus => s.focus = !s.focus,
            Action::ErrorsOnly(b) => {
                s.filter.errors_only = b;
                s.compute_visible();
            }
            Action::Agent(a) => {
                s.filter.agent = a;
                s.compute_visible();
            }
            Action::Role(r) => {
                s.filter.role = r;
                s.compute_visible();
            }
            Action::SearchQuery(q) => {
                if q != s.search.query {
                    s.search = Search { query: q, hits: None, pending_move: None };
                }
            }
            Action::SearchMove(d) => s.move_search(d),
            Action::MarkCritical => {
                if s.selected_step.is_some() {
                    s.mark_count += 1;
                    // Marking is labelling: the label form comes into view.
                    s.mode = Mode::Annotate;
                }
            }
            Action::PendingHash(h) => {
                s.mode = h.mode;
                s.compare.pending_right = h.vs;
                s.pending_hash = Some(h);
            }
            Action::Notice(n) => s.notice = Some(n),
            Action::DragOver(b) => s.drag_over = b,
            Action::TogglePaste => s.paste_open = !s.paste_open,
            Action::ToggleHelp => s.help_open = !s.help_open,
            Action::CloseHelp => s.help_open = false,
            Action::SetMode(m) => s.mode = m,
            Action::NextUnlabelled => {
                if let Some((file, traj)) = s.next_unlabelled() {
                    s.select(file, traj);
                }
            }
            Action::QueueFilter(f) => s.queue_filter = f,
            Action::Compare(m) => super::compare::update(&mut s, m),
            Action::Label { file, trajectory_id, critical } => {
                if s.sel.is_some_and(|(f, _)| f == file) {
                    s.label_step = critical;
                }
                let mut labels = (*s.labels).clone();
                labels.insert((file, trajectory_id), critical);
                s.labels = Rc::new(labels);
            }
        }
        Rc::new(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use trajscope_core::classify::Signals;
    use trajscope_core::model::Outcome;

    fn with_columns(n: u32, errors: &[u32]) -> State {
        let mut s = State { sel: Some((1, 0)), ..State::default() };
        let c = StepColumns {
            line: (1..=n).collect(),
            is_error: (0..n).map(|i| errors.contains(&i)).collect(),
            role: vec![2; n as usize],
            actor: vec![u16::MAX; n as usize],
            actors: vec![],
            kind: vec![0; n as usize],
            ..StepColumns::default()
        };
        s.on_worker(Response::Columns { req: 1, file: 1, traj: 0, columns: c });
        s
    }

    fn act(s: State, a: Action) -> State {
        (*Rc::new(s).reduce(a)).clone()
    }

    #[test]
    fn hash_round_trips_and_rejects_junk() {
        let h = HashView {
            file: 2,
            traj: 3,
            step: Some(41),
            grain: Grain::Low,
            mode: Mode::Review,
            vs: None,
        };
        assert_eq!(h.to_hash(), "#f=2&t=3&s=41&g=low");
        assert_eq!(HashView::parse(&h.to_hash()), Some(h.clone()));
        let a = HashView { mode: Mode::Annotate, ..h };
        assert_eq!(a.to_hash(), "#f=2&t=3&s=41&g=low&m=annotate");
        assert_eq!(HashView::parse(&a.to_hash()), Some(a.clone()));
        let c = HashView { mode: Mode::Compare, vs: Some((1, 7)), ..a };
        assert_eq!(c.to_hash(), "#f=2&t=3&s=41&g=low&m=compare&vs=1.7");
        assert_eq!(HashView::parse(&c.to_hash()), Some(c));
        assert_eq!(HashView::parse("#f=0&vs=1"), None);
        assert_eq!(HashView::parse("#f=0&m=nope"), None);
        assert_eq!(HashView::parse("#g=nope"), None);
        assert_eq!(HashView::parse(""), None);
    }

    #[test]
    fn step_moves_follow_the_filter() {
        let s = with_columns(10, &[3, 7]);
        let s = act(s, Action::MoveStep(1));
        assert_eq!(s.selected_step, Some(0));
        let s = act(s, Action::ErrorsOnly(true));
        assert_eq!(*s.visible, vec![3, 7]);
        let s = act(s, Action::MoveStep(1));
        assert_eq!(s.selected_step, Some(3));
        let s = act(s, Action::MoveStep(1));
        let s = act(s, Action::MoveStep(1));
        assert_eq!(s.selected_step, Some(7), "clamped at the end");
    }

    #[test]
    fn search_next_and_previous_wrap_around() {
        let mut s = with_columns(100, &[]);
        s.search.query = "x".into();
        s.on_worker(Response::SearchHits {
            req: 1,
            file: 1,
            traj: 0,
            query: "x".into(),
            hits: vec![5, 50, 95],
        });
        let s = act(s, Action::SearchMove(1));
        assert_eq!(s.selected_step, Some(5));
        let s = act(s, Action::SearchMove(1));
        assert_eq!(s.selected_step, Some(50));
        let s = act(s, Action::SearchMove(-1));
        assert_eq!(s.selected_step, Some(5));
        let s = act(s, Action::SearchMove(-1));
        assert_eq!(s.selected_step, Some(95));
        assert!(s.scroll_to.is_some());
    }

    #[test]
    fn a_next_before_the_answer_is_done_when_it_arrives() {
        let s = with_columns(10, &[]);
        let s = act(s, Action::SearchQuery("x".into()));
        let s = act(s, Action::SearchMove(1));
        assert_eq!(s.selected_step, None);
        let s = act(
            s,
            Action::Worker(Box::new(Response::SearchHits {
                req: 1,
                file: 1,
                traj: 0,
                query: "x".into(),
                hits: vec![4],
            })),
        );
        assert_eq!(s.selected_step, Some(4));
    }

    #[test]
    fn stale_search_answers_are_ignored() {
        let mut s = with_columns(10, &[]);
        s.search.query = "new".into();
        s.on_worker(Response::SearchHits {
            req: 1,
            file: 1,
            traj: 0,
            query: "old".into(),
            hits: vec![1],
        });
        assert!(s.search.hits.is_none());
    }

    fn summary(ids: &[(&str, Outcome)]) -> Box<TraceSummary> {
        let t = |id: &str, outcome: Outcome| -> crate::protocol::Overview {
            serde_json::from_value(serde_json::json!({
                "id": id, "steps": 1, "outcome": outcome, "task": null, "gold": null, "errors": 0,
                "agents": [], "roles": [], "repeated_action": null, "analysed": true,
                "candidates": [], "critical": null, "classification": null, "failure_mode": null,
                "signals": Signals::default(), "triggers": [],
                "record": trajscope_core::record::AttributionRecord::default(),
            }))
            .unwrap()
        };
        Box::new(TraceSummary {
            content_hash: "sha256:x".into(),
            format: "awtl".into(),
            stats: Default::default(),
            error: None,
            quarantine: vec![],
            quarantine_total: 0,
            trajectories: ids.iter().map(|(id, o)| t(id, *o)).collect(),
            analysed: ids.len() as u32,
            cases: vec![],
            cases_jsonl: String::new(),
            brief_markdown: String::new(),
            analysis_done: true,
            secrets: vec![],
            secrets_total: 0,
        })
    }

    fn loaded(s: State, id: u32, ids: &[(&str, Outcome)]) -> State {
        let s = act(s, Action::AddFile { id, name: format!("f{id}"), size: 1.0 });
        act(s, Action::Worker(Box::new(Response::Loaded { file: id, summary: summary(ids) })))
    }

    #[test]
    fn a_newly_opened_file_becomes_the_view() {
        let s = loaded(State::default(), 1, &[("a", Outcome::Failed)]);
        assert_eq!(s.sel, Some((1, 0)));
        let s = loaded(s, 2, &[("b", Outcome::Passed)]);
        assert_eq!(s.sel, Some((2, 0)), "the second file is the view");
    }

    #[test]
    fn progress_next_unlabelled_and_queue_filters() {
        let s = loaded(
            State::default(),
            1,
            &[("a", Outcome::Failed), ("b", Outcome::Passed), ("c", Outcome::Failed)],
        );
        assert_eq!(s.progress(), (0, 3));
        let s = act(s, Action::Label { file: 1, trajectory_id: "a".into(), critical: Some(0) });
        assert_eq!(s.progress(), (1, 3));
        let s = act(s, Action::NextUnlabelled);
        assert_eq!(s.sel, Some((1, 1)));
        let s = act(s, Action::NextUnlabelled);
        assert_eq!(s.sel, Some((1, 2)));
        let s = act(s, Action::NextUnlabelled);
        assert_eq!(s.sel, Some((1, 1)), "wraps around, skipping the labelled one");
        let f = QueueFilter {
            failed_only: true,
            format: Some("awtl".into()),
            ..QueueFilter::default()
        };
        let s = act(s, Action::QueueFilter(f));
        let info = |s: &State, t: usize| s.summary(1).unwrap().trajectories[t].clone();
        assert!(s.queue_shows(1, "awtl", &info(&s, 0)));
        assert!(!s.queue_shows(1, "awtl", &info(&s, 1)), "passed is hidden");
        assert!(!s.queue_shows(1, "codex", &info(&s, 0)), "another format is hidden");
        // Under "failed only", the next unlabelled is a failed one.
        let s = act(s, Action::NextUnlabelled);
        assert_eq!(s.sel, Some((1, 2)));
        let f = QueueFilter { unlabelled_only: true, ..QueueFilter::default() };
        let s = act(s, Action::QueueFilter(f));
        assert!(!s.queue_shows(1, "awtl", &info(&s, 0)), "labelled is hidden");
    }

    #[test]
    fn marking_critical_opens_annotate() {
        let s = with_columns(5, &[]);
        let s = act(s, Action::MarkCritical);
        assert_eq!(s.mode, Mode::Review, "nothing selected: nothing to mark");
        let s = act(s, Action::MoveStep(1));
        let s = act(s, Action::MarkCritical);
        assert_eq!((s.mode, s.mark_count), (Mode::Annotate, 1));
    }

    #[test]
    fn focus_context_grains() {
        let mut s = with_columns(10, &[]);
        s.focus = true;
        s.selected_step = Some(5);
        assert_eq!(s.grain_of(5), Grain::High);
        assert_eq!(s.grain_of(4), Grain::Medium);
        assert_eq!(s.grain_of(8), Grain::Low);
    }

    #[test]
    fn a_crash_fails_loading_files_with_a_clear_message() {
        let s = act(State::default(), Action::Worker(Box::new(Response::Ready)));
        let s = act(s, Action::AddFile { id: 1, name: "big".into(), size: 9e8 });
        assert_eq!(s.attr(), "loading");
        let s = act(s, Action::WorkerCrashed("out of memory".into()));
        let FileStatus::Failed(msg) = &s.files[0].status else { panic!("not failed") };
        assert!(msg.contains("ran out of room"));
        assert_eq!(s.attr(), "error");
        assert_eq!(s.crashes, 1, "a worker that was up is restarted");
        // One that never came up is not restarted again and again.
        let s = act(s, Action::WorkerCrashed("404".into()));
        assert_eq!(s.crashes, 1);
        assert!(s.notice.is_some());
    }
}
