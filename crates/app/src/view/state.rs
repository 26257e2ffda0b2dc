//! The page's state and its transitions (a Yew reducer), split by concern: each part owns its
//! data and its own transitions ([`queue`], [`selection`], [`nav`], [`search`], [`labels`],
//! [`page`]); this file composes them and holds the transitions that span several (opening a
//! trajectory resets its navigation and search hits; a worker's answer goes to the part it is
//! for). Side effects (requests to the worker, scrolling, the URL) happen in the hooks and
//! components; this module only computes the next state.

pub mod labels;
pub mod nav;
pub mod page;
pub mod queue;
pub mod search;
pub mod selection;

use std::rc::Rc;

use yew::Reducible;

pub use labels::{LabelAction, Labels};
pub use nav::{Filter, Nav, NavAction};
pub use page::{Mode, Page, PageAction, SourceText};
pub use queue::{FileEntry, FileStatus, Queue, QueueAction, QueueFilter};
pub use search::{Search, SearchAction};
pub use selection::{Candidate, HashView, Selection};

use crate::protocol::{Response, TraceSummary};

#[derive(Clone, Debug, Default)]
pub struct State {
    /// How many updates made this state: one more than the state it was made from.
    rev: u64,
    pub queue: Queue,
    pub selection: Selection,
    pub nav: Nav,
    pub search: Search,
    pub labels: Labels,
    pub page: Page,
    /// The compare view's own state (`view/compare.rs`).
    pub compare: super::compare::Compare,
}

/// Two states are equal when one update made both (the same `rev`): the components given the
/// state compare it on every render, and comparing the states' contents cost as much as the
/// queue holds (every file's every row) for each such component, on each update.
impl PartialEq for State {
    fn eq(&self, other: &State) -> bool {
        self.rev == other.rev
    }
}

/// The actions of one part, and those that span several.
pub enum Action {
    Queue(QueueAction),
    Nav(NavAction),
    Search(SearchAction),
    Label(LabelAction),
    Page(PageAction),
    /// An answer of the worker, to the part it is for.
    Worker(Box<Response>),
    /// The worker stopped (its traces are gone).
    WorkerCrashed(String),
    /// Open a trajectory.
    Select {
        file: u32,
        traj: u32,
    },
    /// Open the next trajectory (in queue order, after the selected one) without a label.
    NextUnlabelled,
    /// Go to the next (`+1`) or previous (`-1`) candidate.
    MoveCandidate(i64),
    /// `c`: mark the selected step as the critical one (the label form comes into view).
    MarkCritical,
    /// A deep link from the URL hash, applied when its file and columns arrive.
    PendingHash(HashView),
    /// The compare view (`view/compare.rs`).
    Compare(super::compare::Msg),
}

macro_rules! from_part {
    ($($part:ident => $variant:ident),*) => {
        $(impl From<$part> for Action {
            fn from(a: $part) -> Action {
                Action::$variant(a)
            }
        })*
    };
}
from_part!(QueueAction => Queue, NavAction => Nav, SearchAction => Search,
    LabelAction => Label, PageAction => Page);

impl State {
    /// The open (file id, trajectory index).
    pub fn sel(&self) -> Option<(u32, u32)> {
        self.selection.current
    }

    /// `data-state` of the app root.
    pub fn attr(&self) -> &'static str {
        if self.queue.files.is_empty() {
            return "empty";
        }
        if self.queue.any_loading() {
            return "loading";
        }
        if self.sel().is_some() {
            return if self.nav.columns.is_some() { "ready" } else { "loading" };
        }
        if self.queue.files.iter().any(|f| matches!(f.status, FileStatus::Failed(_))) {
            return "error";
        }
        "empty"
    }

    /// What the URL hash shows of the view.
    pub fn hash_view(&self) -> Option<HashView> {
        let (file, traj) = self.sel()?;
        let pos = self.queue.position(file)? as u32;
        let vs = super::compare::right_of(self)
            .and_then(|(f, t)| Some((self.queue.position(f)? as u32, t)))
            .filter(|_| self.page.mode == Mode::Compare);
        Some(HashView {
            file: pos,
            traj,
            step: self.nav.step,
            grain: self.nav.grain,
            mode: self.page.mode,
            vs,
        })
    }

    /// Opens trajectory `traj` of `file`: no step, filter, texts or search hits of the one
    /// before carry over.
    pub(super) fn select(&mut self, file: u32, traj: u32) {
        let info = self.queue.overview(file, traj);
        self.selection.open(file, traj, info);
        let empty = self.queue.summary(file).is_some_and(|s| s.trajectories.len() <= traj as usize);
        self.nav.reset(empty);
        self.search.reset_hits();
    }

    /// Whether `file` is the first of its batch (a drop, a pick, a folder, an archive) to have
    /// been read: that one becomes the view, not each of the others as it loads in turn.
    fn first_of_batch(&self, file: u32) -> bool {
        let Some(batch) = self.queue.files.by_id(file).map(|f| f.batch) else {
            return true;
        };
        !self.queue.files.iter().any(|f| {
            f.batch == batch && f.id != file && !matches!(f.status, FileStatus::Loading { .. })
        })
    }

    /// Opens the first loaded file's first trajectory (or nothing).
    fn select_first_ready(&mut self) {
        self.selection.close();
        self.nav.reset(false);
        let first = self.queue.ready().next().map(|(id, _)| id);
        if let Some(id) = first {
            self.select(id, 0);
        }
    }

    /// The whole file's summary replaces the one shown while it was read: the reviewer's place
    /// stays (the open trajectory, its step, the step texts and its full overview), except
    /// that a trajectory a later line changed (`revised`) gets its columns and texts again
    /// (its new overview follows, `Analysed`). The page's overviews stay
    /// ([`TraceSummary::unpack_over`]): the whole file's `Loaded` brings only the rows it does
    /// not hold.
    fn read_whole(&mut self, file: u32, early: &TraceSummary, mut summary: TraceSummary) {
        summary.unpack_over(&early.trajectories);
        let open = self.sel().filter(|(f, _)| *f == file).map(|(_, t)| t);
        if open.is_some_and(|t| summary.revised.contains(&t)) {
            self.nav.refresh();
        }
        self.queue.set_status(file, FileStatus::Ready(Rc::new(summary)));
        self.open_link_when_read(file);
    }

    /// A deep link into `file` waits for a trajectory not read yet: opened once it is there,
    /// or once the file is read whole.
    fn open_link_when_read(&mut self, file: u32) {
        let pos = self.queue.position(file).map(|p| p as u32);
        let Some(summary) = self.queue.summary(file) else { return };
        let waiting = self.selection.pending.as_ref().filter(|h| Some(h.file) == pos);
        let Some(traj) = waiting.map(|h| h.traj) else { return };
        let there = (traj as usize) < summary.trajectories.len() || summary.reading.is_none();
        if there && self.sel() != Some((file, traj)) {
            self.select(file, traj);
        }
    }

    fn on_worker(&mut self, resp: Response) {
        match resp {
            Response::Ready => self.page.worker_up = true,
            Response::Analysed { file, overviews } => {
                self.selection.analysed(file, &overviews);
                self.queue.analysed(file, overviews);
            }
            Response::Identity { file, content_hash } => {
                self.queue.update_summary(file, |s| s.content_hash = content_hash);
            }
            Response::CasesReady { file, cases, cases_jsonl, brief_markdown } => {
                self.queue.update_summary(file, |s| {
                    s.cases = Rc::new(cases);
                    s.cases_jsonl = cases_jsonl.into();
                    s.brief_markdown = brief_markdown.into();
                    s.analysis_done = true;
                });
            }
            Response::Rows { file, rows } => {
                let rows = rows.into_iter().map(|(i, r)| (i, r.into_overview()));
                self.queue.analysed(file, rows.collect());
            }
            Response::Secrets { file, found, total, scanned, of } => {
                self.queue.secrets(file, found, total, scanned, of);
            }
            // Saved as a download by the bridge's handler.
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
            // The dataset export's own (crate::annotate::dataset).
            Response::DatasetPart { .. } | Response::DatasetDone { .. } => {}
            Response::Progress { file, bytes, total, lines, quarantined } => {
                self.queue.progress(file, bytes, total, lines, quarantined);
            }
            Response::Loaded { file, mut summary } => {
                let early = self.queue.summary(file).filter(|s| s.reading.is_some()).cloned();
                if let Some(early) = early {
                    return self.read_whole(file, &early, *summary);
                }
                summary.unpack();
                let (len, reading) = (summary.trajectories.len(), summary.reading.is_some());
                self.queue.set_status(file, FileStatus::Ready(Rc::new(*summary)));
                let pos = self.queue.position(file);
                let pending = &self.selection.pending;
                // A newly opened file becomes the view (a deep link's file when one waits).
                let link =
                    pending.as_ref().filter(|h| Some(h.file as usize) == pos).map(|h| h.traj);
                let waiting_for_other =
                    pending.as_ref().is_some_and(|h| Some(h.file as usize) != pos);
                match link {
                    Some(traj) if (traj as usize) < len || !reading => self.select(file, traj),
                    // A file shown early: the link's trajectory is not read yet (opened when
                    // it comes, `Reading`); the first one meanwhile.
                    Some(_) => self.select(file, 0),
                    None if self.sel().is_none()
                        || (!waiting_for_other && self.first_of_batch(file)) =>
                    {
                        self.select(file, 0)
                    }
                    None => {}
                }
            }
            Response::Reading { file, progress, from, rows, growing } => {
                // A row the page holds sent again is new (the first trajectory settled after
                // its growing copy was shown): if it is open, its columns and texts again.
                let held = self.queue.summary(file).map_or(0, |s| s.trajectories.len());
                let open = self.sel().filter(|(f, _)| *f == file).map(|(_, t)| t as usize);
                if open
                    .is_some_and(|t| t >= from as usize && t < held.min(from as usize + rows.len()))
                {
                    self.nav.refresh();
                }
                self.queue.reading(file, progress, from, rows, growing);
                self.open_link_when_read(file);
            }
            Response::Failed { file, error } => {
                self.queue.set_status(file, FileStatus::Failed(error))
            }
            Response::Cancelled { file } => {
                self.queue.set_status(file, FileStatus::Cancelled);
                // A file shown early was open: nothing of it is left to show.
                if self.sel().is_some_and(|(f, _)| f == file) {
                    self.select_first_ready();
                }
            }
            Response::Columns { file, traj, columns, .. } => {
                if !self.selection.is(file, traj) {
                    return;
                }
                self.nav.set_columns(columns);
                // A deep link to this trajectory: its grain and step, now that they can be shown.
                let pos = self.queue.position(file).map(|p| p as u32);
                if let Some(h) = self.selection.pending.take() {
                    if Some(h.file) == pos && h.traj == traj {
                        self.nav.grain = h.grain;
                        if let Some(s) = h.step.filter(|&s| (s as usize) < self.nav.visible.len()) {
                            self.nav.go(s);
                        }
                    } else {
                        self.selection.pending = Some(h);
                    }
                }
            }
            Response::Steps { file, traj, steps, .. } => {
                super::compare::on_steps(&mut self.compare, file, traj, &steps);
                if self.selection.is(file, traj) {
                    self.nav.add_steps(steps);
                }
            }
            Response::SearchHits { file, traj, query, hits, .. } => {
                if self.selection.is(file, traj) {
                    if let Some(step) = self.search.answered(query, hits, &self.nav) {
                        self.nav.go(step);
                    }
                }
            }
        }
    }
}

impl Reducible for State {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        // While comparing, the shared keys mean the compare view's moves.
        let Some(action) = super::compare::route(&self, action) else { return self };
        // Selecting the open trajectory again changes nothing (no new state, no render).
        if let Action::Select { file, traj } = action {
            if self.sel() == Some((file, traj)) {
                return self;
            }
        }
        let mut s = (*self).clone();
        s.rev += 1;
        match action {
            Action::Queue(a) => {
                if matches!(a, QueueAction::Add { .. }) {
                    s.page.notice = None;
                }
                s.queue.reduce(a);
                // The open trajectory's file was forgotten: the first loaded one is the view.
                if s.sel().is_some_and(|(f, _)| s.queue.position(f).is_none()) {
                    s.select_first_ready();
                }
            }
            Action::Nav(a) => s.nav.reduce(a),
            Action::Search(a) => {
                if let Some(step) = s.search.reduce(a, &s.nav) {
                    s.nav.go(step);
                }
            }
            Action::Label(a) => s.labels.reduce(a),
            Action::Page(a) => s.page.reduce(a),
            Action::Worker(resp) => s.on_worker(*resp),
            Action::WorkerCrashed(msg) => {
                s.queue.crashed(&msg);
                s.selection.close();
                s.nav.reset(false);
                s.page.worker_crashed(&msg);
            }
            Action::Select { file, traj } => s.select(file, traj),
            Action::NextUnlabelled => {
                if let Some((file, traj)) = s.labels.next_unlabelled(&s.queue, s.sel()) {
                    s.select(file, traj);
                }
            }
            Action::MoveCandidate(d) => {
                if let Some(step) = s.selection.candidate_after(s.nav.step, d) {
                    s.nav.go(step);
                }
            }
            Action::MarkCritical => {
                if s.nav.step.is_some() {
                    s.labels.mark();
                    // Marking is labelling: the label form comes into view.
                    s.page.mode = Mode::Annotate;
                }
            }
            Action::Compare(m) => super::compare::update(&mut s, m),
            Action::PendingHash(h) => {
                s.page.mode = h.mode;
                s.compare.pending_right = h.vs;
                s.selection.pending = Some(h);
            }
        }
        Rc::new(s)
    }
}
