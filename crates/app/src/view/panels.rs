//! The panels around the transcript: the work queue (progress, filters), load progress,
//! overview, toolbar (grain, filters, search), candidates, quarantine, brief and the shortcut
//! help.

use std::rc::Rc;
use trajscope_core::report::QuarantineRecord as Quarantined;

use web_sys::HtmlInputElement;
use yew::prelude::*;

use super::state::FileEntry;
use super::{Action, Ctx, FileStatus, NavAction, PageAction, QueueAction, SearchAction, State};
use crate::protocol::{Grain, Request, TraceSummary, ROLE_NAMES};

use super::queue::outcome_name;

fn mb(bytes: f64) -> String {
    if bytes >= 1e6 {
        format!("{:.1} MB", bytes / 1e6)
    } else {
        format!("{:.1} KB", bytes / 1e3)
    }
}

pub fn empty(state: &State) -> Html {
    let failed: Vec<&FileEntry> =
        state.queue.files.iter().filter(|f| matches!(f.status, FileStatus::Failed(_))).collect();
    html! {
        <section class="empty" aria-label="Start">
            <p>{"Drop one or more JSONL traces of agent runs anywhere on this page, open them, paste JSONL, or load the sample."}</p>
            <p class="muted">{"Everything stays in your browser: nothing is uploaded."}</p>
            { for failed.iter().map(|f| match &f.status {
                FileStatus::Failed(e) => html! { <p class="error" role="alert" data-testid="load-error">{ format!("{}: {e}", f.name) }</p> },
                _ => html! {},
            }) }
        </section>
    }
}

/// The progress of one file being read (loading, or shown early while the rest is read),
/// with a cancel button.
pub fn progress(f: &FileEntry, ctx: &Ctx) -> Html {
    let Some(p) = f.reading() else {
        return html! {};
    };
    let (bytes, total, lines, quarantined, pct) =
        (p.bytes, p.total, p.lines, p.quarantined, p.percent());
    // Shown early: what is on screen is the part read so far.
    let early = match &f.status {
        FileStatus::Ready(s) => Some(format!(
            " · {} trajector{} read so far, the rest fill in",
            s.trajectories.len(),
            if s.trajectories.len() == 1 { "y" } else { "ies" }
        )),
        _ => None,
    };
    let cancel = {
        let (ctx, id) = (ctx.clone(), f.id);
        Callback::from(move |_| ctx.send(&Request::Cancel { file: id }))
    };
    html! {
        <section class="loading" aria-busy="true" aria-label={format!("Reading {}", f.name)} data-testid="progress">
            <p>
                { format!("Reading {}… ", f.name) }
                <span data-testid="progress-bytes">{ format!("{} of {}", mb(bytes), mb(total)) }</span>
                {" · "}<span data-testid="progress-lines">{ format!("{lines} lines") }</span>
                {" · "}<span data-testid="progress-quarantined">{ format!("{quarantined} quarantined") }</span>
                if let Some(early) = early { <span data-testid="progress-early">{ early }</span> }
            </p>
            <progress max="100" value={format!("{pct:.0}")} aria-label="Read progress" />
            <button class="button" data-testid="cancel-load" onclick={cancel}>{"Cancel"}</button>
        </section>
    }
}

/// A queued file's name. A file of a folder or an archive (`runs.zip!a/b.jsonl`) keeps its own
/// name in view: its folder or archive part gives way first when the name is cut.
fn file_name(name: &str) -> Html {
    let cut = name.rfind(['/', '!']).map_or(0, |i| i + 1);
    let (dir, base) = name.split_at(cut);
    html! {
        <span class="qname" title={super::bidi::visible(name)} data-testid="queue-file-name">
            if !dir.is_empty() { <span class="qname-dir">{ super::bidi::text(dir) }</span> }
            <span class="qname-base">{ super::bidi::text(base) }</span>
        </span>
    }
}

/// Files the queue lists at once (a page of them).
pub const FILES_PER_PAGE: usize = 100;

/// The work queue: every file, and each trajectory in it.
pub fn queue(
    state: &UseReducerHandle<State>,
    ctx: &Ctx,
    dispatch: UseReducerDispatcher<State>,
) -> Html {
    let files = &state.queue.files;
    if files.is_empty() {
        return html! {};
    }
    // Under a filter, a file is listed when one of its trajectories passes it (or when it is
    // not read yet, or could not be, or is open): the pages hold the files asked for.
    let q = &state.queue;
    let filtering = q.filter.failed_only || q.filter.unlabelled_only || q.filter.format.is_some();
    let first_shown = |e: &FileEntry| match &e.status {
        FileStatus::Ready(s) => s
            .trajectories
            .iter()
            .position(|t| q.shows(&state.labels, e.id, &s.format, t))
            .map(|p| p as u32),
        _ => Some(0),
    };
    let open = state.sel().map(|(f, _)| f);
    let listed =
        files.iter().filter(|e| !filtering || open == Some(e.id) || first_shown(e).is_some());
    let listed: Vec<&FileEntry> = listed.collect();
    // A folder or an archive of thousands of small traces lists one page of its files: the
    // page of the open trajectory's file, so the DOM (and each update's render) stays bounded
    // whatever the number of files. Turning the page opens its first file.
    let at = open.and_then(|f| listed.iter().position(|e| e.id == f)).unwrap_or(0);
    let first = at - at % FILES_PER_PAGE;
    let last = listed.len().min(first + FILES_PER_PAGE);
    let turn = |to: Option<usize>| {
        let e = listed.get(to?)?;
        let (d, file, traj) = (dispatch.clone(), e.id, first_shown(e).unwrap_or(0));
        Some(Callback::from(move |_| d.dispatch(Action::Select { file, traj })))
    };
    let pager = (listed.len() > FILES_PER_PAGE).then(|| {
        let (before, after) = (turn(first.checked_sub(FILES_PER_PAGE)), turn(Some(last)));
        html! {
            <div class="queue-pager" data-testid="queue-pager" role="group" aria-label="Files">
                <button class="button" disabled={before.is_none()} onclick={before}
                        data-testid="queue-pager-previous" aria-label="Previous files">{"‹"}</button>
                <span data-testid="queue-pager-range">{ format!("files {}–{last} of {}", first + 1, listed.len()) }</span>
                <button class="button" disabled={after.is_none()} onclick={after}
                        data-testid="queue-pager-next" aria-label="Next files">{"›"}</button>
            </div>
        }
    });
    let rows = listed[first..last].iter().map(|f| {
        let forget = {
            let (ctx, dispatch, id) = (ctx.clone(), dispatch.clone(), f.id);
            Callback::from(move |_| {
                ctx.send(&Request::Forget { file: id });
                ctx.forget_blob(id);
                dispatch.dispatch(QueueAction::Forget(id).into());
            })
        };
        let body = match &f.status {
            FileStatus::Loading { bytes, total, .. } => {
                let pct = if *total > 0.0 { bytes / total * 100.0 } else { 0.0 };
                html! { <span class="muted">{ format!("reading… {pct:.0}%") }</span> }
            }
            FileStatus::Failed(e) => html! { <span class="error small" role="alert" data-testid="load-error">{ e.clone() }</span> },
            FileStatus::Cancelled => html! { <span class="muted" data-testid="load-cancelled">{"cancelled"}</span> },
            FileStatus::Ready(_) => html! {
                <super::queue::Trajectories state={state.clone()} file={f.id} name={f.name.clone()} />
            },
        };
        html! {
            <li class="queue-file" data-testid="queue-file">
                <div class="qfile">
                    { file_name(&f.name) }
                    <span class="muted">{ mb(f.size) }</span>
                    <button class="icon" onclick={forget} aria-label={format!("Remove {}", f.name)} title="Remove">{"×"}</button>
                </div>
                { body }
            </li>
        }
    });
    let (done, total) = state.labels.progress(&state.queue);
    let filter = state.queue.filter.clone();
    let on_failed = {
        let (d, f) = (dispatch.clone(), filter.clone());
        Callback::from(move |e: Event| {
            let el: HtmlInputElement = e.target_unchecked_into();
            d.dispatch(
                QueueAction::Filter(super::state::QueueFilter {
                    failed_only: el.checked(),
                    ..f.clone()
                })
                .into(),
            )
        })
    };
    let on_unlabelled = {
        let (d, f) = (dispatch.clone(), filter.clone());
        Callback::from(move |e: Event| {
            let el: HtmlInputElement = e.target_unchecked_into();
            d.dispatch(
                QueueAction::Filter(super::state::QueueFilter {
                    unlabelled_only: el.checked(),
                    ..f.clone()
                })
                .into(),
            )
        })
    };
    let on_format = {
        let (d, f) = (dispatch.clone(), filter.clone());
        Callback::from(move |e: Event| {
            let el: web_sys::HtmlSelectElement = e.target_unchecked_into();
            let v = el.value();
            d.dispatch(
                QueueAction::Filter(super::state::QueueFilter {
                    format: (!v.is_empty()).then_some(v),
                    ..f.clone()
                })
                .into(),
            )
        })
    };
    let mut formats: Vec<String> = state
        .queue
        .files
        .iter()
        .filter_map(|f| match &f.status {
            FileStatus::Ready(s) => Some(s.format.clone()),
            _ => None,
        })
        .collect();
    trajscope_core::sort::sort(&mut formats);
    formats.dedup();
    let next = {
        let d = dispatch.clone();
        Callback::from(move |_| d.dispatch(Action::NextUnlabelled))
    };
    let annotating = state.page.mode == super::Mode::Annotate;
    html! {
        <nav class={classes!("queue", annotating.then_some("annotating"))} aria-label="Work queue">
            <h2>{"Queue"}</h2>
            <div class="queue-progress" data-testid="queue-progress" aria-live="polite">
                <span><strong>{ format!("{done} / {total}") }</strong>{" labelled"}</span>
                <progress max={total.max(1).to_string()} value={done.to_string()} aria-label="Labelled trajectories" />
                <button class="button" data-testid="next-unlabelled" onclick={next} disabled={done >= total}
                        title="Open the next trajectory without a label (u)">{"Next unlabelled"}</button>
            </div>
            <div class="queue-filters" role="group" aria-label="Queue filters">
                <label class="check">
                    <input type="checkbox" data-testid="queue-failed-only" checked={filter.failed_only} onchange={on_failed} />
                    {"failed only"}
                </label>
                <label class="check">
                    <input type="checkbox" data-testid="queue-unlabelled-only" checked={filter.unlabelled_only} onchange={on_unlabelled} />
                    {"unlabelled only"}
                </label>
                <select data-testid="queue-format" aria-label="Format" onchange={on_format}>
                    <option value="" selected={filter.format.is_none()}>{"all formats"}</option>
                    { for formats.iter().map(|f| html! {
                        <option value={f.clone()} selected={filter.format.as_deref() == Some(f.as_str())}>{ f.clone() }</option>
                    }) }
                </select>
            </div>
            { for pager }
            if listed.is_empty() {
                <p class="muted small" data-testid="queue-none">{"No trajectory passes the filters."}</p>
            }
            <ul class="queue-files" role="list">{ for rows }</ul>
        </nav>
    }
}

/// The overview: one line of the facts a reviewer looks at first (format, trajectory, steps,
/// outcome, critical step, quarantine, secrets) and the rest behind "more" (line accounting,
/// agents, classification, loop signals, usage, gold label, task), open at first on a screen
/// tall enough for it beside the diagnosis and the transcript.
pub fn overview(state: &State, entry: &FileEntry, s: &TraceSummary) -> Html {
    let st = &s.stats;
    let info = state.sel().and_then(|(_, t)| s.trajectories.get(t as usize));
    // The open trajectory is a copy of one still read.
    let growing = s.growing.is_some() && s.growing == state.sel().map(|(_, t)| t);
    let tall = gloo::utils::window()
        .inner_height()
        .ok()
        .and_then(|h| h.as_f64())
        .is_some_and(|h| h >= OVERVIEW_OPEN_FROM);
    html! {
        <section class="overview panel" aria-label="Overview" data-testid="overview">
            <h2 title={super::bidi::visible(&entry.name)}>{ super::bidi::text(&entry.name) }</h2>
            <dl class="ov-key">
                <dt>{"format"}</dt><dd data-testid="format">{ s.format.clone() }</dd>
                if let Some(t) = info {
                    <dt>{"trajectory"}</dt><dd data-testid="traj-id">{ super::bidi::text(&t.id) }</dd>
                    <dt>{"steps"}</dt><dd data-testid="step-count">{ match growing {
                        true => format!("{} so far (still being read)", t.steps),
                        false => format!("{} ({} flagged as errors)", t.steps, t.errors),
                    } }</dd>
                    <dt>{"outcome"}</dt><dd data-testid="outcome">{ outcome_name(t.outcome) }</dd>
                    if !t.analysed { <dt>{"analysis"}</dt><dd class="muted">{ if growing { "once it is read whole" } else { "analysing…" } }</dd> }
                    <dt>{"critical step"}</dt><dd data-testid="critical">{ super::bidi::text(&
                        // A step of a JSON document has no line of its own (0): none shown.
                        t.critical.as_ref().map(|c| {
                            let at = [(c.line > 0).then(|| format!("line {}", c.line)), (!c.agent.is_empty()).then(|| c.agent.clone())];
                            let at: Vec<String> = at.into_iter().flatten().collect();
                            if at.is_empty() { format!("#{}", c.step) } else { format!("#{} ({})", c.step, at.join(", ")) }
                        }).unwrap_or("—".into())
                    ) }</dd>
                    // A benchmark item's own label beside the analysis's answer: what a
                    // reviewer of a benchmark compares first.
                    if let Some(g) = &t.gold {
                        <dt>{"gold label"}</dt><dd data-testid="gold">{ super::bidi::text(&gold_text(g, t.critical.as_ref().map(|c| c.step))) }</dd>
                    }
                }
                <dt>{"quarantined"}</dt><dd data-testid="quarantine-count">{ st.lines_quarantined }</dd>
                <dt>{"secrets"}</dt><dd data-testid="secrets" data-scanned={s.secrets_done().to_string()}>{ secrets_text(s) }</dd>
            </dl>
            <details class="ov-more" open={tall}>
                <summary>{"more"}</summary>
                <dl>
                    <dt>{"lines"}</dt><dd data-testid="lines">{ match &s.reading {
                        Some(p) => format!("{} so far (reading… {:.0} %)", st.lines_total, p.percent()),
                        None => format!("{} ({} parsed, {} blank)", st.lines_total, st.lines_parsed, st.lines_blank),
                    } }</dd>
                    <dt>{"trajectories"}</dt><dd>{ match &s.reading {
                        Some(_) => format!("{} so far", s.trajectories.len()),
                        None => s.trajectories.len().to_string(),
                    } }</dd>
                    if let Some(t) = info {
                        <dt>{"agents"}</dt><dd data-testid="agents">{ super::bidi::text(&if t.agents.is_empty() { "—".to_string() } else { t.agents.join(", ") }) }</dd>
                        <dt>{"classification"}</dt><dd data-testid="classification">{ enum_name(&t.classification) }</dd>
                        <dt>{"failure mode"}</dt><dd data-testid="failure-mode">{ enum_name(&t.failure_mode) }</dd>
                        <dt>{"loop signals"}</dt><dd data-testid="loop-signals">{ loop_signals(t) }</dd>
                        <dt>{"usage"}</dt><dd data-testid="usage">{ usage_text(&t.usage) }</dd>
                        if t.agent_usage.len() > 1 && t.agent_usage.iter().any(|a| a.usage.steps_with_usage > 0) {
                            <dt>{"per agent"}</dt><dd data-testid="agent-usage">
                                <ul role="list">{ for t.agent_usage.iter().map(|a| html! {
                                    <li>{ super::bidi::text(&format!("{}: {}", if a.agent.is_empty() { "(main)" } else { a.agent.as_str() }, usage_text(&a.usage))) }</li>
                                }) }</ul>
                            </dd>
                        }
                    }
                </dl>
                if let Some(task) = info.and_then(|t| t.task.clone()) {
                    <p class="task"><span class="muted">{"task: "}</span>{ super::bidi::text(&task) }</p>
                }
            </details>
            if let Some(e) = &s.error { <p class="error" role="alert">{ super::bidi::text(e) }</p> }
        </section>
    }
}

/// Window height (CSS pixels) from which the overview's "more" starts open: below it the
/// diagnosis and the start of the transcript need the room (a 1024×768 screen).
const OVERVIEW_OPEN_FROM: f64 = 860.0;

pub fn toolbar(state: &UseReducerHandle<State>, search_ref: NodeRef) -> Html {
    let d = state.dispatcher();
    let grain_button = |g: Grain, key: &str| {
        let d = d.clone();
        let active = !state.nav.focus && state.nav.grain == g;
        html! {
            <button class={classes!("button", active.then_some("active"))} data-testid={format!("grain-{}", g.name())}
                    aria-pressed={active.to_string()} title={format!("{} detail ({key})", g.name())}
                    onclick={Callback::from(move |_| d.dispatch(NavAction::SetGrain(g).into()))}>{ g.name() }</button>
        }
    };
    let on_focus = {
        let d = d.clone();
        Callback::from(move |_| d.dispatch(NavAction::ToggleFocus.into()))
    };
    let on_errors = {
        let d = d.clone();
        Callback::from(move |e: Event| {
            let el: HtmlInputElement = e.target_unchecked_into();
            d.dispatch(NavAction::ErrorsOnly(el.checked()).into())
        })
    };
    let on_agent = {
        let d = d.clone();
        Callback::from(move |e: Event| {
            let el: web_sys::HtmlSelectElement = e.target_unchecked_into();
            d.dispatch(NavAction::Agent(el.value().parse().ok()).into())
        })
    };
    let on_role = {
        let d = d.clone();
        Callback::from(move |e: Event| {
            let el: web_sys::HtmlSelectElement = e.target_unchecked_into();
            d.dispatch(NavAction::Role(el.value().parse().ok()).into())
        })
    };
    let on_query = {
        let d = d.clone();
        Callback::from(move |e: InputEvent| {
            let el: HtmlInputElement = e.target_unchecked_into();
            d.dispatch(SearchAction::Query(el.value()).into())
        })
    };
    let on_search_key = {
        let d = d.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Enter" {
                e.prevent_default();
                d.dispatch(SearchAction::Move(if e.shift_key() { -1 } else { 1 }).into());
            }
        })
    };
    let next = {
        let d = d.clone();
        Callback::from(move |_| d.dispatch(SearchAction::Move(1).into()))
    };
    let prev = {
        let d = d.clone();
        Callback::from(move |_| d.dispatch(SearchAction::Move(-1).into()))
    };
    let actors: Vec<String> =
        state.nav.columns.as_ref().map(|c| c.actors.clone()).unwrap_or_default();
    // A file with no trajectory (or a trajectory with no steps) has nothing to search: the
    // worker sends no hits for it.
    let no_steps = state.nav.columns.as_ref().is_some_and(|c| c.line.is_empty());
    let hits = match (&state.search.hits, state.search.query.is_empty()) {
        (_, true) => String::new(),
        (None, false) if no_steps => "0 matches".into(),
        (None, false) => "searching…".into(),
        (Some(h), false) => {
            let pos = state.nav.step.and_then(|s| h.binary_search(&s).ok());
            match pos {
                Some(p) => format!("{} of {}", p + 1, h.len()),
                None => format!("{} matches", h.len()),
            }
        }
    };
    html! {
        <section class="toolbar panel" aria-label="View controls">
            <div class="group" role="group" aria-label="Grain">
                { grain_button(Grain::High, "1") }
                { grain_button(Grain::Medium, "2") }
                { grain_button(Grain::Low, "3") }
                <label class="check" title="the selected step in high detail, its neighbours medium, the rest low">
                    <input type="checkbox" data-testid="focus-context" checked={state.nav.focus} onchange={on_focus} />
                    {"focus + context"}
                </label>
            </div>
            <div class="group" role="group" aria-label="Filters">
                <label class="check">
                    <input type="checkbox" data-testid="filter-errors" checked={state.nav.filter.errors_only} onchange={on_errors} />
                    {"errors only"}
                </label>
                <select data-testid="filter-agent" aria-label="Agent" onchange={on_agent}>
                    <option value="" selected={state.nav.filter.agent.is_none()}>{"all agents"}</option>
                    { for actors.iter().take(crate::annotate::MAX_AGENT_CHOICES).enumerate().map(|(i, a)| html! {
                        <option value={i.to_string()} selected={state.nav.filter.agent == Some(i as u16)}>{ super::bidi::visible(a) }</option>
                    }) }
                </select>
                <select data-testid="filter-role" aria-label="Role" onchange={on_role}>
                    <option value="" selected={state.nav.filter.role.is_none()}>{"all roles"}</option>
                    { for ROLE_NAMES.iter().enumerate().map(|(i, r)| html! {
                        <option value={i.to_string()} selected={state.nav.filter.role == Some(i as u8)}>{ *r }</option>
                    }) }
                </select>
            </div>
            <div class="group search" role="search">
                <input ref={search_ref} type="search" data-testid="search" placeholder="Search steps (/)"
                       aria-label="Search steps" value={state.search.query.clone()} oninput={on_query} onkeydown={on_search_key} />
                <button class="button" data-testid="search-prev" onclick={prev} aria-label="Previous match">{"↑"}</button>
                <button class="button" data-testid="search-next" onclick={next} aria-label="Next match">{"↓"}</button>
                <span class="muted" data-testid="search-count" aria-live="polite">{ hits }</span>
            </div>
        </section>
    }
}

/// The ranked candidates, beside the diagnosis: each links to its step (`n` / `p` walk them)
/// and says why it was ranked there, in words.
pub fn candidates(
    state: &UseReducerHandle<State>,
    outcome: trajscope_core::model::Outcome,
    analysed: bool,
) -> Html {
    use trajscope_core::model::Outcome;
    let cands = state.selection.candidates.clone();
    let note = match outcome {
        Outcome::Unknown => "Likely critical steps if this run failed, best first.",
        Outcome::Failed => "Ranked by the detector, best first.",
        Outcome::Passed => "Steps the detector would rank had this run failed.",
    };
    html! {
        <section class="candidates panel" aria-label="Candidate critical steps">
            <h2>{"Candidates"}<span class="muted small">{" · n / p"}</span></h2>
            if cands.is_empty() && !analysed {
                <p class="muted" data-testid="candidates-pending">{"The candidates come with the analysis."}</p>
            } else if cands.is_empty() {
                <p class="muted" data-testid="candidates-empty">{"No candidate critical step: the analysis found no decisive error."}</p>
            } else {
                <p class="muted small" data-testid="candidates-note">{ note }</p>
                <ol aria-label="Candidates">
                { for cands.iter().map(|c| {
                    let d = state.dispatcher();
                    let step = c.step;
                    let selected = state.nav.step == Some(step);
                    html! {
                        <li class={classes!(selected.then_some("selected"))}>
                            <button class={classes!("cand", selected.then_some("selected"))} data-testid="candidate"
                                aria-current={selected.then_some("true")}
                                data-step={c.step.to_string()} data-line={c.line.to_string()}
                                onclick={Callback::from(move |_| d.dispatch(NavAction::Go(step).into()))}>
                                <span class="idx">{ format!("#{}", c.step) }</span>{" "}{ super::bidi::text(&c.summary) }
                            </button>
                            if !c.why.is_empty() {
                                <p class="why muted" data-testid="candidate-why" title={super::bidi::visible(&c.why.join("; "))}>{ super::bidi::text(&c.why.join("; ")) }</p>
                            }
                            { for c.quotes.iter().take(2).map(|q| html! { <blockquote class="quote">{ super::bidi::text(q) }</blockquote> }) }
                        </li>
                    }
                }) }
                </ol>
            }
        </section>
    }
}

pub fn quarantine(s: &Rc<TraceSummary>, file: u32, ctx: &Ctx) -> Html {
    const SHOWN: usize = 200;
    let export = |redacted: bool| {
        let ctx = ctx.clone();
        Callback::from(move |_| {
            let req = ctx.req_id();
            ctx.send(&Request::QuarantineJsonl { req, file, redacted })
        })
    };
    html! {
        <section class="quarantine panel" aria-label="Quarantine" data-testid="quarantine">
            <h2>{ format!("Quarantine ({})", s.quarantine_total) }</h2>
            if let Some(p) = &s.reading {
                <p class="muted" data-testid="quarantine-reading">{ format!(
                    "Listed once the file is read ({} lines quarantined so far).", p.quarantined
                ) }</p>
            } else if s.quarantine_total == 0 {
                <p class="muted">{"Every line was taken in: nothing quarantined."}</p>
            } else {
                <button class="button" data-testid="export-quarantine" onclick={export(false)}
                        title="The quarantined lines byte for byte: secrets included">{"Export quarantine — exact bytes (JSONL)"}</button>
                <button class="button" data-testid="export-quarantine-redacted" onclick={export(true)}
                        title="The quarantined lines with secrets masked: not the exact bytes">{"Export quarantine — secrets redacted (JSONL)"}</button>
                <ul role="list">
                { for quarantine_runs(&s.quarantine[..SHOWN.min(s.quarantine.len())]).map(|run| {
                    let q = &run[0];
                    let last = run[run.len() - 1].line;
                    let place = if run.len() == 1 { format!("line {}", q.line) } else { format!("lines {}–{last}", q.line) };
                    let raw: Vec<&str> = run.iter().take(RUN_RAW_LINES).map(|q| q.raw.as_str()).collect();
                    html! {
                    <li data-testid="quarantine-entry" data-line={q.line.to_string()} data-offset={q.offset.to_string()}
                        data-lines={run.len().to_string()}>
                        <div>
                            <span class="line">{ place }</span>
                            <span class="muted">{ format!("offset {}", q.offset) }</span>
                            if q.truncated_tail { <span class="tag" data-testid="truncated-tail">{"truncated tail"}</span> }
                        </div>
                        <div class="reason" data-testid="quarantine-reason">{ super::bidi::text(&q.reason) }</div>
                        <pre class="raw" data-testid="quarantine-raw">{ super::bidi::text(&raw.join("\n")) }</pre>
                        if run.len() > RUN_RAW_LINES {
                            <p class="muted small">{ format!("… and {} more lines (the export has each)", run.len() - RUN_RAW_LINES) }</p>
                        }
                    </li>
                }}) }
                </ul>
                if s.quarantine_total as usize > SHOWN.min(s.quarantine.len()) {
                    <p class="muted">{ format!("showing {} of {}; the export has them all", SHOWN.min(s.quarantine.len()), s.quarantine_total) }</p>
                }
            }
        </section>
    }
}

/// Lines of a quarantined run shown in the panel (the export has every line).
const RUN_RAW_LINES: usize = 12;

/// The quarantine as the panel lists it: consecutive lines quarantined for the same reason
/// (a document of no known shape, a damaged pretty-printed element) are one entry, so the
/// reason is read once; every other line is its own.
fn quarantine_runs(q: &[Quarantined]) -> impl Iterator<Item = &[Quarantined]> {
    q.chunk_by(|a, b| {
        b.line == a.line + 1 && b.reason == a.reason && !a.truncated_tail && !b.truncated_tail
    })
}

/// Usage as one line: only what the format records; "not recorded" when it records none.
pub fn usage_text(u: &trajscope_core::usage::UsageSummary) -> String {
    let mut parts = Vec::new();
    for (name, v) in [
        ("in", u.input_tokens),
        ("out", u.output_tokens),
        ("cache read", u.cache_read_tokens),
        ("cache write", u.cache_write_tokens),
    ] {
        if let Some(v) = v {
            parts.push(format!("{name} {v}"));
        }
    }
    if !parts.is_empty() {
        parts[0] = format!("tokens {}", parts[0]);
    }
    if let Some(c) = u.cost_usd {
        parts.push(format!("${c:.4}"));
    }
    if let Some(d) = u.duration_ms {
        parts.push(duration_text(d));
    }
    if parts.is_empty() {
        "not recorded".into()
    } else {
        parts.join(" · ")
    }
}

/// A step's usage, compact: `in 3 · out 395 · cache w 35066 · 1.2 s`.
pub fn step_usage_text(u: &trajscope_core::model::Usage) -> String {
    let mut parts: Vec<String> = [
        ("in", u.input_tokens),
        ("out", u.output_tokens),
        ("cache r", u.cache_read_tokens),
        ("cache w", u.cache_write_tokens),
    ]
    .into_iter()
    .filter_map(|(n, v)| v.map(|v| format!("{n} {v}")))
    .collect();
    if let Some(c) = u.cost_usd {
        parts.push(format!("${c:.4}"));
    }
    if let Some(d) = u.duration_ms {
        parts.push(duration_text(d));
    }
    parts.join(" · ")
}

/// Milliseconds as `850 ms`, `12.3 s`, `4 min 05 s`, `2 h 03 min`.
pub fn duration_text(ms: u64) -> String {
    match ms {
        0..=999 => format!("{ms} ms"),
        1000..=59_999 => format!("{:.1} s", ms as f64 / 1000.0),
        60_000..=3_599_999 => format!("{} min {:02} s", ms / 60_000, ms / 1000 % 60),
        _ => format!("{} h {:02} min", ms / 3_600_000, ms / 60_000 % 60),
    }
}

/// How many secrets and where (the first few), e.g. `3 found: github-token at step 2 (line 3), …`.
/// While the scan runs (after the first trajectory is on screen): how far it is.
fn secrets_text(s: &TraceSummary) -> String {
    if s.reading.is_some() {
        return "scanned once the file is read".into();
    }
    if !s.secrets_done() {
        let pct = u64::from(s.secrets_scanned) * 100 / u64::from(s.secrets_of.max(1));
        return match s.secrets_total {
            0 => format!("scanning… {pct}%"),
            n => format!("scanning… {pct}%, {n} found so far — masked in the exports"),
        };
    }
    if s.secrets_total == 0 {
        return "none found".into();
    }
    let wheres: Vec<String> = s
        .secrets
        .iter()
        .take(5)
        .map(|f| {
            let at = match (f.step, f.field.as_str()) {
                (Some(step), _) => format!("step {step}"),
                (None, "quarantine") => "quarantine".to_string(),
                (None, field) => field.replace('_', " "),
            };
            let line = if f.line > 0 { format!(" (line {})", f.line) } else { String::new() };
            match f.trajectory.filter(|_| s.trajectories.len() > 1) {
                Some(t) => format!("{} at trajectory {t} {at}{line}", f.kind),
                None => format!("{} at {at}{line}", f.kind),
            }
        })
        .collect();
    let more = if s.secrets_total as usize > wheres.len() { ", …" } else { "" };
    format!("{} found: {}{more} — masked in the exports", s.secrets_total, wheres.join(", "))
}

fn enum_name<T: serde::Serialize>(v: &Option<T>) -> String {
    match v.as_ref().map(serde_json::to_value) {
        Some(Ok(serde_json::Value::String(s))) => s,
        _ => "—".to_string(),
    }
}

fn loop_signals(t: &crate::protocol::Overview) -> String {
    let s = &t.signals;
    let mut parts = Vec::new();
    if s.repeated_actions > 1 {
        parts.push(format!("same action {}×", s.repeated_actions));
    }
    if s.repeated_failures > 1 {
        parts.push(format!("same failure {}×", s.repeated_failures));
    }
    if s.attempts > 1 {
        parts.push(format!("{} failed attempts of one command", s.attempts));
    }
    if s.budget_exhausted {
        parts.push("budget exhausted".into());
    }
    if s.escalate {
        parts.push("escalate to a human".into());
    }
    if parts.is_empty() {
        if let Some((what, n)) = &t.repeated_action {
            return format!("none (most repeated action {n}×: {what})");
        }
        return "none".into();
    }
    parts.join(" · ")
}

/// Cases listed in the brief panel: a file of thousands of failed runs keeps its DOM small (the
/// export has them all).
pub const CASES_SHOWN: usize = 100;

/// The Failure Prevention Brief (copy, Markdown download) and the failed turn cases (valid
/// ones exported, validation errors shown; the first [`CASES_SHOWN`] listed).
pub fn brief(s: &TraceSummary) -> Html {
    let md = s.brief_markdown.clone();
    let copy = {
        let md = md.clone();
        Callback::from(move |_| {
            let clip = gloo::utils::window().navigator().clipboard();
            let _ = clip.write_text(&md);
        })
    };
    let download = {
        let md = md.clone();
        Callback::from(move |_| {
            crate::download::save_text("brief.md", "text/markdown", &md).ok();
        })
    };
    let jsonl = s.cases_jsonl.clone();
    let export_cases = Callback::from(move |_| {
        crate::download::save_text("cases.jsonl", "application/x-ndjson", &jsonl).ok();
    });
    let valid = s.cases.iter().filter(|c| c.valid).count();
    html! {
        <section class="brief panel" aria-label="Failure Prevention Brief" data-testid="brief">
            <h2>{"Failure Prevention Brief"}</h2>
            if s.trajectories.len() > 1 {
                <p class="muted small" data-testid="brief-scope">
                    { format!("For the whole file: the cases of its {} trajectories, not only the open one.", s.trajectories.len()) }
                </p>
            }
            if !s.analysis_done {
                <p class="muted" data-testid="brief-pending" aria-busy="true">{"Analysing the trajectories… the brief and the cases follow."}</p>
            } else if md.is_empty() {
                <p class="muted" data-testid="brief-noop">{"no-op: no valid case matches, so the brief is empty."}</p>
            } else {
                <pre data-testid="brief-text">{ super::bidi::text(&md) }</pre>
                <div class="group">
                    <button class="button" data-testid="copy-brief" onclick={copy}>{"Copy"}</button>
                    <button class="button" data-testid="export-brief" onclick={download}>{"Download .md"}</button>
                </div>
            }
            <h2 class="sub">{ format!("Failed turn cases ({valid} valid of {})", s.cases.len()) }</h2>
            if !s.analysis_done {
            } else if s.cases.is_empty() {
                <p class="muted">{"No attributed failure, so no case."}</p>
            } else {
                <ul role="list" data-testid="cases">
                { for s.cases.iter().take(CASES_SHOWN).map(|c| html! {
                    <li data-testid="case" data-valid={c.valid.to_string()}>
                        <span class={classes!("tag", if c.valid { "ok" } else { "err" })}>{ if c.valid { "valid" } else { "invalid" } }</span>
                        {" "}<code>{ c.case_id.clone() }</code>
                        <span class="muted">{ super::bidi::text(&format!(" ({})", c.trajectory_id)) }</span>
                        if !c.errors.is_empty() {
                            <ul class="case-errors">{ for c.errors.iter().map(|e| html! { <li data-testid="case-error">{ super::bidi::text(e) }</li> }) }</ul>
                        }
                    </li>
                }) }
                if s.cases.len() > CASES_SHOWN {
                    <li class="muted" data-testid="cases-more">{ format!("… and {} more (the export has every valid case)", s.cases.len() - CASES_SHOWN) }</li>
                }
                </ul>
                <button class="button" data-testid="export-cases" onclick={export_cases} disabled={valid == 0}>
                    { format!("Export {valid} valid case(s) (JSONL)") }
                </button>
            }
        </section>
    }
}

/// A gold label in words, and whether the predicted critical step is its step.
fn gold_text(g: &trajscope_core::model::GoldLabel, predicted: Option<u32>) -> String {
    let step = g.step.map_or("—".to_string(), |s| format!("#{s}"));
    let agent = g.agent.as_deref().filter(|a| !a.is_empty()).map(|a| format!(" ({a})"));
    let verdict = match (g.step, predicted) {
        (Some(s), Some(p)) if s == p => " · the critical step",
        (Some(_), Some(_)) => " · not the critical step",
        _ => "",
    };
    format!("{step}{}{verdict}", agent.unwrap_or_default())
}

/// The source dialog: a step's record as the file holds it, as text (never markup).
pub fn source(s: &super::state::SourceText, dispatch: UseReducerDispatcher<State>) -> Html {
    let close = Callback::from(move |_| dispatch.dispatch(PageAction::CloseHelp.into()));
    let text = s.text.clone();
    let copy = Callback::from(move |_| {
        let _ = gloo::utils::window().navigator().clipboard().write_text(&text);
    });
    html! {
        <div class="help" role="dialog" aria-modal="true" aria-label="Source record" data-testid="source">
            <div class="help-box source-box">
                <h2>{ super::bidi::text(&s.title) }</h2>
                if let Some(n) = &s.note { <p class="muted small">{ super::bidi::text(n) }</p> }
                if s.read {
                    <pre class="source-text" data-testid="source-text" tabindex="0">{ super::bidi::text(&s.text) }</pre>
                } else {
                    <p data-testid="source-unavailable">{ super::bidi::text(&s.text) }</p>
                }
                <div class="group">
                    if s.read { <button class="button" onclick={copy}>{"Copy"}</button> }
                    <button class="button" onclick={close} autofocus=true>{"Close"}</button>
                </div>
            </div>
        </div>
    }
}

pub fn help(dispatch: UseReducerDispatcher<State>) -> Html {
    let close = Callback::from(move |_| dispatch.dispatch(PageAction::CloseHelp.into()));
    let keys = [
        ("j / k · ↓ / ↑", "next / previous step"),
        ("n / p", "next / previous candidate"),
        ("1 / 2 / 3", "grain high / medium / low"),
        ("/", "search (Enter: next match, Shift+Enter: previous)"),
        ("r / a / v", "Review / Annotate / Compare"),
        ("u", "next unlabelled trajectory"),
        ("c", "mark the selected step critical (opens Annotate)"),
        ("d", "Compare: the first divergence"),
        ("j / k · n / p", "Compare: next / previous row · difference"),
        ("s", "Compare: swap the runs"),
        ("?", "this help"),
        ("Esc", "close / leave a field / leave Compare"),
    ];
    html! {
        <div class="help" role="dialog" aria-modal="true" aria-label="Keyboard shortcuts" data-testid="help">
            <div class="help-box">
                <h2>{"Keyboard shortcuts"}</h2>
                <dl>
                { for keys.iter().map(|(k, v)| html! { <><dt><kbd>{ *k }</kbd></dt><dd>{ *v }</dd></> }) }
                </dl>
                <button class="button" onclick={close} autofocus=true>{"Close"}</button>
            </div>
        </div>
    }
}
