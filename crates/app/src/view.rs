//! The root component: the work queue of loaded files and trajectories, the review of the
//! selected trajectory, keyboard shortcuts and the URL hash. State lives in one reducer
//! ([`State`]); the worker's answers arrive as [`Action::Worker`].

mod compare;
mod diagnosis;
mod list;
mod markdown;
mod panels;
mod queue;
mod state;
mod timeline;
mod transcript;

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use wasm_bindgen::JsCast as _;
use web_sys::{HtmlInputElement, HtmlTextAreaElement};
use yew::prelude::*;

use crate::bridge::Bridge;
use crate::download::save_text;
use crate::protocol::{Grain, Request, Response};
pub use state::{Action, FileStatus, Mode, State};

/// The bundled sample trace, relative to the page so a sub-path deployment works.
const SAMPLE_URL: &str = "samples/sample.awtl.jsonl";

/// (file, trajectory, step, grain) of a step text asked of the worker.
type StepKey = (u32, u32, u32, Grain);

/// What the app shares with its parts: the worker and the ids it hands out.
#[derive(Clone)]
pub struct Ctx {
    bridge: Rc<RefCell<Option<Bridge>>>,
    next_file: Rc<RefCell<u32>>,
    next_req: Rc<RefCell<u32>>,
    requested: Rc<RefCell<HashSet<StepKey>>>,
    /// The id of the last request of each kind whose answer replaces the one before (columns,
    /// search): an answer with another id is stale and dropped. (Each quarantine export and
    /// each window of step texts is wanted, so those are not matched this way.)
    latest: Rc<RefCell<HashMap<Asked, u32>>>,
}

/// Requests of which only the last one's answer counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Asked {
    Columns,
    Search,
}

impl Asked {
    /// The kind of request `resp` answers and its id, for those answers only the last counts.
    fn of(resp: &Response) -> Option<(Asked, u32)> {
        match resp {
            Response::Columns { req, .. } => Some((Asked::Columns, *req)),
            Response::SearchHits { req, .. } => Some((Asked::Search, *req)),
            _ => None,
        }
    }
}

impl PartialEq for Ctx {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.bridge, &other.bridge)
    }
}

impl Ctx {
    fn send(&self, req: &Request) {
        if let Some(b) = self.bridge.borrow().as_ref() {
            b.send(req);
        }
    }

    fn req_id(&self) -> u32 {
        let mut n = self.next_req.borrow_mut();
        *n += 1;
        *n
    }

    /// A new request id for a request of kind `kind`, now the only one whose answer counts.
    fn ask(&self, kind: Asked) -> u32 {
        let req = self.req_id();
        self.latest.borrow_mut().insert(kind, req);
        req
    }

    /// False for an answer to a request of a kind asked again since.
    fn fresh(&self, resp: &Response) -> bool {
        Asked::of(resp).is_none_or(|(kind, req)| self.latest.borrow().get(&kind) == Some(&req))
    }

    /// Queues what a drop or a picker gave, archives opened into their members, in order.
    fn load_items(&self, dispatch: &UseReducerDispatcher<State>, items: Vec<crate::gather::Item>) {
        let (ctx, dispatch) = (self.clone(), dispatch.clone());
        wasm_bindgen_futures::spawn_local(async move {
            let limits = trajscope_core::ingest::Limits::default();
            for item in items {
                for one in crate::gather::expand(item, &limits).await {
                    match one {
                        crate::gather::Item::Trace { name, blob } => {
                            ctx.load(&dispatch, name, blob)
                        }
                        crate::gather::Item::Failed { name, error } => {
                            ctx.fail(&dispatch, name, error)
                        }
                    }
                }
            }
        });
    }

    /// A queue entry for something that could not be read, and why.
    fn fail(&self, dispatch: &UseReducerDispatcher<State>, name: String, error: String) {
        let id = {
            let mut n = self.next_file.borrow_mut();
            *n += 1;
            *n
        };
        dispatch.dispatch(Action::AddFile { id, name, size: 0.0 });
        dispatch.dispatch(Action::FileFailed { id, error });
    }

    /// Queues a blob for ingest under a new file id.
    fn load(&self, dispatch: &UseReducerDispatcher<State>, name: String, blob: web_sys::Blob) {
        let id = {
            let mut n = self.next_file.borrow_mut();
            *n += 1;
            *n
        };
        dispatch.dispatch(Action::AddFile { id, name, size: blob.size() });
        if self.bridge.borrow().is_none() {
            // A file dropped the moment the page appears, before the effect that starts the
            // worker has run: start it now (its queue holds the request until it is ready).
            start_bridge(self, dispatch.clone());
        }
        match self.bridge.borrow().as_ref() {
            Some(b) => b.send_with(&Request::Load { file: id }, Some(&blob)),
            None => dispatch.dispatch(Action::FileFailed {
                id,
                error: "the ingest worker is not running".into(),
            }),
        }
    }
}

/// Restores what the saved labels of `file` say once its identity `hash` is known (with
/// `Loaded`, or with `Identity` for a large file): the queue marks labelled trajectories, and a
/// saved "this run failed" / "passed" holds for the reloaded file too.
fn restore_labels(ctx: &Ctx, d: &UseReducerDispatcher<State>, file: u32, hash: &str) {
    if hash.is_empty() {
        return;
    }
    let saved = crate::storage::labels_of_trace(hash).unwrap_or_default();
    for l in saved.into_iter().filter(|l| !l.time.is_empty()) {
        if l.outcome != trajscope_core::model::Outcome::Unknown {
            let (trajectory_id, outcome) = (l.trajectory_id.clone(), l.outcome);
            ctx.send(&Request::SetOutcome { file, trajectory_id, outcome });
        }
        d.dispatch(Action::Label {
            file,
            trajectory_id: l.trajectory_id,
            critical: l.critical_step,
        });
    }
}

fn start_bridge(ctx: &Ctx, dispatch: UseReducerDispatcher<State>) {
    let d1 = dispatch.clone();
    let ctx1 = ctx.clone();
    let bridge = Bridge::new(
        move |resp| match resp {
            // An answer to a request asked again since (another trajectory, another query).
            resp if !ctx1.fresh(&resp) => {}
            Response::QuarantineJsonl { text, redacted, .. } => {
                // The name says which: the exact bytes, or secrets masked.
                let name = if redacted { "quarantine.redacted.jsonl" } else { "quarantine.jsonl" };
                if let Err(e) = save_text(name, "application/x-ndjson", &text) {
                    d1.dispatch(Action::Notice(e));
                }
            }
            Response::Loaded { file, summary } => {
                let hash = summary.content_hash.clone();
                d1.dispatch(Action::Worker(Box::new(Response::Loaded { file, summary })));
                restore_labels(&ctx1, &d1, file, &hash);
            }
            Response::Identity { file, content_hash } => {
                let hash = content_hash.clone();
                d1.dispatch(Action::Worker(Box::new(Response::Identity { file, content_hash })));
                restore_labels(&ctx1, &d1, file, &hash);
            }
            other => d1.dispatch(Action::Worker(Box::new(other))),
        },
        move |msg| dispatch.dispatch(Action::WorkerCrashed(msg)),
    );
    match bridge {
        Ok(b) => *ctx.bridge.borrow_mut() = Some(b),
        Err(e) => gloo::console::error!(e),
    }
}

/// Loads a same-origin URL (`?url=` or the bundled sample) through the worker.
fn load_url(ctx: Ctx, dispatch: UseReducerDispatcher<State>, url: String) {
    wasm_bindgen_futures::spawn_local(async move {
        let name = url.rsplit('/').next().unwrap_or("trace").to_string();
        match same_origin(&url) {
            Err(e) => dispatch.dispatch(Action::Notice(e)),
            Ok(abs) => match crate::load::fetch_blob(&abs).await {
                Ok(blob) => ctx.load(&dispatch, name, blob),
                Err(e) => dispatch.dispatch(Action::Notice(e)),
            },
        }
    });
}

/// Resolves `url` against the page and refuses another origin.
fn same_origin(url: &str) -> Result<String, String> {
    let href = gloo::utils::window().location().href().map_err(|_| "no location")?;
    let u = web_sys::Url::new_with_base(url, &href).map_err(|_| format!("not a URL: {url}"))?;
    let here = web_sys::Url::new(&href).map_err(|_| "no location")?;
    if u.origin() != here.origin() {
        return Err(format!("only traces from this site can be loaded by URL, not {}", u.origin()));
    }
    Ok(u.href())
}

#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(State::default);
    let ctx = use_memo((), |_| Ctx {
        bridge: Rc::new(RefCell::new(None)),
        next_file: Rc::new(RefCell::new(0)),
        next_req: Rc::new(RefCell::new(0)),
        requested: Rc::new(RefCell::new(HashSet::new())),
        latest: Rc::new(RefCell::new(HashMap::new())),
    });
    let ctx: Ctx = (*ctx).clone();
    let search_ref = use_node_ref();
    let paste_ref = use_node_ref();

    // Start the worker once; read `?url=` and the URL hash.
    {
        let (ctx, dispatch) = (ctx.clone(), state.dispatcher());
        use_effect_with((), move |_| {
            // Unless a file dropped before this effect ran has started it already.
            if ctx.bridge.borrow().is_none() {
                start_bridge(&ctx, dispatch.clone());
            }
            let loc = gloo::utils::window().location();
            if let Some(h) = loc.hash().ok().and_then(|h| state::HashView::parse(&h)) {
                dispatch.dispatch(Action::PendingHash(h));
            }
            let url = loc
                .search()
                .ok()
                .and_then(|s| web_sys::UrlSearchParams::new_with_str(&s).ok())
                .and_then(|p| p.get("url"));
            if let Some(url) = url {
                load_url(ctx, dispatch, url);
            }
        });
    }

    // A worker that crashed is restarted (its traces are gone; the queue says so).
    {
        let (ctx, dispatch) = (ctx.clone(), state.dispatcher());
        use_effect_with(state.crashes, move |n| {
            if *n > 0 {
                ctx.requested.borrow_mut().clear();
                start_bridge(&ctx, dispatch);
            }
        });
    }

    // Ask for the columns of the selected trajectory.
    {
        let ctx = ctx.clone();
        let need = state.sel.filter(|_| state.columns.is_none());
        use_effect_with(need, move |need| {
            if let Some((file, traj)) = *need {
                ctx.requested.borrow_mut().clear();
                let req = ctx.ask(Asked::Columns);
                ctx.send(&Request::Columns { req, file, traj });
            }
        });
    }

    // Search in the worker when the query changes.
    {
        let ctx = ctx.clone();
        let key = (state.sel, state.search.query.clone());
        use_effect_with(key, move |(sel, query)| {
            if let (Some((file, traj)), false) = (sel, query.is_empty()) {
                let req = ctx.ask(Asked::Search);
                ctx.send(&Request::Search { req, file: *file, traj: *traj, query: query.clone() });
            }
        });
    }

    // The URL hash follows the view (trajectory, step, grain; never content).
    {
        let h = state.hash_view();
        use_effect_with(h, move |h| {
            if let Some(h) = h {
                let hash = h.to_hash();
                let win = gloo::utils::window();
                if win.location().hash().ok().as_deref() != Some(hash.as_str()) {
                    if let Ok(history) = win.history() {
                        history
                            .replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&hash))
                            .ok();
                    }
                }
            }
        });
    }

    // Keyboard shortcuts.
    {
        let dispatch = state.dispatcher();
        let search_ref = search_ref.clone();
        use_effect_with((), move |_| {
            // Not passive: a handled key's default (typing `/` into the search field) is
            // prevented.
            let opts = gloo::events::EventListenerOptions::enable_prevent_default();
            let doc = gloo::utils::document();
            let listener =
                gloo::events::EventListener::new_with_options(&doc, "keydown", opts, move |e| {
                    let Some(e) = e.dyn_ref::<web_sys::KeyboardEvent>() else { return };
                    if e.ctrl_key() || e.meta_key() || e.alt_key() {
                        return;
                    }
                    let typing = e
                        .target()
                        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                        .map(|el| {
                            // A checkbox or a button keeps the shortcuts; a text field takes keys.
                            let input = el.tag_name() == "INPUT"
                                && !matches!(
                                    el.get_attribute("type").as_deref(),
                                    Some("checkbox" | "radio" | "button" | "submit" | "file")
                                );
                            input
                                || matches!(el.tag_name().as_str(), "TEXTAREA" | "SELECT")
                                || el.has_attribute("contenteditable")
                        })
                        .unwrap_or(false);
                    let key = e.key();
                    if typing {
                        if key == "Escape" {
                            if let Some(el) =
                                e.target().and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok())
                            {
                                el.blur().ok();
                            }
                        }
                        return;
                    }
                    let action = match key.as_str() {
                        "j" => Some(Action::MoveStep(1)),
                        "k" => Some(Action::MoveStep(-1)),
                        "n" => Some(Action::MoveCandidate(1)),
                        "p" => Some(Action::MoveCandidate(-1)),
                        "1" => Some(Action::SetGrain(Grain::High)),
                        "2" => Some(Action::SetGrain(Grain::Medium)),
                        "3" => Some(Action::SetGrain(Grain::Low)),
                        "c" => Some(Action::MarkCritical),
                        "r" => Some(Action::SetMode(Mode::Review)),
                        "a" => Some(Action::SetMode(Mode::Annotate)),
                        "v" => Some(Action::SetMode(Mode::Compare)),
                        "d" => Some(Action::Compare(compare::Msg::FirstDivergence)),
                        "s" => Some(Action::Compare(compare::Msg::Swap)),
                        "u" => Some(Action::NextUnlabelled),
                        "?" => Some(Action::ToggleHelp),
                        "Escape" => Some(Action::CloseHelp),
                        "/" => {
                            if let Some(input) = search_ref.cast::<HtmlInputElement>() {
                                input.focus().ok();
                                input.select();
                            }
                            None
                        }
                        _ => return,
                    };
                    e.prevent_default();
                    if let Some(a) = action {
                        dispatch.dispatch(a);
                    }
                });
            move || drop(listener)
        });
    }

    // Paste anywhere (outside a text field) loads the pasted text as a trace.
    {
        let (ctx, dispatch) = (ctx.clone(), state.dispatcher());
        use_effect_with((), move |_| {
            let listener =
                gloo::events::EventListener::new(&gloo::utils::document(), "paste", move |e| {
                    let Some(e) = e.dyn_ref::<web_sys::ClipboardEvent>() else { return };
                    let in_field = e
                        .target()
                        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                        .is_some_and(|el| matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA"));
                    if in_field {
                        return;
                    }
                    let text = e.clipboard_data().and_then(|d| d.get_data("text/plain").ok());
                    if let Some(text) = text.filter(|t| !t.trim().is_empty()) {
                        if let Some(blob) = text_blob(&text) {
                            ctx.load(&dispatch, "pasted.jsonl".into(), blob);
                        }
                    }
                });
            move || drop(listener)
        });
    }

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
            dispatch.dispatch(Action::DragOver(false));
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
        let over = state.drag_over;
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            if !over {
                dispatch.dispatch(Action::DragOver(true));
            }
        })
    };
    let on_dragleave = {
        let dispatch = state.dispatcher();
        Callback::from(move |e: DragEvent| {
            if e.related_target().is_none() {
                dispatch.dispatch(Action::DragOver(false));
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
                        dispatch.dispatch(Action::TogglePaste);
                    }
                }
            }
        })
    };
    let toggle_paste = {
        let dispatch = state.dispatcher();
        Callback::from(move |_| dispatch.dispatch(Action::TogglePaste))
    };
    let toggle_help = {
        let dispatch = state.dispatcher();
        Callback::from(move |_| dispatch.dispatch(Action::ToggleHelp))
    };

    html! {
        <div class={classes!("app", state.drag_over.then_some("drag-over"))} data-state={state.attr()}
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
                        aria-expanded={state.paste_open.to_string()}>{"Paste JSONL"}</button>
                { mode_switch(&state) }
                <span class="spacer" />
                <button class="button" data-testid="help-toggle" onclick={toggle_help}
                        aria-label="Keyboard shortcuts" title="Keyboard shortcuts (?)">{"?"}</button>
            </header>
            if state.paste_open {
                <section class="paste" aria-label="Paste a trace">
                    <textarea ref={paste_ref} data-testid="paste-text" rows="6"
                              placeholder="Paste JSONL here (one event per line)" aria-label="JSONL text" />
                    <button class="button" data-testid="paste-load" onclick={on_paste_load}>{"Load pasted text"}</button>
                </section>
            }
            if let Some(n) = &state.notice {
                <p class="notice error" role="alert" data-testid="notice">{ n.clone() }</p>
            }
            <div class="layout">
                { panels::queue(&state, &ctx, state.dispatcher()) }
                <main class={classes!("review", (state.mode == Mode::Compare).then_some("comparing"))} id="review">
                    if state.mode == Mode::Compare {
                        { compare::view(&state, &ctx) }
                    } else {
                        { review(&state, &ctx, search_ref.clone()) }
                    }
                </main>
            </div>
            if state.help_open { { panels::help(state.dispatcher()) } }
        </div>
    }
}

fn text_blob(text: &str) -> Option<web_sys::Blob> {
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    web_sys::Blob::new_with_str_sequence(&parts).ok()
}

fn review(state: &UseReducerHandle<State>, ctx: &Ctx, search_ref: NodeRef) -> Html {
    let Some((file, _)) = state.sel else {
        return match state.files.iter().rev().find_map(|f| match &f.status {
            FileStatus::Loading { .. } => Some(panels::progress(f, ctx)),
            _ => None,
        }) {
            Some(p) => p,
            None => panels::empty(state),
        };
    };
    let Some(entry) = state.files.iter().find(|f| f.id == file) else { return html! {} };
    let FileStatus::Ready(summary) = &entry.status else { return html! {} };
    let critical = state
        .sel
        .and_then(|(_, t)| summary.trajectories.get(t as usize))
        .and_then(|t| t.critical.as_ref())
        .map(|c| c.step);
    let reviewing = state.mode == Mode::Review;
    // One tree for both modes, so the label form (and what is typed in it) stays mounted.
    html! {
        <>
        { for state.files.iter().filter(|f| matches!(f.status, FileStatus::Loading { .. })).map(|f| panels::progress(f, ctx)) }
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
        let on = state.mode == m;
        html! {
            <button class={classes!("button", "mode", on.then_some("active"))} data-testid={testid.to_string()}
                    aria-pressed={on.to_string()} title={format!("{name} ({key})")}
                    onclick={Callback::from(move |_| d.dispatch(Action::SetMode(m)))}>{ name.to_string() }</button>
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
    let Some((_, traj)) = state.sel else { return html! {} };
    let (Some(info), Some(columns)) =
        (summary.trajectories.get(traj as usize), state.columns.as_ref())
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
    let candidates: Rc<Vec<u32>> = Rc::new(state.candidates.iter().map(|c| c.step).collect());
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
                d.dispatch(Action::Label {
                    file,
                    trajectory_id: l.trajectory_id,
                    critical: l.critical_step,
                })
            }
        })
    };
    let on_select_step = {
        let d = state.dispatcher();
        Callback::from(move |s: u32| d.dispatch(Action::GoStep(s)))
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
                trajectory_id={info.id.clone()} step_actors={actors} selected_step={state.selected_step}
                {candidates} mark_signal={state.mark_count} {on_change} {on_select_step} />
        </section>
    }
}
