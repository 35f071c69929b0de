//! The local time zone, for times shown to people (`2026-04-18 15:50:40 +02:00`); JSON and
//! stored files stay in UTC.
//!
//! Found as the C library finds it, without unsafe code or a dependency: `TZ` (given by the
//! caller, which owns the environment) names a zone file (`:Europe/Berlin`, `Europe/Berlin`, an
//! absolute path) or is a POSIX rule (`CET-1CEST,M3.5.0,M10.5.0/3`, `<+0530>-5:30`); without
//! `TZ`, `/etc/localtime`. Zone files are TZif (RFC 8536): the offset comes from the transition
//! table, and past its end from the file's footer rule (current zone files are "slim" and hold
//! no future transitions at all). Anything unreadable or malformed is UTC: a time shown with a
//! `+00:00` offset is still right, so a broken zone costs nothing but convenience.

mod posix;
mod tzif;

use std::path::{Path, PathBuf};

use ctxmon_domain::Timestamp;

pub use posix::PosixRule;

/// Where zone files live when `TZ` names one.
const ZONEINFO: &str = "/usr/share/zoneinfo";
const LOCALTIME: &str = "/etc/localtime";
/// A zone file is a few kilobytes; anything far larger is not one.
const MAX_ZONE_FILE_BYTES: u64 = 1024 * 1024;

/// A time zone: the offset from UTC at any instant.
#[derive(Debug, Clone, PartialEq)]
pub struct LocalZone {
    rule: Rule,
}

#[derive(Debug, Clone, PartialEq)]
enum Rule {
    Utc,
    Posix(PosixRule),
    File(tzif::ZoneFile),
}

impl LocalZone {
    pub const UTC: LocalZone = LocalZone { rule: Rule::Utc };

    /// The zone the value of `TZ` names (`None`: the variable is unset).
    pub fn from_tz(tz: Option<&str>) -> LocalZone {
        match tz {
            None => LocalZone::from_file(Path::new(LOCALTIME)).unwrap_or(LocalZone::UTC),
            Some(value) => LocalZone::from_tz_value(value),
        }
    }

    fn from_tz_value(value: &str) -> LocalZone {
        let value = value.trim();
        // POSIX: an empty TZ is UTC.
        if value.is_empty() {
            return LocalZone::UTC;
        }
        let name = value.strip_prefix(':').unwrap_or(value);
        if let Some(path) = zone_file_path(name)
            && let Some(zone) = LocalZone::from_file(&path)
        {
            return zone;
        }
        match PosixRule::parse(name) {
            Some(rule) => LocalZone {
                rule: Rule::Posix(rule),
            },
            None => LocalZone::UTC,
        }
    }

    /// A TZif file's zone; `None` when it cannot be read or is not one.
    pub fn from_file(path: &Path) -> Option<LocalZone> {
        let bytes = read_small(path)?;
        tzif::ZoneFile::parse(&bytes).map(|file| LocalZone {
            rule: Rule::File(file),
        })
    }

    /// A zone from a POSIX rule string (`EST5EDT,M3.2.0,M11.1.0`); `None` when it is not one.
    pub fn from_posix(rule: &str) -> Option<LocalZone> {
        PosixRule::parse(rule).map(|rule| LocalZone {
            rule: Rule::Posix(rule),
        })
    }

    /// Seconds east of UTC at `at`.
    pub fn offset_at(&self, at: Timestamp) -> i32 {
        let secs = at.millis().div_euclid(1000);
        match &self.rule {
            Rule::Utc => 0,
            Rule::Posix(rule) => rule.offset_at(secs),
            Rule::File(file) => file.offset_at(secs),
        }
    }

    /// `at` as people read it here: `2026-04-18 15:50:40 +02:00`.
    pub fn format(&self, at: Timestamp) -> String {
        at.to_local_text(self.offset_at(at))
    }
}

/// The file a zone name means: an absolute path as it is, a relative name under the zoneinfo
/// folder unless it climbs out of it.
fn zone_file_path(name: &str) -> Option<PathBuf> {
    let path = Path::new(name);
    if path.is_absolute() {
        return Some(path.to_path_buf());
    }
    let plain = path
        .components()
        .all(|c| matches!(c, std::path::Component::Normal(_)));
    plain.then(|| Path::new(ZONEINFO).join(path))
}

/// The bytes of a regular file of at most [`MAX_ZONE_FILE_BYTES`].
fn read_small(path: &Path) -> Option<Vec<u8>> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_ZONE_FILE_BYTES {
        return None;
    }
    std::fs::read(path).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(rfc3339: &str) -> Timestamp {
        Timestamp::parse_rfc3339(rfc3339).unwrap()
    }

    #[test]
    fn tz_values_as_the_c_library_reads_them() {
        let summer = at("2026-07-01T12:00:00Z");
        assert_eq!(LocalZone::from_tz(Some("")).offset_at(summer), 0);
        assert_eq!(LocalZone::from_tz(Some("UTC0")).offset_at(summer), 0);
        assert_eq!(
            LocalZone::from_tz(Some("<+0530>-5:30")).offset_at(summer),
            19_800
        );
        assert_eq!(
            LocalZone::from_tz(Some("CET-1CEST,M3.5.0,M10.5.0/3")).format(summer),
            "2026-07-01 14:00:00 +02:00"
        );
        // Nonsense is UTC, never an error.
        assert_eq!(
            LocalZone::from_tz(Some("no such zone at all")).offset_at(summer),
            0
        );
        assert_eq!(
            LocalZone::from_tz(Some("../../etc/passwd")).offset_at(summer),
            0
        );
    }

    /// The system's own zone files, where the system has them (a minimal container may not).
    #[test]
    fn named_zones_from_the_systems_zone_files() {
        if !Path::new(ZONEINFO).join("Europe/Berlin").is_file() {
            eprintln!("notice: no {ZONEINFO}/Europe/Berlin here; skipping");
            return;
        }
        let berlin = LocalZone::from_tz(Some("Europe/Berlin"));
        assert_eq!(berlin.offset_at(at("2026-01-15T12:00:00Z")), 3_600);
        assert_eq!(berlin.offset_at(at("2026-07-15T12:00:00Z")), 7_200);
        // Far past the last transition such a file may list: the footer rule answers.
        assert_eq!(berlin.offset_at(at("2090-07-15T12:00:00Z")), 7_200);
        assert_eq!(
            LocalZone::from_tz(Some(":Europe/Berlin")).offset_at(at("2026-07-15T12:00:00Z")),
            7_200
        );
        let sydney = LocalZone::from_tz(Some("Australia/Sydney"));
        assert_eq!(sydney.offset_at(at("2026-01-15T12:00:00Z")), 39_600);
        assert_eq!(sydney.offset_at(at("2026-07-15T12:00:00Z")), 36_000);
        let new_york = LocalZone::from_tz(Some("America/New_York"));
        assert_eq!(new_york.offset_at(at("1990-01-15T12:00:00Z")), -18_000);
        assert_eq!(new_york.offset_at(at("1990-07-15T12:00:00Z")), -14_400);
    }
}
