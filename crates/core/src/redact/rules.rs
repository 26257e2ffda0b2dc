//! The secret patterns: one [`Rule`] per kind of credential, documented in `docs/redaction.md`.
//!
//! The kinds and their shapes follow the default rule set of gitleaks (MIT; rule ids noted per
//! rule) and the providers' published token formats, rewritten for the `regex` crate's byte
//! API with ASCII classes only. Each rule has keywords: a rule's regex runs on a text only when
//! one of its keywords occurs in it (ASCII case-insensitively), so a text without any keyword
//! costs one multi-keyword scan.

/// One kind of secret.
#[derive(Clone, Copy, Debug)]
pub struct Rule {
    /// The name reported and written in the mask (`[REDACTED:kind]`).
    pub kind: &'static str,
    /// What it finds, in words.
    pub what: &'static str,
    /// Substrings one of which every match contains (ASCII case-insensitive).
    pub keywords: &'static [&'static str],
    /// The pattern (`regex` syntax, bytes, ASCII classes).
    pub pattern: &'static str,
    /// The capture group that is the secret (0: the whole match).
    pub group: usize,
    /// The secret must look random: at least one ASCII digit and one ASCII letter (keeps slugs
    /// like `sk-learn-compatibility-notes` out).
    pub random: bool,
}

/// Every rule, most specific first: where two matches overlap, the longer wins, and at equal
/// length the earlier rule.
pub const RULES: &[Rule] = &[
    Rule {
        kind: "private-key",
        what: "a PEM private key block (RSA, EC, DSA, OpenSSH, PGP, PKCS#8), to its END line or, cut short, to the end of its base64",
        keywords: &["PRIVATE KEY"],
        pattern: r"(?-u)-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s\\]*)",
        group: 0,
        random: false,
    },
    Rule {
        kind: "anthropic-api-key",
        what: "an Anthropic API or admin key, sk-ant-… (gitleaks anthropic-api-key, anthropic-admin-api-key)",
        keywords: &["sk-ant-"],
        pattern: r"(?-u)\bsk-ant-[A-Za-z0-9_-]{20,300}",
        group: 0,
        random: true,
    },
    Rule {
        kind: "openai-api-key",
        what: "an OpenAI key, sk-… / sk-proj-… / sk-svcacct-… / sk-admin-… (gitleaks openai-api-key)",
        keywords: &["sk-"],
        pattern: r"(?-u)\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,300}",
        group: 0,
        random: true,
    },
    Rule {
        kind: "github-token",
        what: "a GitHub token: ghp_ / gho_ / ghu_ / ghs_ / ghr_ + 36 characters, or github_pat_… (gitleaks github-pat, github-oauth, github-app-token, github-fine-grained-pat)",
        keywords: &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
        pattern: r"(?-u)\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})",
        group: 0,
        random: true,
    },
    Rule {
        kind: "slack-token",
        what: "a Slack token, xoxb- / xoxp- / xoxa- / xoxo- / xoxs- / xoxr- / xoxe-… (gitleaks slack-bot-token, slack-user-token, …)",
        keywords: &["xox"],
        pattern: r"(?-u)\bxox[abposre]-[A-Za-z0-9-]{10,250}",
        group: 0,
        random: true,
    },
    Rule {
        kind: "slack-webhook",
        what: "a Slack incoming-webhook URL (gitleaks slack-webhook-url)",
        keywords: &["hooks.slack.com"],
        pattern: r"(?-u)https?://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_-]{20,}",
        group: 0,
        random: false,
    },
    Rule {
        kind: "google-api-key",
        what: "a Google API key, AIza + 35 characters (gitleaks gcp-api-key)",
        keywords: &["AIza"],
        pattern: r"(?-u)\bAIza[0-9A-Za-z_-]{35}",
        group: 0,
        random: false,
    },
    Rule {
        kind: "stripe-key",
        what: "a Stripe secret or restricted key, sk_live_ / sk_test_ / rk_live_ / rk_test_… (gitleaks stripe-access-token)",
        keywords: &["sk_live_", "sk_test_", "rk_live_", "rk_test_"],
        pattern: r"(?-u)\b[sr]k_(?:live|test)_[0-9A-Za-z]{16,247}",
        group: 0,
        random: false,
    },
    Rule {
        kind: "aws-access-key-id",
        what: "an AWS access key id, AKIA / ASIA / ABIA / ACCA + 16 (gitleaks aws-access-token)",
        keywords: &["AKIA", "ASIA", "ABIA", "ACCA"],
        pattern: r"(?-u)\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b",
        group: 0,
        random: false,
    },
    Rule {
        kind: "aws-secret-access-key",
        what: "an AWS secret access key: 40 base64 characters assigned to aws_secret_access_key / AWS_SECRET_ACCESS_KEY / secretAccessKey",
        keywords: &["secret"],
        pattern: r#"(?-u)(?i)(?:aws_?secret_?(?:access_?)?key|secret_?access_?key)\\?["']?\s*[:=]\s*\\?["']?([A-Za-z0-9/+=]{40})(?:[^A-Za-z0-9/+=]|$)"#,
        group: 1,
        random: true,
    },
    Rule {
        kind: "jwt",
        what: "a JSON Web Token, eyJ….eyJ….… (gitleaks jwt)",
        keywords: &["eyJ"],
        pattern: r"(?-u)\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}",
        group: 0,
        random: false,
    },
    Rule {
        kind: "bearer-token",
        what: "the token after `Bearer ` (an Authorization header), 16 or more token characters",
        keywords: &["bearer"],
        pattern: r"(?-u)(?i)\bbearer\s+([A-Za-z0-9._~+/-]{16,}=*)",
        group: 1,
        random: true,
    },
    Rule {
        kind: "basic-auth",
        what: "the credentials of an `Authorization: Basic …` header",
        keywords: &["basic"],
        pattern: r#"(?-u)(?i)\bauthorization\\?["']?\s*[:=]\s*\\?["']?basic\s+([A-Za-z0-9+/]{12,}={0,2})"#,
        group: 1,
        random: false,
    },
    Rule {
        kind: "huggingface-token",
        what: "a Hugging Face access token, hf_ + 34 or more letters and digits (gitleaks huggingface-access-token)",
        keywords: &["hf_"],
        pattern: r"(?-u)\bhf_[A-Za-z0-9]{34,40}\b",
        group: 0,
        random: true,
    },
    Rule {
        kind: "url-password",
        what: "the password of a URL with credentials, scheme://user:PASSWORD@host",
        keywords: &["://"],
        pattern: r#"(?-u)\b[A-Za-z][A-Za-z0-9+.-]{1,20}://[^\s:/?#@"'<>\\]{1,200}:([^\s/?#@"'<>\\]{1,200})@"#,
        group: 1,
        random: false,
    },
];
