//! The scoring model that ranks candidate critical steps: explicit features per candidate, a
//! weighted sum, and the features in words (`why`). Documented in `docs/detector.md`.
//!
//! score = instance · (state base + 0.1 · footprints) + Σ rule priors
//!       + LINKED when a verifier, a test or the environment reported it   (structural)
//!       + LINKED at an orchestrator's declaration of success no reply backs (structural)
//!       + Σ weight_k · feature_k                                          (the fitted part)
//!
//! and two optional agent stages. [`agent_support`]: each of the first stage's top
//! `support_depth` candidates votes for its agent with 1 / rank, and `agent_support` × the
//! votes of a candidate's agent is added to its score (fitted apart, off in the shipped
//! defaults). [`agent_mass`]: every candidate lends its agent exp((score − best) / T), with T
//! the weight `agent_vote`, and the best candidate of the agent holding the most of that mass
//! goes first (fitted with the step weights; on for group chats in the shipped defaults).
//!
//! The fitted weights ([`Weights`]) are few on purpose, and there are two sets: one for group
//! chats ([`Weights::default`]) and one for orchestrated runs ([`Weights::orchestrated`]), each
//! fitted on runs of its shape only. `trajscope eval --folds 2` fits them on one half of a
//! labelled set and scores the other half, so their value on unseen traces shows.

use serde::{Deserialize, Serialize};

use super::rules::Rule;
use super::InstanceState;

/// What the analysis observed about one candidate step.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Features {
    /// The state of the best error instance at this step (none for an out-of-set step).
    pub state: Option<InstanceState>,
    /// The rules that placed it (deduplicated).
    pub rules: Vec<Rule>,
    /// Terminal footprints of its instances.
    pub footprints: u32,
    /// The step is the agent step the first error signal answers (it introduced that error).
    pub introduces_first_error: bool,
    /// The step comes before the first error signal (an error can only be introduced before
    /// it shows).
    pub before_first_error: bool,
    /// The step's text states an assumption, a placeholder or simulated data (a fact it
    /// introduced without checking).
    pub assumption: bool,
    /// The step introduces code or a command (a fenced block, an action's arguments).
    pub introduces_code: bool,
    /// The step first states the value of the wrong final answer.
    pub states_answer: bool,
    /// 1 − step / steps: earlier steps are where plans and facts are introduced.
    pub earliness: f64,
    /// The step is a worker's reply to an orchestrator's instruction.
    pub worker_reply: bool,
    /// The step is the first worker reply whose text shows the value of the wrong final answer,
    /// or one item of a list answer (case and punctuation ignored); orchestrated runs only.
    #[serde(default)]
    pub shows_answer: bool,
    /// The value as the step spells it, for `why` (with `shows_answer`).
    #[serde(skip)]
    pub shown_value: String,
    /// What the step shows is one item of a list answer, for `why` (with `shows_answer`).
    #[serde(skip)]
    pub shown_item: bool,
    /// The step is the worker reply an orchestrated run accepted its final answer from: the
    /// last worker reply before the orchestrator first declares the request satisfied, and it
    /// states the (wrong) final answer's value.
    #[serde(default)]
    pub concludes_answer: bool,
    /// The value as that reply states it and the step of the declaration, for `why`.
    #[serde(skip)]
    pub accepted: Option<(String, u32)>,
    /// The step ran no code and issued no command, yet its own words report a check, a search
    /// or a visit as done by its speaker (`I have verified`, `after searching`, `upon
    /// visiting`): a check no step of the trace made.
    #[serde(default)]
    pub claimed_check: bool,
    /// The phrase of that report, verbatim, for `why`.
    #[serde(skip)]
    pub claim: String,
    /// The orchestrator's first declaration that the request is satisfied, when no worker
    /// reply backs it (the reply before it does not state the wrong final answer's value);
    /// orchestrated runs only. Structural, not weighted: the run accepted its wrong answer
    /// here, in its own words ([`LINKED`]).
    #[serde(default)]
    pub unbacked_declaration: bool,
    /// The rank-weighted support of this step's agent among the top candidates of the first
    /// ranking stage (see [`agent_support`]); set by the ranking, not by the step.
    #[serde(default)]
    pub agent_support: f64,
    /// How many top candidates the support counted (for the words of `why`).
    #[serde(skip)]
    pub support_depth: u32,
    /// The share of every candidate's score mass (see [`agent_mass`]) held by this step's
    /// agent; set by the ranking when the agent vote is on, else 0.
    #[serde(default)]
    pub agent_mass: f64,
    /// The agent vote moved this candidate to the top (its agent holds the most score mass,
    /// and this is that agent's best candidate) over a better-scored candidate of another agent.
    #[serde(skip)]
    pub promoted: bool,
    /// The run is orchestrated (an orchestrator instructs workers, who reply): its candidates
    /// are scored with the orchestrated weights.
    #[serde(skip)]
    pub orchestrated: bool,
    /// The first error signal, when there is one (for the words of `why`).
    #[serde(skip)]
    pub first_error_step: Option<u32>,
}

/// The fitted weights of the scoring model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Weights {
    /// Multiplies the state base and footprints of an observed error instance.
    pub instance: f64,
    pub introduces_first_error: f64,
    pub before_first_error: f64,
    pub assumption: f64,
    pub introduces_code: f64,
    pub states_answer: f64,
    pub earliness: f64,
    pub worker_reply: f64,
    /// Multiplies the candidate's agent support (the second ranking stage).
    #[serde(default)]
    pub agent_support: f64,
    /// How many top candidates of the first stage vote for an agent (searched over
    /// [`DEPTH_GRID`]).
    #[serde(default = "default_depth")]
    pub support_depth: f64,
    /// The temperature of the agent vote ([`agent_mass`]); 0 turns the vote off. Searched over
    /// [`VOTE_GRID`] with the step weights held at each value.
    #[serde(default)]
    pub agent_vote: f64,
    /// The first worker reply showing the wrong final answer's value (orchestrated runs).
    #[serde(default)]
    pub shows_answer: f64,
    /// The worker reply the run accepted its wrong final answer from (orchestrated runs).
    #[serde(default)]
    pub concludes_answer: f64,
    /// A step that reports a check as done while it ran nothing.
    #[serde(default)]
    pub claimed_check: f64,
}

fn default_depth() -> f64 {
    10.0
}

impl Default for Weights {
    /// The group-chat weights: fitted on the group chats of the Who&When development half (its
    /// 68 Algorithm-Generated items), with the agent stage off and the agent vote fitted; the
    /// cross-validated figures of the same procedure are in `docs/detector.md`.
    fn default() -> Self {
        Weights {
            instance: 0.0,
            introduces_first_error: 0.0,
            before_first_error: 0.25,
            assumption: 0.5,
            introduces_code: 0.5,
            states_answer: 0.5,
            earliness: 0.5,
            // No group chat has a worker replying to an orchestrator: the fit never moves it.
            worker_reply: 0.5,
            // Cross-validation shows no gain from the agent stage (docs/detector.md): off.
            agent_support: 0.0,
            support_depth: 10.0,
            // The agent vote at temperature 0.5: the agent most candidates point at.
            agent_vote: 0.5,
            // Worker replies exist only in orchestrated runs: these never fire here.
            shows_answer: 0.0,
            concludes_answer: 0.0,
            // A reported check that no code made: a group chat's agents check facts only
            // through the code the terminal runs.
            claimed_check: 1.5,
        }
    }
}

/// Added to a candidate whose rule rests on an explicit report (a verifier, a test, the
/// environment), and to an orchestrator's declaration of success that no worker reply backs
/// (the run accepted its wrong answer there, in its own words): it outranks every inferred
/// candidate, whatever the fitted weights.
pub const LINKED: f64 = 100.0;

/// The grid each weight is searched over when fitting.
pub const GRID: [f64; 6] = [0.0, 0.25, 0.5, 1.0, 1.5, 2.0];

/// The grid of `support_depth` (how many top candidates vote for an agent).
pub const DEPTH_GRID: [f64; 4] = [1.0, 3.0, 5.0, 10.0];

/// The grid of `agent_vote` (the vote's temperature; 0 is off, tried first).
pub const VOTE_GRID: [f64; 4] = [0.0, 0.25, 0.5, 1.0];

/// The values weight `k` is searched over when fitting.
pub fn grid(k: usize) -> &'static [f64] {
    match Weights::NAMES[k] {
        "support_depth" => &DEPTH_GRID,
        "agent_vote" => &VOTE_GRID,
        _ => &GRID,
    }
}

/// The agent vote. Every candidate lends its agent exp((score − best score) / `temperature`)
/// (a softmax over the candidates' scores); returns the agent holding the most of that mass
/// (ties to the agent of the better-ranked candidate) and each candidate's agent's share of
/// the total. `order` is the ranking best first (indices into `scores` and `agents`).
/// A candidate far below the best lends almost nothing, so an explicitly reported error
/// (+[`LINKED`]) keeps its agent whatever the others hold.
pub fn agent_mass(
    order: &[usize],
    scores: &[f64],
    agents: &[String],
    temperature: f64,
) -> (Option<String>, Vec<f64>) {
    let Some(&top) = order.first() else {
        return (None, Vec::new());
    };
    let best = scores[top];
    let mut mass: Vec<(&str, f64)> = Vec::new();
    for &k in order {
        let a = agents[k].as_str();
        let v = ((scores[k] - best) / temperature).exp();
        match mass.iter_mut().find(|(x, _)| *x == a) {
            Some(e) => e.1 += v,
            None => mass.push((a, v)),
        }
    }
    let total: f64 = mass.iter().map(|e| e.1).sum();
    let mut winner = mass[0];
    for &e in &mass[1..] {
        if e.1 > winner.1 {
            winner = e;
        }
    }
    let share = agents
        .iter()
        .map(|a| mass.iter().find(|(x, _)| x == a).map_or(0.0, |e| e.1 / total))
        .collect();
    (Some(winner.0.to_string()), share)
}

/// The second ranking stage. Each of the `depth` best candidates of the first stage (scored by
/// [`score`]) votes for its agent with 1 / rank; a candidate's support is its agent's total.
/// Returns the support of every candidate (the input order). `first` holds the first-stage
/// order, `agents` each candidate's agent (normalised).
pub fn agent_support(first: &[usize], agents: &[String], depth: usize) -> Vec<f64> {
    let mut votes: Vec<(&str, f64)> = Vec::new();
    for (r, &k) in first.iter().take(depth).enumerate() {
        let a = agents[k].as_str();
        let v = 1.0 / (r + 1) as f64;
        match votes.iter_mut().find(|(x, _)| *x == a) {
            Some(e) => e.1 += v,
            None => votes.push((a, v)),
        }
    }
    agents.iter().map(|a| votes.iter().find(|(x, _)| x == a).map_or(0.0, |e| e.1)).collect()
}

impl Weights {
    /// The weights for an orchestrated run: fitted on the orchestrated runs of the Who&When
    /// development half (its 32 Hand-Crafted Magentic-One items), the agent stage off,
    /// `introduces_code` started at 0, `assumption` held at 0 and the answer traces started
    /// at 0.5 (docs/detector.md). An observed error counts a little (`instance`); an early
    /// step, a worker's reply, the step that first states the wrong final answer, the first
    /// worker reply that shows the answer's value (or an item of a list answer) and the
    /// reply the run accepted that answer from count alike. (When no reply states it, the
    /// orchestrator's declaration of success is structural, not weighted: [`LINKED`].)
    pub fn orchestrated() -> Self {
        Weights {
            instance: 0.25,
            introduces_first_error: 0.5,
            before_first_error: 0.5,
            assumption: 0.0,
            introduces_code: 0.0,
            states_answer: 0.5,
            earliness: 0.5,
            worker_reply: 0.5,
            agent_support: 0.0,
            // Unused while `agent_support` is 0.
            support_depth: 10.0,
            // Off for orchestrated runs: the orchestrator speaks most of their steps, so the
            // score mass follows the number of its steps (docs/detector.md).
            agent_vote: 0.0,
            shows_answer: 0.5,
            concludes_answer: 0.5,
            // Never kept by the fit: a worker browses for itself, and the page it reports is
            // in its own reply.
            claimed_check: 0.0,
        }
    }

    /// Number of fitted weights.
    pub const LEN: usize = 14;

    /// Names, in [`Weights::get`] order.
    pub const NAMES: [&'static str; Self::LEN] = [
        "instance",
        "introduces_first_error",
        "before_first_error",
        "assumption",
        "introduces_code",
        "states_answer",
        "earliness",
        "worker_reply",
        "agent_support",
        "support_depth",
        "agent_vote",
        "shows_answer",
        "concludes_answer",
        "claimed_check",
    ];

    pub fn get(&self, k: usize) -> f64 {
        [
            self.instance,
            self.introduces_first_error,
            self.before_first_error,
            self.assumption,
            self.introduces_code,
            self.states_answer,
            self.earliness,
            self.worker_reply,
            self.agent_support,
            self.support_depth,
            self.agent_vote,
            self.shows_answer,
            self.concludes_answer,
            self.claimed_check,
        ][k]
    }

    pub fn set(&mut self, k: usize, v: f64) {
        let slot = match k {
            0 => &mut self.instance,
            1 => &mut self.introduces_first_error,
            2 => &mut self.before_first_error,
            3 => &mut self.assumption,
            4 => &mut self.introduces_code,
            5 => &mut self.states_answer,
            6 => &mut self.earliness,
            7 => &mut self.worker_reply,
            8 => &mut self.agent_support,
            9 => &mut self.support_depth,
            10 => &mut self.agent_vote,
            11 => &mut self.shows_answer,
            12 => &mut self.concludes_answer,
            _ => &mut self.claimed_check,
        };
        *slot = v;
    }
}

fn state_base(s: InstanceState) -> f64 {
    match s {
        InstanceState::ManifestActive => 1.0,
        InstanceState::CostlyResolution => 0.7,
        InstanceState::LatentActive => 0.3,
        InstanceState::CheapResolution => 0.0,
    }
}

/// The candidate's score under `w`.
pub fn score(f: &Features, w: &Weights) -> f64 {
    let b = |x: bool| if x { 1.0 } else { 0.0 };
    let structural = f.state.map_or(0.0, |s| {
        let linked = f.rules.iter().any(|r| r.is_linked());
        let weight = if linked { 1.0 } else { w.instance };
        weight * (state_base(s) + 0.1 * f.footprints as f64)
            + f.rules.iter().map(|r| r.prior()).sum::<f64>()
            + if linked { LINKED } else { 0.0 }
    });
    structural
        + w.introduces_first_error * b(f.introduces_first_error)
        + w.before_first_error * b(f.before_first_error)
        + w.assumption * b(f.assumption)
        + w.introduces_code * b(f.introduces_code)
        + w.states_answer * b(f.states_answer)
        + w.earliness * f.earliness
        + w.worker_reply * b(f.worker_reply)
        + w.shows_answer * b(f.shows_answer)
        + w.concludes_answer * b(f.concludes_answer)
        + w.claimed_check * b(f.claimed_check)
        + LINKED * b(f.unbacked_declaration)
}

/// The features that placed a candidate, in words a reviewer can check.
pub fn why(f: &Features) -> Vec<String> {
    let mut out = Vec::with_capacity(6);
    match f.state {
        Some(s) => {
            let state = match s {
                InstanceState::CheapResolution => "cheap resolution",
                InstanceState::CostlyResolution => "costly resolution",
                InstanceState::ManifestActive => "manifest active",
                InstanceState::LatentActive => "latent active",
            };
            let mut line = String::with_capacity(80);
            // With no error signal anywhere (an unknown outcome's likely steps, an answer's
            // origin), the instance is inferred: "observed" would contradict the line below.
            line.push_str(match f.first_error_step {
                Some(_) => "an observed error instance here is ",
                None => "an error instance inferred here is ",
            });
            line.push_str(state);
            if f.footprints > 0 {
                line.push_str(&format!(" with {} terminal footprint(s)", f.footprints));
            }
            out.push(line);
        }
        None => out.push("no observed error here: ranked by its features alone".into()),
    }
    if !f.rules.is_empty() {
        // Built by hand, not formatted: every candidate of every trajectory has this line.
        let mut line = String::with_capacity(32);
        line.push_str("rule: ");
        for (i, r) in f.rules.iter().enumerate() {
            if i > 0 {
                line.push_str(", ");
            }
            line.push_str(r.as_str());
        }
        out.push(line);
    }
    if f.state.is_some()
        && f.rules.iter().any(|r| r.is_linked() && *r != Rule::TaskConstraintBroken)
    {
        out.push(
            "reported by a verifier, a test, a repeated failure or the environment: outranks \
             every inferred candidate"
                .into(),
        );
    } else if f.state.is_some() && f.rules.contains(&Rule::TaskConstraintBroken) {
        out.push(
            "changes what the task's own words forbid changing: outranks every inferred candidate"
                .into(),
        );
    }
    match (f.introduces_first_error, f.before_first_error, f.first_error_step) {
        (true, _, Some(e)) => out.push(format!("introduced the first error signal (step {e})")),
        (false, true, Some(e)) => out.push(format!("before the first error signal (step {e})")),
        (false, false, Some(e)) => out.push(format!("after the first error signal (step {e})")),
        _ => out.push("no error signal in the trace".into()),
    }
    if f.assumption {
        out.push("states an assumption, placeholder or simulated data".into());
    }
    if f.introduces_code {
        out.push("introduces code or a command".into());
    }
    if f.states_answer {
        out.push("first states the value of the final answer".into());
    }
    if f.worker_reply {
        out.push("a worker's reply to an orchestrator instruction".into());
    }
    if f.shows_answer && f.shown_item {
        out.push(format!(
            "first worker reply whose text states an item of the final answer's list, '{}'",
            f.shown_value
        ));
    } else if f.shows_answer {
        out.push(format!(
            "first worker reply whose text states the final answer's value '{}'",
            f.shown_value
        ));
    }
    if let Some((value, declared)) = f.accepted.as_ref().filter(|_| f.concludes_answer) {
        out.push(format!(
            "the worker reply the run accepted its answer from: it states the final answer's \
             value '{value}', and the orchestrator next declared the request satisfied (step \
             {declared})"
        ));
    }
    if f.claimed_check {
        out.push(format!(
            "reports a check as done ('{}') but ran no code and issued no command",
            f.claim
        ));
    }
    if f.unbacked_declaration {
        out.push(
            "the orchestrator's first declaration that the request is satisfied, and the worker \
             reply before it does not state the final answer's value"
                .into(),
        );
        out.push(
            "the run accepted its wrong answer here, in its own words: outranks every inferred \
             candidate"
                .into(),
        );
    }
    if f.promoted {
        out.push(format!(
            "moved first by the agent vote: its agent holds {:.0} % of the score mass of all \
             candidates, more than any other agent, and this is that agent's best step",
            100.0 * f.agent_mass
        ));
    }
    if f.agent_support > 0.0 {
        out.push(format!(
            "its agent holds {:.2} of the votes of the top {} candidates (1 / rank each)",
            f.agent_support, f.support_depth
        ));
    }
    out
}

/// Words that mark a fact the step introduced without checking it.
const ASSUMPTION: &[&str] = &[
    "assume",
    "assuming",
    "assumption",
    "hypothetical",
    "simulate",
    "simulated",
    "simulating",
    "placeholder",
    "for demonstration",
    "example data",
    "sample data",
    "mock data",
    "dummy",
    "let's say",
    "fictional",
    "illustrative",
];

/// Whether a text states an assumption, a placeholder or simulated data (ASCII
/// case-insensitive, whole words at the start).
pub fn states_assumption(text: &str) -> bool {
    static AC: std::sync::LazyLock<crate::ac::Ac> = std::sync::LazyLock::new(|| {
        crate::ac::AcOptions::ascii_case_insensitive()
            .build(ASSUMPTION)
            .expect("static needle list builds")
    });
    let b = text.as_bytes();
    AC.find_iter(text).any(|m| m.start() == 0 || !b[m.start() - 1].is_ascii_alphanumeric())
}

/// Phrases of a step that reports a check, a search or a visit as done by its speaker ("I", or
/// no subject: `after searching`). A chat agent does these only through code the terminal
/// runs: a step that reports one while it ran no code reports a check no step of the trace
/// made. "We have verified" is not among them: it sums up the group's work, which other steps
/// may have checked with code.
const CLAIMED_CHECK: &[&str] = &[
    "i have verified",
    "i have confirmed",
    "i have reviewed",
    "i have checked",
    "i have examined",
    "i have visited",
    "i have cross-referenced",
    "i have validated",
    "i have carefully",
    "i have manually",
    "i have thoroughly",
    "i verified",
    "i checked",
    "i reviewed",
    "i visited",
    "after searching",
    "after reviewing",
    "after checking",
    "after visiting",
    "after examining",
    "after verifying",
    "after manually",
    "after carefully",
    "upon searching",
    "upon reviewing",
    "upon checking",
    "upon visiting",
    "upon examining",
    "upon verifying",
    "upon manually",
    "upon carefully",
    "having reviewed",
    "having checked",
    "having verified",
    "having examined",
    "having visited",
    "having carefully",
    "having manually",
];

/// The first phrase of a text that reports a check as done ([`CLAIMED_CHECK`], ASCII
/// case-insensitive, whole words), outside the task's own words: verbatim, from the phrase to
/// the end of its clause (at most 100 bytes more).
pub fn claimed_check<'a>(text: &'a str, task: &str) -> Option<&'a str> {
    static AC: std::sync::LazyLock<crate::ac::Ac> = std::sync::LazyLock::new(|| {
        crate::ac::AcOptions::ascii_case_insensitive()
            .build(CLAIMED_CHECK)
            .expect("static needle list builds")
    });
    let find = |part: &'a str| -> Option<&'a str> {
        let b = part.as_bytes();
        AC.find_iter(part)
            .find(|m| {
                (m.start() == 0 || !b[m.start() - 1].is_ascii_alphanumeric())
                    && b.get(m.end()).is_none_or(|c| !c.is_ascii_alphanumeric())
            })
            .map(|m| {
                // The phrase to the end of its clause (at most 100 bytes), so `why` reads
                // "Having carefully reviewed the ending scene", not "Having carefully".
                let rest = &b[m.end()..];
                let clause = rest
                    .iter()
                    .position(|c| matches!(c, b'.' | b',' | b';' | b':' | b'!' | b'?' | b'\n'))
                    .unwrap_or(rest.len());
                let mut end = m.end() + clause.min(100);
                while !part.is_char_boundary(end) {
                    end -= 1;
                }
                part[m.start()..end].trim_end()
            })
    };
    // Most texts report no check at all: settled by one fast scan of the whole text.
    static ANY: std::sync::LazyLock<super::text::AnyCase> =
        std::sync::LazyLock::new(|| super::text::AnyCase::new(CLAIMED_CHECK));
    if !super::text::AnyCase::may_occur(&ANY, text) {
        return None;
    }
    let task = task.trim();
    match (!task.is_empty())
        .then(|| super::text::find_once(text.as_bytes(), task.as_bytes()))
        .flatten()
    {
        Some(at) => find(&text[..at]).or_else(|| find(&text[at + task.len()..])),
        None => find(text),
    }
}

/// Whether a step's own words state an assumption ([`states_assumption`]): a step that quotes
/// the task (as the opening message of a group chat does, the manager's plan and the expert's
/// first work around it) is read without the task's text, whose words are the task's, not an
/// assumption the step introduced.
pub fn states_own_assumption(text: &str, task: &str) -> bool {
    // Most texts hold no assumption word at all: settled by one fast scan of the whole text.
    static ANY: std::sync::LazyLock<super::text::AnyCase> =
        std::sync::LazyLock::new(|| super::text::AnyCase::new(ASSUMPTION));
    if !super::text::AnyCase::may_occur(&ANY, text) {
        return false;
    }
    let task = task.trim();
    match (!task.is_empty())
        .then(|| super::text::find_once(text.as_bytes(), task.as_bytes()))
        .flatten()
    {
        Some(at) => states_assumption(&text[..at]) || states_assumption(&text[at + task.len()..]),
        None => states_assumption(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assumption_words() {
        assert!(states_assumption("Let's assume the following numbers: 1, 2"));
        assert!(states_assumption("We will SIMULATE the dataset"));
        assert!(!states_assumption("the presumed value"));
        assert!(!states_assumption("all tests pass"));
    }

    #[test]
    fn assumption_words_quoted_from_the_task_are_not_the_steps() {
        let task = "Assume a fictional language, Tizin.";
        let opening = "# General Task\nAssume a fictional language, Tizin.\n# Plan\n1. Translate.";
        assert!(!states_own_assumption(opening, task));
        let own = "# General Task\nAssume a fictional language, Tizin.\n# Assuming the column is A";
        assert!(states_own_assumption(own, task));
        assert!(states_own_assumption("# Assuming the column is A", ""));
        assert!(states_own_assumption("Let's assume 3 rows.", task));
    }

    #[test]
    fn a_reported_check_is_read_in_the_steps_own_words_to_the_end_of_its_clause() {
        fn found(t: &str) -> Option<&str> {
            claimed_check(t, "")
        }
        assert_eq!(
            found("Having carefully reviewed the ending scene, it is a parachute."),
            Some("Having carefully reviewed the ending scene")
        );
        assert_eq!(
            found("Done. I have verified the schedules"),
            Some("I have verified the schedules")
        );
        assert_eq!(found("UPON VISITING the site: closed"), Some("UPON VISITING the site"));
        // The group's work, a plan, or the words inside other words report no check.
        assert_eq!(found("We have verified the numbers."), None);
        assert_eq!(found("I will verify the numbers next."), None);
        assert_eq!(found("Hi checked the box"), None);
        assert_eq!(found("I checkedout the branch"), None);
        // A long clause is cut at 100 bytes after the phrase, on a character boundary.
        let long = format!("I have checked {}", "é".repeat(80));
        let q = found(&long).expect("found");
        assert!(long.starts_with(q) && q.len() <= "I have checked".len() + 100, "{q}");
        // The task's words are not the step's.
        let task = "After searching the archive, name the year.";
        assert_eq!(claimed_check(&format!("# Task\n{task}\n# Plan\nRun the code."), task), None);
        assert!(claimed_check(&format!("# Task\n{task}\nI checked it: 1990."), task).is_some());
    }

    #[test]
    fn weights_get_set_round_trip() {
        let mut w = Weights::default();
        for k in 0..Weights::LEN {
            w.set(k, k as f64);
        }
        for k in 0..Weights::LEN {
            assert_eq!(w.get(k), k as f64);
        }
    }

    #[test]
    fn assumption_words_at_the_very_start_of_a_text() {
        assert!(states_assumption("Assuming the column is A"));
        assert!(states_assumption("dummy rows"));
        assert!(!states_assumption("presumably"));
    }

    #[test]
    fn weights_given_without_the_agent_stage_read_with_its_defaults() {
        // Weights given without the agent stage's fields (analysis options written before it
        // existed): depth 10, support and vote off.
        let old = r#"{"instance":0.5,"introduces_first_error":1,"before_first_error":0.25,
            "assumption":0.5,"introduces_code":0.5,"states_answer":0.5,"earliness":0.5,
            "worker_reply":0.5}"#;
        let w: Weights = serde_json::from_str(old).expect("reads");
        assert_eq!(w.support_depth, 10.0);
        assert_eq!((w.agent_support, w.agent_vote, w.claimed_check), (0.0, 0.0, 0.0));
        assert_eq!(w.instance, 0.5);
    }

    #[test]
    fn each_weight_is_searched_over_its_own_grid() {
        for (k, name) in Weights::NAMES.iter().enumerate() {
            let want: &[f64] = match *name {
                "support_depth" => &DEPTH_GRID,
                "agent_vote" => &VOTE_GRID,
                _ => &GRID,
            };
            assert_eq!(grid(k), want, "{name}");
        }
        assert_ne!(DEPTH_GRID.as_slice(), GRID.as_slice());
        assert_ne!(VOTE_GRID.as_slice(), GRID.as_slice());
    }

    #[test]
    fn a_tie_in_the_agent_vote_goes_to_the_better_ranked_candidates_agent() {
        let agents = vec!["coder".to_string(), "planner".to_string()];
        let (winner, share) = agent_mass(&[1, 0], &[2.0, 2.0], &agents, 0.5);
        assert_eq!(winner.as_deref(), Some("planner"));
        assert_eq!(share, vec![0.5, 0.5]);
        let (winner, _) = agent_mass(&[0, 1], &[2.0, 2.0], &agents, 0.5);
        assert_eq!(winner.as_deref(), Some("coder"));
        assert_eq!(agent_mass(&[], &[], &[], 0.5).0, None);
    }

    #[test]
    fn a_score_is_the_state_base_plus_each_weighted_feature() {
        let mut w = Weights::default();
        // Distinct weights, so a feature added with another's weight, or subtracted, shows.
        for k in 0..Weights::LEN {
            w.set(k, 0.5 + k as f64);
        }
        let none = score(&Features::default(), &w);
        assert_eq!(none, 0.0);
        let on = |set: fn(&mut Features)| {
            let mut f = Features::default();
            set(&mut f);
            score(&f, &w)
        };
        assert_eq!(on(|f| f.introduces_first_error = true), w.introduces_first_error);
        assert_eq!(on(|f| f.before_first_error = true), w.before_first_error);
        assert_eq!(on(|f| f.assumption = true), w.assumption);
        assert_eq!(on(|f| f.introduces_code = true), w.introduces_code);
        assert_eq!(on(|f| f.states_answer = true), w.states_answer);
        assert_eq!(on(|f| f.earliness = 0.5), 0.5 * w.earliness);
        assert_eq!(on(|f| f.worker_reply = true), w.worker_reply);
        assert_eq!(on(|f| f.shows_answer = true), w.shows_answer);
        assert_eq!(on(|f| f.concludes_answer = true), w.concludes_answer);
        assert_eq!(on(|f| f.claimed_check = true), w.claimed_check);
        assert_eq!(on(|f| f.unbacked_declaration = true), LINKED);
        // An instance: its state's base and 0.1 a footprint, times the instance weight.
        w.instance = 1.0;
        for (state, base) in [
            (InstanceState::ManifestActive, 1.0),
            (InstanceState::CostlyResolution, 0.7),
            (InstanceState::LatentActive, 0.3),
            (InstanceState::CheapResolution, 0.0),
        ] {
            let f = Features { state: Some(state), footprints: 2, ..Features::default() };
            assert!((score(&f, &w) - (base + 0.2)).abs() < 1e-9, "{state:?}");
        }
    }

    #[test]
    fn why_names_footprints_every_rule_and_a_broken_constraint_only_at_an_instance() {
        let at = |state, footprints, rules: Vec<Rule>| {
            why(&Features { state, footprints, rules, ..Features::default() })
        };
        let bare = at(Some(InstanceState::ManifestActive), 0, vec![]);
        assert_eq!(bare[0], "an error instance inferred here is manifest active");
        let two = at(Some(InstanceState::LatentActive), 2, vec![]);
        assert_eq!(
            two[0],
            "an error instance inferred here is latent active with 2 terminal footprint(s)"
        );
        let rules = at(None, 0, vec![Rule::VerifierRejected, Rule::TaskConstraintBroken]);
        assert!(
            rules.contains(&"rule: verifier_rejected, task_constraint_broken".to_string()),
            "{rules:?}"
        );
        // The rule alone, with no instance at the step, does not outrank anything.
        assert!(!rules.iter().any(|l| l.contains("outranks")), "{rules:?}");
        let placed = at(Some(InstanceState::ManifestActive), 0, vec![Rule::TaskConstraintBroken]);
        assert!(placed.iter().any(|l| l.starts_with("changes what the task's own words forbid")));
    }

    #[test]
    fn a_reported_error_outranks_any_inferred_step() {
        let mut w = Weights::default();
        for k in 0..Weights::LEN {
            w.set(k, *GRID.last().unwrap());
        }
        let bare = Features {
            earliness: 1.0,
            assumption: true,
            introduces_code: true,
            states_answer: true,
            worker_reply: true,
            concludes_answer: true,
            introduces_first_error: true,
            before_first_error: true,
            ..Features::default()
        };
        let observed = Features {
            state: Some(InstanceState::ManifestActive),
            rules: vec![Rule::VerifierRejected],
            footprints: 1,
            ..Features::default()
        };
        assert!(score(&observed, &w) > score(&bare, &w));
        assert!(why(&bare)[0].contains("features alone"));
    }
}
