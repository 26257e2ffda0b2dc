//! Every secret rule's hand-written matcher (`Rule::matcher`, `redact::matchers`) finds what
//! its documented pattern (`Rule::pattern`) finds with the `regex` crate: the same matches, in
//! the same order, and the same secret in each (the rule's capture group). Checked on a table of
//! tricky texts, on every file of the repository's fixtures (whole and by line), and on
//! generated texts built from the patterns' own pieces: keywords in any case, separators,
//! quotes, escapes, and runs of each class at the lengths where the patterns' counts change.
//! `redact::find` is checked the same way against the regex scan it replaced.
#![cfg(not(target_arch = "wasm32"))]
// Tests read their fixtures from disk; the core itself does no I/O.
#![allow(clippy::disallowed_methods)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use proptest::prelude::*;
use regex::bytes::Regex;
use trajscope_core::redact::{self, matchers::Hit, rules::Rule};

fn compiled() -> &'static [Regex] {
    static RE: OnceLock<Vec<Regex>> = OnceLock::new();
    RE.get_or_init(|| redact::specs().iter().map(|r| Regex::new(r.pattern).unwrap()).collect())
}

/// `(start, end, secret start, secret end)` of each match, by the regex.
fn by_regex(rule: &Rule, re: &Regex, text: &[u8]) -> Vec<(usize, usize, usize, usize)> {
    re.captures_iter(text)
        .map(|caps| {
            let m = caps.get(0).unwrap();
            let g = if rule.group == 0 {
                Some(m)
            } else {
                (rule.group..caps.len()).find_map(|g| caps.get(g))
            };
            let g = g.expect("a secret group took part");
            (m.start(), m.end(), g.start(), g.end())
        })
        .collect()
}

fn by_matcher(rule: &Rule, text: &[u8]) -> Vec<(usize, usize, usize, usize)> {
    let mut out: Vec<Hit> = Vec::new();
    (rule.matcher)(text, &mut out);
    out.iter().map(|h| (h.start, h.end, h.secret_start, h.secret_end)).collect()
}

/// The findings of the regex scan `redact::find` used before the matchers.
fn find_by_regex(text: &[u8]) -> Vec<(&'static str, usize, usize)> {
    let mut found = Vec::new();
    let lower = text.to_ascii_lowercase();
    for (i, (rule, re)) in redact::rules().iter().zip(compiled()).enumerate() {
        let keyword = rule.keywords.iter().any(|k| {
            let k = k.to_ascii_lowercase();
            lower.windows(k.len()).any(|w| w == k.as_bytes())
        });
        if !keyword {
            continue;
        }
        for (_, _, s, e) in by_regex(rule, re, text) {
            if s < e && redact::rules::passes(rule.check, &text[s..e]) {
                found.push((s, e, i));
            }
        }
    }
    found.sort_by_key(|&(s, e, i)| (s, std::cmp::Reverse(e), i));
    let mut out: Vec<(&'static str, usize, usize)> = Vec::new();
    for (s, e, i) in found {
        if out.last().is_some_and(|l| s < l.2) {
            continue;
        }
        out.push((redact::rules()[i].kind, s, e));
    }
    out
}

fn check(text: &[u8]) -> Result<(), String> {
    for (i, (rule, re)) in redact::rules().iter().zip(compiled()).enumerate() {
        let want = by_regex(rule, re, text);
        let got = by_matcher(rule, text);
        if want != got {
            return Err(format!(
                "rule {i} ({}): regex {want:?}, matcher {got:?}, text {:?}",
                rule.kind,
                String::from_utf8_lossy(text)
            ));
        }
    }
    let want = find_by_regex(text);
    let got: Vec<_> = redact::find(text).iter().map(|f| (f.kind, f.start, f.end)).collect();
    if want != got {
        return Err(format!(
            "find: regex {want:?}, matchers {got:?}, text {:?}",
            String::from_utf8_lossy(text)
        ));
    }
    Ok(())
}

fn run_of(c: char, n: usize) -> String {
    std::iter::repeat_n(c, n).collect()
}

/// Texts at the edges of each pattern: counts one below, at and one above their bounds,
/// boundaries, escapes, alternatives that must be retried.
fn table() -> Vec<String> {
    let a = |n: usize| run_of('a', n);
    let x9 = |n: usize| "a1".repeat(n / 2) + &"b".repeat(n % 2);
    let mut t: Vec<String> = vec![
        String::new(),
        "-----BEGIN RSA PRIVATE KEY-----\nMIIE\\nabc=\n-----END RSA PRIVATE KEY-----".into(),
        "-----BEGIN PRIVATE KEY-----abc".into(),
        "-----BEGIN PRIVATE KEY BLOCK-----\nabc\n-----END PRIVATE KEY BLOCK-----x".into(),
        "-----BEGIN PRIVATE KEY BLOCK\n-----BEGIN PRIVATE KEY-----".into(),
        "-----BEGIN X PRIVATE KEY----- PRIVATE KEY-----ab\n-----END PRIVATE KEY--- PRIVATE KEY-----".into(),
        "-----BEGIN PRIVATE KEY-----a-----BEGIN PRIVATE KEY-----b-----END PRIVATE KEY-----".into(),
        format!("-----BEGIN {} PRIVATE KEY-----x", run_of('A', 100)),
        format!("-----BEGIN {} PRIVATE KEY-----x", run_of('A', 99)),
        format!("-----BEGIN PRIVATE KEY-----\nx\n-----END {}PRIVATE KEY-----", run_of('B', 101)),
        format!("sk-ant-{}", x9(20)),
        format!("sk-ant-{}", x9(19)),
        format!("xsk-ant-{} -sk-ant-{}", x9(30), x9(301)),
        format!("sk-proj-{} sk-proj-{} sk-svcacct-{} sk-admin-x", x9(20), x9(16), x9(25)),
        format!("sk-{}", x9(300)),
        format!("ghp_{} gho_{} github_pat_{} _ghp_{}", x9(36), x9(35), x9(22), x9(40)),
        format!("ghx_{} github_pat_{}", x9(36), "a_".repeat(11)),
        format!("xoxb-{} xoxz-{} xoxe-{}", x9(10), x9(12), "1-".repeat(130)),
        format!("https://hooks.slack.com/services/{} http://hooks.slack.com/triggers/{}", x9(20), x9(19)),
        format!("httpss://hooks.slack.com/workflows/{}", x9(30)),
        format!("AIza{} AIza{} xAIza{}", x9(35), x9(34), x9(35)),
        format!("sk_live_{} rk_test_{} sk_live_{} ask_test_{}", x9(16), x9(15), x9(248), x9(20)),
        "AKIAABCDEFGHIJKLMNOP AKIAABCDEFGHIJKLMNOPQ ASIA1234567890123456_ ACCA1234567890123456-".into(),
        format!("aws_secret_access_key = \"{}\"", x9(40)),
        format!("AWSSECRETKEY:{}x", x9(40)),
        format!("secret_access_key=={}", x9(40)),
        format!("secretaccesskey\\\":\\\"{}\\\"", x9(41)),
        format!("aws_secret_key : '{}", x9(40)),
        format!("aws_secretaccess_key={} secret_key={}", x9(40), x9(40)),
        format!("eyJ{}.eyJ{}.{}", x9(10), x9(10), x9(10)),
        format!("eyJ{}.eyJ{}.{}", x9(9), x9(10), x9(10)),
        format!("-eyJ{}-eyJ{}.eyJ{}.{}", x9(12), x9(12), x9(10), x9(10)),
        format!("eyJ{}.eyJ{}.{}", x9(10), x9(10), x9(9)),
        format!("Authorization: Bearer {} bearer\t{}== BEARER {}", x9(16), x9(20), x9(15)),
        format!("Authorization: Basic {}=== authorization\\\"=\\\" basic {}", x9(12), x9(11)),
        format!("hf_{} hf_{} hf_{}_ hf_{}", x9(34), x9(40), x9(34), x9(41)),
        "password = \"hunter22\" db_password: 'sup3rsecret' pass=\"abc\"".into(),
        "x.password\\\"=\\\"Hunter2x\\\" \"password\" === \"s3cr3tvalue\"".into(),
        "password !== 'qwertyuiop' password => \"${SECRET}\" password := 'x'".into(),
        format!("{}password = \"hunter22\"", a(41)),
        format!("{}password = \"hunter22\"", a(40)),
        format!("{}password = \"{}\"", "a.b-c_".repeat(9), run_of('z', 201)),
        "passwordpassword: \"abcd1234\" _pass='zz99zz99'".into(),
        "DB_PASSWORD=hunter2xx MYSQL_ROOT_PASSWORD: s3cr3t! APP_PASS=abc( X_PASSWD:=abcd".into(),
        "dbPASSWORD=abc123x XPASSWORDY=abc123 _PASS=longvalue9 PASSPHRASE =  qwe$rt:=y".into(),
        format!("ADMIN_PASSWORD={}", run_of('q', 128)),
        format!("ADMIN_PASSWORD={}", run_of('q', 127)),
        "password=hunter2 db.password: s3cret --password=abc123 password:=x1yz".into(),
        "password: changeme\n  - db_password: hunter2x  \r\n- -  passphrase:\tabc!def\n".into(),
        "password: changeme x\npassword: \"quoted\"\n---password: ok1234\n".into(),
        format!("{}password: abcdefgh\n", run_of('-', 50)),
        format!("- - -{}password: abcdefgh\r", "ab-".repeat(14)),
        "mysql -u root -pS3cret db; mysqldump --user=x -p'quoted pw' mariadb -h h -P\"s3cr3t\"".into(),
        "sshpass -p hunter2 ssh host; sshpass  -pabc; sshpass -p \\\"abc def\\\"".into(),
        "--password hunter2 --db-password='s3cret' --pass=x --PASSWORD \"a\" --passphrase=--abc".into(),
        format!("mysql{} -phunter2", run_of('a', 100)),
        format!("mysql {} -phunter2", run_of('a', 98)),
        format!("mysql {} -phunter2", run_of('a', 99)),
        "mysqladmin|x -pabc mysqlx -pabc mysql\n -pabc".into(),
        "mysql -h x -pabc -pdef; sshpass -p a -p bcd; --pass x --pass=yyy".into(),
        "Server=db;User Id=sa;Password=S3cret!;".into(),
        "data source=x; initial catalog=y;PWD = abc;uid=u;pwd=;password=z".into(),
        format!("host=h;{}password=abc", "a=b;".repeat(10)),
        format!("host=h;{}password=abc", "a=b;".repeat(11)),
        format!("username={};password=abc user=x;PASSWORD=\"q\"", run_of('u', 201)),
        "postgres://user:pa:ss@host x.y-https://u:p@h _1://u:p@h".into(),
        format!("{}://u:p@h {}://u:p@h", run_of('s', 21), run_of('s', 22)),
        "a://:p@h http://u:@h http://u:p@ ftp://u:p/x@h".into(),
        "Bearer abcdefghijklmnop1 https://hooks.slack.com/services/x sk-ant-".into(),
        "é password = \"hunter2é\" é".into(),
        "\u{b}password\u{b}=\u{b}\"abcd\"\u{c}".into(),
    ];
    t.push(format!("{}\n{}", t[1], t[40]));
    t
}

#[test]
fn there_is_a_shape_for_every_rule() {
    assert_eq!(SHAPES.len(), redact::rules().len());
}

#[test]
fn every_rule_has_its_specification_in_order() {
    let kinds: Vec<&str> = redact::rules().iter().map(|r| r.kind).collect();
    let specs: Vec<&str> = redact::specs().iter().map(|s| s.kind).collect();
    assert_eq!(kinds, specs);
    assert!(redact::specs().iter().all(|s| !s.what.is_empty() && s.pattern.starts_with("(?-u)")));
}

#[test]
fn every_matcher_finds_what_its_pattern_finds_on_the_edge_table() {
    for text in table() {
        check(text.as_bytes()).unwrap();
    }
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

#[test]
fn every_matcher_finds_what_its_pattern_finds_in_every_fixture() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures");
    let mut paths = Vec::new();
    files(&root, &mut paths);
    assert!(paths.len() > 20, "the fixtures are there");
    for p in paths {
        let bytes = std::fs::read(&p).unwrap();
        check(&bytes).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        for line in bytes.split(|&b| b == b'\n') {
            check(line).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        }
    }
}

/// The patterns' literal pieces.
const PIECES: &[&str] = &[
    "-----BEGIN ",
    "-----END ",
    "PRIVATE KEY",
    " BLOCK",
    "-----",
    "RSA",
    "sk-",
    "sk-ant-",
    "proj-",
    "svcacct-",
    "admin-",
    "ghp_",
    "gho_",
    "github_pat_",
    "xoxb-",
    "xoxe-",
    "https://",
    "http://",
    "hooks.slack.com/",
    "services/",
    "AIza",
    "sk_live_",
    "rk_test_",
    "AKIA",
    "ASIA",
    "aws",
    "secret",
    "access",
    "key",
    "aws_secret_access_key",
    "SecretAccessKey",
    "eyJ",
    ".",
    "bearer",
    "Bearer ",
    "authorization",
    "Authorization: ",
    "basic ",
    "hf_",
    "password",
    "PASSWORD",
    "Passwd",
    "passphrase",
    "_pass",
    "_PASS",
    "pass",
    "pwd",
    "DB_",
    "db.",
    "--",
    "-",
    "-p",
    "-P",
    "sshpass",
    "mysql",
    "mysqldump",
    "mariadb",
    "server",
    "Data Source",
    "user id",
    "user",
    "username",
    "uid",
    "host",
    ";",
    "=",
    ":",
    ":=",
    "=>",
    "==",
    "===",
    "!=",
    "!==",
    "\"",
    "'",
    "\\",
    "\\\"",
    " ",
    "  ",
    "\t",
    "\n",
    "\r",
    "\r\n",
    "\u{b}",
    "\u{c}",
    "(",
    "[",
    "{",
    "}",
    "$",
    "${",
    "@",
    "://",
    "/",
    "|",
    "&",
    "é",
    "xxxx",
    "hunter2",
    "s3cret!",
    "<x>",
];

/// Byte classes the patterns count.
const CLASSES: &[&str] =
    &["aZ09", "AB7", "ab", "a-_", "a+/=", "-", "- \t", "9X", "a.b", "!#$%*+./:=?@^_~-a1", " ", "="];

/// The lengths where the patterns' counts change, and small ones.
const LENGTHS: &[usize] = &[
    1, 2, 3, 4, 5, 9, 10, 11, 12, 15, 16, 17, 19, 20, 21, 22, 23, 29, 30, 31, 33, 34, 35, 36, 37,
    39, 40, 41, 99, 100, 101, 126, 127, 128, 198, 199, 200, 201, 246, 247, 248, 249, 250, 251, 254,
    255, 256, 299, 300, 301,
];

fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => (prop::sample::select(PIECES), any::<u16>()).prop_map(|(p, flips)| {
            // Any mix of cases.
            p.chars()
                .enumerate()
                .map(|(i, c)| if flips >> (i % 16) & 1 == 1 { c.to_ascii_uppercase() } else { c })
                .collect::<String>()
        }),
        2 => (prop::sample::select(CLASSES), prop::sample::select(LENGTHS), any::<u64>()).prop_map(
            |(class, n, seed)| {
                let cs: Vec<char> = class.chars().collect();
                let mut x = seed | 1;
                (0..n)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        cs[(x % cs.len() as u64) as usize]
                    })
                    .collect()
            }
        ),
        1 => "[ -~]{0,12}",
    ]
}

/// One shape per rule: slots in the order of its pattern, each a list of choices that match
/// and choices that just miss (`@@CLASS` is a run of that class at one of [`LENGTHS`]).
const SHAPES: &[&[&[&str]]] = &[
    &[
        &["-----BEGIN"],
        &[" RSA", " ", "", "@@AB7"],
        &[" PRIVATE KEY", "PRIVATE KEY"],
        &[" BLOCK", ""],
        &["-----", "----"],
        &["@@a+/=", "\n@aZ09\n", ""],
        &["-----END", ""],
        &[" RSA", ""],
        &[" PRIVATE KEY", "PRIVATE KEY"],
        &[" BLOCK", ""],
        &["-----", ""],
    ],
    &[&["sk-ant-"], &["@@a-_", "@@aZ09"]],
    &[&["sk-"], &["proj-", "svcacct-", "admin-", ""], &["@@a-_", "@@aZ09"]],
    &[&["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "ghx_"], &["@@aZ09", "@@a-_"]],
    &[&["xoxb-", "xoxp-", "xoxz-", "xoxe"], &["@@aZ09", "@@a-_"]],
    &[
        &["https://", "http://", "httpss://"],
        &["hooks.slack.com/"],
        &["services/", "workflows/", "triggers/", "x/"],
        &["@@a-_", "@@aZ09", "@@a+/="],
    ],
    &[&["AIza"], &["@@a-_", "@@aZ09"]],
    &[&["sk_", "rk_", "xk_"], &["live_", "test_", "live"], &["@@aZ09"]],
    &[&["AKIA", "ASIA", "ABIA", "ACCA", "AKIB"], &["@@AB7"], &["", "_", " ", "a"]],
    &[
        &[
            "aws_secret_access_key",
            "AWS_SECRET_KEY",
            "awssecretkey",
            "secret_access_key",
            "SecretAccessKey",
            "aws_secret_accesskey",
        ],
        &["\\\"", "\"", "'", ""],
        &[" ", ""],
        &[":", "=", " = "],
        &["\\\"", "'", ""],
        &["@@a+/=", "@@aZ09"],
        &["\"", "", "a", "="],
    ],
    &[&["eyJ", "-eyJ"], &["@@a-_"], &["."], &["eyJ"], &["@@a-_"], &["."], &["@@a-_"]],
    &[
        &["Bearer", "bearer", "BEARER"],
        &[" ", "\t", "", "\n "],
        &["@@a.b", "@@a-_", "@@aZ09"],
        &["=", "==", ""],
    ],
    &[
        &["Authorization", "authorization"],
        &["\\\"", "\"", ""],
        &[": ", "=", ":", " "],
        &["\"", ""],
        &["Basic ", "basic\t", "basic"],
        &["@@a+/=", "@@aZ09"],
        &["=", "==", "==="],
    ],
    &[&["hf_"], &["@@aZ09"], &["", "_", " ", "-"]],
    &[
        &["@@a.b", "", "db_", "@@a-_"],
        &["password", "passwd", "passphrase", "_pass", "PASSWORD"],
        &["\\\"", "\"", "'", ""],
        &[" ", ""],
        &[":=", "=>", "===", "==", "!==", "!=", "=", ":", "::"],
        &[" ", "\t", ""],
        &["\\", ""],
        &["\"", "'"],
        &["@@!#$%*+./:=?@^_~-a1", "@@aZ09", "hunter2"],
        &["\\\"", "\"", "'", "\\'", ""],
    ],
    &[
        &["DB_", "MYSQL_ROOT_", "", "@@AB7", "x"],
        &["PASSWORD", "PASSWD", "PASSPHRASE", "_PASS"],
        &[" ", ""],
        &[":=", "=", ":"],
        &[" ", ""],
        &["@@!#$%*+./:=?@^_~-a1", "@@aZ09", "$x"],
        &["", " ", "(", "[", "{", "\n", "'"],
    ],
    &[
        &["@@a.b", "", "db.", "--"],
        &["password", "Passwd", "PASSPHRASE", "_pass"],
        &[" ", ""],
        &[":=", "=", ":"],
        &[" ", ""],
        &["@@!#$%*+./:=?@^_~-a1", "@@aZ09", "hunter2", "x1y2"],
        &["", " ", "(", "[", "{", ";"],
    ],
    &[
        &["\n", ""],
        &["- ", "  ", "-", "@@- \t", ""],
        &["@@a.b", "", "db_"],
        &["password", "passwd", "passphrase", "Password"],
        &[" ", ""],
        &[":"],
        &[" ", "\t", ""],
        &["@@!#$%*+./:=?@^_~-a1", "@@aZ09", "changeme"],
        &["", " ", "\r", " \t\r"],
        &["\n", "", "x"],
    ],
    &[
        &[
            "--password",
            "--db-password",
            "--pass",
            "--PASSWD",
            "sshpass -p",
            "sshpass  -P ",
            "mysql -u root -p",
            "mysqldump -h h -p",
            "mariadb -p",
            "mysql",
            "mysql -pa -p",
        ],
        &[" ", "=", "", "\t"],
        &["\\\"", "\"", "'", "\\'", ""],
        &["@@!#$%*+./:=?@^_~-a1", "@@aZ09", "s3cr3t"],
        &["\\\"", "\"", "'", "", " "],
    ],
    &[
        &["Server", "data source", "User Id", "uid", "host", "username", "user"],
        &[" ", ""],
        &["="],
        &["@@a.b", "x", ""],
        &[";", "\n", ""],
        &["uid=u;", "", "a=b;a=b;", "@@a.b;"],
        &[" ", ""],
        &["Password", "pwd", "PWD"],
        &[" ", ""],
        &["="],
        &[" ", ""],
        &["@@!#$%*+./:=?@^_~-a1", "@@aZ09", "S3cret!"],
        &[";", "", "\""],
    ],
    &[
        &["postgres", "x", "a.b-c", "1x", "_s", "@@aZ09"],
        &["://"],
        &["user", "@@a.b", ""],
        &[":"],
        &["pass", "@@!#$%*+./:=?@^_~-a1", ""],
        &["@"],
        &["host", ""],
    ],
];

/// A text in the shape of rule `rule`: most slots take one of their choices, some are left out or
/// replaced by a piece of another pattern; the shape is written once or twice.
fn shaped(rule: usize, seed: u64) -> String {
    let mut x = seed | 1;
    let mut next = move |n: usize| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % n as u64) as usize
    };
    let mut out = String::new();
    for _ in 0..1 + next(2) {
        for slot in SHAPES[rule] {
            match next(10) {
                0 => continue,
                1 => out.push_str(PIECES[next(PIECES.len())]),
                _ => {
                    let c = slot[next(slot.len())];
                    if let Some(class) = c.strip_prefix("@@") {
                        let cs: Vec<char> = class.chars().collect();
                        for _ in 0..LENGTHS[next(LENGTHS.len())] {
                            out.push(cs[next(cs.len())]);
                        }
                    } else {
                        out.push_str(c);
                    }
                }
            }
        }
        out.push_str([" ", "\n", "", ";"][next(4)]);
    }
    out
}

proptest! {
    // 3,000 texts each run; `PROPTEST_CASES=N` runs N instead (a longer search).
    #![proptest_config(ProptestConfig {
        cases: if std::env::var_os("PROPTEST_CASES").is_some() {
            ProptestConfig::default().cases
        } else {
            3000
        },
        ..ProptestConfig::default()
    })]

    #[test]
    fn every_matcher_finds_what_its_pattern_finds_on_generated_texts(
        parts in prop::collection::vec(fragment(), 0..24)
    ) {
        let text = parts.concat();
        if let Err(e) = check(text.as_bytes()) {
            prop_assert!(false, "{}", e);
        }
    }

    #[test]
    fn every_matcher_finds_what_its_pattern_finds_on_texts_shaped_like_its_pattern(
        rule in 0..SHAPES.len(), seed in any::<u64>(), before in fragment(), after in fragment()
    ) {
        let text = format!("{before}{}{after}", shaped(rule, seed));
        if let Err(e) = check(text.as_bytes()) {
            prop_assert!(false, "{}", e);
        }
    }

    #[test]
    fn every_matcher_finds_what_its_pattern_finds_on_any_bytes(
        bytes in prop::collection::vec(prop::sample::select(b"pasPASwordWORD_-=:\"' \t\n\\a1;@/".to_vec()), 0..200)
    ) {
        if let Err(e) = check(&bytes) {
            prop_assert!(false, "{}", e);
        }
    }
}
