//! ctxmon adapters.
