//! The timeline strip: an SVG picture of the whole trajectory — where the errors, the
//! candidates, the gold label and the selected step are. Clicking it jumps to that step.

use std::collections::BTreeSet;

use wasm_bindgen::JsCast as _;
use yew::prelude::*;

use super::{Action, State};

const W: f64 = 1000.0;

pub fn strip(state: &UseReducerHandle<State>) -> Html {
    let Some(c) = state.columns.clone() else { return html! {} };
    let n = c.line.len();
    if n == 0 {
        return html! {};
    }
    let x = move |i: u32| (f64::from(i) + 0.5) / n as f64 * W;
    // One mark per pixel column at most, so a 100,000-step trace stays a small picture.
    let errors: BTreeSet<u32> = c
        .is_error
        .iter()
        .enumerate()
        .filter(|(_, e)| **e)
        .map(|(i, _)| x(i as u32) as u32)
        .collect();
    let gold = state
        .sel
        .and_then(|(f, t)| state.summary(f)?.trajectories.get(t as usize)?.gold.as_ref()?.step);
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
                d.dispatch(Action::GoStep(i.clamp(0, n as i64 - 1) as u32));
            }
        })
    };
    html! {
        <section class="timeline panel" aria-label="Timeline">
            <svg data-testid="timeline" viewBox={format!("0 0 {W} 36")} preserveAspectRatio="none"
                 role="img" aria-label={format!("Timeline of {n} steps: {} error marks, {} candidates", errors.len(), state.candidates.len())}
                 {onclick}>
                <rect class="tl-base" x="0" y="14" width={W.to_string()} height="8" />
                { for errors.iter().map(|&px| html! {
                    <rect class="tl-error" data-testid="tl-error" x={px.to_string()} y="10" width="2" height="16" />
                }) }
                { for state.candidates.iter().map(|cand| html! {
                    <rect class="tl-candidate" data-testid="tl-candidate" x={format!("{:.1}", x(cand.step) - 2.0)} y="2" width="4" height="10" />
                }) }
                if let Some(g) = gold {
                    <rect class="tl-label" data-testid="tl-label" x={format!("{:.1}", x(g) - 2.0)} y="24" width="4" height="10" />
                }
                if let Some(s) = state.selected_step {
                    <rect class="tl-selected" data-testid="tl-selected" x={format!("{:.1}", x(s) - 1.0)} y="0" width="2" height="36" />
                }
            </svg>
            <div class="tl-legend muted">
                <span class="lg lg-err">{"errors"}</span><span class="lg lg-cand">{"candidates"}</span>
                <span class="lg lg-label">{"label"}</span><span class="lg lg-sel">{"selected"}</span>
            </div>
        </section>
    }
}
