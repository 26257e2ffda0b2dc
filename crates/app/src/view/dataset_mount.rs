//! Where the dataset panel (`crate::annotate::dataset`) meets the page's state: the loaded
//! files with the trajectories the queue's filter shows, the worker, and the labels an import
//! saved (marked in the queue as restored labels are).

use std::rc::Rc;

use yew::prelude::*;

use super::ctx::{restore_labels, Ctx};
use super::{FileStatus, State};
use crate::annotate::dataset::{DatasetPanel, QueuedFile};
use crate::protocol::Request;

/// The loaded files and, for each, the trajectories the queue's filter lets through (its
/// "unlabelled only" aside: only labelled trajectories are exported).
fn queued(state: &State) -> (Vec<QueuedFile>, bool) {
    let f = &state.queue.filter;
    let mut hidden = false;
    let files = state
        .queue
        .files
        .iter()
        .filter_map(|e| match &e.status {
            FileStatus::Ready(s) => {
                let format_ok = f.format.as_deref().is_none_or(|w| w == s.format);
                let shown: Vec<u32> = (0..s.trajectories.len() as u32)
                    .filter(|&i| {
                        let t = &s.trajectories[i as usize];
                        format_ok
                            && (!f.failed_only
                                || t.outcome == trajscope_core::model::Outcome::Failed)
                    })
                    .collect();
                hidden |= shown.len() < s.trajectories.len();
                Some(QueuedFile {
                    id: e.id,
                    name: e.name.clone(),
                    content_hash: s.content_hash.clone(),
                    shown,
                    trajectories: s.trajectories.len() as u32,
                })
            }
            _ => None,
        })
        .collect();
    (files, hidden)
}

pub(super) fn panel(state: &UseReducerHandle<State>, ctx: &Ctx) -> Html {
    let (files, filtered) = queued(state);
    let send = {
        let ctx = ctx.clone();
        Callback::from(move |req: Request| ctx.send(&req))
    };
    let on_imported = {
        let (ctx, d) = (ctx.clone(), state.dispatcher());
        let loaded: Vec<(u32, String)> =
            files.iter().map(|f| (f.id, f.content_hash.clone())).collect();
        Callback::from(move |labels: Vec<trajscope_core::labels::Label>| {
            for (file, hash) in &loaded {
                if labels.iter().any(|l| &l.content_hash == hash) {
                    restore_labels(&ctx, &d, *file, hash);
                }
            }
        })
    };
    html! { <DatasetPanel files={Rc::new(files)} {filtered} {send} {on_imported} /> }
}
