//! The sessions the ingest worker holds, by file id, and its answers to the page: each request
//! answered with the session's projection, the background analysis in batches, the cases and
//! the brief once the identity is known. Plain Rust, tested natively.

use std::rc::Rc;

use trajscope_core::ingest::Settled;
use trajscope_core::model::{Format, IngestStats, Outcome, Trace, Trajectory};
use trajscope_core::outcome::ReviewerOutcome;
use trajscope_core::report::QuarantineRecord;
use trajscope_core::vecmap::VecMap;
use trajscope_core::{Loader, Session};

use super::files::{ByFile, FileSet};
use crate::protocol::{
    CaseView, ReadProgress, Request, Response, Row, TraceSummary, QUARANTINE_SHOWN,
    RAW_PREVIEW_CHARS, SECRETS_SHOWN,
};

/// The sessions this worker holds, by file id.
#[derive(Default)]
pub struct Store {
    sessions: ByFile<Session>,
    cancelled: FileSet,
    /// Files whose cases and brief were sent (sent again when a reviewer's outcome changes an
    /// analysis).
    cases_sent: FileSet,
    /// The secret scans still running, by file.
    scans: ByFile<Scan>,
    /// Files whose columns the page asked for: it shows one of their trajectories.
    shown: FileSet,
    /// Files still read; the session of one in `sessions` meanwhile is provisional: the
    /// trajectories settled so far.
    reading: ByFile<Reading>,
}

/// A file still read, shown early ([`Store::settle`]).
#[derive(Default)]
struct Reading {
    /// Settled trajectories whose predecessors have not settled yet, by position: the
    /// provisional session holds positions `0..n` only, so its indices are the final ones.
    waiting: VecMap<usize, Trajectory>,
    /// The provisional `Loaded` was answered: the page shows the file.
    shown: bool,
    /// Rows of the provisional session the page has (the next [`Response::Reading`] brings
    /// the rest).
    sent: usize,
    /// The page asked for step texts (it shows the file).
    stepped: bool,
    /// Reviewer outcomes asked for while the file is read, set on the whole session (a
    /// provisional trajectory keeps the file's outcome: it is given back to the loader).
    outcomes: Vec<(String, Outcome)>,
    /// The provisional session's first trajectory is a copy of the first one as read so far
    /// ([`Store::grow`]): nothing had settled when the page was shown the file. It is never
    /// analysed nor given back to the loader; the trajectory itself replaces it once settled.
    growing: bool,
    /// The page holds a row of the first trajectory that is no longer the session's (the
    /// growing copy, replaced): the next [`Response::Reading`] (or the whole file's `Loaded`)
    /// sends it again.
    stale_first: bool,
}

/// The most steps of a growing first trajectory copied for the page ([`Store::grow`]; the
/// first slice of a file, 256 KiB, holds fewer).
pub const GROWING_STEPS: usize = 5_000;

/// How far the secret scan of a file is: pieces are its trajectories, then its quarantined
/// lines.
#[derive(Default)]
struct Scan {
    next: usize,
    /// Findings sent (the page lists at most [`SECRETS_SHOWN`]).
    sent: usize,
    total: u64,
}

impl Store {
    /// Keeps `session` and analyses its first trajectory, so the first trajectory can be read
    /// at once; answers with the summary. The secret scan and the other trajectories follow
    /// through [`Store::next_batch`].
    pub fn insert(&mut self, file: u32, session: Session) -> Response {
        let summary = summarize(self.keep(file, session), 0);
        Response::Loaded { file, summary: Box::new(summary) }
    }

    /// Keeps `session` as [`Store::insert`] does, without the summary.
    fn keep(&mut self, file: u32, mut session: Session) -> &mut Session {
        session.analyse(0);
        self.cases_sent.remove(&file);
        self.scans.insert(file, Scan::default());
        self.sessions.put(file, session)
    }

    /// A read of `file` starts: a `Forget` meanwhile stops it.
    pub fn begin(&mut self, file: u32) {
        self.reading.insert(file, Reading::default());
    }

    /// Trajectories of `file` that settled while it is read (see [`Loader::take_settled`]),
    /// kept in a provisional session the page may show before the end of the file. Answers
    /// the provisional `Loaded` (with `progress`) once the first trajectory is there, if `early`
    /// (the read is not about to end: a file read in one slice is not shown twice); `None`
    /// otherwise. Later trajectories reach the page with [`Store::read_progress`].
    pub fn settle(
        &mut self,
        file: u32,
        settled: Vec<Settled>,
        format: Option<Format>,
        progress: ReadProgress,
        early: bool,
    ) -> Option<Response> {
        let r = self.reading.get_or_default(file);
        r.waiting.extend(settled.into_iter().map(|s| (s.position, s.trajectory)));
        if !self.sessions.contains_key(&file) && r.waiting.contains_key(&0) {
            let format = format.unwrap_or(Format::Generic);
            let trace = Trace {
                format,
                stats: IngestStats::default(),
                quarantine: Vec::new(),
                trajectories: Vec::new(),
                error: None,
            };
            self.sessions.insert(file, Session::new(trace, None));
        }
        let s = self.sessions.get_mut(&file)?;
        // The first trajectory settled: it replaces the copy the page was shown of it, and the
        // page gets its row at once (it asks the columns again if it has it open).
        if r.growing {
            if let Some(t) = r.waiting.remove(&0) {
                s.replace(0, t);
                (r.growing, r.stale_first) = (false, true);
            }
        }
        // The ones whose predecessors are all there, in order.
        while let Some(t) = r.waiting.remove(&s.len()) {
            s.push(t);
        }
        // (In the last slice the whole file's `Loaded` revises it.)
        if r.stale_first && r.shown && early {
            return Some(self.read_progress(file, progress));
        }
        if r.shown || !early || s.is_empty() {
            return None;
        }
        r.shown = true;
        r.sent = s.len();
        s.analyse(0);
        let mut summary = summarize(s, 0);
        summary.stats = progress.stats();
        summary.reading = Some(progress);
        Some(Response::Loaded { file, summary: Box::new(summary) })
    }

    /// `file` is read on and nothing of it has settled: the page is shown a copy of its first
    /// trajectory as read so far ([`Loader::snapshot_first`], at most [`GROWING_STEPS`] steps)
    /// in a provisional session, with the trajectories settled behind it, and told it is still
    /// read (`TraceSummary::growing`). Answers that early `Loaded` once, if `early` (more of the
    /// file is left) and the format can give the copy; `None` otherwise. The copy is not
    /// analysed: the trajectory replaces it when it settles ([`Store::settle`]) or when the
    /// file is read ([`Store::finish`]), its row sent again then. Once shown, the loader stops
    /// copying a document's steps ([`Loader::stop_copy`]): the copy is taken once.
    pub fn grow(
        &mut self,
        file: u32,
        loader: &mut Loader,
        progress: ReadProgress,
        early: bool,
    ) -> Option<Response> {
        let r = self.reading.get_mut(&file)?;
        if !early || r.shown || self.sessions.contains_key(&file) {
            return None;
        }
        let first = loader.snapshot_first(GROWING_STEPS)?;
        let format = loader.format().unwrap_or(Format::Generic);
        loader.stop_copy();
        let trace = Trace {
            format,
            stats: IngestStats::default(),
            quarantine: Vec::new(),
            trajectories: vec![first],
            error: None,
        };
        let s = self.sessions.put(file, Session::new(trace, None));
        while let Some(t) = r.waiting.remove(&s.len()) {
            s.push(t);
        }
        (r.growing, r.shown, r.sent) = (true, true, s.len());
        let mut summary = summarize(s, 0);
        summary.stats = progress.stats();
        summary.reading = Some(progress);
        summary.growing = Some(0);
        Some(Response::Loaded { file, summary: Box::new(summary) })
    }

    /// How far the read of `file` is: [`Response::Reading`] with the rows settled since the
    /// last answer when the page shows the file early (and the first one's again when it
    /// replaced the growing copy the page holds), else [`Response::Progress`].
    pub fn read_progress(&mut self, file: u32, progress: ReadProgress) -> Response {
        let ReadProgress { bytes, total, lines, quarantined } = progress;
        let (Some(r), Some(s)) = (self.reading.get_mut(&file), self.sessions.get(&file)) else {
            return Response::Progress { file, bytes, total, lines, quarantined };
        };
        if !r.shown {
            return Response::Progress { file, bytes, total, lines, quarantined };
        }
        let from = if r.stale_first { 0 } else { r.sent };
        let rows = (from..s.len()).filter_map(|i| s.overview(i)).map(|o| Row::of(&o)).collect();
        (r.sent, r.stale_first) = (s.len(), false);
        let growing = r.growing.then_some(0);
        Response::Reading { file, progress, from: from as u32, rows, growing }
    }

    /// Whether trajectory `traj` of `file` is the growing copy of a first trajectory still
    /// read ([`Store::grow`]): not analysed.
    fn growing(&self, file: u32, traj: u32) -> bool {
        traj == 0 && self.reading.get(&file).is_some_and(|r| r.growing)
    }

    /// Whether the page shows `file` while it is read.
    pub fn shown_early(&self, file: u32) -> bool {
        self.reading.get(&file).is_some_and(|r| r.shown)
    }

    /// Whether the page asked for step texts of `file` while it is read (it shows one of its
    /// trajectories).
    pub fn stepped(&self, file: u32) -> bool {
        self.reading.get(&file).is_some_and(|r| r.stepped)
    }

    /// The file is read: every settled trajectory (the provisional session's, with the
    /// analyses made for the page, and those still waiting) goes back to `loader`, whose
    /// session is kept as [`Store::insert`] keeps one. Answers its `Loaded`; if the page was
    /// shown the file early, the summary names the trajectories a later line changed
    /// (`revised`), followed by the new full overviews of those the page had analysed (the one
    /// it has open among them) and the reviewer outcomes asked for meanwhile.
    pub fn finish(&mut self, file: u32, mut loader: Loader) -> Vec<Response> {
        let mut r = self.reading.remove(&file).unwrap_or_default();
        // (A session of `file` now is the provisional one: a file id is loaded once.)
        let provisional = self.sessions.remove(&file);
        r.waiting.extend(loader.take_settled().into_iter().map(|s| (s.position, s.trajectory)));
        let mut back = Vec::new();
        let mut was_analysed = Vec::new();
        if let Some(p) = provisional {
            let (trace, analyses) = p.into_parts();
            for (position, (trajectory, a)) in
                trace.trajectories.into_iter().zip(analyses).enumerate()
            {
                if r.growing && position == 0 {
                    // A copy: the loader holds the trajectory itself. The page has its full
                    // overview if it opened it.
                    was_analysed.push(self.shown.contains(&file));
                    continue;
                }
                was_analysed.push(a.is_some());
                back.push((Settled { position, trajectory }, a));
            }
        }
        back.extend(
            r.waiting
                .into_iter()
                .map(|(position, trajectory)| (Settled { position, trajectory }, None)),
        );
        let (session, changed) = loader.finish_returning(back);
        // The page holds the rows it was sent while the file was read: only the rest go.
        let seen = if r.shown { r.sent } else { 0 };
        let s = self.keep(file, session);
        // The first trajectory is new to the page if what it holds of it was a growing copy.
        let first = (seen > 0 && (r.growing || r.stale_first)).then_some(0);
        let changed =
            first.into_iter().chain(changed.into_iter().filter(|&i| i > 0 || first.is_none()));
        let revised: Vec<u32> = changed.filter(|&i| i < seen).map(|i| i as u32).collect();
        // The overviews the page held of revised trajectories are stale: the new ones (the
        // session dropped their analyses; analysed again now).
        let overviews: Vec<_> = revised
            .iter()
            .filter(|&&i| was_analysed.get(i as usize).copied().unwrap_or(false))
            .filter_map(|&i| {
                s.analyse(i as usize);
                s.overview(i as usize).map(|o| (i, o))
            })
            .collect();
        // Their new rows go first in `rows` (`TraceSummary::kept`).
        let renewed: Vec<(u32, Row)> = revised
            .iter()
            .filter_map(|&i| s.overview(i as usize).map(|o| (i, Row::of(&o))))
            .collect();
        let mut summary = summarize(s, seen);
        summary.revised = renewed.iter().map(|(i, _)| *i).collect();
        summary.rows.splice(0..0, renewed.into_iter().map(|(_, row)| row));
        let summary = Box::new(summary);
        let mut out = vec![Response::Loaded { file, summary }];
        if !overviews.is_empty() {
            out.push(Response::Analysed { file, overviews });
        }
        for (id, outcome) in r.outcomes {
            out.extend(self.set_outcome(file, &id, outcome));
        }
        out
    }

    /// Forgets `file` (its session, a read in progress, what was sent of it).
    fn forget(&mut self, file: u32) {
        self.sessions.remove(&file);
        self.cases_sent.remove(&file);
        self.scans.remove(&file);
        self.shown.remove(&file);
        self.reading.remove(&file);
    }

    /// The background work of `file` after `Loaded`, one batch at a time while `more()` says so
    /// (at least one piece): the secret scan first ([`Store::scan_batch`]), then the analysis
    /// ([`Store::analyse_batch`]); `None` when both are done.
    pub fn next_batch(&mut self, file: u32, mut more: impl FnMut() -> bool) -> Option<Response> {
        self.scan_batch(file, &mut more).or_else(|| self.analyse_batch(file, more))
    }

    /// Scans pieces of `file` for secrets while `more()` says so (at least one): its
    /// trajectories in order, then its quarantined lines. Answers with what this batch found
    /// and how far the scan is; `None` once the last batch was answered (or for an unknown
    /// file).
    pub fn scan_batch(&mut self, file: u32, mut more: impl FnMut() -> bool) -> Option<Response> {
        let (s, scan) = (self.sessions.get(&file)?, self.scans.get_mut(&file)?);
        let (trajectories, quarantine) = (s.len(), &s.trace().quarantine);
        let of = trajectories + quarantine.len();
        let mut found = Vec::new();
        while scan.next < of {
            let i = scan.next;
            match s.trajectory(i) {
                Some(t) => trajscope_core::redact::scan_trajectory(i, t, &mut found),
                None => {
                    let q = i - trajectories;
                    trajscope_core::redact::scan_quarantine(&quarantine[q..=q], &mut found);
                }
            }
            scan.next += 1;
            if !more() {
                break;
            }
        }
        scan.total += found.len() as u64;
        found.truncate(SECRETS_SHOWN.saturating_sub(scan.sent));
        scan.sent += found.len();
        let (total, scanned) = (scan.total, scan.next as u32);
        if scan.next >= of {
            self.scans.remove(&file);
        }
        Some(Response::Secrets { file, found, total, scanned, of: of as u32 })
    }

    /// The session of `file` (what the worker answers from).
    pub fn session(&self, file: u32) -> Option<&Session> {
        self.sessions.get(&file)
    }

    /// Analyses trajectories of `file` not analysed yet while `more()` says so (at least one)
    /// and answers with their queue rows in one message. Once all are analysed and the
    /// identity is known, answers once with the cases and the brief; then `None`. (The session
    /// keeps where it stopped: a batch never rescans the trajectories before it.)
    pub fn analyse_batch(&mut self, file: u32, mut more: impl FnMut() -> bool) -> Option<Response> {
        let s = self.sessions.get_mut(&file)?;
        let mut rows = Vec::new();
        while let Some(i) = s.analyse_next() {
            rows.extend(s.overview(i).map(|o| (i as u32, Row::of(&o))));
            if !more() {
                break;
            }
        }
        if !rows.is_empty() {
            return Some(Response::Rows { file, rows });
        }
        self.cases_ready(file)
    }

    /// Whether the page asked for the columns of one of `file`'s trajectories (it shows the
    /// file: the worker's background batches may grow longer).
    pub fn shown(&self, file: u32) -> bool {
        self.shown.contains(&file)
    }

    /// The cases and the brief, once, when every trajectory is analysed and the identity known.
    fn cases_ready(&mut self, file: u32) -> Option<Response> {
        let s = self.sessions.get_mut(&file)?;
        if self.cases_sent.contains(&file) || s.identity().is_none() || !s.all_analysed() {
            return None;
        }
        let cases = s.cases()?;
        self.cases_sent.insert(file);
        let views = cases
            .built
            .iter()
            .map(|c| CaseView {
                trajectory_id: c.trajectory_id.clone(),
                case_id: c.case_id.clone(),
                valid: c.valid,
                errors: c.errors.clone(),
            })
            .collect();
        Some(Response::CasesReady {
            file,
            cases: views,
            cases_jsonl: cases.jsonl(),
            brief_markdown: trajscope_core::brief::to_markdown(&cases.brief()),
        })
    }

    /// The identity arrived: the page gets it (to restore labels), then the cases if the
    /// analysis was already done.
    pub fn set_identity(&mut self, file: u32, content_hash: String) -> Vec<Response> {
        let Some(s) = self.sessions.get_mut(&file) else { return Vec::new() };
        s.set_identity(content_hash.clone());
        let mut out = vec![Response::Identity { file, content_hash }];
        out.extend(self.cases_ready(file));
        out
    }

    /// Sets the reviewer's outcome on a trajectory (`Unknown`: the file's own again) through
    /// the session, and analyses the trajectories it changed again: their new overviews, and
    /// the cases and brief again if they were already sent.
    pub fn set_outcome(&mut self, file: u32, id: &str, outcome: Outcome) -> Vec<Response> {
        if let Some(r) = self.reading.get_mut(&file) {
            // Set on the whole file once read ([`Store::finish`]).
            r.outcomes.push((id.to_string(), outcome));
            return Vec::new();
        }
        let Some(s) = self.sessions.get_mut(&file) else { return Vec::new() };
        let Ok(changed) = s.set_outcome(&ReviewerOutcome::new(outcome, Some(id.to_string())))
        else {
            return Vec::new();
        };
        if changed.is_empty() {
            return Vec::new();
        }
        let overviews = changed
            .into_iter()
            .filter_map(|i| {
                s.analyse(i);
                s.overview(i).map(|o| (i as u32, o))
            })
            .collect();
        let mut out = vec![Response::Analysed { file, overviews }];
        if self.cases_sent.remove(&file) {
            out.extend(self.cases_ready(file));
        }
        out
    }

    /// Analyses `traj` now if the page needs it before the background got there; with
    /// `always`, answers its full overview even when it was analysed already.
    fn ensure_analysed(&mut self, file: u32, traj: u32, always: bool) -> Option<Response> {
        if self.growing(file, traj) {
            // Its analysis comes when it has settled or the file is read.
            let o = self.sessions.get(&file)?.overview(0).filter(|_| always)?;
            return Some(Response::Analysed { file, overviews: vec![(traj, o)] });
        }
        let s = self.sessions.get_mut(&file)?;
        if s.analyse(traj as usize) || always {
            let o = s.overview(traj as usize)?;
            return Some(Response::Analysed { file, overviews: vec![(traj, o)] });
        }
        None
    }

    pub fn cancel(&mut self, file: u32) {
        self.cancelled.insert(file);
    }

    /// True (once) if the load of `file` was cancelled; what was shown of it early is
    /// forgotten.
    pub fn take_cancelled(&mut self, file: u32) -> bool {
        let cancelled = self.cancelled.remove(&file);
        if cancelled && self.reading.contains_key(&file) {
            self.forget(file);
        }
        cancelled
    }

    /// Answers a request that needs no I/O (everything but `Load`): an `Analysed` first when
    /// the request made the worker analyse a trajectory, then the answer.
    pub fn answer_all(&mut self, req: Request) -> Vec<Response> {
        if let Request::SetOutcome { file, trajectory_id, outcome } = &req {
            return self.set_outcome(*file, trajectory_id, *outcome);
        }
        let mut out = Vec::new();
        // The page opens a trajectory with its columns: its full overview first (the page
        // holds only rows of the others).
        if let Request::Columns { file, traj, .. } = &req {
            out.extend(self.ensure_analysed(*file, *traj, true));
            self.shown.insert(*file);
        }
        if let Request::Steps { file, traj, .. } = &req {
            out.extend(self.ensure_analysed(*file, *traj, false));
            if let Some(r) = self.reading.get_mut(file) {
                r.stepped = true;
            }
        }
        if let Request::Compare { left, right, .. } = &req {
            out.extend(self.ensure_analysed(left.0, left.1, false));
            out.extend(self.ensure_analysed(right.0, right.1, false));
        }
        out.extend(self.answer(req));
        out
    }

    /// Answers a request that needs no I/O (everything but `Load` and `SetOutcome`), with the
    /// request's id.
    pub fn answer(&mut self, req: Request) -> Option<Response> {
        match req {
            // A dataset is answered in parts as it is written (`Store::dataset`).
            Request::Load { .. } | Request::SetOutcome { .. } | Request::Dataset { .. } => None,
            Request::Cancel { file } => {
                self.cancel(file);
                None
            }
            Request::Forget { file } => {
                // A file still read: its read stops too.
                if self.reading.contains_key(&file) {
                    self.cancel(file);
                }
                self.forget(file);
                None
            }
            Request::Columns { req, file, traj } => {
                let columns = self.sessions.get(&file)?.columns(traj as usize)?;
                Some(Response::Columns { req, file, traj, columns })
            }
            Request::Steps { req, file, traj, items } => {
                let s = self.sessions.get(&file)?;
                s.trajectory(traj as usize)?;
                let steps = s.steps(traj as usize, &items);
                Some(Response::Steps { req, file, traj, steps })
            }
            Request::Search { req, file, traj, query } => {
                let s = self.sessions.get(&file)?;
                s.trajectory(traj as usize)?;
                let hits = s.search(traj as usize, &query);
                Some(Response::SearchHits { req, file, traj, query, hits })
            }
            Request::Compare { req, left, right } => {
                let (ls, rs) = (self.sessions.get(&left.0)?, self.sessions.get(&right.0)?);
                let (li, ri) = (left.1 as usize, right.1 as usize);
                let comparison = trajscope_core::diff::compare(
                    ls.trajectory(li)?,
                    ls.analysis(li),
                    rs.trajectory(ri)?,
                    rs.analysis(ri),
                );
                Some(Response::Compared {
                    req,
                    left,
                    right,
                    comparison: Box::new(comparison),
                    left_columns: Box::new(ls.columns(li)?),
                    right_columns: Box::new(rs.columns(ri)?),
                })
            }
            Request::QuarantineJsonl { req, file, redacted } => {
                let s = self.sessions.get(&file)?;
                let text = match redacted {
                    true => s.quarantine_jsonl_redacted(),
                    false => s.quarantine_jsonl(),
                };
                Some(Response::QuarantineJsonl { req, file, text, redacted })
            }
        }
    }
}

/// What the page keeps about a loaded file: the overviews as far as analysed and the quarantine
/// preview (at most [`QUARANTINE_SHOWN`] lines, each cut to [`RAW_PREVIEW_CHARS`]; the export
/// has them all, exactly). The secrets come after, from the scan ([`Store::scan_batch`]): a
/// scan of the whole trace before `Loaded` kept the first trajectory off screen for seconds.
///
/// Rows only of the trajectories from `kept` on (the page holds the others: `kept`).
pub fn summarize(s: &Session, kept: usize) -> TraceSummary {
    let trace = s.trace();
    let quarantine = trace
        .quarantine
        .iter()
        .take(QUARANTINE_SHOWN)
        .map(|q| {
            let mut r = QuarantineRecord::from_entry(q);
            if r.raw.chars().count() > RAW_PREVIEW_CHARS {
                r.raw = r.raw.chars().take(RAW_PREVIEW_CHARS).collect::<String>() + "…";
            }
            // The page shows the preview; the export carries the exact bytes.
            r.raw_base64 = String::new();
            r
        })
        .collect();
    let kept = kept.min(s.len());
    let rows: Vec<Row> =
        (kept..s.len()).filter_map(|i| s.overview(i)).map(|o| Row::of(&o)).collect();
    TraceSummary {
        content_hash: s.identity().unwrap_or_default().to_string(),
        format: trace.format.name().to_string(),
        stats: trace.stats.clone(),
        error: trace.error.clone(),
        quarantine: Rc::new(quarantine),
        quarantine_total: trace.quarantine.len() as u64,
        analysed: (0..s.len()).filter(|&i| s.is_analysed(i)).count() as u32,
        secrets_of: (s.len() + trace.quarantine.len()) as u32,
        rows,
        trajectories: Vec::new(),
        cases: Rc::default(),
        cases_jsonl: Rc::from(""),
        brief_markdown: Rc::from(""),
        analysis_done: false,
        secrets_total: 0,
        secrets: Vec::new(),
        secrets_scanned: 0,
        reading: None,
        revised: Vec::new(),
        kept: kept as u32,
        growing: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Grain;
    use trajscope_core::{ingest, IngestOptions};

    fn session(bytes: &[u8], hash: Option<&str>) -> Session {
        Session::new(ingest(bytes, IngestOptions::default()), hash.map(String::from))
    }

    fn store_with(bytes: &[u8]) -> Store {
        let mut store = Store::default();
        store.insert(1, session(bytes, Some("sha256:test")));
        store
    }

    /// What the page ends up holding once the background work is done.
    #[cfg(not(target_arch = "wasm32"))]
    struct Drained {
        rows: Vec<Row>,
        cases: Option<Response>,
        secrets: Vec<trajscope_core::redact::TraceFinding>,
        secrets_total: u64,
        scan_complete: bool,
    }

    /// Every batch of the background work (each as short as can be: one piece), as the page
    /// applies them: the overviews, the cases message, the secrets.
    #[cfg(not(target_arch = "wasm32"))]
    fn drain(store: &mut Store, file: u32, summary: &TraceSummary) -> Drained {
        let mut d = Drained {
            rows: summary.rows.clone(),
            cases: None,
            secrets: Vec::new(),
            secrets_total: 0,
            scan_complete: summary.secrets_of == 0,
        };
        loop {
            match store.next_batch(file, || false) {
                Some(Response::Rows { rows: batch, .. }) => {
                    assert!(d.scan_complete, "the scan comes before the rest of the analysis");
                    for (i, r) in batch {
                        d.rows[i as usize] = r;
                    }
                }
                Some(Response::Secrets { found, total, scanned, of, .. }) => {
                    d.secrets.extend(found);
                    d.secrets_total = total;
                    d.scan_complete = scanned == of;
                }
                Some(c @ Response::CasesReady { .. }) => d.cases = Some(c),
                None => return d,
                Some(other) => panic!("unexpected {other:?}"),
            }
        }
    }

    const SAMPLE: &[u8] = include_bytes!("../../../../web/samples/sample.awtl.jsonl");
    /// A real mini-swe-agent run that submitted a patch: its outcome is unknown.
    const UNKNOWN_RUN: &[u8] = include_bytes!(
        "../../../../tests/fixtures/mini_swe_agent/django__django-10914.trimmed.traj.json"
    );

    #[test]
    fn the_reviewers_outcome_turns_the_diagnosis_on_and_back_off() {
        let mut store = store_with(UNKNOWN_RUN);
        let id = "django__django-10914";
        let s = store.session(1).unwrap();
        assert_eq!(s.trajectory(0).unwrap().outcome, Outcome::Unknown);
        assert!(s.analysis(0).unwrap().critical.is_none());
        let Some(Response::CasesReady { cases, .. }) = store.analyse_batch(1, || true) else {
            panic!("no cases")
        };
        assert!(cases.is_empty(), "no failure, no case");

        let out = store.set_outcome(1, id, Outcome::Failed);
        let [Response::Analysed { overviews, .. }, Response::CasesReady { cases, .. }] =
            out.as_slice()
        else {
            panic!("{out:?}")
        };
        let (0, o) = &overviews[0] else { panic!("{overviews:?}") };
        assert_eq!(o.outcome, Outcome::Failed);
        assert!(o.critical.is_some() && o.classification.is_some());
        assert_eq!(cases.len(), 1);
        // The same word again changes nothing; an unknown trajectory or file is ignored.
        assert!(store.set_outcome(1, id, Outcome::Failed).is_empty());
        assert!(store.set_outcome(1, "nope", Outcome::Passed).is_empty());
        assert!(store.set_outcome(9, id, Outcome::Passed).is_empty());

        // Taken back: what the file says again.
        let out = store.answer_all(Request::SetOutcome {
            file: 1,
            trajectory_id: id.into(),
            outcome: Outcome::Unknown,
        });
        let [Response::Analysed { overviews, .. }, Response::CasesReady { cases, .. }] =
            out.as_slice()
        else {
            panic!("{out:?}")
        };
        assert_eq!(overviews[0].1.outcome, Outcome::Unknown);
        assert!(overviews[0].1.critical.is_none());
        assert!(cases.is_empty());

        // "This run passed" on a run the file says failed: no critical step.
        let mut store = store_with(SAMPLE);
        let id = store.session(1).unwrap().trajectory(0).unwrap().id.clone();
        let out = store.set_outcome(1, &id, Outcome::Passed);
        let [Response::Analysed { overviews, .. }] = out.as_slice() else { panic!("{out:?}") };
        let o = &overviews[0].1;
        assert_eq!((o.outcome, o.critical.is_none()), (Outcome::Passed, true));
    }

    #[test]
    fn summary_counts_steps_errors_and_quarantine() {
        let mut store = Store::default();
        let Response::Loaded { summary: s, .. } =
            store.insert(3, session(SAMPLE, Some("sha256:x")))
        else {
            panic!("not loaded");
        };
        // The sample run failed: the first trajectory is analysed at once (its row says
        // which step is critical), its candidates come with its columns.
        assert!(s.rows[0].analysed && s.rows[0].critical.is_some());
        assert_eq!(s.analysed, 1);
        assert!(s.trajectories.is_empty(), "rows only: the page unpacks them");
        let out = store.answer_all(Request::Columns { req: 1, file: 3, traj: 0 });
        let Response::Analysed { overviews, .. } = &out[0] else { panic!("{out:?}") };
        assert!(!overviews[0].1.candidates.is_empty());
        assert!(!s.analysis_done);
        assert_eq!(s.content_hash, "sha256:x");
        // Then the cases and the brief, once; then nothing.
        let Some(Response::CasesReady { cases, cases_jsonl, brief_markdown, .. }) =
            store.analyse_batch(3, || true)
        else {
            panic!("no cases");
        };
        assert_eq!(cases.len(), 1);
        if cases[0].valid {
            assert_eq!(cases_jsonl.lines().count(), 1);
            assert!(brief_markdown.contains("Failure Prevention Brief"));
        } else {
            assert!(!cases[0].errors.is_empty());
        }
        assert!(store.analyse_batch(3, || true).is_none());
        let s = summarize(&session(SAMPLE, None), 0);
        assert_eq!(s.format, "awtl");
        assert_eq!(s.content_hash, "", "no identity yet");
        assert_eq!(s.quarantine_total, 1);
        assert_eq!(s.quarantine[0].line, 10);
        assert!(s.quarantine[0].raw_base64.is_empty(), "the page preview does not carry the bytes");
        assert_eq!(s.rows.len(), 1);
        assert_eq!(s.rows[0].steps, 12);
        assert_eq!(s.rows[0].id, "run-demo-7");
    }

    #[test]
    fn secrets_are_listed_and_the_quarantine_export_comes_exact_or_redacted() {
        let planted =
            include_bytes!("../../../../tests/fixtures/redact/planted-secrets.awtl.jsonl");
        let mut store = Store::default();
        let Response::Loaded { summary, .. } = store.insert(1, session(planted, None)) else {
            panic!("not loaded");
        };
        // Not in `Loaded`: the scan follows it, before the analysis of the rest.
        assert!(summary.secrets.is_empty() && !summary.secrets_done());
        let Some(Response::Secrets { found, total, scanned, of, .. }) =
            store.next_batch(1, || true)
        else {
            panic!("no scan");
        };
        assert_eq!((scanned, of), (summary.secrets_of, summary.secrets_of));
        assert!(total >= 12, "{total}");
        assert_eq!(found.len() as u64, total);
        assert!(found.iter().any(|f| f.kind == "github-token" && f.step == Some(2)));
        assert!(store.scan_batch(1, || true).is_none(), "the scan is answered once");
        let corrupt =
            include_bytes!("../../../../tests/fixtures/redact/planted-corrupt.awtl.jsonl");
        let mut store = store_with(corrupt);
        let ask = |store: &mut Store, redacted| match store.answer(Request::QuarantineJsonl {
            req: 4,
            file: 1,
            redacted,
        }) {
            Some(Response::QuarantineJsonl { req: 4, text, redacted: r, .. }) => {
                assert_eq!(r, redacted);
                text
            }
            _ => panic!("no quarantine export"),
        };
        let exact = ask(&mut store, false);
        let masked = ask(&mut store, true);
        // The exact export's `raw` text shows the line as it is, secret and all.
        assert!(exact.contains("sk_live_51Hq8ZxLm3Np7Rt2Vw9Yb4Kc"));
        assert!(!masked.contains("sk_live_51Hq8ZxLm3Np7Rt2Vw9Yb4Kc"));
        assert!(masked.contains("\"redacted\":true") && !exact.contains("\"redacted\""));
    }

    #[test]
    fn compare_aligns_two_trajectories_of_one_file_or_of_two() {
        let tau2 = include_bytes!("../../../../tests/fixtures/tau2/airline_3_simulations.json");
        let mut store = store_with(tau2);
        let out = store.answer_all(Request::Compare { req: 9, left: (1, 0), right: (1, 1) });
        // Both sides analysed on demand (an `Analysed` each), then the answer.
        assert!(out.iter().any(|r| matches!(r, Response::Analysed { .. })), "{out:?}");
        let Some(Response::Compared { req: 9, comparison: c, .. }) = out.last() else {
            panic!("no comparison: {out:?}")
        };
        let d = c.first_divergence.expect("two different simulations");
        assert_eq!((d.left_step, d.right_step), (Some(2), Some(2)));
        assert_eq!(c.left.critical_step, Some(5));
        assert_eq!(c.counts.equal + c.counts.changed + c.counts.left_only, c.left.steps);
        // With each side's columns, for the page's rows.
        let Some(Response::Compared { left_columns: lc, right_columns: rc, .. }) = out.last()
        else {
            unreachable!()
        };
        assert_eq!((lc.role.len(), rc.role.len()), (c.left.steps, c.right.steps));
        // Two files: the same trajectory in each agrees on every step.
        store.insert(2, session(tau2, None));
        let Some(Response::Compared { comparison: c, .. }) =
            store.answer(Request::Compare { req: 1, left: (1, 2), right: (2, 2) })
        else {
            panic!("no comparison")
        };
        assert!(c.first_divergence.is_none());
        // An unknown file or trajectory gets no answer, never a panic.
        assert!(store.answer(Request::Compare { req: 1, left: (1, 0), right: (7, 0) }).is_none());
        assert!(store.answer(Request::Compare { req: 1, left: (1, 9), right: (1, 0) }).is_none());
    }

    #[test]
    fn usage_reaches_the_overview_the_steps_and_the_columns() {
        let cc = include_bytes!("../../../../tests/fixtures/claude_code/hello-world-script.jsonl");
        let t = &session(cc, None).overview(0).unwrap();
        assert!(t.usage.input_tokens.is_some() && t.usage.steps_with_usage > 0);
        assert_eq!(t.agent_usage.iter().map(|a| a.steps).sum::<usize>(), t.steps);
        let mut store = store_with(cc);
        let Some(Response::Steps { steps, .. }) = store.answer(Request::Steps {
            req: 1,
            file: 1,
            traj: 0,
            items: (0..t.steps as u32).map(|i| (i, Grain::High)).collect(),
        }) else {
            panic!("no steps");
        };
        assert_eq!(steps.iter().filter(|v| v.usage.is_some()).count(), t.usage.steps_with_usage);
        let Some(Response::Columns { req: 2, columns: c, .. }) =
            store.answer(Request::Columns { req: 2, file: 1, traj: 0 })
        else {
            panic!("no columns");
        };
        assert_eq!(c.tokens.len(), t.steps);
        let u = &t.usage;
        let want: u64 =
            [u.input_tokens, u.output_tokens, u.cache_read_tokens, u.cache_write_tokens]
                .iter()
                .flatten()
                .sum();
        assert_eq!(c.tokens.iter().sum::<u64>(), want);
        let none = session(SAMPLE, None).overview(0).unwrap();
        assert!(none.agent_usage.is_empty(), "the AWTL sample records no usage");
    }

    #[test]
    fn steps_come_back_at_their_grain_within_the_limit() {
        let long = "x".repeat(10_000);
        let jsonl = format!("{{\"type\":\"message\",\"role\":\"user\",\"content\":\"{long}\"}}\n");
        let mut store = store_with(jsonl.as_bytes());
        for g in Grain::ALL {
            let Some(Response::Steps { req: 7, steps, .. }) =
                store.answer(Request::Steps { req: 7, file: 1, traj: 0, items: vec![(0, g)] })
            else {
                panic!("no steps answer");
            };
            assert_eq!(steps.len(), 1);
            assert!(steps[0].text.chars().count() <= g.limit());
            // The whole text: more than any grain shows.
            assert_eq!(steps[0].full_chars, 10_000);
        }
        // Parts shown whole count exactly their own characters (no "N of M chars" to show).
        let call = r#"{"type":"action","tool":"shell","command":"ls -la","output":"a b"}"#;
        let mut store = store_with(format!("{call}\n").as_bytes());
        let Some(Response::Steps { steps, .. }) = store.answer(Request::Steps {
            req: 8,
            file: 1,
            traj: 0,
            items: vec![(0, Grain::High)],
        }) else {
            panic!("no steps answer");
        };
        let parts = steps[0].parts.as_ref().expect("parts");
        assert_eq!(steps[0].full_chars as usize, parts.chars(), "{parts:?}");
    }

    #[test]
    fn search_finds_steps_anywhere_and_unknown_ids_get_no_answer() {
        let mut store = store_with(SAMPLE);
        let Some(Response::SearchHits { req: 3, hits, .. }) =
            store.answer(Request::Search { req: 3, file: 1, traj: 0, query: "NPM TEST".into() })
        else {
            panic!("no search answer");
        };
        assert!(!hits.is_empty());
        assert!(store.answer(Request::Columns { req: 1, file: 9, traj: 0 }).is_none());
        assert!(store.answer(Request::Columns { req: 1, file: 1, traj: 5 }).is_none());
        assert!(store
            .answer(Request::Search { req: 1, file: 1, traj: 5, query: "x".into() })
            .is_none());
    }

    const THREE: &str = "{\"type\":\"run_start\",\"run_id\":\"a\"}\n{\"type\":\"run_end\",\"run_id\":\"a\",\"status\":\"failed\"}\n\
                         {\"type\":\"run_start\",\"run_id\":\"b\"}\n{\"type\":\"run_end\",\"run_id\":\"b\",\"status\":\"failed\"}\n\
                         {\"type\":\"run_start\",\"run_id\":\"c\"}\n{\"type\":\"run_end\",\"run_id\":\"c\",\"status\":\"failed\"}\n";

    #[test]
    fn later_trajectories_are_analysed_in_batches_or_on_demand() {
        let mut store = Store::default();
        let Response::Loaded { summary, .. } =
            store.insert(1, session(THREE.as_bytes(), Some("h")))
        else {
            panic!("not loaded");
        };
        assert_eq!(summary.rows.len(), 3);
        assert!(summary.rows[0].analysed && !summary.rows[1].analysed);
        // Asking for the second trajectory's steps analyses it first.
        let out = store.answer_all(Request::Steps {
            req: 1,
            file: 1,
            traj: 1,
            items: vec![(0, Grain::Low)],
        });
        assert!(
            matches!(&out[0], Response::Analysed { overviews, .. } if overviews.len() == 1 && overviews[0].0 == 1 && overviews[0].1.analysed)
        );
        assert!(matches!(&out[1], Response::Steps { .. }));
        // The rest in one batch, not one message each: their queue rows.
        let Some(Response::Rows { rows, .. }) = store.analyse_batch(1, || true) else {
            panic!("no batch");
        };
        assert_eq!(rows.iter().map(|o| (o.0, o.1.analysed)).collect::<Vec<_>>(), [(2, true)]);
        // Nothing left but the cases.
        assert!(matches!(store.analyse_batch(1, || true), Some(Response::CasesReady { .. })));
        assert!(store.analyse_batch(1, || true).is_none());
    }

    #[test]
    fn a_batch_stops_when_its_budget_runs_out_but_makes_progress() {
        let mut store = Store::default();
        store.insert(1, session(THREE.as_bytes(), Some("h")));
        let Some(Response::Rows { rows, .. }) = store.analyse_batch(1, || false) else {
            panic!("no batch");
        };
        assert_eq!(rows.len(), 1, "at least one per batch, however short the budget");
    }

    #[test]
    fn the_cases_wait_for_the_identity_and_it_never_delays_loading() {
        let mut store = Store::default();
        let Response::Loaded { summary, .. } = store.insert(1, session(SAMPLE, None)) else {
            panic!("not loaded");
        };
        assert!(summary.rows[0].analysed, "readable before the hash");
        assert!(store.analyse_batch(1, || true).is_none(), "no cases without an identity");
        let out = store.set_identity(1, "sha256:late".into());
        assert!(
            matches!(&out[0], Response::Identity { content_hash, .. } if content_hash == "sha256:late")
        );
        assert!(matches!(&out[1], Response::CasesReady { cases, .. } if !cases.is_empty()));
        assert!(store.analyse_batch(1, || true).is_none(), "the cases come once");
    }

    /// The worker's load loop over `bytes` read in `chunk`-byte slices, as `worker.rs` runs it
    /// over a `File`: after each slice the settled trajectories go to the store (or a growing
    /// copy of the first) and a progress report is answered (but after the last), then `page` may ask something (it gets the bytes read so far); at
    /// the end the whole file. Every answer, in order, each with the bytes read when it came.
    fn load_in_slices(
        store: &mut Store,
        file: u32,
        bytes: &[u8],
        chunk: usize,
        mut page: impl FnMut(&mut Store, usize) -> Vec<Response>,
    ) -> Vec<(usize, Response)> {
        let opts = IngestOptions { copy_document_steps: GROWING_STEPS, ..IngestOptions::default() };
        let mut loader = Loader::new(opts, true);
        let total = bytes.len();
        let mut out = Vec::new();
        store.begin(file);
        for (k, piece) in bytes.chunks(chunk.max(1)).enumerate() {
            if store.take_cancelled(file) {
                return out;
            }
            let pos = (k * chunk + piece.len()).min(total);
            loader.feed(piece);
            let p = loader.progress();
            let progress = ReadProgress {
                bytes: pos as f64,
                total: total as f64,
                lines: p.lines as f64,
                quarantined: p.quarantined as f64,
            };
            let settled = loader.take_settled();
            let early = pos < total;
            let r = store.settle(file, settled, loader.format(), progress, early);
            let r = r.or_else(|| store.grow(file, &mut loader, progress, early));
            out.extend(r.map(|r| (pos, r)));
            if early {
                out.push((pos, store.read_progress(file, progress)));
            }
            out.extend(page(store, pos).into_iter().map(|r| (pos, r)));
        }
        out.extend(store.finish(file, loader).into_iter().map(|r| (total, r)));
        out
    }

    /// AWTL lines of run `id` (a start, `n` actions, an end when `ended`).
    fn run(id: &str, n: usize, ended: bool) -> String {
        let mut out = format!("{{\"type\":\"run_start\",\"run_id\":\"{id}\",\"task\":\"t\"}}\n");
        for i in 0..n {
            out += &format!(
                "{{\"type\":\"action\",\"run_id\":\"{id}\",\"agent\":\"coder\",\"tool\":\"shell\",\"command\":\"make {i}\"}}\n\
                 {{\"type\":\"observation\",\"run_id\":\"{id}\",\"exit_code\":{},\"output\":\"error: step {i} failed\"}}\n",
                i % 2
            );
        }
        if ended {
            out += &format!("{{\"type\":\"run_end\",\"run_id\":\"{id}\",\"status\":\"failed\"}}\n");
        }
        out
    }

    /// What the page holds of a file once every message of its load (`answers`, in order) and
    /// its background work is applied (rows, the full overviews it got, the secrets, the
    /// cases), to compare a load shown early with one that is not. The rows as the page keeps
    /// them: each `Loaded` unpacked over what it holds (`TraceSummary::unpack_over`), the rows
    /// of `Reading`, the overviews of `Analysed` and `Rows`; its count of analysed
    /// trajectories is checked against the whole file's `Loaded`.
    #[cfg(not(target_arch = "wasm32"))]
    fn settle_down(store: &mut Store, file: u32, answers: &[(usize, Response)]) -> Drained {
        let whole = page(answers);
        drain(store, file, &whole)
    }

    /// The whole file's summary as the page holds it after `answers` (see
    /// [`settle_down`]), its rows the page's.
    #[cfg(not(target_arch = "wasm32"))]
    fn page(answers: &[(usize, Response)]) -> TraceSummary {
        use crate::protocol::Overview;
        let (mut held, mut whole): (Vec<Rc<Overview>>, _) = (Vec::new(), None);
        let put = |held: &mut Vec<Rc<Overview>>, i: usize, o: Overview| {
            assert!(i <= held.len(), "row {i} of {}", held.len());
            match held.get_mut(i) {
                Some(slot) => *slot = Rc::new(o),
                None => held.push(Rc::new(o)),
            }
        };
        for (_, r) in answers {
            match r {
                Response::Loaded { summary, .. } => {
                    let mut s = (**summary).clone();
                    s.unpack_over(&held);
                    held = std::mem::take(&mut s.trajectories);
                    if s.reading.is_none() {
                        let analysed = held.iter().filter(|o| o.analysed).count();
                        assert_eq!(s.analysed as usize, analysed, "the page's count");
                        whole = Some(s);
                    }
                }
                Response::Reading { from, rows, .. } => {
                    for (k, row) in rows.iter().enumerate() {
                        put(&mut held, *from as usize + k, row.clone().into_overview());
                    }
                }
                Response::Analysed { overviews, .. } => {
                    for (i, o) in overviews {
                        put(&mut held, *i as usize, o.clone());
                    }
                }
                Response::Rows { rows, .. } => {
                    for (i, row) in rows {
                        put(&mut held, *i as usize, row.clone().into_overview());
                    }
                }
                _ => {}
            }
        }
        let mut whole = whole.expect("the whole file's Loaded");
        whole.rows = held.iter().map(|o| Row::of(o)).collect();
        whole
    }

    #[test]
    #[cfg(not(target_arch = "wasm32"))]
    fn a_file_of_many_runs_is_readable_before_its_end_and_ends_as_a_plain_load() {
        let text = (0..40).map(|i| run(&format!("run-{i}"), 20, true)).collect::<String>();
        let bytes = text.as_bytes();
        let hash = trajscope_core::labels::content_hash(bytes);
        let mut store = Store::default();
        let mut opened_at = None;
        let answers = load_in_slices(&mut store, 1, bytes, 8192, |store, pos| {
            // The page opens the first trajectory as soon as it is shown, and asks a
            // reviewer's outcome while the file is still read.
            if opened_at.is_some() || !store.shown_early(1) {
                return Vec::new();
            }
            opened_at = Some(pos);
            let mut out = store.answer_all(Request::Columns { req: 1, file: 1, traj: 0 });
            out.extend(store.answer_all(Request::Steps {
                req: 2,
                file: 1,
                traj: 0,
                items: vec![(0, Grain::Low)],
            }));
            assert!(store.stepped(1), "the page shows it: the worker reads in big slices again");
            let outcome = Request::SetOutcome {
                file: 1,
                trajectory_id: "run-1".into(),
                outcome: Outcome::Passed,
            };
            assert!(store.answer_all(outcome).is_empty(), "set once the file is read");
            out
        });
        // `Loaded` early: the first run, long before the end of the file, marked as read
        // in part, with what was read so far.
        let (at, Response::Loaded { summary: early, .. }) = &answers[0] else {
            panic!("{:?}", &answers[0])
        };
        assert!(*at <= 8192 && *at < bytes.len() / 4, "{at} of {}", bytes.len());
        let reading = early.reading.expect("read in part");
        assert_eq!(reading.bytes as usize, *at);
        assert!(!early.rows.is_empty() && early.rows[0].id == "run-0" && early.rows[0].analysed);
        assert!(early.rows.len() < 40 && early.stats.lines_total > 0);
        // The open trajectory's full overview, columns and steps come from the early session.
        let rest: Vec<&Response> = answers.iter().map(|(_, r)| r).collect();
        assert!(rest.iter().any(
            |r| matches!(r, Response::Columns { traj: 0, columns, .. } if columns.role.len() == 42)
        ));
        assert!(rest
            .iter()
            .any(|r| matches!(r, Response::Steps { steps, .. } if steps.len() == 1)));
        // The queue fills in behind it, in order, each row once.
        let mut next = early.rows.len() as u32;
        for r in &rest {
            if let Response::Reading { from, rows, progress, .. } = r {
                assert_eq!(*from, next);
                assert!(progress.bytes <= progress.total);
                next += rows.len() as u32;
            }
        }
        assert!(next > early.rows.len() as u32, "rows came while reading");
        // The whole file: nothing revised, the identity there, the outcome asked meanwhile set.
        let whole = rest
            .iter()
            .position(
                |r| matches!(r, Response::Loaded { summary, .. } if summary.reading.is_none()),
            )
            .expect("the whole file's Loaded");
        let Response::Loaded { summary, .. } = rest[whole] else { unreachable!() };
        assert!(summary.revised.is_empty());
        assert_eq!(summary.content_hash, hash);
        // Only the rows the page does not hold yet; the analysis made while reading is kept.
        assert_eq!((summary.kept, summary.rows.len()), (next, 40 - next as usize));
        assert!(summary.analysed >= 1 && store.session(1).unwrap().is_analysed(0));
        assert!(matches!(rest[whole + 1], Response::Analysed { overviews, .. }
            if overviews[0].0 == 1 && overviews[0].1.outcome == Outcome::Passed));
        // And the same as a file loaded whole (today's path), the outcome set on both.
        let mut plain = Store::default();
        let Response::Loaded { summary: want, .. } = plain.insert(1, session(bytes, Some(&hash)))
        else {
            unreachable!()
        };
        let mut plain_answers = vec![(0, Response::Loaded { file: 1, summary: want })];
        plain_answers
            .extend(plain.set_outcome(1, "run-1", Outcome::Passed).into_iter().map(|r| (0, r)));
        assert_eq!(store.session(1).unwrap().trace(), plain.session(1).unwrap().trace());
        let got = settle_down(&mut store, 1, &answers);
        let want = settle_down(&mut plain, 1, &plain_answers);
        assert_eq!(got.rows, want.rows);
        assert_eq!(got.rows[1].outcome, Outcome::Passed);
        assert_eq!(got.secrets, want.secrets);
        assert_eq!(got.cases, want.cases);
        let (mut a, mut b) = (store.session(1).unwrap().clone(), plain.session(1).unwrap().clone());
        assert_eq!(a.report(), b.report());
    }

    #[test]
    #[cfg(not(target_arch = "wasm32"))]
    fn a_trajectory_a_later_line_changed_is_sent_again() {
        // Run `a` ends, then a line of `a` comes after `b`'s lines: `a` was shown early.
        let late = "{\"type\":\"observation\",\"run_id\":\"a\",\"exit_code\":1,\"output\":\"late: crashed after the end\"}\n";
        let text = run("a", 3, true) + &run("b", 30, false) + late + &run("b", 0, true);
        let bytes = text.as_bytes();
        let mut store = Store::default();
        let mut opened = false;
        // (`a` settles in the first slice.)
        let answers = load_in_slices(&mut store, 1, bytes, 1024, |store, _| {
            if opened || !store.shown_early(1) {
                return Vec::new();
            }
            opened = true;
            store.answer_all(Request::Columns { req: 1, file: 1, traj: 0 })
        });
        assert!(opened);
        let Some(Response::Analysed { overviews: before, .. }) =
            answers.iter().map(|(_, r)| r).find(|r| matches!(r, Response::Analysed { .. }))
        else {
            panic!("no overview while reading")
        };
        assert_eq!(before[0].1.steps, 8);
        let whole = answers
            .iter()
            .position(
                |(_, r)| matches!(r, Response::Loaded { summary, .. } if summary.reading.is_none()),
            )
            .unwrap();
        let Response::Loaded { summary, .. } = &answers[whole].1 else { unreachable!() };
        assert_eq!(summary.revised, [0], "the page is told its trajectory changed");
        // Its new row first, then those of the trajectories the page does not hold (`b`
        // settled in the last slice: its row came with the last `Reading`).
        let held: usize = answers
            .iter()
            .map(|(_, r)| match r {
                Response::Loaded { summary, .. } if summary.reading.is_some() => summary.rows.len(),
                Response::Reading { rows, .. } => rows.len(),
                _ => 0,
            })
            .sum();
        assert_eq!(summary.kept as usize, held);
        let ids: Vec<&str> = summary.rows.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, [&["a"], &["a", "b"][held..]].concat());
        assert_eq!(summary.rows[0].steps, 9);
        // Its new full overview, analysed again on the whole run.
        let Response::Analysed { overviews, .. } = &answers[whole + 1].1 else {
            panic!("{:?}", answers[whole + 1])
        };
        let mut whole_session = session(bytes, None);
        whole_session.analyse(0);
        assert_eq!(overviews[..], [(0, whole_session.overview(0).unwrap())]);
        assert_eq!(store.session(1).unwrap().trace(), whole_session.trace());

        // A changed trajectory the page never opened (`a`, the second): only its new row.
        let text = run("x", 2, true) + &run("a", 3, true) + &run("b", 30, false) + late;
        let text = text + &run("b", 0, true);
        let bytes = text.as_bytes();
        let mut store = Store::default();
        let answers = load_in_slices(&mut store, 1, bytes, 512, |_, _| Vec::new());
        let loaded = answers.iter().map(|(_, r)| r);
        let mut whole = loaded.filter_map(|r| match r {
            Response::Loaded { summary, .. } if summary.reading.is_none() => Some(summary),
            _ => None,
        });
        let summary = whole.next_back().unwrap();
        assert_eq!(summary.revised, [1]);
        assert_eq!((&summary.rows[0].id[..], summary.rows[0].steps), ("a", 9));
        assert_eq!(page(&answers).rows[1].steps, 9, "the page's row of it is the new one");
        let got = settle_down(&mut store, 1, &answers);
        let mut plain = Store::default();
        let loaded = plain.insert(1, session(bytes, None));
        let want = settle_down(&mut plain, 1, &[(0, loaded)]);
        assert_eq!(got.rows, want.rows);
    }

    /// The `Loaded` answers of a load, with the bytes read when each came.
    fn loaded(answers: &[(usize, Response)]) -> Vec<(usize, &TraceSummary)> {
        answers
            .iter()
            .filter_map(|(at, r)| match r {
                Response::Loaded { summary, .. } => Some((*at, &**summary)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_file_read_is_shown_after_its_first_slice_settled_or_growing() {
        // One run that ends with the file: a copy of it as read so far after the first slice
        // (`growing`), not analysed; the whole file's `Loaded` revises it.
        let one = run("only", 50, true);
        let mut store = Store::default();
        let answers = load_in_slices(&mut store, 1, one.as_bytes(), 256, |_, _| Vec::new());
        let [(at, early), (_, whole)] = loaded(&answers)[..] else { panic!("{answers:?}") };
        assert_eq!((at, early.growing, early.reading.is_some()), (256, Some(0), true));
        assert_eq!(early.rows.len(), 1);
        assert!(early.rows[0].steps >= 1 && early.rows[0].steps < 10 && !early.rows[0].analysed);
        assert_eq!((whole.growing, &whole.revised[..], whole.kept), (None, &[0][..], 1));
        assert_eq!((whole.rows[0].steps, whole.rows[0].analysed), (102, true));
        // Nothing settled meanwhile: no row, and nothing for the queue.
        for (_, r) in &answers {
            if let Response::Reading { rows, growing, .. } = r {
                assert!(rows.is_empty() && *growing == Some(0), "{r:?}");
            }
        }
        // Read in one slice: one `Loaded`, as before.
        let mut store = Store::default();
        let answers = load_in_slices(&mut store, 1, one.as_bytes(), 1 << 20, |_, _| Vec::new());
        assert!(matches!(loaded(&answers)[..], [(_, s)] if s.reading.is_none()));
        // Plain messages (no end marker either): their one trajectory as read so far, then
        // the whole of it.
        let chat = "{\"role\":\"user\",\"content\":\"hi\"}\n".repeat(200);
        let mut store = Store::default();
        let answers = load_in_slices(&mut store, 1, chat.as_bytes(), 256, |_, _| Vec::new());
        let [(at, early), (_, whole)] = loaded(&answers)[..] else { panic!("{answers:?}") };
        assert_eq!((at, early.growing, early.rows[0].steps < 200), (256, Some(0), true));
        assert_eq!((whole.growing, &whole.revised[..], whole.rows[0].steps), (None, &[0][..], 200));
        // Runs that end in another order: the first as read so far, the others behind it
        // once it settled, in file order; its row again, the moment it settled.
        let text = run("first", 1, false)
            + &run("second", 40, true)
            + &run("first", 0, true)
            + &run("third", 40, true);
        let mut store = Store::default();
        let answers = load_in_slices(&mut store, 1, text.as_bytes(), 512, |_, _| Vec::new());
        let (at, early) = loaded(&answers)[0];
        assert_eq!((at, early.growing), (512, Some(0)));
        let ids: Vec<&str> = early.rows.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["first"]);
        let settled_at = run("first", 1, false).len() + run("second", 40, true).len() + 200;
        let again = answers.iter().find_map(|(at, r)| match r {
            Response::Reading { from: 0, rows, growing: None, .. } => Some((*at, rows)),
            _ => None,
        });
        let (at, rows) = again.expect("its row again once settled");
        assert!(at <= settled_at + 512, "{at}");
        let ids: Vec<&str> = rows.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids[..2], ["first", "second"]);
        assert_eq!(rows[0].steps, 5, "both starts, its action and observation, its end");
        let whole = loaded(&answers)[1].1;
        assert!(whole.revised.is_empty(), "the page has its row");
        // A load forgotten while read stops, and nothing of it is kept.
        let mut store = Store::default();
        let mut forgot = false;
        let answers = load_in_slices(&mut store, 1, text.as_bytes(), 512, |store, _| {
            if store.shown_early(1) && !forgot {
                forgot = true;
                store.answer_all(Request::Forget { file: 1 });
            }
            Vec::new()
        });
        assert!(forgot);
        assert!(store.session(1).is_none() && !store.shown_early(1));
        assert_eq!(loaded(&answers).len(), 1, "the early one only");
    }

    /// A SWE-agent document (one JSON value, parsed whole at its end) is shown after the slice
    /// that holds its first turn: a copy of its steps read so far, named and formatted as a
    /// SWE-agent file; the whole file's `Loaded` replaces it with the document's trajectory.
    /// An OpenHands event list the same way.
    #[test]
    fn a_document_is_shown_while_read_with_its_first_steps() {
        let turns: Vec<String> = (0..200)
            .map(|i| {
                format!(
                    "{{\"action\": \"python run_{i}.py\", \"observation\": \"ok {i}\", \"thought\": \"try {i}\"}}"
                )
            })
            .collect();
        let doc = format!(
            "{{\"environment\": \"swe_main\", \"trajectory\": [{}], \"info\": {{\"exit_status\": \"exit_cost\", \"instance_id\": \"repo-1\"}}}}",
            turns.join(", ")
        );
        let mut store = Store::default();
        let answers = load_in_slices(&mut store, 1, doc.as_bytes(), 1024, |_, _| Vec::new());
        let [(at, early), (_, whole)] = loaded(&answers)[..] else { panic!("{answers:?}") };
        assert_eq!((at, early.growing, early.format.as_str()), (1024, Some(0), "swe-agent"));
        assert!(early.rows[0].steps >= 2 && early.rows[0].steps < 40, "{:?}", early.rows[0]);
        assert!(!early.rows[0].analysed);
        assert_eq!((whole.growing, &whole.revised[..], whole.rows[0].steps), (None, &[0][..], 400));
        assert_eq!(whole.rows[0].id, "repo-1");
        // In one slice: one `Loaded`, as before.
        let mut store = Store::default();
        let answers = load_in_slices(&mut store, 1, doc.as_bytes(), 1 << 20, |_, _| Vec::new());
        assert!(matches!(loaded(&answers)[..], [(_, s)] if s.reading.is_none()));
        // An OpenHands event list (the document itself a list) likewise.
        let events: Vec<String> = (0..200)
            .map(|i| {
                format!(
                    "{{\"id\": {i}, \"source\": \"agent\", \"action\": \"run\", \"args\": {{\"command\": \"make {i}\"}}}}"
                )
            })
            .collect();
        let list = format!("[{}]", events.join(",\n"));
        let mut store = Store::default();
        let answers = load_in_slices(&mut store, 1, list.as_bytes(), 1024, |_, _| Vec::new());
        let [(at, early), (_, whole)] = loaded(&answers)[..] else { panic!("{answers:?}") };
        assert_eq!((at, early.growing, early.format.as_str()), (1024, Some(0), "openhands"));
        assert!(early.rows[0].steps >= 1 && early.rows[0].steps < 40, "{:?}", early.rows[0]);
        assert_eq!((whole.growing, &whole.revised[..], whole.rows[0].steps), (None, &[0][..], 200));
    }

    /// The benchmark's `one-step` shape (runs of one step, no `run_start` / `run_end`: nothing
    /// ever settles) is readable after its first slice, and ends as a plain load.
    #[test]
    #[cfg(not(target_arch = "wasm32"))]
    fn one_step_runs_are_shown_after_the_first_slice_and_end_as_a_plain_load() {
        let text: String = (0..3000)
            .map(|i| {
                format!(
                    "{{\"type\":\"action\",\"run_id\":\"r{i}\",\"agent\":\"a\",\"tool\":\"shell\",\"command\":\"make {i}\"}}\n"
                )
            })
            .collect();
        let bytes = text.as_bytes();
        let hash = trajscope_core::labels::content_hash(bytes);
        let mut store = Store::default();
        let answers = load_in_slices(&mut store, 1, bytes, 4096, |store, _| {
            if !store.shown_early(1) || store.shown(1) {
                return Vec::new();
            }
            store.answer_all(Request::Columns { req: 1, file: 1, traj: 0 })
        });
        let [(at, early), (_, whole)] = loaded(&answers)[..] else { panic!() };
        assert_eq!((at, early.growing, early.rows.len()), (4096, Some(0), 1));
        assert_eq!((early.rows[0].id.as_str(), early.rows[0].steps), ("r0", 1));
        // Its overview (not analysed) and its one step's columns, from the copy.
        assert!(answers.iter().any(|(_, r)| matches!(r,
            Response::Analysed { overviews, .. } if !overviews[0].1.analysed)));
        assert!(answers.iter().any(|(_, r)| matches!(r,
            Response::Columns { columns, .. } if columns.role.len() == 1)));
        // The whole file: its first row again (and its full overview, analysed), the rest.
        assert_eq!((&whole.revised[..], whole.kept, whole.rows.len()), (&[0][..], 1, 3000));
        assert!(answers.iter().rev().any(|(_, r)| matches!(r,
            Response::Analysed { overviews, .. } if overviews[0].1.analysed)));
        let mut plain = Store::default();
        let want = plain.insert(1, session(bytes, Some(&hash)));
        assert_eq!(store.session(1).unwrap().trace(), plain.session(1).unwrap().trace());
        let got = settle_down(&mut store, 1, &answers);
        let want = settle_down(&mut plain, 1, &[(0, want)]);
        assert_eq!(got.rows, want.rows);
        assert_eq!((got.secrets, got.cases), (want.secrets, want.cases));
    }

    /// The benchmark's `huge-run` shape (one run, its `run_end` the last line): readable after
    /// the first slice (its steps read so far), the reviewer's outcome asked meanwhile set on
    /// the whole run, and it ends as a plain load.
    #[test]
    #[cfg(not(target_arch = "wasm32"))]
    fn a_huge_run_is_shown_as_read_so_far_and_ends_as_a_plain_load() {
        let text = run("big", 3000, true);
        let bytes = text.as_bytes();
        let hash = trajscope_core::labels::content_hash(bytes);
        let mut store = Store::default();
        let mut asked = false;
        let answers = load_in_slices(&mut store, 1, bytes, 16384, |store, _| {
            if asked || !store.shown_early(1) {
                return Vec::new();
            }
            asked = true;
            let mut out = store.answer_all(Request::Columns { req: 1, file: 1, traj: 0 });
            let items = vec![(0, Grain::Low), (5, Grain::High)];
            out.extend(store.answer_all(Request::Steps { req: 2, file: 1, traj: 0, items }));
            let outcome = Request::SetOutcome {
                file: 1,
                trajectory_id: "big".into(),
                outcome: Outcome::Passed,
            };
            assert!(store.answer_all(outcome).is_empty(), "set once the file is read");
            out
        });
        assert!(asked);
        let [(at, early), (_, whole)] = loaded(&answers)[..] else { panic!() };
        assert_eq!((at, early.growing), (16384, Some(0)));
        let n = early.rows[0].steps;
        assert!(n > 50 && n < 400, "{n} of 6002 steps read so far");
        // The page reads the steps read so far: their columns and texts.
        let (cols, steps) = answers.iter().fold((None, None), |(c, st), (_, r)| match r {
            Response::Columns { columns, .. } => (Some(columns.role.len()), st),
            Response::Steps { steps, .. } => (c, Some(steps.len())),
            _ => (c, st),
        });
        assert_eq!((cols, steps), (Some(n), Some(2)));
        // Read whole: the run revised, its new full overview analysed, the outcome set.
        assert_eq!((&whole.revised[..], whole.rows[0].steps), (&[0][..], 6002));
        let after: Vec<&Response> =
            answers.iter().skip_while(|(_, r)| !matches!(r, Response::Loaded { summary, .. } if summary.reading.is_none())).map(|(_, r)| r).collect();
        assert!(matches!(after[1], Response::Analysed { overviews, .. }
            if overviews[0].1.analysed && overviews[0].1.steps == 6002));
        assert!(matches!(after.last().unwrap(), Response::Analysed { overviews, .. }
            if overviews[0].1.outcome == Outcome::Passed));
        let mut plain = Store::default();
        let loaded = plain.insert(1, session(bytes, Some(&hash)));
        let mut plain_answers = vec![(0, loaded)];
        plain_answers
            .extend(plain.set_outcome(1, "big", Outcome::Passed).into_iter().map(|r| (0, r)));
        assert_eq!(store.session(1).unwrap().trace(), plain.session(1).unwrap().trace());
        let got = settle_down(&mut store, 1, &answers);
        let want = settle_down(&mut plain, 1, &plain_answers);
        assert_eq!(got.rows, want.rows);
        assert_eq!((got.secrets, got.cases), (want.secrets, want.cases));
        let (mut a, mut b) = (store.session(1).unwrap().clone(), plain.session(1).unwrap().clone());
        assert_eq!(a.report(), b.report());
    }

    /// The benchmark's `trajerrbench` shape (a record per line, each a whole run, no end
    /// marker) is readable once its first line is read, not at the end of the file; the
    /// records the end renames for a duplicate id (the same records again) are sent again,
    /// and it ends as a plain load.
    #[test]
    #[cfg(not(target_arch = "wasm32"))]
    fn records_are_shown_as_their_lines_are_read_and_end_as_a_plain_load() {
        let one = std::fs::read(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../tests/fixtures/trajerrbench/records.jsonl"),
        )
        .unwrap();
        let bytes = one.repeat(5);
        let first_line = one.iter().position(|&b| b == b'\n').unwrap() + 1;
        let hash = trajscope_core::labels::content_hash(&bytes);
        let mut store = Store::default();
        let answers = load_in_slices(&mut store, 1, &bytes, first_line, |store, _| {
            if !store.shown_early(1) || store.shown(1) {
                return Vec::new();
            }
            store.answer_all(Request::Columns { req: 1, file: 1, traj: 0 })
        });
        let [(at, early), (_, whole)] = loaded(&answers)[..] else { panic!() };
        assert_eq!((at, early.growing, early.rows.len()), (first_line, None, 1));
        assert!(early.reading.is_some(), "shown while the rest is read");
        // The whole file: ten trajectories, the copies renamed (`…#2`), those the page was
        // sent under their old id sent again.
        assert_eq!(whole.rows.len() + whole.kept as usize - whole.revised.len(), 10);
        assert!(!whole.revised.is_empty() && whole.revised.iter().all(|&i| i >= 2));
        let mut plain = Store::default();
        let want = plain.insert(1, session(&bytes, Some(&hash)));
        assert_eq!(store.session(1).unwrap().trace(), plain.session(1).unwrap().trace());
        let got = settle_down(&mut store, 1, &answers);
        let want = settle_down(&mut plain, 1, &[(0, want)]);
        assert_eq!(got.rows, want.rows);
        assert_eq!((got.secrets, got.cases), (want.secrets, want.cases));
    }

    /// Every fixture read in small slices (trajectories shown early where they settle) ends
    /// as the same session, and the page ends up with the same rows, secrets and cases, as a
    /// fixture loaded whole.
    #[test]
    #[cfg(not(target_arch = "wasm32"))]
    fn every_fixture_read_in_slices_ends_as_when_loaded_whole() {
        // And files of several runs: the AWTL fixtures one after the other, and twice over
        // (the second copy's lines reopen runs that settled: the same ids).
        let awtl: Vec<u8> = fixtures()
            .iter()
            .filter(|p| p.to_string_lossy().ends_with(".awtl.jsonl"))
            .flat_map(|p| std::fs::read(p).unwrap())
            .collect();
        let twice = [awtl.clone(), awtl.clone()].concat();
        let inputs = fixtures().into_iter().map(|p| (format!("{p:?}"), std::fs::read(&p).unwrap()));
        let inputs = inputs.chain([("awtl".to_string(), awtl), ("twice".to_string(), twice)]);
        let (mut early, mut revised) = (0, 0);
        for (p, bytes) in inputs {
            let hash = trajscope_core::labels::content_hash(&bytes);
            let mut store = Store::default();
            let answers = load_in_slices(&mut store, 1, &bytes, 97, |store, _| {
                if store.shown_early(1) {
                    store.answer_all(Request::Columns { req: 1, file: 1, traj: 0 })
                } else {
                    Vec::new()
                }
            });
            early += usize::from(store.shown.contains(&1));
            revised += usize::from(answers.iter().any(
                |(_, r)| matches!(r, Response::Loaded { summary, .. } if !summary.revised.is_empty()),
            ));
            let mut plain = Store::default();
            let loaded = plain.insert(1, session(&bytes, Some(&hash)));
            assert_eq!(
                store.session(1).unwrap().trace(),
                plain.session(1).unwrap().trace(),
                "{p:?}"
            );
            let got = settle_down(&mut store, 1, &answers);
            let want = settle_down(&mut plain, 1, &[(0, loaded)]);
            assert_eq!(got.rows, want.rows, "{p:?}");
            assert_eq!(
                (got.secrets, got.secrets_total),
                (want.secrets, want.secrets_total),
                "{p:?}"
            );
            assert_eq!(got.cases, want.cases, "{p:?}");
        }
        assert!(early >= 2 && revised >= 1, "{early} files shown early, {revised} revised");
    }

    /// Every fixture file under `tests/fixtures` (any format, corrupt ones included).
    #[cfg(not(target_arch = "wasm32"))]
    fn fixtures() -> Vec<std::path::PathBuf> {
        fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            let Ok(entries) = std::fs::read_dir(dir) else { return };
            for e in entries.flatten() {
                let p = e.path();
                if p.is_dir() {
                    walk(&p, out);
                } else if p.extension().is_none_or(|x| x != "md") {
                    out.push(p);
                }
            }
        }
        let mut out = Vec::new();
        walk(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures"),
            &mut out,
        );
        trajscope_core::sort::sort(&mut out);
        out
    }

    /// The worker answers with exactly the session's projections (what the CLI prints), for
    /// every fixture: the overviews, the cases and the brief, and the secrets its scan finds in
    /// pieces after `Loaded`. (Natively: it lists the fixture
    /// folder.)
    #[test]
    #[cfg(not(target_arch = "wasm32"))]
    fn the_worker_answers_what_the_session_projects_for_every_fixture() {
        let (mut n, mut with_cases, mut with_secrets) = (0, 0, 0);
        for p in fixtures() {
            let bytes = std::fs::read(&p).unwrap();
            let hash = trajscope_core::labels::content_hash(&bytes);
            let mut expected = session(&bytes, Some(&hash));
            let report = expected.report();
            let cases = expected.cases().unwrap();
            let mut store = Store::default();
            let Response::Loaded { summary, .. } = store.insert(1, session(&bytes, Some(&hash)))
            else {
                panic!("not loaded");
            };
            let d = drain(&mut store, 1, &summary);
            let rows: Vec<Row> = report.trajectories.iter().map(Row::of).collect();
            assert_eq!(d.rows, rows, "{p:?}");
            // The full overview of the trajectory the page opens comes before its columns.
            for (i, want) in report.trajectories.iter().enumerate() {
                let out = store.answer_all(Request::Columns { req: 1, file: 1, traj: i as u32 });
                let [Response::Analysed { overviews, .. }, Response::Columns { .. }] =
                    out.as_slice()
                else {
                    panic!("{p:?}: {out:?}")
                };
                assert_eq!(overviews, &[(i as u32, want.clone())], "{p:?}");
            }
            // The scan in pieces finds what the session's scan of the whole trace finds.
            let secrets = expected.secrets();
            assert!(d.scan_complete, "{p:?}");
            assert_eq!(d.secrets_total, secrets.len() as u64, "{p:?}");
            assert_eq!(d.secrets, secrets[..secrets.len().min(SECRETS_SHOWN)], "{p:?}");
            with_secrets += usize::from(!secrets.is_empty());
            let Some(Response::CasesReady { cases: got, cases_jsonl, brief_markdown, .. }) =
                d.cases
            else {
                panic!("no cases for {p:?}");
            };
            let ids: Vec<&str> = got.iter().map(|c| c.case_id.as_str()).collect();
            let want: Vec<&str> = cases.built.iter().map(|c| c.case_id.as_str()).collect();
            assert_eq!(ids, want, "{p:?}");
            assert_eq!(cases_jsonl, cases.jsonl(), "{p:?}");
            assert_eq!(brief_markdown, trajscope_core::brief::to_markdown(&cases.brief()), "{p:?}");
            n += 1;
            with_cases += usize::from(!got.is_empty());
        }
        assert!(n > 20 && with_cases > 5, "{n} fixtures, {with_cases} with cases");
        assert!(with_secrets >= 2, "{with_secrets} fixtures with secrets");
    }
}
