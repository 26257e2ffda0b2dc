//! Verified-only memory promotion (SPEC §2.8).
