//! Attribution without an LLM (SPEC §2.5): triggers → error instances → state → ranked candidates.
