//! Benchmark helpers, not part of the app: [`awtl_gen`] writes deterministic AWTL traces, and on
//! wasm32 [`BenchIngest`] exposes the core's streaming ingest to the headless-Chromium benchmark
//! (`bench/browser.sh`), fed with the slices of a `File` exactly as the app feeds it.

pub mod awtl_gen;

#[cfg(target_arch = "wasm32")]
mod web {
    use trajscope_core::{IngestOptions, Ingestor, Trace};
    use wasm_bindgen::prelude::*;

    /// One streaming ingest. The finished trace is kept (as the app keeps it) so the page can
    /// measure the memory it holds.
    #[wasm_bindgen]
    pub struct BenchIngest {
        ingestor: Option<Ingestor>,
        trace: Option<Trace>,
    }

    #[wasm_bindgen]
    impl BenchIngest {
        #[wasm_bindgen(constructor)]
        pub fn new() -> BenchIngest {
            BenchIngest { ingestor: Some(Ingestor::new(IngestOptions::default())), trace: None }
        }

        /// Feeds one slice of the file.
        pub fn feed(&mut self, chunk: &[u8]) {
            if let Some(i) = self.ingestor.as_mut() {
                i.feed(chunk);
            }
        }

        /// Ends the input; returns a JSON summary (format, stats, trajectory and step counts).
        pub fn finish(&mut self) -> String {
            if let Some(i) = self.ingestor.take() {
                self.trace = Some(i.finish());
            }
            let Some(t) = &self.trace else { return "{}".to_string() };
            let steps: usize = t.trajectories.iter().map(|t| t.steps.len()).sum();
            serde_json::json!({
                "format": t.format.name(),
                "stats": t.stats,
                "trajectories": t.trajectories.len(),
                "steps": steps,
                "error": t.error,
            })
            .to_string()
        }

        /// Drops the kept trace.
        pub fn free_trace(&mut self) {
            self.trace = None;
        }
    }

    impl Default for BenchIngest {
        fn default() -> Self {
            BenchIngest::new()
        }
    }

    /// The size of the wasm linear memory in bytes (it only grows: its value after the run is
    /// the peak).
    #[wasm_bindgen]
    pub fn wasm_memory_bytes() -> f64 {
        (core::arch::wasm32::memory_size::<0>() * 65536) as f64
    }
}
