//! The trajscope web app: drop or pick traces (files, folders, archives: [`gather`]), review
//! them (the diagnosis first, then a virtualised transcript at three grains, search, timeline,
//! quarantine), label them in the Annotate mode and export. Ingest runs in a web worker
//! ([`worker`]) that keeps the traces; the page asks it for what it shows ([`protocol`]).
//! All trace content is rendered as text (Yew escapes it); nothing leaves the page.

pub mod annotate;
mod bridge;
pub mod download;
mod gather;
pub mod hash_helper;
pub mod load;
pub mod protocol;
pub mod storage;
pub mod text;
mod view;
pub mod wire;
pub mod worker;
mod worker_url;

pub use view::{state, App};

/// The module's entry point: on a page, mounts the app on `index.html`'s `#app` (`<body>` if
/// there is none); in a worker (the ingest worker or its hashing helper, started with this same
/// module), listens as the worker.
pub fn start() {
    #[cfg(target_arch = "wasm32")]
    if web_sys::window().is_none() {
        worker::run();
        return;
    }
    // (Beside it, `index.html`'s `.font-warm` block stays: `web/style.css`.)
    let root = gloo::utils::document().get_element_by_id("app");
    yew::Renderer::<App>::with_root(root.unwrap_or_else(|| gloo::utils::body().into())).render();
}
