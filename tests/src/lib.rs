//! Shared helpers for the end-to-end and golden-vector tests (see `tests/`).
