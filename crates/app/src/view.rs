//! The root component: loading (file input, drop, bundled sample) and the first views of a
//! trace (overview, quarantine count, steps).

use std::rc::Rc;

use trajscope_core::model::Step;
use trajscope_core::{IngestOptions, Ingestor, Trace};
use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::load::{fetch_blob, read_blob_into};

/// The bundled sample trace, relative to the page so a sub-path deployment works.
const SAMPLE_URL: &str = "samples/sample.awtl.jsonl";
/// Steps shown in this first slice (the virtualised list replaces this cap).
const MAX_STEPS_SHOWN: usize = 2000;
const PREVIEW_CHARS: usize = 600;

#[derive(Clone, PartialEq)]
enum LoadState {
    Empty,
    Loading { name: String, read: f64, total: f64 },
    Ready { name: String, trace: Rc<Trace>, content_hash: String },
    Error(String),
}

impl LoadState {
    fn attr(&self) -> &'static str {
        match self {
            LoadState::Empty => "empty",
            LoadState::Loading { .. } => "loading",
            LoadState::Ready { .. } => "ready",
            LoadState::Error(_) => "error",
        }
    }
}

fn start_load(
    state: UseStateHandle<LoadState>,
    name: String,
    blob: Option<web_sys::Blob>,
    url: Option<&'static str>,
) {
    state.set(LoadState::Loading { name: name.clone(), read: 0.0, total: 0.0 });
    wasm_bindgen_futures::spawn_local(async move {
        let blob = match (blob, url) {
            (Some(b), _) => Ok(b),
            (None, Some(u)) => fetch_blob(u).await,
            (None, None) => Err("nothing to load".to_string()),
        };
        let blob = match blob {
            Ok(b) => b,
            Err(e) => return state.set(LoadState::Error(e)),
        };
        let mut ingestor = Ingestor::new(IngestOptions::default());
        let progress_state = state.clone();
        let progress_name = name.clone();
        let result = read_blob_into(&blob, &mut ingestor, |read, total| {
            progress_state.set(LoadState::Loading { name: progress_name.clone(), read, total });
        })
        .await;
        match result {
            Ok(()) => {
                // --- annotate mount (labels helper): the label identity; the app's own ingest
                // loop should feed `labels::ContentHasher` the same chunks instead.
                let content_hash = crate::storage::hash_blob(&blob).await.unwrap_or_default();
                let trace = Rc::new(ingestor.finish());
                state.set(LoadState::Ready { name, trace, content_hash })
            }
            Err(e) => state.set(LoadState::Error(format!("could not read {name}: {e}"))),
        }
    });
}

#[function_component(App)]
pub fn app() -> Html {
    let state = use_state(|| LoadState::Empty);

    let on_file = {
        let state = state.clone();
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            if let Some(file) = input.files().and_then(|f| f.get(0)) {
                start_load(state.clone(), file.name(), Some(file.into()), None);
            }
        })
    };
    let on_sample = {
        let state = state.clone();
        Callback::from(move |_| {
            start_load(state.clone(), "sample.awtl.jsonl".into(), None, Some(SAMPLE_URL))
        })
    };
    let on_drop = {
        let state = state.clone();
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            let file = e.data_transfer().and_then(|d| d.files()).and_then(|f| f.get(0));
            if let Some(file) = file {
                start_load(state.clone(), file.name(), Some(file.into()), None);
            }
        })
    };
    let on_dragover = Callback::from(|e: DragEvent| e.prevent_default());
    // --- annotate mount (labels helper): clicking a step row selects it for the panel.
    let selected = use_state(|| None::<u32>);
    let on_pick_step = {
        let selected = selected.clone();
        Callback::from(move |e: MouseEvent| {
            let row = e
                .target_dyn_into::<web_sys::Element>()
                .and_then(|t| t.closest("[data-testid=step]").ok().flatten());
            if let Some(s) = row.and_then(|r| r.get_attribute("data-step")?.parse().ok()) {
                selected.set(Some(s));
            }
        })
    };

    html! {
        <div class="app" data-state={state.attr()} ondrop={on_drop} ondragover={on_dragover}>
            <header class="topbar">
                <h1>{"trajscope"}</h1>
                <label class="button">
                    {"Open trace…"}
                    <input type="file" data-testid="file-input" onchange={on_file} />
                </label>
                <button class="button" data-testid="load-sample" onclick={on_sample}>{"Load sample trace"}</button>
            </header>
            <main onclick={on_pick_step}>{ body(&state, *selected) }</main>
        </div>
    }
}

fn body(state: &LoadState, selected: Option<u32>) -> Html {
    match state {
        LoadState::Empty => html! {
            <section class="empty">
                <p>{"Drop a JSONL trace of an agent run anywhere on this page, pick one, or load the sample."}</p>
                <p class="muted">{"Everything stays in your browser: nothing is uploaded."}</p>
            </section>
        },
        LoadState::Loading { name, read, total } => {
            let pct = if *total > 0.0 { read / total * 100.0 } else { 0.0 };
            html! {
                <section class="loading" aria-busy="true">
                    <p>{ format!("Reading {name}… {:.0}%", pct) }</p>
                    <progress max="100" value={format!("{pct:.0}")} />
                </section>
            }
        }
        LoadState::Error(e) => {
            html! { <section class="error" role="alert">{ e.clone() }</section> }
        }
        LoadState::Ready { name, trace, content_hash } => html! {
            <>
            { ready(name, trace) }
            { annotate_mount(trace, content_hash, selected) }
            </>
        },
    }
}

fn ready(name: &str, trace: &Trace) -> Html {
    let s = &trace.stats;
    html! {
        <>
        <section class="overview" aria-label="Overview">
            <h2>{ name.to_string() }</h2>
            <dl>
                <dt>{"format"}</dt><dd data-testid="format">{ trace.format.name() }</dd>
                <dt>{"lines"}</dt><dd>{ format!("{} ({} parsed, {} blank)", s.lines_total, s.lines_parsed, s.lines_blank) }</dd>
                <dt>{"quarantined"}</dt><dd data-testid="quarantine-count">{ s.lines_quarantined }</dd>
                <dt>{"trajectories"}</dt><dd>{ trace.trajectories.len() }</dd>
            </dl>
            if let Some(e) = &trace.error { <p class="error" role="alert">{ e.clone() }</p> }
        </section>
        <section class="quarantine" aria-label="Quarantine">
            <ul>
            { for trace.quarantine.iter().map(|q| html! {
                <li data-testid="quarantine-entry" data-line={q.line.to_string()}>
                    <span class="line">{ format!("line {}", q.line) }</span>
                    <span class="reason">{ q.reason.clone() }</span>
                    if q.truncated_tail { <span class="tag">{"truncated tail"}</span> }
                </li>
            }) }
            </ul>
        </section>
        { for trace.trajectories.iter().map(|t| html! {
            <section class="trajectory" aria-label={format!("Trajectory {}", t.id)}>
                <h3>{ format!("{} — {} steps", t.id, t.steps.len()) }</h3>
                <ol class="steps" role="list">
                    { for t.steps.iter().take(MAX_STEPS_SHOWN).map(step_row) }
                </ol>
            </section>
        }) }
        </>
    }
}

fn step_row(s: &Step) -> Html {
    let text: String = s.text.chars().take(PREVIEW_CHARS).collect();
    html! {
        <li data-testid="step" data-step={s.index.to_string()} data-line={s.loc.line.to_string()}
            class={classes!("step", s.is_error.then_some("error"))}>
            <span class="who">{ format!("#{} {:?} {}", s.index, s.kind, s.actor) }</span>
            <pre data-testid="step-text">{ text }</pre>
        </li>
    }
}

// --- annotate mount (labels helper): the annotation panel for the first trajectory, until the
// layout places it.
fn annotate_mount(trace: &Trace, content_hash: &str, selected: Option<u32>) -> Html {
    let Some(t) = trace.trajectories.first() else { return html! {} };
    let actors: Rc<Vec<String>> = Rc::new(t.steps.iter().map(|s| s.actor.clone()).collect());
    html! {
        <crate::annotate::Annotate content_hash={content_hash.to_string()}
            trajectory_id={t.id.clone()} step_actors={actors} selected_step={selected} />
    }
}
