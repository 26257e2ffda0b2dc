//! The `trajscope._trajscope` extension module: the core's analysis for Python, returning the
//! same JSON the CLI prints (`analyze --json`, `analyze --jsonl`, `cases --json`,
//! `brief --json`, `eval --json`). `python/trajscope/__init__.py` turns it into Python objects.
//! The GIL is released while a file is read and analysed, so threads (and Dask's threaded
//! scheduler) run several analyses at once.

use std::io::Read as _;
use std::path::{Path, PathBuf};

use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes};
use trajscope_core::brief::{self, BriefContext, ExcludedCase, Reason};
use trajscope_core::cases;
use trajscope_core::eval::{evaluate, EvalInput};
use trajscope_core::model::{Format, Outcome, Trace};
use trajscope_core::outcome::{parse_outcome, ReviewerOutcome};
use trajscope_core::record::Phase;
use trajscope_core::redact;
use trajscope_core::{IngestOptions, Loader, Session};

pyo3::create_exception!(
    _trajscope,
    TrajscopeError,
    PyException,
    "A trace that cannot be read, or an argument the CLI would refuse; the message is the CLI's."
);

/// What to analyse: a file's path or the bytes of one.
enum Input {
    Path(PathBuf),
    Bytes(Vec<u8>),
}

impl Input {
    fn from_py(obj: &Bound<'_, PyAny>) -> PyResult<Input> {
        if let Ok(b) = obj.cast::<PyBytes>() {
            return Ok(Input::Bytes(b.as_bytes().to_vec()));
        }
        if let Ok(b) = obj.cast::<PyByteArray>() {
            return Ok(Input::Bytes(b.to_vec()));
        }
        match obj.extract::<PathBuf>() {
            Ok(p) => Ok(Input::Path(p)),
            Err(_) => Err(TrajscopeError::new_err(
                "expected a path (str or os.PathLike) or bytes".to_string(),
            )),
        }
    }

    /// The name a record carries (`file` of the `--jsonl` record).
    fn name(&self) -> String {
        match self {
            Input::Path(p) => p.display().to_string(),
            Input::Bytes(_) => "<bytes>".to_string(),
        }
    }
}

/// The CLI's `--format NAME` check, with its message.
fn parse_format(name: Option<&str>) -> PyResult<Option<Format>> {
    let Some(name) = name else { return Ok(None) };
    match Format::from_name(name) {
        Some(f) => Ok(Some(f)),
        None => {
            let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
            Err(TrajscopeError::new_err(format!(
                "unknown format `{name}`; known: {}",
                names.join(", ")
            )))
        }
    }
}

/// The CLI's `--outcome failed|passed [--trajectory ID]`, with its messages.
fn parse_reviewer(
    outcome: Option<&str>,
    trajectory: Option<String>,
) -> PyResult<Option<ReviewerOutcome>> {
    match outcome {
        None if trajectory.is_some() => Err(TrajscopeError::new_err(
            "trajectory= needs outcome= (failed or passed)".to_string(),
        )),
        None => Ok(None),
        Some(word) => match parse_outcome(word) {
            Some(o @ (Outcome::Failed | Outcome::Passed)) => {
                Ok(Some(ReviewerOutcome::new(o, trajectory)))
            }
            _ => Err(TrajscopeError::new_err(format!(
                "unknown outcome `{word}`; known: failed, passed"
            ))),
        },
    }
}

/// Loads `input` and sets the reviewer's outcome, if any (an id the trace lacks is an error).
fn load_reviewed(
    input: &Input,
    format: Option<Format>,
    hash: bool,
    reviewer: Option<&ReviewerOutcome>,
) -> Result<Session, String> {
    let mut session = load(input, format, hash)?;
    if let Some(r) = reviewer {
        session.set_outcome(r)?;
    }
    Ok(session)
}

const CHUNK: usize = 1 << 20;

/// Streams the input into a loader (1 MiB chunks for a file), as the CLI does.
fn load(input: &Input, format: Option<Format>, hash: bool) -> Result<Session, String> {
    let mut loader = Loader::new(IngestOptions { format, ..IngestOptions::default() }, hash);
    match input {
        Input::Bytes(b) => {
            for chunk in b.chunks(CHUNK) {
                loader.feed(chunk);
            }
        }
        Input::Path(p) => {
            let cannot = |e: std::io::Error| format!("cannot read {}: {e}", p.display());
            let mut file = std::fs::File::open(p).map_err(cannot)?;
            let mut buf = vec![0u8; CHUNK];
            loop {
                match file.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => loader.feed(&buf[..n]),
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(cannot(e)),
                }
            }
        }
    }
    Ok(loader.finish())
}

fn to_json<T: serde::Serialize>(value: &T) -> Result<String, String> {
    serde_json::to_string(value).map_err(|e| e.to_string())
}

/// Runs `work` with the GIL released; its error becomes a [`TrajscopeError`].
fn detached<T: Send>(
    py: Python<'_>,
    work: impl FnOnce() -> Result<T, String> + Send,
) -> PyResult<T> {
    py.detach(work).map_err(TrajscopeError::new_err)
}

/// `trajscope analyze --json`: the report of one trace, as a JSON string.
#[pyfunction]
#[pyo3(signature = (source, format=None, outcome=None, trajectory=None))]
fn analyze_json(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    format: Option<&str>,
    outcome: Option<&str>,
    trajectory: Option<String>,
) -> PyResult<String> {
    let input = Input::from_py(source)?;
    let format = parse_format(format)?;
    let reviewer = parse_reviewer(outcome, trajectory)?;
    detached(py, move || {
        let mut session = load_reviewed(&input, format, false, reviewer.as_ref())?;
        session.analyse_all();
        to_json(&session.into_report())
    })
}

/// One `--jsonl` record of `analyze`: the overview of a trajectory, with its file and format.
#[derive(serde::Serialize)]
struct Record<'a> {
    file: &'a str,
    format: Format,
    #[serde(skip_serializing_if = "Option::is_none")]
    stats: Option<&'a trajscope_core::model::IngestStats>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    trajectory: Option<trajscope_core::report::Overview>,
}

/// `trajscope analyze --jsonl`: one JSON record per trajectory (a file whose trace has an error
/// or no trajectory also gets a record of the file, its line counts and error, with no
/// trajectory fields).
#[pyfunction]
#[pyo3(signature = (source, format=None, outcome=None, trajectory=None))]
fn trajectories_jsonl(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    format: Option<&str>,
    outcome: Option<&str>,
    trajectory: Option<String>,
) -> PyResult<Vec<String>> {
    let input = Input::from_py(source)?;
    let format = parse_format(format)?;
    let reviewer = parse_reviewer(outcome, trajectory)?;
    detached(py, move || {
        let mut session = load_reviewed(&input, format, false, reviewer.as_ref())?;
        session.analyse_all();
        let file = input.name();
        let trace = session.trace();
        let mut out = Vec::new();
        if trace.error.is_some() || trace.trajectories.is_empty() {
            let rec = Record {
                file: &file,
                format: trace.format,
                stats: Some(&trace.stats),
                error: trace.error.as_deref(),
                trajectory: None,
            };
            out.push(to_json(&rec)?);
        }
        for overview in session.overviews() {
            let rec = Record {
                file: &file,
                format: trace.format,
                stats: None,
                error: None,
                trajectory: Some(overview),
            };
            out.push(to_json(&rec)?);
        }
        Ok(out)
    })
}

/// `trajscope cases FILE --json`: every failed turn case built from the trace, valid or not.
#[pyfunction]
#[pyo3(signature = (source, format=None, outcome=None, trajectory=None))]
fn cases_json(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    format: Option<&str>,
    outcome: Option<&str>,
    trajectory: Option<String>,
) -> PyResult<String> {
    let input = Input::from_py(source)?;
    let format = parse_format(format)?;
    let reviewer = parse_reviewer(outcome, trajectory)?;
    detached(py, move || {
        let mut session = load_reviewed(&input, format, true, reviewer.as_ref())?;
        let built = session.cases().map(|c| c.built).unwrap_or_default();
        to_json(&serde_json::json!({ "cases": built }))
    })
}

fn parse_phase(name: Option<&str>) -> PyResult<Option<Phase>> {
    let Some(name) = name else { return Ok(None) };
    Phase::ALL.into_iter().find(|p| p.name().eq_ignore_ascii_case(name)).map(Some).ok_or_else(
        || {
            let names: Vec<&str> = Phase::ALL.iter().map(|p| p.name()).collect();
            TrajscopeError::new_err(format!("unknown phase `{name}`; known: {}", names.join(", ")))
        },
    )
}

/// `trajscope brief FILE --json` (the trace's own cases; no scorecard): status, lines, the
/// cases left out and why, and the Markdown section.
#[pyfunction]
#[pyo3(signature = (source, format=None, phase=None, scope=Vec::new(), max_lines=brief::DEFAULT_MAX_LINES, outcome=None, trajectory=None))]
#[allow(clippy::too_many_arguments)]
fn brief_json(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    format: Option<&str>,
    phase: Option<&str>,
    scope: Vec<String>,
    max_lines: usize,
    outcome: Option<&str>,
    trajectory: Option<String>,
) -> PyResult<String> {
    let input = Input::from_py(source)?;
    let format = parse_format(format)?;
    let phase = parse_phase(phase)?;
    let reviewer = parse_reviewer(outcome, trajectory)?;
    detached(py, move || {
        let mut session = load_reviewed(&input, format, true, reviewer.as_ref())?;
        let built = session.cases().map(|c| c.built).unwrap_or_default();
        let mut valid = Vec::new();
        let mut invalid = Vec::new();
        for tc in &built {
            if tc.valid {
                valid.push(tc.case.clone());
            } else {
                invalid.push(ExcludedCase {
                    case_id: tc.case.case_id.clone(),
                    reasons: vec![Reason {
                        code: "invalid".into(),
                        detail: format!("invalid case: {}", tc.errors.join("; ")),
                    }],
                });
            }
        }
        let (merged, _) = cases::merge(valid.iter());
        let ctx = BriefContext { phase, scope, max_lines, ..BriefContext::default() };
        let mut b = brief::build(&merged, &[], &ctx);
        b.excluded.extend(invalid);
        let mut value = serde_json::to_value(&b).map_err(|e| e.to_string())?;
        if let Some(obj) = value.as_object_mut() {
            obj.insert("section".into(), brief::to_markdown(&b).into());
            obj.insert("scorecard_bad_lines".into(), serde_json::Value::Array(Vec::new()));
        }
        to_json(&value)
    })
}

/// The file kinds `eval` reads from a folder (the CLI's list).
const TRACE_EXTENSIONS: &[&str] = &["json", "jsonl", "gz", "traj"];

fn collect(path: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    if path.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        entries.sort();
        for e in entries {
            if e.is_dir() {
                collect(&e, out)?;
            } else if e
                .extension()
                .and_then(|x| x.to_str())
                .is_some_and(|x| TRACE_EXTENSIONS.contains(&x))
            {
                out.push(e);
            }
        }
    } else {
        out.push(path.to_path_buf());
    }
    Ok(())
}

/// `trajscope eval PATH... --json`: the detector scored on labelled files or folders (Who&When
/// items, TRAJERRBENCH records); each file's subset is the name of its folder. Unreadable files
/// are skipped and named in `skipped`.
#[pyfunction]
#[pyo3(signature = (paths, format=None))]
fn eval_json(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    format: Option<&str>,
) -> PyResult<(String, Vec<String>)> {
    let format = parse_format(format)?;
    detached(py, move || {
        let mut files = Vec::new();
        for p in &paths {
            collect(p, &mut files)?;
        }
        let mut loaded: Vec<(PathBuf, Trace)> = Vec::new();
        let mut skipped = Vec::new();
        for f in files {
            match load(&Input::Path(f.clone()), format, false) {
                Ok(s) => loaded.push((f, s.into_trace())),
                Err(e) => skipped.push(e),
            }
        }
        let mut inputs = Vec::new();
        for (f, trace) in &loaded {
            let labelled: Vec<_> = trace.trajectories.iter().filter(|t| t.gold.is_some()).collect();
            for t in &labelled {
                let file = if labelled.len() > 1 {
                    format!("{}#{}", f.display(), t.id)
                } else {
                    f.display().to_string()
                };
                let subset = f
                    .parent()
                    .and_then(|p| p.file_name())
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| ".".to_string());
                inputs.push(EvalInput { file, subset, trajectory: t });
            }
        }
        let report = evaluate(&inputs, &Default::default());
        Ok((to_json(&report)?, skipped))
    })
}

/// `trajscope redact FILE -o OUT --json`: the redacted copy's bytes (same lines, every JSON line
/// still JSON) and the findings (`line`, `column`, `kind`).
#[pyfunction]
fn redact_json<'py>(
    py: Python<'py>,
    source: &Bound<'py, PyAny>,
) -> PyResult<(Bound<'py, PyBytes>, String)> {
    let input = Input::from_py(source)?;
    let (bytes, findings) = detached(py, move || {
        let bytes = match &input {
            Input::Bytes(b) => std::borrow::Cow::Borrowed(b.as_slice()),
            Input::Path(p) => std::borrow::Cow::Owned(
                std::fs::read(p).map_err(|e| format!("cannot read {}: {e}", p.display()))?,
            ),
        };
        // As the CLI: an archive is refused (its members would keep their secrets).
        if let Some(kind) = redact::archive_refused(&bytes) {
            return Err(format!(
                "the input is {kind}: redact masks one text trace (JSON or JSONL, plain or gzip) \
                 and does not rewrite archives; extract the members and redact each one"
            ));
        }
        let r = redact::redact_file(&bytes);
        Ok((r.bytes, to_json(&r.findings)?))
    })?;
    Ok((PyBytes::new(py, &bytes), findings))
}

#[pymodule]
fn _trajscope(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("TrajscopeError", m.py().get_type::<TrajscopeError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(analyze_json, m)?)?;
    m.add_function(wrap_pyfunction!(trajectories_jsonl, m)?)?;
    m.add_function(wrap_pyfunction!(cases_json, m)?)?;
    m.add_function(wrap_pyfunction!(brief_json, m)?)?;
    m.add_function(wrap_pyfunction!(eval_json, m)?)?;
    m.add_function(wrap_pyfunction!(redact_json, m)?)?;
    Ok(())
}
