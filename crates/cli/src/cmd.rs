//! One module per subcommand.

pub mod analyze;
pub mod brief;
pub mod cases;
pub mod dataset;
pub mod diff;
pub mod eval;
pub mod promote;
pub mod quarantine;
pub mod redact;
pub mod view;
