//! Attribution without an LLM (docs/detector.md): triggers → error instances → state → ranked candidates.
//!
//! The TRAJDEBUG pipeline, with rules in place of the model:
//! 1. [`triggers`]: per step, the detected error signals, each with a verbatim `wrong_quote` of
//!    the step and a `reference_quote` of what it violates (task, history, same step,
//!    environment), a category, a phase and the rule that fired. Quotes are exact substrings of
//!    the steps' `text` (or `args`).
//! 2. [`instances`]: triggers grouped by the reference object they violate (same command, same
//!    verified action, same error signature, same claim); a repair that fails again is a new
//!    instance. Each instance gets a state: resolved or active, and terminal footprints
//!    (irreversible action after it, semantic footprint in the final answer, budget debt).
//! 3. [`ranking`]: candidates are the CostlyResolution and ManifestActive instances, ranked; the
//!    top one names the critical step and the responsible agent, with its evidence.
//!
//! Public API (stable): [`analyze_trajectory`] → [`TrajectoryAnalysis`].
//! Invariant: an error fixed at once (a cheap resolution) is never a candidate.
//! Invariant: every quote is an exact substring of the text or args of the step it names.

pub mod classify;
pub mod instances;
pub mod ranking;
pub mod rules;
pub mod score;
pub mod text;
pub mod triggers;

use serde::{Deserialize, Serialize};

use self::classify::Signals;
pub use self::rules::Rule;
pub use self::score::{Features, Weights};
use crate::model::{Outcome, Step, Trajectory};
use crate::record::{AttributionRecord, Category, FailureClass, FailureMode, Phase};
use crate::views::ViewOptions;

/// Tunable thresholds. The defaults follow the sources (TRAJDEBUG's k = 50%, the reflect form's 5
/// attempts and 2 repetitions), not any benchmark.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AnalysisOptions {
    pub views: ViewOptions,
    /// Budget debt: an instance that consumed more than this fraction of the trajectory.
    pub budget_debt: f64,
    /// Attempts of the same command past this are a loop signal.
    pub max_attempts: u32,
    /// Identical failures repeated more than this many times are a loop signal.
    pub max_repetitions: u32,
    /// Predict a critical step even when the trace does not say the run failed (labelled
    /// benchmark items are all failures).
    pub assume_failed: bool,
    /// How many ranked candidates to keep.
    pub max_candidates: usize,
    /// The scoring model's fitted weights for a group chat (agents talking in turn; the
    /// default shape).
    #[serde(default)]
    pub weights: Weights,
    /// The weights for an orchestrated run (an orchestrator instructs workers, who reply):
    /// the features mean other things there, so the model is fitted apart for each shape.
    #[serde(default = "Weights::orchestrated")]
    pub orchestrated_weights: Weights,
}

impl AnalysisOptions {
    /// The weights for a run of this shape (see [`Features::orchestrated`]).
    pub fn weights_for(&self, orchestrated: bool) -> &Weights {
        if orchestrated {
            &self.orchestrated_weights
        } else {
            &self.weights
        }
    }
}

impl Default for AnalysisOptions {
    fn default() -> Self {
        AnalysisOptions {
            views: ViewOptions::default(),
            budget_debt: 0.5,
            max_attempts: 5,
            max_repetitions: 2,
            assume_failed: false,
            max_candidates: 10,
            weights: Weights::default(),
            orchestrated_weights: Weights::orchestrated(),
        }
    }
}

/// One detected error signal on a step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Trigger {
    /// The step holding the wrong content.
    pub step: u32,
    pub category: Category,
    pub phase: Phase,
    /// Verbatim quote of the wrong content (a substring of step `step`).
    pub wrong_quote: String,
    /// Verbatim quote of the violated reference (a substring of step `reference_step`).
    pub reference_quote: String,
    pub reference_step: Option<u32>,
    /// The rule that fired (`failed_command`, `verifier_rejected`, `claim_contradicted`, ...).
    pub rule: Rule,
    /// The reference object the trigger violates (instances group by it).
    pub object: String,
    /// Not the agent's doing (environment, flaky, harness).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocker: Option<FailureClass>,
}

/// Resolution and footprint state of an error instance (TRAJDEBUG).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InstanceState {
    /// Fixed without a terminal footprint: not a candidate.
    CheapResolution,
    /// Fixed, but after an irreversible action or more than the budget-debt share of the run.
    CostlyResolution,
    /// Still active at the end, with a terminal footprint.
    ManifestActive,
    /// Still active, no terminal footprint seen.
    LatentActive,
}

impl InstanceState {
    pub fn name(self) -> &'static str {
        match self {
            InstanceState::CheapResolution => "cheap_resolution",
            InstanceState::CostlyResolution => "costly_resolution",
            InstanceState::ManifestActive => "manifest_active",
            InstanceState::LatentActive => "latent_active",
        }
    }
    pub fn is_candidate(self) -> bool {
        matches!(self, InstanceState::CostlyResolution | InstanceState::ManifestActive)
    }
}

/// A terminal footprint of an error instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Footprint {
    Irreversible,
    Semantic,
    BudgetDebt,
}

/// Triggers that violate one reference object.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorInstance {
    pub object: String,
    /// Indices into [`TrajectoryAnalysis::triggers`].
    pub triggers: Vec<usize>,
    /// The earliest step holding wrong content (where the error was introduced).
    pub origin_step: u32,
    /// The last step touched by the instance (trigger or reference).
    pub last_step: u32,
    /// The step that resolved it, if any.
    pub resolved_at: Option<u32>,
    pub footprints: Vec<Footprint>,
    pub state: InstanceState,
}

/// One quoted piece of evidence.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    pub step: u32,
    /// `wrong` (the error) or `reference` (what it violates).
    pub kind: String,
    pub quote: String,
    pub rule: Rule,
}

/// A ranked candidate critical step (the JSON contract of `candidates[]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    pub step: u32,
    /// 1-based source line of the step (0 when unknown).
    pub line: u32,
    pub agent: String,
    pub score: f64,
    pub category: Category,
    pub phase: Phase,
    /// The instance state (`manifest_active`, `costly_resolution`, ...).
    pub state: InstanceState,
    pub evidence: Vec<Evidence>,
    /// Index of the instance in [`TrajectoryAnalysis::instances`] (none for an out-of-set
    /// candidate such as the plan origin).
    pub instance: Option<usize>,
    /// The features that placed it, in words (see `docs/detector.md`).
    #[serde(default)]
    pub why: Vec<String>,
    /// The features themselves (for re-ranking under other weights; not part of the JSON).
    #[serde(skip)]
    pub features: Features,
}

/// The predicted critical step (the JSON contract of `critical`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Critical {
    pub step: u32,
    pub line: u32,
    pub agent: String,
    pub action_id: Option<String>,
    pub evidence: Vec<Evidence>,
}

/// Everything the analysis says about one trajectory.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrajectoryAnalysis {
    pub triggers: Vec<Trigger>,
    pub instances: Vec<ErrorInstance>,
    pub candidates: Vec<Candidate>,
    /// Null when the run did not fail (or nothing points at a failure).
    pub critical: Option<Critical>,
    pub classification: Option<FailureClass>,
    pub failure_mode: Option<FailureMode>,
    pub signals: Signals,
    pub record: AttributionRecord,
}

/// Whether the run is treated as failed.
pub fn run_failed(traj: &Trajectory, opts: &AnalysisOptions) -> bool {
    match traj.outcome {
        Outcome::Failed => true,
        Outcome::Passed => false,
        Outcome::Unknown => opts.assume_failed,
    }
}

/// Runs the whole pipeline on one trajectory. Linear in the number of steps and text size.
///
/// Candidates are ranked whatever the outcome (for an unknown outcome they are candidates, "if
/// this run failed"); the critical step, its class and the record only once the run failed.
pub fn analyze_trajectory(traj: &Trajectory, opts: &AnalysisOptions) -> TrajectoryAnalysis {
    analyze_found(traj, opts, triggers::detect(traj))
}

/// [`analyze_trajectory`], with the per-step facts of chunks of the run worked out ahead (on
/// other threads, for a long run): see [`triggers::detect_with`]. The same analysis whatever
/// `ahead` gives.
#[cfg(not(target_arch = "wasm32"))]
pub fn analyze_trajectory_with<'t>(
    traj: &'t Trajectory,
    opts: &AnalysisOptions,
    ahead: &mut dyn FnMut(usize) -> Option<triggers::FactsChunk<'t>>,
) -> TrajectoryAnalysis {
    analyze_found(traj, opts, triggers::detect_with(traj, ahead))
}

/// The analysis of `traj` from what the pass over it found.
fn analyze_found(
    traj: &Trajectory,
    opts: &AnalysisOptions,
    found: triggers::Found,
) -> TrajectoryAnalysis {
    let failed = run_failed(traj, opts);
    let instances = instances::build(traj, &found, opts, failed);
    let candidates = ranking::rank(traj, &found, &instances, opts, failed);
    let signals = classify::signals(&found, opts);
    // An unknown outcome with an error still active at the end (a manifest instance) is
    // attributed as before; any other unknown run only gets its candidates.
    let manifest = instances.iter().any(|i| i.state == InstanceState::ManifestActive);
    let critical = if failed || (traj.outcome == Outcome::Unknown && manifest) {
        candidates.first().map(|c| critical_of(traj, c))
    } else {
        None
    };
    let (classification, failure_mode) = match &critical {
        Some(c) => {
            let (class, mode) =
                classify::classify(&found.triggers, &instances, &candidates, &signals, c);
            (Some(class), Some(mode))
        }
        None => (None, None),
    };
    let record =
        fill_record(traj, &found, &instances, critical.as_ref(), classification, failure_mode);
    TrajectoryAnalysis {
        triggers: found.triggers,
        instances,
        candidates,
        critical,
        classification,
        failure_mode,
        signals,
        record,
    }
}

/// The agent to name for a step: its actor, else its role.
pub fn agent_of(step: &Step) -> String {
    if !step.actor.is_empty() {
        step.actor.clone()
    } else {
        step.role.name().to_string()
    }
}

fn critical_of(traj: &Trajectory, c: &Candidate) -> Critical {
    let step = traj.steps.get(c.step as usize);
    Critical {
        step: c.step,
        line: c.line,
        agent: c.agent.clone(),
        action_id: step.and_then(|s| s.ids.action_id.as_deref().map(str::to_owned)),
        evidence: c.evidence.clone(),
    }
}

fn step_ref(s: &Step) -> String {
    s.ids
        .event_id
        .as_deref()
        .map(str::to_owned)
        .or_else(|| s.ids.action_id.as_deref().map(str::to_owned))
        .unwrap_or_else(|| format!("step-{}", s.index))
}

/// The most touched action ids a record lists (the record is compact metadata).
pub const MAX_TOUCHED: usize = 64;

/// Fills the attribution record from the analysis.
fn fill_record(
    traj: &Trajectory,
    found: &triggers::Found,
    instances: &[ErrorInstance],
    critical: Option<&Critical>,
    classification: Option<FailureClass>,
    failure_mode: Option<FailureMode>,
) -> AttributionRecord {
    let mut r = AttributionRecord::default();
    let Some(c) = critical else { return r };
    let steps = &traj.steps;
    // The failure event: the last failed verdict, else the first visible failure of the critical
    // instance, else the critical step itself.
    let event = found
        .failed_judges
        .last()
        .copied()
        .or_else(|| {
            instances
                .iter()
                .flat_map(|i| i.triggers.iter())
                .filter_map(|&t| found.triggers[t].reference_step)
                .find(|&s| s >= c.step)
                .map(|s| s as usize)
        })
        .unwrap_or(c.step as usize);
    if let Some(e) = steps.get(event) {
        r.failure_event = Some(step_ref(e));
        r.failure_event_step = Some(e.index);
        r.failure_turn_id = Some(
            e.ids
                .turn_id
                .as_deref()
                .map(str::to_owned)
                .unwrap_or_else(|| format!("step-{}", e.index)),
        );
        if e.role == crate::model::Role::Judge || e.kind == crate::model::StepKind::JudgeResult {
            r.verifier_action_id = e
                .ids
                .event_id
                .as_deref()
                .map(str::to_owned)
                .or_else(|| e.ids.action_id.as_deref().map(str::to_owned));
            if !e.actor.is_empty() {
                r.evidence_refs.push(format!("judge:{}", e.actor));
            }
            r.failed_artifact_refs = e.artifact_refs.iter().map(|a| a.normalized.clone()).collect();
            if let Some(src) = &e.ids.source_action_id {
                r.source_action_ids.push(src.to_string());
            }
        }
    }
    if let Some(a) = &c.action_id {
        if !r.source_action_ids.contains(a) {
            r.source_action_ids.push(a.clone());
        }
    }
    let upto = event.min(steps.len().saturating_sub(1));
    // Touched actions: those that touched a failed artifact before the failure, and those from
    // the critical step to the failure event (they built on the error); at most
    // MAX_TOUCHED, in step order. Linear: membership through hash maps.
    let failed_refs: text::FastMap<&str, ()> = steps
        .get(event)
        .map(|e| e.artifact_refs.iter().map(|a| (a.normalized.as_str(), ())).collect())
        .unwrap_or_default();
    let mut seen_actions: text::FastMap<&str, ()> = text::FastMap::default();
    let mut seen_nodes: text::FastMap<&str, ()> = text::FastMap::default();
    for (i, s) in steps.iter().enumerate().take(upto + 1) {
        if let Some(a) = &s.ids.action_id {
            let touched = i >= c.step as usize
                || s.artifact_refs.iter().any(|r| failed_refs.contains_key(r.normalized.as_str()));
            if touched
                && r.touched_action_ids.len() < MAX_TOUCHED
                && seen_actions.insert(a, ()).is_none()
            {
                r.touched_action_ids.push(a.to_string());
            }
        }
        for n in &s.memory_node_ids {
            if seen_nodes.insert(n, ()).is_none() {
                r.memory_read_node_ids.push(n.clone());
            }
        }
    }
    if let Some(cs) = steps.get(c.step as usize) {
        for a in &cs.artifact_refs {
            if !r.failed_artifact_refs.contains(&a.normalized) {
                r.failed_artifact_refs.push(a.normalized.clone());
            }
        }
        // A change the task forbids names the files it wrote, read from its command when the
        // format gave the step no references.
        let broke_ban = c.evidence.iter().any(|e| e.rule == Rule::TaskConstraintBroken);
        if broke_ban && cs.artifact_refs.is_empty() {
            let written = crate::artifact::extract::shell_writes(cs.args.as_deref().unwrap_or(""));
            for a in crate::artifact::extract::refs(written, None) {
                if !a.escapes_root && !r.failed_artifact_refs.contains(&a.normalized) {
                    r.failed_artifact_refs.push(a.normalized);
                }
            }
        }
    }
    for e in &c.evidence {
        let id =
            steps.get(e.step as usize).map(step_ref).unwrap_or_else(|| format!("step-{}", e.step));
        let id = format!("{}:{id}", e.kind);
        if !r.evidence_refs.contains(&id) {
            r.evidence_refs.push(id);
        }
    }
    let wrong = c.evidence.iter().find(|e| e.kind == "wrong");
    let reference = c.evidence.iter().find(|e| e.kind == "reference");
    r.root_cause_summary = match (wrong, reference) {
        (Some(w), Some(rf)) => format!(
            "step {} by {} ({}): \"{}\" — against step {}: \"{}\"",
            c.step, c.agent, w.rule, w.quote, rf.step, rf.quote
        ),
        (Some(w), None) => format!("step {} by {} ({}): \"{}\"", c.step, c.agent, w.rule, w.quote),
        _ => format!("step {} by {}", c.step, c.agent),
    };
    let protected = c
        .evidence
        .iter()
        .find(|e| e.rule == Rule::TaskConstraintBroken && e.kind == "reference")
        .map(|e| {
            format!("check that the change leaves unchanged what the task forbids: \"{}\"", e.quote)
        });
    r.verification_probe_candidate = protected.or_else(|| {
        found
            .failed_judges
            .last()
            .and_then(|&j| steps.get(j))
            .map(|j| format!("re-run the verifier `{}` on the changed artifact", agent_of(j)))
            .or_else(|| {
                steps
                    .get(event)
                    .and_then(|s| s.args.clone())
                    .map(|a| format!("re-run `{}` after the fix", text::cut(text::first_line(&a))))
            })
    });
    r.classification = classification;
    r.failure_mode = failure_mode;
    let mut rules: Vec<String> = c.evidence.iter().map(|e| e.rule.to_string()).collect();
    crate::sort::sort(&mut rules);
    rules.dedup();
    r.attribution_heuristics = rules;
    r
}

/// Every trigger quote that lies on step `step` (wrong quotes of its triggers, reference quotes
/// that point at it): what its high view must keep intact.
pub fn quotes_on(triggers: &[Trigger], step: u32) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for t in triggers {
        if t.step == step && !out.contains(&t.wrong_quote.as_str()) {
            out.push(&t.wrong_quote);
        }
        if t.reference_step == Some(step) && !out.contains(&t.reference_quote.as_str()) {
            out.push(&t.reference_quote);
        }
    }
    out
}

/// [`quotes_on`] for every step at once (one pass over the triggers): for a history view.
pub fn quotes_by_step(triggers: &[Trigger]) -> std::collections::BTreeMap<u32, Vec<&str>> {
    let mut out: std::collections::BTreeMap<u32, Vec<&str>> = std::collections::BTreeMap::new();
    for t in triggers {
        let w = out.entry(t.step).or_default();
        if !w.contains(&t.wrong_quote.as_str()) {
            w.push(&t.wrong_quote);
        }
        if let Some(r) = t.reference_step {
            let v = out.entry(r).or_default();
            if !v.contains(&t.reference_quote.as_str()) {
                v.push(&t.reference_quote);
            }
        }
    }
    out
}
