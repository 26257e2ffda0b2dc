//! The page's side of the worker: starts it (its script is named in the page, see `worker_url`),
//! posts requests and hands every response to a callback.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::prelude::*;

use crate::protocol::{Request, Response};

pub struct Bridge {
    worker: web_sys::Worker,
    /// Messages posted before the worker said `Ready` (its wasm is still starting and would
    /// drop them), sent when it does.
    queue: Rc<RefCell<Option<Vec<JsValue>>>>,
    _onmessage: Closure<dyn FnMut(web_sys::MessageEvent)>,
    _onerror: Closure<dyn FnMut(web_sys::Event)>,
}

impl Bridge {
    /// Starts the worker. `on_crash` is called when it dies (e.g. out of memory).
    pub fn new(
        on_response: impl Fn(Response) + 'static,
        on_crash: impl Fn(String) + 'static,
    ) -> Result<Bridge, String> {
        let worker = crate::worker_url::start(&crate::worker_url::for_page())
            .ok_or_else(|| "could not start the ingest worker".to_string())?;
        let queue: Rc<RefCell<Option<Vec<JsValue>>>> = Rc::new(RefCell::new(Some(Vec::new())));
        let (q, w) = (queue.clone(), worker.clone());
        // The first columns and steps after each `Loaded` are timed too; only the first few
        // files' (the benchmark's file), not each of an archive's thousands of members.
        let (mut timed, mut loads_timed) = (0u8, 0u8);
        let mut handle_one = move |resp: Response, t0: f64, bytes: usize| {
            if resp == Response::Ready {
                for m in q.borrow_mut().take().unwrap_or_default() {
                    w.post_message(&m).ok();
                }
            }
            // Where the page's time goes on the way to `ready` (the app benchmark,
            // `bench/app/run.mjs`, reads this line): reading the message, then the state
            // update (the render follows).
            let kind = match &resp {
                Response::Loaded { .. } if loads_timed < 4 => {
                    (timed, loads_timed) = (2, loads_timed + 1);
                    Some("loaded")
                }
                Response::Columns { .. } | Response::Steps { .. } if timed > 0 => {
                    timed -= 1;
                    Some(if matches!(resp, Response::Columns { .. }) { "columns" } else { "steps" })
                }
                _ => None,
            };
            let t1 = js_sys::Date::now();
            on_response(resp);
            if let Some(kind) = kind {
                gloo::console::log!(format!(
                    "trajscope-timing-page {kind} at={t0:.0} bytes={bytes} parse={:.0} apply={:.0}",
                    t1 - t0,
                    js_sys::Date::now() - t1
                ));
            }
        };
        // A message holds one response or several (`Response::encode_all`).
        let mut handle = move |data: JsValue| {
            let t0 = js_sys::Date::now();
            let data = data.dyn_into::<js_sys::Uint8Array>().ok().map(|a| a.to_vec());
            let bytes = data.as_ref().map_or(0, Vec::len);
            let all = data.and_then(|b| Response::decode_all(&b)).unwrap_or_default();
            // (The first one's parse time is the whole message's.)
            for (i, r) in all.into_iter().enumerate() {
                handle_one(r, if i == 0 { t0 } else { js_sys::Date::now() }, bytes);
            }
        };
        // The messages that came since the last task are handled together, in order, in one
        // task: the page renders once for them all, not once for each (an archive of thousands
        // of traces sends a few messages for each).
        let pending: Rc<RefCell<Vec<JsValue>>> = Rc::default();
        let flush = {
            let pending = pending.clone();
            Rc::new(RefCell::new(move || {
                let batch = std::mem::take(&mut *pending.borrow_mut());
                batch.into_iter().for_each(&mut handle);
            }))
        };
        let onmessage = Closure::<dyn FnMut(_)>::new(move |e: web_sys::MessageEvent| {
            let mut p = pending.borrow_mut();
            p.push(e.data());
            if p.len() == 1 {
                let flush = flush.clone();
                gloo::timers::callback::Timeout::new(0, move || (flush.borrow_mut())()).forget();
            }
        });
        let onerror = Closure::<dyn FnMut(_)>::new(move |e: web_sys::Event| {
            let msg = e
                .dyn_ref::<web_sys::ErrorEvent>()
                .map(|e| e.message())
                .filter(|m| !m.is_empty())
                .unwrap_or_else(|| "the ingest worker stopped".to_string());
            on_crash(msg);
        });
        worker.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
        worker.set_onerror(Some(onerror.as_ref().unchecked_ref()));
        Ok(Bridge { worker, queue, _onmessage: onmessage, _onerror: onerror })
    }

    pub fn send(&self, req: &Request) {
        self.send_with(req, None);
    }

    /// Posts `req`, with a blob (or an archive member's bytes) beside it for `Load`.
    pub fn send_with(&self, req: &Request, blob: Option<&JsValue>) {
        let Some(env) = envelope(req, blob) else { return };
        match self.queue.borrow_mut().as_mut() {
            Some(waiting) => waiting.push(env),
            None => {
                self.worker.post_message(&env).ok();
            }
        }
    }
}

/// A request as the worker reads it: `{req, blob?, head?}`, `req` the request's bytes in a
/// `Uint8Array` ([`Request::encode`]), `blob` a `Blob` or a `Uint8Array`, `head` the blob's
/// first bytes when the page read them already.
pub(crate) fn envelope(req: &Request, blob: Option<&JsValue>) -> Option<JsValue> {
    let env = js_sys::Object::new();
    let bytes = js_sys::Uint8Array::from(req.encode().as_slice());
    js_sys::Reflect::set(&env, &JsValue::from_str("req"), &bytes).ok()?;
    if let Some(b) = blob {
        js_sys::Reflect::set(&env, &JsValue::from_str("blob"), b).ok()?;
        // A file's first bytes, read already (`gather::expand`): sent for the file the page
        // opens, and taken off the blob (which the page keeps) either way.
        let head = JsValue::from_str("head");
        if matches!(req, Request::Load { open: true, .. }) {
            js_sys::Reflect::set(&env, &head, &js_sys::Reflect::get(b, &head).ok()?).ok()?;
        }
        js_sys::Reflect::set(b, &head, &JsValue::UNDEFINED).ok();
    }
    Some(env.into())
}

impl Drop for Bridge {
    fn drop(&mut self) {
        self.worker.terminate();
    }
}
