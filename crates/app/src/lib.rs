//! The trajscope web app: drop or pick a trace, see its events and its quarantine.
//! All trace content is rendered as text (Yew escapes it); nothing leaves the page.

pub mod annotate;
pub mod download;
mod load;
pub mod storage;
mod view;

pub use load::read_blob_into;
pub use view::App;

/// Mounts the app on `<body>`.
pub fn start() {
    yew::Renderer::<App>::new().render();
}
