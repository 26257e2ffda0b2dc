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

/// A blob read in slices comes out whole and in order, whether its first bytes are read by the
/// browser or handed over already read (the page's archive check, `load::Slices::new`'s
/// `head`), and `pos` counts what was handed out.
#[wasm_bindgen_test]
async fn a_blob_read_in_slices_comes_out_whole_with_or_without_its_first_bytes() {
    use trajscope_app::load::Slices;
    let text: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
    let bytes = js_sys::Uint8Array::from(&text[..]);
    let blob = web_sys::Blob::new_with_u8_array_sequence(&js_sys::Array::of1(&bytes)).unwrap();
    for head in [None, Some(text[..65_536].to_vec()), Some(text[..10].to_vec())] {
        let first = head.as_ref().map(Vec::len);
        let mut slices = Slices::new(&blob, head);
        let mut got = Vec::new();
        while let Some(slice) = slices.next().await {
            let slice = slice.unwrap();
            if got.is_empty() && first.is_some() {
                assert_eq!(Some(slice.len()), first, "the bytes read already come first, alone");
            }
            got.extend(slice);
            assert_eq!(slices.pos() as usize, got.len());
        }
        assert_eq!(got.len(), text.len());
        assert!(got == text, "every byte once, in order (head {first:?})");
    }
}
