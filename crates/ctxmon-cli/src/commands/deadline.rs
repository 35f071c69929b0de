//! Running a command's work under an internal deadline (contract C14), for the hooks and the status
//! line: both block Claude Code while they run.
//!
//! The work runs on a worker thread; the calling thread waits for its answer until the deadline
//! and then gives up on it. The worker may be blocked in a system call no timeout reaches (a
//! read from a stdin that never closes, a stuck network file system), so after a timeout the
//! caller must end the process rather than join the worker. A panic in the worker is contained
//! the same way: the caller sees [`Outcome::WorkerLost`].

use std::sync::mpsc;
use std::time::{Duration, Instant};

use ctxmon_application::ports::Clock;
use ctxmon_infra_fs::{HookLog, SystemClock};

/// How long the diagnostic written at a timeout may take: the deadline has already passed, and
/// a log on a stuck disk must not hold the answer back any further.
const TIMEOUT_LOG_WAIT: Duration = Duration::from_millis(250);

enum Message {
    /// The configured deadline (measured from the start), once known.
    Deadline(Duration),
    /// Where diagnostics go, once known.
    Log(HookLog),
    /// The complete answer for stdout (possibly empty).
    Answer(String),
}

/// What the worker tells the waiting thread before it is done.
#[derive(Debug)]
pub struct Progress {
    tx: mpsc::Sender<Message>,
}

impl Progress {
    /// A progress nobody waits for: runs a worker's function in-process (tests, fuzzing).
    #[cfg(test)]
    pub fn detached() -> Progress {
        let (tx, _rx) = mpsc::channel();
        Progress { tx }
    }

    /// Replaces the default deadline (the configuration has been read).
    pub fn deadline(&self, deadline: Duration) {
        let _ = self.tx.send(Message::Deadline(deadline));
    }

    /// The log a timeout is reported to.
    pub fn log(&self, log: HookLog) {
        let _ = self.tx.send(Message::Log(log));
    }
}

/// How the work ended.
#[derive(Debug)]
pub enum Outcome {
    /// The worker answered in time.
    Answer(String),
    /// The deadline passed first. The worker may still be running: end the process.
    TimedOut {
        deadline: Duration,
        /// The log the worker announced, if it got that far.
        log: Option<HookLog>,
    },
    /// The worker could not be started, or stopped without answering (a panic).
    WorkerLost,
}

/// Runs `work` on a worker thread named `name` and waits for its answer until `default_deadline`
/// (or the deadline the worker announces through [`Progress::deadline`]) has passed.
pub fn run<F>(name: String, default_deadline: Duration, work: F) -> Outcome
where
    F: FnOnce(&Progress) -> String + Send + 'static,
{
    let started = Instant::now();
    let (tx, rx) = mpsc::channel::<Message>();
    let spawned = std::thread::Builder::new().name(name).spawn(move || {
        let progress = Progress { tx };
        let answer = work(&progress);
        let _ = progress.tx.send(Message::Answer(answer));
    });
    if spawned.is_err() {
        return Outcome::WorkerLost;
    }
    let mut deadline = default_deadline;
    let mut log = None;
    loop {
        let wait = deadline.saturating_sub(started.elapsed());
        match rx.recv_timeout(wait) {
            Ok(Message::Deadline(d)) => deadline = d,
            Ok(Message::Log(l)) => log = Some(l),
            Ok(Message::Answer(answer)) => return Outcome::Answer(answer),
            Err(mpsc::RecvTimeoutError::Timeout) => return Outcome::TimedOut { deadline, log },
            Err(mpsc::RecvTimeoutError::Disconnected) => return Outcome::WorkerLost,
        }
    }
}

/// Appends `message` to `log`, waiting at most [`TIMEOUT_LOG_WAIT`] for the write: used after a
/// deadline has passed, when nothing may block any longer.
pub fn log_bounded(log: HookLog, hook: &'static str, message: String) {
    let (tx, rx) = mpsc::channel();
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
    use super::*;

    #[test]
    fn an_answer_in_time_is_returned() {
        let outcome = run("t".into(), Duration::from_secs(30), |_| "hi".to_string());
        assert!(matches!(outcome, Outcome::Answer(a) if a == "hi"));
    }

    #[test]
    fn a_blocked_worker_times_out_at_the_announced_deadline() {
        let started = Instant::now();
        let outcome = run("t".into(), Duration::from_secs(30), |p| {
            p.deadline(Duration::from_millis(50));
            std::thread::sleep(Duration::from_secs(60));
            String::new()
        });
        assert!(
            matches!(outcome, Outcome::TimedOut { deadline, log: None } if deadline == Duration::from_millis(50)),
            "{outcome:?}"
        );
        // Generous: only "not the 30 s default, not the 60 s sleep" matters.
        assert!(started.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn a_panicking_worker_is_lost_not_fatal() {
        let outcome = run("t".into(), Duration::from_secs(30), |_| {
            panic!("boom");
        });
        assert!(matches!(outcome, Outcome::WorkerLost), "{outcome:?}");
    }
}
