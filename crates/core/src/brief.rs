//! The Failure Prevention Brief (SPEC §2.8).
