//! Entry point of the ingest web worker (built by trunk as `worker.js` + `worker_bg.wasm`).

fn main() {
    #[cfg(target_arch = "wasm32")]
    trajscope_app::worker::run();
}
