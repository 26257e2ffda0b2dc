//! The page ↔ worker messages read back in the browser (wasm-bindgen-test): the same module
//! encodes and decodes them there, where `usize` has 32 bits. (Every kind of message and bad
//! input: `protocol::tests`, natively.)
#![cfg(target_arch = "wasm32")]

use trajscope_app::protocol::{Request, Response};
use trajscope_app::worker::Store;
use trajscope_core::views::Grain;
use trajscope_core::{ingest, IngestOptions, Session};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn the_worker_s_answers_read_back_on_the_page() {
    let bytes = include_bytes!("../../../web/samples/sample.awtl.jsonl");
    let mut store = Store::default();
    let session = Session::new(ingest(bytes, IngestOptions::default()), Some("sha256:x".into()));
    let mut out = vec![store.insert(1, session)];
    for req in [
        Request::Columns { req: 1, file: 1, traj: 0 },
        Request::Steps {
            req: 2,
            file: 1,
            traj: 0,
            items: (0..30).map(|i| (i, Grain::Low)).collect(),
        },
        Request::Search { req: 3, file: 1, traj: 0, query: "test".into() },
    ] {
        let req = Request::decode(&req.encode()).expect("a request reads back");
        out.extend(store.answer_all(req));
    }
    while let Some(r) = store.next_batch(1, || true) {
        out.push(r);
    }
    assert!(out.len() >= 5, "{}", out.len());
    for r in &out {
        let bytes = r.encode();
        let back = Response::decode(&bytes).expect("a response reads back");
        assert_eq!(serde_json::to_string(&back).unwrap(), serde_json::to_string(r).unwrap());
        assert_eq!(back.encode(), bytes);
    }
    // A length past what a 32-bit `usize` holds is refused, not wrapped.
    assert_eq!(Response::decode(&[4, 1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01]), None);
}
