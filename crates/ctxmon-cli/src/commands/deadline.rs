//! Running a command's work under an internal deadline (contract C14), for the hooks and the status
//! line: both block Claude Code while they run.
//!
//! The work runs on the calling thread; a watchdog thread sleeps until the deadline and, if the
//! work has not answered by then, runs the command's timeout handler, which says so and ends the
//! process. The work may be blocked in a system call no timeout reaches (a read from a stdin
//! that never closes, a stuck network file system), so the process must end rather than wait
//! for it. Whichever comes first claims the answer: work that finishes after the deadline
//! prints nothing and waits for the watchdog to end the process ([`Outcome::TimedOut`]). A panic
//! in the work is contained: the caller sees [`Outcome::Lost`].
//!
//! Why this way round, when a hook's cost per call was measured: with the work on a worker thread
//! and the caller waiting for it, every call paid for handing the answer across threads and for the
//! worker's own memory arena (glibc gives each thread that allocates one); the watchdog allocates
//! nothing and only sleeps, and a call that answers in time never wakes it.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use ctxmon_application::ports::Clock;
use ctxmon_infra_fs::{HookLog, SystemClock};

/// How long the diagnostic written at a timeout may take: the deadline has already passed, and
/// a log on a stuck disk must not hold the answer back any further.
const TIMEOUT_LOG_WAIT: Duration = Duration::from_millis(250);

/// The watchdog only sleeps and calls the timeout handler, which formats one message and
/// hands the log write to a thread of its own: a small stack is plenty.
const WATCHDOG_STACK: usize = 256 * 1024;

/// Who has the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Working,
    Answered,
    TimedOut,
}

/// What the work and the watchdog share.
#[derive(Debug)]
struct Watch {
    /// The deadline, measured from the start: the default until the work announces another.
    deadline: Duration,
    /// Where diagnostics go, once the work knows.
    log: Option<HookLog>,
    phase: Phase,
}

#[derive(Debug)]
struct Shared {
    watch: Mutex<Watch>,
    /// Wakes the watchdog when the deadline changes.
    changed: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Watch> {
        // A panic while holding the lock cannot leave the watch inconsistent (each change is
        // one assignment), so a poisoned lock is used as it is.
        self.watch.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// What the work tells the watchdog before it is done.
#[derive(Debug)]
pub struct Progress {
    shared: Arc<Shared>,
}

impl Progress {
    fn new(deadline: Duration) -> Progress {
        Progress {
            shared: Arc::new(Shared {
                watch: Mutex::new(Watch {
                    deadline,
                    log: None,
                    phase: Phase::Working,
                }),
                changed: Condvar::new(),
            }),
        }
    }

    /// A progress nobody watches: runs the work in-process (tests, fuzzing).
    #[cfg(test)]
    pub fn detached() -> Progress {
        Progress::new(Duration::MAX)
    }

    /// Replaces the default deadline (the configuration has been read).
    pub fn deadline(&self, deadline: Duration) {
        let sooner = {
            let mut watch = self.shared.lock();
            let sooner = deadline < watch.deadline;
            watch.deadline = deadline;
            sooner
        };
        // A later (or the same) deadline needs no wake-up: the watchdog, waking at the old
        // one, finds the new one and sleeps on. Waking it for nothing cost a context switch.
        if sooner {
            self.shared.changed.notify_one();
        }
    }

    /// The log a timeout is reported to.
    pub fn log(&self, log: HookLog) {
        self.shared.lock().log = Some(log);
    }

    /// Claims the answer for the work; false when the deadline claimed it first.
    fn claim(&self) -> bool {
        let mut watch = self.shared.lock();
        if watch.phase == Phase::TimedOut {
            return false;
        }
        // The watchdog is not woken: it sleeps on until the process ends.
        watch.phase = Phase::Answered;
        true
    }
}

/// How the work ended.
#[derive(Debug)]
pub enum Outcome<A = String> {
    /// The work answered in time.
    Answer(A),
    /// The deadline passed first and the timeout handler is ending the process: print nothing
    /// and [`wait_for_exit`].
    TimedOut,
    /// The work panicked, or no watchdog could be started (then the work was not run).
    Lost,
}

/// Runs `work` on this thread under `default_deadline` (or the deadline the work announces
/// through [`Progress::deadline`]). When the deadline passes first, `timed_out` runs on the
/// watchdog thread with the deadline and the log the work announced (if any); it should report
/// the timeout and end the process.
pub fn run<A, W, T>(default_deadline: Duration, work: W, timed_out: T) -> Outcome<A>
where
    W: FnOnce(&Progress) -> A,
    T: FnOnce(Duration, Option<HookLog>) + Send + 'static,
{
    let started = Instant::now();
    let progress = Progress::new(default_deadline);
    let shared = Arc::clone(&progress.shared);
    let spawned = std::thread::Builder::new()
        .name("deadline".into())
        .stack_size(WATCHDOG_STACK)
        .spawn(move || watch(&shared, started, timed_out));
    if spawned.is_err() {
        return Outcome::Lost;
    }
    let answer = catch_unwind(AssertUnwindSafe(|| work(&progress)));
    if !progress.claim() {
        return Outcome::TimedOut;
    }
    match answer {
        Ok(answer) => Outcome::Answer(answer),
        Err(_) => Outcome::Lost,
    }
}

/// The watchdog: sleeps until the deadline (again when the work moves it) and, unless the work
/// has answered, claims the answer and calls `timed_out`.
fn watch<T>(shared: &Shared, started: Instant, timed_out: T)
where
    T: FnOnce(Duration, Option<HookLog>),
{
    let mut watch = shared.lock();
    loop {
        if watch.phase != Phase::Working {
            return;
        }
        let left = watch.deadline.saturating_sub(started.elapsed());
        if left.is_zero() {
            watch.phase = Phase::TimedOut;
            let (deadline, log) = (watch.deadline, watch.log.take());
            drop(watch);
            // The handler ends the process; one that panicked must still end it (the work may
            // be blocked for good), with the exit code hooks and the status line promise.
            if catch_unwind(AssertUnwindSafe(|| timed_out(deadline, log))).is_err() {
                std::process::exit(0);
            }
            return;
        }
        watch = shared
            .changed
            .wait_timeout(watch, left)
            .unwrap_or_else(PoisonError::into_inner)
            .0;
    }
}

/// After [`Outcome::TimedOut`]: the timeout handler on the watchdog thread ends the process.
pub fn wait_for_exit() -> ! {
    loop {
        std::thread::park();
    }
}

/// Appends `message` to `log`, waiting at most [`TIMEOUT_LOG_WAIT`] for the write: used after a
/// deadline has passed, when nothing may block any longer.
pub fn log_bounded(log: HookLog, hook: &'static str, message: String) {
    let (tx, rx) = std::sync::mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("timeout-log".into())
        .spawn(move || {
            log.write(SystemClock.now(), hook, "warn", &message);
            let _ = tx.send(());
        });
    if spawned.is_ok() {
        let _ = rx.recv_timeout(TIMEOUT_LOG_WAIT);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;

    use super::*;

    fn never(_: Duration, _: Option<HookLog>) {
        panic!("no timeout expected");
    }

    #[test]
    fn an_answer_in_time_is_returned() {
        let outcome = run(Duration::from_secs(30), |_| "hi".to_string(), never);
        assert!(matches!(outcome, Outcome::Answer(a) if a == "hi"));
    }

    #[test]
    fn a_blocked_work_times_out_at_the_announced_deadline() {
        let started = Instant::now();
        let seen = Arc::new(Mutex::new(None));
        let (release, blocked) = mpsc::channel::<()>();
        let handler_saw = Arc::clone(&seen);
        let outcome = run(
            Duration::from_secs(30),
            |p| {
                p.deadline(Duration::from_millis(50));
                // Blocked until the timeout handler has run (or, if it never does, 60 s).
                let _ = blocked.recv_timeout(Duration::from_secs(60));
                "too late".to_string()
            },
            move |deadline, log| {
                *handler_saw.lock().unwrap() = Some((deadline, log.is_some()));
                let _ = release.send(());
            },
        );
        // The late answer is not given, and the handler had the announced deadline.
        assert!(matches!(outcome, Outcome::TimedOut), "{outcome:?}");
        assert_eq!(
            *seen.lock().unwrap(),
            Some((Duration::from_millis(50), false))
        );
        // Generous: only "not the 30 s default, not the 60 s wait" matters.
        assert!(started.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn a_deadline_moved_later_is_waited_for() {
        let outcome = run(
            Duration::from_millis(20),
            |p| {
                p.deadline(Duration::from_secs(30));
                std::thread::sleep(Duration::from_millis(100));
                "late but in time".to_string()
            },
            never,
        );
        assert!(matches!(outcome, Outcome::Answer(a) if a == "late but in time"));
    }

    #[test]
    fn a_panicking_work_is_lost_not_fatal() {
        let outcome = run(Duration::from_secs(30), |_| panic!("boom"), never);
        assert!(matches!(outcome, Outcome::Lost), "{outcome:?}");
    }
}
