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
