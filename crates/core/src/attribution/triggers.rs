//! Trigger detection: one linear pass over the steps, with hash maps for identities (action ids,
//! spans, artifacts, repeated commands). Each rule says what a critical error *is*:
//!
//! - `failed_command`: an action (or a chat agent's code) whose observation failed; the trigger
//!   sits on the action that introduced it, the observation is the reference.
//! - `edit_broke_test`: a test/verify command failed after an edit: the edit is where the error
//!   was introduced (the test only shows it).
//! - `verifier_rejected`: a failed judge/verifier result, traced to its `source_action_id` (else
//!   to the last action touching its artifact, else the last agent step before it).
//! - `memory_misapplied`: the rejected action followed a memory read.
//! - `claim_contradicted`: a success claim ("all tests pass") after an unresolved failure
//!   (history conflict) or beside an error in the same step (intra-step conflict).
//! - `repeated_action`: an action identical to one that already failed, with nothing fixed.
//! - `environment_blocker` / `flaky_blocker` / `harness_blocker`: a failure whose signature is
//!   the environment's (missing binary, network, sandbox, timeouts, harness errors).
//! - `budget_exhausted`: a step, cost or context limit reached.
//! - `task_constraint_broken`: an edit that writes what the task forbids changing ("do not
//!   change the tests"); the task's clause is the reference.
//! - `answer_origin`: in a failed run, the earliest agent step that states the final answer's
//!   value (its semantic footprint reaches the answer); a number counts with or without its
//!   thousands separators (`950,000` is `950000`).

use super::rules::Rule;
use super::text::{self, Blocker, FastMap as HashMap};
use super::Trigger;
use crate::artifact::RefKind;
use crate::model::{Role, Step, StepKind, Trajectory};
use crate::record::{Category, FailureClass, Phase};

/// What the pass found: the triggers and the facts the state and loop analysis need.
#[derive(Clone, Debug, Default)]
pub struct Found {
    pub triggers: Vec<Trigger>,
    /// Per step: the hash of an agent action (tool + command, or message text), else 0.
    pub action_hash: Vec<u64>,
    /// Steps where a verifier passed or a test command succeeded (a green state).
    pub green_steps: Vec<u32>,
    /// Command hash (or [`program_key`]) → steps where it succeeded.
    pub successes: HashMap<u64, Vec<u32>>,
    /// Irreversible agent actions.
    pub irreversible_steps: Vec<u32>,
    /// Failed judge / verifier results.
    pub failed_judges: Vec<usize>,
    /// Most occurrences of one identical agent action.
    pub max_identical_actions: u32,
    /// Most occurrences of one identical failure signature.
    pub max_identical_failures: u32,
    /// Most failed attempts of one command.
    pub max_failed_attempts: u32,
    pub budget_exhausted: bool,
    /// The last agent step.
    pub last_agent_step: Option<u32>,
    /// The first error signal: a failed observation, a failed verdict or a budget reached.
    pub first_error: Option<u32>,
    /// Agent steps that reply to an instruction addressed to their agent (ascending).
    pub instructed: Vec<u32>,
    /// In an orchestrated run, the first worker reply whose text shows the value of the final
    /// answer, or one item of a list answer (case and punctuation ignored), before the answer
    /// is given.
    pub answer_shown: Option<AnswerShown>,
    /// In an orchestrated run, the worker reply the run's answer was accepted from: the last
    /// worker reply before the orchestrator first declares the request satisfied, when that
    /// reply states the final answer's value (case and punctuation ignored).
    pub answer_accepted: Option<AnswerAccepted>,
    /// In an orchestrated run that states its answer, the orchestrator's first declaration
    /// that the request is satisfied when no worker reply backs it: the worker reply before
    /// it (if any) does not state the final answer's value, so the orchestrator took the
    /// answer from elsewhere or made it up when declaring.
    pub unbacked_declaration: Option<u32>,
}

/// The worker reply an orchestrated run accepted its (wrong) final answer from (see
/// [`Found::answer_accepted`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnswerAccepted {
    /// The value as the reply states it, its line and the reply's step.
    pub shown: AnswerShown,
    /// The step where the orchestrator first declared the request satisfied.
    pub declared: u32,
}

/// The first worker reply of an orchestrated run that shows the final answer's value (see
/// [`Found::answer_shown`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnswerShown {
    /// The worker reply.
    pub step: u32,
    /// The value as the reply spells it: an exact substring of its text.
    pub value: String,
    /// The line of the reply that shows it (cut to a quote's length around the value; the
    /// value alone when it runs over a line break): an exact substring of its text.
    pub quote: String,
    /// What the reply shows is one item of a list answer (`A, B`), not the whole answer.
    pub item: bool,
}

/// An observation where the environment blocked an action: its signature and the quote of it
/// (its first line with a signature, else its error quote).
#[derive(Clone, Copy)]
struct Blocked<'t> {
    blocker: Blocker,
    quote: &'t str,
}

struct OpenError {
    quote_step: usize,
    object: String,
    /// The failing command's hash (0 for a blocker).
    hash: u64,
}

/// Which of a step's ids an [`IdMap`] holds.
#[derive(Clone, Copy)]
enum IdKind {
    Action,
    Span,
}

impl IdKind {
    fn of(self, s: &Step) -> Option<&str> {
        match self {
            IdKind::Action => s.ids.action_id.as_deref(),
            IdKind::Span => s.ids.span_id.as_deref(),
        }
    }
}

/// Action or span ids → the last step that carried each, keyed by the id's 64-bit hash; the
/// step an entry names holds its id, so two ids of one hash are told apart (such a rare
/// collision goes to an exact map). A table keyed by the ids themselves read every id again each
/// time it grew: a run of 1,000,000 steps has as many ids, scattered in memory. (Artifacts,
/// several a step and mostly repeated, are keyed by themselves.)
struct IdMap<'t> {
    kind: IdKind,
    by_hash: HashMap<u64, usize>,
    collided: HashMap<&'t str, usize>,
}

impl<'t> IdMap<'t> {
    fn new(kind: IdKind) -> Self {
        IdMap { kind, by_hash: HashMap::default(), collided: HashMap::default() }
    }

    /// Files `steps[step]` under its id of this kind, if it has one.
    fn insert(&mut self, steps: &'t [Step], step: usize) {
        if let Some(id) = self.kind.of(&steps[step]) {
            self.insert_hashed(text::hash(&[id]), id, steps, step);
        }
    }

    fn get(&self, steps: &[Step], id: &str) -> Option<usize> {
        self.get_hashed(text::hash(&[id]), steps, id)
    }

    /// [`IdMap::insert`], given the step's facts if they were worked out ahead: the id's hash
    /// is read from them.
    #[cfg(not(target_arch = "wasm32"))]
    fn insert_with(&mut self, steps: &'t [Step], step: usize, facts: Option<Facts<'_>>) {
        match (facts, self.kind.of(&steps[step])) {
            (Some(f), Some(id)) => self.insert_hashed(f.ids[self.kind as usize], id, steps, step),
            _ => self.insert(steps, step),
        }
    }

    /// [`IdMap::get`] of the id of this kind of the step whose `facts` are given, if they were
    /// worked out ahead: the id's hash is read from them.
    #[cfg(not(target_arch = "wasm32"))]
    fn get_with(&self, steps: &[Step], id: &str, facts: Option<Facts<'_>>) -> Option<usize> {
        match facts {
            Some(f) => self.get_hashed(f.ids[self.kind as usize], steps, id),
            None => self.get(steps, id),
        }
    }

    /// In wasm32 nothing is worked out ahead ([`Scan::ahead`]).
    #[cfg(target_arch = "wasm32")]
    #[inline(always)]
    fn insert_with(&mut self, steps: &'t [Step], step: usize, _: Option<Facts<'_>>) {
        self.insert(steps, step)
    }

    #[cfg(target_arch = "wasm32")]
    #[inline(always)]
    fn get_with(&self, steps: &[Step], id: &str, _: Option<Facts<'_>>) -> Option<usize> {
        self.get(steps, id)
    }

    /// [`IdMap::insert`] of `id`, `steps[step]`'s, its hash given (a test collides ids on purpose).
    fn insert_hashed(&mut self, hash: u64, id: &'t str, steps: &[Step], step: usize) {
        use std::collections::hash_map::Entry;
        match self.by_hash.entry(hash) {
            Entry::Occupied(e) if self.kind.of(&steps[*e.get()]) != Some(id) => {
                self.collided.insert(id, step);
            }
            Entry::Occupied(mut e) => {
                e.insert(step);
            }
            Entry::Vacant(e) => {
                e.insert(step);
            }
        }
    }

    fn get_hashed(&self, hash: u64, steps: &[Step], id: &str) -> Option<usize> {
        let &step = self.by_hash.get(&hash)?;
        match self.kind.of(&steps[step]) == Some(id) {
            true => Some(step),
            false => self.collided.get(id).copied(),
        }
    }
}

/// The state of the pass: what the rules look up (identities, open failures, the last agent,
/// edit and memory read) and what they found so far.
struct Scan<'t> {
    steps: &'t [Step],
    f: Found,
    by_action_id: IdMap<'t>,
    by_span: IdMap<'t>,
    by_artifact: HashMap<&'t str, usize>,
    action_count: HashMap<u64, u32>,
    first_action: Option<(u64, u32)>,
    /// Hash of a command → its last failure (observation step), while not fixed.
    last_failure: HashMap<u64, Failure<'t>>,
    failed_attempts: HashMap<u64, u32>,
    failure_sigs: HashMap<String, u32>,
    last_agent: Option<usize>,
    /// The last edit since the last passing test (what a test failing next may have broken).
    last_edit: Option<usize>,
    /// The last edit of the run, a passing test or not since: a command that failed before it
    /// and is run again after it is a retry of a fix, not a repeat with nothing fixed.
    latest_edit: Option<usize>,
    last_memory: Option<usize>,
    last_instruction: Option<&'t str>,
    open_error: Option<OpenError>,
    /// Action step → the observation where the environment blocked it.
    env_by_action: HashMap<usize, Blocked<'t>>,
    /// A failing test action → the edit it caught (the edit introduced the error).
    edit_by_test: HashMap<usize, usize>,
    scratch: String,
    lower: Lowered,
    /// The facts of the current chunk of steps, when worked out ahead (see [`detect_with`]).
    #[cfg(not(target_arch = "wasm32"))]
    ahead: Option<FactsChunk<'t>>,
    /// What the task forbids changing, each with whether an edit already broke it, and the
    /// step that states the task.
    bans: Vec<(text::Ban, bool)>,
    task_step: usize,
}

/// A command's last failure in [`Scan::last_failure`]: the observation step, and natively its
/// error quote, so a repetition quotes it without scanning the observation's text again (a
/// tenth of what is left of a long run's pass after its facts are worked out ahead:
/// docs/performance.md, twentieth pass). In wasm32 the quote is worked out again.
#[cfg(not(target_arch = "wasm32"))]
type Failure<'t> = (usize, &'t str);
#[cfg(target_arch = "wasm32")]
type Failure<'t> = usize;

/// One step's text lower-cased (ASCII), made once however many scans of that step read it
/// (the budget, error and blocker scans search lower-cased text: `text::lower_into`).
#[derive(Default)]
struct Lowered {
    text: String,
    step: Option<usize>,
}

impl Lowered {
    fn of(&mut self, i: usize, text: &str) -> &str {
        if self.step != Some(i) {
            text::lower_into(&mut self.text, text);
            self.step = Some(i);
        }
        &self.text
    }
}

/// What the pass reads of a step that depends on that step alone: its kind and the scans of
/// its text (the claim line, the error quote, the blocker signature, the budget report) and its
/// command's identity, worked out before the pass, a chunk of [`FACTS_CHUNK`] steps at a time,
/// on another thread ([`FactsChunk::of`], [`detect_with`]). The pass works out what it is not
/// given as it reaches the step, the same way (each use of a fact below reads it through
/// [`Scan::ahead`]; a test holds the two ways equal); in wasm32, with no threads, it is given
/// nothing.
#[derive(Clone, Copy, Default)]
pub struct Facts<'t> {
    flags: u8,
    /// An agent step: its [`action_key`].
    hash: u64,
    /// An agent step: its success-claim line; a failed verdict or observation: its error quote.
    line: Option<&'t str>,
    /// A failed verdict or observation: its blocker signature; an observation's also with the
    /// first line holding one.
    blocker: Option<Blocker>,
    blocker_line: Option<&'t str>,
    /// The hashes of its action id and span id, where it has them ([`IdMap`]'s keys: each id
    /// is a string of its own, a cache miss to read on a long run).
    #[cfg(not(target_arch = "wasm32"))]
    ids: [u64; 2],
}

impl Facts<'_> {
    const AGENT: u8 = 1;
    const EDIT: u8 = 2;
    const IRREVERSIBLE: u8 = 4;
    const BUDGET: u8 = 8;
    const ENV: u8 = 16;
    const FAILED: u8 = 32;
    const PASSED: u8 = 64;

    fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }
}

/// Steps per [`FactsChunk`].
pub const FACTS_CHUNK: usize = 4096;

/// The [`Facts`] of one chunk of a run's steps (chunk `c`: steps `c * FACTS_CHUNK` up to the
/// next chunk's), worked out ahead of the pass.
#[cfg(not(target_arch = "wasm32"))]
pub struct FactsChunk<'t> {
    chunk: usize,
    facts: Vec<Facts<'t>>,
}

#[cfg(not(target_arch = "wasm32"))]
impl<'t> FactsChunk<'t> {
    /// The facts of chunk `chunk` of `steps` (empty past the end). Pure: a shell with threads
    /// works chunks out while the pass runs ([`detect_with`]).
    pub fn of(steps: &'t [Step], chunk: usize) -> FactsChunk<'t> {
        let start = (chunk * FACTS_CHUNK).min(steps.len());
        let end = (start + FACTS_CHUNK).min(steps.len());
        let (mut lower, mut scratch) = (String::new(), String::new());
        let facts =
            steps[start..end].iter().map(|s| facts_of(s, &mut lower, &mut scratch)).collect();
        FactsChunk { chunk, facts }
    }
}

/// The facts of `s` (`lower` and `scratch`: reused buffers): what the pass works out for a step
/// of its kind (see `detect_with`'s loop and the rules it calls): an agent step's identity,
/// edit, irreversibility and claim; another step's budget report, and a verdict's or an
/// observation's outcome, with the error quote and blocker of a failure.
#[cfg(not(target_arch = "wasm32"))]
fn facts_of<'t>(s: &'t Step, lower: &mut String, scratch: &mut String) -> Facts<'t> {
    let mut f = Facts::default();
    // The ids the pass looks up: an agent step's both (filed), an observation's span (its cause).
    let id_hash = |kind: IdKind| kind.of(s).map_or(0, |id| text::hash(&[id]));
    if text::is_agent_step(s) {
        f.ids = [id_hash(IdKind::Action), id_hash(IdKind::Span)];
        f.flags = Facts::AGENT;
        f.hash = action_key(s);
        if s.kind == StepKind::Action && text::is_edit(s) {
            f.flags |= Facts::EDIT;
        }
        if s.kind == StepKind::Action && text::is_irreversible_in(s, scratch) {
            f.flags |= Facts::IRREVERSIBLE;
        }
        f.line = text::claim_line_in(&s.text, scratch);
        return f;
    }
    // As the pass hands the step on (`detect`): a limit reported, then a verdict, or an
    // observation.
    let budget = may_report_limit(s);
    let (judge, env) = match s.kind {
        StepKind::MemoryRead | StepKind::RunStart | StepKind::RunEnd | StepKind::Artifact => {
            (false, false)
        }
        _ if is_verdict(s) => (true, false),
        _ => (false, text::is_env_step(s)),
    };
    let failed = (judge && judge_failed(s)) || (env && observation_failed(s));
    if env {
        f.flags |= Facts::ENV;
        f.ids[IdKind::Span as usize] = id_hash(IdKind::Span);
    }
    if judge && !failed && judge_passed(s) {
        f.flags |= Facts::PASSED;
    }
    if !budget && !failed {
        return f;
    }
    // The text lower-cased once for every scan of it.
    let lower = text::lower_into(lower, &s.text);
    if budget && text::is_budget_exhausted_lower(lower) {
        f.flags |= Facts::BUDGET;
    }
    if failed {
        f.flags |= Facts::FAILED;
        f.blocker = text::blocker_lower(lower);
        if judge {
            f.line = Some(judge_quote_lower(s, lower));
        } else {
            f.line = Some(error_quote_lower(s, lower));
            if f.blocker.is_some() {
                f.blocker_line = text::blocker_line_lower(&s.text, lower);
            }
        }
    }
    f
}

/// A step that may report a limit reached (an error, a run end, a message, the environment's
/// or another side's), not the user's or the system's: what `budget_exhausted` scans.
fn may_report_limit(s: &Step) -> bool {
    (s.is_error
        || s.exit_code.is_some_and(|c| c != 0)
        || matches!(s.kind, StepKind::RunEnd | StepKind::Message)
        || matches!(s.role, Role::Environment | Role::Other))
        && !matches!(s.role, Role::User | Role::System)
}

/// A judge's or verifier's result (what [`Scan::verdict`] reads).
fn is_verdict(s: &Step) -> bool {
    s.kind == StepKind::JudgeResult || s.role == Role::Judge
}

/// Runs every rule over the trajectory: one pass, each step handed to the rules that read its
/// kind (agent steps: `repeated_action`, `claim_contradicted`; environment steps:
/// `budget_exhausted`, then `verifier_rejected` / `memory_misapplied` for a verdict, or
/// `environment_blocker` / `failed_command` / `edit_broke_test` for an observation).
pub fn detect(traj: &Trajectory) -> Found {
    detect_with(traj, &mut |_| None)
}

/// [`detect`], with the [`Facts`] of chunks of the run worked out ahead: `ahead(c)` is asked
/// once for chunk `c` as the pass reaches it, and gives [`FactsChunk::of`] the run's steps and
/// `c` if it has it (a chunk of another index is not used); the pass works out the facts of a
/// chunk it does not get. The result is [`detect`]'s whatever `ahead` gives. In wasm32 `ahead`
/// is not asked.
// (In wasm32 `ahead` holds no chunk, so `'t` names only the trajectory.)
#[cfg_attr(target_arch = "wasm32", allow(clippy::needless_lifetimes))]
pub fn detect_with<'t>(
    traj: &'t Trajectory,
    #[cfg(not(target_arch = "wasm32"))] ahead: &mut dyn FnMut(usize) -> Option<FactsChunk<'t>>,
    #[cfg(target_arch = "wasm32")] _: &mut dyn FnMut(usize) -> Option<()>,
) -> Found {
    let steps = &traj.steps;
    let mut scan = Scan {
        steps,
        f: Found { action_hash: vec![0; steps.len()], ..Found::default() },
        by_action_id: IdMap::new(IdKind::Action),
        by_span: IdMap::new(IdKind::Span),
        by_artifact: HashMap::default(),
        action_count: HashMap::default(),
        first_action: None,
        last_failure: HashMap::default(),
        failed_attempts: HashMap::default(),
        failure_sigs: HashMap::default(),
        last_agent: None,
        last_edit: None,
        latest_edit: None,
        last_memory: None,
        last_instruction: None,
        open_error: None,
        env_by_action: HashMap::default(),
        edit_by_test: HashMap::default(),
        scratch: String::new(),
        lower: Lowered::default(),
        #[cfg(not(target_arch = "wasm32"))]
        ahead: None,
        bans: Vec::new(),
        task_step: 0,
    };
    // The task as the user states it: the first user step, near the start.
    if let Some(t) = steps.iter().take(8).position(|s| s.role == Role::User) {
        scan.bans = text::bans(&steps[t].text).into_iter().map(|b| (b, false)).collect();
        scan.task_step = t;
    }
    for (i, s) in steps.iter().enumerate() {
        #[cfg(not(target_arch = "wasm32"))]
        if i % FACTS_CHUNK == 0 {
            let c = i / FACTS_CHUNK;
            scan.ahead = ahead(c).filter(|f| f.chunk == c);
        }
        let agent = scan.ahead(i).map_or_else(|| text::is_agent_step(s), |f| f.has(Facts::AGENT));
        if agent {
            if !scan.bans.is_empty() {
                scan.task_constraint_broken(i);
            }
            let edited = scan.latest_edit;
            let h = scan.agent_step(i);
            scan.repeated_action(i, h, edited);
            scan.claim_contradicted(i);
            scan.last_agent = Some(i);
            continue;
        }
        scan.budget_exhausted(i);
        match s.kind {
            StepKind::MemoryRead => scan.last_memory = Some(i),
            StepKind::RunStart | StepKind::RunEnd | StepKind::Artifact => {}
            _ if is_verdict(s) => scan.verdict(i),
            _ if scan.ahead(i).map_or_else(|| text::is_env_step(s), |f| f.has(Facts::ENV)) => {
                scan.observation(i)
            }
            _ => {}
        }
    }
    let last_agent = scan.last_agent;
    let mut f = scan.f;
    f.last_agent_step = last_agent.map(|a| a as u32);
    if let Some(answer) = final_answer(traj, last_agent) {
        if let Some(t) = answer_origin(traj, &answer) {
            f.triggers.push(t);
        }
        if !f.instructed.is_empty() {
            f.answer_shown = answer_shown(traj, &f.instructed, &answer);
            f.answer_accepted = answer_accepted(traj, &f.instructed, &answer);
            if f.answer_accepted.is_none() {
                f.unbacked_declaration = unbacked_declaration(traj, &f.instructed, &answer);
            }
        }
    }
    f
}

impl<'t> Scan<'t> {
    /// Step `i`'s facts, if worked out ahead: each use below of what they hold falls back to
    /// working it out the way [`facts_of`] does.
    #[cfg(not(target_arch = "wasm32"))]
    #[inline(always)]
    fn ahead(&self, i: usize) -> Option<Facts<'t>> {
        self.ahead.as_ref().and_then(|c| c.facts.get(i % FACTS_CHUNK)).copied()
    }

    /// In wasm32 nothing is worked out ahead.
    #[cfg(target_arch = "wasm32")]
    #[inline(always)]
    fn ahead(&self, _: usize) -> Option<Facts<'t>> {
        None
    }

    /// Bookkeeping for an agent step (identities, counts, edits, irreversible actions, the
    /// worker replying to an instruction); returns the action's hash.
    fn agent_step(&mut self, i: usize) -> u64 {
        let steps = self.steps;
        let s = &steps[i];
        match (s.kind, s.tool.as_deref()) {
            (StepKind::Action, Some(to)) if !to.eq_ignore_ascii_case(&s.actor) => {
                self.last_instruction = Some(to);
            }
            _ if self.last_instruction.is_some_and(|to| to.eq_ignore_ascii_case(&s.actor)) => {
                self.f.instructed.push(i as u32);
                self.last_instruction = None;
            }
            _ => {}
        }
        let ahead = self.ahead(i);
        let h = ahead.map_or_else(|| action_key(s), |f| f.hash);
        self.f.action_hash[i] = h;
        // The first action's count apart: a run of one action (or of one repeated) fills no
        // hash table.
        let n = match &mut self.first_action {
            Some((first, n)) if *first == h => {
                *n += 1;
                *n
            }
            Some(_) => {
                let n = self.action_count.entry(h).or_insert(0);
                *n += 1;
                *n
            }
            None => {
                self.first_action = Some((h, 1));
                1
            }
        };
        self.f.max_identical_actions = self.f.max_identical_actions.max(n);
        self.by_action_id.insert_with(steps, i, ahead);
        self.by_span.insert_with(steps, i, ahead);
        for r in &s.artifact_refs {
            self.by_artifact.insert(r.normalized.as_str(), i);
        }
        if ahead
            .map_or_else(|| s.kind == StepKind::Action && text::is_edit(s), |f| f.has(Facts::EDIT))
        {
            self.last_edit = Some(i);
            self.latest_edit = Some(i);
        }
        if ahead.map_or_else(
            || s.kind == StepKind::Action && text::is_irreversible_in(s, &mut self.scratch),
            |f| f.has(Facts::IRREVERSIBLE),
        ) {
            self.f.irreversible_steps.push(i as u32);
        }
        h
    }

    /// `task_constraint_broken`: an edit that writes what the task forbids changing (each
    /// prohibition fires once, on the first edit that breaks it).
    fn task_constraint_broken(&mut self, i: usize) {
        // Most tasks forbid nothing: no work per edit then.
        if self.bans.iter().all(|(_, fired)| *fired) {
            return;
        }
        let steps = self.steps;
        let s = &steps[i];
        if s.kind != StepKind::Action || !text::is_edit(s) {
            return;
        }
        let task = &steps[self.task_step].text;
        // Changing a file presumes it exists: an edit in place does; a write (a redirect, a
        // new file) only when the environment showed the file before, or an earlier command
        // named it. A scratch file the agent creates (`cat > test_fix.py`, announced in its
        // own words first) changes nothing the task protects.
        let in_place = text::is_edit_in_place(s);
        let existing = |path: &str| {
            in_place
                || steps[..i].iter().any(|p| {
                    let seen = match text::is_env_step(p) {
                        true => p.text.as_str(),
                        false => p.args.as_deref().unwrap_or(""),
                    };
                    seen.contains(path)
                })
        };
        // The files it writes: its references, else what its command writes.
        let mut written: Vec<String> = s
            .artifact_refs
            .iter()
            .filter(|r| matches!(r.kind, RefKind::Path | RefKind::Escaping))
            .map(|r| r.raw.clone())
            .collect();
        if written.is_empty() {
            written = crate::artifact::extract::shell_writes(s.args.as_deref().unwrap_or(""));
        }
        for (ban, fired) in &mut self.bans {
            let broken = !*fired && written.iter().any(|w| ban.covers(w) && existing(w));
            if !broken {
                continue;
            }
            *fired = true;
            self.f.triggers.push(Trigger {
                step: i as u32,
                category: Category::TaskConflict,
                phase: Phase::Action,
                wrong_quote: action_quote(s).to_string(),
                reference_quote: task[ban.clause.clone()].to_string(),
                reference_step: Some(self.task_step as u32),
                rule: Rule::TaskConstraintBroken,
                object: format!("ban:{}", ban.keys.join("+")),
                blocker: None,
            });
        }
    }

    /// `repeated_action`: repeating an action that already failed, with nothing fixed between:
    /// neither a success of the same command since its failure nor an edit (`edited`, the last
    /// edit before this step) after it.
    fn repeated_action(&mut self, i: usize, h: u64, edited: Option<usize>) {
        let steps = self.steps;
        let Some((obs, quote)) = self.last_failure(h) else { return };
        if edited.is_some_and(|e| e > obs) {
            return;
        }
        let s = &steps[i];
        self.f.triggers.push(Trigger {
            step: i as u32,
            category: Category::HistoryConflict,
            phase: Phase::Action,
            wrong_quote: action_quote(s).to_string(),
            reference_quote: quote.to_string(),
            reference_step: Some(obs as u32),
            rule: Rule::RepeatedAction,
            object: format!("cmd:{h:016x}"),
            blocker: None,
        });
    }

    /// Command `h`'s last failure, if not fixed since: the observation and its error quote.
    #[cfg(not(target_arch = "wasm32"))]
    fn last_failure(&self, h: u64) -> Option<(usize, &'t str)> {
        self.last_failure.get(&h).copied()
    }

    #[cfg(target_arch = "wasm32")]
    fn last_failure(&self, h: u64) -> Option<(usize, &'t str)> {
        let steps = self.steps;
        self.last_failure.get(&h).map(|&obs| (obs, error_quote(&steps[obs])))
    }

    /// Observation `i` is command `h`'s last failure; `quote` its error quote.
    #[cfg(not(target_arch = "wasm32"))]
    fn failed(&mut self, h: u64, i: usize, quote: &'t str) {
        self.last_failure.insert(h, (i, quote));
    }

    #[cfg(target_arch = "wasm32")]
    fn failed(&mut self, h: u64, i: usize, _: &'t str) {
        self.last_failure.insert(h, i);
    }

    /// `claim_contradicted`: a success claim against an unresolved failure, or beside an error
    /// in the same step.
    fn claim_contradicted(&mut self, i: usize) {
        let steps = self.steps;
        let s = &steps[i];
        let claim = match self.ahead(i) {
            Some(f) => f.line,
            None => text::claim_line_in(&s.text, &mut self.scratch),
        };
        let Some(claim) = claim else { return };
        if let Some(e) = &self.open_error {
            self.f.triggers.push(Trigger {
                step: i as u32,
                category: Category::HistoryConflict,
                phase: Phase::Reasoning,
                wrong_quote: claim.to_string(),
                reference_quote: error_quote(&steps[e.quote_step]).to_string(),
                reference_step: Some(e.quote_step as u32),
                rule: Rule::ClaimContradicted,
                object: e.object.clone(),
                blocker: None,
            });
        } else if let Some(err) = text::first_error_line(&s.text) {
            if err != claim && has_strong_error(&s.text) {
                self.f.triggers.push(Trigger {
                    step: i as u32,
                    category: Category::IntraStepConflict,
                    phase: Phase::Reasoning,
                    wrong_quote: claim.to_string(),
                    reference_quote: err.to_string(),
                    reference_step: Some(i as u32),
                    rule: Rule::ClaimContradicted,
                    object: format!("claim:{i}"),
                    blocker: None,
                });
            }
        }
    }

    /// `budget_exhausted`: a limit reported by the environment (an error, a run end, a
    /// system-side event).
    fn budget_exhausted(&mut self, i: usize) {
        let steps = self.steps;
        let s = &steps[i];
        let reported = match self.ahead(i) {
            Some(f) => f.has(Facts::BUDGET),
            None => {
                may_report_limit(s) && text::is_budget_exhausted_lower(self.lower.of(i, &s.text))
            }
        };
        if !reported {
            return;
        }
        self.f.budget_exhausted = true;
        self.f.first_error.get_or_insert(i as u32);
        self.f.triggers.push(Trigger {
            step: i as u32,
            category: Category::EnvironmentAnomaly,
            phase: Phase::Observation,
            wrong_quote: budget_quote(&s.text).to_string(),
            reference_quote: budget_quote(&s.text).to_string(),
            reference_step: Some(i as u32),
            rule: Rule::BudgetExhausted,
            object: "budget".into(),
            blocker: None,
        });
    }

    /// A judge's or verifier's result: a failed one fires `verifier_rejected` (and
    /// `memory_misapplied`), a passing one is a green state.
    fn verdict(&mut self, i: usize) {
        let steps = self.steps;
        let s = &steps[i];
        let ahead = self.ahead(i);
        if ahead.map_or_else(|| judge_failed(s), |f| f.has(Facts::FAILED)) {
            self.f.failed_judges.push(i);
            self.f.first_error.get_or_insert(i as u32);
            let maps = Lookup {
                by_action_id: &self.by_action_id,
                by_artifact: &self.by_artifact,
                env_by_action: &self.env_by_action,
                edit_by_test: &self.edit_by_test,
            };
            let judge = match ahead {
                Some(f) => Judge { at: i, reason: f.line.unwrap_or_default(), blocker: f.blocker },
                None => {
                    let lower = self.lower.of(i, &s.text);
                    let reason = judge_quote_lower(s, lower);
                    Judge { at: i, reason, blocker: text::blocker_lower(lower) }
                }
            };
            verifier_triggers(&mut self.f, steps, &judge, &maps, self.last_agent, self.last_memory);
        } else if ahead.map_or_else(|| judge_passed(s), |f| f.has(Facts::PASSED)) {
            self.f.green_steps.push(i as u32);
        }
    }

    /// The action an observation answers: same span (the last agent step first), else its
    /// parent, else the last agent step.
    fn cause_of(&self, i: usize) -> Option<usize> {
        let steps = self.steps;
        let s = &steps[i];
        let last_span = self.last_agent.and_then(|a| steps[a].ids.span_id.as_deref());
        s.ids
            .span_id
            .as_deref()
            .and_then(|sp| {
                if Some(sp) == last_span {
                    self.last_agent
                } else {
                    self.by_span.get_with(steps, sp, self.ahead(i))
                }
            })
            .or_else(|| s.ids.parent_id.as_deref().and_then(|p| self.by_action_id.get(steps, p)))
            .or(self.last_agent)
    }

    /// An observation: a failure fires `environment_blocker` (or `flaky_` / `harness_`) or
    /// `failed_command` and `edit_broke_test`; a success fixes its command.
    fn observation(&mut self, i: usize) {
        let steps = self.steps;
        let cause = self.cause_of(i);
        let ahead = self.ahead(i);
        if !ahead.map_or_else(|| observation_failed(&steps[i]), |f| f.has(Facts::FAILED)) {
            if let Some(a) = cause {
                self.succeeded(i, a);
            }
            return;
        }
        let s = &steps[i];
        self.f.first_error.get_or_insert(i as u32);
        let (quote, blocker) = match ahead {
            Some(f) => (f.line.unwrap_or_default(), f.blocker.map(|b| (b, f.blocker_line))),
            None => {
                let lower = self.lower.of(i, &s.text);
                let quote = error_quote_lower(s, lower);
                let blocker = text::blocker_lower(lower)
                    .map(|b| (b, text::blocker_line_lower(&s.text, lower)));
                (quote, blocker)
            }
        };
        let n = self.failure_sigs.entry(text::signature(quote)).or_insert(0);
        *n += 1;
        self.f.max_identical_failures = self.f.max_identical_failures.max(*n);
        let blocked = self.environment_blocker(i, cause, blocker, quote);
        let Some(a) = cause else { return };
        let h = self.f.action_hash[a];
        let attempts = self.failed_attempts.entry(h).or_insert(0);
        *attempts += 1;
        self.f.max_failed_attempts = self.f.max_failed_attempts.max(*attempts);
        self.failed(h, i, quote);
        if !blocked {
            // The failure names a placeholder the command still holds (the lookup of `<URL>`
            // its own text asked for): the environment's own output reports the command as the
            // error, an explicit report like a verifier's.
            let line = blocker.and_then(|(_, l)| l);
            let held = |n: &&str| {
                let (text, args) = (&steps[a].text, steps[a].args.as_deref().unwrap_or(""));
                !n.is_empty() && (text.contains(*n) || args.contains(*n))
            };
            let named = line.and_then(text::unresolvable_name).filter(held);
            match (named, line) {
                (Some(_), Some(l)) => self.placeholder_command(i, a, h, l),
                _ => self.failed_command(i, a, h, quote),
            }
            self.edit_broke_test(i, a, quote);
        }
    }

    /// `placeholder_command`: the failure of observation `i` names a placeholder the action
    /// still held (`Could not resolve host: <URL>` after `curl "<URL>"`): that action is the
    /// error. `line` is the observation's line that names it.
    fn placeholder_command(&mut self, i: usize, a: usize, h: u64, line: &str) {
        self.failed_command(i, a, h, line);
        if let Some(t) = self.f.triggers.last_mut() {
            t.rule = Rule::PlaceholderCommand;
        }
    }

    /// `environment_blocker` / `flaky_blocker` / `harness_blocker`: the failure has the
    /// environment's signature. The trigger sits on the action whose observation shows the
    /// anomaly; the observation's line is the reference. Returns whether it fired. `blocker`:
    /// the observation's signature and the first line holding one; `error`: its error quote.
    fn environment_blocker(
        &mut self,
        i: usize,
        cause: Option<usize>,
        blocker: Option<(Blocker, Option<&'t str>)>,
        error: &'t str,
    ) -> bool {
        let steps = self.steps;
        let Some((b, line)) = blocker else { return false };
        // A transient failure (a timeout, a rate limit) inside a program the agent wrote itself
        // is that program failing: the agent chose the request and can change it. It stays a
        // `failed_command` on the agent's step; the environment failing to run what it was given
        // (a missing binary, no network, a sandbox) is a blocker whatever ran.
        if b == Blocker::Flaky && cause.is_some_and(|a| is_own_code(&steps[a])) {
            return false;
        }
        // A lookup of a name no host can have (`Could not resolve host: <URL>`) shows no
        // missing network: the command asked for a placeholder (`placeholder_command` or
        // `failed_command`, the agent's doing; see `observation`).
        if b == Blocker::Environment && line.and_then(text::unresolvable_name).is_some() {
            return false;
        }
        let quote = line.unwrap_or(error);
        let (class, rule) = blocker_class(b);
        let (step, wrong) = match cause {
            Some(a) => (a, action_quote(&steps[a])),
            None => (i, quote),
        };
        let object = format!("env:{}", text::signature(quote));
        self.f.triggers.push(Trigger {
            step: step as u32,
            category: Category::EnvironmentAnomaly,
            phase: Phase::Observation,
            wrong_quote: wrong.to_string(),
            reference_quote: quote.to_string(),
            reference_step: Some(i as u32),
            rule,
            object: object.clone(),
            blocker: Some(class),
        });
        self.open_error = Some(OpenError { quote_step: i, object, hash: 0 });
        if let Some(a) = cause {
            self.env_by_action.insert(a, Blocked { blocker: b, quote });
        }
        true
    }

    /// `failed_command`: the action whose observation `i` failed introduced the error.
    fn failed_command(&mut self, i: usize, a: usize, h: u64, quote: &str) {
        let steps = self.steps;
        let object = format!("cmd:{h:016x}");
        self.f.triggers.push(Trigger {
            step: a as u32,
            category: Category::EnvironmentAnomaly,
            phase: Phase::Action,
            wrong_quote: action_quote(&steps[a]).to_string(),
            reference_quote: quote.to_string(),
            reference_step: Some(i as u32),
            rule: Rule::FailedCommand,
            object: object.clone(),
            blocker: None,
        });
        self.open_error = Some(OpenError { quote_step: i, object, hash: h });
    }

    /// `edit_broke_test`: a failing test shows an error an earlier edit introduced.
    fn edit_broke_test(&mut self, i: usize, a: usize, quote: &str) {
        let steps = self.steps;
        let Some(e) = self.last_edit.filter(|&e| e < a) else { return };
        if !text::is_test_command(action_text(&steps[a])) {
            return;
        }
        self.edit_by_test.insert(a, e);
        self.f.triggers.push(Trigger {
            step: e as u32,
            category: Category::EnvironmentAnomaly,
            phase: Phase::Action,
            wrong_quote: action_quote(&steps[e]).to_string(),
            reference_quote: quote.to_string(),
            reference_step: Some(i as u32),
            rule: Rule::EditBrokeTest,
            object: format!("edit:{e}"),
            blocker: None,
        });
    }

    /// The command of action `a` succeeded (observation `i`): it is fixed; a passing test is a
    /// green state.
    fn succeeded(&mut self, i: usize, a: usize) {
        let steps = self.steps;
        let h = self.f.action_hash[a];
        self.last_failure.remove(&h);
        if self.open_error.as_ref().is_some_and(|e| e.hash == h) {
            self.open_error = None;
        }
        self.f.successes.entry(h).or_default().push(i as u32);
        self.f.successes.entry(program_key(&steps[a])).or_default().push(i as u32);
        if text::is_test_command(action_text(&steps[a])) {
            self.f.green_steps.push(i as u32);
            self.last_edit = None;
        }
    }
}

/// Identity maps the verifier rule looks actions up in.
struct Lookup<'a, 'b> {
    by_action_id: &'a IdMap<'b>,
    by_artifact: &'a HashMap<&'b str, usize>,
    env_by_action: &'a HashMap<usize, Blocked<'b>>,
    edit_by_test: &'a HashMap<usize, usize>,
}

fn blocker_class(b: Blocker) -> (FailureClass, Rule) {
    match b {
        Blocker::Environment => (FailureClass::EnvironmentBlocker, Rule::EnvironmentBlocker),
        Blocker::Flaky => (FailureClass::FlakyBlocker, Rule::FlakyBlocker),
        Blocker::Harness => (FailureClass::HarnessBlocker, Rule::HarnessBlocker),
    }
}

/// A failed verdict: its step, its quote and its blocker signature, read once.
struct Judge<'t> {
    at: usize,
    reason: &'t str,
    blocker: Option<Blocker>,
}

fn verifier_triggers(
    f: &mut Found,
    steps: &[Step],
    verdict: &Judge<'_>,
    maps: &Lookup<'_, '_>,
    last_agent: Option<usize>,
    last_memory: Option<usize>,
) {
    let (by_action_id, by_artifact) = (maps.by_action_id, maps.by_artifact);
    let (j, reason) = (verdict.at, verdict.reason);
    let judge = &steps[j];
    let source = judge
        .ids
        .source_action_id
        .as_deref()
        .and_then(|a| by_action_id.get(steps, a))
        .or_else(|| {
            judge
                .artifact_refs
                .iter()
                .filter_map(|r| by_artifact.get(r.normalized.as_str()).copied())
                .max()
        })
        .or_else(|| {
            // A verdict that names an environment failure is about the action it blocked.
            verdict
                .blocker
                .and_then(|_| maps.env_by_action.keys().max().copied())
                .or_else(|| action_about(steps, j, last_agent))
        });
    // A verdict on a test run that caught an edit is about the edit.
    let source = source.map(|s| maps.edit_by_test.get(&s).copied().unwrap_or(s));
    let Some(src) = source else {
        f.triggers.push(Trigger {
            step: j as u32,
            category: Category::TaskConflict,
            phase: Phase::Verification,
            wrong_quote: reason.to_string(),
            reference_quote: reason.to_string(),
            reference_step: Some(j as u32),
            rule: Rule::VerifierRejected,
            object: format!("judge:{}", judge.actor),
            blocker: verdict.blocker.map(|_| FailureClass::HarnessBlocker),
        });
        return;
    };
    // The verified action was blocked by the environment: the verdict joins that blocker.
    // (Its signature and quote are those `environment_blocker` read.)
    if let Some(blocked) = maps.env_by_action.get(&src) {
        let (class, rule) = blocker_class(blocked.blocker);
        f.triggers.push(Trigger {
            step: src as u32,
            category: Category::EnvironmentAnomaly,
            phase: Phase::Observation,
            wrong_quote: action_quote(&steps[src]).to_string(),
            reference_quote: reason.to_string(),
            reference_step: Some(j as u32),
            rule,
            object: format!("env:{}", text::signature(blocked.quote)),
            blocker: Some(class),
        });
        return;
    }
    if let Some((class, rule)) = verdict.blocker.map(blocker_class) {
        f.triggers.push(Trigger {
            step: src as u32,
            category: Category::EnvironmentAnomaly,
            phase: Phase::Verification,
            wrong_quote: action_quote(&steps[src]).to_string(),
            reference_quote: reason.to_string(),
            reference_step: Some(j as u32),
            rule,
            object: format!("env:{}", text::signature(reason)),
            blocker: Some(class),
        });
        return;
    }
    let object = format!("act:{src}");
    let wrong = action_quote(&steps[src]);
    f.triggers.push(Trigger {
        step: src as u32,
        category: Category::TaskConflict,
        phase: Phase::Action,
        wrong_quote: wrong.to_string(),
        reference_quote: reason.to_string(),
        reference_step: Some(j as u32),
        rule: Rule::VerifierRejected,
        object: object.clone(),
        blocker: None,
    });
    if let Some(m) = last_memory.filter(|&m| m < src) {
        let mq = text::first_line(&steps[m].text);
        if !mq.is_empty() {
            f.triggers.push(Trigger {
                step: src as u32,
                category: Category::HistoryConflict,
                phase: Phase::Action,
                wrong_quote: wrong.to_string(),
                reference_quote: mq.to_string(),
                reference_step: Some(m as u32),
                rule: Rule::MemoryMisapplied,
                object,
                blocker: None,
            });
        }
    }
}

/// Most agent steps looked back over for the action a verdict's text is about.
const ABOUT_LOOKBACK: usize = 64;

/// Without an explicit link: the latest agent step before the verdict `j` whose command or
/// text names one of the verdict's distinctive words (a path, a command, an identifier of five
/// or more characters), else the last agent step.
fn action_about(steps: &[Step], j: usize, last_agent: Option<usize>) -> Option<usize> {
    let last = last_agent?;
    let words: Vec<String> = steps[j]
        .text
        .split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/' | '-')))
        .map(|w| w.trim_matches(['.', '-', '/']))
        .filter(|w| w.len() >= 5)
        .map(str::to_ascii_lowercase)
        .collect();
    if words.is_empty() {
        return Some(last);
    }
    let mut buf = String::new();
    (0..=last)
        .rev()
        .filter(|&i| text::is_agent_step(&steps[i]))
        .take(ABOUT_LOOKBACK)
        .find(|&i| {
            let s = &steps[i];
            buf.clear();
            buf.push_str(s.args.as_deref().unwrap_or(""));
            buf.push('\n');
            buf.push_str(&s.text);
            buf.make_ascii_lowercase();
            words.iter().any(|w| buf.contains(w.as_str()))
        })
        .or(Some(last))
}

fn judge_failed(s: &Step) -> bool {
    let st = s.status.as_deref().unwrap_or("").to_ascii_lowercase();
    matches!(st.as_str(), "failed" | "fail" | "failure" | "rejected" | "error" | "errored")
        || (st.is_empty() && s.is_error)
}

/// A verdict ([`is_verdict`]) that passed: a green state, whether the step is a judge's
/// result or a message of a judge's role.
fn judge_passed(s: &Step) -> bool {
    let st = s.status.as_deref().unwrap_or("").to_ascii_lowercase();
    matches!(st.as_str(), "passed" | "pass" | "ok" | "success" | "accepted")
}

fn has_strong_error(t: &str) -> bool {
    t.contains("Traceback")
        || t.contains("Error:")
        || t.contains("Exception")
        || t.contains("FAILED")
}

fn observation_failed(s: &Step) -> bool {
    if let Some(c) = s.exit_code {
        return c != 0;
    }
    if let Some(c) = text::interpreter_exit(&s.text) {
        return c != 0;
    }
    s.is_error || has_strong_error(&s.text)
}

/// Code an agent wrote in its own message (a fenced block; the command, if any, is taken from
/// it): a chat agent's program that a terminal runs.
fn is_own_code(s: &Step) -> bool {
    memchr::memmem::find(s.text.as_bytes(), b"```").is_some()
        && s.args.as_deref().is_none_or(|a| {
            let head = text::first_line(a);
            head.is_empty() || memchr::memmem::find(s.text.as_bytes(), head.as_bytes()).is_some()
        })
}

/// The text that identifies an action: its command, else its text.
fn action_text(s: &Step) -> &str {
    match s.args.as_deref() {
        Some(a) if !a.is_empty() => a,
        _ => &s.text,
    }
}

/// A verbatim quote of an action: the first line of its command, else of its text (for a chat
/// agent, the first line of its code block when it has one).
pub fn action_quote(s: &Step) -> &str {
    if let Some(a) = s.args.as_deref().filter(|a| !a.trim().is_empty()) {
        return text::first_line(a);
    }
    if let Some(pos) = s.text.find("```") {
        let after = &s.text[pos + 3..];
        // Skip the language tag line.
        let body = after.split_once('\n').map_or("", |(_, b)| b);
        let q = text::first_line(body.split("```").next().unwrap_or(""));
        if !q.is_empty() {
            return q;
        }
    }
    text::first_line(&s.text)
}

fn error_quote(s: &Step) -> &str {
    text::last_error_line(&s.text).unwrap_or_else(|| text::first_line(&s.text))
}

/// [`error_quote`] given the step's text lower-cased.
fn error_quote_lower<'t>(s: &'t Step, lower: &str) -> &'t str {
    text::last_error_line_lower(&s.text, lower).unwrap_or_else(|| text::first_line(&s.text))
}

fn judge_quote_lower<'t>(s: &'t Step, lower: &str) -> &'t str {
    text::first_error_line_lower(&s.text, lower).unwrap_or_else(|| text::first_line(&s.text))
}

fn budget_quote(t: &str) -> &str {
    t.lines()
        .map(str::trim)
        .find(|l| text::is_budget_exhausted(l))
        .map(text::cut)
        .unwrap_or_else(|| text::first_line(t))
}

/// The program an action runs (its tool and the first word of its command): a later success of
/// the same program after a failure is the agent fixing it (`grep` on the right path).
pub fn program_key(s: &Step) -> u64 {
    // Code a chat agent wrote has no program word: the interpreter is the program.
    let first = if memchr::memmem::find(s.text.as_bytes(), b"```").is_some() {
        ""
    } else {
        action_text(s).split_whitespace().next().unwrap_or("")
    };
    text::hash(&["prog", &s.actor, s.tool.as_deref().unwrap_or(""), first])
}

fn action_key(s: &Step) -> u64 {
    text::hash(&[&s.actor, s.tool.as_deref().unwrap_or(""), action_text(s)])
}

/// Numbers (with `.` and `,` inside) of at least two characters.
fn numbers(t: &str) -> Vec<&str> {
    let b = t.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() && (i == 0 || !b[i - 1].is_ascii_alphanumeric()) {
            let start = i;
            while i < b.len()
                && (b[i].is_ascii_digit()
                    || ((b[i] == b'.' || b[i] == b',')
                        && i + 1 < b.len()
                        && b[i + 1].is_ascii_digit()))
            {
                i += 1;
            }
            if (i >= b.len() || !b[i].is_ascii_alphabetic()) && i - start >= 2 {
                out.push(&t[start..i]);
            }
        } else {
            i += 1;
        }
    }
    out
}

/// Protocol words and common capitals that are not answer values.
const NOT_VALUES: &[&str] = &[
    "TERMINATE",
    "FINAL",
    "ANSWER",
    "OK",
    "THE",
    "AND",
    "NOT",
    "NO",
    "YES",
    "TODO",
    "NOTE",
    "ID",
    "URL",
    "API",
    "CSV",
    "JSON",
    "PDF",
    "HTML",
    "HTTP",
    "HTTPS",
    "IS",
    "OF",
    "IN",
];

/// The distinctive values of an unmarked answer line not given in the task: numbers and words
/// in capitals (codes, acronyms). A line marked `FINAL ANSWER:` is read by [`marked_answer`].
fn answer_tokens<'a>(line: &'a str, task: &str) -> Vec<&'a str> {
    // A number needs a digit, a word in capitals a capital: a line with neither (most prose)
    // has no token. One pass without early exit over the bytes, which the compiler makes a
    // SIMD loop.
    let signal =
        line.bytes().fold(false, |any, c| any | c.is_ascii_digit() | c.is_ascii_uppercase());
    if !signal {
        return Vec::new();
    }
    let mut out: Vec<&str> = numbers(line).into_iter().filter(|n| !number_given(task, n)).collect();
    // The words: runs of ASCII letters and digits, read byte by byte (any other byte, each
    // byte of a multi-byte char included, ends a word, as splitting on chars does; the empty
    // pieces that split gives are never words in capitals).
    let b = line.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_alphanumeric() {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && b[i].is_ascii_alphanumeric() {
            i += 1;
        }
        push_caps_value(&line[start..i], task, &mut out);
    }
    out
}

/// Adds a word to an answer's tokens when it is a value in capitals (a code, an acronym: 2 to
/// 12 capitals and digits, at least one capital) that is not a common word in capitals, not in
/// the task and not already there.
fn push_caps_value<'a>(w: &'a str, task: &str, out: &mut Vec<&'a str>) {
    let caps = w.len() >= 2
        && w.len() <= 12
        && w.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
        && w.bytes().any(|b| b.is_ascii_uppercase());
    if caps && !NOT_VALUES.contains(&w) && !text::has_word(task, w) && !out.contains(&w) {
        out.push(w);
    }
}

/// Where a line says `FINAL ANSWER:` (ASCII case ignored): the byte offset after the marker.
fn after_marker(line: &str) -> Option<usize> {
    const MARKER: &[u8] = b"final answer:";
    // The first marker ends at the first colon that ends one: colons are found with memchr
    // (rare in prose) instead of comparing the marker at every byte.
    let b = line.as_bytes();
    memchr::memchr_iter(b':', b)
        .filter(|&colon| colon + 1 >= MARKER.len())
        .find(|&colon| b[colon + 1 - MARKER.len()..=colon].eq_ignore_ascii_case(MARKER))
        .map(|colon| colon + 1)
}

/// The phrase after `FINAL ANSWER:` in a line (2 to 80 bytes, not given in the task).
fn marked_answer<'a>(line: &'a str, task: &str) -> Option<&'a str> {
    let phrase = marked_phrase(line)?;
    ((2..=80).contains(&phrase.len()) && !number_given(task, phrase)).then_some(phrase)
}

/// The phrase after `FINAL ANSWER:` in a line, quotes and emphasis trimmed.
fn marked_phrase(line: &str) -> Option<&str> {
    Some(
        line[after_marker(line)?..]
            .trim()
            .trim_end_matches(['.', '!', '*', '"', '\''])
            .trim_start_matches(['*', '"', '\'']),
    )
}

fn holds_token(line: &str, t: &str) -> bool {
    if t.bytes().all(|b| b.is_ascii_digit() || b == b'.' || b == b',') {
        contains_number(line, t)
    } else if t.contains(' ') {
        line.contains(t)
    } else {
        text::has_word(line, t)
    }
}

/// The final answer of a run: the step holding it, its line, and the values traced (see
/// [`final_answer`]).
struct FinalAnswer<'t> {
    step: usize,
    line: &'t str,
    tokens: Vec<&'t str>,
    /// The task's text (values given there are not introduced by an agent).
    task: &'t str,
    /// The answer is a line marked `FINAL ANSWER:` (not just the last line holding a value).
    marked: bool,
    /// A marked answer of one letter or digit (`FINAL ANSWER: 6`): too short to trace through
    /// the run (`tokens` is then empty), but the reply the run accepted it from can state it.
    short: Option<&'t str>,
}

/// The final answer: among the last agent messages (a closing "TERMINATE" says nothing), the
/// last line holding a value; a line marked `FINAL ANSWER:` wins, and its phrase is the value.
fn final_answer(traj: &Trajectory, last_agent: Option<usize>) -> Option<FinalAnswer<'_>> {
    let steps = &traj.steps;
    // Values given in the task are not introduced by an agent.
    let task = match traj.task.as_deref() {
        Some(t) => t,
        None => steps.first().filter(|s| !text::is_agent_step(s)).map_or("", |s| s.text.as_str()),
    };
    let mut seen = 0;
    for (i, s) in steps.iter().enumerate().take(last_agent? + 1).rev() {
        if !text::is_agent_step(s) || s.kind != StepKind::Message {
            continue;
        }
        seen += 1;
        // A line marked `FINAL ANSWER:` is the answer whatever follows it (a harness's
        // closing lines such as `SCENARIO.PY COMPLETE !#!#` are no value of the answer).
        // A text with no marker has no line with one (the marker holds no line break).
        let marked = after_marker(&s.text)
            .and_then(|_| s.text.lines().rev().find(|l| after_marker(l).is_some()));
        let hit = match marked {
            // The marked phrase is the answer: its parts are not traced apart.
            Some(l) => marked_answer(l, task).map(|p| (l.trim(), vec![p])),
            None => s.text.lines().rev().find_map(|l| {
                let toks = answer_tokens(l, task);
                (!toks.is_empty()).then_some((l.trim(), toks))
            }),
        };
        if let (Some(l), None) = (marked, &hit) {
            // The answer is marked but holds no value of its own (a short word, a value from
            // the task): nothing to trace back — but a one-letter or one-digit answer can be
            // found in the reply it was accepted from.
            let short = marked_phrase(l).filter(|p| {
                let mut c = p.chars();
                c.next().is_some_and(char::is_alphanumeric) && c.next().is_none()
            });
            return short.map(|p| FinalAnswer {
                step: i,
                line: l.trim(),
                tokens: Vec::new(),
                task,
                marked: true,
                short: Some(p),
            });
        }
        if let Some((line, tokens)) = hit {
            return Some(FinalAnswer {
                step: i,
                line,
                tokens,
                task,
                marked: marked.is_some(),
                short: None,
            });
        }
        if seen >= 3 {
            return None;
        }
    }
    None
}

/// In a failed run, the step that introduced the value of the final answer: its earliest
/// occurrence — or, when that is a tool's output, the agent step whose code produced it.
fn answer_origin(traj: &Trajectory, answer: &FinalAnswer<'_>) -> Option<Trigger> {
    let steps = &traj.steps;
    let (fi, line) = (answer.step, answer.line);
    if answer.tokens.is_empty() {
        return None;
    }
    // A number is the same value with or without its thousands separators (`950,000` is
    // `950000`): each number of the answer is looked for in its other spelling too, so the
    // step that first wrote the value is found however it grouped the digits.
    let regrouped: Vec<String> = answer.tokens.iter().filter_map(|t| regroup(t)).collect();
    let all: Vec<&str> =
        answer.tokens.iter().copied().chain(regrouped.iter().map(String::as_str)).collect();
    let tokens = &all;
    for (i, s) in steps.iter().enumerate().take(fi + 1) {
        if matches!(s.role, Role::User | Role::System) && !text::is_agent_step(s) {
            continue;
        }
        // A line holds a token only where the token is part of it: a text without any is
        // skipped whole, not searched line by line.
        let b = s.text.as_bytes();
        if !tokens.iter().any(|t| memchr::memmem::find(b, t.as_bytes()).is_some()) {
            continue;
        }
        let Some(l) = s.text.lines().find(|l| tokens.iter().any(|t| holds_token(l, t))) else {
            continue;
        };
        if text::is_agent_step(s) {
            return Some(Trigger {
                step: i as u32,
                category: Category::TaskConflict,
                phase: Phase::Reasoning,
                wrong_quote: quote_around(l.trim(), tokens).to_string(),
                reference_quote: quote_around(line, tokens).to_string(),
                reference_step: Some(fi as u32),
                rule: Rule::AnswerOrigin,
                object: "answer".into(),
                blocker: None,
            });
        }
        // A tool printed it first: the agent step that ran the code introduced it.
        let author = (0..i).rev().find(|&j| text::is_agent_step(&steps[j]))?;
        return Some(Trigger {
            step: author as u32,
            category: Category::TaskConflict,
            phase: Phase::Action,
            wrong_quote: action_quote(&steps[author]).to_string(),
            reference_quote: quote_around(l.trim(), tokens).to_string(),
            reference_step: Some(i as u32),
            rule: Rule::AnswerOrigin,
            object: "answer".into(),
            blocker: None,
        });
    }
    None
}

/// In an orchestrated run, the first worker reply whose text shows the final answer's value
/// (a marked `FINAL ANSWER:`), matched with case and punctuation ignored (`CSI: Cyber` is
/// `CSI Cyber`), or one item of it when the answer is a list (`A, B` or `A; B`: a reply that
/// shows `B` brought one of the answer's values into the run, though not the whole answer).
/// Only the steps before the answer's own step are read; a value given in the task, or
/// shorter than two characters (an item: three), is not traced.
fn answer_shown(
    traj: &Trajectory,
    instructed: &[u32],
    answer: &FinalAnswer<'_>,
) -> Option<AnswerShown> {
    // An orchestrated run states its answer (`FINAL ANSWER:`); one cut short ends on whatever
    // a worker said last (a page's footer), which is no answer to trace.
    if !answer.marked {
        return None;
    }
    let mut needles = answer_needles(answer, 2);
    // The whole values first (a reply that shows the whole answer shows it, not an item).
    let wholes = needles.len();
    needles.extend(list_items(answer));
    if needles.is_empty() {
        return None;
    }
    // A reply that holds none of the values' first words (ASCII case ignored) cannot match:
    // skip cutting it into words. Only when every first word is ASCII, so the skip is exact.
    let firsts: Vec<&str> = needles.iter().map(|(n, w)| &n[w[0].0..w[0].1]).collect();
    let prefilter = firsts
        .iter()
        .all(|w| w.is_ascii())
        .then(|| crate::ac::AcOptions::ascii_case_insensitive().build(&firsts).ok());
    let mut words = Vec::new();
    instructed.iter().take_while(|&&r| (r as usize) < answer.step).find_map(|&r| {
        let t = traj.steps.get(r as usize)?.text.as_str();
        if let Some(Some(ac)) = &prefilter {
            if !ac.is_match(t) {
                return None;
            }
        }
        shown_in(r, t, &needles, wholes, &mut words)
    })
}

/// The answer's values to look for in a reply, as words (case and punctuation ignored): those
/// of at least `min_chars` characters that the task does not give.
fn answer_needles<'a>(
    answer: &FinalAnswer<'a>,
    min_chars: usize,
) -> Vec<(&'a str, Vec<(usize, usize)>)> {
    let mut task_words = Vec::new();
    words_into(answer.task, &mut task_words);
    answer
        .tokens
        .iter()
        .chain(answer.short.iter().filter(|_| min_chars <= 1))
        .filter_map(|&t| {
            let mut w = Vec::new();
            words_into(t, &mut w);
            let chars: usize = w.iter().map(|&(a, b)| t[a..b].chars().count()).sum();
            let given = find_words(answer.task, &task_words, t, &w).is_some();
            (chars >= min_chars && !given).then_some((t, w))
        })
        .collect()
}

/// The items of a marked list answer (`A, B`, `A; B`: two or more, cut at a `;` and at a `,`
/// that is not inside a number, so `1,080,000` stays whole) as needles for [`shown_in`]:
/// those of at least three characters that the task does not give. A two-character item (a
/// two-digit number, an initialism) is too common in a page to say which reply brought it.
fn list_items<'a>(answer: &FinalAnswer<'a>) -> Vec<(&'a str, Vec<(usize, usize)>)> {
    let mut out = Vec::new();
    let Some(&t) = answer.tokens.first().filter(|_| answer.marked) else {
        return out;
    };
    let b = t.as_bytes();
    let cut = |i: usize| {
        b[i] == b';'
            || (b[i] == b','
                && !(i > 0
                    && b[i - 1].is_ascii_digit()
                    && b.get(i + 1).is_some_and(u8::is_ascii_digit)))
    };
    let mut items = Vec::new();
    let mut start = 0;
    for i in 0..b.len() {
        if cut(i) {
            items.push(&t[start..i]);
            start = i + 1;
        }
    }
    items.push(&t[start..]);
    let items: Vec<&str> = items.into_iter().map(str::trim).filter(|p| !p.is_empty()).collect();
    if items.len() < 2 {
        return out;
    }
    let mut task_words = Vec::new();
    words_into(answer.task, &mut task_words);
    for p in items {
        let mut w = Vec::new();
        words_into(p, &mut w);
        let chars: usize = w.iter().map(|&(a, b)| p[a..b].chars().count()).sum();
        if chars >= 3 && find_words(answer.task, &task_words, p, &w).is_none() {
            out.push((p, w));
        }
    }
    out
}

/// Where step `r`'s text `t` shows one of the values (the first `wholes` are whole answers,
/// the rest items of a list answer): the value as `t` spells it and the line
/// that shows it (both exact substrings of `t`).
fn shown_in(
    r: u32,
    t: &str,
    needles: &[(&str, Vec<(usize, usize)>)],
    wholes: usize,
    words: &mut Vec<(usize, usize)>,
) -> Option<AnswerShown> {
    words_into(t, words);
    needles.iter().enumerate().find_map(|(k, (n, nw))| {
        let (a, b) = find_words(t, words, n, nw)?;
        let value = &t[a..b];
        let start = t[..a].rfind('\n').map_or(0, |p| p + 1);
        let end = t[b..].find('\n').map_or(t.len(), |p| b + p);
        let line = t[start..end].trim();
        let quote = if value.contains('\n') { value } else { quote_around(line, &[value]) };
        Some(AnswerShown {
            step: r,
            value: value.to_string(),
            quote: quote.to_string(),
            item: k >= wholes,
        })
    })
}

/// In an orchestrated run that states its answer (`FINAL ANSWER:`), the worker reply the
/// answer was accepted from: the last worker reply before the first step that declares the
/// request satisfied (a progress ledger whose `is_request_satisfied` answer is true, or a
/// line `Request satisfied`), when that reply states the answer's value. The run failed, so
/// the reply that concluded the wrong value is where it entered the answer. Any value the
/// task does not give counts, a one-letter answer too: only that one reply is searched.
fn answer_accepted(
    traj: &Trajectory,
    instructed: &[u32],
    answer: &FinalAnswer<'_>,
) -> Option<AnswerAccepted> {
    if !answer.marked {
        return None;
    }
    let steps = &traj.steps;
    let declared = first_declaration(steps, instructed, answer)?;
    let &r = instructed.iter().rev().find(|&&r| (r as usize) < declared)?;
    let needles = answer_needles(answer, 1);
    let t = steps.get(r as usize)?.text.as_str();
    let shown = shown_in(r, t, &needles, needles.len(), &mut Vec::new())?;
    Some(AnswerAccepted { shown, declared: declared as u32 })
}

/// The first step (up to the answer's own) where the orchestrator declares the request
/// satisfied ([`declares_satisfied`]; a worker's reply is not the orchestrator's word).
fn first_declaration(
    steps: &[Step],
    instructed: &[u32],
    answer: &FinalAnswer<'_>,
) -> Option<usize> {
    steps.iter().enumerate().take(answer.step + 1).position(|(i, s)| {
        text::is_agent_step(s)
            && instructed.binary_search(&(i as u32)).is_err()
            && declares_satisfied(&s.text)
    })
}

/// In an orchestrated run that states its answer (`FINAL ANSWER:`), the orchestrator's first
/// declaration that the request is satisfied when the worker reply before it does not state
/// the answer's value (or no worker replied before it): the answer entered at the declaration,
/// not from a reply. Called when [`answer_accepted`] found no backing reply. Not marked when
/// the answer has no value to look for (every value given in the task).
fn unbacked_declaration(
    traj: &Trajectory,
    instructed: &[u32],
    answer: &FinalAnswer<'_>,
) -> Option<u32> {
    if !answer.marked || answer_needles(answer, 1).is_empty() {
        return None;
    }
    first_declaration(&traj.steps, instructed, answer).map(|d| d as u32)
}

/// Whether an orchestrator's step declares the request satisfied: a progress ledger whose
/// `"is_request_satisfied"` holds `"answer": true`, or a line reading `Request satisfied`.
pub fn declares_satisfied(t: &str) -> bool {
    if let Some(p) = memchr::memmem::find(t.as_bytes(), b"\"is_request_satisfied\"") {
        let rest = &t[p..];
        if let Some(q) = memchr::memmem::find(rest.as_bytes(), b"\"answer\"") {
            let after = rest[q + 8..].trim_start_matches(|c: char| c == ':' || c.is_whitespace());
            if after.starts_with("true") {
                return true;
            }
        }
    }
    t.lines().any(|l| l.trim().trim_end_matches('.').eq_ignore_ascii_case("request satisfied"))
}

/// The words of a text for matching with case and punctuation ignored: maximal runs of
/// alphanumeric characters (a `.` or `,` between two digits stays inside the number, so `2.70`
/// is one word, not `2` and `70`), as byte ranges into the text.
fn words_into(t: &str, out: &mut Vec<(usize, usize)>) {
    out.clear();
    let b = t.as_bytes();
    let mut start = None;
    for (i, c) in t.char_indices() {
        let inside = c.is_alphanumeric()
            || (matches!(c, '.' | ',')
                && start.is_some()
                && b[i - 1].is_ascii_digit()
                && b.get(i + 1).is_some_and(u8::is_ascii_digit));
        match (inside, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, t.len()));
    }
}

/// Two words equal with case ignored (ASCII case when either is ASCII, so the prefilter of
/// [`answer_shown`] is exact; Unicode lower case between two non-ASCII words).
fn same_word(a: &str, b: &str) -> bool {
    if a.is_ascii() || b.is_ascii() {
        a.eq_ignore_ascii_case(b)
    } else {
        a.chars().flat_map(crate::lower::lower).eq(b.chars().flat_map(crate::lower::lower))
    }
}

/// Where the words of `needle` occur in a row among the words of `hay` (case and punctuation
/// ignored): the byte range of `hay` from the first word's start to the last word's end, so
/// the quote is the value as `hay` spells it.
fn find_words(
    hay: &str,
    hay_words: &[(usize, usize)],
    needle: &str,
    needle_words: &[(usize, usize)],
) -> Option<(usize, usize)> {
    let m = needle_words.len();
    if m == 0 || hay_words.len() < m {
        return None;
    }
    (0..=hay_words.len() - m)
        .find(|&k| {
            needle_words
                .iter()
                .zip(&hay_words[k..])
                .all(|(&(na, nb), &(ha, hb))| same_word(&hay[ha..hb], &needle[na..nb]))
        })
        .map(|k| (hay_words[k].0, hay_words[k + m - 1].1))
}

/// A number's other spelling as to thousands separators: `950,000` gives `950000` and
/// `950000` gives `950,000` (a fraction after a `.` is kept). `None` for a number with no
/// other spelling: fewer than four digits before the point, or commas that are not
/// separators of groups of three (`1,5`, `12,34,567`).
fn regroup(n: &str) -> Option<String> {
    let (int, frac) = n.split_once('.').map_or((n, ""), |(i, f)| (i, f));
    if !frac.bytes().all(|b| b.is_ascii_digit()) || int.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(n.len() + n.len() / 3);
    if int.contains(',') {
        let mut groups = int.split(',');
        let head = groups.next()?;
        let ok = (1..=3).contains(&head.len())
            && head.bytes().all(|b| b.is_ascii_digit())
            && groups.all(|g| g.len() == 3 && g.bytes().all(|b| b.is_ascii_digit()));
        if !ok {
            return None;
        }
        out.extend(int.chars().filter(|&c| c != ','));
    } else {
        if int.len() < 4 || !int.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        for (k, c) in int.chars().enumerate() {
            if k > 0 && (int.len() - k) % 3 == 0 {
                out.push(',');
            }
            out.push(c);
        }
    }
    if !frac.is_empty() || n.ends_with('.') {
        out.push('.');
        out.push_str(frac);
    }
    Some(out)
}

/// Whether the task gives a value: its text holds it, or, for a number, its other spelling
/// as to thousands separators (a task's `950,000` gives the answer's `950000`).
fn number_given(task: &str, n: &str) -> bool {
    task.contains(n) || regroup(n).is_some_and(|r| task.contains(r.as_str()))
}

fn contains_number(line: &str, n: &str) -> bool {
    // Each of the line's numbers is a part of it: a line without `n` in it has none equal.
    memchr::memmem::find(line.as_bytes(), n.as_bytes()).is_some() && numbers(line).contains(&n)
}

/// A quote of a line that keeps the token when the line is longer than a quote may be.
fn quote_around<'a>(line: &'a str, tokens: &[&str]) -> &'a str {
    let cut = text::cut(line);
    if cut.len() == line.len() || tokens.iter().any(|t| cut.contains(t)) {
        return cut;
    }
    let pos = tokens.iter().filter_map(|t| line.find(t)).min().unwrap_or(0);
    let mut start = pos.saturating_sub(60);
    while !line.is_char_boundary(start) {
        start -= 1;
    }
    text::cut(&line[start..])
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn a_number_regrouped_gains_or_loses_its_thousands_separators() {
        let r = |n: &str| regroup(n);
        assert_eq!(r("950,000").as_deref(), Some("950000"));
        assert_eq!(r("950000").as_deref(), Some("950,000"));
        assert_eq!(r("1234567.89").as_deref(), Some("1,234,567.89"));
        assert_eq!(r("1,234,567.5").as_deref(), Some("1234567.5"));
        assert_eq!(r("1234.").as_deref(), Some("1,234."));
        assert_eq!(r("1,234.").as_deref(), Some("1234."));
        // No other spelling: under four digits, commas that group no thousands, not a number.
        for n in ["123", "1,5", "12,34,567", "1234,567", "1,2345", "12a4", "1234.5x", ".5", ",123"]
        {
            assert_eq!(r(n), None, "{n}");
        }
    }

    #[test]
    fn words_are_runs_of_letters_and_digits_with_a_point_or_comma_inside_a_number() {
        let words = |t: &str| {
            let mut w = Vec::new();
            words_into(t, &mut w);
            w.iter().map(|&(a, b)| t[a..b].to_string()).collect::<Vec<_>>()
        };
        assert_eq!(words("2.70 and 1,080,000 end."), ["2.70", "and", "1,080,000", "end"]);
        assert_eq!(words(",5 a.5 7, x"), ["5", "a", "5", "7", "x"]);
        assert_eq!(words("Café-crème"), ["Café", "crème"]);
        assert_eq!(words(""), Vec::<String>::new());
        // Found with case and punctuation ignored, as the hay spells it.
        let hay = "The show is CSI: Cyber, season 2.";
        let (mut hw, mut nw) = (Vec::new(), Vec::new());
        words_into(hay, &mut hw);
        words_into("csi cyber", &mut nw);
        assert_eq!(
            find_words(hay, &hw, "csi cyber", &nw).map(|(a, b)| &hay[a..b]),
            Some("CSI: Cyber")
        );
        words_into("cyber csi", &mut nw);
        assert_eq!(find_words(hay, &hw, "cyber csi", &nw), None);
        words_into("season 2 finale", &mut nw);
        assert_eq!(find_words(hay, &hw, "season 2 finale", &nw), None);
        words_into("2", &mut nw);
        assert_eq!(find_words(hay, &hw, "2", &nw).map(|(a, b)| &hay[a..b]), Some("2"));
        assert_eq!(find_words(hay, &hw, "", &[]), None);
    }

    #[test]
    fn a_quote_around_a_late_token_starts_60_bytes_before_it_on_a_char_boundary() {
        // Two-byte chars before the token: 60 bytes before it falls inside one, and the quote
        // starts at that char, not after it.
        let line = format!("{} 1234 tail", "é".repeat(400));
        let pos = line.find("1234").unwrap();
        assert!(!line.is_char_boundary(pos - 60));
        let q = quote_around(&line, &["1234"]);
        assert_eq!(q, text::cut(&line[pos - 61..]));
        assert!(q.contains("1234"));
        // A short line, or a token inside the first quote's length, is quoted from the start.
        assert_eq!(quote_around("it is 1234", &["1234"]), "it is 1234");
    }

    proptest! {
        /// A repeated failed command quotes its last failure as that observation's error quote
        /// (natively kept from when the failure was read, in wasm32 worked out again: the same).
        #[test]
        fn a_repetition_quotes_the_error_quote_of_the_last_failure(
            events in prop::collection::vec(
                prop_oneof![
                    prop::sample::select(vec!["make", "curl \"<URL>\"", "ls"])
                        .prop_map(|c| format!(r#"{{"type":"action","run_id":"r","command":{c:?}}}"#)),
                    (
                        prop::sample::select(vec![
                            "error: build failed\nnote: see log\nerror: second line",
                            "Could not resolve host: <URL>",
                            "bash: make: command not found",
                            "line one\nTraceback (most recent call last):\nValueError: bad",
                            "all good",
                        ]),
                        prop::sample::select(vec![0, 1, 2]),
                    )
                        .prop_map(|(o, code)| format!(
                            r#"{{"type":"observation","run_id":"r","exit_code":{code},"output":{o:?}}}"#
                        )),
                ],
                1..24,
            ),
        ) {
            let trace = crate::ingest(events.join("\n").as_bytes(), Default::default());
            for t in &trace.trajectories {
                for tr in detect(t).triggers.iter().filter(|tr| tr.rule == Rule::RepeatedAction) {
                    let obs = &t.steps[tr.reference_step.unwrap() as usize];
                    prop_assert_eq!(&tr.reference_quote, error_quote(obs));
                }
            }
        }
    }

    /// The tokens as first written: words split on chars, every line read (the marked phrase is
    /// not a token: `final_answer` reads a marked line with `marked_answer`).
    fn reference_answer_tokens<'a>(line: &'a str, task: &str) -> Vec<&'a str> {
        let mut out: Vec<&str> =
            numbers(line).into_iter().filter(|n| !number_given(task, n)).collect();
        for w in line.split(|c: char| !c.is_ascii_alphanumeric()) {
            push_caps_value(w, task, &mut out);
        }
        out
    }

    proptest! {
        #[test]
        fn answer_tokens_match_the_char_by_char_reading(
            line in prop_oneof![
                // Prose: no digit, no capital (a colon only in the marker's line).
                "([a-z .,é\u{3042}*\"!-]|final answer: |final answer:x){0,24}",
                "([a-zA-Z0-9 .,:ÉéÜ\u{3042}*\"!-]|FINAL ANSWER: |ABC|42|NASA){0,24}",
            ],
            task in "([a-zA-Z0-9 ]|ABC|42){0,8}",
        ) {
            prop_assert_eq!(answer_tokens(&line, &task), reference_answer_tokens(&line, &task));
        }
    }

    proptest! {
        /// An id map answers as a map of the ids themselves (the last step that carried each),
        /// whatever their hashes: here as few as four for every id, so most ids collide.
        #[test]
        fn an_id_map_answers_as_a_map_of_the_ids_themselves(
            ids in proptest::collection::vec(
                (proptest::option::of("[ab]{1,2}"), proptest::option::of("[ab]{1,2}")),
                1..40,
            ),
            buckets in 1u64..5,
        ) {
            let steps: Vec<Step> = ids
                .into_iter()
                .map(|(action, span)| {
                    let mut s = Step::default();
                    s.ids.action_id = action.map(Box::from);
                    s.ids.span_id = span.map(Box::from);
                    s
                })
                .collect();
            let hash = |id: &str| text::hash(&[id]) % buckets;
            let mut maps = [IdMap::new(IdKind::Action), IdMap::new(IdKind::Span)];
            let mut model = [std::collections::HashMap::new(), std::collections::HashMap::new()];
            for (i, s) in steps.iter().enumerate() {
                for (map, model) in maps.iter_mut().zip(&mut model) {
                    if let Some(id) = map.kind.of(s) {
                        map.insert_hashed(hash(id), id, &steps, i);
                        model.insert(id, i);
                    }
                    for id in ["a", "b", "aa", "ab", "ba", "bb", "c"] {
                        prop_assert_eq!(
                            map.get_hashed(hash(id), &steps, id),
                            model.get(id).copied(),
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn numbers_are_found_in_a_line_only_where_they_are_part_of_it() {
        assert!(contains_number("got 3.14 and 2,000 here", "2,000"));
        assert!(!contains_number("got 314 here", "3.14"));
        assert!(!contains_number("version 12a", "12"));
    }

    #[test]
    fn a_number_is_regrouped_by_its_thousands_separators() {
        assert_eq!(regroup("950000").as_deref(), Some("950,000"));
        assert_eq!(regroup("950,000").as_deref(), Some("950000"));
        assert_eq!(regroup("1080000000").as_deref(), Some("1,080,000,000"));
        assert_eq!(regroup("1,234.50").as_deref(), Some("1234.50"));
        assert_eq!(regroup("1234.5").as_deref(), Some("1,234.5"));
        // No other spelling: three digits or fewer, commas that do not group by three.
        assert_eq!(regroup("950"), None);
        assert_eq!(regroup("3.14"), None);
        assert_eq!(regroup("1,5"), None);
        assert_eq!(regroup("12,34,567"), None);
        assert_eq!(regroup("1.2.3"), None);
    }

    #[test]
    fn a_number_the_task_gives_in_either_spelling_is_no_answer_token() {
        let task = "Two homes sold in 2022 for $950,000 and $1,200,000.";
        assert!(answer_tokens("It sold for 950000.", task).is_empty());
        assert!(answer_tokens("The total is 2150000.", task) == vec!["2150000"]);
        assert_eq!(marked_answer("FINAL ANSWER: 1200000", task), None);
        assert_eq!(marked_answer("FINAL ANSWER: 1300000", task), Some("1300000"));
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod marker_tests {
    use super::after_marker;

    /// The marker compared at every byte, as before the colon search.
    fn naive(line: &str) -> Option<usize> {
        const MARKER: &[u8] = b"final answer:";
        let pos =
            line.as_bytes().windows(MARKER.len()).position(|w| w.eq_ignore_ascii_case(MARKER))?;
        Some(pos + MARKER.len())
    }

    #[test]
    fn the_marker_is_found_where_a_scan_of_every_byte_finds_it() {
        for line in [
            "",
            ":",
            "final answer:",
            "FINAL ANSWER: 42",
            "a: b: Final Answer:: x",
            "final answer; final answer : no, final  answer:no, FINAL ANSWER:yes",
            "é:final answer:é",
            "nal answer: x",
            "xfinal answer:final answer:",
        ] {
            assert_eq!(after_marker(line), naive(line), "{line:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn the_marker_search_agrees_with_the_scan_of_every_byte(
            line in "(x|:|final|FINAL| |answer|ANSWER|é|\n){0,12}",
        ) {
            proptest::prop_assert_eq!(after_marker(&line), naive(&line));
        }
    }
}
