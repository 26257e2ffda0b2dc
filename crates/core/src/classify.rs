//! Failure classification, failure mode and loop signals (SPEC §2.6).
