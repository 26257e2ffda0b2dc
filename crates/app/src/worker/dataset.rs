//! The worker's side of a dataset export (`docs/dataset.md`): the traces are here, so the items
//! are written here, one by one, by the core's `dataset::item`, and posted to the page in parts
//! of about [`PART_BYTES`] with the progress ("n of m"); the page joins the parts into one
//! `Blob`. No part of the export is ever one string of the whole.

use trajscope_core::dataset::{self, ExportOptions, LabelIndex, Source, Style};
use trajscope_core::labels::Label;

use super::Store;
use crate::protocol::{DatasetFile, Response};

/// JSONL bytes per `DatasetPart` message.
pub const PART_BYTES: usize = 256 * 1024;

/// The subset of a queued file, as `trajscope eval` names it: the folder holding it (a file
/// picked from a folder, an archive's member), `.` for a file on its own.
pub fn subset_of(name: &str) -> String {
    let path = name.rsplit('!').next().unwrap_or(name);
    let mut parts = path.rsplit(['/', '\\']);
    parts.next();
    parts.next().filter(|p| !p.is_empty()).unwrap_or(".").to_string()
}

impl Store {
    /// Writes the items of every labelled trajectory of `files` (those of each file's list, or
    /// all), handing each message to `post` as it is ready: `DatasetPart`s, then
    /// `DatasetDone`. A file not loaded, or whose identity is not known yet, has no labels.
    pub fn dataset(
        &self,
        req: u32,
        style: Style,
        redact: bool,
        files: &[DatasetFile],
        labels: Vec<Label>,
        mut post: impl FnMut(Response),
    ) {
        let index = LabelIndex::new(labels);
        let opts = ExportOptions { style, redact };
        let mut work = Vec::new();
        let mut total = 0u32;
        for f in files {
            let Some(s) = self.session(f.file) else { continue };
            let Some(hash) = s.identity() else { continue };
            let trajectories = &s.trace().trajectories;
            let wanted: Vec<usize> = match &f.trajectories {
                Some(list) => list.iter().map(|&i| i as usize).collect(),
                None => (0..trajectories.len()).collect(),
            };
            let labelled: Vec<usize> = wanted
                .into_iter()
                .filter(|&i| {
                    trajectories.get(i).is_some_and(|t| !index.get(hash, &t.id).is_empty())
                })
                .collect();
            total += labelled.len() as u32;
            let source = Source {
                file: f.name.clone(),
                subset: subset_of(&f.name),
                format: Some(s.trace().format),
                content_hash: hash.to_string(),
            };
            work.push((s, source, labelled));
        }
        let (mut done, mut no_step, mut ties) = (0u32, 0u32, 0u32);
        let mut warnings = Vec::new();
        let mut text = String::new();
        for (s, source, labelled) in &work {
            for &i in labelled {
                let t = &s.trace().trajectories[i];
                let item = dataset::item(t, source, index.get(&source.content_hash, &t.id), opts);
                done += 1;
                no_step += u32::from(item.step.is_none() && !item.tie);
                ties += u32::from(item.tie);
                warnings
                    .extend(item.warnings.iter().map(|w| format!("{}#{}: {w}", source.file, t.id)));
                // The core writes JSON text: valid UTF-8.
                text.push_str(&String::from_utf8_lossy(&item.line));
                if text.len() >= PART_BYTES {
                    post(Response::DatasetPart {
                        req,
                        text: std::mem::take(&mut text),
                        done,
                        total,
                    });
                }
            }
        }
        if !text.is_empty() || total == 0 {
            post(Response::DatasetPart { req, text, done, total });
        }
        post(Response::DatasetDone { req, items: done, no_step, ties, warnings });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use trajscope_core::labels::{self, content_hash};
    use trajscope_core::{ingest, IngestOptions, Session};

    const TAU2: &[u8] =
        include_bytes!("../../../../tests/fixtures/tau2/airline_3_simulations.json");
    const HC: &[u8] = include_bytes!("../../../../tests/fixtures/who_and_when/hc_1.json");

    fn store() -> Store {
        let mut store = Store::default();
        for (file, bytes) in [(1, TAU2), (2, HC)] {
            let trace = ingest(bytes, IngestOptions::default());
            store.insert(file, Session::new(trace, Some(content_hash(bytes))));
        }
        store
    }

    fn label(bytes: &[u8], traj: usize, step: Option<u32>) -> Label {
        let trace = ingest(bytes, IngestOptions::default());
        let mut l = Label::new(&content_hash(bytes), &trace.trajectories[traj].id);
        l.critical_step = step;
        l.annotator = "ana".into();
        l.time = "2026-12-02T05:00:00Z".into();
        l
    }

    fn export(store: &Store, files: &[DatasetFile], labels: Vec<Label>) -> Vec<Response> {
        let mut out = Vec::new();
        store.dataset(7, Style::Trajerrbench, true, files, labels, |r| out.push(r));
        out
    }

    fn file(file: u32, name: &str, trajectories: Option<Vec<u32>>) -> DatasetFile {
        DatasetFile { file, name: name.into(), trajectories }
    }

    #[test]
    fn the_parts_are_the_items_of_the_labelled_trajectories_and_re_import_as_the_labels() {
        let store = store();
        let given = vec![label(TAU2, 0, Some(3)), label(TAU2, 2, None), label(HC, 0, Some(12))];
        let files = [file(1, "runs/tau2.json", None), file(2, "hc_1.json", None)];
        let out = export(&store, &files, given.clone());
        let Some(Response::DatasetDone { req: 7, items: 3, no_step: 1, ties: 0, warnings }) =
            out.last()
        else {
            panic!("{:?}", out.last())
        };
        assert!(warnings.is_empty());
        let mut text = String::new();
        for r in &out[..out.len() - 1] {
            let Response::DatasetPart { text: part, total: 3, .. } = r else { panic!("{r:?}") };
            text.push_str(part);
        }
        assert_eq!(text.lines().count(), 3);
        let first: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
        assert_eq!(first["metadata"]["dataset"], "runs");
        assert_eq!(first["metadata"]["extra"]["source_file"], "runs/tau2.json");
        let back = labels::import(text.as_bytes(), &labels::ImportOptions::default());
        assert!(back.problems.is_empty());
        assert_eq!(back.labels, given);
    }

    #[test]
    fn the_queue_filter_limits_the_export_and_progress_counts_to_the_total() {
        let store = store();
        let given = vec![label(TAU2, 0, Some(3)), label(TAU2, 2, Some(5)), label(HC, 0, Some(12))];
        let out = export(&store, &[file(1, "tau2.json", Some(vec![2, 1]))], given);
        let Some(Response::DatasetDone { items: 1, .. }) = out.last() else { panic!("{out:?}") };
        let Response::DatasetPart { text, done: 1, total: 1, .. } = &out[0] else { panic!() };
        assert!(text.contains("\"critical_error_step\":5"), "{text}");
        // Nothing labelled: an empty part (progress 0 of 0) and done.
        let none = export(&store, &[file(2, "hc_1.json", None)], Vec::new());
        assert!(matches!(
            none[..],
            [
                Response::DatasetPart { done: 0, total: 0, .. },
                Response::DatasetDone { items: 0, .. }
            ]
        ));
    }

    #[test]
    fn a_big_export_comes_in_parts_with_rising_progress() {
        let mut store = Store::default();
        let mut given = Vec::new();
        let mut files = Vec::new();
        for k in 0..40u32 {
            // Distinct files (their hashes differ) of the same run.
            let mut bytes = TAU2.to_vec();
            bytes.extend(std::iter::repeat_n(b' ', k as usize));
            let trace = ingest(&bytes, IngestOptions::default());
            store.insert(k, Session::new(trace, Some(content_hash(&bytes))));
            given.push(label(&bytes, 0, Some(3)));
            files.push(file(k, &format!("f{k}.json"), None));
        }
        let out = export(&store, &files, given);
        let parts: Vec<(u32, usize)> = out
            .iter()
            .filter_map(|r| match r {
                Response::DatasetPart { done, text, .. } => Some((*done, text.len())),
                _ => None,
            })
            .collect();
        assert!(parts.len() > 1, "{} parts", parts.len());
        assert!(parts.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(parts.iter().all(|p| p.1 < 2 * PART_BYTES));
        assert_eq!(parts.last().unwrap().0, 40);
    }

    #[test]
    fn subsets_are_the_folder_holding_the_file() {
        assert_eq!(subset_of("dev/Hand-Crafted/1.json"), "Hand-Crafted");
        assert_eq!(subset_of("runs.tar.gz!AG/3.json"), "AG");
        assert_eq!(subset_of("trace.jsonl"), ".");
    }
}
