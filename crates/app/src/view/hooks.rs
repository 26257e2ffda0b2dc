//! The root component's side effects, one hook each: the worker ([`use_bridge`]), the URL
//! ([`use_url`]), the requests the open trajectory needs ([`use_columns`], [`use_search`]) and
//! the page-wide keys and paste ([`use_keyboard`], [`use_paste`]). The state only computes; these
//! talk to the worker and the browser when it changes.

use wasm_bindgen::JsCast as _;
use web_sys::HtmlInputElement;
use yew::prelude::*;

use super::ctx::{load_url, start_bridge, text_blob, Asked, Ctx};
use super::state::HashView;
use super::{Action, Mode, NavAction, PageAction, State};
use crate::protocol::{Grain, Request};

/// Starts the worker once (unless a file dropped before has started it already) and restarts
/// it after a crash (its traces are gone; the queue says so).
#[hook]
pub fn use_bridge(ctx: &Ctx, state: &UseReducerHandle<State>) {
    {
        let (ctx, dispatch) = (ctx.clone(), state.dispatcher());
        use_effect_with((), move |_| {
            if ctx.bridge_down() {
                start_bridge(&ctx, dispatch);
            }
        });
    }
    let (ctx, dispatch) = (ctx.clone(), state.dispatcher());
    use_effect_with(state.page.crashes, move |n| {
        if *n > 0 {
            ctx.forget_requested();
            start_bridge(&ctx, dispatch);
        }
    });
}

/// Reads the URL once (a deep link in the hash; `?url=`, a same-origin trace to load), then
/// keeps the hash following the view (trajectory, step, grain, mode; never content).
#[hook]
pub fn use_url(ctx: &Ctx, state: &UseReducerHandle<State>) {
    {
        let (ctx, dispatch) = (ctx.clone(), state.dispatcher());
        use_effect_with((), move |_| {
            let loc = gloo::utils::window().location();
            if let Some(h) = loc.hash().ok().and_then(|h| HashView::parse(&h)) {
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
    use_effect_with(state.hash_view(), move |h| {
        let Some(h) = h else { return };
        let hash = h.to_hash();
        let win = gloo::utils::window();
        if win.location().hash().ok().as_deref() != Some(hash.as_str()) {
            if let Ok(history) = win.history() {
                history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&hash)).ok();
            }
        }
    });
}

/// Asks for the columns of the open trajectory until they are there.
#[hook]
pub fn use_columns(ctx: &Ctx, state: &UseReducerHandle<State>) {
    let ctx = ctx.clone();
    // (With the count of times they were dropped: columns in and dropped again between two
    // runs of the effect are asked again.)
    let need = state.sel().filter(|_| state.nav.columns.is_none());
    let need = need.map(|sel| (sel, state.nav.columns_wanted));
    use_effect_with(need, move |need| {
        if let Some(((file, traj), _)) = *need {
            ctx.forget_requested();
            // Sent unasked with the file's `Loaded` (`Ctx::expect_opening`).
            if ctx.take_prefetched(file, traj) {
                return;
            }
            let req = ctx.ask(Asked::Columns);
            ctx.send(&Request::Columns { req, file, traj });
        }
    });
}

/// Searches the open trajectory in the worker when the query (or the trajectory) changes.
#[hook]
pub fn use_search(ctx: &Ctx, state: &UseReducerHandle<State>) {
    let ctx = ctx.clone();
    let key = (state.sel(), state.search.query.clone());
    use_effect_with(key, move |(sel, query)| {
        if let (Some((file, traj)), false) = (sel, query.is_empty()) {
            let req = ctx.ask(Asked::Search);
            ctx.send(&Request::Search { req, file: *file, traj: *traj, query: query.clone() });
        }
    });
}

/// The action of a shortcut key (`/` focuses the search field instead).
fn shortcut(key: &str) -> Option<Action> {
    Some(match key {
        // The arrows as well: what a list is moved with everywhere else.
        "j" | "ArrowDown" => NavAction::Move(1).into(),
        "k" | "ArrowUp" => NavAction::Move(-1).into(),
        "n" => Action::MoveCandidate(1),
        "p" => Action::MoveCandidate(-1),
        "1" => NavAction::SetGrain(Grain::High).into(),
        "2" => NavAction::SetGrain(Grain::Medium).into(),
        "3" => NavAction::SetGrain(Grain::Low).into(),
        "c" => Action::MarkCritical,
        "r" => PageAction::SetMode(Mode::Review).into(),
        "a" => PageAction::SetMode(Mode::Annotate).into(),
        "v" => PageAction::SetMode(Mode::Compare).into(),
        "d" => Action::Compare(super::compare::Msg::FirstDivergence),
        "s" => Action::Compare(super::compare::Msg::Swap),
        "u" => Action::NextUnlabelled,
        "?" => PageAction::ToggleHelp.into(),
        "Escape" => PageAction::CloseHelp.into(),
        _ => return None,
    })
}

/// Whether a key pressed in `el` is typing (a text field takes keys; a checkbox or a button
/// keeps the shortcuts).
fn typing_in(el: &web_sys::Element) -> bool {
    let input = el.tag_name() == "INPUT"
        && !matches!(
            el.get_attribute("type").as_deref(),
            Some("checkbox" | "radio" | "button" | "submit" | "file")
        );
    input
        || matches!(el.tag_name().as_str(), "TEXTAREA" | "SELECT")
        || el.has_attribute("contenteditable")
}

/// The keyboard shortcuts (the help dialog lists them); Escape in a text field leaves it.
#[hook]
pub fn use_keyboard(state: &UseReducerHandle<State>, search_ref: &NodeRef) {
    let (dispatch, search_ref) = (state.dispatcher(), search_ref.clone());
    use_effect_with((), move |_| {
        // Not passive: a handled key's default (typing `/` into the search field) is prevented.
        let opts = gloo::events::EventListenerOptions::enable_prevent_default();
        let doc = gloo::utils::document();
        let listener =
            gloo::events::EventListener::new_with_options(&doc, "keydown", opts, move |e| {
                let Some(e) = e.dyn_ref::<web_sys::KeyboardEvent>() else { return };
                if e.ctrl_key() || e.meta_key() || e.alt_key() {
                    return;
                }
                let target = e.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok());
                let key = e.key();
                if target.as_ref().is_some_and(typing_in) {
                    if key == "Escape" {
                        if let Some(el) =
                            target.and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok())
                        {
                            el.blur().ok();
                        }
                    }
                    return;
                }
                if key == "/" {
                    e.prevent_default();
                    if let Some(input) = search_ref.cast::<HtmlInputElement>() {
                        input.focus().ok();
                        input.select();
                    }
                } else if let Some(action) = shortcut(&key) {
                    e.prevent_default();
                    dispatch.dispatch(action);
                }
            });
        move || drop(listener)
    });
}

/// Paste anywhere (outside a text field) loads the pasted text as a trace.
#[hook]
pub fn use_paste(ctx: &Ctx, state: &UseReducerHandle<State>) {
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
                if let Some(blob) =
                    text.filter(|t| !t.trim().is_empty()).and_then(|t| text_blob(&t))
                {
                    ctx.load(&dispatch, "pasted.jsonl".into(), blob);
                }
            });
        move || drop(listener)
    });
}
