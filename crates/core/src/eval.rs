//! Scoring the detector against labelled data (Who&When, TRAJERRBENCH).
