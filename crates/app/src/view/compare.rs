//! The compare view: two trajectories side by side, aligned step by step by the core's diff
//! (`docs/diff.md`; the worker answers `Compare`). The left run is the queue's selection, the
//! right one is picked beside it (or with a queue row's "compare" button). Both outcomes and
//! critical steps sit at the top; the first divergence is marked and jumped to; steps present in
//! only one run are shaded. One virtualised list of fixed-height rows holds both columns, so
//! scrolling is shared and two 100,000-step runs keep the DOM small; the selected row's two steps
//! are shown whole below it. Trace content is text only.
//!
//! Its state ([`Compare`]) is one field of the page's state and its messages ([`Msg`]) one
//! action; [`route`] sends the shared keys (j/k, n/p, Esc) here while the mode is Compare.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use wasm_bindgen::JsCast as _;
use yew::prelude::*;

use super::state::{Action, FileStatus, Mode, NavAction, PageAction, State};
use super::transcript::{self, Card};
use super::Ctx;
use crate::protocol::{Grain, Request, StepColumns, StepView, KIND_NAMES, ROLE_NAMES};
use trajscope_core::diff::{Comparison, PairKind};

/// Height of one aligned row in CSS pixels (web/style.css `.pairs .pair` matches it).
pub const ROW_HEIGHT: f64 = 52.0;
/// Rows rendered beyond each edge of the scroll box.
const OVERSCAN: usize = 6;
/// Most step texts kept for the compare view; beyond it the cache starts over.
const CACHE_MAX: usize = 3000;
/// Most trajectories a side picker lists (the queue's compare button reaches any other).
const PICKER_MAX: usize = 1000;

/// (file id, trajectory index): one side of a comparison.
pub type Run = (u32, u32);

/// (file id, trajectory index, step, grain): a step text of either run.
type TextKey = (u32, u32, u32, Grain);

/// Which run of the two.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    Left,
    Right,
}

/// A comparison the worker answered, with what the rows need.
#[derive(Debug)]
pub struct Loaded {
    pub left: Run,
    pub right: Run,
    pub cmp: Comparison,
    pub left_columns: StepColumns,
    pub right_columns: StepColumns,
    /// The row of each left step, and of each right step.
    pub row_of_left: Vec<u32>,
    pub row_of_right: Vec<u32>,
}

/// The same answer (it is shared, never compared field by field: it may hold 200,000 rows).
impl PartialEq for Loaded {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}

impl Loaded {
    fn new(
        left: Run,
        right: Run,
        cmp: Comparison,
        left_columns: StepColumns,
        right_columns: StepColumns,
    ) -> Loaded {
        let mut row_of_left = vec![0; cmp.left.steps];
        let mut row_of_right = vec![0; cmp.right.steps];
        for (r, p) in cmp.pairs.iter().enumerate() {
            if let Some(slot) = p.left.and_then(|l| row_of_left.get_mut(l as usize)) {
                *slot = r as u32;
            }
            if let Some(slot) = p.right.and_then(|s| row_of_right.get_mut(s as usize)) {
                *slot = r as u32;
            }
        }
        Loaded { left, right, cmp, left_columns, right_columns, row_of_left, row_of_right }
    }

    /// The row holding `step` of `side`.
    pub fn row_of(&self, side: Side, step: u32) -> Option<usize> {
        let rows = match side {
            Side::Left => &self.row_of_left,
            Side::Right => &self.row_of_right,
        };
        rows.get(step as usize).map(|&r| r as usize)
    }
}

/// The compare view's state (one field of the page's [`State`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Compare {
    /// The right run, picked (the left is the queue's selection).
    pub right: Option<Run>,
    /// The right run a deep link named, by file position in the queue and trajectory, until
    /// that file is loaded (or another is picked).
    pub pending_right: Option<(u32, u32)>,
    pub loaded: Option<Rc<Loaded>>,
    /// The selected row.
    pub row: Option<usize>,
    /// (row, nonce): the list scrolls to the row when the nonce changes.
    pub scroll_to: Option<(usize, u32)>,
    pub nonce: u32,
    /// Step texts by (file, trajectory, step, grain).
    pub cache: Rc<HashMap<TextKey, Rc<StepView>>>,
    /// The mode to return to on Escape.
    pub back_to: Mode,
}

/// What the compare view does.
#[derive(Clone, Debug, PartialEq)]
pub enum Msg {
    /// Enter the compare mode (the right run kept, or a likely one picked).
    Enter,
    /// Back to the mode before.
    Leave,
    /// Compare the selected run with this one (a queue row's button).
    With(Run),
    SetRight(Option<Run>),
    /// The right run becomes the selection and the left the right.
    Swap,
    /// The next / previous row.
    Move(i64),
    /// The next / previous row where the runs differ.
    NextChange(i64),
    FirstDivergence,
    SelectRow(usize),
    /// The row of a side's step (its critical step).
    GoStep(Side, u32),
}

/// The shared keys while comparing: `j`/`k` walk rows, `n`/`p` walk differences, Escape leaves;
/// `c` (mark critical) means nothing here. `None`: the action does nothing.
pub fn route(s: &State, a: Action) -> Option<Action> {
    if let Action::Page(PageAction::SetMode(Mode::Compare)) = a {
        return Some(Action::Compare(Msg::Enter));
    }
    if s.page.mode != Mode::Compare {
        return Some(a);
    }
    Some(match a {
        Action::Nav(NavAction::Move(d)) => Action::Compare(Msg::Move(d)),
        Action::MoveCandidate(d) => Action::Compare(Msg::NextChange(d)),
        Action::Page(PageAction::CloseHelp) if !s.page.help_open && s.page.source.is_none() => {
            Action::Compare(Msg::Leave)
        }
        Action::MarkCritical => return None,
        a => a,
    })
}

/// Whether `run` names a trajectory of a loaded file.
fn exists(s: &State, (file, traj): Run) -> bool {
    s.queue.summary(file).is_some_and(|x| (traj as usize) < x.trajectories.len())
}

/// The right run: the picked one, else the deep link's once its file is loaded.
pub fn right_of(s: &State) -> Option<Run> {
    let c = &s.compare;
    c.right.filter(|&r| exists(s, r)).or_else(|| {
        let (pos, traj) = c.pending_right?;
        let f = s.queue.files.get(pos as usize)?;
        matches!(f.status, FileStatus::Ready(_)).then_some((f.id, traj)).filter(|&r| exists(s, r))
    })
}

/// The pair on screen: (left, right), when both are loaded.
pub fn pair_of(s: &State) -> Option<(Run, Run)> {
    Some((s.sel().filter(|&l| exists(s, l))?, right_of(s)?))
}

/// A likely run to compare the selection with: another trial of the same task in its file,
/// else the next trajectory of its file, else the first of another loaded file.
fn default_right(s: &State) -> Option<Run> {
    let (file, traj) = s.sel()?;
    let summary = s.queue.summary(file)?;
    let n = summary.trajectories.len() as u32;
    let task = summary.trajectories.get(traj as usize).and_then(|t| t.task.clone());
    let same_task = task.and_then(|task| {
        (1..n)
            .map(|k| (traj + k) % n)
            .find(|&t| summary.trajectories[t as usize].task.as_deref() == Some(task.as_str()))
    });
    if let Some(t) = same_task {
        return Some((file, t));
    }
    if n > 1 {
        return Some((file, (traj + 1) % n));
    }
    s.queue
        .files
        .iter()
        .filter(|f| f.id != file)
        .find(|f| matches!(&f.status, FileStatus::Ready(x) if !x.trajectories.is_empty()))
        .map(|f| (f.id, 0))
}

impl Compare {
    fn go(&mut self, row: usize) {
        self.row = Some(row);
        self.nonce += 1;
        self.scroll_to = Some((row, self.nonce));
    }

    fn pick(&mut self, right: Option<Run>) {
        if self.right != right || self.pending_right.is_some() {
            self.right = right;
            self.pending_right = None;
        }
    }
}

/// The next state of the page for a compare message.
pub fn update(s: &mut State, m: Msg) {
    match m {
        Msg::Enter => {
            if s.page.mode != Mode::Compare {
                s.compare.back_to = s.page.mode;
            }
            s.page.mode = Mode::Compare;
            if right_of(s).is_none() {
                let r = default_right(s);
                s.compare.pick(r);
            }
        }
        Msg::Leave => {
            if s.page.mode == Mode::Compare {
                s.page.mode = s.compare.back_to;
            }
        }
        Msg::With(run) => {
            if s.page.mode != Mode::Compare {
                s.compare.back_to = s.page.mode;
            }
            s.page.mode = Mode::Compare;
            s.compare.pick(Some(run));
        }
        Msg::SetRight(r) => s.compare.pick(r),
        Msg::Swap => {
            if let (Mode::Compare, Some((l, r))) = (s.page.mode, pair_of(s)) {
                if l != r {
                    s.compare.pick(Some(l));
                    s.select(r.0, r.1);
                }
            }
        }
        Msg::Move(d) => {
            if let Some(l) = current(s) {
                let n = l.cmp.pairs.len();
                if n > 0 {
                    let row = match s.compare.row {
                        None => 0,
                        Some(r) => (r as i64 + d).clamp(0, n as i64 - 1) as usize,
                    };
                    s.compare.go(row);
                }
            }
        }
        Msg::NextChange(d) => {
            if let Some(l) = current(s) {
                let pairs = &l.cmp.pairs;
                let differs = |r: &usize| pairs[*r].kind != PairKind::Equal;
                let at = s.compare.row;
                let found = if d > 0 {
                    let from = at.map_or(0, |r| r + 1);
                    (from..pairs.len()).find(differs)
                } else {
                    (0..at.unwrap_or(0)).rev().find(differs)
                };
                if let Some(r) = found {
                    s.compare.go(r);
                }
            }
        }
        Msg::FirstDivergence => {
            if s.page.mode == Mode::Compare {
                if let Some(d) = current(s).and_then(|l| l.cmp.first_divergence) {
                    s.compare.go(d.pair);
                }
            }
        }
        Msg::SelectRow(r) => s.compare.row = Some(r),
        Msg::GoStep(side, step) => {
            if let Some(r) = current(s).and_then(|l| l.row_of(side, step)) {
                s.compare.go(r);
            }
        }
    }
}

/// The comparison on screen, when the worker's answer is for the pair shown.
pub fn current(s: &State) -> Option<Rc<Loaded>> {
    let l = s.compare.loaded.clone()?;
    (pair_of(s) == Some((l.left, l.right))).then_some(l)
}

/// The worker's comparison: kept when it is for the pair shown, and its first divergence (or
/// the first row) selected and scrolled to.
pub fn on_compared(
    s: &mut State,
    left: Run,
    right: Run,
    cmp: Comparison,
    left_columns: StepColumns,
    right_columns: StepColumns,
) {
    if pair_of(s) != Some((left, right)) {
        return;
    }
    let row = cmp.first_divergence.map_or(0, |d| d.pair);
    let any = !cmp.pairs.is_empty();
    s.compare.loaded = Some(Rc::new(Loaded::new(left, right, cmp, left_columns, right_columns)));
    s.compare.row = None;
    if any {
        s.compare.go(row);
    }
}

/// Step texts from the worker, kept when they belong to a run on screen.
pub fn on_steps(c: &mut Compare, file: u32, traj: u32, steps: &[StepView]) {
    let Some(l) = &c.loaded else { return };
    if l.left != (file, traj) && l.right != (file, traj) {
        return;
    }
    let mut cache = (*c.cache).clone();
    if cache.len() > CACHE_MAX {
        cache.clear();
    }
    for v in steps {
        cache.insert((file, traj, v.index, v.grain), Rc::new(v.clone()));
    }
    c.cache = Rc::new(cache);
}

#[derive(Properties, PartialEq)]
pub struct Props {
    pub state: UseReducerHandle<State>,
    pub ctx: Ctx,
}

pub fn view(state: &UseReducerHandle<State>, ctx: &Ctx) -> Html {
    html! { <CompareView state={state.clone()} ctx={ctx.clone()} /> }
}

/// The rows of an `n`-row list to render when the box shows `height` pixels from `top`.
pub fn window(n: usize, top: f64, height: f64) -> std::ops::Range<usize> {
    let first = ((top.max(0.0) / ROW_HEIGHT) as usize).min(n).saturating_sub(OVERSCAN);
    let last = (((top.max(0.0) + height.max(0.0)) / ROW_HEIGHT).ceil() as usize + OVERSCAN).min(n);
    first..last.max(first)
}

#[function_component(CompareView)]
fn compare_view(props: &Props) -> Html {
    let state = &props.state;
    let ctx = &props.ctx;
    let scroller = use_node_ref();
    let scroll_top = use_state(|| 0.0f64);
    let viewport = use_state(|| 500.0f64);
    let requested = use_mut_ref(HashSet::<TextKey>::new);
    // The cache's size when last looked at: smaller means it started over, and what was asked
    // before is asked again when shown.
    let cache_len = use_mut_ref(|| 0usize);
    let asked = use_mut_ref(|| None::<(Run, Run)>);
    let expanded = use_state(|| Rc::new(HashSet::<(Side, u32)>::new()));
    let pair = pair_of(state);
    let loaded = current(state);

    // Ask the worker to compare the pair on screen (once per pair).
    {
        let (ctx, asked, requested) = (ctx.clone(), asked.clone(), requested.clone());
        let have = loaded.is_some();
        use_effect_with((pair, have), move |(pair, have)| {
            if let (Some((left, right)), false) = (*pair, *have) {
                if *asked.borrow() != Some((left, right)) {
                    *asked.borrow_mut() = Some((left, right));
                    requested.borrow_mut().clear();
                    let req = ctx.req_id();
                    ctx.send(&Request::Compare { req, left, right });
                }
            }
        });
    }

    let n = loaded.as_ref().map_or(0, |l| l.cmp.pairs.len());
    let shown = window(n, *scroll_top, *viewport);

    // Ask for the texts of the rows on screen (low grain) and of the selected row (high).
    {
        let (ctx, state, requested) = (ctx.clone(), state.clone(), requested.clone());
        let (loaded, shown, cache_len) = (loaded.clone(), shown.clone(), cache_len.clone());
        use_effect(move || {
            let Some(l) = loaded else { return };
            let len = state.compare.cache.len();
            if len < std::mem::replace(&mut *cache_len.borrow_mut(), len) {
                requested.borrow_mut().clear();
            }
            let mut want: [Vec<(u32, Grain)>; 2] = [Vec::new(), Vec::new()];
            let mut req = requested.borrow_mut();
            let cache = &state.compare.cache;
            let mut add = |side: usize, run: Run, step: Option<u32>, g: Grain| {
                if let Some(i) = step {
                    let k = (run.0, run.1, i, g);
                    if !cache.contains_key(&k) && req.insert(k) {
                        want[side].push((i, g));
                    }
                }
            };
            let sel = state.compare.row.and_then(|r| l.cmp.pairs.get(r)).copied();
            for p in shown.clone().filter_map(|r| l.cmp.pairs.get(r)).chain(sel.as_ref()) {
                add(0, l.left, p.left, Grain::Low);
                add(1, l.right, p.right, Grain::Low);
            }
            if let Some(p) = sel {
                add(0, l.left, p.left, Grain::High);
                add(1, l.right, p.right, Grain::High);
            }
            drop(req);
            for (items, run) in want.into_iter().zip([l.left, l.right]) {
                if !items.is_empty() {
                    let req = ctx.req_id();
                    ctx.send(&Request::Steps { req, file: run.0, traj: run.1, items });
                }
            }
        });
    }

    // Size the space above and below the rendered rows (through the CSSOM: the CSP forbids
    // inline styles); the list is always n rows tall.
    {
        let (scroller, shown) = (scroller.clone(), shown.clone());
        use_effect(move || place(&scroller, &shown, n));
    }

    // Scroll a row into view when asked (arrival at the first divergence, keys, buttons).
    {
        let (scroller, scroll_top, viewport) =
            (scroller.clone(), scroll_top.clone(), viewport.clone());
        let target = state.compare.scroll_to;
        let shown = shown.clone();
        use_effect_with((target, n), move |(target, n)| {
            let (Some((row, _)), Some(el)) = (*target, scroller.cast::<web_sys::HtmlElement>())
            else {
                return;
            };
            // The list's height first, so the scroll position is not clamped to an old one.
            place(&scroller, &shown, *n);
            let vh = f64::from(el.client_height()).max(ROW_HEIGHT);
            viewport.set(vh);
            let top = row as f64 * ROW_HEIGHT;
            let cur = f64::from(el.scroll_top());
            if top < cur || top + ROW_HEIGHT > cur + vh {
                let y = (top - vh / 3.0).max(0.0);
                el.set_scroll_top(y as i32);
                scroll_top.set(f64::from(el.scroll_top()));
            }
        });
    }

    let onscroll = super::list::track_scroll(&scroll_top, &viewport);

    let head = header(state, loaded.as_deref());
    let body = match (&pair, &loaded) {
        (None, _) if state.sel().is_none() => html! {
            <p class="muted" data-testid="compare-empty">{"Open a trace and pick a trajectory in the queue: it is the left run."}</p>
        },
        (None, _) => html! {
            <p class="muted" data-testid="compare-empty">{"Pick the run to compare with (Right, above), or press the ⇄ button of another trajectory in the queue. Open a second file to compare across files."}</p>
        },
        (Some(_), None) => {
            html! { <p class="muted" aria-busy="true" data-testid="compare-pending">{"Aligning the two runs…"}</p> }
        }
        (Some(_), Some(l)) => {
            let rows = shown.clone().map(|r| row(state, l, r));
            html! {
                <div class="cmp-scroller" ref={scroller.clone()} {onscroll} data-testid="compare-list" tabindex="0"
                     aria-label={format!("{} aligned rows", l.cmp.pairs.len())}>
                    <ol class="pairs" role="listbox" aria-label="Aligned steps (j / k)">{ for rows }</ol>
                </div>
            }
        }
    };
    let detail = loaded.as_ref().and_then(|l| {
        let r = state.compare.row?;
        let p = l.cmp.pairs.get(r)?;
        let on_toggle = |side: Side| {
            let expanded = expanded.clone();
            Callback::from(move |i: u32| {
                let mut set = (**expanded).clone();
                if !set.remove(&(side, i)) {
                    set.insert((side, i));
                }
                expanded.set(Rc::new(set));
            })
        };
        let cell = |side: Side, run: Run, step: Option<u32>, cols: &StepColumns, critical: Option<u32>| {
            let Some(i) = step else {
                return html! { <div class={classes!("cmp-step", "none")}><p class="muted">{ format!("Not in the {} run.", side_name(side)) }</p></div> };
            };
            let ix = i as usize;
            let view = state.compare.cache.get(&(run.0, run.1, i, Grain::High)).cloned();
            let role = name_of(&ROLE_NAMES, cols.role.get(ix), "other");
            let kind = name_of(&KIND_NAMES, cols.kind.get(ix), "message");
            let actor = cols
                .actor
                .get(ix)
                .and_then(|&a| cols.actors.get(usize::from(a)))
                .cloned()
                .unwrap_or_default();
            let card = transcript::card(&Card {
                index: i,
                role,
                kind,
                actor: &actor,
                line: cols.line.get(ix).copied().unwrap_or(0),
                is_error: cols.is_error.get(ix).copied().unwrap_or(false),
                candidate: false,
                critical: critical == Some(i),
                grain: Grain::High,
                view: view.as_deref(),
                query: "",
                quotes: &[],
                expanded: expanded.contains(&(side, i)),
                on_toggle: on_toggle(side),
                on_source: None,
            });
            html! {
                <div class={classes!("cmp-step", "step", format!("role-{role}"), format!("kind-{kind}"))}
                     data-testid={format!("compare-detail-{}", side_name(side))} data-step={i.to_string()}
                     data-loaded={view.is_some().to_string()}>
                    { card }
                </div>
            }
        };
        Some(html! {
            <section class="cmp-detail" aria-label={format!("Row {} in full", r + 1)} data-testid="compare-detail">
                { cell(Side::Left, l.left, p.left, &l.left_columns, l.cmp.left.critical_step) }
                { cell(Side::Right, l.right, p.right, &l.right_columns, l.cmp.right.critical_step) }
            </section>
        })
    });
    html! {
        <section class="compare" data-testid="compare" aria-label="Compare two runs">
            { head }
            { body }
            { for detail }
        </section>
    }
}

/// Pads the list of `n` rows above and below the rendered ones, so it is always `n` rows tall.
fn place(scroller: &NodeRef, shown: &std::ops::Range<usize>, n: usize) {
    let Some(ol) = scroller
        .cast::<web_sys::Element>()
        .and_then(|el| el.query_selector("ol.pairs").ok().flatten())
        .and_then(|ol| ol.dyn_into::<web_sys::HtmlElement>().ok())
    else {
        return;
    };
    let top = shown.start.min(n) as f64 * ROW_HEIGHT;
    let bottom = n.saturating_sub(shown.end) as f64 * ROW_HEIGHT;
    ol.style().set_property("padding-top", &format!("{top}px")).ok();
    ol.style().set_property("padding-bottom", &format!("{bottom}px")).ok();
}

fn side_name(side: Side) -> &'static str {
    match side {
        Side::Left => "left",
        Side::Right => "right",
    }
}

fn name_of(names: &[&'static str], i: Option<&u8>, or: &'static str) -> &'static str {
    i.and_then(|&i| names.get(usize::from(i)).copied()).unwrap_or(or)
}

/// One line of a step for its row: the tool and its arguments, else the text, whitespace
/// folded.
fn one_line(v: &StepView) -> String {
    let text = match &v.parts {
        Some(p) => match (&p.tool, &p.args) {
            (Some(t), Some(a)) => format!("{t} {a}"),
            (Some(t), None) if !p.text.is_empty() => format!("{t}: {}", p.text),
            _ => p.text.clone(),
        },
        None => v.text.clone(),
    };
    let mut out = String::with_capacity(200);
    for w in text.split_whitespace() {
        if out.len() > 240 {
            out.push('…');
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

/// One aligned row: the left step, the mark, the right step.
fn row(state: &UseReducerHandle<State>, l: &Loaded, r: usize) -> Html {
    let p = l.cmp.pairs[r];
    let selected = state.compare.row == Some(r);
    let divergence = l.cmp.first_divergence.is_some_and(|d| d.pair == r);
    let (mark, what) = match p.kind {
        PairKind::Equal => ("=", "the same step"),
        PairKind::Changed => ("≠", "different steps"),
        PairKind::LeftOnly => ("◀", "only in the left run"),
        PairKind::RightOnly => ("▶", "only in the right run"),
    };
    let cell = |side: Side,
                run: Run,
                step: Option<u32>,
                cols: &StepColumns,
                critical: Option<u32>| {
        let Some(i) = step else {
            return html! { <div class={classes!("cell", "none")} data-side={side_name(side)}><span class="muted">{"—"}</span></div> };
        };
        let ix = i as usize;
        let role = name_of(&ROLE_NAMES, cols.role.get(ix), "other");
        let kind = name_of(&KIND_NAMES, cols.kind.get(ix), "message");
        let view = state
            .compare
            .cache
            .get(&(run.0, run.1, i, Grain::Low))
            .or_else(|| state.compare.cache.get(&(run.0, run.1, i, Grain::High)));
        let is_error = cols.is_error.get(ix).copied().unwrap_or(false);
        let crit = critical == Some(i);
        html! {
            <div class={classes!("cell", format!("role-{role}"), is_error.then_some("error"), crit.then_some("critical"))}
                 data-side={side_name(side)} data-step={i.to_string()}>
                <div class="who">
                    <span class="idx">{ format!("#{i}") }</span>
                    <span class="role">{ role }</span>
                    <span class="kind">{ kind.replace('_', " ") }</span>
                    if is_error { <span class="tag tag-err">{"error"}</span> }
                    if crit { <span class="tag tag-crit" data-testid={format!("critical-{}", side_name(side))}>{"critical"}</span> }
                </div>
                <div class="line">{
                    super::bidi::text(&match view { Some(v) => one_line(v), None => "…".to_string() })
                }</div>
            </div>
        }
    };
    let onclick = {
        let d = state.dispatcher();
        Callback::from(move |_| d.dispatch(Action::Compare(Msg::SelectRow(r))))
    };
    html! {
        <li key={r} data-testid={if divergence { "divergence" } else { "pair" }} data-row={r.to_string()}
            data-kind={p.kind.name()}
            data-left-step={p.left.map(|s| s.to_string())} data-right-step={p.right.map(|s| s.to_string())}
            role="option" aria-selected={selected.to_string()} id={format!("pair-{r}")}
            class={classes!("pair", format!("k-{}", p.kind.name()), selected.then_some("selected"), divergence.then_some("divergence"))}
            {onclick}>
            { cell(Side::Left, l.left, p.left, &l.left_columns, l.cmp.left.critical_step) }
            <div class="gutter" title={what}>
                <span aria-hidden="true">{ mark }</span>
                <span class="sr-only">{ what }</span>
                if divergence { <span class="div-flag">{"first divergence"}</span> }
            </div>
            { cell(Side::Right, l.right, p.right, &l.right_columns, l.cmp.right.critical_step) }
        </li>
    }
}

/// Every trajectory of the loaded files, for a side picker (at most [`PICKER_MAX`], the
/// picked one always).
fn picker(state: &UseReducerHandle<State>, side: Side, value: Option<Run>) -> Html {
    let d = state.dispatcher();
    let onchange = Callback::from(move |e: Event| {
        let el: web_sys::HtmlSelectElement = e.target_unchecked_into();
        let v = el.value();
        let run = v.split_once(':').and_then(|(f, t)| Some((f.parse().ok()?, t.parse().ok()?)));
        match (side, run) {
            (Side::Left, Some((file, traj))) => d.dispatch(Action::Select { file, traj }),
            (Side::Right, r) => d.dispatch(Action::Compare(Msg::SetRight(r))),
            (Side::Left, None) => {}
        }
    });
    let mut budget = PICKER_MAX;
    let groups = state.queue.files.iter().filter_map(|f| {
        let FileStatus::Ready(s) = &f.status else { return None };
        let options = s
            .trajectories
            .iter()
            .enumerate()
            .filter(|(t, _)| {
                let picked = value == Some((f.id, *t as u32));
                let keep = budget > 0 || picked;
                budget = budget.saturating_sub(1);
                keep
            })
            .map(|(t, info)| {
                let v = format!("{}:{t}", f.id);
                let picked = value == Some((f.id, t as u32));
                html! {
                    <option value={v} selected={picked}>{
                        super::bidi::visible(&format!("{} · {} steps · {}", info.id, info.steps, super::queue::outcome_name(info.outcome)))
                    }</option>
                }
            })
            .collect::<Html>();
        Some(html! { <optgroup label={super::bidi::visible(&f.name)}>{ options }</optgroup> })
    });
    let name = side_name(side);
    html! {
        <select data-testid={format!("compare-pick-{name}")} aria-label={format!("The {name} run")} {onchange}>
            if value.is_none() { <option value="" selected=true>{"— pick a run —"}</option> }
            { for groups }
        </select>
    }
}

/// The top: each run's picker, outcome and critical step; the first divergence and the counts.
fn header(state: &UseReducerHandle<State>, loaded: Option<&Loaded>) -> Html {
    let d = state.dispatcher();
    let side = |side: Side, run: Option<Run>| {
        let name = side_name(side);
        let facts = loaded.map(|l| match side {
            Side::Left => &l.cmp.left,
            Side::Right => &l.cmp.right,
        });
        let file = run.and_then(|(f, _)| state.queue.files.by_id(f)).map(|f| f.name.clone());
        let outcome = facts.map(|f| super::queue::outcome_name(f.outcome));
        let critical = facts.and_then(|f| f.critical_step);
        let go = {
            let d = d.clone();
            Callback::from(move |_| {
                if let Some(c) = critical {
                    d.dispatch(Action::Compare(Msg::GoStep(side, c)))
                }
            })
        };
        html! {
            <div class={classes!("cmp-side", format!("cmp-{name}"))} data-testid={format!("compare-{name}")}
                 data-outcome={outcome} data-critical={critical.map(|c| c.to_string())}>
                <div class="cmp-pick">
                    <span class="cmp-label">{ if side == Side::Left { "Left" } else { "Right" } }</span>
                    { picker(state, side, run) }
                </div>
                if let Some(f) = facts {
                    <p class="cmp-facts">
                        if let Some(file) = file { <span class="muted cmp-file" title={super::bidi::visible(&file)}>{ super::bidi::text(&file) }</span> }
                        <span>{ format!("{} steps", f.steps) }</span>
                        <span class={classes!("outcome", outcome)} data-testid={format!("compare-outcome-{name}")}>{ outcome.unwrap_or_default() }</span>
                        if let Some(c) = critical {
                            <button class="link" data-testid={format!("compare-critical-{name}")} onclick={go}
                                    title="Go to the row of this run's critical step">{ format!("critical step #{c}") }</button>
                        } else {
                            <span class="muted" data-testid={format!("compare-critical-{name}")}>{"no critical step"}</span>
                        }
                    </p>
                }
            </div>
        }
    };
    let first = {
        let d = d.clone();
        Callback::from(move |_| d.dispatch(Action::Compare(Msg::FirstDivergence)))
    };
    let swap = {
        let d = d.clone();
        Callback::from(move |_| d.dispatch(Action::Compare(Msg::Swap)))
    };
    let leave = {
        let d = d.clone();
        Callback::from(move |_| d.dispatch(Action::Compare(Msg::Leave)))
    };
    let summary = loaded.map(|l| {
        let c = l.cmp.counts;
        let div = match l.cmp.first_divergence {
            None => "The runs agree on every step.".to_string(),
            Some(x) => format!(
                "First divergence at row {}: left {} · right {}.",
                x.pair + 1,
                x.left_step.map_or("ended".to_string(), |s| format!("#{s}")),
                x.right_step.map_or("ended".to_string(), |s| format!("#{s}")),
            ),
        };
        html! {
            <p class="cmp-summary" data-testid="compare-summary">
                <strong>{ div }</strong>
                <span class="muted">{ format!(" {} same · {} different · {} only left · {} only right", c.equal, c.changed, c.left_only, c.right_only) }</span>
            </p>
        }
    });
    let has_div = loaded.is_some_and(|l| l.cmp.first_divergence.is_some());
    html! {
        <header class="cmp-head panel">
            <div class="cmp-sides">
                { side(Side::Left, state.sel()) }
                { side(Side::Right, right_of(state)) }
            </div>
            <div class="cmp-bar">
                { for summary }
                <span class="spacer" />
                <button class="button" data-testid="jump-divergence" onclick={first} disabled={!has_div}
                        title="Go to the first divergence (d)">{"First divergence"}<kbd>{"d"}</kbd></button>
                <button class="button" data-testid="compare-swap" onclick={swap} title="Swap the runs (s)">{"Swap"}<kbd>{"s"}</kbd></button>
                <button class="button" data-testid="compare-leave" onclick={leave} title="Leave the comparison (Esc)">{"Done"}<kbd>{"Esc"}</kbd></button>
            </div>
        </header>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use trajscope_core::diff::{align_keys, Counts, Divergence};
    use trajscope_core::model::Outcome;

    fn comparison(l: &[u32], r: &[u32]) -> Comparison {
        let pairs = align_keys(l, r);
        let side = |n: usize| trajscope_core::diff::Side {
            id: "x".into(),
            steps: n,
            outcome: Outcome::Failed,
            critical_step: Some(1),
        };
        let pair = pairs.iter().position(|p| p.kind != PairKind::Equal);
        Comparison {
            left: side(l.len()),
            right: side(r.len()),
            first_divergence: pair.map(|pair| Divergence {
                pair,
                left_step: pairs[pair].left,
                right_step: pairs[pair].right,
            }),
            counts: Counts::default(),
            pairs,
        }
    }

    #[test]
    fn rows_of_each_side_and_the_window() {
        let c = comparison(&[1, 2, 3, 4], &[1, 2, 9, 3, 4]);
        let l = Loaded::new((1, 0), (1, 1), c, StepColumns::default(), StepColumns::default());
        assert_eq!(l.row_of(Side::Left, 2), Some(3), "after the right-only row");
        assert_eq!(l.row_of(Side::Right, 2), Some(2));
        assert_eq!(l.row_of(Side::Left, 9), None);
        assert_eq!(window(100_000, 0.0, 520.0), 0..16);
        let w = window(100_000, 52.0 * 50_000.0, 520.0);
        assert_eq!((w.start, w.end), (49_994, 50_016));
        assert_eq!(window(3, 0.0, 520.0), 0..3);
    }

    fn overview(id: &str, task: &str) -> crate::protocol::Overview {
        serde_json::from_value(serde_json::json!({
            "id": id, "steps": 4, "outcome": "failed", "task": task, "gold": null, "errors": 0,
            "agents": [], "roles": [], "repeated_action": null, "analysed": true,
            "candidates": [], "critical": null, "classification": null, "failure_mode": null,
            "signals": trajscope_core::classify::Signals::default(), "triggers": [],
            "record": trajscope_core::record::AttributionRecord::default(),
        }))
        .unwrap()
    }

    /// A page with files of these trajectories (id, task) loaded, the first one selected.
    fn page(files: &[&[(&str, &str)]]) -> State {
        let mut s = State::default();
        for (k, runs) in files.iter().enumerate() {
            let summary = crate::protocol::TraceSummary {
                content_hash: "sha256:x".into(),
                format: "awtl".into(),
                stats: Default::default(),
                error: None,
                quarantine: Rc::default(),
                quarantine_total: 0,
                rows: vec![],
                trajectories: runs.iter().map(|(id, task)| Rc::new(overview(id, task))).collect(),
                analysed: runs.len() as u32,
                cases: Rc::default(),
                cases_jsonl: Rc::from(""),
                brief_markdown: Rc::from(""),
                analysis_done: true,
                secrets: vec![],
                secrets_total: 0,
                secrets_scanned: 0,
                secrets_of: 0,
                reading: None,
                revised: Vec::new(),
                kept: 0,
                growing: None,
            };
            s.queue.files.push(super::super::state::FileEntry {
                id: k as u32 + 1,
                batch: k as u32 + 1,
                name: format!("f{k}").into(),
                size: 1.0,
                status: FileStatus::Ready(Rc::new(summary)),
            });
        }
        s.selection.current = Some((1, 0));
        s
    }

    fn act(s: State, a: Action) -> State {
        use yew::Reducible as _;
        (*Rc::new(s).reduce(a)).clone()
    }

    fn answer(s: &mut State, left: Run, right: Run, l: &[u32], r: &[u32]) {
        let cols = |n: usize| StepColumns { role: vec![2; n], ..StepColumns::default() };
        on_compared(s, left, right, comparison(l, r), cols(l.len()), cols(r.len()));
    }

    #[test]
    fn entering_picks_a_likely_run_and_escape_returns() {
        // Another trial of the same task first, even when it is not the next one.
        let s = page(&[&[("a", "t1"), ("b", "t2"), ("c", "t1")]]);
        let s = act(s, PageAction::SetMode(Mode::Annotate).into());
        let mut s = act(s, PageAction::SetMode(Mode::Compare).into());
        assert_eq!((s.page.mode, right_of(&s)), (Mode::Compare, Some((1, 2))));
        s.nav.step = Some(0);
        // The shared keys are the view's while comparing; `c` does nothing.
        let s = act(s, Action::MarkCritical);
        assert_eq!((s.page.mode, s.labels.mark_count), (Mode::Compare, 0));
        let s = act(s, PageAction::CloseHelp.into());
        assert_eq!(s.page.mode, Mode::Annotate, "Escape goes back to the mode before");
        // No same task: the next one; one trajectory: another file's first.
        let s =
            act(page(&[&[("a", "t1"), ("b", "t2")]]), PageAction::SetMode(Mode::Compare).into());
        assert_eq!(right_of(&s), Some((1, 1)));
        let s =
            act(page(&[&[("a", "t")], &[("b", "t")]]), PageAction::SetMode(Mode::Compare).into());
        assert_eq!(right_of(&s), Some((2, 0)));
        // Nothing else loaded: no right run, and the view says how to get one.
        let s = act(page(&[&[("a", "t")]]), PageAction::SetMode(Mode::Compare).into());
        assert_eq!((s.page.mode, pair_of(&s)), (Mode::Compare, None));
    }

    #[test]
    fn the_answer_selects_the_first_divergence_and_keys_walk_the_rows() {
        let s = page(&[&[("a", "t"), ("b", "t")]]);
        let mut s = act(s, Action::Compare(Msg::With((1, 1))));
        // An answer for another pair is dropped.
        answer(&mut s, (1, 1), (1, 0), &[1, 2], &[1, 3]);
        assert!(current(&s).is_none());
        answer(&mut s, (1, 0), (1, 1), &[1, 2, 3, 4, 5], &[1, 2, 9, 4, 7]);
        assert_eq!(s.compare.row, Some(2), "the first divergence, selected");
        let first = s.compare.scroll_to;
        assert!(first.is_some());
        let s = act(s, NavAction::Move(1).into());
        assert_eq!(s.compare.row, Some(3));
        assert_ne!(s.compare.scroll_to, first, "each move scrolls");
        let s = act(s, Action::MoveCandidate(1));
        assert_eq!(s.compare.row, Some(4), "n: the next difference");
        let s = act(s, Action::MoveCandidate(1));
        assert_eq!(s.compare.row, Some(4), "none after it");
        let s = act(s, Action::MoveCandidate(-1));
        assert_eq!(s.compare.row, Some(2));
        let s = act(s, NavAction::Move(-10).into());
        assert_eq!(s.compare.row, Some(0), "clamped");
        let s = act(s, Action::Compare(Msg::FirstDivergence));
        assert_eq!(s.compare.row, Some(2));
        let s = act(s, Action::Compare(Msg::GoStep(Side::Right, 4)));
        assert_eq!(s.compare.row, Some(4));
        // Outside Compare, the keys are the transcript's again and d / s do nothing.
        let s = act(s, PageAction::SetMode(Mode::Review).into());
        let s = act(s, Action::Compare(Msg::FirstDivergence));
        assert_eq!(s.compare.row, Some(4));
        let s = act(s, Action::Compare(Msg::Swap));
        assert_eq!(s.sel(), Some((1, 0)));
    }

    #[test]
    fn swap_and_the_hash_keep_positions_only() {
        let s = page(&[&[("a", "t")], &[("b", "t")]]);
        let s = act(s, Action::Compare(Msg::With((2, 0))));
        let h = s.hash_view().unwrap();
        assert_eq!(h.to_hash(), "#f=0&t=0&g=medium&m=compare&vs=1.0");
        let s = act(s, Action::Compare(Msg::Swap));
        assert_eq!((s.sel(), right_of(&s)), (Some((2, 0)), Some((1, 0))));
        // A deep link's right run waits for its file's position to be loaded.
        let mut s = page(&[&[("a", "t")]]);
        s.compare.pending_right = Some((1, 0));
        assert_eq!(right_of(&s), None);
        let mut two = page(&[&[("a", "t")], &[("b", "t")]]);
        two.compare.pending_right = Some((1, 0));
        assert_eq!(right_of(&two), Some((2, 0)));
        // A removed file is no right run.
        let s = act(two, super::super::state::QueueAction::Forget(2).into());
        assert_eq!(right_of(&s), None);
    }

    #[test]
    fn one_line_folds_whitespace_and_cuts() {
        let v = StepView {
            index: 0,
            grain: Grain::Low,
            text: "a\n\n  b\tc".into(),
            full_chars: 7,
            timestamp: None,
            usage: None,
            parts: None,
            source: None,
        };
        assert_eq!(one_line(&v), "a b c");
        let long = StepView { text: "word ".repeat(200), ..v };
        assert!(one_line(&long).chars().count() < 260 && one_line(&long).ends_with('…'));
    }
}
