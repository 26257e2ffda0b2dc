//! The secret patterns: one [`Rule`] per kind of credential, documented in `docs/redaction.md`.
//!
//! The kinds and their shapes follow the default rule set of gitleaks (MIT; rule ids noted per
//! rule) and the providers' published token formats; the plain-text password rules follow
//! GitHub's `advanced-security/secret-scanning-custom-patterns` (MIT: "Generic Passwords",
//! "Database Connection String", "Hardcoded Database Passwords") and the false-positive filters
//! of Yelp's detect-secrets `KeywordDetector` (Apache-2.0). Each is written down as a pattern in
//! the `regex` crate's syntax (byte API, ASCII classes only), the rule's specification, and
//! found by a hand-written matcher of that pattern ([`super::matchers`]; the tests compare the
//! two). Each rule has keywords: a rule's matcher runs on a text only when one of its keywords
//! occurs in it (ASCII case-insensitively), so a text without any keyword costs one
//! multi-keyword scan.

use super::matchers::{self, Hit};

/// One kind of secret.
#[derive(Clone, Copy, Debug)]
pub struct Rule {
    /// The name reported and written in the mask (`[REDACTED:kind]`).
    pub kind: &'static str,
    /// Substrings one of which every match contains (ASCII case-insensitive).
    pub keywords: &'static [&'static str],
    /// The capture group that is the secret: 0 the whole match, else the first group from
    /// this one on that took part in the match (a pattern with quoted and bare alternatives).
    pub group: usize,
    /// What the secret must look like beside the pattern.
    pub check: Check,
    /// The pattern's matches in a text, found without a regex engine (`matchers`): the same
    /// matches, one after another, as the `regex` crate's `captures_iter` of its
    /// [`Spec::pattern`].
    pub matcher: fn(&[u8], &mut Vec<Hit>),
}

/// What a rule finds, in words and as a pattern: its specification, which the tests compare
/// its matcher with.
#[derive(Clone, Copy, Debug)]
pub struct Spec {
    /// The rule's [`Rule::kind`].
    pub kind: &'static str,
    /// What it finds, in words.
    pub what: &'static str,
    /// The pattern (`regex` syntax, bytes, ASCII classes): what the rule's matcher finds.
    pub pattern: &'static str,
}

/// A test on the secret a pattern captured, beside the pattern itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    /// Nothing more.
    None,
    /// It looks random: at least one ASCII digit and one ASCII letter (keeps slugs like
    /// `sk-learn-compatibility-notes` out).
    Random,
    /// It is a literal value, not a placeholder, a reference or a type: see [`is_value`].
    Value,
    /// Both [`Check::Random`] and [`Check::Value`].
    RandomValue,
    /// [`Check::Value`], and not a help text's metavariable (`--password PASSWORD`, `TEXT`):
    /// not all capitals.
    Flag,
}

/// Words that stand where a password would but are not one: placeholders, types, keywords,
/// masks (compared ASCII case-insensitively with the whole value). After the "Not Match" list
/// of secret-scanning-custom-patterns' Generic Passwords and detect-secrets' filters.
const NOT_VALUES: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "pass",
    "pwd",
    "secret",
    "token",
    "none",
    "null",
    "nil",
    "true",
    "false",
    "yes",
    "undefined",
    "string",
    "str",
    "bool",
    "boolean",
    "int",
    "integer",
    "number",
    "text",
    "bytes",
    "char",
    "varchar",
    "any",
    "object",
    "optional",
    "required",
    "secretstr",
    "placeholder",
    "dummy",
    "example",
    "redacted",
    "hidden",
    "masked",
    "omitted",
    "empty",
    "read",
    "write",
    "on",
    "off",
    "your_password",
    "your-password",
    "yourpassword",
    "mypassword",
    "new_password",
    "old_password",
    "env",
    "environ",
    "getpass",
    "prompt",
    "stdin",
];

/// Whether a captured password is a literal value: it has a letter or digit, is not one
/// character repeated (`xxxx`, `****`), is not a template or reference (`$VAR`, `${…}`,
/// `{{…}}`, `<…>`, `%s`, `%(name)s`, `[…]`), not a word of [`NOT_VALUES`], and holds no mask.
pub fn is_value(v: &[u8]) -> bool {
    if !v.iter().any(u8::is_ascii_alphanumeric) {
        return false;
    }
    if v.iter().all(|&b| b == v[0]) {
        return false;
    }
    if matches!(v[0], b'$' | b'{' | b'<' | b'%' | b'[' | b'(' | b'`')
        || matches!(v[v.len() - 1], b'}' | b'>' | b']' | b')')
    {
        return false;
    }
    let has = |needle: &[u8]| v.windows(needle.len()).any(|w| w.eq_ignore_ascii_case(needle));
    if has(b"${") || has(b"{{") || has(b"REDACTED") || has(b"%s") {
        return false;
    }
    // A name ending like the key is a variable (`raw_password`, `self.password`).
    let lower = v.to_ascii_lowercase();
    if lower.ends_with(b"password") || lower.ends_with(b"passwd") {
        return false;
    }
    !NOT_VALUES.iter().any(|w| w.as_bytes().eq_ignore_ascii_case(v))
}

/// Whether a value is all capitals, digits and `_` (a help text's `PASSWORD`, `TEXT`).
pub fn is_metavar(v: &[u8]) -> bool {
    v.iter().all(|&b| b.is_ascii_uppercase() || b == b'_' || b == b'-')
}

/// Whether `v` passes `check`.
pub fn passes(check: Check, v: &[u8]) -> bool {
    let random = || v.iter().any(u8::is_ascii_digit) && v.iter().any(u8::is_ascii_alphabetic);
    match check {
        Check::None => true,
        Check::Random => random(),
        Check::Value => is_value(v),
        Check::RandomValue => random() && is_value(v),
        Check::Flag => is_value(v) && !is_metavar(v),
    }
}

/// Whether a JSON object key names a password (`password`, `db_password`, `PGPASSWORD`,
/// `passwd`, `passphrase`, `smtp_pass`): the value of such a key is masked whole when it is a
/// string that [`is_value`] (the file copy's JSON-aware pass, `redact::redact_file`).
pub fn is_password_key(key: &[u8]) -> bool {
    let lower = key.to_ascii_lowercase();
    let name_chars =
        lower.iter().all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    name_chars
        && key.len() <= 60
        && (lower.ends_with(b"password")
            || lower.ends_with(b"passwd")
            || lower.ends_with(b"passphrase")
            || lower.ends_with(b"_pass")
            || lower.ends_with(b"-pass")
            || lower == b"pass"
            || lower == b"pwd")
}

/// The rules, written once: each entry gives a [`Rule`] in [`RULES`] and its [`Spec`] in
/// [`SPECS`], in the same order. The specification (what, pattern) is a separate table so that
/// a build which never reads it (the web bundle) does not carry its text.
macro_rules! rules {
    ($({
        kind: $kind:expr,
        what: $what:expr,
        keywords: $keywords:expr,
        pattern: $pattern:expr,
        group: $group:expr,
        check: $check:expr,
        matcher: $matcher:expr $(,)?
    }),* $(,)?) => {
        /// Every rule, most specific first: where two matches overlap, the longer wins, and at
        /// equal length the earlier rule.
        pub const RULES: &[Rule] = &[$(Rule {
            kind: $kind,
            keywords: $keywords,
            group: $group,
            check: $check,
            matcher: $matcher,
        }),*];

        /// Each rule's specification, in the order of [`RULES`].
        pub const SPECS: &[Spec] = &[$(Spec { kind: $kind, what: $what, pattern: $pattern }),*];
    };
}

rules! {
    {
        kind: "private-key",
        what: "a PEM private key block (RSA, EC, DSA, OpenSSH, PGP, PKCS#8), to its END line or, cut short, to the end of its base64",
        keywords: &["PRIVATE KEY"],
        pattern: r"(?-u)-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s\\]*)",
        group: 0,
        check: Check::None,
        matcher: matchers::private_key,
    },
    {
        kind: "anthropic-api-key",
        what: "an Anthropic API or admin key, sk-ant-… (gitleaks anthropic-api-key, anthropic-admin-api-key)",
        keywords: &["sk-ant-"],
        pattern: r"(?-u)\bsk-ant-[A-Za-z0-9_-]{20,300}",
        group: 0,
        check: Check::Random,
        matcher: matchers::anthropic,
    },
    {
        kind: "openai-api-key",
        what: "an OpenAI key, sk-… / sk-proj-… / sk-svcacct-… / sk-admin-… (gitleaks openai-api-key)",
        keywords: &["sk-"],
        pattern: r"(?-u)\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,300}",
        group: 0,
        check: Check::Random,
        matcher: matchers::openai,
    },
    {
        kind: "github-token",
        what: "a GitHub token: ghp_ / gho_ / ghu_ / ghs_ / ghr_ + 36 characters, or github_pat_… (gitleaks github-pat, github-oauth, github-app-token, github-fine-grained-pat)",
        keywords: &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
        pattern: r"(?-u)\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})",
        group: 0,
        check: Check::Random,
        matcher: matchers::github,
    },
    {
        kind: "slack-token",
        what: "a Slack token, xoxb- / xoxp- / xoxa- / xoxo- / xoxs- / xoxr- / xoxe-… (gitleaks slack-bot-token, slack-user-token, …)",
        keywords: &["xox"],
        pattern: r"(?-u)\bxox[abposre]-[A-Za-z0-9-]{10,250}",
        group: 0,
        check: Check::Random,
        matcher: matchers::slack,
    },
    {
        kind: "slack-webhook",
        what: "a Slack incoming-webhook URL (gitleaks slack-webhook-url)",
        keywords: &["hooks.slack.com"],
        pattern: r"(?-u)https?://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_-]{20,}",
        group: 0,
        check: Check::None,
        matcher: matchers::slack_webhook,
    },
    {
        kind: "google-api-key",
        what: "a Google API key, AIza + 35 characters (gitleaks gcp-api-key)",
        keywords: &["AIza"],
        pattern: r"(?-u)\bAIza[0-9A-Za-z_-]{35}",
        group: 0,
        check: Check::None,
        matcher: matchers::google,
    },
    {
        kind: "stripe-key",
        what: "a Stripe secret or restricted key, sk_live_ / sk_test_ / rk_live_ / rk_test_… (gitleaks stripe-access-token)",
        keywords: &["sk_live_", "sk_test_", "rk_live_", "rk_test_"],
        pattern: r"(?-u)\b[sr]k_(?:live|test)_[0-9A-Za-z]{16,247}",
        group: 0,
        check: Check::None,
        matcher: matchers::stripe,
    },
    {
        kind: "aws-access-key-id",
        what: "an AWS access key id, AKIA / ASIA / ABIA / ACCA + 16 (gitleaks aws-access-token)",
        keywords: &["AKIA", "ASIA", "ABIA", "ACCA"],
        pattern: r"(?-u)\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b",
        group: 0,
        check: Check::None,
        matcher: matchers::aws_key_id,
    },
    {
        kind: "aws-secret-access-key",
        what: "an AWS secret access key: 40 base64 characters assigned to aws_secret_access_key / AWS_SECRET_ACCESS_KEY / secretAccessKey",
        keywords: &["secret"],
        pattern: r#"(?-u)(?i)(?:aws_?secret_?(?:access_?)?key|secret_?access_?key)\\?["']?\s*[:=]\s*\\?["']?([A-Za-z0-9/+=]{40})(?:[^A-Za-z0-9/+=]|$)"#,
        group: 1,
        check: Check::Random,
        matcher: matchers::aws_secret,
    },
    {
        kind: "jwt",
        what: "a JSON Web Token, eyJ….eyJ….… (gitleaks jwt)",
        keywords: &["eyJ"],
        pattern: r"(?-u)\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}",
        group: 0,
        check: Check::None,
        matcher: matchers::jwt,
    },
    {
        kind: "bearer-token",
        what: "the token after `Bearer ` (an Authorization header), 16 or more token characters",
        keywords: &["bearer"],
        pattern: r"(?-u)(?i)\bbearer\s+([A-Za-z0-9._~+/-]{16,}=*)",
        group: 1,
        check: Check::Random,
        matcher: matchers::bearer,
    },
    {
        kind: "basic-auth",
        what: "the credentials of an `Authorization: Basic …` header",
        keywords: &["basic"],
        pattern: r#"(?-u)(?i)\bauthorization\\?["']?\s*[:=]\s*\\?["']?basic\s+([A-Za-z0-9+/]{12,}={0,2})"#,
        group: 1,
        check: Check::None,
        matcher: matchers::basic_auth,
    },
    {
        kind: "huggingface-token",
        what: "a Hugging Face access token, hf_ + 34 or more letters and digits (gitleaks huggingface-access-token)",
        keywords: &["hf_"],
        pattern: r"(?-u)\bhf_[A-Za-z0-9]{34,40}\b",
        group: 0,
        check: Check::Random,
        matcher: matchers::huggingface,
    },
    {
        kind: "password",
        what: "a quoted value assigned to a password name: `password = \"…\"`, `\"db_password\": \"…\"`, `PGPASSWORD='…'`, `passwd: '…'`, `passphrase => \"…\"` (secret-scanning-custom-patterns Generic Passwords; detect-secrets KeywordDetector, quoted forms)",
        keywords: &["password", "passwd", "passphrase", "_pass"],
        pattern: r#"(?-u)(?i)[A-Za-z0-9_.-]{0,40}(?:password|passwd|passphrase|_pass)\b\\?["']?[ \t]*(?::=|=>|===?|!==?|=|:)[ \t]*\\?(?:"([^"\s\\]{4,200})\\?"|'([^'\s\\]{4,200})\\?')"#,
        group: 1,
        check: Check::Value,
        matcher: matchers::password_quoted,
    },
    {
        kind: "password",
        what: "a bare value assigned to a capitalised password variable, as in an environment dump or `.env` file: `DB_PASSWORD=…`, `MYSQL_ROOT_PASSWORD: …` (secret-scanning-custom-patterns Hardcoded Database Passwords, generalised to any `*_PASSWORD`)",
        keywords: &["PASSWORD", "PASSWD", "PASSPHRASE", "_PASS"],
        pattern: r"(?-u)\b[A-Z0-9_]*(?:PASSWORD|PASSWD|PASSPHRASE|_PASS)\b[ \t]*(?::=|=|:)[ \t]*([A-Za-z0-9!#%*+./?@^_~-][A-Za-z0-9!#$%*+./:=?@^_~-]{3,127})(?:[^A-Za-z0-9!#$%*+./:=?@^_~(\[{-]|$)",
        group: 1,
        check: Check::Value,
        matcher: matchers::password_env,
    },
    {
        kind: "password",
        what: "a bare value with a letter and a digit assigned to a password name in any case: `password=hunter2`, `db.password: s3cret`, `--password=…` (secret-scanning-custom-patterns Generic Passwords)",
        keywords: &["password", "passwd", "passphrase", "_pass"],
        pattern: r"(?-u)(?i)[A-Za-z0-9_.-]{0,40}(?:password|passwd|passphrase|_pass)\b[ \t]*(?::=|=|:)[ \t]*([A-Za-z0-9!#%*+./?@^_~-][A-Za-z0-9!#$%*+./:=?@^_~-]{3,127})(?:[^A-Za-z0-9!#$%*+./:=?@^_~(\[{-]|$)",
        group: 1,
        check: Check::RandomValue,
        matcher: matchers::password_bare,
    },
    {
        kind: "password",
        what: "a YAML or properties line whose key is a password name: `password: changeme` alone on its line (secret-scanning-custom-patterns YAML Static Password Fields)",
        keywords: &["password", "passwd", "passphrase", "_pass"],
        pattern: r"(?-u)(?im)^[ \t-]*[A-Za-z0-9_.-]{0,40}(?:password|passwd|passphrase)[ \t]*:[ \t]*([A-Za-z0-9!#%*+./?@^_~-][^\s\x22'\\]{3,127})[ \t\r]*$",
        group: 1,
        check: Check::Value,
        matcher: matchers::password_yaml,
    },
    {
        kind: "password",
        what: "the value of a command-line password option: `--password hunter2`, `--db-password='…'`, `sshpass -p …`, `mysql -p…` (no space)",
        keywords: &["-pass", "sshpass", "mysql", "mariadb"],
        pattern: r#"(?-u)(?i)(?:--[A-Za-z0-9-]{0,30}(?:password|passwd|passphrase|pass)(?:[ \t]+|=)|\bsshpass[ \t]+-p[ \t]*|\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n|;&]{0,100}?[ \t]-p)(?:\\?"([^"\s\\]{3,200})\\?"|\\?'([^'\s\\]{3,200})\\?'|([A-Za-z0-9!#%*+./?@^_~][^\s"'\\;|&<>()]{2,199}))"#,
        group: 1,
        check: Check::Flag,
        matcher: matchers::password_flag,
    },
    {
        kind: "password",
        what: "the password of a connection string, `Server=…;User Id=…;Password=…;` (ADO.NET, ODBC `PWD=`, JDBC properties) (secret-scanning-custom-patterns Database Connection String; Nosey Parker np.odbc.1)",
        keywords: &["password", "pwd"],
        pattern: r"(?-u)(?i)\b(?:server|data source|datasource|host|address|addr|uid|user id|userid|user|username|database|initial catalog|dsn|driver|provider)[ \t]*=[^;\n]{0,200};(?:[^;\n]{0,200};){0,10}?[ \t]*(?:password|pwd)[ \t]*=[ \t]*([^;\s\x22'\\]{1,200})",
        group: 1,
        check: Check::Value,
        matcher: matchers::password_connection,
    },
    {
        kind: "url-password",
        what: "the password of a URL with credentials, scheme://user:PASSWORD@host",
        keywords: &["://"],
        pattern: r#"(?-u)\b[A-Za-z][A-Za-z0-9+.-]{1,20}://[^\s:/?#@"'<>\\]{1,200}:([^\s/?#@"'<>\\]{1,200})@"#,
        group: 1,
        check: Check::None,
        matcher: matchers::url_password,
    },
}
