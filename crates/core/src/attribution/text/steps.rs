//! Step predicates: what kind of step a step is (an agent acting, the environment answering, an
//! edit, a test command, an irreversible action).

use std::sync::LazyLock;

use super::matching::{ci_contains, interpreter_exit};
use super::vocab::{IRREVERSIBLE, TESTS};
use crate::model::{Role, Step, StepKind};

/// A command that verifies earlier changes (a test run, a type check, a linter).
pub fn is_test_command(cmd: &str) -> bool {
    let head = &cmd.as_bytes()[..cmd.len().min(200)];
    let mut buf = [0u8; 200];
    let lower = &mut buf[..head.len()];
    lower.copy_from_slice(head);
    lower.make_ascii_lowercase();
    TEST_FINDERS.iter().any(|f| f.find(lower).is_some())
}

/// [`TESTS`] as prebuilt substring finders (building one per call cost more than the search).
static TEST_FINDERS: LazyLock<Vec<memchr::memmem::Finder<'static>>> =
    LazyLock::new(|| TESTS.iter().map(memchr::memmem::Finder::new).collect());

/// An action that changes state outside the agent's scratch space (push, deploy, delete, book…),
/// checked with a reused buffer (no allocation per step).
pub fn is_irreversible_in(step: &Step, buf: &mut String) -> bool {
    buf.clear();
    let head = step.args.as_deref().unwrap_or("").lines().next().unwrap_or("");
    let head = head.get(..head.len().min(200)).unwrap_or(head);
    // Sized once (a first step grew the buffer twice, once per part).
    buf.reserve(step.tool.as_ref().map_or(0, |t| t.len() + 1) + head.len());
    if let Some(t) = &step.tool {
        buf.push_str(t);
        buf.push(' ');
    }
    buf.push_str(head);
    // Whole words only: split on anything but letters and digits (`_`, `-`, `.` included).
    buf.make_ascii_lowercase();
    buf.split(|c: char| !c.is_ascii_alphanumeric()).any(|w| IRREVERSIBLE.contains(&w))
}

/// A step that modifies files or state the agent works on (an edit, a write, a patch).
pub fn is_edit(step: &Step) -> bool {
    let tool = step.tool.as_deref().unwrap_or("");
    if ["edit", "write", "patch", "replace", "create", "apply"].iter().any(|w| ci_contains(tool, w))
    {
        return true;
    }
    let args = step.args.as_deref().unwrap_or("");
    let b = args.as_bytes();
    args.starts_with("sed -i")
        || (memchr::memmem::find(b, b"apply").is_some()
            && (args.contains("apply_patch") || args.contains("git apply")))
        || (memchr::memchr(b'>', b).is_some() && (args.contains("cat >") || args.contains("> ")))
}

/// An edit that changes a file where it is (`sed -i`, an editor tool's replace or edit, a patch
/// that updates a file), as opposed to writing one whole, which may create it.
pub fn is_edit_in_place(step: &Step) -> bool {
    let tool = step.tool.as_deref().unwrap_or("");
    let args = step.args.as_deref().unwrap_or("");
    args.starts_with("sed -i")
        || (["edit", "replace"].iter().any(|w| ci_contains(tool, w))
            && !["create", "write"].iter().any(|w| ci_contains(tool, w))
            && !args.contains("\"command\":\"create\"")
            && !args.contains("\"command\": \"create\""))
        || args.contains("*** Update File:")
}

/// Whether a step is the environment answering (a tool result, a terminal, a judge).
pub fn is_env_step(step: &Step) -> bool {
    matches!(step.kind, StepKind::Observation | StepKind::JudgeResult | StepKind::MemoryRead)
        || matches!(step.role, Role::Tool | Role::Environment | Role::Judge)
        || ci_contains(&step.actor, "terminal")
        || interpreter_exit(&step.text).is_some()
}

/// Whether a step is an agent acting or speaking (not the environment, the system or the human).
pub fn is_agent_step(step: &Step) -> bool {
    if is_env_step(step) || matches!(step.kind, StepKind::RunStart | StepKind::RunEnd) {
        return false;
    }
    match step.role {
        Role::Assistant => true,
        Role::System => false,
        Role::User | Role::Other => {
            let a = step.actor.as_str();
            !(a.is_empty()
                || a.eq_ignore_ascii_case("human")
                || a.eq_ignore_ascii_case("user")
                || a.eq_ignore_ascii_case("system"))
        }
        _ => false,
    }
}
