//! Local persistence of labels (autosave), keyed by trace content hash and trajectory id.
