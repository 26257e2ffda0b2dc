//! The benchmark dataset of the Annotate mode (`docs/dataset.md`): export the labelled
//! trajectories of the whole queue, or of what the queue's filter shows, as TRAJERRBENCH or
//! Who&When items; import a dataset back so its labels show on the same steps.
//!
//! Only the worker holds the traces, so the page sends it this browser's labels and the files
//! to cover (`Request::Dataset`); the worker writes the items and answers in parts with the
//! progress. The parts are kept as JavaScript strings ([`Sink`]) and become one `Blob` at the
//! end: the export is never one string on either side. Secrets are masked unless the user
//! ticks "keep secrets".

use std::cell::RefCell;
use std::rc::Rc;

use trajscope_core::dataset::{agree, Style};
use trajscope_core::labels::{self, ImportOptions, Label};
use trajscope_core::vecmap::VecMap;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

use crate::protocol::{DatasetFile, Request, Response};
use crate::storage;

/// A loaded file, as the dataset panel needs it.
#[derive(Clone, Debug, PartialEq)]
pub struct QueuedFile {
    pub id: u32,
    pub name: std::rc::Rc<str>,
    /// Empty until the identity is known (its labels wait for it).
    pub content_hash: String,
    /// The trajectories the queue's filter shows (failed only, format), by index.
    pub shown: Vec<u32>,
    pub trajectories: u32,
}

/// Where the export stands, as the panel shows it.
#[derive(Clone, Debug, PartialEq)]
enum Status {
    Idle,
    Writing { done: u32, total: u32 },
    Done(String),
    Failed(String),
}

/// The parts of the export being written, and who to tell.
#[derive(Default)]
struct Sink {
    req: u32,
    name: String,
    parts: Option<js_sys::Array>,
    listener: Option<Callback<Status>>,
}

thread_local! {
    static SINK: RefCell<Sink> = RefCell::new(Sink::default());
    /// Counts dataset imports: the label panel loads its label again when it changes.
    static IMPORTS: RefCell<u32> = const { RefCell::new(0) };
}

/// How many datasets were imported (the label panel reloads its label when this changes).
pub fn imports() -> u32 {
    IMPORTS.with(|n| *n.borrow())
}

/// The worker's answers to `Request::Dataset` (the page hands them here).
pub fn on_worker(resp: Response) {
    let (status, listener) = SINK.with(|sink| {
        let mut sink = sink.borrow_mut();
        let status = match resp {
            Response::DatasetPart { req, text, done, total } if req == sink.req => {
                if let Some(parts) = &sink.parts {
                    parts.push(&wasm_bindgen::JsValue::from_str(&text));
                }
                Status::Writing { done, total }
            }
            Response::DatasetDone { req, items, no_step, ties, warnings } if req == sink.req => {
                let parts = sink.parts.take().unwrap_or_default();
                if items == 0 {
                    Status::Failed(
                        "Nothing to export: no trajectory here has a label yet (or the filter hides them)."
                            .into(),
                    )
                } else {
                    match crate::download::save_parts(&sink.name, "application/x-ndjson", &parts) {
                        Ok(()) => Status::Done(done_text(&sink.name, items, no_step, ties, &warnings)),
                        Err(e) => Status::Failed(e),
                    }
                }
            }
            _ => return (None, None),
        };
        (Some(status), sink.listener.clone())
    });
    if let (Some(s), Some(l)) = (status, listener) {
        l.emit(s);
    }
}

fn done_text(name: &str, items: u32, no_step: u32, ties: u32, warnings: &[String]) -> String {
    let mut text = format!("Exported {items} item(s) to {name}");
    if no_step + ties > 0 {
        text.push_str(&format!(" ({no_step} with no critical step, {ties} tied)"));
    }
    text.push('.');
    if let Some(w) = warnings.first() {
        text.push_str(&format!(" Note: {w}"));
        if warnings.len() > 1 {
            text.push_str(&format!(" (and {} more)", warnings.len() - 1));
        }
    }
    text
}

/// The labels a dataset file carries, one per trajectory as this browser keeps them: the
/// label of this browser's annotator when the item has one, else the agreed label; a tie is
/// left out (counted). Returns (labels, ties).
pub fn labels_to_keep(read: Vec<Label>, me: &str) -> (Vec<Label>, usize) {
    let by_item = VecMap::grouped(read.into_iter().map(|l| (l.item(), l)).collect());
    let mut keep = Vec::new();
    let mut ties = 0;
    for (_, labels) in by_item {
        let mine = labels.iter().find(|l| !me.is_empty() && l.annotator.trim() == me.trim());
        match mine.cloned().or_else(|| agree(&labels).label) {
            Some(l) => keep.push(l),
            None => ties += 1,
        }
    }
    (keep, ties)
}

#[derive(Properties, PartialEq)]
pub struct DatasetProps {
    pub files: Rc<Vec<QueuedFile>>,
    /// Whether the queue's filter hides any trajectory (else "only the filter's" means all).
    pub filtered: bool,
    pub send: Callback<Request>,
    /// Called with the labels saved by an import (the page marks them in the queue).
    pub on_imported: Callback<Vec<Label>>,
}

#[function_component(DatasetPanel)]
pub fn dataset_panel(props: &DatasetProps) -> Html {
    let status = use_state(|| Status::Idle);
    let style = use_state(|| Style::Trajerrbench);
    let only_filtered = use_state(|| false);
    let keep_secrets = use_state(|| false);
    let import_status = use_state(|| None::<Result<String, String>>);

    // The worker's progress reaches this panel through the sink.
    {
        let status = status.clone();
        use_effect_with((), move |_| {
            SINK.with(|s| s.borrow_mut().listener = Some(Callback::from(move |st| status.set(st))));
            || SINK.with(|s| s.borrow_mut().listener = None)
        });
    }

    let on_export = {
        let (status, style, only_filtered, keep_secrets) =
            (status.clone(), *style, *only_filtered, *keep_secrets);
        let (files, send) = (props.files.clone(), props.send.clone());
        Callback::from(move |_: MouseEvent| {
            let mut labels = Vec::new();
            let mut asked = Vec::new();
            for f in files.iter().filter(|f| !f.content_hash.is_empty()) {
                let saved = storage::labels_of_trace(&f.content_hash).unwrap_or_default();
                labels.extend(saved.into_iter().filter(|l| !l.time.is_empty()));
                let trajectories = only_filtered.then(|| f.shown.clone());
                asked.push(DatasetFile { file: f.id, name: f.name.to_string(), trajectories });
            }
            if labels.is_empty() {
                status.set(Status::Failed(
                    "Nothing to export yet: label a trajectory (a critical step, or \"No critical step\") first."
                        .into(),
                ));
                return;
            }
            let req = SINK.with(|s| {
                let mut s = s.borrow_mut();
                s.req += 1;
                s.name = format!("dataset.{}.jsonl", style.name());
                s.parts = Some(js_sys::Array::new());
                s.req
            });
            status.set(Status::Writing { done: 0, total: 0 });
            send.emit(Request::Dataset { req, style, redact: !keep_secrets, files: asked, labels });
        })
    };

    let on_style = {
        let style = style.clone();
        Callback::from(move |e: Event| {
            let v = e.target_unchecked_into::<HtmlSelectElement>().value();
            style.set(Style::from_name(&v).unwrap_or(Style::Trajerrbench));
        })
    };
    let toggle = |state: &UseStateHandle<bool>| {
        let state = state.clone();
        Callback::from(move |e: Event| {
            state.set(e.target_unchecked_into::<HtmlInputElement>().checked());
        })
    };

    let on_import = {
        let (import_status, on_imported) = (import_status.clone(), props.on_imported.clone());
        let hashes: Vec<String> = props.files.iter().map(|f| f.content_hash.clone()).collect();
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            let Some(file) = input.files().and_then(|l| l.get(0)) else { return };
            input.set_value("");
            let (import_status, on_imported, hashes) =
                (import_status.clone(), on_imported.clone(), hashes.clone());
            wasm_bindgen_futures::spawn_local(async move {
                let result = import(file, &hashes).await;
                if let Ok((_, saved)) = &result {
                    IMPORTS.with(|n| *n.borrow_mut() += 1);
                    on_imported.emit(saved.clone());
                }
                import_status.set(Some(result.map(|(text, _)| text)));
            });
        })
    };

    let writing = matches!(*status, Status::Writing { .. });
    let shown: usize = props.files.iter().map(|f| f.shown.len()).sum();
    html! {
        <section class="dataset" aria-labelledby="dataset-heading" data-testid="dataset-panel">
            <h3 id="dataset-heading">{"Benchmark dataset"}</h3>
            <p class="muted">{"Every labelled trajectory of the queue as a complete benchmark item: its steps, the label, its source."}</p>
            <div class="annotate-row">
                <label>
                    <span>{"Style "}</span>
                    <select data-testid="dataset-style" onchange={on_style}>
                        <option value="trajerrbench" selected={*style == Style::Trajerrbench}>{"TRAJERRBENCH"}</option>
                        <option value="who-and-when" selected={*style == Style::WhoAndWhen}>{"Who&When"}</option>
                    </select>
                </label>
                <label class="check">
                    <input type="checkbox" data-testid="dataset-filtered" checked={*only_filtered}
                        onchange={toggle(&only_filtered)} disabled={!props.filtered} />
                    { format!("only the queue's filter ({shown} shown)") }
                </label>
                <label class="check" title="Secrets are masked unless you keep them: a dataset is made to be shared">
                    <input type="checkbox" data-testid="dataset-keep-secrets" checked={*keep_secrets}
                        onchange={toggle(&keep_secrets)} />
                    {"keep secrets"}
                </label>
                <button class="button" data-testid="export-dataset" onclick={on_export} disabled={writing}>
                    {"Export dataset"}
                </button>
            </div>
            { status_line(&status) }
            <div class="annotate-row">
                <label class="button">
                    {"Import a dataset…"}
                    <input type="file" accept=".jsonl,.json,.ndjson,application/json"
                        data-testid="import-dataset" onchange={on_import} />
                </label>
                { match &*import_status {
                    None => html! {},
                    Some(Ok(text)) => html! { <span class="muted" role="status" data-testid="import-dataset-status">{ text.clone() }</span> },
                    Some(Err(text)) => html! { <span class="error" role="alert" data-testid="import-dataset-status">{ text.clone() }</span> },
                } }
            </div>
        </section>
    }
}

fn status_line(status: &Status) -> Html {
    match status {
        Status::Idle => html! {},
        Status::Writing { done, total } => html! {
            <p class="muted" role="status" aria-busy="true" data-testid="dataset-status">
                { if *total == 0 { "Writing the dataset…".to_string() } else { format!("Writing the dataset… {done} of {total}") } }
                <progress max={total.max(&1).to_string()} value={done.to_string()} aria-label="Dataset export" />
            </p>
        },
        Status::Done(text) => {
            html! { <p class="muted" role="status" data-testid="dataset-status">{ text.clone() }</p> }
        }
        Status::Failed(text) => {
            html! { <p class="error" role="alert" data-testid="dataset-status">{ text.clone() }</p> }
        }
    }
}

/// Reads a dataset (or any label file) and saves its labels in this browser: (what to say,
/// the labels saved).
async fn import(file: web_sys::File, open: &[String]) -> Result<(String, Vec<Label>), String> {
    let name = file.name();
    let buf = wasm_bindgen_futures::JsFuture::from(file.array_buffer())
        .await
        .map_err(|_| format!("could not read {name}"))?;
    let bytes = js_sys::Uint8Array::new(&buf).to_vec();
    let opts =
        ImportOptions { default_annotator: String::new(), file_hash: labels::content_hash(&bytes) };
    let read = labels::import(&bytes, &opts);
    if read.labels.is_empty() {
        let why = read.problems.first().map(|p| format!(" (line {}: {})", p.line, p.reason));
        return Err(format!("{name} holds no labels{}", why.unwrap_or_default()));
    }
    let (mut keep, ties) = labels_to_keep(read.labels, &storage::load_annotator());
    let now = String::from(js_sys::Date::new_0().to_iso_string());
    for l in &mut keep {
        // A label without a time reads as never edited here: importing it is an answer.
        if l.time.is_empty() {
            l.time = now.clone();
        }
        storage::save_label(l).map_err(|e| e.to_string())?;
    }
    let here = keep.iter().filter(|l| open.contains(&l.content_hash)).count();
    let mut text =
        format!("Imported {} label(s) from {name}: {here} for the files open now", keep.len());
    if ties > 0 {
        text.push_str(&format!(", {ties} tied (not imported)"));
    }
    if !read.problems.is_empty() {
        text.push_str(&format!(", {} line(s) not read", read.problems.len()));
    }
    text.push('.');
    Ok((text, keep))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn label(id: &str, who: &str, step: Option<u32>) -> Label {
        let mut l = Label::new("sha256:f", id);
        l.annotator = who.into();
        l.critical_step = step;
        l
    }

    #[test]
    fn an_import_keeps_my_label_else_the_agreed_one_and_leaves_ties_out() {
        let read = vec![
            label("a", "ana", Some(1)),
            label("a", "bo", Some(2)),
            label("a", "cy", Some(2)),
            label("b", "bo", Some(4)),
            label("b", "cy", Some(5)),
            label("c", "di", None),
        ];
        let (keep, ties) = labels_to_keep(read.clone(), "ana");
        let got: Vec<(&str, &str, Option<u32>)> = keep
            .iter()
            .map(|l| (l.trajectory_id.as_str(), l.annotator.as_str(), l.critical_step))
            .collect();
        // Mine on "a" (against the majority), none of mine on "b" and a tie there, "c" alone.
        assert_eq!(got, vec![("a", "ana", Some(1)), ("c", "di", None)]);
        assert_eq!(ties, 1);
        let (keep, _) = labels_to_keep(read, "");
        assert_eq!(keep[0].critical_step, Some(2), "the majority when none is mine");
    }
}
