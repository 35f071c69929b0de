//! ctxmon binary.
fn main() {}
