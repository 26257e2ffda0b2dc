//! Fuzz target: everything after the ingest never panics on any input, and its two fastest
//! paths give what their plain counterparts give.
//! - The CLI's reading: every chunk fed with its lines parsed ahead as the loader says
//!   (`PreparedChunk`) gives the trace the plain ingest gives.
//! - The analysis of every trajectory, and the report JSON `analyze --json` streams
//!   (`json::write_analysed`), byte for byte what serde_json writes of the same report.
//! - The reviewer's reads: the columns, every step at every grain, a search, the failed turn
//!   cases, the brief, the secret scan and the quarantine's JSONL.
//!
//! The first input byte picks a chunk size and a format hint; the rest is the file.
#![no_main]

use libfuzzer_sys::fuzz_target;
use trajscope_core::ingest::PreparedChunk;
use trajscope_core::model::Format;
use trajscope_core::report::{json, Report};
use trajscope_core::views::Grain;
use trajscope_core::{ingest, IngestOptions, Loader};

fuzz_target!(|data: &[u8]| {
    let Some((&knob, file)) = data.split_first() else { return };
    let format = match knob >> 4 {
        n @ 0..=12 if knob & 1 == 1 => Some(Format::ALL[n as usize]),
        _ => None,
    };
    let opts = || IngestOptions { format, ..IngestOptions::default() };
    let whole = ingest(file, opts());

    let size = [1, 3, 17, 64, 4096][usize::from((knob >> 1) % 5)];
    let mut loader = Loader::new(opts(), false);
    for c in file.chunks(size) {
        let mut chunk = PreparedChunk::new(c.to_vec(), c.len(), loader.parses_ahead());
        loader.feed_prepared(&mut chunk);
    }
    let mut session = loader.finish();
    assert_eq!(session.trace(), &whole, "parsed ahead in chunks of {size} bytes");

    session.analyse_all();
    let report = session.report();
    let expected = serde_json::to_vec(&report).expect("a report serialises");
    let (trace, analyses) = session.clone().into_parts();
    let mut streamed = Vec::new();
    Report::write_json_head(&trace, &mut streamed).expect("the head is written");
    for (i, (t, a)) in trace.trajectories.iter().zip(&analyses).enumerate() {
        if i > 0 {
            streamed.push(b',');
        }
        let a = a.as_deref().expect("every trajectory analysed");
        json::write_analysed(&mut streamed, t, a).expect("an overview is written");
    }
    streamed.extend_from_slice(Report::JSON_TAIL);
    assert_eq!(
        String::from_utf8_lossy(&streamed),
        String::from_utf8_lossy(&expected),
        "the streamed report is serde_json's"
    );

    for i in 0..session.len().min(3) {
        let _ = session.columns(i);
        let n = session.trajectory(i).map_or(0, |t| t.steps.len()).min(64) as u32;
        let items: Vec<(u32, Grain)> =
            (0..n).flat_map(|s| Grain::ALL.into_iter().map(move |g| (s, g))).collect();
        let views = session.steps(i, &items);
        assert_eq!(views.len(), items.len(), "a view for every step and grain asked");
        let _ = session.search(i, "error");
    }
    if let Some(cases) = session.cases() {
        let _ = cases.jsonl();
        let _ = cases.brief();
    }
    let _ = session.secrets();
    let _ = session.quarantine_jsonl();
});
