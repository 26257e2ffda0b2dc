//! Multi-grain views of a step (SPEC §2.4): high / medium / low detail, deterministic.
