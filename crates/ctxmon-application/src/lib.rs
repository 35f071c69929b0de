//! ctxmon's application layer: ports (traits) and the use cases that run on them.
//!
//! Architecture invariant: nothing here touches a file, the environment, a process, the network
//! or the wall clock. Use cases receive ports and plain values and return plain values, so every
//! one of them runs in tests with in-memory adapters.

// Production code never unwraps or expects: bad input is data (contract C15), so a failure is
// handled, and a truly infallible case carries an `#[allow]` that says why. Test code (unit
// test modules, integration tests) may panic on a broken precondition; see clippy.toml.
#![deny(clippy::unwrap_used, clippy::expect_used)]

pub mod assembly;
pub mod config;
pub mod fakes;
pub mod handoff;
pub mod hooks;
pub mod monitor;
pub mod ports;
pub mod run;
