//! Annotation labels (SPEC §2.9): the label model, benchmark exports, imports, agreement.
