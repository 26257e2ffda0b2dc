//! The app's components mounted in headless Chromium (wasm-bindgen-test).
#![cfg(target_arch = "wasm32")]

use std::time::Duration;

use trajscope_app::App;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn app_mounts_with_a_file_input_and_an_empty_state() {
    let document = gloo::utils::document();
    let root = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&root).unwrap();
    yew::Renderer::<App>::with_root(root.clone()).render();
    gloo::timers::future::sleep(Duration::from_millis(50)).await;

    let app = root.query_selector(".app").unwrap().expect("app root rendered");
    assert_eq!(app.get_attribute("data-state").as_deref(), Some("empty"));
    let input = root.query_selector("[data-testid=file-input]").unwrap();
    assert_eq!(input.expect("file input").get_attribute("type").as_deref(), Some("file"));
}

/// In the browser, the worker's store answers exactly what the core's session projects (the
/// CLI's projection too): the overviews, then the cases and the brief.
#[wasm_bindgen_test]
fn the_worker_answers_the_session_projection() {
    use trajscope_app::protocol::Response;
    use trajscope_app::worker::Store;
    use trajscope_core::{ingest, IngestOptions, Session};

    let bytes: &[u8] = include_bytes!("../../../web/samples/sample.awtl.jsonl");
    let hash = trajscope_core::labels::content_hash(bytes);
    let session = || Session::new(ingest(bytes, IngestOptions::default()), Some(hash.clone()));
    let mut expected = session();
    let report = expected.report();
    let cases = expected.cases().expect("the identity is known");
    let mut store = Store::default();
    let Response::Loaded { summary, .. } = store.insert(1, session()) else {
        panic!("not loaded");
    };
    let mut overviews = summary.trajectories.clone();
    let mut got_cases = None;
    while let Some(resp) = store.analyse_batch(1, || true) {
        match resp {
            Response::Analysed { overviews: batch, .. } => {
                for (i, o) in batch {
                    overviews[i as usize] = o;
                }
            }
            Response::CasesReady { cases_jsonl, brief_markdown, .. } => {
                got_cases = Some((cases_jsonl, brief_markdown))
            }
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(overviews, report.trajectories);
    let brief = trajscope_core::brief::to_markdown(&cases.brief());
    assert_eq!(got_cases, Some((cases.jsonl(), brief)));
}
