//! The virtualised step list: only the rows in (and just around) the viewport exist in the DOM,
//! so a 100,000-step trajectory keeps the page small. Row heights are fixed per grain, so any
//! row's position is computed, never measured. Texts come from the worker on demand.

use std::ops::Range;
use std::rc::Rc;

use wasm_bindgen::JsCast as _;
use yew::prelude::*;

use super::{Action, Ctx, State};
use crate::protocol::{Grain, Request, KIND_NAMES, ROLE_NAMES};
use crate::text::find_ci;

/// Rows rendered beyond each edge of the viewport.
const OVERSCAN: usize = 6;
/// A trajectory this short is rendered whole (no need to virtualise).
const RENDER_ALL_BELOW: usize = 150;

/// Height of a row shown at a grain, in CSS pixels (the step text scrolls inside its row).
pub fn row_height(g: Grain) -> f64 {
    match g {
        Grain::High => 300.0,
        Grain::Medium => 150.0,
        Grain::Low => 86.0,
    }
}

/// Positions and heights of the rows of `visible` as `state` shows them.
struct Layout {
    len: usize,
    base: f64,
    /// (position, height) of the rows whose height is not `base`, ascending by position.
    special: Vec<(usize, f64)>,
}

impl Layout {
    fn new(state: &State) -> Layout {
        let visible = &state.visible;
        let (base, special) = match (state.focus, state.selected_step) {
            (true, Some(sel)) => {
                let base = row_height(Grain::Low);
                let special = (sel.saturating_sub(2)..=sel.saturating_add(2))
                    .filter_map(|s| visible.binary_search(&s).ok())
                    .map(|p| (p, row_height(state.grain_of(visible[p]))))
                    .filter(|(_, h)| *h != base)
                    .collect();
                (base, special)
            }
            (true, None) => (row_height(Grain::Low), Vec::new()),
            (false, _) => (row_height(state.grain), Vec::new()),
        };
        Layout { len: visible.len(), base, special }
    }

    fn offset(&self, p: usize) -> f64 {
        let extra: f64 =
            self.special.iter().filter(|(q, _)| *q < p).map(|(_, h)| h - self.base).sum();
        p as f64 * self.base + extra
    }

    fn height(&self, p: usize) -> f64 {
        self.special.iter().find(|(q, _)| *q == p).map(|(_, h)| *h).unwrap_or(self.base)
    }

    fn total(&self) -> f64 {
        self.offset(self.len)
    }

    /// The first position whose row ends below `y`.
    fn position_at(&self, y: f64) -> usize {
        let (mut lo, mut hi) = (0, self.len);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.offset(mid + 1) <= y {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    fn window(&self, top: f64, height: f64) -> Range<usize> {
        if self.len <= RENDER_ALL_BELOW {
            return 0..self.len;
        }
        let first = self.position_at(top).saturating_sub(OVERSCAN);
        let last = (self.position_at(top + height) + 1 + OVERSCAN).min(self.len);
        first..last.max(first)
    }
}

#[derive(Properties, PartialEq)]
pub struct Props {
    pub state: UseReducerHandle<State>,
    pub ctx: Ctx,
}

pub fn view(state: &UseReducerHandle<State>, ctx: &Ctx) -> Html {
    html! { <StepList state={state.clone()} ctx={ctx.clone()} /> }
}

#[function_component(StepList)]
pub fn step_list(props: &Props) -> Html {
    let state = &props.state;
    let scroller = use_node_ref();
    let scroll_top = use_state(|| 0.0f64);
    let viewport = use_state(|| 700.0f64);
    let layout = Layout::new(state);
    let window = layout.window(*scroll_top, *viewport);

    // Ask the worker for the texts of the rows on screen.
    {
        let (ctx, state) = (props.ctx.clone(), state.clone());
        let window = window.clone();
        use_effect(move || {
            let Some((file, traj)) = state.sel else { return };
            let mut items = Vec::new();
            let mut requested = ctx.requested.borrow_mut();
            for p in window {
                let i = state.visible[p];
                let g = state.grain_of(i);
                if !state.cache.contains_key(&(i, g)) && requested.insert((file, traj, i, g)) {
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

    // Place the rows. Through the CSSOM, not `style` attributes: the CSP forbids inline styles.
    {
        let scroller = scroller.clone();
        use_effect(move || {
            let Some(el) = scroller.cast::<web_sys::Element>() else { return };
            let Ok(nodes) = el.query_selector_all("[data-h]") else { return };
            for n in 0..nodes.length() {
                let Some(node) =
                    nodes.get(n).and_then(|n| n.dyn_into::<web_sys::HtmlElement>().ok())
                else {
                    continue;
                };
                let style = node.style();
                if let Some(h) = node.get_attribute("data-h") {
                    style.set_property("height", &format!("{h}px")).ok();
                }
                if let Some(t) = node.get_attribute("data-top") {
                    style.set_property("top", &format!("{t}px")).ok();
                }
            }
        });
    }

    // Scroll a step into view when asked (keyboard, search, candidates, timeline, deep link).
    {
        let (scroller, state) = (scroller.clone(), state.clone());
        let (scroll_top, viewport) = (scroll_top.clone(), viewport.clone());
        let target = state.scroll_to;
        use_effect_with(target, move |target| {
            let Some((step, _)) = *target else { return };
            let Some(el) = scroller.cast::<web_sys::Element>() else { return };
            let vh = f64::from(el.client_height()).max(100.0);
            viewport.set(vh);
            let layout = Layout::new(&state);
            let p = match state.visible.binary_search(&step) {
                Ok(p) | Err(p) => p,
            };
            let (top, h) = (layout.offset(p), layout.height(p));
            let cur = f64::from(el.scroll_top());
            if top < cur || top + h > cur + vh {
                let y = (top - vh / 4.0).max(0.0);
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

    let onscroll = {
        let (scroll_top, viewport) = (scroll_top.clone(), viewport.clone());
        Callback::from(move |e: Event| {
            let el: web_sys::Element = e.target_unchecked_into();
            scroll_top.set(f64::from(el.scroll_top()));
            let vh = f64::from(el.client_height());
            if vh > 0.0 && (vh - *viewport).abs() > 1.0 {
                viewport.set(vh);
            }
        })
    };

    let Some(columns) = state.columns.clone() else {
        return html! { <p class="muted" aria-busy="true">{"Loading steps…"}</p> };
    };
    if columns.line.is_empty() {
        return html! { <p class="muted" data-testid="no-steps">{"This trajectory has no steps."}</p> };
    }
    if state.visible.is_empty() {
        return html! { <p class="muted" data-testid="no-steps">{"No step matches the filter."}</p> };
    }
    let query = Rc::new(state.search.query.clone());
    let quotes: Rc<Vec<String>> = Rc::new(
        state
            .candidates
            .iter()
            .flat_map(|c| c.quotes.iter().cloned())
            .filter(|q| q.len() >= 3)
            .collect(),
    );
    let rows = window.map(|p| {
        let i = state.visible[p];
        let g = state.grain_of(i);
        let (top, h) = (layout.offset(p), layout.height(p));
        let view = state.cache.get(&(i, g)).cloned();
        let ix = i as usize;
        let role = ROLE_NAMES.get(usize::from(columns.role[ix])).copied().unwrap_or("other");
        let kind = KIND_NAMES.get(usize::from(columns.kind[ix])).copied().unwrap_or("message");
        let actor = columns.actors.get(usize::from(columns.actor[ix])).cloned().unwrap_or_default();
        let selected = state.selected_step == Some(i);
        let candidate = state.candidates.iter().any(|c| c.step == i);
        let onclick = {
            let dispatch = state.dispatcher();
            Callback::from(move |_| dispatch.dispatch(Action::SelectStep(i)))
        };
        html! {
            <li key={i} data-testid="step" data-step={i.to_string()} data-line={columns.line[ix].to_string()}
                data-grain={g.name()} data-loaded={view.is_some().to_string()} role="option"
                aria-selected={selected.to_string()} id={format!("step-{i}")}
                class={classes!("step", columns.is_error[ix].then_some("error"), selected.then_some("selected"),
                                candidate.then_some("candidate"))}
                data-top={top.to_string()} data-h={h.to_string()} {onclick}>
                <div class="who">
                    <span class="idx">{ format!("#{i}") }</span>
                    <span class="role">{ role }</span>
                    <span class="kind">{ kind }</span>
                    if !actor.is_empty() { <span class="actor">{ actor }</span> }
                    <span class="line muted">{ format!("line {}", columns.line[ix]) }</span>
                    if columns.is_error[ix] { <span class="tag tag-err">{"error"}</span> }
                    if candidate { <span class="tag tag-cand">{"candidate"}</span> }
                    if let Some(u) = view.as_ref().and_then(|v| v.usage.as_ref()) {
                        <span class="muted" data-testid="step-usage">{ super::panels::step_usage_text(u) }</span>
                    }
                    if let Some(v) = &view {
                        if v.full_chars as usize > v.text.chars().count() {
                            <span class="muted">{ format!("{} of {} chars ({})", v.text.chars().count(), v.full_chars, g.name()) }</span>
                        }
                    }
                </div>
                <pre data-testid="step-text">{
                    match &view {
                        Some(v) => highlight(&v.text, &query, &quotes),
                        None => html! { <span class="muted">{"…"}</span> },
                    }
                }</pre>
            </li>
        }
    });
    html! {
        <div class="scroller" ref={scroller} {onscroll} data-testid="step-list" tabindex="0"
             aria-label={format!("{} of {} steps", state.visible.len(), columns.line.len())}>
            <ol class="steps" role="listbox" aria-label="Steps" data-h={layout.total().to_string()}>
                { for rows }
            </ol>
        </div>
    }
}

/// `text` as text nodes, with search matches and evidence quotes wrapped in `<mark>` (never
/// parsed as HTML).
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
        return html! { { text.to_string() } };
    }
    marks.sort_by_key(|(r, _)| (r.start, std::cmp::Reverse(r.end)));
    let mut out = Vec::new();
    let mut pos = 0;
    for (r, class) in marks {
        if r.start < pos {
            continue; // overlaps the previous mark
        }
        out.push(html! { { text[pos..r.start].to_string() } });
        out.push(html! { <mark class={class} data-testid={format!("mark-{class}")}>{ text[r.clone()].to_string() }</mark> });
        pos = r.end;
    }
    out.push(html! { { text[pos..].to_string() } });
    out.into_iter().collect::<Html>()
}
