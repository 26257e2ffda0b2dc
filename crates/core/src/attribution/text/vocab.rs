//! The vocabularies the text signals match: error words and their negations, success claims,
//! environment / flaky / harness signatures, budget limits, test and irreversible commands. All
//! lower-case ASCII (matched ASCII case-insensitively).

pub(super) const ERROR_NEEDLES: &[&str] = &[
    "error",
    "exception",
    "traceback",
    "failed",
    "failure",
    "fatal",
    "panic",
    "assert",
    "not found",
    "denied",
    "cannot ",
    "could not",
    "unable to",
    "timed out",
    "timeout",
    "refused",
    "unreachable",
    "no such file",
    "segmentation fault",
    "execution failed",
];

pub(super) const NEGATED: &[&str] = &[
    "0 failed",
    "0 errors",
    "0 error",
    "no error",
    "no errors",
    "without error",
    "error-free",
    "no failures",
    "0 failures",
    "errors: 0",
    "failed: 0",
    "failures: 0",
    "exitcode: 0",
    // Gemini CLI's shell tool reports every run with an `Error:` line, `(none)` when none.
    "error: (none)",
];

/// Every [`CLAIMS`] needle (and "done") holds one of these stems ("fixed", not "fix": "fix" is
/// in every "fixture").
pub(super) const CLAIM_STEMS: &[&str] =
    &["pass", "complete", "done", "fixed", "work", "verified", "no error"];

pub(super) const CLAIMS: &[&str] = &[
    "all tests pass",
    "tests pass",
    "tests are passing",
    "test passes",
    "passes all",
    "is complete",
    "are complete",
    "completed successfully",
    "successfully completed",
    "task is done",
    "is done",
    "is fixed",
    "have fixed",
    "i fixed",
    "has been fixed",
    "fixed the",
    "works now",
    "now works",
    "everything works",
    "verified",
    "all checks pass",
    "no errors",
];

/// A claim on its own only in a short line.
pub(super) const DONE: &str = "done";

pub(super) const ENV: &[&str] = &[
    "command not found",
    "is not recognized as an internal or external command",
    "executable doesn't exist",
    "executable does not exist",
    "browser binary",
    "failed to launch browser",
    "failed to launch the browser",
    "browsertype.launch",
    "chromium not found",
    "chrome not found",
    "could not find chrome",
    "chromedriver not found",
    "no usable sandbox",
    "network is unreachable",
    "could not resolve host",
    "name or service not known",
    "temporary failure in name resolution",
    "getaddrinfo enotfound",
    "no route to host",
    "operation not permitted",
    "no space left on device",
    "read-only file system",
    "cannot connect to the docker daemon",
    "docker daemon is not running",
    "out of memory",
    "killed by oom",
];

pub(super) const FLAKY: &[&str] = &[
    "timed out",
    "timeout exceeded",
    "rate limit",
    "too many requests",
    "503 service unavailable",
    "service unavailable",
    "temporarily unavailable",
    "connection reset",
    "econnreset",
    "try again later",
    "flaky",
    "socket hang up",
    "502 bad gateway",
];

pub(super) const HARNESS: &[&str] = &[
    "harness error",
    "harness failure",
    "invalid trace root",
    "verifier crashed",
    "judge crashed",
    "judge error",
    "infrastructure error",
    "internal harness",
    "grader error",
];

pub(super) const BUDGET: &[&str] = &[
    "maximum number of steps",
    "max steps reached",
    "max_steps",
    "step limit",
    "steps limit",
    "budget exhausted",
    "budget exceeded",
    "cost limit",
    "exit_cost",
    "context length exceeded",
    "context window exceeded",
    "maximum context length",
    "max iterations",
    "max_iterations",
    "maximum iterations",
    "turn limit",
    "max turns",
];

/// Every [`BUDGET`] needle holds one of these stems.
pub(super) const BUDGET_STEMS: &[&str] = &["max", "limit", "budget", "t_cos", "context "];

pub(super) const TESTS: &[&str] =
    &["test", "pytest", "jest", "mocha", "vitest", "verify", "check", "lint", "tsc", "spec"];

pub(super) const IRREVERSIBLE: &[&str] = &[
    "push", "deploy", "publish", "rm", "delete", "drop", "submit", "send", "transfer", "cancel",
    "book", "refund", "merge", "release", "exchange", "purchase", "pay",
];
