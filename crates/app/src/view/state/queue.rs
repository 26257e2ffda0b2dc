//! The work queue: the files loaded (or loading, failed, cancelled) with what the worker said
//! about each, and the queue's filter.

use std::rc::Rc;

use trajscope_core::model::Outcome;

use super::labels::Labels;
use crate::protocol::{Overview, ReadProgress, Row, TraceSummary, SECRETS_SHOWN};
use trajscope_core::redact::TraceFinding;

#[derive(Clone, Debug, PartialEq)]
pub enum FileStatus {
    Loading { bytes: f64, total: f64, lines: f64, quarantined: f64 },
    Ready(Rc<TraceSummary>),
    Failed(String),
    Cancelled,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FileEntry {
    pub id: u32,
    /// The id of the first file of the drop, pick, folder or archive it came with.
    pub batch: u32,
    /// Shared: every update copies the queue, which may list thousands of files.
    pub name: Rc<str>,
    pub size: f64,
    pub status: FileStatus,
}

impl FileEntry {
    /// How far the read is while the file is read: loading, or shown early (its first
    /// trajectories readable while the rest is read).
    pub fn reading(&self) -> Option<ReadProgress> {
        match &self.status {
            FileStatus::Loading { bytes, total, lines, quarantined } => Some(ReadProgress {
                bytes: *bytes,
                total: *total,
                lines: *lines,
                quarantined: *quarantined,
            }),
            FileStatus::Ready(s) => s.reading,
            _ => None,
        }
    }
}

/// Which trajectories the queue lists.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QueueFilter {
    pub failed_only: bool,
    pub unlabelled_only: bool,
    /// Only files of this format.
    pub format: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Queue {
    /// In the order they were opened.
    pub files: Files,
    pub filter: QueueFilter,
}

/// Files a chunk of [`Files`] holds.
const CHUNK: usize = 64;

/// The queue's files, in chunks that the states share: each update makes a new state, and
/// copying every file of a folder or an archive of thousands (and dropping the old copy) made
/// each message of the worker cost as much as the queue is long. An update copies the list of
/// chunks and the one chunk it changes. Every chunk but the last is full.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Files {
    chunks: Vec<Rc<Vec<FileEntry>>>,
    len: usize,
}

impl Files {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn iter(&self) -> Iter<'_> {
        Iter { chunks: self.chunks.iter(), chunk: [].iter() }
    }

    pub fn get(&self, i: usize) -> Option<&FileEntry> {
        self.chunks.get(i / CHUNK)?.get(i % CHUNK)
    }

    pub fn push(&mut self, entry: FileEntry) {
        match self.chunks.last_mut() {
            Some(last) if last.len() < CHUNK => Rc::make_mut(last).push(entry),
            _ => self.chunks.push(Rc::new(vec![entry])),
        }
        self.len += 1;
    }

    /// The position of file `id`. Files are queued in the order their ids are handed out
    /// (`Ctx::new_id`, then `QueueAction::Add` at once), so a binary search finds it: every
    /// worker message looks its file up, and a linear search made an archive of 4,000 files
    /// spend 60 ms in it. (Queued out of order, a file is still found, by a linear search.)
    pub fn index_of(&self, id: u32) -> Option<usize> {
        let (mut lo, mut hi) = (0, self.len);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self[mid].id < id {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        match self.get(lo) {
            Some(f) if f.id == id => Some(lo),
            _ => self.iter().position(|f| f.id == id),
        }
    }

    /// File `id`.
    pub fn by_id(&self, id: u32) -> Option<&FileEntry> {
        self.index_of(id).map(|at| &self[at])
    }

    /// File `id` if `when` holds for it, its chunk copied if another state shares it (and no
    /// chunk copied otherwise).
    pub fn by_id_mut(
        &mut self,
        id: u32,
        when: &dyn Fn(&FileEntry) -> bool,
    ) -> Option<&mut FileEntry> {
        let at = self.index_of(id).filter(|&at| when(&self[at]))?;
        Rc::make_mut(&mut self.chunks[at / CHUNK]).get_mut(at % CHUNK)
    }

    /// Applies `f` to every entry.
    pub fn for_each_mut(&mut self, mut f: impl FnMut(&mut FileEntry)) {
        self.chunks.iter_mut().for_each(|c| Rc::make_mut(c).iter_mut().for_each(&mut f));
    }

    pub fn retain(&mut self, keep: impl Fn(&FileEntry) -> bool) {
        let kept: Vec<FileEntry> = self.iter().filter(|f| keep(f)).cloned().collect();
        *self = Files::default();
        kept.into_iter().for_each(|f| self.push(f));
    }
}

/// The files in order. (One `next` for every caller: a `flat_map` inlined at each of them
/// made the bundle 2.7 KB bigger.)
#[derive(Clone)]
pub struct Iter<'a> {
    chunks: std::slice::Iter<'a, Rc<Vec<FileEntry>>>,
    chunk: std::slice::Iter<'a, FileEntry>,
}

impl<'a> Iterator for Iter<'a> {
    type Item = &'a FileEntry;

    #[inline(never)]
    fn next(&mut self) -> Option<&'a FileEntry> {
        loop {
            if let Some(f) = self.chunk.next() {
                return Some(f);
            }
            self.chunk = self.chunks.next()?.iter();
        }
    }
}

impl std::ops::Index<usize> for Files {
    type Output = FileEntry;

    fn index(&self, i: usize) -> &FileEntry {
        &self.chunks[i / CHUNK][i % CHUNK]
    }
}

pub enum QueueAction {
    /// A file handed to the worker (loading).
    Add {
        id: u32,
        /// The id of the first file of its batch (its own when it came alone).
        batch: u32,
        name: String,
        size: f64,
    },
    /// A file that could not be read or loaded.
    Failed {
        id: u32,
        error: String,
    },
    /// Removed from the queue (the worker forgets it too).
    Forget(u32),
    Filter(QueueFilter),
}

impl Queue {
    pub fn reduce(&mut self, action: QueueAction) {
        match action {
            QueueAction::Add { id, batch, name, size } => self.files.push(FileEntry {
                id,
                batch,
                name: name.into(),
                size,
                status: FileStatus::Loading {
                    bytes: 0.0,
                    total: size,
                    lines: 0.0,
                    quarantined: 0.0,
                },
            }),
            QueueAction::Failed { id, error } => self.set_status(id, FileStatus::Failed(error)),
            QueueAction::Forget(id) => self.files.retain(|f| f.id != id),
            QueueAction::Filter(f) => self.filter = f,
        }
    }

    /// The position of `file` in the queue.
    pub fn position(&self, file: u32) -> Option<usize> {
        self.files.index_of(file)
    }

    /// The summary of a loaded file.
    pub fn summary(&self, file: u32) -> Option<&Rc<TraceSummary>> {
        match &self.files.by_id(file)?.status {
            FileStatus::Ready(s) => Some(s),
            _ => None,
        }
    }

    /// The overview of trajectory `traj` of a loaded file.
    pub fn overview(&self, file: u32, traj: u32) -> Option<&Overview> {
        self.summary(file)?.trajectories.get(traj as usize).map(|o| &**o)
    }

    /// The loaded files, in queue order.
    pub fn ready(&self) -> impl Iterator<Item = (u32, &Rc<TraceSummary>)> {
        self.files.iter().filter_map(|f| match &f.status {
            FileStatus::Ready(s) => Some((f.id, s)),
            _ => None,
        })
    }

    pub fn any_loading(&self) -> bool {
        self.files.iter().any(|f| matches!(f.status, FileStatus::Loading { .. }))
    }

    /// Whether a file shown early is still read.
    pub fn any_reading(&self) -> bool {
        self.files.iter().any(|f| matches!(&f.status, FileStatus::Ready(s) if s.reading.is_some()))
    }

    /// A file shown early is read further: its progress, and the rows of the trajectories
    /// settled since (from index `from`), added to the queue (a row it holds sent again
    /// replaces it: the first trajectory settled after a growing copy of it was shown), and
    /// which one still grows. (Nothing once the whole file's summary replaced the early one.)
    pub fn reading(
        &mut self,
        file: u32,
        progress: ReadProgress,
        from: u32,
        rows: Vec<Row>,
        growing: Option<u32>,
    ) {
        self.update_summary(file, |s| {
            if s.reading.is_none() {
                return;
            }
            s.reading = Some(progress);
            s.growing = growing;
            s.stats = progress.stats();
            for (k, r) in rows.into_iter().enumerate() {
                let i = from as usize + k;
                let o = Rc::new(r.into_overview());
                let len = s.trajectories.len();
                match s.trajectories.get_mut(i) {
                    Some(slot) => {
                        s.analysed -= u32::from(slot.analysed);
                        s.analysed += u32::from(o.analysed);
                        *slot = o;
                    }
                    None if i == len => {
                        s.analysed += u32::from(o.analysed);
                        s.trajectories.push(o);
                    }
                    None => {}
                }
            }
            s.secrets_of = s.trajectories.len() as u32;
        });
    }

    pub fn set_status(&mut self, file: u32, status: FileStatus) {
        if let Some(f) = self.files.by_id_mut(file, &|_| true) {
            f.status = status;
        }
    }

    /// Progress of a file still loading (a late report for a finished one changes nothing).
    pub fn progress(&mut self, file: u32, bytes: f64, total: f64, lines: f64, quarantined: f64) {
        let loading = |f: &FileEntry| matches!(f.status, FileStatus::Loading { .. });
        if let Some(f) = self.files.by_id_mut(file, &loading) {
            f.status = FileStatus::Loading { bytes, total, lines, quarantined };
        }
    }

    /// Applies `f` to the summary of a loaded file.
    pub fn update_summary(&mut self, file: u32, f: impl FnOnce(&mut TraceSummary)) {
        if let Some(entry) = self.files.by_id_mut(file, &|_| true) {
            if let FileStatus::Ready(s) = &mut entry.status {
                f(Rc::make_mut(s));
            }
        }
    }

    /// A batch of overviews analysed: one update (one re-render) per batch.
    pub fn analysed(&mut self, file: u32, overviews: Vec<(u32, Overview)>) {
        self.update_summary(file, |s| {
            for (traj, o) in overviews {
                if let Some(t) = s.trajectories.get_mut(traj as usize) {
                    if !t.analysed && o.analysed {
                        s.analysed += 1;
                    }
                    *t = Rc::new(o);
                }
            }
        });
    }

    /// A batch of the secret scan: its findings added (up to what the page lists), the count
    /// and the progress updated.
    pub fn secrets(
        &mut self,
        file: u32,
        found: Vec<TraceFinding>,
        total: u64,
        scanned: u32,
        of: u32,
    ) {
        self.update_summary(file, |s| {
            let room = SECRETS_SHOWN.saturating_sub(s.secrets.len());
            s.secrets.extend(found.into_iter().take(room));
            s.secrets_total = total;
            s.secrets_scanned = scanned;
            s.secrets_of = of;
        });
    }

    /// The worker stopped: a file loading failed for lack of room, a loaded one is gone.
    pub fn crashed(&mut self, msg: &str) {
        self.files.for_each_mut(|f| {
            // (A file shown early was still read.)
            let read = f.reading().map(|p| p.bytes);
            f.status = match (&f.status, read) {
                (_, Some(bytes)) => FileStatus::Failed(format!(
                    "The browser ran out of room for this trace after {:.0} MB ({msg}). \
                     Use the trajscope CLI for files this big, or split the file.",
                    bytes / 1e6
                )),
                (FileStatus::Ready(_), None) => {
                    FileStatus::Failed("The ingest worker stopped; load this file again.".into())
                }
                (other, None) => other.clone(),
            };
        });
    }

    /// Whether the queue lists trajectory `t` of `file` under its filter.
    pub fn shows(&self, labels: &Labels, file: u32, format: &str, t: &Overview) -> bool {
        let f = &self.filter;
        f.format.as_deref().is_none_or(|want| want == format)
            && (!f.failed_only || t.outcome == Outcome::Failed)
            && (!f.unlabelled_only || !labels.is_labelled(file, &t.id))
    }
}
