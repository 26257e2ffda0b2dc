//! Replay scorecard records and the exclusion rules (SPEC §2.8).
