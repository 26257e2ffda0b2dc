//! The annotation panel: mark the critical step, agent, category, phase, rationale; autosaved.
