//! Entry point of the web app's one wasm module. It runs twice: on the page it mounts the app;
//! in the ingest worker (the page starts it with this same module, see `worker_url`) it finds no
//! window and runs the worker instead. One module, so the core is downloaded and compiled once.

fn main() {
    trajscope_app::start();
}
