//! The hash helper: a second instance of the ingest worker that computes a large file's SHA-256
//! identity beside the parse (hashing takes about as long as parsing). Its messages are its own
//! ([`HashJob`] in, [`HashReply`] out), not the page's protocol. If it cannot start or fails,
//! the ingest worker hashes the file itself — after `Loaded`, never delaying it.

use serde::{Deserialize, Serialize};

/// Ingest worker → helper: hash the blob sent beside this job (envelope `{hash_job, blob}`,
/// `hash_job` the job as JSON text).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HashJob {
    pub job: u32,
}

/// Helper → ingest worker: `{"hash_reply": "hashed", "job": 1, "content_hash": "sha256:…"}` or
/// `{"hash_reply": "failed", "job": 1, "error": "…"}`. Written internally tagged; read through
/// its flat [`WireReply`], which reads the same JSON without serde's buffered path for an
/// internally tagged enum (about 6 KB of the wasm bundle, for this one message:
/// `docs/performance.md`, Bundle).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "hash_reply", rename_all = "snake_case", try_from = "WireReply")]
pub enum HashReply {
    /// `sha256:<hex>` of the blob.
    Hashed {
        job: u32,
        content_hash: String,
    },
    Failed {
        job: u32,
        error: String,
    },
}

/// A [`HashReply`] as it is read: its tag and the fields of both variants.
#[derive(Deserialize)]
struct WireReply {
    hash_reply: ReplyKind,
    job: u32,
    content_hash: Option<String>,
    error: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum ReplyKind {
    Hashed,
    Failed,
}

impl TryFrom<WireReply> for HashReply {
    type Error = &'static str;

    fn try_from(w: WireReply) -> Result<HashReply, &'static str> {
        match w.hash_reply {
            ReplyKind::Hashed => w
                .content_hash
                .map(|content_hash| HashReply::Hashed { job: w.job, content_hash })
                .ok_or("missing field `content_hash`"),
            ReplyKind::Failed => w
                .error
                .map(|error| HashReply::Failed { job: w.job, error })
                .ok_or("missing field `error`"),
        }
    }
}

/// A file at least this large is hashed by a helper worker beside the parse; a smaller one by
/// the ingest worker as it is fed (starting a second wasm instance costs more than hashing it).
/// Hashed in the ingest worker, a 3.3 MB file of 10,000 one-step runs took 283–435 ms to feed;
/// with the hash in the helper, 109 ms (`bench/app.sh`, the `one-step` shape at
/// `BENCH_SCALE=10`, single runs on a loaded machine), so from 2 MiB on it is the helper's.
pub const HELPER_MIN_BYTES: f64 = 2.0 * 1024.0 * 1024.0;

#[cfg(target_arch = "wasm32")]
pub use glue::{hash_blob, serve, HashHelper};

#[cfg(target_arch = "wasm32")]
mod glue {
    use std::rc::Rc;

    use wasm_bindgen::prelude::*;
    use wasm_bindgen_futures::JsFuture;
    use web_sys::DedicatedWorkerGlobalScope;

    use super::{HashJob, HashReply};
    use crate::load::Slices;
    use crate::protocol::Response;

    /// A helper that has not said `Ready` by then is given up (the hash is then computed by the
    /// ingest worker).
    const HELPER_START_MS: u32 = 10_000;

    /// Reads a blob in slices into the trace identity hasher; `None` if the browser cannot read
    /// it.
    pub async fn hash_blob(blob: &web_sys::Blob) -> Option<String> {
        let mut slices = Slices::new(blob, None);
        let mut hasher = trajscope_core::labels::ContentHasher::new();
        while let Some(bytes) = slices.next().await {
            hasher.update(&bytes.ok()?);
        }
        Some(hasher.finish())
    }

    /// The helper side: if `data` is a hash job, hashes its blob, answers and returns true.
    pub fn serve(scope: &DedicatedWorkerGlobalScope, data: &JsValue) -> bool {
        let Some(job) = js_sys::Reflect::get(data, &JsValue::from_str("hash_job"))
            .ok()
            .filter(|v| !v.is_undefined())
            .and_then(|v| v.as_string())
            .and_then(|v| trajscope_core::json::from_str::<HashJob>(&v).ok())
        else {
            return false;
        };
        let blob = js_sys::Reflect::get(data, &JsValue::from_str("blob"))
            .ok()
            .and_then(|b| b.dyn_into::<web_sys::Blob>().ok());
        let scope = scope.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let reply = match blob {
                Some(blob) => match hash_blob(&blob).await {
                    Some(content_hash) => HashReply::Hashed { job: job.job, content_hash },
                    None => HashReply::Failed { job: job.job, error: "unreadable".into() },
                },
                None => HashReply::Failed { job: job.job, error: "no file was sent".into() },
            };
            // JSON text: the ingest worker tells it from the helper's `Ready`, which comes as
            // message bytes like every worker's (`crate::worker::post_to`).
            if let Ok(text) = serde_json::to_string(&reply) {
                scope.post_message(&JsValue::from_str(&text)).ok();
            }
        });
        true
    }

    /// The ingest worker's handle on its helper. Its result is `None` when the helper could not
    /// start or failed.
    pub struct HashHelper {
        worker: web_sys::Worker,
        result: JsFuture,
        _onmessage: Closure<dyn FnMut(web_sys::MessageEvent)>,
        _onerror: Closure<dyn FnMut(web_sys::Event)>,
        _give_up: gloo::timers::callback::Timeout,
    }

    impl HashHelper {
        pub fn start(blob: &web_sys::Blob) -> Option<HashHelper> {
            // This worker's own script (the content-hashed one the page started), with this
            // instance's module.
            let worker = crate::worker_url::start(&crate::worker_url::own())?;
            let mut resolve = None;
            let promise = js_sys::Promise::new(&mut |ok, _| resolve = Some(ok));
            let resolve = Rc::new(resolve?);
            let done = {
                let resolve = resolve.clone();
                move |v: &JsValue| {
                    resolve.call1(&JsValue::NULL, v).ok();
                }
            };
            let ready = Rc::new(std::cell::Cell::new(false));
            let onmessage = {
                let (worker, blob, done, ready) =
                    (worker.clone(), blob.clone(), done.clone(), ready.clone());
                Closure::<dyn FnMut(_)>::new(move |e: web_sys::MessageEvent| {
                    // Every instance of the worker says `Ready` when it starts listening, as
                    // message bytes (`crate::worker::post_to`); the reply is JSON text.
                    let data = e.data();
                    let bytes = data.dyn_ref::<js_sys::Uint8Array>().map(|a| a.to_vec());
                    if let Some(Response::Ready) = bytes.and_then(|b| Response::decode(&b)) {
                        ready.set(true);
                        if send_job(&worker, &blob).is_none() {
                            done(&JsValue::NULL);
                        }
                        return;
                    }
                    let text = data.as_string().unwrap_or_default();
                    match trajscope_core::json::from_str::<HashReply>(&text) {
                        Ok(HashReply::Hashed { content_hash, .. }) => {
                            done(&JsValue::from_str(&content_hash))
                        }
                        Ok(HashReply::Failed { .. }) => done(&JsValue::NULL),
                        Err(_) => {}
                    }
                })
            };
            let onerror = {
                let done = done.clone();
                Closure::<dyn FnMut(_)>::new(move |_: web_sys::Event| done(&JsValue::NULL))
            };
            let give_up = gloo::timers::callback::Timeout::new(HELPER_START_MS, move || {
                if !ready.get() {
                    done(&JsValue::NULL);
                }
            });
            worker.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
            worker.set_onerror(Some(onerror.as_ref().unchecked_ref()));
            Some(HashHelper {
                worker,
                result: JsFuture::from(promise),
                _onmessage: onmessage,
                _onerror: onerror,
                _give_up: give_up,
            })
        }

        /// The helper's hash (resolving a promise twice keeps the first value).
        async fn hash(&mut self) -> Option<String> {
            (&mut self.result).await.ok()?.as_string()
        }

        /// The identity of `blob`: the helper's hash, or, the helper failing, hashed here.
        /// `None` if the browser cannot read the file any more. Ends the helper.
        pub async fn identity(mut self, blob: &web_sys::Blob) -> Option<String> {
            match self.hash().await {
                Some(h) => Some(h),
                None => hash_blob(blob).await,
            }
        }
    }

    impl Drop for HashHelper {
        fn drop(&mut self) {
            self.worker.terminate();
        }
    }

    /// Posts the job with the blob beside it.
    fn send_job(worker: &web_sys::Worker, blob: &web_sys::Blob) -> Option<()> {
        let env = js_sys::Object::new();
        let job = serde_json::to_string(&HashJob { job: 0 }).ok()?;
        js_sys::Reflect::set(&env, &JsValue::from_str("hash_job"), &JsValue::from_str(&job))
            .ok()?;
        js_sys::Reflect::set(&env, &JsValue::from_str("blob"), blob).ok()?;
        worker.post_message(&env).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_are_not_page_messages() {
        let reply = HashReply::Hashed { job: 1, content_hash: "sha256:x".into() };
        let v = serde_json::to_value(&reply).unwrap();
        assert_eq!(v["hash_reply"], "hashed");
        assert_eq!(serde_json::from_value::<HashReply>(v).unwrap(), reply);
        // A reply is JSON text, a worker's `Ready` message bytes: neither reads as the other.
        let text = serde_json::to_string(&reply).unwrap();
        assert_eq!(crate::protocol::Response::decode(text.as_bytes()), None);
        let ready = crate::protocol::Response::Ready.encode();
        assert!(serde_json::from_slice::<HashReply>(&ready).is_err());
    }

    #[test]
    fn replies_read_back_and_bad_ones_are_refused() {
        for reply in [
            HashReply::Hashed { job: 7, content_hash: "sha256:ab".into() },
            HashReply::Failed { job: 0, error: "could not read it".into() },
        ] {
            let text = serde_json::to_string(&reply).unwrap();
            assert_eq!(serde_json::from_str::<HashReply>(&text).unwrap(), reply, "{text}");
        }
        // The tag may come anywhere; fields of the other variant are ignored.
        let r: HashReply = serde_json::from_str(
            r#"{"job":2,"error":"x","content_hash":"h","hash_reply":"hashed"}"#,
        )
        .unwrap();
        assert_eq!(r, HashReply::Hashed { job: 2, content_hash: "h".into() });
        for bad in [
            r#"{"hash_reply":"hashed","job":1}"#,
            r#"{"hash_reply":"failed","job":1,"content_hash":"h"}"#,
            r#"{"hash_reply":"other","job":1,"error":"x"}"#,
            r#"{"job":1,"error":"x"}"#,
            r#"{"hash_reply":"failed","error":"x"}"#,
            r#""ready""#,
        ] {
            assert!(serde_json::from_str::<HashReply>(bad).is_err(), "{bad}");
        }
    }
}
