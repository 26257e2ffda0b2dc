//! The timeline strip: an SVG picture of the whole trajectory — where the errors, the
//! candidates, the gold label and the selected step are, and, when the trace records usage, a
//! band of where the tokens went with stalls (a minute or more to the next step) marked.
//! Clicking it jumps to that step.

use wasm_bindgen::JsCast as _;
use yew::prelude::*;

use super::{NavAction, State};

const W: f64 = 1000.0;

pub fn strip(state: &UseReducerHandle<State>) -> Html {
    let Some(c) = state.nav.columns.clone() else { return html! {} };
    let n = c.line.len();
    if n == 0 {
        return html! {};
    }
    let x = move |i: u32| (f64::from(i) + 0.5) / n as f64 * W;
    // One mark per pixel column at most, so a 100,000-step trace stays a small picture. The
    // steps come in order and `x` keeps it, so equal columns are neighbours: each list is
    // sorted and deduplicated as it is built (no ordered set in the bundle for it).
    let mut errors: Vec<u32> = c
        .is_error
        .iter()
        .enumerate()
        .filter(|(_, e)| **e)
        .map(|(i, _)| x(i as u32) as u32)
        .collect();
    errors.dedup();
    // Tokens per pixel column (the largest step there), scaled to the band's height.
    let mut token_px: Vec<(u32, u64)> = Vec::new();
    for (i, &t) in c.tokens.iter().enumerate().filter(|(_, t)| **t > 0) {
        let px = x(i as u32) as u32;
        match token_px.last_mut() {
            Some((last, top)) if *last == px => *top = (*top).max(t),
            _ => token_px.push((px, t)),
        }
    }
    let top = token_px.iter().map(|&(_, t)| t).max().unwrap_or(0).max(1) as f64;
    // (`stalls` holds step indices in order: `session::steps`.)
    let mut stalls: Vec<u32> = c.stalls.iter().map(|&i| x(i) as u32).collect();
    stalls.dedup();
    let band = !token_px.is_empty() || !stalls.is_empty();
    let height = if band { 50 } else { 36 };
    let gold = state.sel().and_then(|(f, t)| {
        state.queue.summary(f)?.trajectories.get(t as usize)?.gold.as_ref()?.step
    });
    let onclick = {
        let d = state.dispatcher();
        Callback::from(move |e: MouseEvent| {
            let Some(el) = e.current_target().and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            else {
                return;
            };
            let w = el.get_bounding_client_rect().width();
            if w > 0.0 {
                let i = ((f64::from(e.offset_x()) / w) * n as f64).floor() as i64;
                d.dispatch(NavAction::Go(i.clamp(0, n as i64 - 1) as u32).into());
            }
        })
    };
    html! {
        <section class="timeline panel" aria-label="Timeline">
            <svg data-testid="timeline" class={classes!(band.then_some("with-usage"))} viewBox={format!("0 0 {W} {height}")} preserveAspectRatio="none"
                 role="img" aria-label={format!("Timeline of {n} steps: {} error marks, {} candidates", errors.len(), state.selection.candidates.len())}
                 {onclick}>
                <rect class="tl-base" x="0" y="14" width={W.to_string()} height="8" />
                { for errors.iter().map(|&px| html! {
                    <rect class="tl-error" data-testid="tl-error" x={px.to_string()} y="10" width="2" height="16" />
                }) }
                { for state.selection.candidates.iter().map(|cand| html! {
                    <rect class="tl-candidate" data-testid="tl-candidate" x={format!("{:.1}", x(cand.step) - 2.0)} y="2" width="4" height="10" />
                }) }
                if let Some(g) = gold {
                    <rect class="tl-label" data-testid="tl-label" x={format!("{:.1}", x(g) - 2.0)} y="24" width="4" height="10" />
                }
                { for token_px.iter().map(|&(px, t)| {
                    let h = (t as f64 / top * 12.0).max(1.0);
                    html! { <rect class="tl-tokens" data-testid="tl-tokens" x={px.to_string()} y={format!("{:.1}", 50.0 - h)} width="2" height={format!("{h:.1}")} /> }
                }) }
                { for stalls.iter().map(|&px| html! {
                    <rect class="tl-stall" data-testid="tl-stall" x={px.to_string()} y="38" width="3" height="12" />
                }) }
                if let Some(s) = state.nav.step {
                    <rect class="tl-selected" data-testid="tl-selected" x={format!("{:.1}", x(s) - 1.0)} y="0" width="2" height={height.to_string()} />
                }
            </svg>
            <div class="tl-legend muted">
                <span class="lg lg-err">{"errors"}</span><span class="lg lg-cand">{"candidates"}</span>
                <span class="lg lg-label">{"label"}</span><span class="lg lg-sel">{"selected"}</span>
                if band { <span class="lg lg-tokens">{"tokens"}</span><span class="lg lg-stall">{"stall ≥ 1 min"}</span> }
            </div>
        </section>
    }
}
