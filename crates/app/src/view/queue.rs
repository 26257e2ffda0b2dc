//! The trajectories of one loaded file in the work queue, virtualised like the step list: a
//! file of 10,000 trajectories puts only the rows in (and just around) its scroll box into the
//! DOM. Rows have one fixed height, so any row's position is computed, never measured. The
//! queue's filter (failed only, unlabelled only, format) decides which rows there are.

use std::ops::Range;
use std::rc::Rc;

use wasm_bindgen::JsCast as _;
use yew::prelude::*;

use super::{Action, FileStatus, State};
use crate::protocol::Overview;
use trajscope_core::model::Outcome;

/// Height of one queue row in CSS pixels (web/style.css `.queue-rows .queue-row` matches it).
pub const ROW_HEIGHT: f64 = 64.0;
/// Rows rendered beyond each edge of the scroll box.
const OVERSCAN: usize = 8;
/// A file with at most this many trajectories is listed whole, without a scroll box of its own.
pub const RENDER_ALL_BELOW: usize = 200;

pub fn outcome_name(o: Outcome) -> &'static str {
    match o {
        Outcome::Failed => "failed",
        Outcome::Passed => "passed",
        Outcome::Unknown => "unknown",
    }
}

/// The rows of a `len`-row list to render when the box shows `height` pixels from `top`.
pub fn window(len: usize, top: f64, height: f64) -> Range<usize> {
    if len <= RENDER_ALL_BELOW {
        return 0..len;
    }
    let first = ((top.max(0.0) / ROW_HEIGHT) as usize).min(len).saturating_sub(OVERSCAN);
    let last =
        (((top.max(0.0) + height.max(0.0)) / ROW_HEIGHT).ceil() as usize + OVERSCAN).min(len);
    first..last.max(first)
}

#[derive(Properties, PartialEq)]
pub struct Props {
    pub state: UseReducerHandle<State>,
    pub file: u32,
    pub name: Rc<str>,
}

#[function_component(Trajectories)]
pub fn trajectories(props: &Props) -> Html {
    let state = &props.state;
    let scroller = use_node_ref();
    let scroll_top = use_state(|| 0.0f64);
    let viewport = use_state(|| 600.0f64);
    let summary = state.queue.files.by_id(props.file).and_then(|f| match &f.status {
        FileStatus::Ready(s) => Some(s.clone()),
        _ => None,
    });
    // The trajectories the queue's filter lets through, in file order.
    let idx: Vec<u32> = summary.as_ref().map_or_else(Vec::new, |s| {
        (0..s.trajectories.len() as u32)
            .filter(|&t| {
                state.queue.shows(&state.labels, props.file, &s.format, &s.trajectories[t as usize])
            })
            .collect()
    });
    let len = idx.len();
    let virtual_list = len > RENDER_ALL_BELOW;
    let shown = window(len, *scroll_top, *viewport);

    // Place the rows and size the list. Through the CSSOM, not `style` attributes: the CSP
    // forbids inline styles.
    {
        let scroller = scroller.clone();
        use_effect(move || {
            let Some(el) = scroller.cast::<web_sys::Element>() else { return };
            let Ok(nodes) = el.query_selector_all("[data-qtop], [data-qh]") else { return };
            for n in 0..nodes.length() {
                let Some(node) =
                    nodes.get(n).and_then(|n| n.dyn_into::<web_sys::HtmlElement>().ok())
                else {
                    continue;
                };
                if let Some(t) = node.get_attribute("data-qtop") {
                    node.style().set_property("top", &format!("{t}px")).ok();
                }
                if let Some(h) = node.get_attribute("data-qh") {
                    node.style().set_property("height", &format!("{h}px")).ok();
                }
            }
        });
    }

    // Keep the selected trajectory in view when it changes (deep link, restored session).
    {
        let (scroller, scroll_top, viewport) =
            (scroller.clone(), scroll_top.clone(), viewport.clone());
        let selected = state.sel().filter(|(f, _)| *f == props.file).map(|(_, t)| t);
        let selected = selected.and_then(|t| idx.binary_search(&t).ok()).map(|p| p as u32);
        use_effect_with((selected, virtual_list), move |(selected, virtual_list)| {
            let (Some(t), true) = (*selected, *virtual_list) else { return };
            let Some(el) = scroller.cast::<web_sys::Element>() else { return };
            let vh = f64::from(el.client_height()).max(ROW_HEIGHT);
            viewport.set(vh);
            let top = f64::from(t) * ROW_HEIGHT;
            let cur = f64::from(el.scroll_top());
            if top < cur || top + ROW_HEIGHT > cur + vh {
                let y = (top - vh / 3.0).max(0.0);
                el.set_scroll_top(y as i32);
                scroll_top.set(y);
            }
        });
    }

    // Measure the scroll box once mounted.
    {
        let (scroller, viewport) = (scroller.clone(), viewport.clone());
        use_effect_with(virtual_list, move |_| {
            if let Some(el) = scroller.cast::<web_sys::Element>() {
                let vh = f64::from(el.client_height());
                if vh > 0.0 {
                    viewport.set(vh);
                }
            }
        });
    }

    let onscroll = super::list::track_scroll(&scroll_top, &viewport);

    let Some(s) = summary else { return html! {} };
    let (sel, dispatch) = (state.sel(), state.dispatcher());
    let format = AttrValue::from(s.format.clone());
    let rows = shown.map(|p| {
        let t = idx[p];
        let info = &s.trajectories[t as usize];
        html! {
            <Row key={t} file={props.file} traj={t} pos={p} {len} {virtual_list}
                info={Shared(info.clone())} format={format.clone()}
                selected={sel == Some((props.file, t))} can_compare={sel.is_some()}
                label={state.labels.get(props.file, &info.id)} dispatch={dispatch.clone()} />
        }
    });
    let list = html! {
        <ul aria-label={format!("Trajectories in {}", props.name)}
            class={classes!(virtual_list.then_some("queue-rows"))}
            data-qh={virtual_list.then(|| (len as f64 * ROW_HEIGHT).to_string())}>
            { for rows }
            if len == 0 && s.trajectories.is_empty() {
                <li>{ empty_file(props.file, sel == Some((props.file, 0)), &dispatch) }</li>
            }
            if len == 0 && !s.trajectories.is_empty() { <li class="muted" data-testid="queue-filtered">{ format!("{} hidden by the filter", s.trajectories.len()) }</li> }
        </ul>
    };
    // The trajectories after the first are analysed in the background, in batches; a file
    // shown early is still read (its queue fills in).
    let progress = ((s.analysed as usize) < len || s.reading.is_some()).then(|| {
        let text = match &s.reading {
            Some(p) => format!("reading… {:.0} % · {len} so far", p.percent()),
            None => format!("analysing… {} of {len}", s.analysed),
        };
        html! {
            <p class="muted small" data-testid="analysis-progress" aria-busy="true" role="status">{ text }</p>
        }
    });
    if !virtual_list {
        return html! { <>{ for progress }{ list }</> };
    }
    html! {
        <>
        { for progress }
        <div class="queue-scroller" ref={scroller} {onscroll} data-testid="queue-scroller"
             aria-label={format!("{len} trajectories")}>
            { list }
        </div>
        </>
    }
}

/// The row of a file with no trajectory: it opens the file's view, which says why (its error,
/// its quarantined lines and their export).
fn empty_file(file: u32, selected: bool, dispatch: &UseReducerDispatcher<State>) -> Html {
    let onclick = {
        let dispatch = dispatch.clone();
        Callback::from(move |_| dispatch.dispatch(Action::Select { file, traj: 0 }))
    };
    html! {
        <button class={classes!("queue-item", "muted", selected.then_some("selected"))}
            aria-current={selected.then_some("true")} data-testid="queue-empty-file" {onclick}
            title="Show why: the file's error and its quarantined lines">
            {"no trajectory · show why"}
        </button>
    }
}

/// A trajectory's overview, compared by identity: the page's state replaces an overview only
/// when the worker sends a new one, so an unchanged row is skipped without comparing its
/// contents.
#[derive(Clone)]
pub struct Shared(pub Rc<Overview>);

impl PartialEq for Shared {
    fn eq(&self, other: &Shared) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

#[derive(Properties, PartialEq)]
struct RowProps {
    file: u32,
    traj: u32,
    /// Position in the filtered list.
    pos: usize,
    /// Rows in the filtered list.
    len: usize,
    virtual_list: bool,
    info: Shared,
    format: AttrValue,
    selected: bool,
    /// A trajectory is open (this one can be compared with it).
    can_compare: bool,
    /// The saved label: its critical step, `Some(None)` for "no critical step".
    label: Option<Option<u32>>,
    dispatch: UseReducerDispatcher<State>,
}

/// One queue row. Its props are small and compared cheaply, so a batch of analysis re-renders
/// only the rows whose overview it replaced (and a selection only the two rows it changes).
#[function_component(Row)]
fn row(props: &RowProps) -> Html {
    let RowProps { file, traj, pos, len, virtual_list, selected, .. } = *props;
    let info = &*props.info.0;
    let onclick = {
        let dispatch = props.dispatch.clone();
        Callback::from(move |_| dispatch.dispatch(Action::Select { file, traj }))
    };
    let label = match props.label {
        Some(Some(step)) => format!("label: #{step}"),
        Some(None) => "label: none".to_string(),
        None => "label: —".to_string(),
    };
    let critical = info.critical.as_ref().map(|c| format!("#{}", c.step)).unwrap_or("—".into());
    // Compare the selected run with this one (the compare view's right run).
    let compare = (props.can_compare && !selected).then(|| {
        let dispatch = props.dispatch.clone();
        let onclick = Callback::from(move |_| {
            dispatch.dispatch(Action::Compare(super::compare::Msg::With((file, traj))))
        });
        html! {
            <button class="qcmp" data-testid="queue-compare" {onclick}
                    aria-label={format!("Compare the selected run with {}", info.id)}
                    title="Compare the selected run with this one">{"⇄"}</button>
        }
    });
    html! {
        <li data-testid="queue-item"
            data-traj={traj.to_string()} aria-setsize={len.to_string()} aria-posinset={(pos + 1).to_string()}
            class={classes!("qitem", virtual_list.then_some("queue-row"))}
            data-qtop={virtual_list.then(|| (pos as f64 * ROW_HEIGHT).to_string())}>
            <button class={classes!("queue-item", selected.then_some("selected"))}
                aria-current={selected.then_some("true")} {onclick}>
                <span class="qid" title={super::bidi::visible(&info.id)}>{ super::bidi::text(&info.id) }</span>
                <span class="qmeta">
                    <span>{ props.format.clone() }</span>
                    <span>{ format!("{} steps", info.steps) }</span>
                    <span class={classes!("outcome", outcome_name(info.outcome))}>{ outcome_name(info.outcome) }</span>
                    <span title="predicted critical step" data-testid="queue-critical">{ format!("critical: {critical}") }</span>
                    <span title="label status" data-testid="queue-label">{ label }</span>
                </span>
            </button>
            { for compare }
        </li>
    }
}
