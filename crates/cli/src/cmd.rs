//! One module per subcommand.

pub mod analyze;
pub mod eval;
pub mod cases;
pub mod promote;
pub mod quarantine;
pub mod view;
