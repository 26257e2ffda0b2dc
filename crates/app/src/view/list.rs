//! The virtualised transcript: only the cards in (and just around) the viewport exist in the
//! DOM, so a 100,000-step trajectory keeps the page small. Cards vary in height: a card not yet
//! seen counts at an estimate ([`transcript::estimate`]), a rendered one at its measured height,
//! and the space of the cards above and below the window is padding on the list. When a card
//! above the viewport turns out taller or shorter than counted, the scroll position moves by
//! the difference, so what is on screen stays put. Texts come from the worker on demand.

use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::rc::Rc;

use wasm_bindgen::JsCast as _;
use yew::prelude::*;

use super::bidi;
use super::transcript::{self, Card};
use super::{Ctx, NavAction, State};
use crate::protocol::{Grain, Request, KIND_NAMES, ROLE_NAMES};
use crate::text::find_ci;

/// Cards rendered beyond each edge of the viewport.
const OVERSCAN: usize = 4;
/// A trajectory this short is rendered whole (no need to virtualise).
const RENDER_ALL_BELOW: usize = 150;

/// (step, grain, expanded): what a measured height belongs to.
type HeightKey = (u32, Grain, bool);

/// Measured card heights and the prefix sums of the current layout.
#[derive(Default)]
struct Heights {
    measured: HashMap<HeightKey, f64>,
    /// Bumped whenever `measured` changes (the layout is recomputed then).
    version: u64,
    /// The layout `prefix` was computed for.
    key: Option<LayoutKey>,
    /// prefix[p] = top of the card at position p; prefix[len] = the total height.
    prefix: Rc<Vec<f64>>,
}

#[derive(Clone, PartialEq)]
struct LayoutKey {
    visible: *const Vec<u32>,
    version: u64,
    grain: Grain,
    focus: Option<Option<u32>>,
    expanded: u64,
    /// Loaded texts change estimates; counted by the cache's size.
    cached: usize,
}

fn key_of(state: &State, i: u32, expanded: &HashSet<u32>) -> HeightKey {
    (i, state.nav.grain_of(i), expanded.contains(&i))
}

/// The height a card counts at: measured, else estimated.
fn height_of(state: &State, h: &Heights, i: u32, expanded: &HashSet<u32>) -> f64 {
    let k = key_of(state, i, expanded);
    h.measured.get(&k).copied().unwrap_or_else(|| {
        transcript::estimate(state.nav.cache.get(&(i, k.1)).map(|v| v.as_ref()), k.1, k.2)
    })
}

fn layout(
    state: &State,
    h: &mut Heights,
    expanded: &HashSet<u32>,
    exp_version: u64,
) -> Rc<Vec<f64>> {
    let key = LayoutKey {
        visible: Rc::as_ptr(&state.nav.visible),
        version: h.version,
        grain: state.nav.grain,
        focus: state.nav.focus.then_some(state.nav.step),
        expanded: exp_version,
        cached: state.nav.cache.len(),
    };
    if h.key.as_ref() != Some(&key) {
        let mut prefix = Vec::with_capacity(state.nav.visible.len() + 1);
        let mut y = 0.0;
        prefix.push(0.0);
        for &i in state.nav.visible.iter() {
            y += height_of(state, h, i, expanded);
            prefix.push(y);
        }
        h.prefix = Rc::new(prefix);
        h.key = Some(key);
    }
    h.prefix.clone()
}

/// The first position whose card ends below `y`.
fn position_at(prefix: &[f64], y: f64) -> usize {
    let len = prefix.len().saturating_sub(1);
    // prefix[p + 1] <= y for all p before the answer.
    prefix[1..].partition_point(|&end| end <= y).min(len)
}

fn window(prefix: &[f64], top: f64, height: f64) -> Range<usize> {
    let len = prefix.len().saturating_sub(1);
    if len <= RENDER_ALL_BELOW {
        return 0..len;
    }
    let first = position_at(prefix, top).saturating_sub(OVERSCAN);
    let last = (position_at(prefix, top + height) + 1 + OVERSCAN).min(len);
    first..last.max(first)
}

#[derive(Properties, PartialEq)]
pub struct Props {
    pub state: UseReducerHandle<State>,
    pub ctx: Ctx,
    /// The critical step of the analysis, marked on its card.
    #[prop_or_default]
    pub critical: Option<u32>,
}

pub fn view(state: &UseReducerHandle<State>, ctx: &Ctx, critical: Option<u32>) -> Html {
    html! { <StepList state={state.clone()} ctx={ctx.clone()} {critical} /> }
}

#[function_component(StepList)]
pub fn step_list(props: &Props) -> Html {
    let state = &props.state;
    let scroller = use_node_ref();
    let scroll_top = use_state(|| 0.0f64);
    let viewport = use_state(|| 700.0f64);
    let heights = use_mut_ref(Heights::default);
    // Re-render after a measurement changed the layout.
    let measured_version = use_state(|| 0u64);
    // Cards whose fold is open, and a counter of changes to that set.
    let expanded = use_state(|| (Rc::new(HashSet::<u32>::new()), 0u64));
    // A new trajectory starts with nothing measured and nothing open.
    {
        let (heights, expanded) = (heights.clone(), expanded.clone());
        use_effect_with(state.sel(), move |_| {
            *heights.borrow_mut() = Heights::default();
            expanded.set((Rc::new(HashSet::new()), 0));
        });
    }
    let _ = *measured_version;
    let prefix = layout(state, &mut heights.borrow_mut(), &expanded.0, expanded.1);
    let window = window(&prefix, *scroll_top, *viewport);

    // Ask the worker for the texts of the rows on screen.
    {
        let (ctx, state) = (props.ctx.clone(), state.clone());
        let window = window.clone();
        use_effect(move || {
            let Some((file, traj)) = state.sel() else { return };
            let mut items = Vec::new();
            let mut requested = ctx.requested.borrow_mut();
            for p in window {
                let i = state.nav.visible[p];
                let g = state.nav.grain_of(i);
                if !state.nav.cache.contains_key(&(i, g)) && requested.insert((file, traj, i, g)) {
                    items.push((i, g));
                }
            }
            drop(requested);
            if !items.is_empty() {
                let req = ctx.req_id();
                ctx.send(&Request::Steps { req, file, traj, items });
            }
        });
    }

    // Size the padding above and below the window (through the CSSOM, not `style`
    // attributes: the CSP forbids inline styles), then measure the rendered cards: a height
    // that differs from what the layout counted is kept, and the layout recomputed.
    {
        let (scroller, heights, state) = (scroller.clone(), heights.clone(), state.clone());
        let (measured_version, scroll_top) = (measured_version.clone(), scroll_top.clone());
        let expanded = expanded.0.clone();
        let prefix = prefix.clone();
        let window = window.clone();
        use_effect(move || {
            let Some(el) = scroller.cast::<web_sys::HtmlElement>() else { return };
            let Ok(Some(ol)) = el.query_selector("ol.steps") else { return };
            let Ok(ol) = ol.dyn_into::<web_sys::HtmlElement>() else { return };
            let total = prefix.last().copied().unwrap_or(0.0);
            let (top, bottom) = (prefix[window.start], total - prefix[window.end]);
            ol.style().set_property("padding-top", &format!("{top}px")).ok();
            ol.style().set_property("padding-bottom", &format!("{}px", bottom.max(0.0))).ok();
            let Ok(nodes) = ol.query_selector_all("li[data-step]") else { return };
            let view_top = f64::from(el.scroll_top());
            let mut h = heights.borrow_mut();
            let (mut changed, mut shift) = (false, 0.0);
            for n in 0..nodes.length() {
                let Some(node) =
                    nodes.get(n).and_then(|n| n.dyn_into::<web_sys::HtmlElement>().ok())
                else {
                    continue;
                };
                let Some(i) = node.get_attribute("data-step").and_then(|s| s.parse::<u32>().ok())
                else {
                    continue;
                };
                let got = f64::from(node.offset_height());
                if got <= 0.0 {
                    continue;
                }
                let counted = height_of(&state, &h, i, &expanded);
                if (got - counted).abs() > 1.0 {
                    // A card above the viewport that grows pushes the content down: follow it.
                    let p = state.nav.visible.binary_search(&i).unwrap_or(0);
                    if prefix[p] + counted <= view_top + 1.0 {
                        shift += got - counted;
                    }
                    h.measured.insert(key_of(&state, i, &expanded), got);
                    changed = true;
                }
            }
            if changed {
                h.version += 1;
                let v = h.version;
                drop(h);
                if shift != 0.0 {
                    let y = (view_top + shift).max(0.0);
                    el.set_scroll_top(y as i32);
                    scroll_top.set(y);
                }
                measured_version.set(v);
            }
        });
    }

    // Scroll a step into view when asked (keyboard, search, candidates, timeline, deep link).
    {
        let (scroller, state, heights) = (scroller.clone(), state.clone(), heights.clone());
        let (scroll_top, viewport) = (scroll_top.clone(), viewport.clone());
        let expanded = expanded.clone();
        let target = state.nav.scroll_to;
        use_effect_with(target, move |target| {
            let Some((step, _)) = *target else { return };
            let Some(el) = scroller.cast::<web_sys::Element>() else { return };
            let vh = f64::from(el.client_height()).max(100.0);
            viewport.set(vh);
            let prefix = layout(&state, &mut heights.borrow_mut(), &expanded.0, expanded.1);
            let p = match state.nav.visible.binary_search(&step) {
                Ok(p) | Err(p) => p,
            }
            .min(prefix.len().saturating_sub(2));
            let (top, h) = (prefix[p], prefix[p + 1] - prefix[p]);
            let cur = f64::from(el.scroll_top());
            if top < cur || top + h.min(vh / 2.0) > cur + vh {
                let y = (top - vh / 5.0).max(0.0);
                el.set_scroll_top(y as i32);
                scroll_top.set(y);
            }
        });
    }

    // Measure the viewport once mounted.
    {
        let (scroller, viewport) = (scroller.clone(), viewport.clone());
        use_effect_with((), move |_| {
            if let Some(el) = scroller.cast::<web_sys::Element>() {
                viewport.set(f64::from(el.client_height()).max(100.0));
            }
        });
    }

    let onscroll = track_scroll(&scroll_top, &viewport);
    let on_toggle = {
        let expanded = expanded.clone();
        Callback::from(move |i: u32| {
            let mut set = (*expanded.0).clone();
            if !set.remove(&i) {
                set.insert(i);
            }
            expanded.set((Rc::new(set), expanded.1 + 1));
        })
    };

    let Some(columns) = state.nav.columns.clone() else {
        return html! { <p class="muted" aria-busy="true">{"Loading steps…"}</p> };
    };
    let on_source = {
        let (ctx, dispatch, lines) = (props.ctx.clone(), state.dispatcher(), columns.line.clone());
        let file = state.sel().map(|(f, _)| f);
        Callback::from(move |(i, span)| {
            if let Some(file) = file {
                let line = lines.get(i as usize).copied().unwrap_or(0);
                ctx.show_source(&dispatch, file, (i, line), span);
            }
        })
    };
    if columns.line.is_empty() {
        // A file with no trajectory at all (empty, or every line quarantined) says so.
        let none = state
            .sel()
            .and_then(|(f, _)| state.queue.summary(f))
            .is_some_and(|s| s.trajectories.is_empty());
        let text = match none {
            true => "This file has no trajectory: it is empty or every line was quarantined.",
            false => "This trajectory has no steps.",
        };
        return html! { <p class="muted" data-testid="no-steps">{ text }</p> };
    }
    if state.nav.visible.is_empty() {
        return html! { <p class="muted" data-testid="no-steps">{"No step matches the filter."}</p> };
    }
    let query = state.search.query.clone();
    let quotes: Vec<String> = state
        .selection
        .candidates
        .iter()
        .flat_map(|c| c.quotes.iter().cloned())
        .filter(|q| q.len() >= 3)
        .collect();
    let rows = window.map(|p| {
        let i = state.nav.visible[p];
        let g = state.nav.grain_of(i);
        let view = state.nav.cache.get(&(i, g)).cloned();
        let ix = i as usize;
        let role = ROLE_NAMES.get(usize::from(columns.role[ix])).copied().unwrap_or("other");
        let kind = KIND_NAMES.get(usize::from(columns.kind[ix])).copied().unwrap_or("message");
        let actor = columns.actors.get(usize::from(columns.actor[ix])).cloned().unwrap_or_default();
        let selected = state.nav.step == Some(i);
        let candidate = state.selection.candidates.iter().any(|c| c.step == i);
        let critical = props.critical == Some(i);
        let onclick = {
            let dispatch = state.dispatcher();
            Callback::from(move |_| dispatch.dispatch(NavAction::Select(i).into()))
        };
        let card = transcript::card(&Card {
            index: i,
            role,
            kind,
            actor: &actor,
            line: columns.line[ix],
            is_error: columns.is_error[ix],
            candidate,
            critical,
            grain: g,
            view: view.as_deref(),
            query: &query,
            quotes: &quotes,
            expanded: expanded.0.contains(&i),
            on_toggle: on_toggle.clone(),
            on_source: Some(on_source.clone()),
        });
        html! {
            <li key={i} data-testid="step" data-step={i.to_string()} data-line={columns.line[ix].to_string()}
                data-grain={g.name()} data-loaded={view.is_some().to_string()} role="option"
                aria-selected={selected.to_string()} id={format!("step-{i}")}
                class={classes!("step", format!("role-{role}"), format!("kind-{kind}"),
                                columns.is_error[ix].then_some("error"), selected.then_some("selected"),
                                candidate.then_some("candidate"), critical.then_some("critical"))}
                {onclick}>
                { card }
            </li>
        }
    });
    html! {
        <div class="scroller" ref={scroller} {onscroll} data-testid="step-list" tabindex="0"
             aria-label={format!("{} of {} steps", state.nav.visible.len(), columns.line.len())}>
            <ol class="steps" role="listbox" aria-label="Steps">
                { for rows }
            </ol>
        </div>
    }
}

/// `text` as text nodes, with search matches and evidence quotes wrapped in `<mark>` (never
/// parsed as HTML), its bidirectional controls shown as marks ([`bidi::text`]).
pub fn highlight(text: &str, query: &str, quotes: &[String]) -> Html {
    let mut marks: Vec<(Range<usize>, &'static str)> = Vec::new();
    for q in quotes {
        if let Some(i) = text.find(q.as_str()) {
            marks.push((i..i + q.len(), "evidence"));
        }
    }
    if query.chars().count() >= 1 {
        marks.extend(find_ci(text, query).into_iter().map(|r| (r, "hit")));
    }
    if marks.is_empty() {
        return bidi::text(text);
    }
    trajscope_core::sort::sort_by_key(&mut marks, |(r, _)| (r.start, std::cmp::Reverse(r.end)));
    let mut out = Vec::new();
    let mut pos = 0;
    for (r, class) in marks {
        if r.start < pos {
            continue; // overlaps the previous mark
        }
        out.push(bidi::text(&text[pos..r.start]));
        out.push(html! { <mark class={class} data-testid={format!("mark-{class}")}>{ bidi::text(&text[r.clone()]) }</mark> });
        pos = r.end;
    }
    out.push(bidi::text(&text[pos..]));
    out.into_iter().collect::<Html>()
}

/// The `onscroll` of a virtualised list: keeps its scroll offset and viewport height (the
/// transcript, the queue and the compare rows share it).
pub(super) fn track_scroll(
    scroll_top: &UseStateHandle<f64>,
    viewport: &UseStateHandle<f64>,
) -> Callback<Event> {
    let (scroll_top, viewport) = (scroll_top.clone(), viewport.clone());
    Callback::from(move |e: Event| {
        let el: web_sys::Element = e.target_unchecked_into();
        scroll_top.set(f64::from(el.scroll_top()));
        let vh = f64::from(el.client_height());
        if vh > 0.0 && (vh - *viewport).abs() > 1.0 {
            viewport.set(vh);
        }
    })
}
