//! One module per subcommand.

pub mod analyze;
pub mod cases;
pub mod promote;
pub mod quarantine;
