//! The pure load loop: a [`Loader`] owns the ingestor, the optional identity hasher and the
//! progress count. A shell moves bytes into it (`feed`), may take the trajectories that settled
//! on the way to analyse them early (`take_settled`), and finishes it into a [`Session`].

use crate::attribution::TrajectoryAnalysis;
use crate::ingest::{Finished, IngestOptions, Ingestor, Settled};
use crate::labels::ContentHasher;

use super::Session;

/// Bytes into a session.
pub struct Loader {
    ingestor: Ingestor,
    hasher: Option<ContentHasher>,
    bytes: u64,
}

/// How far a load is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LoadProgress {
    /// Bytes fed so far.
    pub bytes: u64,
    /// Lines read so far.
    pub lines: u64,
    /// Lines quarantined so far.
    pub quarantined: u64,
}

impl Loader {
    /// A loader; with `hash`, it also computes the trace identity (SHA-256 of the bytes). A
    /// shell that hashes elsewhere (the app's helper worker) passes false and sets the
    /// identity on the session when it arrives.
    pub fn new(opts: IngestOptions, hash: bool) -> Loader {
        Loader { ingestor: Ingestor::new(opts), hasher: hash.then(ContentHasher::new), bytes: 0 }
    }

    /// Feeds the next bytes of the input (any chunking gives the same session).
    pub fn feed(&mut self, chunk: &[u8]) {
        self.count(chunk);
        self.ingestor.feed(chunk);
    }

    /// [`Loader::feed`] for a chunk whose lines were parsed ahead, on another thread
    /// ([`crate::ingest::PreparedChunk`]): the same session, less work here.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn feed_prepared(&mut self, chunk: &mut crate::ingest::PreparedChunk) {
        self.count(chunk.bytes());
        self.ingestor.feed_prepared(chunk);
    }

    /// The bytes fed, into the identity and the progress count.
    fn count(&mut self, chunk: &[u8]) {
        if let Some(h) = self.hasher.as_mut() {
            h.update(chunk);
        }
        self.bytes += chunk.len() as u64;
    }

    /// The format the next chunks' lines are worth parsing ahead as, if any (see
    /// [`crate::Ingestor::parses_ahead`]).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn parses_ahead(&self) -> Option<crate::model::Format> {
        self.ingestor.parses_ahead()
    }

    pub fn progress(&self) -> LoadProgress {
        let p = self.ingestor.progress();
        LoadProgress { bytes: self.bytes, lines: p.lines, quarantined: p.quarantined }
    }

    /// Trajectories complete before the end of the input (see [`Ingestor::take_settled`]);
    /// give them back to [`Loader::finish_with`].
    pub fn take_settled(&mut self) -> Vec<Settled> {
        self.ingestor.take_settled()
    }

    /// A copy of the first trajectory as read so far, while it is still open (see
    /// [`Ingestor::snapshot_first`]): at most `max_steps` steps, provisional.
    pub fn snapshot_first(&self, max_steps: usize) -> Option<crate::model::Trajectory> {
        self.ingestor.snapshot_first(max_steps)
    }

    /// Whether the copy [`Loader::snapshot_first`] gives is of a document held for its parse
    /// at the end (`IngestOptions::copy_document_steps`): until then each chunk fed is only
    /// appended, so a shell may read it in large pieces without delaying anything.
    pub fn copies_document(&self) -> bool {
        self.ingestor.peek_format().is_some()
    }

    /// Stops copying a document's first steps ([`Ingestor::stop_copy`]): once shown, the
    /// copy is not needed again.
    pub fn stop_copy(&mut self) {
        self.ingestor.stop_copy();
    }

    /// The format, once the input is known to be line-oriented (see
    /// [`Ingestor::jsonl_format`]), or of the copy of a document's first steps (see
    /// [`Ingestor::peek_format`]): what a shell showing trajectories early names.
    pub fn format(&self) -> Option<crate::model::Format> {
        self.ingestor.jsonl_format().or_else(|| self.ingestor.peek_format())
    }

    /// The session of everything fed, nothing analysed.
    pub fn finish(self) -> Session {
        self.finish_with(Vec::new())
    }

    /// The session, with the settled trajectories given back together with their analyses; an
    /// analysis whose trajectory a later line changed is dropped (it is analysed again).
    pub fn finish_with(self, settled: Vec<(Settled, TrajectoryAnalysis)>) -> Session {
        self.finish_returning(settled.into_iter().map(|(s, a)| (s, Some(Box::new(a)))).collect()).0
    }

    /// [`Loader::finish_with`] for a shell that analysed only some of the settled trajectories
    /// (the app's worker analyses the ones the page opened while the file was read): every
    /// settled trajectory given back, each with its analysis if it has one. Also returns the
    /// positions of those a later line changed ([`Finished::changed`]): their analyses are
    /// dropped, and whatever a shell showed of them is stale. An analysis comes boxed, as the
    /// session holds it: a list of 100,000 settled trajectories, each with room for an analysis
    /// inline, was 65 MB copied as it grew.
    pub fn finish_returning(
        self,
        settled: Vec<(Settled, Option<Box<TrajectoryAnalysis>>)>,
    ) -> (Session, Vec<usize>) {
        let mut returned = Vec::with_capacity(settled.len());
        let mut analyses = Vec::new();
        for (s, a) in settled {
            if let Some(a) = a {
                analyses.push((s.position, a));
            }
            returned.push(s);
        }
        let Finished { trace, changed } = self.ingestor.finish_with(returned);
        let identity = self.hasher.map(ContentHasher::finish);
        let mut session = Session::new(trace, identity);
        // Indexed, not searched: 100,000 settled runs must not each scan `changed`.
        let mut is_changed = vec![false; session.len()];
        for &i in &changed {
            if let Some(c) = is_changed.get_mut(i) {
                *c = true;
            }
        }
        for (position, a) in analyses {
            if !is_changed.get(position).copied().unwrap_or(false) {
                session.set_analysis(position, a);
            }
        }
        (session, changed)
    }
}
