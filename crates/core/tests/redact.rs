//! Redaction through the public API: a trace with planted secrets (`tests/fixtures/redact/`)
//! shows none of them in any export (cases, brief, labels in every style, a step's Markdown,
//! the redacted quarantine, the redacted copy); the copy keeps the line count and every line
//! parses; and, property-tested, redaction never breaks JSON.
#![cfg(not(target_arch = "wasm32"))]
// Tests read their fixtures from disk; the core itself does no I/O.
#![allow(clippy::disallowed_methods)]

use std::path::PathBuf;

use base64::Engine as _;
use proptest::prelude::*;
use serde_json::Value;
use trajscope_core::attribution::{analyze_trajectory, AnalysisOptions};
use trajscope_core::brief::{self, BriefContext};
use trajscope_core::cases::{self, from_trace_with};
use trajscope_core::labels::{self, export, Label};
use trajscope_core::redact;
use trajscope_core::report::QuarantineRecord;
use trajscope_core::{ingest, IngestOptions};

/// Every secret planted in `planted-secrets.awtl.jsonl` (listed in its SOURCE.md).
const SECRETS: &[&str] = &[
    "Hunter2-Sup3r",
    "sk-proj-Q7fLm2Xr9TbW4KcZ8NvY1HsD6GjP3AeR",
    "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngXyZ12345678",
    "AKIAQ3EXAMPLE7RTY2WP",
    "9dKx7Pq2Lm4Vb8Nz1Rt6Yw3Hs5Jf0Gc2Ae7Ui4Ok",
    "MIIEowIBAAKCAQEA1fakefakefakeQ2w3e4r5t6y7u8i9o0p",
    "sk-ant-api03-Zk8Qw2Er4Ty6Ui8Op0As2Df4Gh6Jk8Lz0Xc2Vb4Nm6-Qw8Er0Ty2AA",
    "sk_live_51Hq8ZxLm3Np7Rt2Vw9Yb4Kc",
    "xoxb-2741869035-7731994421-Gh5Jk2Lm8Np4Qr7St1Vw",
    "AIzaSyB3x7Kq9Lm2Np5Rt8Vw1Yz4Bc6Df9Gh2Jk0",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwYXltZW50cy1ib3QifQ.c2lnbmF0dXJlLWZvci10ZXN0cw",
    "hf_Ab3Cd5Ef7Gh9Ij1Kl3Mn5Op7Qr9St1Uv3Wx",
];

/// The secrets that are secrets on their own (a URL password, an AWS secret key and a key body
/// need their context).
fn standalone() -> Vec<&'static str> {
    let in_context = ["Hunter2-Sup3r", "9dKx7Pq2Lm4Vb8Nz1Rt6Yw3Hs5Jf0Gc2Ae7Ui4Ok"];
    SECRETS.iter().copied().filter(|s| !in_context.contains(s) && !s.starts_with("MIIE")).collect()
}

/// Distinctive pieces of the secrets: a cut secret must not leak either.
fn pieces() -> Vec<String> {
    let mut out: Vec<String> = SECRETS.iter().map(|s| s.to_string()).collect();
    for s in SECRETS {
        let body: String = s.chars().skip(s.len() / 3).take(10).collect();
        out.push(body);
    }
    out
}

fn fixture(name: &str) -> Vec<u8> {
    let p =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/redact").join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()))
}

fn assert_clean(what: &str, text: &str) {
    assert!(!text.is_empty(), "{what} is not empty");
    for p in pieces() {
        assert!(!text.contains(&p), "{what} leaks {p}:\n{text}");
    }
}

#[test]
fn the_planted_trace_holds_every_secret_and_each_is_found() {
    let bytes = fixture("planted-secrets.awtl.jsonl");
    let text = String::from_utf8(bytes.clone()).unwrap();
    for s in SECRETS {
        assert!(text.contains(s), "the fixture plants {s}");
    }
    let found = redact::scan(&bytes);
    let mut kinds: Vec<&str> = found.iter().map(|f| f.kind.as_str()).collect();
    kinds.sort_unstable();
    kinds.dedup();
    assert_eq!(
        kinds,
        [
            "anthropic-api-key",
            "aws-access-key-id",
            "aws-secret-access-key",
            "github-token",
            "google-api-key",
            "huggingface-token",
            "jwt",
            "openai-api-key",
            "private-key",
            "slack-token",
            "stripe-key",
            "url-password"
        ]
    );
    // The Anthropic key is planted twice (the command and the judge's reason).
    assert_eq!(found.len(), SECRETS.len() + 1);
    assert!(found.iter().all(|f| (1..=11).contains(&f.line)));
}

#[test]
fn the_redacted_copy_keeps_every_line_and_every_line_parses() {
    let bytes = fixture("planted-secrets.awtl.jsonl");
    let r = redact::redact_file(&bytes);
    let copy = String::from_utf8(r.bytes).unwrap();
    assert_eq!(copy.matches('\n').count(), bytes.iter().filter(|&&b| b == b'\n').count());
    for (i, line) in copy.lines().enumerate() {
        let v: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("line {}: {e}", i + 1));
        assert!(v.is_object());
    }
    assert_clean("the redacted copy", &copy);
    // The copy is still the same trace: same steps, the secrets masked in their text.
    let a = ingest(&bytes, IngestOptions::default());
    let b = ingest(copy.as_bytes(), IngestOptions::default());
    assert_eq!(a.trajectories[0].steps.len(), b.trajectories[0].steps.len());
    assert!(b.trajectories[0].steps[2].text.contains("[REDACTED:github-token]"));
}

#[test]
fn no_export_shows_a_planted_secret() {
    let bytes = fixture("planted-secrets.awtl.jsonl");
    let trace = ingest(&bytes, IngestOptions::default());
    let hash = labels::content_hash(&bytes);
    let opts = AnalysisOptions::default();

    // Cases.
    let built = from_trace_with(&trace, &hash, |t| Some(analyze_trajectory(t, &opts).record));
    let valid: Vec<cases::FailedTurnCase> =
        built.iter().filter(|c| c.valid).map(|c| c.case.clone()).collect();
    assert!(!valid.is_empty(), "the failed run gives a case");
    let (jsonl, _) = cases::export_jsonl(&valid);
    assert_clean("the cases JSONL", &jsonl);
    for line in jsonl.lines() {
        serde_json::from_str::<Value>(line).unwrap();
    }

    // The brief.
    let b = brief::build(&valid, &[], &BriefContext::default());
    assert_clean("the brief", &brief::to_markdown(&b));

    // Labels, in every style: the rationale quotes the step, secret and all.
    let t = &trace.trajectories[0];
    let mut label = Label::new(&hash, &t.id);
    label.critical_step = Some(4);
    label.responsible_agent = Some("coder".into());
    label.rationale = format!("{} / {}", t.steps[4].text, t.steps[9].text);
    label.annotator = "ann".into();
    for (style, text) in [
        ("labels", export::to_jsonl(std::slice::from_ref(&label))),
        ("who&when", export::to_who_and_when_jsonl(std::slice::from_ref(&label))),
        ("trajerrbench", export::to_trajerrbench_jsonl(std::slice::from_ref(&label))),
    ] {
        assert_clean(style, &text);
        for line in text.lines() {
            serde_json::from_str::<Value>(line).unwrap();
        }
    }

    // Every step's Markdown.
    let all: String = t.steps.iter().map(redact::step_markdown).collect();
    assert_clean("the steps' Markdown", &all);
    assert!(all.contains("[REDACTED:private-key]"));
}

#[test]
fn a_loaded_trace_lists_its_secrets_by_step() {
    let bytes = fixture("planted-secrets.awtl.jsonl");
    let trace = ingest(&bytes, IngestOptions::default());
    let found = redact::scan_trace(&trace);
    // The GitHub token is in step 2's command; the key block in step 3's output.
    assert!(found.iter().any(|f| f.step == Some(2) && f.kind == "github-token" && f.line == 3));
    assert!(found.iter().any(|f| f.step == Some(3) && f.kind == "private-key"));
    assert!(found.iter().any(|f| f.field == "task" && f.kind == "url-password"));
    let corrupt = ingest(&fixture("planted-corrupt.awtl.jsonl"), IngestOptions::default());
    let q: Vec<_> =
        redact::scan_trace(&corrupt).into_iter().filter(|f| f.field == "quarantine").collect();
    assert_eq!(q.len(), 2);
    assert!(q.iter().all(|f| f.line == 2 && f.trajectory.is_none()));
}

#[test]
fn the_quarantine_export_is_offered_exact_and_redacted() {
    let bytes = fixture("planted-corrupt.awtl.jsonl");
    let trace = ingest(&bytes, IngestOptions::default());
    assert_eq!(trace.quarantine.len(), 1);
    let q = &trace.quarantine[0];
    let decode = |r: &QuarantineRecord| {
        String::from_utf8(base64::engine::general_purpose::STANDARD.decode(&r.raw_base64).unwrap())
            .unwrap()
    };
    let exact = QuarantineRecord::from_entry(q);
    assert!(!exact.redacted);
    assert_eq!(decode(&exact).as_bytes(), &q.raw[..], "the exact export is byte for byte");
    assert!(decode(&exact).contains("sk_live_51Hq8ZxLm3Np7Rt2Vw9Yb4Kc"));
    let masked = redact::quarantine_record(q);
    assert!(masked.redacted);
    let json = serde_json::to_string(&masked).unwrap();
    for text in [decode(&masked), masked.raw.clone(), json] {
        assert!(!text.contains("sk_live_51Hq8ZxLm3Np7Rt2Vw9Yb4Kc"), "{text}");
        assert!(!text.contains("github_pat_11ABCDEFG"), "{text}");
    }
    assert!(serde_json::to_string(&exact).unwrap().find("\"redacted\"").is_none());
    // The session offers both exports.
    let session = trajscope_core::session::Session::new(trace, None);
    assert!(session.quarantine_jsonl().contains(&exact.raw_base64));
    assert!(session.quarantine_jsonl_redacted().contains(&masked.raw_base64));
}

/// The plain-text passwords planted in `planted-passwords.claude_code.jsonl` (its SOURCE.md).
const PASSWORDS: &[&str] = &[
    "Pl4ntedConnStr9",
    "Pl4ntedQuoted7",
    "Pl4ntedSshpass3",
    "Pl4ntedInputKey2",
    "Pl4ntedEnvDump5",
    "Pl4ntedJsonStr1",
];

#[test]
fn plain_text_passwords_in_a_real_session_are_masked_in_the_copy_and_every_export() {
    let bytes = fixture("planted-passwords.claude_code.jsonl");
    let text = String::from_utf8(bytes.clone()).unwrap();
    for p in PASSWORDS {
        assert!(text.contains(p), "the fixture plants {p}");
    }
    // The copy: every planted password masked (the script one twice: the file and its echo),
    // the same lines, every line JSON, and the working directory `PWD=` left alone.
    let r = redact::redact_file(&bytes);
    assert_eq!(r.findings.len(), PASSWORDS.len() + 2, "{:?}", r.findings);
    assert!(r.findings.iter().all(|f| f.kind == "password"));
    let copy = String::from_utf8(r.bytes).unwrap();
    assert_eq!(copy.matches('\n').count(), text.matches('\n').count());
    for (i, line) in copy.lines().enumerate() {
        serde_json::from_str::<Value>(line).unwrap_or_else(|e| panic!("line {}: {e}", i + 1));
    }
    assert!(!copy.contains("Pl4nted"), "{copy}");
    assert_eq!(copy.matches("PWD=/tmp/tmp74wiyiny").count(), 2);
    assert!(copy.contains("Password=[REDACTED:password];"));
    // Apart from the masks the copy is the file: the same trace, step for step.
    let a = ingest(&bytes, IngestOptions::default());
    let b = ingest(copy.as_bytes(), IngestOptions::default());
    assert_eq!(a.trajectories[0].steps.len(), b.trajectories[0].steps.len());
    assert_eq!(a.format, b.format);

    // The loaded trace lists them, and a step's Markdown and the labels mask them.
    let found = redact::scan_trace(&a);
    assert!(found.iter().filter(|f| f.kind == "password").count() >= PASSWORDS.len());
    let t = &a.trajectories[0];
    let md: String = t.steps.iter().map(redact::step_markdown).collect();
    assert!(!md.contains("Pl4nted"), "{md}");
    assert!(md.contains("[REDACTED:password]"));
    let hash = labels::content_hash(&bytes);
    let mut label = Label::new(&hash, &t.id);
    label.rationale = t.steps.iter().map(|s| s.text.as_str()).collect::<Vec<_>>().join(" / ");
    assert!(label.rationale.contains("Pl4nted"), "the rationale quotes the steps");
    for text in [
        export::to_jsonl(std::slice::from_ref(&label)),
        export::to_who_and_when_jsonl(std::slice::from_ref(&label)),
        export::to_trajerrbench_jsonl(std::slice::from_ref(&label)),
    ] {
        assert!(!text.contains("Pl4nted"), "{text}");
    }
}

#[test]
fn the_real_fixtures_hold_no_password_or_secret() {
    // Every file under tests/fixtures but the planted ones: nothing ordinary is masked.
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures");
    let mut files = Vec::new();
    let mut dirs = vec![root.clone()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                if !p.ends_with("redact") {
                    dirs.push(p);
                }
            } else if !p.to_string_lossy().ends_with(".expected") {
                files.push(p);
            }
        }
    }
    assert!(files.len() > 50, "{} files", files.len());
    for p in files {
        let found = redact::scan(&std::fs::read(&p).unwrap());
        assert_eq!(found, [], "{}", p.display());
    }
}

/// Text fragments random strings are made of: secrets, JSON-special characters, escapes,
/// non-ASCII.
fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        // A secret is a word of its own (`\b`): glued to a letter it is not one.
        prop::sample::select(standalone()).prop_map(|s| format!(" {s} ")),
        Just("\"".to_string()),
        Just("\\".to_string()),
        Just("\n".to_string()),
        Just("\t\r\u{0}".to_string()),
        Just("Bearer ".to_string()),
        Just("-----BEGIN PRIVATE KEY-----\nAAAA".to_string()),
        Just("-----END PRIVATE KEY-----".to_string()),
        Just("https://u:".to_string()),
        Just("@h/".to_string()),
        Just("é😀".to_string()),
        "[a-zA-Z0-9 _:/.-]{0,12}",
    ]
}

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(fragment(), 0..6).prop_map(|v| v.concat())
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        text().prop_map(Value::String),
        any::<i64>().prop_map(Value::from),
        any::<bool>().prop_map(Value::Bool),
        Just(Value::Null),
        (-1e6f64..1e6).prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((text(), inner), 0..4)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn redaction_never_breaks_json(values in prop::collection::vec(json_value(), 1..5), pretty in any::<bool>()) {
        // JSONL (one compact value per line) or one pretty-printed document.
        let text = if pretty {
            serde_json::to_string_pretty(&Value::Array(values.clone())).unwrap()
        } else {
            values.iter().map(|v| serde_json::to_string(v).unwrap()).collect::<Vec<_>>().join("\n")
        };
        let r = redact::redact_file(text.as_bytes());
        let copy = String::from_utf8(r.bytes).expect("the copy is UTF-8");
        prop_assert_eq!(copy.matches('\n').count(), text.matches('\n').count());
        if pretty {
            let v: Result<Value, _> = serde_json::from_str(&copy);
            prop_assert!(v.is_ok(), "{}", copy);
        } else {
            for line in copy.lines() {
                let v: Result<Value, _> = serde_json::from_str(line);
                prop_assert!(v.is_ok(), "{}", line);
            }
        }
        for s in standalone() {
            prop_assert!(!copy.contains(s), "{} left in {}", s, copy);
        }
    }

    #[test]
    fn any_bytes_keep_their_line_count_and_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let r = redact::redact_file(&bytes);
        if !bytes.starts_with(&[0x1f, 0x8b]) {
            prop_assert_eq!(
                r.bytes.iter().filter(|&&b| b == b'\n').count(),
                bytes.iter().filter(|&&b| b == b'\n').count()
            );
        }
    }
}

#[test]
fn a_secret_right_after_another_is_masked_too() {
    // A key block ends on `-----`, so a token can start on the next byte: the two findings
    // touch without overlapping, and both are masked.
    let key = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA1fakefakefakeQ2w3e4r5t6y7u8i9o0p\n\
               -----END RSA PRIVATE KEY-----";
    let token = "sk-proj-Q7fLm2Xr9TbW4KcZ8NvY1HsD6GjP3AeR";
    let text = format!("{key}{token} and more");
    let found = redact::find(text.as_bytes());
    let kinds: Vec<_> = found.iter().map(|f| (f.kind, f.start, f.end)).collect();
    assert_eq!(
        kinds,
        [("private-key", 0, key.len()), ("openai-api-key", key.len(), key.len() + token.len())]
    );
    assert_eq!(
        redact::redact_text(&text),
        "[REDACTED:private-key][REDACTED:openai-api-key] and more"
    );
}

#[test]
fn a_secret_whose_keyword_is_spelled_with_json_escapes_is_masked_in_the_copy() {
    // Decoded, `\u0073k-proj-…` is `sk-proj-…` and `https:\/\/u:p@h` a URL with a password;
    // the lines' bytes hold no keyword of any rule.
    let file = concat!(
        r#"{"type":"message","run_id":"r","text":"the key is \u0073k-proj-Q7fLm2Xr9TbW4KcZ8NvY1HsD6GjP3AeR"}"#,
        "\n",
        r#"{"type":"message","run_id":"r","text":"clone https:\/\/deploy:Hunter2-Sup3r@git.example.org\/repo"}"#,
        "\n",
    );
    let r = redact::redact_file(file.as_bytes());
    let kinds: Vec<_> = r.findings.iter().map(|f| (f.line, f.kind.as_str())).collect();
    assert_eq!(kinds, [(1, "openai-api-key"), (2, "url-password")]);
    let copy = String::from_utf8(r.bytes).unwrap();
    for (line, masked) in copy.lines().zip(["[REDACTED:openai-api-key]", "[REDACTED:url-password]"])
    {
        let v: Value = serde_json::from_str(line).expect("the copy's lines still parse");
        let text = v["text"].as_str().unwrap();
        assert!(text.contains(masked), "{text}");
        assert!(!text.contains("Q7fLm2Xr9") && !text.contains("Hunter2"), "{text}");
    }
}

#[test]
fn a_password_value_is_reported_at_its_first_character() {
    let line = r#"{"type":"message","config":{"password":"Zx9Valu3-rotated"}}"#;
    let r = redact::redact_file(line.as_bytes());
    let at = line.find("Zx9").unwrap() + 1;
    assert_eq!(
        r.findings,
        [redact::LineFinding { line: 1, column: at as u32, kind: "password".into() }]
    );
    assert!(String::from_utf8(r.bytes).unwrap().contains(r#""password":"[REDACTED:password]""#));
}

#[test]
fn a_step_s_arguments_are_scanned_unless_its_text_repeats_them() {
    use trajscope_core::model::{Step, Trajectory};
    let token = "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngXyZ12345678";
    let args = format!(r#"{{"cmd":"gh auth login --with-token {token}"}}"#);
    let step =
        |index, text: String| Step { index, text, args: Some(args.clone()), ..Step::default() };
    let t = Trajectory {
        // Step 0 shows only the tool's name: its arguments are scanned on their own. Step 1's
        // text repeats them (as most readers write a call): found once, in the text.
        steps: vec![step(0, "bash".into()), step(1, format!("bash {args}"))],
        ..Trajectory::default()
    };
    let mut found = Vec::new();
    redact::scan_trajectory(0, &t, &mut found);
    let by_field: Vec<_> =
        found.iter().map(|f| (f.step, f.field.as_str(), f.kind.as_str())).collect();
    assert_eq!(by_field, [(Some(0), "args", "github-token"), (Some(1), "text", "github-token")],);
}

#[test]
fn a_step_as_markdown_fences_each_part_beyond_the_backticks_inside_it() {
    use trajscope_core::model::Step;
    let step = Step {
        index: 4,
        actor: "coder".into(),
        tool: Some("bash".into()),
        exit_code: Some(2),
        is_error: true,
        args: Some("ls -la".into()),
        text: "before ```` inside ` and `` after".into(),
        ..Step::default()
    };
    let head = format!("### Step 4 · {} / {}", step.role.name(), step.kind.name());
    assert_eq!(
        redact::step_markdown(&step),
        format!(
            "{head} · coder · tool `bash` · exit 2 · error\n\n```\nls -la\n```\n\n`````\n\
             before ```` inside ` and `` after\n`````\n"
        ),
        "the arguments in the shortest fence, the text in one longer than its four backticks"
    );
    // No actor, no tool: nothing said of them. Arguments the text repeats, or empty ones,
    // are not written twice or as an empty block.
    for args in [Some("echo hi".to_string()), Some(String::new()), None] {
        let plain = Step { index: 0, text: "echo hi".into(), args, ..Step::default() };
        let head = format!("### Step 0 · {} / {}", plain.role.name(), plain.kind.name());
        assert_eq!(redact::step_markdown(&plain), format!("{head}\n\n```\necho hi\n```\n"));
    }
}

#[test]
fn a_password_is_a_value_only_when_it_is_not_a_placeholder() {
    use trajscope_core::redact::rules::is_value;
    for v in ["Zx9Valu3", "hunter2!", "s3cr3t-rotated"] {
        assert!(is_value(v.as_bytes()), "{v}");
    }
    // One character repeated, a reference at either end, a template, a mask, a variable.
    for v in ["xxxxxxxx", "aaaa", "$DB_PASS1", "%(pw)s", "<the-pass", "abc123>", "pw]", "{{ pw }}"]
    {
        assert!(!is_value(v.as_bytes()), "{v}");
    }
}

#[test]
fn a_help_text_s_metavariable_is_no_password() {
    use trajscope_core::redact::rules::is_metavar;
    for v in ["PASSWORD", "DB_PASS", "NEW-PASS"] {
        assert!(is_metavar(v.as_bytes()), "{v}");
    }
    assert!(!is_metavar(b"Passw0rd") && !is_metavar(b"S3CRET"));
    // Through the flag rule: the metavariable stays, a value is masked.
    // Nor is a placeholder that is no metavariable.
    for help in [
        "usage: mysqldump --password PASSWORD --user NAME",
        "mysqldump --password xxxxxxxx --user app",
        "mysqldump --password=${DB_PASS} --user app",
    ] {
        assert_eq!(redact::redact_text(help), help);
    }
    let used = redact::redact_text("mysqldump --password Zx9Valu3 --user app");
    assert!(used.contains("[REDACTED:password]") && !used.contains("Zx9Valu3"), "{used}");
}

#[test]
fn a_value_with_a_template_or_mask_inside_or_a_variable_s_name_is_no_password() {
    use trajscope_core::redact::rules::is_value;
    for v in ["ab${X}cd", "pre{{x}}post", "was-redacted-1", "a%sb9", "raw_password", "my_passwd"] {
        assert!(!is_value(v.as_bytes()), "{v}");
    }
    assert!(is_value(b"pass9word!") && is_value(b"passwd9!x"));
}

#[test]
fn a_bare_password_is_masked_only_when_it_looks_random() {
    // `name=value` in any case: a value with a letter and a digit is masked, a word is not.
    let word = "set db.password=changeme_now then restart";
    assert_eq!(redact::redact_text(word), word);
    let random = redact::redact_text("set db.password=changeme9 then restart");
    assert_eq!(random, "set db.password=[REDACTED:password] then restart");
}

#[test]
fn every_spelling_of_a_password_key_names_one() {
    use trajscope_core::redact::rules::is_password_key;
    for k in ["db_password", "PGPASSWORD", "passwd", "passphrase", "smtp_pass", "smtp-pass"] {
        assert!(is_password_key(k.as_bytes()), "{k}");
    }
    for k in ["pass", "PWD", "Pass"] {
        assert!(is_password_key(k.as_bytes()), "{k}");
    }
    for k in ["compass", "passport", "password_hint", "pwd_dir", "my password", ""] {
        assert!(!is_password_key(k.as_bytes()), "{k}");
    }
}
