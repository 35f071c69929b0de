//! ctxmon application layer.
