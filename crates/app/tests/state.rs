//! The page's state, one concern at a time (queue, selection, navigation, search, labels, the
//! page), driven through its reducer with what the worker's `Store` really answers for a trace:
//! the same messages the page receives. Run natively and in headless Chromium.

use std::rc::Rc;

use trajscope_app::protocol::{Grain, ReadProgress, Request, Response, StepColumns};
use trajscope_app::state::{
    Action, FileStatus, HashView, LabelAction, Mode, NavAction, PageAction, QueueAction,
    QueueFilter, SearchAction, State,
};
use trajscope_app::worker::Store;
use trajscope_core::model::Outcome;
use trajscope_core::{ingest, IngestOptions, Loader, Session};
use yew::Reducible as _;

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

/// A test, natively and in the browser.
macro_rules! test {
    ($(fn $name:ident() $body:block)*) => {
        $(
            #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
            #[cfg_attr(not(target_arch = "wasm32"), test)]
            fn $name() $body
        )*
    };
}

const SAMPLE: &str = include_str!("../../../web/samples/sample.awtl.jsonl");
const PASSED: &str = include_str!("../../../tests/fixtures/awtl/passed_run.awtl.jsonl");

/// Three runs: `run-a` failed, `run-ok-1` passed, `run-c` failed.
fn three_runs() -> String {
    [
        SAMPLE.replace("run-demo-7", "run-a"),
        PASSED.to_string(),
        SAMPLE.replace("run-demo-7", "run-c"),
    ]
    .concat()
}

fn act(s: State, a: impl Into<Action>) -> State {
    (*Rc::new(s).reduce(a.into())).clone()
}

fn worker(s: State, resp: Response) -> State {
    act(s, Action::Worker(Box::new(resp)))
}

/// A page that opened `text` as file `id`, with the worker that holds it: its secrets scanned
/// and every trajectory analysed, the answers given to the page.
fn opened(s: State, id: u32, text: &str) -> (State, Store) {
    let mut store = Store::default();
    let s =
        act(s, QueueAction::Add { id, batch: id, name: format!("f{id}"), size: text.len() as f64 });
    let session = Session::new(ingest(text.as_bytes(), IngestOptions::default()), None);
    let mut s = worker(s, store.insert(id, session));
    while let Some(resp) = store.next_batch(id, || true) {
        s = worker(s, resp);
    }
    (s, store)
}

/// What the worker answers `req`, given to the page.
fn ask(s: State, store: &mut Store, req: Request) -> State {
    let resp = store.answer(req).expect("an answer");
    worker(s, resp)
}

/// The columns of the open trajectory, as the worker answers them: its full overview first.
fn columns(s: State, store: &mut Store) -> State {
    let (file, traj) = s.sel().expect("a trajectory is open");
    let out = store.answer_all(Request::Columns { req: 1, file, traj });
    assert!(matches!(&out[..], [Response::Analysed { .. }, Response::Columns { .. }]), "{out:?}");
    out.into_iter().fold(s, worker)
}

/// The open trajectory with `n` steps, errors at `errors` (no worker).
fn with_columns(n: u32, errors: &[u32]) -> State {
    let s =
        act(State::default(), QueueAction::Add { id: 1, batch: 1, name: "f".into(), size: 1.0 });
    let s = act(s, Action::Select { file: 1, traj: 0 });
    let c = StepColumns {
        line: (1..=n).collect(),
        is_error: (0..n).map(|i| errors.contains(&i)).collect(),
        role: vec![2; n as usize],
        actor: vec![u16::MAX; n as usize],
        actors: vec![],
        kind: vec![0; n as usize],
        ..StepColumns::default()
    };
    worker(s, Response::Columns { req: 1, file: 1, traj: 0, columns: c })
}

fn hits(s: State, query: &str, hits: Vec<u32>) -> State {
    let query = query.into();
    worker(s, Response::SearchHits { req: 1, file: 1, traj: 0, query, hits })
}

test! {
    fn opening_a_trajectory_resets_its_step_filter_texts_and_search_hits() {
        let (s, mut store) = opened(State::default(), 1, &three_runs());
        let overviews = &s.queue.summary(1).unwrap().trajectories;
        let ids: Vec<&str> = overviews.iter().map(|o| o.id.as_str()).collect();
        assert_eq!(ids, ["run-a", "run-ok-1", "run-c"]);
        assert_eq!(s.sel(), Some((1, 0)), "the new file is the view");
        assert_eq!(s.attr(), "loading", "until its columns arrive");
        let s = columns(s, &mut store);
        assert_eq!(s.attr(), "ready");
        let n = s.nav.columns.as_ref().unwrap().line.len();
        assert_eq!(s.nav.visible.len(), n);

        // Read the first run: a step, a filter, some texts, a search.
        let s = act(s, NavAction::Move(1));
        let s = act(s, NavAction::ErrorsOnly(true));
        let s = ask(s, &mut store, Request::Steps { req: 2, file: 1, traj: 0, items: vec![(0, Grain::Low)] });
        assert_eq!(s.nav.cache.len(), 1);
        let s = act(s, SearchAction::Query("userId".into()));
        let s = ask(s, &mut store, Request::Search { req: 3, file: 1, traj: 0, query: "userId".into() });
        assert!(s.search.hits.as_ref().is_some_and(|h| !h.is_empty()));
        assert_eq!(s.nav.step, Some(0));

        // Another run: none of it carries over but the query (searched again there).
        let s = act(s, Action::Select { file: 1, traj: 2 });
        assert_eq!(s.sel(), Some((1, 2)));
        assert_eq!((s.nav.step, s.nav.filter.errors_only), (None, false));
        assert!(s.nav.columns.is_none() && s.nav.visible.is_empty() && s.nav.cache.is_empty());
        assert_eq!((s.search.query.as_str(), s.search.hits.is_none()), ("userId", true));
        // Its row is all the page holds of it until its columns come, its full overview first.
        assert!(s.queue.summary(1).unwrap().trajectories[2].candidates.is_empty());
        assert!(s.selection.candidates.is_empty());

        // The first run's answers, late, are not this run's.
        let s = ask(s, &mut store, Request::Columns { req: 4, file: 1, traj: 0 });
        let s = ask(s, &mut store, Request::Steps { req: 5, file: 1, traj: 0, items: vec![(1, Grain::Low)] });
        let s = ask(s, &mut store, Request::Search { req: 6, file: 1, traj: 0, query: "userId".into() });
        assert!(s.nav.columns.is_none() && s.nav.cache.is_empty() && s.search.hits.is_none());
        let s = columns(s, &mut store);
        assert_eq!(s.attr(), "ready");
        let c = &s.queue.summary(1).unwrap().trajectories[2].candidates;
        assert!(!c.is_empty(), "the failed run has candidates");
        let steps: Vec<u32> = s.selection.candidates.iter().map(|c| c.step).collect();
        assert_eq!(steps, c.iter().map(|c| c.step).collect::<Vec<_>>(), "its own candidates");

        // The passed run has no candidates; selecting the open one again changes nothing.
        let s = act(s, Action::Select { file: 1, traj: 1 });
        assert!(s.selection.candidates.is_empty());
        let s = columns(s, &mut store);
        let s = act(s, NavAction::Go(2));
        let again = act(s.clone(), Action::Select { file: 1, traj: 1 });
        assert_eq!(again, s);
    }

    fn a_stale_search_answer_is_dropped() {
        let s = with_columns(10, &[]);
        let s = act(s, SearchAction::Query("old".into()));
        let s = act(s, SearchAction::Query("new".into()));
        let s = hits(s, "old", vec![1]);
        assert!(s.search.hits.is_none(), "an answer for the query before");
        let other = Response::SearchHits { req: 1, file: 1, traj: 3, query: "new".into(), hits: vec![2] };
        let s = worker(s, other);
        assert!(s.search.hits.is_none(), "an answer for another trajectory");
        let s = hits(s, "new", vec![4]);
        assert_eq!(s.search.hits.as_deref(), Some(&vec![4]));
        // A new query forgets the hits and a move waiting for them.
        let s = act(s, SearchAction::Query("newer".into()));
        let s = act(s, SearchAction::Move(1));
        assert_eq!((s.search.hits.is_none(), s.search.pending_move), (true, Some(1)));
        let s = act(s, SearchAction::Query("newest".into()));
        assert_eq!(s.search.pending_move, None);
    }

    fn a_next_asked_before_the_hits_is_done_when_they_arrive() {
        let s = with_columns(10, &[]);
        let s = act(s, SearchAction::Move(1));
        assert_eq!(s.search.pending_move, None, "no query, nothing waits");
        let s = act(s, SearchAction::Query("x".into()));
        let s = act(s, SearchAction::Move(1));
        assert_eq!(s.nav.step, None);
        let s = hits(s, "x", vec![4]);
        assert_eq!((s.nav.step, s.search.pending_move), (Some(4), None));
        assert_eq!(s.nav.scroll_to.map(|(step, _)| step), Some(4), "scrolled to it");
    }

    fn search_moves_wrap_around_and_skip_hits_the_filter_hides() {
        let s = with_columns(100, &[5, 50, 95]);
        let s = act(s, SearchAction::Query("x".into()));
        let s = hits(s, "x", vec![5, 20, 50, 95]);
        let mut steps = vec![];
        let mut s = s;
        for d in [1, 1, 1, 1, -1, -1] {
            s = act(s, SearchAction::Move(d));
            steps.push(s.nav.step.unwrap());
        }
        assert_eq!(steps, [5, 20, 50, 95, 50, 20]);
        let s = act(s, NavAction::ErrorsOnly(true));
        let s = act(s, SearchAction::Move(1));
        assert_eq!(s.nav.step, Some(50), "20 is hidden");
        let s = act(s, SearchAction::Move(1));
        let s = act(s, SearchAction::Move(1));
        assert_eq!(s.nav.step, Some(5), "wrapped");
        let s = act(s, SearchAction::Move(-1));
        assert_eq!(s.nav.step, Some(95), "wrapped back");
    }

    fn step_moves_follow_the_filter() {
        let s = with_columns(10, &[3, 7]);
        let s = act(s, NavAction::Move(1));
        assert_eq!(s.nav.step, Some(0));
        let s = act(s, NavAction::ErrorsOnly(true));
        assert_eq!(*s.nav.visible, vec![3, 7]);
        let s = act(s, NavAction::Move(1));
        assert_eq!(s.nav.step, Some(3));
        let s = act(s, NavAction::Move(1));
        let s = act(s, NavAction::Move(1));
        assert_eq!(s.nav.step, Some(7), "clamped at the end");
        let s = act(s, NavAction::Move(-5));
        assert_eq!(s.nav.step, Some(3), "clamped at the start");
        let s = act(s, NavAction::ErrorsOnly(false));
        let s = act(s, NavAction::Role(Some(9)));
        assert!(s.nav.visible.is_empty(), "no step of that role");
        let moved = act(s.clone(), NavAction::Move(1));
        assert_eq!(moved.nav.step, s.nav.step, "nothing to move to");
    }

    fn grains_focus_and_context() {
        let s = with_columns(10, &[]);
        let s = act(s, NavAction::SetGrain(Grain::Low));
        assert_eq!((s.nav.grain_of(3), s.nav.scroll_to), (Grain::Low, None), "no step: no scroll");
        let s = act(s, NavAction::Go(5));
        let s = act(s, NavAction::ToggleFocus);
        let grains: Vec<Grain> = [5, 4, 7, 8].iter().map(|&i| s.nav.grain_of(i)).collect();
        assert_eq!(grains, [Grain::High, Grain::Medium, Grain::Medium, Grain::Low]);
        // A grain chosen ends focus + context and keeps the step in view.
        let before = s.nav.scroll_to;
        let s = act(s, NavAction::SetGrain(Grain::Medium));
        assert!(!s.nav.focus);
        assert_eq!(s.nav.grain_of(0), Grain::Medium);
        assert_ne!(s.nav.scroll_to, before);
        assert_eq!(s.nav.scroll_to.map(|(step, _)| step), Some(5));
    }

    fn candidates_cycle_in_rank_order() {
        let (s, mut store) = opened(State::default(), 1, SAMPLE);
        let s = columns(s, &mut store);
        let ranked: Vec<u32> = s.selection.candidates.iter().map(|c| c.step).collect();
        assert!(ranked.len() >= 2, "{ranked:?}");
        let s = act(s, Action::MoveCandidate(1));
        assert_eq!(s.nav.step, Some(ranked[0]));
        let s = act(s, Action::MoveCandidate(-1));
        assert_eq!(s.nav.step, Some(*ranked.last().unwrap()), "wraps around");
        let s = act(s, Action::MoveCandidate(1));
        assert_eq!(s.nav.step, Some(ranked[0]));
        let s = act(s, NavAction::Go(9999));
        let s = act(s, Action::MoveCandidate(-1));
        assert_eq!(s.nav.step, Some(*ranked.last().unwrap()), "from a step that is none");
    }

    fn a_reviewers_outcome_reaches_the_open_trajectorys_candidates() {
        let (s, mut store) = opened(State::default(), 1, SAMPLE);
        let s = columns(s, &mut store);
        assert!(!s.selection.candidates.is_empty());
        let id = s.queue.summary(1).unwrap().trajectories[0].id.clone();
        let set = Request::SetOutcome { file: 1, trajectory_id: id, outcome: Outcome::Passed };
        let mut s = s;
        for resp in store.answer_all(set) {
            s = worker(s, resp);
        }
        assert!(s.selection.candidates.is_empty(), "a passed run has none");
        let o = &s.queue.summary(1).unwrap().trajectories[0];
        assert_eq!(o.outcome, Outcome::Passed);
    }

    fn a_deep_link_waits_for_its_file_then_its_columns() {
        let link = HashView {
            file: 1,
            traj: 2,
            step: Some(3),
            grain: Grain::Low,
            mode: Mode::Annotate,
            vs: None,
        };
        let s = act(State::default(), Action::PendingHash(link.clone()));
        assert_eq!(s.page.mode, Mode::Annotate, "the link's mode at once");
        let (s, _) = opened(s, 7, PASSED);
        assert_eq!(s.sel(), Some((7, 0)), "the first file is shown while the link waits");
        let (s, mut store) = opened(s, 8, &three_runs());
        assert_eq!(s.sel(), Some((8, 2)), "the link's file and trajectory");
        assert_eq!((s.nav.step, s.nav.grain), (None, Grain::default()), "not before the columns");
        let s = columns(s, &mut store);
        assert_eq!((s.nav.step, s.nav.grain), (Some(3), Grain::Low));
        assert!(s.selection.pending.is_none());
        assert_eq!(s.hash_view(), Some(link));
        // A third file opened later becomes the view.
        let (s, _) = opened(s, 9, PASSED);
        assert_eq!(s.sel(), Some((9, 0)));
    }

    fn the_url_hash_round_trips_and_junk_is_refused() {
        let h = HashView {
            file: 2,
            traj: 3,
            step: Some(41),
            grain: Grain::Low,
            mode: Mode::Review,
            vs: None,
        };
        assert_eq!(h.to_hash(), "#f=2&t=3&s=41&g=low");
        assert_eq!(HashView::parse(&h.to_hash()), Some(h.clone()));
        let a = HashView { mode: Mode::Annotate, ..h };
        assert_eq!(a.to_hash(), "#f=2&t=3&s=41&g=low&m=annotate");
        assert_eq!(HashView::parse(&a.to_hash()), Some(a.clone()));
        // Comparing: the right run by its file's position in the queue (never content).
        let c = HashView { mode: Mode::Compare, vs: Some((1, 7)), ..a };
        assert_eq!(c.to_hash(), "#f=2&t=3&s=41&g=low&m=compare&vs=1.7");
        assert_eq!(HashView::parse(&c.to_hash()), Some(c));
        assert_eq!(HashView::parse("#f=0&vs=1"), None);
        assert_eq!(HashView::parse("#f=0&m=nope"), None);
        assert_eq!(HashView::parse("#g=nope"), None);
        assert_eq!(HashView::parse("#f=x"), None);
        assert_eq!(HashView::parse(""), None);
    }

    fn labels_progress_next_unlabelled_and_queue_filters() {
        let (s, _) = opened(State::default(), 1, &three_runs());
        assert_eq!(s.labels.progress(&s.queue), (0, 3));
        let label = |id: &str, critical| LabelAction::Set { file: 1, trajectory_id: id.into(), critical };
        let s = act(s, label("run-a", Some(0)));
        assert_eq!(s.labels.progress(&s.queue), (1, 3));
        assert_eq!(s.labels.get(1, "run-a"), Some(Some(0)));
        assert_eq!(s.labels.get(1, "run-c"), None);
        let s = act(s, Action::NextUnlabelled);
        assert_eq!(s.sel(), Some((1, 1)));
        let s = act(s, Action::NextUnlabelled);
        assert_eq!(s.sel(), Some((1, 2)));
        let s = act(s, Action::NextUnlabelled);
        assert_eq!(s.sel(), Some((1, 1)), "wraps around, skipping the labelled one");

        let f = QueueFilter { failed_only: true, format: Some("awtl".into()), ..QueueFilter::default() };
        let s = act(s, QueueAction::Filter(f));
        let summary = s.queue.summary(1).unwrap().clone();
        let shows = |s: &State, format: &str, t: usize| {
            s.queue.shows(&s.labels, 1, format, &summary.trajectories[t])
        };
        assert!(shows(&s, "awtl", 0));
        assert!(!shows(&s, "awtl", 1), "passed is hidden");
        assert!(!shows(&s, "codex", 0), "another format is hidden");
        // Under "failed only", the next unlabelled is a failed one.
        let s = act(s, Action::NextUnlabelled);
        assert_eq!(s.sel(), Some((1, 2)));
        let s = act(s, QueueAction::Filter(QueueFilter { unlabelled_only: true, ..QueueFilter::default() }));
        assert!(!shows(&s, "awtl", 0), "labelled is hidden");
        // "No critical step" is a label too; with all labelled, nothing is next.
        let s = act(s, label("run-ok-1", None));
        let s = act(s, label("run-c", Some(1)));
        assert_eq!(s.labels.progress(&s.queue), (3, 3));
        let before = s.sel();
        let s = act(s, Action::NextUnlabelled);
        assert_eq!(s.sel(), before);
    }

    fn marking_critical_needs_a_step_and_opens_annotate() {
        let s = with_columns(5, &[]);
        let s = act(s, Action::MarkCritical);
        assert_eq!((s.page.mode, s.labels.mark_count), (Mode::Review, 0), "nothing to mark");
        let s = act(s, NavAction::Move(1));
        let s = act(s, Action::MarkCritical);
        assert_eq!((s.page.mode, s.labels.mark_count), (Mode::Annotate, 1));
        let s = act(s, PageAction::SetMode(Mode::Review));
        let s = act(s, Action::MarkCritical);
        assert_eq!((s.page.mode, s.labels.mark_count), (Mode::Annotate, 2));
    }

    fn forgetting_the_open_file_opens_the_first_loaded_one() {
        let (s, _) = opened(State::default(), 1, PASSED);
        let (s, _) = opened(s, 2, SAMPLE);
        let s = act(s, QueueAction::Add { id: 3, batch: 3, name: "loading".into(), size: 10.0 });
        let s = act(s, Action::Select { file: 2, traj: 0 });
        let s = act(s, NavAction::Go(1));
        let s = act(s, QueueAction::Forget(2));
        assert_eq!(s.sel(), Some((1, 0)));
        assert_eq!(s.nav.step, None);
        let s = act(s, QueueAction::Forget(1));
        assert_eq!(s.sel(), None, "a file still loading is not shown");
        assert_eq!(s.attr(), "loading");
        let s = act(s, QueueAction::Failed { id: 3, error: "unreadable".into() });
        assert_eq!(s.attr(), "error");
    }

    fn progress_and_a_late_report_for_a_loaded_file() {
        let s = act(State::default(), QueueAction::Add { id: 1, batch: 1, name: "f".into(), size: 100.0 });
        let p = Response::Progress { file: 1, bytes: 50.0, total: 100.0, lines: 3.0, quarantined: 1.0 };
        let s = worker(s, p.clone());
        let FileStatus::Loading { bytes, lines, .. } = s.queue.files[0].status else { panic!() };
        assert_eq!((bytes, lines), (50.0, 3.0));
        let s = worker(s, Response::Cancelled { file: 1 });
        let s = worker(s, p);
        assert_eq!(s.queue.files[0].status, FileStatus::Cancelled, "a late report changes nothing");
    }

    fn a_queue_of_many_files_keeps_their_order_and_each_state_its_own_files() {
        let mut s = State::default();
        for id in 0..300 {
            s = act(s, QueueAction::Add { id, batch: id, name: format!("f{id}"), size: 1.0 });
        }
        let before = s.clone();
        let s = act(s, QueueAction::Failed { id: 150, error: "unreadable".into() });
        let ids = |s: &State| s.queue.files.iter().map(|f| f.id).collect::<Vec<_>>();
        assert_eq!(ids(&s), (0..300).collect::<Vec<_>>());
        assert_eq!((s.queue.files.len(), &*s.queue.files[299].name), (300, "f299"));
        assert!(matches!(s.queue.files[150].status, FileStatus::Failed(_)));
        // The state before the update still has the file as it was.
        assert!(matches!(before.queue.files[150].status, FileStatus::Loading { .. }));
        assert!(matches!(before.queue.files.get(150).unwrap().status, FileStatus::Loading { .. }));
        // Forgetting files moves the later ones up, in order, whatever chunk they were in.
        let s = act(act(s, QueueAction::Forget(0)), QueueAction::Forget(200));
        let want: Vec<u32> = (1..300).filter(|&i| i != 200).collect();
        assert_eq!((ids(&s), s.queue.files.len()), (want, 298));
        assert_eq!(s.queue.files[149].id, 150);
        assert!(s.queue.files.get(298).is_none());
        let s = act(s, QueueAction::Add { id: 300, batch: 300, name: "last".into(), size: 1.0 });
        assert_eq!((s.queue.files.len(), s.queue.files[298].id), (299, 300));
        assert_eq!(s.queue.position(300), Some(298));
        // Every file is found by its id, in any chunk; forgotten ones are not.
        for (at, f) in s.queue.files.iter().enumerate() {
            assert_eq!(s.queue.position(f.id), Some(at));
            assert_eq!(s.queue.files.by_id(f.id).map(|f| f.id), Some(f.id));
        }
        assert_eq!((s.queue.position(0), s.queue.position(200), s.queue.position(301)), (None, None, None));
        // A file queued out of the order of ids is found all the same.
        let s = act(s, QueueAction::Add { id: 200, batch: 200, name: "late".into(), size: 1.0 });
        assert_eq!(s.queue.position(200), Some(299));
        let s = act(s, QueueAction::Failed { id: 200, error: "unreadable".into() });
        assert!(matches!(s.queue.files[299].status, FileStatus::Failed(_)));
        assert_eq!(s.queue.files[199].id, 201);
        assert!(matches!(s.queue.files[199].status, FileStatus::Loading { .. }));
        let s = act(s, QueueAction::Forget(200));
        // A crash changes every file, each state its own.
        let after = act(s.clone(), Action::WorkerCrashed("gone".into()));
        assert!(after.queue.files.iter().all(|f| matches!(f.status, FileStatus::Failed(_))));
        assert!(matches!(s.queue.files[0].status, FileStatus::Loading { .. }));
    }

    fn the_first_file_of_a_drop_read_opens_and_a_later_drop_takes_the_view() {
        let text = three_runs();
        let mut store = Store::default();
        let mut s = State::default();
        for id in 1..=3 {
            s = act(s, QueueAction::Add { id, batch: 1, name: format!("a.zip!{id}"), size: 1.0 });
        }
        let mut load = |s: State, id: u32| {
            let session = Session::new(ingest(text.as_bytes(), IngestOptions::default()), None);
            worker(s, store.insert(id, session))
        };
        // The drop's second file is read first: it opens, and stays open as the others come.
        let s = load(s, 2);
        assert_eq!(s.sel(), Some((2, 0)));
        let s = load(s, 3);
        let s = load(s, 1);
        assert_eq!(s.sel(), Some((2, 0)), "a file of the same drop does not take the view");
        // A file dropped later becomes the view when it is read.
        let s = act(s, QueueAction::Add { id: 4, batch: 4, name: "later".into(), size: 1.0 });
        let s = load(s, 4);
        assert_eq!(s.sel(), Some((4, 0)));
    }

    fn a_crash_fails_loading_files_with_a_clear_message() {
        let s = worker(State::default(), Response::Ready);
        let s = act(s, QueueAction::Add { id: 1, batch: 1, name: "big".into(), size: 9e8 });
        let s = act(s, PageAction::Notice("old".into()));
        let s = act(s, QueueAction::Add { id: 2, batch: 2, name: "other".into(), size: 1.0 });
        assert_eq!(s.page.notice, None, "a new file clears the notice");
        assert_eq!(s.attr(), "loading");
        let s = act(s, Action::WorkerCrashed("out of memory".into()));
        let FileStatus::Failed(msg) = &s.queue.files[0].status else { panic!("not failed") };
        assert!(msg.contains("ran out of room"), "{msg}");
        assert_eq!(s.attr(), "error");
        assert_eq!(s.page.crashes, 1, "a worker that was up is restarted");
        // One that never came up is not restarted again and again.
        let s = act(s, Action::WorkerCrashed("404".into()));
        assert_eq!(s.page.crashes, 1);
        assert!(s.page.notice.as_deref().is_some_and(|n| n.contains("404")));
    }

    fn a_batch_replaces_only_the_overviews_it_brings() {
        let mut store = Store::default();
        let s = act(State::default(), QueueAction::Add { id: 1, batch: 1, name: "f".into(), size: 1.0 });
        let session = Session::new(ingest(three_runs().as_bytes(), IngestOptions::default()), None);
        let s = worker(s, store.insert(1, session));
        let before = s.queue.summary(1).unwrap().clone();
        assert!(before.trajectories[0].analysed && !before.trajectories[1].analysed);
        // One piece at a time: the secret scan's first batch, then analysis batches.
        let mut s = s;
        let mut analysed = None;
        while analysed.is_none() {
            match store.next_batch(1, || false) {
                Some(Response::Rows { rows, .. }) => analysed = Some(rows),
                Some(other) => s = worker(s, other),
                None => panic!("no analysis batch"),
            }
        }
        let rows = analysed.unwrap();
        assert_eq!(rows.iter().map(|o| o.0).collect::<Vec<_>>(), [1]);
        let s = worker(s, Response::Rows { file: 1, rows });
        let after = s.queue.summary(1).unwrap();
        assert!(after.trajectories[1].analysed);
        assert_eq!(after.analysed, 2);
        // The others are the very same overviews (no copy, nothing for a row to re-render).
        assert!(Rc::ptr_eq(&before.trajectories[0], &after.trajectories[0]));
        assert!(Rc::ptr_eq(&before.trajectories[2], &after.trajectories[2]));
        assert!(!Rc::ptr_eq(&before.trajectories[1], &after.trajectories[1]));
        assert!(Rc::ptr_eq(&before.quarantine, &after.quarantine));
    }

    fn the_secrets_arrive_after_loaded_and_fill_in() {
        let planted = include_str!("../../../tests/fixtures/redact/planted-secrets.awtl.jsonl");
        let mut store = Store::default();
        let s = act(State::default(), QueueAction::Add { id: 1, batch: 1, name: "f".into(), size: 1.0 });
        let session = Session::new(ingest(planted.as_bytes(), IngestOptions::default()), None);
        let s = worker(s, store.insert(1, session));
        let summary = s.queue.summary(1).unwrap();
        assert!(!summary.secrets_done() && summary.secrets_total == 0, "scanning");
        assert_eq!(s.sel(), Some((1, 0)), "readable before the scan");
        let Some(resp @ Response::Secrets { .. }) = store.next_batch(1, || true) else {
            panic!("no scan")
        };
        let s = worker(s, resp);
        let summary = s.queue.summary(1).unwrap();
        assert!(summary.secrets_done());
        assert!(summary.secrets_total >= 12, "{}", summary.secrets_total);
        assert_eq!(summary.secrets.len() as u64, summary.secrets_total);
        assert!(summary.secrets.iter().any(|f| f.kind == "github-token" && f.step == Some(2)));
    }

    fn a_file_shown_while_it_is_read_keeps_the_reviewers_place_when_it_is_read_whole() {
        for late in [false, true] {
            // Five runs; with `late`, a line of the first after its end (it changes under the
            // page).
            let mut text = String::new();
            for i in 0..5 {
                text += &SAMPLE.replace("run-demo-7", &format!("run-{i}"));
                if late && i == 2 {
                    text += "{\"type\":\"observation\",\"run_id\":\"run-0\",\"output\":\"late\"}\n";
                }
            }
            let mut store = Store::default();
            let mut s = act(
                State::default(),
                QueueAction::Add { id: 1, batch: 1, name: "f".into(), size: text.len() as f64 },
            );
            let mut loader = Loader::new(IngestOptions::default(), true);
            store.begin(1);
            let (mut pos, mut rows_seen) = (0, Vec::new());
            for piece in text.as_bytes().chunks(700) {
                loader.feed(piece);
                pos += piece.len();
                let p = loader.progress();
                let progress = ReadProgress {
                    bytes: pos as f64,
                    total: text.len() as f64,
                    lines: p.lines as f64,
                    quarantined: p.quarantined as f64,
                };
                let early = pos < text.len();
                let settled = loader.take_settled();
                if let Some(r) = store.settle(1, settled, loader.format(), progress, early) {
                    s = worker(s, r);
                    // Ready before the end: the first run open, its columns in, a step chosen.
                    assert_eq!(s.sel(), Some((1, 0)));
                    assert_eq!(s.attr(), "loading", "until its columns come");
                    s = columns(s, &mut store);
                    assert_eq!(s.attr(), "ready");
                    s = act(s, NavAction::Go(3));
                }
                s = worker(s, store.read_progress(1, progress));
                if let Some(sum) = s.queue.summary(1) {
                    rows_seen.push(sum.trajectories.len());
                }
            }
            assert!(s.queue.any_reading(), "still read");
            assert!(rows_seen.len() > 1 && rows_seen.windows(2).any(|w| w[1] > w[0]), "{rows_seen:?}");
            assert!(rows_seen[0] < 5, "{rows_seen:?}");
            let open = s.queue.overview(1, 0).unwrap().clone();
            assert!(!open.candidates.is_empty(), "its full overview");
            for r in store.finish(1, loader) {
                s = worker(s, r);
            }
            // Read whole: the same place, every run in the queue, no progress left.
            assert!(!s.queue.any_reading());
            let sum = s.queue.summary(1).unwrap();
            assert_eq!(sum.trajectories.len(), 5);
            assert_eq!(sum.stats.lines_total, text.lines().count() as u64);
            assert_eq!((s.sel(), s.nav.step), (Some((1, 0)), Some(3)));
            let now = s.queue.overview(1, 0).unwrap();
            if late {
                // Its columns asked again (one step more), its new overview in.
                assert!(s.nav.columns.is_none());
                assert_eq!(now.steps, open.steps + 1);
                assert!(!now.candidates.is_empty());
                s = columns(s, &mut store);
                assert_eq!(s.nav.columns.as_ref().unwrap().role.len(), open.steps + 1);
                assert_eq!(s.nav.step, Some(3));
            } else {
                assert!(s.nav.columns.is_some());
                assert_eq!(now, &open);
            }
            assert_eq!(s.attr(), "ready");
            // Its background work done, the page holds what it holds of the file loaded
            // whole (the whole file's `Loaded` brought only the rows it did not hold).
            while let Some(resp) = store.next_batch(1, || true) {
                s = worker(s, resp);
            }
            let hash = trajscope_core::labels::content_hash(text.as_bytes());
            let mut plain_store = Store::default();
            let plain = act(State::default(), QueueAction::Add { id: 1, batch: 1, name: "f".into(), size: 1.0 });
            let session = Session::new(ingest(text.as_bytes(), IngestOptions::default()), Some(hash));
            let mut plain = worker(plain, plain_store.insert(1, session));
            plain = columns(plain, &mut plain_store);
            while let Some(resp) = plain_store.next_batch(1, || true) {
                plain = worker(plain, resp);
            }
            let whole = |s: &State| {
                let mut sum = (**s.queue.summary(1).unwrap()).clone();
                (sum.kept, sum.revised) = (0, Vec::new());
                sum
            };
            assert_eq!(whole(&s), whole(&plain), "late: {late}");
            assert!(s.queue.summary(1).unwrap().analysis_done);
        }
    }

    fn a_growing_first_trajectory_is_shown_then_replaced_keeping_the_reviewers_place() {
        for ends in [true, false] {
            // One run of 60 steps: with `ends`, its `run_end` then three more runs (it
            // settles while the file is read); without, no end marker (it never settles).
            let mut text = "{\"type\":\"run_start\",\"run_id\":\"run-0\",\"task\":\"t\"}\n".to_string();
            for i in 0..59 {
                text += &format!(
                    "{{\"type\":\"action\",\"run_id\":\"run-0\",\"agent\":\"coder\",\"tool\":\"shell\",\"command\":\"make {i}\"}}\n"
                );
            }
            if ends {
                text += "{\"type\":\"run_end\",\"run_id\":\"run-0\",\"status\":\"failed\"}\n";
                for i in 1..4 {
                    text += &SAMPLE.replace("run-demo-7", &format!("run-{i}"));
                }
            }
            let mut store = Store::default();
            let mut s = act(
                State::default(),
                QueueAction::Add { id: 1, batch: 1, name: "f".into(), size: text.len() as f64 },
            );
            let mut loader = Loader::new(IngestOptions::default(), true);
            store.begin(1);
            let (mut pos, mut shown, mut refreshed) = (0, None, false);
            for piece in text.as_bytes().chunks(700) {
                loader.feed(piece);
                pos += piece.len();
                let p = loader.progress();
                let progress = ReadProgress {
                    bytes: pos as f64,
                    total: text.len() as f64,
                    lines: p.lines as f64,
                    quarantined: p.quarantined as f64,
                };
                let early = pos < text.len();
                let settled = loader.take_settled();
                let r = store.settle(1, settled, loader.format(), progress, early);
                let r = r.or_else(|| store.grow(1, &mut loader, progress, early));
                let resps = r.into_iter().chain([store.read_progress(1, progress)]);
                for r in resps {
                    let first = matches!(&r, Response::Loaded { .. });
                    s = worker(s, r);
                    if first {
                        // Ready after the first slice: the run as read so far, said to be
                        // still read, its columns those of the steps read.
                        let sum = s.queue.summary(1).unwrap();
                        assert_eq!(sum.growing, Some(0));
                        assert_eq!(s.sel(), Some((1, 0)));
                        s = columns(s, &mut store);
                        assert_eq!(s.attr(), "ready");
                        let n = s.nav.columns.as_ref().unwrap().role.len();
                        assert!(n > 3 && n < 60, "{n} steps read so far");
                        assert!(!s.queue.overview(1, 0).unwrap().analysed, "not analysed");
                        s = act(s, NavAction::Go(3));
                        shown = Some(n);
                    } else if shown.is_some() && s.nav.columns.is_none() {
                        // Settled while read: its row again, its columns asked again.
                        assert!(ends);
                        assert_eq!(s.queue.summary(1).unwrap().growing, None);
                        refreshed = true;
                        s = columns(s, &mut store);
                        assert_eq!(s.nav.columns.as_ref().unwrap().role.len(), 61);
                        assert!(s.queue.overview(1, 0).unwrap().analysed);
                    }
                }
            }
            assert!(shown.is_some() && refreshed == ends, "{shown:?} {refreshed}");
            for r in store.finish(1, loader) {
                s = worker(s, r);
            }
            // Read whole: the same place; a run that never settled is the whole run now.
            assert!(!s.queue.any_reading());
            let sum = s.queue.summary(1).unwrap();
            assert_eq!((sum.growing, sum.trajectories.len()), (None, if ends { 4 } else { 1 }));
            assert_eq!((s.sel(), s.nav.step), (Some((1, 0)), Some(3)));
            if !ends {
                assert!(s.nav.columns.is_none(), "asked again");
                s = columns(s, &mut store);
            }
            assert_eq!(s.nav.columns.as_ref().unwrap().role.len(), if ends { 61 } else { 60 });
            assert!(s.queue.overview(1, 0).unwrap().analysed);
            assert_eq!((s.attr(), s.nav.step), ("ready", Some(3)));
            while let Some(resp) = store.next_batch(1, || true) {
                s = worker(s, resp);
            }
            let hash = trajscope_core::labels::content_hash(text.as_bytes());
            let mut plain_store = Store::default();
            let plain = act(State::default(), QueueAction::Add { id: 1, batch: 1, name: "f".into(), size: 1.0 });
            let session = Session::new(ingest(text.as_bytes(), IngestOptions::default()), Some(hash));
            let mut plain = worker(plain, plain_store.insert(1, session));
            plain = columns(plain, &mut plain_store);
            while let Some(resp) = plain_store.next_batch(1, || true) {
                plain = worker(plain, resp);
            }
            let whole = |s: &State| {
                let mut sum = (**s.queue.summary(1).unwrap()).clone();
                (sum.kept, sum.revised) = (0, Vec::new());
                sum
            };
            assert_eq!(whole(&s), whole(&plain), "ends: {ends}");
            assert!(s.queue.summary(1).unwrap().analysis_done);
        }
    }
}
