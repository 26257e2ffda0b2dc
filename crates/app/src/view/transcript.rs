//! One step of the transcript as a card: coloured by role (user, assistant, tool, environment,
//! judge, system), a tool call with its name, the file it acted on and its arguments (JSON
//! pretty-printed by the worker, long strings folded), the text (Markdown rendered as
//! structured text for a message, as written for output), long bodies folded behind a
//! control, and the identifiers and source line in one quiet details line. Text only: every
//! piece of trace content becomes a Yew text node.

use trajscope_core::lower::lower_str;
use yew::prelude::*;

use super::bidi;
use super::list::highlight;
use super::markdown;
use crate::protocol::{Grain, StepView};

/// A body of more visual lines than this is folded (CSS keeps it to about this many lines; the
/// text stays in the page, so search and evidence marks still find it).
pub const FOLD_LINES: usize = 8;
/// Characters of a wrapped line, for counting visual lines.
const WRAP: usize = 110;
/// An argument line longer than this is cut while the card is folded.
const LONG_STRING: usize = 160;

/// What a card shows of its step.
pub struct Card<'a> {
    pub index: u32,
    pub role: &'a str,
    pub kind: &'a str,
    pub actor: &'a str,
    pub line: u32,
    pub is_error: bool,
    pub candidate: bool,
    pub critical: bool,
    pub grain: Grain,
    pub view: Option<&'a StepView>,
    pub query: &'a str,
    pub quotes: &'a [String],
    pub expanded: bool,
    pub on_toggle: Callback<u32>,
    /// Opens the source dialog on the step's record (where the file can be read again).
    pub on_source: Option<Callback<(u32, trajscope_core::session::steps::SourceSpan)>>,
}

/// Visual lines of a text wrapped at [`WRAP`].
fn visual_lines(s: &str) -> usize {
    s.lines().map(|l| l.chars().count() / WRAP + 1).sum()
}

/// Whether the card of `v` has a fold control (its body is taller than [`FOLD_LINES`]).
pub fn foldable(v: &StepView) -> bool {
    match &v.parts {
        Some(p) => {
            visual_lines(p.args.as_deref().unwrap_or("")) + visual_lines(&p.text) > FOLD_LINES
                || p.args
                    .as_deref()
                    .is_some_and(|a| a.lines().any(|l| l.chars().count() > LONG_STRING))
        }
        None => visual_lines(&v.text) > FOLD_LINES,
    }
}

/// An estimate of a card's height in CSS pixels before it is measured.
pub fn estimate(v: Option<&StepView>, grain: Grain, expanded: bool) -> f64 {
    let lines = match v {
        Some(v) => {
            let n = match &v.parts {
                Some(p) => visual_lines(p.args.as_deref().unwrap_or("")) + visual_lines(&p.text),
                None => visual_lines(&v.text),
            };
            if expanded {
                n
            } else {
                n.min(FOLD_LINES)
            }
        }
        None => match grain {
            Grain::High => 6,
            Grain::Medium => 4,
            Grain::Low => 2,
        },
    };
    // head + details + padding, then the body's lines.
    52.0 + 17.0 * lines as f64 + if v.is_some_and(foldable) { 22.0 } else { 0.0 }
}

/// The file or command a tool call acted on, for its head: the first ref, else a path-like
/// or command argument.
fn target(v: &StepView) -> Option<String> {
    let p = v.parts.as_ref()?;
    if let Some(r) = p.refs.first() {
        return Some(r.clone());
    }
    let args = p.args.as_deref()?;
    for key in ["\"file_path\": \"", "\"path\": \"", "\"notebook_path\": \"", "\"url\": \""] {
        if let Some(at) = args.find(key) {
            let rest = &args[at + key.len()..];
            if let Some(end) = rest.find('"') {
                return Some(rest[..end].to_string());
            }
        }
    }
    None
}

/// The arguments, a long line cut while folded (never one holding a quote or a search hit).
fn args_block(args: &str, query: &str, quotes: &[String], expanded: bool) -> Html {
    let q = lower_str(query);
    let lines = args.split('\n').enumerate().map(|(n, l)| {
        let nl = if n > 0 { "\n" } else { "" };
        let n_chars = l.chars().count();
        let keep = expanded
            || n_chars <= LONG_STRING
            || quotes.iter().any(|x| l.contains(x.as_str()))
            || (!q.is_empty() && lower_str(l).contains(&q));
        if keep {
            html! { <>{ nl }{ highlight(l, query, quotes) }</> }
        } else {
            let head: String = l.chars().take(LONG_STRING).collect();
            html! { <>{ nl }{ bidi::text(&head) }<span class="fold-mark">{ format!("… +{} chars", n_chars - LONG_STRING) }</span></> }
        }
    });
    html! { <pre class="args" data-testid="tool-args">{ for lines }</pre> }
}

/// Whether `text` holds a character that would reorder the text around it
/// (`views::is_bidi_control`): the card shows each as a mark ([`bidi::text`]) and says so.
fn has_bidi_controls(text: &str) -> bool {
    bidi::has_controls(text)
}

/// "Read the whole record", on a step kept only in part (its long text or arguments as a head
/// and a tail): the record is read again from the file.
fn source_button(c: &Card) -> Option<Html> {
    let (cb, span) = (c.on_source.clone()?, c.view?.source?);
    let i = c.index;
    let onclick = Callback::from(move |e: MouseEvent| {
        e.stop_propagation();
        cb.emit((i, span))
    });
    Some(html! {
        <button class="fold" data-testid="source-open" {onclick}
            title="The step keeps the start and the end of this text: read the record whole from the file">
            {"Read the whole record"}
        </button>
    })
}

/// The card's inner content (the `li` around it belongs to the list).
pub fn card(c: &Card) -> Html {
    let tool = c.view.and_then(|v| v.parts.as_ref()).and_then(|p| p.tool.clone());
    let target = c.view.and_then(target);
    let parts = c.view.and_then(|v| v.parts.as_ref());
    let exit = parts.and_then(|p| p.exit_code).filter(|&e| e != 0);
    let status = parts.and_then(|p| p.status.clone());
    let foldable = c.view.is_some_and(foldable);
    let folded = foldable && !c.expanded;
    let is_call = c.kind == "action" || (tool.is_some() && c.kind != "observation");
    let body = match (c.view, parts) {
        (None, _) => html! { <span class="muted">{"…"}</span> },
        (Some(v), None) => {
            html! { <pre class="out">{ highlight(&v.text, c.query, c.quotes) }</pre> }
        }
        (Some(_), Some(p)) => {
            let text = if p.text.is_empty() {
                html! {}
            } else if c.kind == "message"
                && markdown::looks_like_markdown(&p.text)
                && markdown::keeps_quotes(&p.text, c.quotes)
            {
                markdown::render(&p.text, c.query, c.quotes)
            } else {
                html! { <pre class="out">{ highlight(&p.text, c.query, c.quotes) }</pre> }
            };
            html! {
                <>
                if let Some(a) = &p.args { { args_block(a, c.query, c.quotes, c.expanded) } }
                { text }
                </>
            }
        }
    };
    let on_toggle = {
        let (cb, i) = (c.on_toggle.clone(), c.index);
        Callback::from(move |e: MouseEvent| {
            e.stop_propagation();
            cb.emit(i)
        })
    };
    // The worker's details carry the source line; before they arrive, the column's.
    let details = match parts {
        Some(p) => p.details.clone(),
        None if c.line > 0 => format!("line {}", c.line),
        None => String::new(),
    };
    html! {
        <>
        <div class="who">
            <span class="idx">{ format!("#{}", c.index) }</span>
            <span class="role">{ c.role.to_string() }</span>
            if !c.actor.is_empty() { <span class="actor" data-testid="step-actor" title={bidi::visible(c.actor)}>{ bidi::text(c.actor) }</span> }
            if let Some(t) = &tool {
                <span class={classes!("tool", is_call.then_some("call"))} data-testid="tool-name">
                    { bidi::text(&if is_call { t.clone() } else { format!("{t} result") }) }
                </span>
            } else {
                <span class="kind">{ c.kind.replace('_', " ") }</span>
            }
            if let Some(t) = &target {
                <span class="target" data-testid="tool-target" title={bidi::visible(t)}>{ bidi::text(t) }</span>
            }
            if let Some(e) = exit { <span class="tag tag-err">{ format!("exit {e}") }</span> }
            if let Some(s) = &status { <span class="tag">{ bidi::text(s) }</span> }
            if c.is_error { <span class="tag tag-err">{"error"}</span> }
            if c.view.is_some_and(|v| has_bidi_controls(&v.text) || has_bidi_controls(c.actor)) {
                <span class="tag tag-err" data-testid="tag-bidi"
                    title="This step holds Unicode bidirectional control characters (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C), which can disguise text (a file name shown reversed): each is shown as a ⟨U+…⟩ mark, not applied">
                    {"bidi controls"}
                </span>
            }
            if c.critical { <span class="tag tag-crit">{"critical"}</span> }
            else if c.candidate { <span class="tag tag-cand">{"candidate"}</span> }
            if let Some(u) = c.view.and_then(|v| v.usage.as_ref()) {
                <span class="muted usage" data-testid="step-usage">{ super::panels::step_usage_text(u) }</span>
            }
            if let Some(v) = c.view {
                // What the card shows is the parts (arguments and text), when there are parts.
                if let Some(shown) = Some(v.parts.as_ref().map_or_else(|| v.text.chars().count(), |p| p.chars())).filter(|n| (v.full_chars as usize) > *n) {
                    <span class="muted cut">{ format!("{} of {} chars ({})", shown, v.full_chars, c.grain.name()) }</span>
                }
            }
        </div>
        <div class={classes!("step-body", folded.then_some("folded"))} data-testid="step-text">{ body }</div>
        if foldable {
            <button class="fold" data-testid="fold-toggle" aria-expanded={c.expanded.to_string()} onclick={on_toggle}>
                { if c.expanded { "Show less" } else { "Show all" } }
            </button>
        }
        if let Some(b) = source_button(c) { { b } }
        if !details.is_empty() {
            <div class="details" data-testid="step-details">{ bidi::text(&details) }</div>
        }
        </>
    }
}
