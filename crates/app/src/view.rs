//! The root component: the top bar, the work queue of loaded files and trajectories, and the
//! review of the selected trajectory. State lives in one reducer composed of one part per
//! concern ([`state`]); the side effects are hooks ([`hooks`]); the worker's answers arrive as
//! [`Action::Worker`].

pub(crate) mod bidi;
mod compare;
mod ctx;
mod dataset_mount;
mod diagnosis;
mod hooks;
mod list;
mod markdown;
mod panels;
mod queue;
pub mod state;
mod timeline;
mod transcript;

use std::rc::Rc;

use web_sys::{HtmlInputElement, HtmlTextAreaElement};
use yew::prelude::*;

use crate::protocol::Request;
use ctx::{load_url, text_blob, Ctx};
pub use state::{
    Action, FileStatus, LabelAction, Mode, NavAction, PageAction, QueueAction, SearchAction, State,
};

/// The bundled sample trace, relative to the page so a sub-path deployment works.
const SAMPLE_URL: &str = "samples/sample.awtl.jsonl";

#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(State::default);
    let ctx = use_memo((), |_| Ctx::new());
    let ctx: Ctx = (*ctx).clone();
    let search_ref = use_node_ref();
    let paste_ref = use_node_ref();

    hooks::use_bridge(&ctx, &state);
    hooks::use_url(&ctx, &state);
    hooks::use_columns(&ctx, &state);
    hooks::use_search(&ctx, &state);
    hooks::use_keyboard(&state, &search_ref);
    hooks::use_paste(&ctx, &state);

    let on_files = {
        let (ctx, dispatch) = (ctx.clone(), state.dispatcher());
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            ctx.load_items(&dispatch, crate::gather::files_of_picker(input.files()));
            input.set_value("");
        })
    };
    let on_sample = {
        let (ctx, dispatch) = (ctx.clone(), state.dispatcher());
        Callback::from(move |_| load_url(ctx.clone(), dispatch.clone(), SAMPLE_URL.into()))
    };
    let on_drop = {
        let (ctx, dispatch) = (ctx.clone(), state.dispatcher());
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            dispatch.dispatch(PageAction::DragOver(false).into());
            let Some(dt) = e.data_transfer() else { return };
            // The entries now: the drop's items are gone once this handler returns.
            let dropped = crate::gather::dropped(&dt);
            let (ctx, dispatch) = (ctx.clone(), dispatch.clone());
            wasm_bindgen_futures::spawn_local(async move {
                let items = crate::gather::files_of_drop(dropped).await;
                ctx.load_items(&dispatch, items);
            });
        })
    };
    let on_dragover = {
        let dispatch = state.dispatcher();
        let over = state.page.drag_over;
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            if !over {
                dispatch.dispatch(PageAction::DragOver(true).into());
            }
        })
    };
    let on_dragleave = {
        let dispatch = state.dispatcher();
        Callback::from(move |e: DragEvent| {
            if e.related_target().is_none() {
                dispatch.dispatch(PageAction::DragOver(false).into());
            }
        })
    };
    let on_paste_load = {
        let (ctx, dispatch, paste_ref) = (ctx.clone(), state.dispatcher(), paste_ref.clone());
        Callback::from(move |_| {
            if let Some(area) = paste_ref.cast::<HtmlTextAreaElement>() {
                let text = area.value();
                if !text.trim().is_empty() {
                    if let Some(blob) = text_blob(&text) {
                        ctx.load(&dispatch, "pasted.jsonl".into(), blob);
                        area.set_value("");
                        dispatch.dispatch(PageAction::TogglePaste.into());
                    }
                }
            }
        })
    };
    let toggle_paste = {
        let dispatch = state.dispatcher();
        Callback::from(move |_| dispatch.dispatch(PageAction::TogglePaste.into()))
    };
    let toggle_help = {
        let dispatch = state.dispatcher();
        Callback::from(move |_| dispatch.dispatch(PageAction::ToggleHelp.into()))
    };

    html! {
        <div class={classes!("app", state.page.drag_over.then_some("drag-over"))} data-state={state.attr()}
             data-reading={state.queue.any_reading().then_some("true")}
             ondrop={on_drop} ondragover={on_dragover} ondragleave={on_dragleave}>
            <header class="topbar" role="banner">
                <h1>{"trajscope"}</h1>
                <label class="button">
                    {"Open traces…"}
                    <input type="file" multiple=true data-testid="file-input" onchange={on_files.clone()}
                           aria-label="Open trace files" />
                </label>
                <label class="button" title="Every trace in a folder and its subfolders">
                    {"Open folder…"}
                    <input type="file" multiple=true webkitdirectory=true data-testid="folder-input"
                           onchange={on_files} aria-label="Open a folder of traces" />
                </label>
                <button class="button" data-testid="load-sample" onclick={on_sample}>{"Load sample trace"}</button>
                <button class="button" data-testid="paste-toggle" onclick={toggle_paste}
                        aria-expanded={state.page.paste_open.to_string()}>{"Paste JSONL"}</button>
                { mode_switch(&state) }
                <span class="spacer" />
                <button class="button" data-testid="help-toggle" onclick={toggle_help}
                        aria-label="Keyboard shortcuts" title="Keyboard shortcuts (?)">{"?"}</button>
            </header>
            if state.page.paste_open {
                <section class="paste" aria-label="Paste a trace">
                    <textarea ref={paste_ref} data-testid="paste-text" rows="6"
                              placeholder="Paste JSONL here (one event per line)" aria-label="JSONL text" />
                    <button class="button" data-testid="paste-load" onclick={on_paste_load}>{"Load pasted text"}</button>
                </section>
            }
            if let Some(n) = &state.page.notice {
                <p class="notice error" role="alert" data-testid="notice">{ n.clone() }</p>
            }
            <div class="layout">
                { panels::queue(&state, &ctx, state.dispatcher()) }
                <main class={classes!("review", (state.page.mode == Mode::Compare).then_some("comparing"))} id="review">
                    if state.page.mode == Mode::Compare {
                        { compare::view(&state, &ctx) }
                    } else {
                        { review(&state, &ctx, search_ref.clone()) }
                    }
                </main>
            </div>
            if state.page.help_open { { panels::help(state.dispatcher()) } }
            if let Some(s) = state.page.source.clone() { { panels::source(&s, state.dispatcher()) } }
        </div>
    }
}

fn review(state: &UseReducerHandle<State>, ctx: &Ctx, search_ref: NodeRef) -> Html {
    let Some((file, _)) = state.sel() else {
        let files = &state.queue.files;
        return match (0..files.len()).rev().map(|i| &files[i]).find_map(|f| match &f.status {
            FileStatus::Loading { .. } => Some(panels::progress(f, ctx)),
            FileStatus::Ready(s) if s.reading.is_some() => Some(panels::progress(f, ctx)),
            _ => None,
        }) {
            Some(p) => p,
            None => panels::empty(state),
        };
    };
    let Some(entry) = state.queue.files.by_id(file) else { return html! {} };
    let FileStatus::Ready(summary) = &entry.status else { return html! {} };
    let critical = state
        .sel()
        .and_then(|(_, t)| summary.trajectories.get(t as usize))
        .and_then(|t| t.critical.as_ref())
        .map(|c| c.step);
    let reviewing = state.page.mode == Mode::Review;
    // One tree for both modes, so the label form (and what is typed in it) stays mounted.
    html! {
        <>
        { for state.queue.files.iter().filter(|f| f.reading().is_some()).map(|f| panels::progress(f, ctx)) }
        if reviewing { { diagnosis::card(state, summary) } }
        { panels::overview(state, entry, summary) }
        { timeline::strip(state) }
        { panels::toolbar(state, search_ref) }
        <div class={classes!("columns", if reviewing { "reviewing" } else { "annotating" })}>
            <section class="trajectory" aria-label="Transcript">
                { list::view(state, ctx, critical) }
            </section>
            <aside class="side" aria-label={if reviewing { "Quarantine and brief" } else { "Label" }}>
                <div class="annotate-slot" hidden={reviewing}>
                    { annotate_mount(state, ctx, file, summary) }
                </div>
                if reviewing {
                    { panels::quarantine(summary, entry.id, ctx) }
                    { panels::brief(summary) }
                }
            </aside>
        </div>
        </>
    }
}

/// Review / Annotate / Compare, in the top bar (`r` / `a` / `v`).
fn mode_switch(state: &UseReducerHandle<State>) -> Html {
    let button = |m: Mode, name: &str, key: &str, testid: &str| {
        let d = state.dispatcher();
        let on = state.page.mode == m;
        html! {
            <button class={classes!("button", "mode", on.then_some("active"))} data-testid={testid.to_string()}
                    aria-pressed={on.to_string()} title={format!("{name} ({key})")}
                    onclick={Callback::from(move |_| d.dispatch(PageAction::SetMode(m).into()))}>{ name.to_string() }</button>
        }
    };
    html! {
        <div class="group modes" role="group" aria-label="Mode">
            { button(Mode::Review, "Review", "r", "mode-review") }
            { button(Mode::Annotate, "Annotate", "a", "mode-annotate") }
            { button(Mode::Compare, "Compare", "v", "mode-compare") }
        </div>
    }
}

/// The annotation panel (crate::annotate) for the selected trajectory.
fn annotate_mount(
    state: &UseReducerHandle<State>,
    ctx: &Ctx,
    file: u32,
    summary: &crate::protocol::TraceSummary,
) -> Html {
    let Some((_, traj)) = state.sel() else { return html! {} };
    let (Some(info), Some(columns)) =
        (summary.trajectories.get(traj as usize), state.nav.columns.as_ref())
    else {
        return html! {};
    };
    let actors: Rc<Vec<String>> = Rc::new(
        columns
            .actor
            .iter()
            .map(|&a| columns.actors.get(usize::from(a)).cloned().unwrap_or_default())
            .collect(),
    );
    let candidates: Rc<Vec<u32>> =
        Rc::new(state.selection.candidates.iter().map(|c| c.step).collect());
    let on_change = {
        let d = state.dispatcher();
        let ctx = ctx.clone();
        Callback::from(move |l: trajscope_core::labels::Label| {
            // The label's outcome is the reviewer's word: the worker analyses again with it (a
            // no-op when it changes nothing).
            let (trajectory_id, outcome) = (l.trajectory_id.clone(), l.outcome);
            ctx.send(&Request::SetOutcome { file, trajectory_id, outcome });
            // A label never edited (no time stamp) is no label yet.
            if !l.time.is_empty() {
                d.dispatch(
                    LabelAction::Set {
                        file,
                        trajectory_id: l.trajectory_id,
                        critical: l.critical_step,
                    }
                    .into(),
                )
            }
        })
    };
    let on_select_step = {
        let d = state.dispatcher();
        Callback::from(move |s: u32| d.dispatch(NavAction::Go(s).into()))
    };
    if summary.content_hash.is_empty() {
        // Labels belong to the file's identity: until its hash arrives, they wait.
        return html! {
            <section class="annotate-mount" aria-label="Annotate">
                <p class="muted" data-testid="identity-pending" aria-busy="true">{"Computing the file's identity (SHA-256)… labels follow."}</p>
            </section>
        };
    }
    html! {
        <section class="annotate-mount" aria-label="Annotate">
            <crate::annotate::Annotate content_hash={summary.content_hash.clone()}
                trajectory_id={info.id.clone()} step_actors={actors} selected_step={state.nav.step}
                {candidates} mark_signal={state.labels.mark_count} {on_change} {on_select_step}
                reload={crate::annotate::dataset::imports()} />
            { dataset_mount::panel(state, ctx) }
        </section>
    }
}
