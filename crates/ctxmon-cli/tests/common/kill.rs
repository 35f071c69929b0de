//! Aiming SIGKILLs at writes: a writer is caught while it holds one of `fsutil`'s `.tmp-*` files
//! open (between creating its temp file and renaming it into place), seen through
//! `/proc/<pid>/fd`, and killed a random few hundred microseconds later — mid-write, between
//! the renames of a pair, or just after. Where `/proc` is missing the kill falls back to a
//! random moment of the process's life.
//!
//! Used by the kill tests (`common::kill`; `ctxmon_test_support::proof` gives the RNG and SIGKILL).

// Test support: a panic is how a broken precondition fails the test.
#![allow(dead_code, clippy::unwrap_used)]

use std::fs;
use std::process::Child;
use std::time::{Duration, Instant};

use ctxmon_test_support::proof::{self, Rng};

/// When one child is killed.
#[derive(Debug, Clone, Copy)]
pub enum Plan {
    /// Left to finish.
    Spare,
    /// At this moment after the start, whatever it is doing.
    At(Duration),
    /// This long after it is first seen holding a temp file (or, never seen, at `fallback`).
    InWrite { delay: Duration, fallback: Duration },
}

impl Plan {
    /// Three children in four are killed: half of those in a write, half at any moment of
    /// `life` (twice the measured calm lifetime, as writers share the cores).
    pub fn random(rng: &mut Rng, life: Duration) -> Plan {
        let span = u64::try_from(life.as_micros() * 2).unwrap().max(1);
        match rng.below(4) {
            0 => Plan::Spare,
            1 => Plan::At(Duration::from_micros(rng.below(span))),
            _ => Plan::InWrite {
                delay: Duration::from_micros(rng.below(1_500)),
                fallback: Duration::from_micros(rng.below(span)),
            },
        }
    }
}

/// Kills delivered by [`execute`].
#[derive(Debug, Default, Clone, Copy)]
pub struct Kills {
    /// SIGKILLs that found the child still running.
    pub landed: usize,
    /// Of those, the ones aimed at a child seen holding a temp file.
    pub in_write: usize,
}

impl std::ops::AddAssign for Kills {
    fn add_assign(&mut self, other: Kills) {
        self.landed += other.landed;
        self.in_write += other.in_write;
    }
}

/// Whether process `pid` has a `.tmp-*` file open.
pub fn holds_temp_file(pid: u32) -> bool {
    let Ok(fds) = fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    fds.filter_map(Result::ok).any(|fd| {
        fs::read_link(fd.path()).is_ok_and(|target| {
            target
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(".tmp-"))
        })
    })
}

/// Carries out one plan per child (started at `started`) and returns once every child that is
/// to be killed is killed or has exited; the caller then waits for all of them.
pub fn execute(children: &mut [Child], plans: &[Plan], started: Instant) -> Kills {
    assert_eq!(children.len(), plans.len());
    let mut kills = Kills::default();
    let mut pending: Vec<Option<Plan>> = plans
        .iter()
        .map(|p| (!matches!(p, Plan::Spare)).then_some(*p))
        .collect();
    let mut seen: Vec<Option<Instant>> = vec![None; children.len()];
    let has_proc = std::path::Path::new("/proc/self/fd").is_dir();
    while pending.iter().any(Option::is_some) {
        for (i, child) in children.iter_mut().enumerate() {
            let Some(plan) = pending[i] else { continue };
            if !matches!(child.try_wait(), Ok(None)) {
                pending[i] = None;
                continue;
            }
            let now = started.elapsed();
            let (due, aimed) = match plan {
                Plan::Spare => (false, false),
                Plan::At(at) => (now >= at, false),
                Plan::InWrite { delay, fallback } => {
                    if seen[i].is_none() && holds_temp_file(child.id()) {
                        seen[i] = Some(Instant::now());
                    }
                    match seen[i] {
                        Some(at) => (at.elapsed() >= delay, true),
                        // Without /proc a write cannot be seen: any moment will do.
                        None => (!has_proc && now >= fallback, false),
                    }
                }
            };
            if due {
                if proof::sigkill(child) {
                    kills.landed += 1;
                    kills.in_write += usize::from(aimed);
                }
                pending[i] = None;
            }
        }
        std::thread::sleep(Duration::from_micros(100));
    }
    kills
}
