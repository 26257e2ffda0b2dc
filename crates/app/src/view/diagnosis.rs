//! The diagnosis card at the top of the review: for a failed trajectory the critical step (who,
//! what, the quoted wrong content and the quoted violated reference, each a link to its step),
//! the class and the failure mode in words, why the detector chose it (its `why`, never the raw
//! score) and the brief with a copy button; the ranked candidates beside it (`n` / `p` walk
//! them). A passing run says so plainly; a run whose outcome is unknown lists the likely
//! critical steps "if this run failed".

use yew::prelude::*;

use super::{NavAction, State};
use crate::protocol::{Overview, TraceSummary, ROLE_NAMES};
use trajscope_core::model::Outcome;
use trajscope_core::record::{FailureClass, FailureMode};

/// A quote longer than this is cut in the card (the transcript shows it whole).
const QUOTE_MAX: usize = 280;

pub fn class_words(c: FailureClass) -> (&'static str, &'static str) {
    match c {
        FailureClass::AgentFailure => {
            ("Agent failure", "the agent's own step introduced the error")
        }
        FailureClass::VerificationFailure => {
            ("Verification failure", "a check, test or verifier rejected the agent's work")
        }
        FailureClass::EnvironmentBlocker => (
            "Environment blocker",
            "the environment stopped the run (a missing binary, the network, the sandbox); the agent is not blamed",
        ),
        FailureClass::FlakyBlocker => (
            "Flaky blocker",
            "a transient fault (a timeout, a rate limit) stopped the run; the agent is not blamed",
        ),
        FailureClass::HarnessBlocker => {
            ("Harness blocker", "the evaluation harness failed; the agent is not blamed")
        }
    }
}

pub fn mode_words(m: FailureMode) -> (&'static str, &'static str) {
    match m {
        FailureMode::Transient => ("transient", "retry after a wait; do not change the approach"),
        FailureMode::Deterministic => {
            ("deterministic", "it fails the same way until something is changed")
        }
        FailureMode::Reasoning => (
            "reasoning",
            "reflect: what was tried, why it failed, what to try next, the constraint for the next attempt",
        ),
    }
}

fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        s.chars().take(max).collect::<String>() + "…"
    }
}

fn who(state: &State, step: u32, agent: &str) -> String {
    let role = state
        .nav
        .columns
        .as_ref()
        .and_then(|c| c.role.get(step as usize))
        .and_then(|&r| ROLE_NAMES.get(usize::from(r)).copied());
    match (agent.is_empty(), role) {
        (false, Some(r)) => format!("{agent} ({r})"),
        (false, None) => agent.to_string(),
        (true, Some(r)) => r.to_string(),
        (true, None) => "an unnamed actor".to_string(),
    }
}

/// A quote as a link to its step.
fn quote(state: &UseReducerHandle<State>, kind: &str, step: u32, text: &str) -> Html {
    let d = state.dispatcher();
    let (label, testid) = match kind {
        "reference" => ("Violated reference", "diagnosis-reference"),
        _ => ("Wrong content", "diagnosis-wrong"),
    };
    html! {
        <figure class={classes!("dq", format!("dq-{kind}"))} data-testid={testid} data-step={step.to_string()}>
            <figcaption>
                { label }{" · "}
                <button class="link" data-testid="diagnosis-goto" data-step={step.to_string()}
                        onclick={Callback::from(move |_| d.dispatch(NavAction::Go(step).into()))}>
                    { format!("step #{step}") }
                </button>
            </figcaption>
            <blockquote class="quote">{ super::bidi::text(&clip(text, QUOTE_MAX)) }</blockquote>
        </figure>
    }
}

/// The card (and the candidates beside it) for the selected trajectory.
pub fn card(state: &UseReducerHandle<State>, summary: &TraceSummary) -> Html {
    let Some(info) = state.sel().and_then(|(_, t)| summary.trajectories.get(t as usize)) else {
        return html! {};
    };
    let main = main(state, summary, info);
    html! {
        <div class={classes!("diagnosis-row", info.critical.is_none().then_some("compact"))}>
            <section class="diagnosis panel" aria-label="Diagnosis" data-testid="diagnosis"
                     data-outcome={super::queue::outcome_name(info.outcome)}>
                { main }
            </section>
            { super::panels::candidates(state, info.outcome, info.analysed) }
        </div>
    }
}

fn main(state: &UseReducerHandle<State>, summary: &TraceSummary, info: &Overview) -> Html {
    if summary.growing.is_some() && summary.growing == state.sel().map(|(_, t)| t) {
        // A copy of a trajectory still read (nothing of the file has settled yet).
        let shown = match info.steps {
            1 => "its first step is shown".to_string(),
            n => format!("its first {n} steps are shown"),
        };
        return html! { <p class="muted" aria-busy="true" data-testid="diagnosis-growing">{ format!(
            "This trajectory is still being read: {shown}. Its analysis comes once it is read whole."
        ) }</p> };
    }
    if !info.analysed {
        return html! { <p class="muted" aria-busy="true" data-testid="diagnosis-pending">{"Analysing this trajectory…"}</p> };
    }
    match (info.outcome, &info.critical) {
        (Outcome::Passed, _) => html! {
            <>
            <h2 class="verdict ok" data-testid="diagnosis-verdict">{"This run passed."}</h2>
            <p>{"Nothing failed, so there is no critical step to find. The transcript below is the whole run."}</p>
            </>
        },
        (_, Some(c)) => {
            let cand = info.candidates.iter().find(|x| x.step == c.step);
            let what = cand.map(|x| {
                format!(
                    "{} in {}",
                    x.category.name().replace('_', " "),
                    x.phase.name().replace('_', " ")
                )
            });
            // The same quote backed by several rules is shown once.
            let mut quotes: Vec<(&str, u32, &str)> = Vec::new();
            for e in &c.evidence {
                if !e.quote.is_empty()
                    && !quotes.iter().any(|(k, s, q)| {
                        (*k, *s, *q) == (e.kind.as_str(), e.step, e.quote.as_str())
                    })
                {
                    quotes.push((e.kind.as_str(), e.step, e.quote.as_str()));
                }
            }
            // Wrong content first, then what it violates.
            trajscope_core::sort::sort_by_key(&mut quotes, |(k, _, _)| *k == "reference");
            quotes.truncate(4);
            let go = {
                let d = state.dispatcher();
                let step = c.step;
                Callback::from(move |_| d.dispatch(NavAction::Go(step).into()))
            };
            // A run whose file does not say how it ended is not called failed: the step is
            // where it failed if it did (an observed error points there).
            let unknown = info.outcome == Outcome::Unknown;
            html! {
                <>
                <h2 class={classes!("verdict", (!unknown).then_some("err"))} data-testid="diagnosis-verdict">
                    { if unknown { "If this run failed, it failed at " } else { "This run failed at " } }
                    <button class="link" data-testid="diagnosis-step" data-step={c.step.to_string()} onclick={go}>
                        { format!("step #{}", c.step) }
                    </button>
                    if c.line > 0 { <span class="muted small">{ format!(" (line {})", c.line) }</span> }
                </h2>
                if unknown {
                    <p class="muted small" data-testid="diagnosis-unknown">{"The file does not say how this run ended. Say how it ended in Annotate (\"This run failed\" or \"This run passed\")."}</p>
                }
                <p class="dwho" data-testid="diagnosis-who">
                    <span class="muted">{"by "}</span><strong>{ super::bidi::text(&who(state, c.step, &c.agent)) }</strong>
                    if let Some(w) = what { <span class="muted">{" · "}</span>{ w } }
                </p>
                <div class="dquotes">
                    { for quotes.iter().map(|(k, s, q)| quote(state, k, *s, q)) }
                    if quotes.is_empty() { <p class="muted">{"The analysis quotes no evidence for this step."}</p> }
                </div>
                <dl class="dfacts">
                    if let Some(cl) = info.classification {
                        <dt>{"class"}</dt>
                        <dd data-testid="diagnosis-class"><strong>{ class_words(cl).0 }</strong>{": "}{ class_words(cl).1 }</dd>
                    }
                    if let Some(m) = info.failure_mode {
                        <dt>{"failure mode"}</dt>
                        <dd data-testid="diagnosis-mode"><strong>{ mode_words(m).0 }</strong>{": "}{ mode_words(m).1 }</dd>
                    }
                    if let Some(x) = cand.filter(|x| !x.why.is_empty()) {
                        <dt>{"why this step"}</dt>
                        <dd data-testid="diagnosis-why">
                            <ul class="why-list">{ for x.why.iter().map(|w| html! { <li>{ super::bidi::text(w) }</li> }) }</ul>
                        </dd>
                    }
                </dl>
                { brief(summary) }
                </>
            }
        }
        (Outcome::Failed, None) => html! {
            <>
            <h2 class="verdict err" data-testid="diagnosis-verdict">{"This run failed."}</h2>
            <p>{"The analysis found no step that introduced the failure. Read the transcript, or label the critical step in Annotate."}</p>
            </>
        },
        (Outcome::Unknown, None) => html! {
            <>
            <h2 class="verdict" data-testid="diagnosis-verdict">{"The file does not say how this run ended."}</h2>
            if info.candidates.is_empty() {
                <p>{"No step looks like a critical error. If the run failed, say so in Annotate (\"This run failed\") and the analysis runs again."}</p>
            } else {
                <p>{"Beside this: the likely critical steps if this run failed. Say how it ended in Annotate (\"This run failed\") for the diagnosis."}</p>
            }
            </>
        },
    }
}

/// The brief of the file, with a copy button (the Markdown download stays in its panel).
fn brief(s: &TraceSummary) -> Html {
    if !s.analysis_done {
        return html! { <p class="muted small" aria-busy="true">{"The brief follows once every trajectory is analysed."}</p> };
    }
    if s.brief_markdown.is_empty() {
        return html! { <p class="muted small" data-testid="diagnosis-brief-noop">{"Brief: no-op (no valid case)."}</p> };
    }
    let md = s.brief_markdown.clone();
    let copy = {
        let md = md.clone();
        Callback::from(move |_| {
            let clip = gloo::utils::window().navigator().clipboard();
            let _ = clip.write_text(&md);
        })
    };
    html! {
        <details class="dbrief" open=true>
            <summary>{"Failure Prevention Brief"}</summary>
            <pre data-testid="diagnosis-brief" tabindex="0" aria-label="Failure Prevention Brief">{ super::bidi::text(&md) }</pre>
            <button class="button" data-testid="diagnosis-copy-brief" onclick={copy}>{"Copy brief"}</button>
        </details>
    }
}
