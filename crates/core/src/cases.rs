//! Failed turn cases (SPEC §2.7): building, strict validation, loading and merging.
