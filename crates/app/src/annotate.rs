//! The annotation panel: mark the critical step, agent, category, phase, rationale; autosaved.
//!
//! [`Annotate`] edits the label of one trajectory (identified by the trace's content hash and the
//! trajectory id). Every change is written to local storage at once ([`crate::storage`]), so a
//! closed tab loses nothing and loading the same file again brings the label back. The panel
//! also exports the trace's labels (JSONL, Who&When-style, TRAJERRBENCH-style) and imports other
//! annotators' files to show their agreement ([`agreement_view`]). Everything is rendered as
//! text; every field has a label. The label also says how the run ended ("This run failed" /
//! "This run passed"): the reviewer's word, which the page hands to the worker so the
//! diagnosis shown is the one for that outcome.

mod agreement_view;
pub mod dataset;

use std::rc::Rc;

use trajscope_core::labels::{self, category_title, Label};
use trajscope_core::model::Outcome;
use trajscope_core::record::{Category, Phase};
use web_sys::{HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};
use yew::prelude::*;

use crate::storage;

pub use agreement_view::AgreementPanel;

/// The outcome choices of the label: the reviewer's word, or what the file says.
const OUTCOME_CHOICES: [(Outcome, &str); 3] = [
    (Outcome::Unknown, "As the file says"),
    (Outcome::Failed, "This run failed"),
    (Outcome::Passed, "This run passed"),
];

/// Candidates shown as one-click buttons (the ranked list has them all).
const MAX_CANDIDATE_BUTTONS: usize = 10;
/// The agents a list offers (the agent filter, the "Responsible agent" suggestions): a run of
/// 20,000 agents made 40,000 option nodes. The first ones in step order; any other is typed.
pub const MAX_AGENT_CHOICES: usize = 200;

#[derive(Properties, PartialEq, Clone)]
pub struct AnnotateProps {
    /// `sha256:<hex>` of the trace file (`trajscope_core::labels::ContentHasher`).
    pub content_hash: AttrValue,
    pub trajectory_id: AttrValue,
    /// The actor of each step ("" when none), indexed by step; its length is the step count.
    /// Marking a step pre-fills the responsible agent with that step's actor.
    pub step_actors: Rc<Vec<String>>,
    /// The step selected in the trajectory view, if any (what `mark-critical` marks).
    #[prop_or_default]
    pub selected_step: Option<u32>,
    /// The ranked candidate critical steps.
    #[prop_or_default]
    pub candidates: Rc<Vec<u32>>,
    /// Increment to mark the selected step critical from outside (the `c` shortcut).
    #[prop_or_default]
    pub mark_signal: u32,
    /// Called with the label after every change and when it is loaded (timeline, work queue).
    #[prop_or_default]
    pub on_change: Callback<Label>,
    /// Called when the user asks to see a step (the labelled step, a disagreement).
    #[prop_or_default]
    pub on_select_step: Callback<u32>,
    /// Changes when labels were imported ([`dataset::imports`]): the saved label is read again.
    #[prop_or_default]
    pub reload: u32,
}

fn now() -> String {
    String::from(js_sys::Date::new_0().to_iso_string())
}

fn fresh_label(props: &AnnotateProps) -> (Label, Option<String>) {
    let (saved, error) = match storage::load_label(&props.content_hash, &props.trajectory_id) {
        Ok(l) => (l, None),
        Err(e) => (None, Some(e.to_string())),
    };
    let label = saved.unwrap_or_else(|| {
        let mut l = Label::new(&props.content_hash, &props.trajectory_id);
        l.annotator = storage::load_annotator();
        l
    });
    (label, error)
}

/// What the save status line says.
#[derive(Clone, PartialEq)]
enum SaveStatus {
    Idle,
    Saved(String),
    Failed(String),
}

#[function_component(Annotate)]
pub fn annotate(props: &AnnotateProps) -> Html {
    let label = use_state(|| fresh_label(props).0);
    let status = use_state(|| SaveStatus::Idle);

    // A different trajectory or trace: load its saved label (or start an empty one).
    {
        let label = label.clone();
        let status = status.clone();
        let props = props.clone();
        let key = (props.content_hash.clone(), props.trajectory_id.clone(), props.reload);
        use_effect_with(key, move |_| {
            let (l, error) = fresh_label(&props);
            status.set(match error {
                Some(e) => SaveStatus::Failed(e),
                None if l.critical_step.is_some() || !l.time.is_empty() => {
                    SaveStatus::Saved(format!("restored the label saved at {}", l.time))
                }
                None => SaveStatus::Idle,
            });
            props.on_change.emit(l.clone());
            label.set(l);
        });
    }

    // Apply a change: stamp the time, save at once, report.
    let update = {
        let label = label.clone();
        let status = status.clone();
        let on_change = props.on_change.clone();
        Callback::from(move |f: Rc<dyn Fn(&mut Label)>| {
            let mut l = (*label).clone();
            f(&mut l);
            l.time = now();
            status.set(match storage::save_label(&l) {
                Ok(()) => SaveStatus::Saved(format!("saved in this browser at {}", l.time)),
                Err(e) => SaveStatus::Failed(e.to_string()),
            });
            on_change.emit(l.clone());
            label.set(l);
        })
    };

    let actors = props.step_actors.clone();
    let mark_step = {
        let update = update.clone();
        let actors = actors.clone();
        Callback::from(move |step: u32| {
            let actor = actors.get(step as usize).filter(|a| !a.is_empty()).cloned();
            update.emit(Rc::new(move |l: &mut Label| {
                l.critical_step = Some(step);
                if l.responsible_agent.is_none() {
                    l.responsible_agent = actor.clone();
                }
            }));
        })
    };

    // The `c` shortcut: the layout bumps `mark_signal`.
    {
        let seen = use_mut_ref(|| props.mark_signal);
        let mark_step = mark_step.clone();
        let selected = props.selected_step;
        use_effect_with(props.mark_signal, move |signal| {
            if *seen.borrow() != *signal {
                *seen.borrow_mut() = *signal;
                if let Some(s) = selected {
                    mark_step.emit(s);
                }
            }
        });
    }

    let step_count = u32::try_from(props.step_actors.len()).unwrap_or(u32::MAX);
    let on_mark_selected = {
        let mark_step = mark_step.clone();
        let selected = props.selected_step;
        Callback::from(move |_: MouseEvent| {
            if let Some(s) = selected {
                mark_step.emit(s);
            }
        })
    };
    let on_step_input = {
        let mark_step = mark_step.clone();
        let update = update.clone();
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            let text = input.value();
            if text.trim().is_empty() {
                update.emit(Rc::new(|l: &mut Label| l.critical_step = None));
            } else if let Some(s) = text.trim().parse::<u32>().ok().filter(|s| *s < step_count) {
                mark_step.emit(s);
            }
        })
    };
    let on_clear = {
        let update = update.clone();
        Callback::from(move |_: MouseEvent| {
            update.emit(Rc::new(|l: &mut Label| l.critical_step = None));
        })
    };
    let on_agent = {
        let update = update.clone();
        Callback::from(move |e: InputEvent| {
            let v = e.target_unchecked_into::<HtmlInputElement>().value();
            update.emit(Rc::new(move |l: &mut Label| {
                l.responsible_agent = Some(v.trim().to_string()).filter(|s| !s.is_empty());
            }));
        })
    };
    let on_category = {
        let update = update.clone();
        Callback::from(move |e: Event| {
            let v = e.target_unchecked_into::<HtmlSelectElement>().value();
            update.emit(Rc::new(move |l: &mut Label| l.category = labels::parse_category(&v)));
        })
    };
    let on_phase = {
        let update = update.clone();
        Callback::from(move |e: Event| {
            let v = e.target_unchecked_into::<HtmlSelectElement>().value();
            update.emit(Rc::new(move |l: &mut Label| l.phase = labels::parse_phase(&v)));
        })
    };
    let on_rationale = {
        let update = update.clone();
        Callback::from(move |e: InputEvent| {
            let v = e.target_unchecked_into::<HtmlTextAreaElement>().value();
            update.emit(Rc::new(move |l: &mut Label| l.rationale = v.clone()));
        })
    };
    let on_annotator = {
        let update = update.clone();
        let status = status.clone();
        Callback::from(move |e: InputEvent| {
            let v = e.target_unchecked_into::<HtmlInputElement>().value();
            if let Err(err) = storage::save_annotator(v.trim()) {
                status.set(SaveStatus::Failed(err.to_string()));
            }
            update.emit(Rc::new(move |l: &mut Label| l.annotator = v.trim().to_string()));
        })
    };

    let on_outcome = {
        let update = update.clone();
        move |o: Outcome| {
            let update = update.clone();
            Callback::from(move |_: Event| update.emit(Rc::new(move |l: &mut Label| l.outcome = o)))
        }
    };

    let export = {
        let label = label.clone();
        let status = status.clone();
        let hash = props.content_hash.clone();
        move |style: ExportStyle| {
            let label = label.clone();
            let status = status.clone();
            let hash = hash.clone();
            Callback::from(move |_: MouseEvent| {
                // Every saved label of this trace file, and the panel's own label when storage
                // could not keep it. An untouched label is no answer and is not exported.
                let mut all = storage::labels_of_trace(&hash).unwrap_or_default();
                let edited = !label.time.is_empty();
                if edited && !all.iter().any(|l| l.trajectory_id == label.trajectory_id) {
                    all.push((*label).clone());
                }
                if all.is_empty() {
                    status.set(SaveStatus::Failed(
                        "Nothing to export yet: mark a critical step (or \"No critical step\") first."
                            .into(),
                    ));
                    return;
                }
                let (name, text) = style.render(&hash, &all);
                if let Err(e) = crate::download::save_text(&name, "application/x-ndjson", &text) {
                    status.set(SaveStatus::Failed(e));
                }
            })
        }
    };

    let l = &*label;
    let agents = agent_choices(&props.step_actors);
    let list_id = format!("annotate-agents-{}", props.trajectory_id);
    let selected_text = match props.selected_step {
        Some(s) => format!("Mark step {s} critical"),
        None => "Mark the selected step critical".to_string(),
    };
    html! {
        <section class="annotate" aria-labelledby="annotate-heading" data-testid="annotate">
            <h2 id="annotate-heading">{"Label"}</h2>
            <fieldset class="annotate-outcome" data-testid="label-outcome"
                data-outcome={trajscope_core::outcome::outcome_name(l.outcome)}>
                <legend>{"How the run ended"}</legend>
                { for OUTCOME_CHOICES.iter().map(|&(o, text)| {
                    let name = trajscope_core::outcome::outcome_name(o);
                    html! {
                        <label class="choice">
                            <input type="radio" name={format!("outcome-{}", props.trajectory_id)}
                                value={name} data-testid={format!("label-outcome-{name}")}
                                checked={l.outcome == o} onchange={on_outcome(o)} />
                            { text }
                        </label>
                    }
                }) }
            </fieldset>
            <p class="label-critical" data-testid="label-critical" aria-live="polite"
               data-step={l.critical_step.map(|s| s.to_string())}>
                { crate::view::bidi::text(&critical_text(l, &props.step_actors)) }
            </p>
            <div class="annotate-row">
                <button class="button primary" data-testid="mark-critical" onclick={on_mark_selected}
                    disabled={props.selected_step.is_none()} aria-keyshortcuts="c"
                    title="Mark the selected step as the critical step (c)">
                    { selected_text }
                </button>
                if let Some(s) = l.critical_step {
                    <button class="button" data-testid="show-critical"
                        onclick={props.on_select_step.reform(move |_: MouseEvent| s)}>
                        {"Show it"}
                    </button>
                }
                <button class="button" data-testid="clear-critical" onclick={on_clear}
                    title="Record that this trajectory has no critical step"
                    disabled={l.critical_step.is_none() && !l.time.is_empty()}>{"No critical step"}</button>
            </div>
            if !props.candidates.is_empty() {
                <div class="annotate-row" role="group" aria-label="Mark a candidate critical">
                    <span class="muted">{"Candidates:"}</span>
                    { for props.candidates.iter().take(MAX_CANDIDATE_BUTTONS).map(|&c| {
                        let mark_step = mark_step.clone();
                        html! {
                            <button class={classes!("button", "chip", (l.critical_step == Some(c)).then_some("on"))}
                                data-testid="mark-candidate" data-step={c.to_string()}
                                aria-pressed={(l.critical_step == Some(c)).to_string()}
                                onclick={Callback::from(move |_: MouseEvent| mark_step.emit(c))}>
                                { format!("step {c}") }
                            </button>
                        }
                    }) }
                </div>
            }
            <div class="annotate-fields">
                <label>
                    <span>{"Critical step"}</span>
                    <input type="number" min="0" max={step_count.saturating_sub(1).to_string()}
                        data-testid="label-step" onchange={on_step_input}
                        value={l.critical_step.map(|s| s.to_string()).unwrap_or_default()} />
                </label>
                <label>
                    <span>{"Responsible agent"}</span>
                    <input type="text" list={list_id.clone()} data-testid="label-agent"
                        value={l.responsible_agent.clone().unwrap_or_default()} oninput={on_agent}
                        placeholder="pick or type" autocomplete="off" />
                    <datalist id={list_id}>
                        { for agents.iter().map(|a| html! { <option value={a.clone()} /> }) }
                    </datalist>
                </label>
                <label>
                    <span>{"Error category"}</span>
                    <select data-testid="label-category" onchange={on_category}>
                        <option value="" selected={l.category.is_none()}>{"—"}</option>
                        { for Category::ALL.iter().map(|c| html! {
                            <option value={c.name()} selected={l.category == Some(*c)}>{ category_title(*c) }</option>
                        }) }
                    </select>
                </label>
                <label>
                    <span>{"Phase"}</span>
                    <select data-testid="label-phase" onchange={on_phase}>
                        <option value="" selected={l.phase.is_none()}>{"—"}</option>
                        { for Phase::ALL.iter().map(|p| html! {
                            <option value={p.name()} selected={l.phase == Some(*p)}>{ p.name() }</option>
                        }) }
                    </select>
                </label>
                <label>
                    <span>{"Annotator"}</span>
                    <input type="text" data-testid="label-annotator" value={l.annotator.clone()}
                        oninput={on_annotator} autocomplete="name" placeholder="your name" />
                </label>
                <label class="wide">
                    <span>{"Rationale"}</span>
                    <textarea data-testid="label-rationale" rows="3" value={l.rationale.clone()}
                        oninput={on_rationale} placeholder="Why this step is the decisive mistake" />
                </label>
            </div>
            { status_line(&status) }
            <div class="annotate-row" role="group" aria-label="Export labels">
                <span class="muted">{"Export this trace's labels:"}</span>
                <button class="button" data-testid="export-labels" onclick={export(ExportStyle::Labels)}>
                    {"Labels JSONL"}
                </button>
                <button class="button" data-testid="export-who-and-when" onclick={export(ExportStyle::WhoAndWhen)}>
                    {"Who&When-style"}
                </button>
                <button class="button" data-testid="export-trajerrbench" onclick={export(ExportStyle::Trajerrbench)}>
                    {"TRAJERRBENCH-style"}
                </button>
            </div>
            <AgreementPanel mine={(*label).clone()} on_select_step={props.on_select_step.clone()} />
        </section>
    }
}

fn status_line(status: &SaveStatus) -> Html {
    match status {
        SaveStatus::Idle => html! {
            <p class="muted" role="status" data-testid="label-status">{"Labels are saved in this browser as you edit."}</p>
        },
        SaveStatus::Saved(msg) => html! {
            <p class="muted" role="status" data-testid="label-status">{ format!("Label {msg}.") }</p>
        },
        SaveStatus::Failed(msg) => html! {
            <p class="error" role="alert" data-testid="label-status">{ msg.clone() }</p>
        },
    }
}

/// "Critical step: 7 (by WebSurfer)" or "No critical step marked".
fn critical_text(l: &Label, actors: &[String]) -> String {
    match l.critical_step {
        Some(s) => {
            let who = l
                .responsible_agent
                .clone()
                .or_else(|| actors.get(s as usize).filter(|a| !a.is_empty()).cloned());
            match who {
                Some(w) => format!("Critical step: {s} (agent {w})"),
                None => format!("Critical step: {s}"),
            }
        }
        None if l.time.is_empty() => "No critical step marked yet".to_string(),
        None => "Marked: no critical step".to_string(),
    }
}

/// The distinct non-empty actors, in order of first appearance.
fn agent_choices(actors: &[String]) -> Vec<String> {
    let mut seen: Vec<&str> = Vec::new();
    for a in actors {
        if seen.len() == MAX_AGENT_CHOICES {
            break;
        }
        if !a.is_empty() && !seen.contains(&a.as_str()) {
            seen.push(a);
        }
    }
    seen.into_iter().map(str::to_string).collect()
}

#[derive(Clone, Copy)]
enum ExportStyle {
    Labels,
    WhoAndWhen,
    Trajerrbench,
}

impl ExportStyle {
    /// File name and content of an export.
    fn render(self, hash: &str, labels: &[Label]) -> (String, String) {
        let short: String = hash.trim_start_matches("sha256:").chars().take(12).collect();
        match self {
            ExportStyle::Labels => (format!("labels-{short}.jsonl"), labels::to_jsonl(labels)),
            ExportStyle::WhoAndWhen => (
                format!("labels-{short}.who-and-when.jsonl"),
                labels::to_who_and_when_jsonl(labels),
            ),
            ExportStyle::Trajerrbench => (
                format!("labels-{short}.trajerrbench.jsonl"),
                labels::to_trajerrbench_jsonl(labels),
            ),
        }
    }
}
