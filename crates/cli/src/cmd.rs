//! One module per subcommand.

pub mod analyze;
pub mod quarantine;
