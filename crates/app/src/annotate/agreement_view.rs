//! Importing other annotators' label files and showing their agreement on the critical step:
//! exact and ±1 step, Cohen's kappa (two annotators, and every pair), Fleiss' kappa, and the
//! items they disagree on. Imported labels stay in memory; bad lines are listed, not fatal.

use std::rc::Rc;

use trajscope_core::labels::{self, Agreement, ImportOptions, ImportProblem, ItemKey, Label};
use wasm_bindgen::JsCast as _;
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// Problems listed per file (the count says how many in all).
const MAX_PROBLEMS_SHOWN: usize = 5;
const MAX_DISAGREEMENTS_SHOWN: usize = 200;

#[derive(Clone, PartialEq)]
struct ImportedFile {
    name: String,
    labels: Vec<Label>,
    problems: Vec<ImportProblem>,
}

#[derive(Clone, PartialEq, Default)]
struct Imports {
    files: Vec<ImportedFile>,
}

enum ImportAction {
    Add(ImportedFile),
    Clear,
}

impl Reducible for Imports {
    type Action = ImportAction;
    fn reduce(self: Rc<Self>, action: ImportAction) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            ImportAction::Add(f) => next.files.push(f),
            ImportAction::Clear => next.files.clear(),
        }
        Rc::new(next)
    }
}

#[derive(Properties, PartialEq)]
pub struct AgreementProps {
    /// This browser's label of the current trajectory (may be included in the comparison).
    pub mine: Label,
    #[prop_or_default]
    pub on_select_step: Callback<u32>,
}

/// The file's name without its extensions: the annotator of labels that name none.
fn stem(name: &str) -> String {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    base.split('.').next().filter(|s| !s.is_empty()).unwrap_or(base).to_string()
}

async fn read_file(file: web_sys::File) -> ImportedFile {
    let name = file.name();
    let bytes = match wasm_bindgen_futures::JsFuture::from(file.array_buffer()).await {
        Ok(buf) => js_sys::Uint8Array::new(&buf).to_vec(),
        Err(_) => {
            return ImportedFile {
                name,
                labels: Vec::new(),
                problems: vec![ImportProblem { line: 0, reason: "could not read the file".into() }],
            }
        }
    };
    let opts =
        ImportOptions { default_annotator: stem(&name), file_hash: labels::content_hash(&bytes) };
    let got = labels::import(&bytes, &opts);
    ImportedFile { name, labels: got.labels, problems: got.problems }
}

#[function_component(AgreementPanel)]
pub fn agreement_panel(props: &AgreementProps) -> Html {
    let imports = use_reducer(Imports::default);
    let include_mine = use_state(|| false);

    let on_files = {
        let imports = imports.clone();
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            let Some(list) = input.files() else { return };
            for i in 0..list.length() {
                let Some(file) = list.get(i) else { continue };
                let imports = imports.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    imports.dispatch(ImportAction::Add(read_file(file).await));
                });
            }
            // Picking the same file again fires `change` again.
            input.set_value("");
        })
    };
    let on_clear = {
        let imports = imports.clone();
        Callback::from(move |_: MouseEvent| imports.dispatch(ImportAction::Clear))
    };
    let on_include = {
        let include_mine = include_mine.clone();
        Callback::from(move |e: Event| {
            let checked = e
                .target()
                .and_then(|t| t.dyn_into::<HtmlInputElement>().ok())
                .is_some_and(|i| i.checked());
            include_mine.set(checked);
        })
    };

    let mut all: Vec<Label> = imports.files.iter().flat_map(|f| f.labels.iter().cloned()).collect();
    // "Mine" counts once it was edited (a label with no critical step is an answer too).
    if *include_mine && !props.mine.time.is_empty() {
        all.push(props.mine.clone());
    }
    let agreement = (!all.is_empty()).then(|| labels::agreement(&all));

    html! {
        <section class="agreement" aria-labelledby="agreement-heading" data-testid="agreement-panel">
            <h3 id="agreement-heading">{"Agreement between annotators"}</h3>
            <div class="annotate-row">
                <label class="button">
                    {"Import label files…"}
                    <input type="file" multiple=true accept=".jsonl,.json,.ndjson,application/json"
                        data-testid="import-labels" onchange={on_files} />
                </label>
                <label class="check">
                    <input type="checkbox" data-testid="agreement-include-mine"
                        checked={*include_mine} onchange={on_include} />
                    {"include my label for this trajectory"}
                </label>
                if !imports.files.is_empty() {
                    <button class="button" data-testid="clear-imports" onclick={on_clear}>{"Clear imports"}</button>
                }
            </div>
            if imports.files.is_empty() {
                <p class="muted">{"Import two or more annotators' label files (labels JSONL, Who&When-style or TRAJERRBENCH-style) to compare them."}</p>
            } else {
                <ul class="imported" aria-label="Imported label files">
                    { for imports.files.iter().map(file_row) }
                </ul>
            }
            if let Some(a) = agreement { { figures(&a, &props.mine.item(), &props.on_select_step) } }
        </section>
    }
}

fn file_row(f: &ImportedFile) -> Html {
    // Each name once, in order (sorted and deduplicated: no `BTreeSet` type in the bundle).
    let mut names: Vec<&str> = f.labels.iter().map(|l| l.annotator.as_str()).collect();
    trajscope_core::sort::sort(&mut names);
    names.dedup();
    html! {
        <li data-testid="imported-file">
            { format!("{}: {} label(s) by {}", f.name, f.labels.len(), if names.is_empty() { "nobody".to_string() } else { names.join(", ") }) }
            if !f.problems.is_empty() {
                <span class="error">{ format!(" — {} line(s) not read", f.problems.len()) }</span>
                <ul class="problems">
                    { for f.problems.iter().take(MAX_PROBLEMS_SHOWN).map(|p| html! {
                        <li data-testid="import-problem">{ format!("line {}: {}", p.line, p.reason) }</li>
                    }) }
                </ul>
            }
        </li>
    }
}

fn share(v: Option<f64>, of: usize) -> String {
    match v {
        Some(x) => format!("{:.1} % ({} of {of})", x * 100.0, (x * of as f64).round() as usize),
        None => "—".to_string(),
    }
}

fn kappa(v: Option<f64>, why_none: &str) -> String {
    v.map_or_else(|| why_none.to_string(), |k| format!("{k:.3}"))
}

fn step(s: Option<u32>) -> String {
    s.map_or_else(|| "none".to_string(), |s| s.to_string())
}

/// `current`: the trajectory on screen; its disagreed steps are buttons that show the step.
fn figures(a: &Agreement, current: &ItemKey, on_select_step: &Callback<u32>) -> Html {
    let n = a.items_compared;
    if a.annotators.len() < 2 {
        return html! {
            <p class="muted" data-testid="agreement-note">
                { format!("Only one annotator ({}) so far: import another annotator's file.", a.annotators.join(", ")) }
            </p>
        };
    }
    let undefined =
        if n == 0 { "— (no item labelled by all)" } else { "undefined (every answer the same)" };
    let cohen = if a.annotators.len() == 2 {
        kappa(a.cohen_kappa, undefined)
    } else {
        "— (two annotators only; see pairs)".to_string()
    };
    html! {
        <>
        <dl class="figures" data-testid="agreement">
            <dt>{"annotators"}</dt><dd data-testid="agreement-annotators">{ a.annotators.join(", ") }</dd>
            <dt>{"labelled by all"}</dt>
            <dd data-testid="agreement-items">{ format!("{n} of {}", a.items_labelled) }</dd>
            <dt>{"exact step"}</dt><dd data-testid="agreement-exact">{ share(a.exact, n) }</dd>
            <dt>{"within ±1 step"}</dt><dd data-testid="agreement-within-one">{ share(a.within_one, n) }</dd>
            <dt>{"Cohen's κ"}</dt><dd data-testid="agreement-cohen">{ cohen }</dd>
            <dt>{"Fleiss' κ"}</dt><dd data-testid="agreement-fleiss">{ kappa(a.fleiss_kappa, undefined) }</dd>
            <dt>{"same agent"}</dt><dd data-testid="agreement-agent">{ share(a.agent_exact, a.agent_items) }</dd>
        </dl>
        if a.pairs.len() > 1 {
            <div class="table-wrap"><table class="pairs" aria-label="Agreement by pair of annotators">
                <thead><tr><th scope="col">{"pair"}</th><th scope="col">{"items"}</th><th scope="col">{"exact"}</th><th scope="col">{"±1"}</th><th scope="col">{"Cohen's κ"}</th></tr></thead>
                <tbody>
                { for a.pairs.iter().map(|p| html! {
                    <tr data-testid="agreement-pair">
                        <td>{ format!("{} / {}", p.a, p.b) }</td>
                        <td>{ p.items }</td>
                        <td>{ share(p.exact, p.items) }</td>
                        <td>{ share(p.within_one, p.items) }</td>
                        <td>{ kappa(p.cohen_kappa, "undefined") }</td>
                    </tr>
                }) }
                </tbody>
            </table></div>
        }
        <h4>{ format!("Disagreements ({})", a.disagreements.len()) }</h4>
        if a.disagreements.is_empty() {
            <p class="muted" data-testid="no-disagreements">{"None: every item labelled by all has the same critical step."}</p>
        } else {
            <div class="table-wrap"><table class="disagreements" aria-label="Disagreements on the critical step">
                <thead><tr>
                    <th scope="col">{"trajectory"}</th>
                    { for a.annotators.iter().map(|n| html! { <th scope="col">{ n.clone() }</th> }) }
                    <th scope="col">{"spread"}</th>
                </tr></thead>
                <tbody>
                { for a.disagreements.iter().take(MAX_DISAGREEMENTS_SHOWN).map(|d| html! {
                    <tr data-testid="disagreement" data-trajectory={d.item.trajectory_id.clone()}>
                        <th scope="row">{ d.item.trajectory_id.clone() }</th>
                        { for d.answers.iter().map(|ans| {
                            let agent = ans.responsible_agent.clone().map(|g| format!(" ({g})")).unwrap_or_default();
                            match ans.critical_step {
                                Some(s) if d.item == *current => html! { <td>
                                    <button class="link" onclick={on_select_step.reform(move |_: MouseEvent| s)}
                                        title="show this step">{ format!("{}{agent}", step(Some(s))) }</button>
                                </td> },
                                s => html! { <td>{ format!("{}{agent}", step(s)) }</td> },
                            }
                        }) }
                        <td>{ d.spread.map_or_else(|| "—".to_string(), |s| s.to_string()) }</td>
                    </tr>
                }) }
                </tbody>
            </table></div>
        }
        </>
    }
}
