//! The system clock adapter: the one place the wall clock is read.

use std::time::{SystemTime, UNIX_EPOCH};

use ctxmon_application::ports::Clock;
use ctxmon_domain::Timestamp;

#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        // A clock before 1970 is a broken machine; report the epoch rather than fail a hook.
        let ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis())
            .unwrap_or(0);
        Timestamp(i64::try_from(ms).unwrap_or(i64::MAX))
    }
}
