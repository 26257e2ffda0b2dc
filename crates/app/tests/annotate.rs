//! The annotation panel and label storage in headless Chromium (wasm-bindgen-test): marking a
//! step saves the label at once, a remount restores it, candidates mark with one click, and a
//! full storage is reported as such.
#![cfg(target_arch = "wasm32")]

use std::rc::Rc;
use std::time::Duration;

use trajscope_app::annotate::{Annotate, AnnotateProps};
use trajscope_app::storage::{self, StorageError};
use trajscope_core::labels::Label;
use wasm_bindgen::JsCast as _;
use wasm_bindgen_test::*;
use yew::Callback;

wasm_bindgen_test_configure!(run_in_browser);

fn actors() -> Rc<Vec<String>> {
    Rc::new(["user", "coder", "coder", "", "judge"].iter().map(|s| s.to_string()).collect())
}

fn props(hash: &str, selected: Option<u32>, candidates: Vec<u32>) -> AnnotateProps {
    AnnotateProps {
        content_hash: hash.to_string().into(),
        trajectory_id: "run-1".into(),
        step_actors: actors(),
        selected_step: selected,
        candidates: Rc::new(candidates),
        mark_signal: 0,
        reload: 0,
        on_change: Callback::noop(),
        on_select_step: Callback::noop(),
    }
}

async fn mount(p: AnnotateProps) -> web_sys::Element {
    let document = gloo::utils::document();
    let root = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&root).unwrap();
    yew::Renderer::<Annotate>::with_root_and_props(root.clone(), p).render();
    settle().await;
    root
}

async fn settle() {
    gloo::timers::future::sleep(Duration::from_millis(60)).await;
}

fn find(root: &web_sys::Element, selector: &str) -> web_sys::HtmlElement {
    root.query_selector(selector)
        .unwrap()
        .unwrap_or_else(|| panic!("{selector} rendered"))
        .unchecked_into()
}

fn text(root: &web_sys::Element, selector: &str) -> String {
    find(root, selector).text_content().unwrap_or_default()
}

#[wasm_bindgen_test]
async fn marking_the_selected_step_saves_the_label_and_a_remount_restores_it() {
    let hash = "sha256:wasm-test-mark";
    storage::delete_label(hash, "run-1").unwrap();
    let root = mount(props(hash, Some(2), vec![])).await;
    assert_eq!(text(&root, "[data-testid=label-critical]"), "No critical step marked yet");
    assert_eq!(text(&root, "[data-testid=mark-critical]"), "Mark step 2 critical");

    find(&root, "[data-testid=mark-critical]").click();
    settle().await;
    // The agent is pre-filled with the actor of the marked step.
    assert_eq!(text(&root, "[data-testid=label-critical]"), "Critical step: 2 (agent coder)");
    let saved = storage::load_label(hash, "run-1").unwrap().expect("saved at once");
    assert_eq!(saved.critical_step, Some(2));
    assert_eq!(saved.responsible_agent.as_deref(), Some("coder"));
    assert!(!saved.time.is_empty());
    root.remove();

    // A fresh panel for the same trace and trajectory (nothing selected) shows the saved label.
    let again = mount(props(hash, None, vec![])).await;
    assert_eq!(text(&again, "[data-testid=label-critical]"), "Critical step: 2 (agent coder)");
    let mark = find(&again, "[data-testid=mark-critical]");
    assert!(mark.has_attribute("disabled"), "nothing selected: nothing to mark");
    let step: web_sys::HtmlInputElement = find(&again, "[data-testid=label-step]").unchecked_into();
    assert_eq!(step.value(), "2");
    again.remove();

    // Another trace with the same trajectory id has its own label.
    let other = mount(props("sha256:wasm-test-other", None, vec![])).await;
    assert_eq!(text(&other, "[data-testid=label-critical]"), "No critical step marked yet");
    other.remove();
}

#[wasm_bindgen_test]
async fn a_candidate_is_marked_with_one_click_and_the_panel_is_labelled() {
    let hash = "sha256:wasm-test-candidate";
    storage::delete_label(hash, "run-1").unwrap();
    let root = mount(props(hash, None, vec![4, 1])).await;
    let buttons = root.query_selector_all("[data-testid=mark-candidate]").unwrap();
    assert_eq!(buttons.length(), 2);
    find(&root, "[data-testid=mark-candidate][data-step='4']").click();
    settle().await;
    assert_eq!(text(&root, "[data-testid=label-critical]"), "Critical step: 4 (agent judge)");
    assert_eq!(
        find(&root, "[data-testid=mark-candidate][data-step='4']")
            .get_attribute("aria-pressed")
            .as_deref(),
        Some("true")
    );
    // Every form field sits inside a <label> with text.
    let fields = root
        .query_selector_all(
            ".annotate-fields input, .annotate-fields select, .annotate-fields textarea",
        )
        .unwrap();
    assert_eq!(fields.length(), 6);
    for i in 0..fields.length() {
        let f: web_sys::Element = fields.item(i).unwrap().unchecked_into();
        let label = f.closest("label").unwrap().expect("field inside a label");
        assert!(!label.text_content().unwrap_or_default().trim().is_empty());
    }
    root.remove();
}

#[wasm_bindgen_test]
fn storage_round_trips_labels_per_trace_and_remembers_the_annotator() {
    let hash = "sha256:wasm-test-storage";
    let mut a = Label::new(hash, "b-run");
    a.critical_step = Some(7);
    a.rationale = "the <script>alert(1)</script> stays text".into();
    let mut b = Label::new(hash, "a-run");
    b.critical_step = None;
    storage::save_label(&a).unwrap();
    storage::save_label(&b).unwrap();
    storage::save_label(&Label::new("sha256:elsewhere", "a-run")).unwrap();
    assert_eq!(storage::load_label(hash, "b-run").unwrap(), Some(a.clone()));
    let all = storage::labels_of_trace(hash).unwrap();
    let ids: Vec<&str> = all.iter().map(|l| l.trajectory_id.as_str()).collect();
    assert_eq!(ids, vec!["a-run", "b-run"], "only this trace, in trajectory order");
    storage::delete_label(hash, "b-run").unwrap();
    assert_eq!(storage::load_label(hash, "b-run").unwrap(), None);

    storage::save_annotator("Ana Lyst").unwrap();
    assert_eq!(storage::load_annotator(), "Ana Lyst");
}

#[wasm_bindgen_test]
fn a_full_storage_is_reported_as_full() {
    let mut huge = Label::new("sha256:wasm-test-quota", "run-1");
    // Local storage holds about 5 million characters per origin.
    huge.rationale = "x".repeat(12 * 1024 * 1024);
    assert_eq!(storage::save_label(&huge), Err(StorageError::Quota));
    assert!(StorageError::Quota.to_string().contains("full"));
    assert_eq!(storage::load_label("sha256:wasm-test-quota", "run-1").unwrap(), None);
}

/// A stand-in for the layout: a keyboard shortcut bumps `mark_signal`.
#[yew::function_component(ShortcutHost)]
fn shortcut_host() -> yew::Html {
    let signal = yew::use_state(|| 0u32);
    let bump = {
        let signal = signal.clone();
        Callback::from(move |_: yew::MouseEvent| signal.set(*signal + 1))
    };
    let mut p = props("sha256:wasm-test-shortcut", Some(3), vec![]);
    p.mark_signal = *signal;
    yew::html! {
        <>
            <button id="press-c" onclick={bump}>{"c"}</button>
            <Annotate ..p />
        </>
    }
}

#[wasm_bindgen_test]
async fn the_mark_signal_marks_the_selected_step() {
    storage::delete_label("sha256:wasm-test-shortcut", "run-1").unwrap();
    let document = gloo::utils::document();
    let root = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&root).unwrap();
    yew::Renderer::<ShortcutHost>::with_root(root.clone()).render();
    settle().await;
    assert_eq!(text(&root, "[data-testid=label-critical]"), "No critical step marked yet");
    find(&root, "#press-c").click();
    settle().await;
    assert_eq!(text(&root, "[data-testid=label-critical]"), "Critical step: 3");
    let saved = storage::load_label("sha256:wasm-test-shortcut", "run-1").unwrap();
    assert_eq!(saved.and_then(|l| l.critical_step), Some(3));
    root.remove();
}
