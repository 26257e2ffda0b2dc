//! One module per subcommand.

pub mod analyze;
pub mod eval;
pub mod quarantine;
pub mod view;
