//! The local time zone, for times shown to people (`2026-04-18 15:50:40 +02:00`); JSON and
//! stored files stay in UTC.
//!
//! Zone rules come from `jiff`: it parses TZif files (RFC 8536, with the footer rule that
//! continues a "slim" file past its last transition), POSIX rules, and finds a zone name in the
//! system's zoneinfo database (`TZDIR`, else `/usr/share/zoneinfo` and its usual siblings).
//! What stays here is which zone `TZ` means, read as the C library reads it: empty is UTC; a
//! leading `:` is dropped; a name in the database (`Europe/Berlin`) or an absolute path to a
//! zone file wins; otherwise a POSIX rule (`CET-1CEST,M3.5.0,M10.5.0/3`, `<+0530>-5:30`);
//! without `TZ`, `/etc/localtime`. We do not call jiff's own `TimeZone::system()` because
//! the caller owns the environment (the composition root reads `TZ`; tests pass values in,
//! as setting a variable needs `unsafe`), and because it reads a file `TZ` names whole,
//! whatever it is (`TZ=/dev/zero` grew to a 2 GB memory limit before it gave up), where a
//! zone file here is opened only if it is a regular file and read only up to 1 MiB.
//! Anything unreadable or malformed is UTC: a time shown with a `+00:00` offset is still
//! right, so a broken zone costs nothing but convenience.

use std::io::Read;
use std::path::Path;

use ctxmon_domain::Timestamp;
use jiff::tz::TimeZone;

use crate::fsutil::open_regular;

/// The system zone when `TZ` is unset.
const LOCALTIME: &str = "/etc/localtime";
/// A zone file is a few kilobytes; anything far larger is not one.
const MAX_ZONE_FILE_BYTES: u64 = 1024 * 1024;

/// A time zone: the offset from UTC at any instant.
#[derive(Debug, Clone)]
pub struct LocalZone {
    zone: TimeZone,
}

impl LocalZone {
    pub const UTC: LocalZone = LocalZone {
        zone: TimeZone::UTC,
    };

    /// The zone the value of `TZ` names (`None`: the variable is unset).
    pub fn from_tz(tz: Option<&str>) -> LocalZone {
        match tz {
            None => LocalZone::from_file(Path::new(LOCALTIME)).unwrap_or(LocalZone::UTC),
            Some(value) => LocalZone::from_tz_value(value),
        }
    }

    fn from_tz_value(value: &str) -> LocalZone {
        let value = value.trim();
        // An empty TZ is UTC (POSIX leaves it open; glibc, the BSDs and jiff agree).
        if value.is_empty() {
            return LocalZone::UTC;
        }
        // The C library tries the zone file first and the rule second, so `EST5EDT` is the
        // database's zone (with its history), not the bare rule.
        let name = value.strip_prefix(':').unwrap_or(value);
        if let Some(zone) = LocalZone::named(name) {
            return zone;
        }
        TimeZone::posix(name).map_or(LocalZone::UTC, |zone| LocalZone { zone })
    }

    /// A zone file by absolute path, or a zone name in the system's database. A relative name
    /// is only ever looked up there (the database lists its files by name, so
    /// `../../etc/passwd` finds nothing), never read from the current directory.
    fn named(name: &str) -> Option<LocalZone> {
        let path = Path::new(name);
        if path.is_absolute() {
            return LocalZone::from_file(path);
        }
        jiff::tz::db().get(name).ok().map(|zone| LocalZone { zone })
    }

    /// A TZif file's zone; `None` when it cannot be read or is not one (a missing file, a
    /// folder, a FIFO or device, a file over 1 MiB, damaged data).
    pub fn from_file(path: &Path) -> Option<LocalZone> {
        let (file, meta) = open_regular(path).ok()?;
        if meta.len() > MAX_ZONE_FILE_BYTES {
            return None;
        }
        let mut bytes = Vec::new();
        // Bounded again while reading: the file may grow after the size check.
        file.take(MAX_ZONE_FILE_BYTES)
            .read_to_end(&mut bytes)
            .ok()?;
        // The name only labels the zone; offsets are all that is used.
        let label = path.to_string_lossy();
        TimeZone::tzif(&label, &bytes)
            .ok()
            .map(|zone| LocalZone { zone })
    }

    /// Seconds east of UTC at `at`; 0 for an instant outside the years jiff covers
    /// (−9999 to 9999), which no transcript holds.
    pub fn offset_at(&self, at: Timestamp) -> i32 {
        jiff::Timestamp::from_millisecond(at.millis())
            .map_or(0, |instant| self.zone.to_offset(instant).seconds())
    }

    /// `at` as people read it here: `2026-04-18 15:50:40 +02:00`.
    pub fn format(&self, at: Timestamp) -> String {
        at.to_local_text(self.offset_at(at))
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn at(rfc3339: &str) -> Timestamp {
        Timestamp::parse_rfc3339(rfc3339).unwrap()
    }

    fn offset(tz: &str, rfc3339: &str) -> i32 {
        LocalZone::from_tz(Some(tz)).offset_at(at(rfc3339))
    }

    /// Whether the system's zone database has `name` (a minimal container may have none).
    fn system_has(name: &str) -> bool {
        let found = jiff::tz::db().get(name).is_ok();
        if !found {
            eprintln!("notice: no {name} in the system's zone database here; skipping");
        }
        found
    }

    #[test]
    fn tz_values_as_the_c_library_reads_them() {
        let summer = at("2026-07-01T12:00:00Z");
        assert_eq!(LocalZone::from_tz(Some("")).offset_at(summer), 0);
        assert_eq!(LocalZone::from_tz(Some("  ")).offset_at(summer), 0);
        assert_eq!(offset("UTC0", "2026-07-01T12:00:00Z"), 0);
        assert_eq!(offset("<+0530>-5:30", "2026-07-01T12:00:00Z"), 19_800);
        assert_eq!(offset("<-03>3", "2026-07-01T12:00:00Z"), -10_800);
        assert_eq!(
            LocalZone::from_tz(Some("CET-1CEST,M3.5.0,M10.5.0/3")).format(summer),
            "2026-07-01 14:00:00 +02:00"
        );
        // Nonsense, a path that climbs out of the database, a file that is not there and a
        // summer time without its rule (POSIX leaves that open) are all UTC, never an error.
        for tz in [
            "no such zone at all",
            "../../etc/passwd",
            "/no/such/zone/file",
            ":/no/such/zone/file",
            "CET-1CEST,M3.5.0",
            "CET-99",
            "AAA5BBB",
        ] {
            assert_eq!(LocalZone::from_tz(Some(tz)).offset_at(summer), 0, "{tz:?}");
        }
    }

    #[test]
    fn posix_rules_switch_at_the_stated_instants() {
        let cet = "CET-1CEST,M3.5.0,M10.5.0/3";
        // 2026: March 29 and October 25 are the last Sundays; both switches are at 01:00 UTC.
        assert_eq!(offset(cet, "2026-03-29T00:59:59Z"), 3600);
        assert_eq!(offset(cet, "2026-03-29T01:00:00Z"), 7200);
        assert_eq!(offset(cet, "2026-10-25T00:59:59Z"), 7200);
        assert_eq!(offset(cet, "2026-10-25T01:00:00Z"), 3600);
        let us = "EST5EDT,M3.2.0,M11.1.0";
        // 2026: March 8 and November 1, at 02:00 local time.
        assert_eq!(offset(us, "2026-03-08T06:59:59Z"), -18_000);
        assert_eq!(offset(us, "2026-03-08T07:00:00Z"), -14_400);
        assert_eq!(offset(us, "2026-11-01T05:59:59Z"), -14_400);
        assert_eq!(offset(us, "2026-11-01T06:00:00Z"), -18_000);
        // The southern summer spans the new year.
        let sydney = "AEST-10AEDT,M10.1.0,M4.1.0/3";
        assert_eq!(offset(sydney, "2026-01-15T00:00:00Z"), 39_600);
        assert_eq!(offset(sydney, "2026-07-15T00:00:00Z"), 36_000);
        assert_eq!(offset(sydney, "2026-12-31T20:00:00Z"), 39_600);
        // Julian days: J60 is March 1 in every year, leap or not.
        let julian = "AAA0BBB,J60/0,J300/0";
        assert_eq!(offset(julian, "2028-02-29T12:00:00Z"), 0);
        assert_eq!(offset(julian, "2028-03-01T12:00:00Z"), 3600);
    }

    /// The system's own zone files, where the system has them.
    #[test]
    fn named_zones_from_the_systems_zone_files() {
        if !system_has("Europe/Berlin") {
            return;
        }
        assert_eq!(offset("Europe/Berlin", "2026-01-15T12:00:00Z"), 3_600);
        assert_eq!(offset("Europe/Berlin", "2026-07-15T12:00:00Z"), 7_200);
        // The switches, to the second.
        assert_eq!(offset("Europe/Berlin", "2026-03-29T00:59:59Z"), 3_600);
        assert_eq!(offset("Europe/Berlin", "2026-03-29T01:00:00Z"), 7_200);
        assert_eq!(offset("Europe/Berlin", "2026-10-25T00:59:59Z"), 7_200);
        assert_eq!(offset("Europe/Berlin", "2026-10-25T01:00:00Z"), 3_600);
        // Far past the last transition such a file may list: the footer rule answers.
        assert_eq!(offset("Europe/Berlin", "2090-07-15T12:00:00Z"), 7_200);
        assert_eq!(offset(":Europe/Berlin", "2026-07-15T12:00:00Z"), 7_200);
        assert_eq!(
            LocalZone::from_tz(Some("Europe/Berlin")).format(at("2026-04-18T13:50:40Z")),
            "2026-04-18 15:50:40 +02:00"
        );
        let file = Path::new("/usr/share/zoneinfo/Europe/Berlin");
        if file.is_file() {
            let tz = file.to_str().unwrap();
            assert_eq!(offset(tz, "2026-07-15T12:00:00Z"), 7_200);
        }
        if system_has("Australia/Sydney") {
            assert_eq!(offset("Australia/Sydney", "2026-01-15T12:00:00Z"), 39_600);
            assert_eq!(offset("Australia/Sydney", "2026-07-15T12:00:00Z"), 36_000);
        }
        if system_has("America/New_York") {
            // History, not today's rule: in 1990 summer time began on April 1, not in March.
            assert_eq!(offset("America/New_York", "1990-01-15T12:00:00Z"), -18_000);
            assert_eq!(offset("America/New_York", "1990-03-20T12:00:00Z"), -18_000);
            assert_eq!(offset("America/New_York", "1990-07-15T12:00:00Z"), -14_400);
        }
    }

    fn header(version: u8, time: u32, types: u32, chars: u32) -> Vec<u8> {
        let mut h = b"TZif".to_vec();
        h.push(version);
        h.extend([0u8; 15]);
        for count in [0, 0, 0, time, types, chars] {
            h.extend(u32::to_be_bytes(count));
        }
        h
    }

    /// A version 2 TZif file: CET (+01:00) until 1,000,000,000 s (September 2001), then CEST
    /// (+02:00, summer time), then the footer `rule` (jiff refuses a footer that disagrees
    /// with the last transition, as RFC 8536 asks).
    fn v2_file(rule: &str) -> Vec<u8> {
        let mut f = header(b'2', 0, 1, 4);
        f.extend([0, 0, 0, 0, 0, 0]);
        f.extend(b"UTC\0");
        f.extend(header(b'2', 1, 2, 9));
        f.extend(1_000_000_000i64.to_be_bytes());
        f.push(1);
        f.extend(3600i32.to_be_bytes());
        f.extend([0, 0]);
        f.extend(7200i32.to_be_bytes());
        f.extend([1, 4]);
        f.extend(b"CET\0CEST\0");
        f.extend(format!("\n{rule}\n").as_bytes());
        f
    }

    fn zone_file(bytes: &[u8]) -> tempfile::NamedTempFile {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(bytes).unwrap();
        file.flush().unwrap();
        file
    }

    fn file_offset(bytes: &[u8], secs: i64) -> Option<i32> {
        let file = zone_file(bytes);
        let zone = LocalZone::from_file(file.path())?;
        Some(zone.offset_at(Timestamp(secs * 1000)))
    }

    /// A file made here, so the table-then-footer reading is tested where the system has no
    /// zone files at all.
    #[test]
    fn a_zone_file_is_its_table_then_its_footer_rule() {
        const CET: &str = "CET-1CEST,M3.5.0,M10.5.0/3";
        let with_footer = v2_file(CET);
        assert_eq!(file_offset(&with_footer, 0), Some(3600));
        assert_eq!(file_offset(&with_footer, 999_999_999), Some(3600));
        assert_eq!(file_offset(&with_footer, 1_000_000_000), Some(7200));
        // January 2030, after the last transition: the footer's winter, not the table's CEST.
        assert_eq!(file_offset(&with_footer, 1_894_665_600), Some(3600));
        assert_eq!(file_offset(&with_footer, 2_000_000_000), Some(7200));
        // Without a footer the last transition's type holds for ever.
        assert_eq!(file_offset(&v2_file(""), 1_894_665_600), Some(7200));
        // As `TZ` names it by absolute path, with or without the colon.
        let file = zone_file(&with_footer);
        let tz = file.path().to_str().unwrap();
        assert_eq!(offset(tz, "2030-01-15T00:00:00Z"), 3600);
        assert_eq!(offset(&format!(":{tz}"), "2030-07-15T00:00:00Z"), 7200);
    }

    #[test]
    fn unreadable_zone_files_are_refused_and_shown_in_utc() {
        let dir = tempfile::tempdir().unwrap();
        assert!(LocalZone::from_file(&dir.path().join("missing")).is_none());
        assert!(LocalZone::from_file(dir.path()).is_none());
        assert!(
            LocalZone::from_file(zone_file(b"not a zone file, not even close").path()).is_none()
        );
        let good = v2_file("CET-1CEST,M3.5.0,M10.5.0/3");
        // Cut inside the header, the 32-bit block and the 64-bit one.
        for len in [0, 3, 43, 44, 60, 98, 106, 110, 120] {
            assert_eq!(file_offset(&good[..len], 0), None, "cut at {len}");
        }
        // A well-formed zone padded past 1 MiB is not read at all (jiff alone would take it:
        // it ignores what follows the footer).
        assert_eq!(file_offset(&good, 0), Some(3600));
        let mut padded = good.clone();
        padded.resize(usize::try_from(MAX_ZONE_FILE_BYTES).unwrap() + 1, b'\n');
        assert_eq!(file_offset(&padded, 0), None);
        // A device is never read: /dev/zero would otherwise be read until memory runs out.
        if Path::new("/dev/zero").exists() {
            assert!(LocalZone::from_file(Path::new("/dev/zero")).is_none());
            assert_eq!(offset("/dev/zero", "2026-07-01T00:00:00Z"), 0);
        }
    }

    #[test]
    fn instants_beyond_the_zone_rules_range_are_utc() {
        let zone = LocalZone::from_tz(Some("CET-1CEST,M3.5.0,M10.5.0/3"));
        assert_eq!(zone.offset_at(Timestamp(i64::MAX)), 0);
        assert_eq!(zone.offset_at(Timestamp(i64::MIN)), 0);
    }
}
