//! Archives of traces (`.tar`, `.tar.gz`, `.zip`): every member is ingested as its own trace,
//! named by its member path, under the same caps as a single file. Archives are built here in
//! memory from the real fixtures.
#![cfg(not(target_arch = "wasm32"))]
// Reading the fixture files is the test's I/O, not the core's.
#![allow(clippy::disallowed_methods)]

use std::io::Write as _;
use std::path::Path;

use trajscope_core::ingest::{archive_kind, ingest_archive, ArchiveKind, Limits};
use trajscope_core::IngestOptions;

fn fixture(rel: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures").join(rel);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn three_formats() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("runs/fixed_at_once.awtl.jsonl", fixture("awtl/fixed_at_once.awtl.jsonl")),
        (
            "sessions/session.jsonl",
            fixture(&format!("claude_code/{}", first("claude_code", ".jsonl"))),
        ),
        ("who/ag_1.json", fixture("who_and_when/ag_1.json")),
    ]
}

fn first(dir: &str, ext: &str) -> String {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures").join(dir);
    let mut names: Vec<String> = std::fs::read_dir(d)
        .expect("fixture folder")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(ext))
        .collect();
    names.sort();
    names.remove(0)
}

fn tar(files: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (name, data) in files {
        let mut h = [0u8; 512];
        h[..name.len()].copy_from_slice(name.as_bytes());
        h[100..108].copy_from_slice(b"0000644\0");
        h[124..136].copy_from_slice(format!("{:011o}\0", data.len()).as_bytes());
        h[148..156].copy_from_slice(b"        ");
        h[156] = b'0';
        h[257..263].copy_from_slice(b"ustar\0");
        h[263..265].copy_from_slice(b"00");
        out.extend_from_slice(&h);
        out.extend_from_slice(data);
        out.resize(out.len().div_ceil(512) * 512, 0);
    }
    out.extend_from_slice(&[0; 1024]);
    out
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(bytes).expect("in-memory write");
    enc.finish().expect("in-memory write")
}

/// A zip of stored members.
fn zip(files: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data) in files {
        let offset = out.len() as u32;
        let size = (data.len() as u32).to_le_bytes();
        out.extend_from_slice(
            b"PK\x03\x04\x14\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00",
        );
        out.extend_from_slice(&size);
        out.extend_from_slice(&size);
        out.extend_from_slice(&(name.len() as u16).to_le_bytes());
        out.extend_from_slice(&[0, 0]);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(data);
        central.extend_from_slice(b"PK\x01\x02\x14\x00\x14\x00\x00\x00\x00\x00");
        central.extend_from_slice(&[0; 8]);
        central.extend_from_slice(&size);
        central.extend_from_slice(&size);
        central.extend_from_slice(&(name.len() as u16).to_le_bytes());
        central.extend_from_slice(&[0; 12]);
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(name.as_bytes());
    }
    let cd_offset = out.len() as u32;
    let n = (files.len() as u16).to_le_bytes();
    out.extend_from_slice(&central);
    out.extend_from_slice(b"PK\x05\x06\x00\x00\x00\x00");
    out.extend_from_slice(&n);
    out.extend_from_slice(&n);
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&cd_offset.to_le_bytes());
    out.extend_from_slice(&[0, 0]);
    out
}

#[test]
fn a_tar_gz_tar_or_zip_of_three_formats_gives_three_traces_with_their_paths() {
    let files = three_formats();
    let plain = tar(&files);
    for (bytes, kind) in [
        (gzip(&plain), ArchiveKind::TarGz),
        (plain.clone(), ArchiveKind::Tar),
        (zip(&files), ArchiveKind::Zip),
    ] {
        let opts = IngestOptions::default();
        assert_eq!(archive_kind(&bytes, &opts.limits), Some(kind));
        let archive = ingest_archive(&bytes, &opts).expect("an archive");
        assert_eq!(archive.kind, kind);
        assert!(archive.error.is_none(), "{kind:?}: {:?}", archive.error);
        let got: Vec<(&str, &str)> =
            archive.members.iter().map(|m| (m.path.as_str(), m.trace.format.name())).collect();
        assert_eq!(
            got,
            [
                ("runs/fixed_at_once.awtl.jsonl", "awtl"),
                ("sessions/session.jsonl", "claude-code"),
                ("who/ag_1.json", "who-and-when")
            ],
            "{kind:?}"
        );
        for (m, (_, data)) in archive.members.iter().zip(&files) {
            // Each member reads exactly as the same file read on its own.
            assert_eq!(
                m.trace,
                trajscope_core::ingest(data, IngestOptions::default()),
                "{}",
                m.path
            );
        }
    }
}

#[test]
fn member_paths_lose_a_leading_dot_slash_and_os_metadata_is_not_a_member() {
    let awtl = fixture("awtl/fixed_at_once.awtl.jsonl");
    let files = [
        ("./runs/a.awtl.jsonl", awtl.clone()),
        ("./.DS_Store", b"\0\0\0\x01Bud1".to_vec()),
        ("__MACOSX/runs/._a.awtl.jsonl", b"\0\x05\x16\x07".to_vec()),
        ("./runs/._a.awtl.jsonl", b"\0\x05\x16\x07".to_vec()),
    ];
    for bytes in [gzip(&tar(&files)), zip(&files)] {
        let a = ingest_archive(&bytes, &IngestOptions::default()).expect("an archive");
        let paths: Vec<&str> = a.members.iter().map(|m| m.path.as_str()).collect();
        assert_eq!(paths, ["runs/a.awtl.jsonl"]);
        assert_eq!(a.members[0].trace.format.name(), "awtl");
    }
}

#[test]
fn archives_obey_the_caps() {
    let files: Vec<(String, Vec<u8>)> = (0..20)
        .map(|i| (format!("t{i}.jsonl"), b"{\"role\":\"user\",\"content\":\"x\"}\n".to_vec()))
        .collect();
    let files: Vec<(&str, Vec<u8>)> = files.iter().map(|(n, d)| (n.as_str(), d.clone())).collect();
    let limits = Limits { max_archive_entries: 5, ..Limits::default() };
    let opts = IngestOptions { limits, ..IngestOptions::default() };
    let a = ingest_archive(&tar(&files), &opts).expect("an archive");
    assert_eq!(a.members.len(), 5);
    assert!(a.error.is_some_and(|e| e.contains("limit of 5 entries")));
    // A zip directory over the limit is not read at all: the ingest says which limit.
    assert!(ingest_archive(&zip(&files), &opts).is_none());
    let t = trajscope_core::ingest(&zip(&files), opts.clone());
    assert!(t.error.is_some_and(|e| e.contains("20 entries, more than the limit of 5")));

    let limits = Limits { max_inflated: 4096, ..Limits::default() };
    let opts = IngestOptions { limits, ..IngestOptions::default() };
    let a = ingest_archive(&gzip(&tar(&files)), &opts).expect("an archive");
    assert!(a.members.len() < 20, "cut at 4 KiB of tar");
    assert!(a.error.is_some_and(|e| e.contains("limit of 4 KiB")));
}

#[test]
fn a_single_trace_is_not_an_archive_of_traces() {
    let opts = IngestOptions::default();
    assert!(ingest_archive(&fixture("awtl/fixed_at_once.awtl.jsonl"), &opts).is_none());
    assert!(ingest_archive(&gzip(&fixture("awtl/fixed_at_once.awtl.jsonl")), &opts).is_none());
    assert!(
        ingest_archive(&fixture("inspect/browser.eval"), &opts).is_none(),
        "an .eval is one trace"
    );
}

#[test]
fn an_archive_inside_an_archive_is_a_member_that_says_so_and_reads_nothing() {
    let inner = tar(&three_formats());
    let plain = ("plain.awtl.jsonl", fixture("awtl/fixed_at_once.awtl.jsonl"));
    for wrapped in [inner.clone(), gzip(&inner)] {
        let outer = gzip(&tar(&[("inner.tar.gz", wrapped), plain.clone()]));
        let a = ingest_archive(&outer, &IngestOptions::default()).expect("an archive");
        let [nested, read] = &a.members[..] else { panic!("two members: {:?}", a.members) };
        // Not its header glued to its first member's first line, nor that member's lines as
        // the member's own: nothing read, and the error says what it is.
        let e = nested.trace.error.as_deref().unwrap_or_default();
        assert!(e.starts_with("the file is a tar archive"), "{e}");
        assert!(e.contains("stopped at line 1"), "{e}");
        assert!(!e.contains("no line") && !e.contains("file is empty"), "no other hint: {e}");
        assert_eq!(nested.trace.stats.lines_total, 0);
        assert!(nested.trace.trajectories.is_empty() && nested.trace.quarantine.is_empty());
        assert_eq!(read.trace.error, None);
        assert_eq!(read.trace.trajectories.len(), 1);
    }
    // The same of a tar read as one trace (from a pipe, or named with --format).
    let t = trajscope_core::ingest(&inner, IngestOptions::default());
    assert!(t.error.as_deref().is_some_and(|e| e.contains("tar archive")), "{:?}", t.error);
    assert_eq!((t.stats.lines_total, t.trajectories.len()), (0, 0));
}

#[test]
fn an_empty_archive_is_an_archive_of_no_file() {
    let limits = Limits::default();
    let empty_tar = vec![0u8; 10240];
    for (bytes, kind) in [(empty_tar.clone(), ArchiveKind::Tar), (zip(&[]), ArchiveKind::Zip)] {
        assert_eq!(archive_kind(&bytes, &limits), Some(kind));
        let a = ingest_archive(&bytes, &IngestOptions::default()).expect("an archive");
        assert!(a.members.is_empty());
        assert_eq!(a.error.as_deref(), Some("the archive holds no files"), "{kind:?}");
    }
    // Zeros a line follows are no empty archive (a crashed writer's padding): the lines after
    // them are read.
    let mut padded = vec![0u8; 4096];
    padded.extend_from_slice(b"\n{\"type\":\"action\",\"run_id\":\"r\",\"command\":\"ls\"}\n");
    let t = trajscope_core::ingest(&padded, IngestOptions::default());
    assert_eq!((t.stats.lines_parsed, t.stats.lines_quarantined), (1, 1), "{:?}", t.error);
    // Nor is a JSON line that holds `ustar` where a tar header has it.
    let mut line = b"{\"type\":\"message\",\"run_id\":\"r\",\"text\":\"".to_vec();
    line.resize(257, b'a');
    line.extend_from_slice(b"ustar and more text\"}\n");
    let t = trajscope_core::ingest(&line, IngestOptions::default());
    assert_eq!(t.stats.lines_parsed, 1, "{:?}", t.error);
    // Read as a trace (a gzipped one is, its kind told from its first header), the zeros are
    // not a line of JSON: the error says what they are.
    for bytes in [empty_tar.clone(), gzip(&empty_tar)] {
        let t = trajscope_core::ingest(&bytes, IngestOptions::default());
        assert!(t.error.as_deref().is_some_and(|e| e.contains("tar archive")), "{:?}", t.error);
        assert!(t.quarantine.is_empty());
    }
}

#[test]
fn redact_names_every_kind_of_archive_it_refuses_and_reads_gzip_whole() {
    use trajscope_core::redact;
    let files = three_formats();
    assert_eq!(redact::archive_refused(&tar(&files)), Some("a tar archive"));
    assert_eq!(redact::archive_refused(&gzip(&tar(&files))), Some("a .tar.gz archive"));
    assert_eq!(redact::archive_refused(&zip(&files)), Some("a zip archive"));
    let plain = fixture("redact/planted-secrets.awtl.jsonl");
    assert_eq!(redact::archive_refused(&plain), None);
    assert_eq!(redact::archive_refused(&gzip(&plain)), None, "one gzipped trace is no archive");
    // Gzip in two members, as `cat a.gz b.gz` writes it: the copy is the whole plain text,
    // masked as the plain file is.
    let cut = plain.iter().position(|&b| b == b'\n').unwrap() + 1;
    let two = [gzip(&plain[..cut]), gzip(&plain[cut..])].concat();
    let (from_gzip, from_plain) = (redact::redact_file(&two), redact::redact_file(&plain));
    assert!(!from_plain.findings.is_empty());
    assert_eq!(from_gzip, from_plain);
}

#[test]
fn a_damaged_tar_gz_keeps_the_members_before_the_damage_and_says_so() {
    // Members big enough that the damage, near the end, comes after the first ones inflate.
    let files: Vec<(String, Vec<u8>)> = (0..8)
        .map(|i| {
            let line = format!("{{\"role\":\"user\",\"content\":\"member {i} {}\"}}\n", i * 7919);
            (format!("t{i}.jsonl"), line.repeat(400).into_bytes())
        })
        .collect();
    let files: Vec<(&str, Vec<u8>)> = files.iter().map(|(n, d)| (n.as_str(), d.clone())).collect();
    let mut gz = gzip(&tar(&files));
    let at = gz.len() * 3 / 4;
    for b in &mut gz[at..at + 16] {
        *b ^= 0x5a;
    }
    let a = ingest_archive(&gz, &IngestOptions::default()).expect("still an archive");
    let error = a.error.expect("the damage is named");
    assert!(error.starts_with("the gzip stream is damaged ("), "{error}");
    // The members read before it are whole (what follows may be garbage the damage made).
    assert_eq!(a.members[0].path, "t0.jsonl");
    assert_eq!(a.members[0].trace.stats.lines_parsed, 400);
    // A stream cut short says so too.
    let cut = gzip(&tar(&files));
    let a = ingest_archive(&cut[..cut.len() / 2], &IngestOptions::default()).expect("an archive");
    assert!(a.error.is_some_and(|e| e.contains("gzip stream")));
}
