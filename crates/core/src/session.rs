//! The seam between a loaded trace and what users see: a [`Session`] holds one loaded trace,
//! the analyses of its trajectories (filled one by one or all at once) and its identity (the
//! SHA-256 of the file, which may arrive after the trace), and gives the projections both shells
//! show — the [`Overview`] of a trajectory, its steps at a grain, search, the failed turn cases
//! and the brief, the quarantine export. [`Loader`] is the pure load loop: the CLI's reader
//! threads and the app's worker only move bytes into it. See `ARCHITECTURE.md`.

pub mod loader;
pub mod steps;
pub mod text;

use crate::attribution::{self, AnalysisOptions, TrajectoryAnalysis};
use crate::brief::{self, Brief, BriefContext};
use crate::cases::{self, FailedTurnCase, TraceCase};
use crate::model::{Outcome, Trace, Trajectory};
use crate::outcome::ReviewerOutcome;
use crate::report::{Overview, QuarantineRecord, Report};
use crate::scorecard::ScorecardRecord;

pub use loader::{LoadProgress, Loader};
pub use steps::{StepColumns, StepView};

/// One loaded trace, its analyses and its identity.
#[derive(Clone, Debug)]
pub struct Session {
    trace: Trace,
    /// Boxed: a slot of a trajectory not analysed yet is one word, not the ~0.5 KB of an
    /// analysis (100,000 empty slots were 50 MB written before anything was analysed).
    analyses: Vec<Option<Box<TrajectoryAnalysis>>>,
    /// Every trajectory before this one is analysed (a reviewer's outcome that drops an
    /// analysis lowers it), so
    /// [`Session::analyse_next`] does not rescan them: analysing 100,000 trajectories one by
    /// one stays linear.
    analysed_below: usize,
    identity: Option<String>,
    opts: AnalysisOptions,
    /// Each trajectory's outcome as the trace came in, before any reviewer's outcome.
    file_outcomes: Vec<Outcome>,
}

impl Session {
    /// A session over `trace`, nothing analysed yet. `identity` is the trace's content hash
    /// (`sha256:<hex>`) when known.
    pub fn new(trace: Trace, identity: Option<String>) -> Session {
        let n = trace.trajectories.len();
        let file_outcomes = trace.trajectories.iter().map(|t| t.outcome).collect();
        let opts = AnalysisOptions::default();
        Session { trace, analyses: vec![None; n], analysed_below: 0, identity, opts, file_outcomes }
    }

    /// Adds a trajectory after the last one, not analysed: a shell showing a file while it is
    /// read (the app's worker) builds its provisional session from the trajectories settled
    /// so far, in order, and gives them back to [`Loader::finish_returning`] from
    /// [`Session::into_parts`].
    pub fn push(&mut self, t: Trajectory) {
        self.file_outcomes.push(t.outcome);
        self.analyses.push(None);
        self.trace.trajectories.push(t);
    }

    /// Replaces trajectory `i` (a shell that showed a provisional copy of it, see
    /// [`Loader::snapshot_first`], once the trajectory itself settled): its analysis is
    /// dropped, its outcome as it came in is the new one's. False if there is no trajectory `i`.
    pub fn replace(&mut self, i: usize, t: Trajectory) -> bool {
        let Some(slot) = self.trace.trajectories.get_mut(i) else { return false };
        self.file_outcomes[i] = t.outcome;
        *slot = t;
        self.analyses[i] = None;
        self.analysed_below = self.analysed_below.min(i);
        true
    }

    /// Sets the reviewer's outcome ([`ReviewerOutcome`]) on the trajectories it is about;
    /// `Unknown` takes it back (each one's outcome as the trace came in). The analysis of a
    /// trajectory whose outcome changed is dropped (analysed again on demand). Returns those
    /// trajectories; an id the trace does not hold is an error.
    pub fn set_outcome(&mut self, reviewer: &ReviewerOutcome) -> Result<Vec<usize>, String> {
        let mut changed = Vec::new();
        let mut about = 0;
        for (i, t) in self.trace.trajectories.iter_mut().enumerate() {
            if !reviewer.applies_to(t) {
                continue;
            }
            about += 1;
            let before = t.outcome;
            t.outcome = self.file_outcomes[i];
            reviewer.apply(t);
            if t.outcome != before {
                self.analyses[i] = None;
                self.analysed_below = self.analysed_below.min(i);
                changed.push(i);
            }
        }
        match &reviewer.trajectory {
            Some(id) if about == 0 => {
                let ids = self.trace.ids_named();
                Err(format!("no trajectory `{id}` in the trace (it holds: {ids})"))
            }
            _ => Ok(changed),
        }
    }

    pub fn trace(&self) -> &Trace {
        &self.trace
    }

    pub fn into_trace(self) -> Trace {
        self.trace
    }

    pub fn trajectory(&self, i: usize) -> Option<&Trajectory> {
        self.trace.trajectories.get(i)
    }

    pub fn len(&self) -> usize {
        self.trace.trajectories.len()
    }

    pub fn is_empty(&self) -> bool {
        self.trace.trajectories.is_empty()
    }

    /// The content hash (`sha256:<hex>`), once known.
    pub fn identity(&self) -> Option<&str> {
        self.identity.as_deref()
    }

    /// Sets the identity when it arrives after the trace (the app hashes a large file beside
    /// the parse and does not wait for it).
    pub fn set_identity(&mut self, identity: String) {
        self.identity = Some(identity);
    }

    pub fn options(&self) -> &AnalysisOptions {
        &self.opts
    }

    /// Analyses trajectory `i` if it is not yet; true if it did.
    pub fn analyse(&mut self, i: usize) -> bool {
        match (self.analyses.get(i), self.trace.trajectories.get(i)) {
            (Some(None), Some(t)) => {
                self.analyses[i] = Some(Box::new(attribution::analyze_trajectory(t, &self.opts)));
                true
            }
            _ => false,
        }
    }

    /// Analyses the first trajectory not analysed yet; its index, or `None` when all are.
    pub fn analyse_next(&mut self) -> Option<usize> {
        let from = self.analysed_below;
        let i = from + self.analyses.get(from..)?.iter().position(Option::is_none)?;
        self.analyse(i);
        self.analysed_below = i + 1;
        Some(i)
    }

    /// Analyses every trajectory not analysed yet.
    pub fn analyse_all(&mut self) {
        while self.analyse_next().is_some() {}
    }

    /// Stores an analysis computed elsewhere (the CLI analyses independent trajectories on
    /// several threads); it must be `attribution::analyze_trajectory` of trajectory `i` with
    /// [`Session::options`].
    pub fn set_analysis(&mut self, i: usize, a: impl Into<Box<TrajectoryAnalysis>>) {
        if let Some(slot) = self.analyses.get_mut(i) {
            *slot = Some(a.into());
        }
    }

    /// The trajectories not analysed yet, in order.
    pub fn unanalysed(&self) -> Vec<usize> {
        (0..self.analyses.len()).filter(|&i| self.analyses[i].is_none()).collect()
    }

    pub fn is_analysed(&self, i: usize) -> bool {
        self.analyses.get(i).is_some_and(Option::is_some)
    }

    pub fn all_analysed(&self) -> bool {
        self.analyses.iter().all(Option::is_some)
    }

    pub fn analysis(&self, i: usize) -> Option<&TrajectoryAnalysis> {
        self.analyses.get(i)?.as_deref()
    }

    /// The overview of trajectory `i` (its analysis fields empty while it is not analysed).
    pub fn overview(&self, i: usize) -> Option<Overview> {
        Some(Overview::of(self.trajectory(i)?, self.analysis(i)))
    }

    /// Every trajectory's overview, in order.
    pub fn overviews(&self) -> Vec<Overview> {
        (0..self.len()).filter_map(|i| self.overview(i)).collect()
    }

    /// The `analyze --json` report (analyses every trajectory first).
    pub fn report(&mut self) -> Report {
        self.analyse_all();
        Report::with_summaries(&self.trace, self.overviews())
    }

    /// The report, consuming the session (no copy of the analyses: what `analyze --json`
    /// prints of a large trace).
    pub fn into_report(mut self) -> Report {
        self.analyse_all();
        let Session { trace, analyses, .. } = self;
        let overviews = trace
            .trajectories
            .iter()
            .zip(analyses)
            .map(|(t, a)| Overview::owning(t, a.map(|a| *a)))
            .collect();
        Report::with_summaries(&trace, overviews)
    }

    /// The trace and each trajectory's analysis (`None` where not analysed yet), by position:
    /// for a shell that builds the report in pieces (the CLI writes `analyze --json` one
    /// trajectory at a time, see [`Report::write_json_head`]). Each analysis is boxed, as the
    /// session keeps it.
    pub fn into_parts(self) -> (Trace, Vec<Option<Box<TrajectoryAnalysis>>>) {
        (self.trace, self.analyses)
    }

    /// Per-step columns of trajectory `i`.
    pub fn columns(&self, i: usize) -> Option<StepColumns> {
        Some(steps::columns(self.trajectory(i)?))
    }

    /// The text of some steps of trajectory `i`, each at its grain, with the analysis's quotes
    /// protected when the trajectory is analysed. Steps out of range are left out.
    pub fn steps(&self, i: usize, items: &[(u32, crate::views::Grain)]) -> Vec<StepView> {
        let Some(t) = self.trajectory(i) else { return Vec::new() };
        let triggers = self.analysis(i).map(|a| a.triggers.as_slice());
        steps::step_views(t, triggers, items, &self.opts.views)
    }

    /// Indices of the steps of trajectory `i` whose content contains `query`, ignoring ASCII
    /// case (actor, tool, arguments, status and text).
    pub fn search(&self, i: usize, query: &str) -> Vec<u32> {
        let Some(t) = self.trajectory(i) else { return Vec::new() };
        t.steps
            .iter()
            .enumerate()
            .filter(|(_, s)| text::step_matches(s, query))
            .map(|(i, _)| i as u32)
            .collect()
    }

    /// The failed turn cases: one per failing trajectory (outcome failed, or a critical step),
    /// valid or not (`docs/learning-loop.md` gives the rule, also for runs of unknown outcome). Analyses
    /// the rest first. `None` until the identity is known (it fixes the case ids).
    pub fn cases(&mut self) -> Option<Cases> {
        self.analyse_all();
        let identity = self.identity.as_deref()?;
        // The analyses are paired with the trajectories by position (ids are not unique in
        // every source).
        let analyses = &self.analyses;
        let built = cases::from_trace_analyses(&self.trace, identity, |i, _| {
            analyses.get(i).and_then(Option::as_deref).cloned()
        });
        Some(Cases { built })
    }

    /// The case of the trajectory at `i`, as [`Session::cases`] builds it, when it is analysed
    /// and failing and the identity is known (a shell that shows one trajectory at a time).
    pub fn case(&self, i: usize) -> Option<TraceCase> {
        cases::trace_case(self.analysis(i)?, self.trajectory(i)?, self.identity()?)
    }

    /// The secrets found in the trace (`crate::redact::scan_trace`, `docs/redaction.md`).
    pub fn secrets(&self) -> Vec<crate::redact::TraceFinding> {
        crate::redact::scan_trace(&self.trace)
    }

    /// The quarantine export: one [`QuarantineRecord`] JSON object per line (exact bytes in
    /// base64), what `trajscope quarantine` writes and the app's export downloads.
    pub fn quarantine_jsonl(&self) -> String {
        let mut out = String::new();
        for q in &self.trace.quarantine {
            if let Ok(line) = serde_json::to_string(&QuarantineRecord::from_entry(q)) {
                out.push_str(&line);
                out.push('\n');
            }
        }
        out
    }

    /// The quarantine export with secrets masked: the same records, each line's bytes with
    /// its secrets replaced and `"redacted": true` (`crate::redact::quarantine_record`).
    pub fn quarantine_jsonl_redacted(&self) -> String {
        let mut out = String::new();
        for q in &self.trace.quarantine {
            if let Ok(line) = serde_json::to_string(&crate::redact::quarantine_record(q)) {
                out.push_str(&line);
                out.push('\n');
            }
        }
        out
    }
}

/// The failed turn cases of a session.
#[derive(Clone, Debug, PartialEq)]
pub struct Cases {
    /// Every case built, valid or not, in trajectory order.
    pub built: Vec<TraceCase>,
}

impl Cases {
    /// The valid cases (the only ones ever exported or used by a brief).
    pub fn valid(&self) -> Vec<FailedTurnCase> {
        self.built.iter().filter(|c| c.valid).map(|c| c.case.clone()).collect()
    }

    /// The valid cases as JSONL (what `trajscope cases -o` and the app's export write).
    pub fn jsonl(&self) -> String {
        cases::export_jsonl(&self.valid()).0
    }

    /// The Failure Prevention Brief from the valid cases alone (no scorecard, default context):
    /// the brief both shells show for a loaded file.
    pub fn brief(&self) -> Brief {
        self.brief_with(&[], &BriefContext::default())
    }

    pub fn brief_with(&self, records: &[ScorecardRecord], ctx: &BriefContext) -> Brief {
        brief::build(&self.valid(), records, ctx)
    }
}
