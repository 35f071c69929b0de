//! Timestamps as plain values. The domain never reads a clock; callers pass times in.

use serde::{Deserialize, Serialize};

/// Milliseconds since the Unix epoch (UTC).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Timestamp(pub i64);

impl Timestamp {
    /// The instant `ms` milliseconds after the Unix epoch (negative before it).
    pub fn from_millis(ms: i64) -> Timestamp {
        Timestamp(ms)
    }

    /// Milliseconds since the Unix epoch.
    pub fn millis(self) -> i64 {
        self.0
    }

    /// RFC 3339 in UTC with millisecond precision, e.g. `2026-04-18T13:50:40.622Z`.
    pub fn to_rfc3339(self) -> String {
        let secs = self.0.div_euclid(1000);
        let ms = self.0.rem_euclid(1000);
        let days = secs.div_euclid(86_400);
        let sod = secs.rem_euclid(86_400);
        let (y, m, d) = civil_from_days(days);
        format!(
            "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{ms:03}Z",
            sod / 3600,
            (sod % 3600) / 60,
            sod % 60
        )
    }

    /// The time for people: `2026-04-18 15:50:40 +02:00`, at `offset_secs` east of UTC (the
    /// local offset at this instant, which only the caller can know: the domain reads no
    /// clock, zone or environment). Seconds, no fraction; JSON keeps [`Timestamp::to_rfc3339`].
    pub fn to_local_text(self, offset_secs: i32) -> String {
        let offset = i64::from(offset_secs);
        let secs = self.0.div_euclid(1000).saturating_add(offset);
        let days = secs.div_euclid(86_400);
        let sod = secs.rem_euclid(86_400);
        let (y, m, d) = civil_from_days(days);
        let sign = if offset < 0 { '-' } else { '+' };
        let abs = offset.unsigned_abs();
        format!(
            "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} {sign}{:02}:{:02}",
            sod / 3600,
            (sod % 3600) / 60,
            sod % 60,
            abs / 3600,
            (abs % 3600) / 60
        )
    }

    /// Parses the RFC 3339 forms Claude Code and ctxmon write (`Z` or `±hh:mm` offsets, optional
    /// fraction). Returns `None` for anything else rather than guessing.
    pub fn parse_rfc3339(s: &str) -> Option<Timestamp> {
        let s = s.trim();
        let b = s.as_bytes();
        if b.len() < 20
            || b[4] != b'-'
            || b[7] != b'-'
            || !(b[10] == b'T' || b[10] == b't' || b[10] == b' ')
            || b[13] != b':'
            || b[16] != b':'
        {
            return None;
        }
        let num = |r: std::ops::Range<usize>| -> Option<i64> { s.get(r)?.parse::<i64>().ok() };
        let (y, mo, d, h, mi, se) = (
            num(0..4)?,
            num(5..7)?,
            num(8..10)?,
            num(11..13)?,
            num(14..16)?,
            num(17..19)?,
        );
        if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || se > 60 {
            return None;
        }
        let mut rest = &s[19..];
        let mut ms = 0i64;
        if let Some(frac) = rest.strip_prefix('.') {
            let digits = frac.bytes().take_while(u8::is_ascii_digit).count();
            if digits == 0 {
                return None;
            }
            // Milliseconds from the first three digits (fewer are padded with zeros), without
            // building a string: every record's time is parsed when a tail is read.
            let mut scale = 100;
            for digit in frac.bytes().take(digits.min(3)) {
                ms += i64::from(digit - b'0') * scale;
                scale /= 10;
            }
            rest = &frac[digits..];
        }
        let offset_secs = match rest {
            "Z" | "z" => 0,
            _ if rest.len() == 6
                && (rest.starts_with('+') || rest.starts_with('-'))
                && rest.get(3..4) == Some(":") =>
            {
                let sign = if rest.starts_with('-') { -1 } else { 1 };
                sign * (rest.get(1..3)?.parse::<i64>().ok()? * 3600
                    + rest.get(4..6)?.parse::<i64>().ok()? * 60)
            }
            _ => return None,
        };
        let days = days_from_civil(y, mo, d);
        let secs = days * 86_400 + h * 3600 + mi * 60 + se - offset_secs;
        Some(Timestamp(secs.checked_mul(1000)?.checked_add(ms)?))
    }
}

// Howard Hinnant's civil-date algorithms: exact for the proleptic Gregorian calendar. Public
// for the time-zone rules of the adapters, which must count days the same way.

/// Days since 1970-01-01 of a date (`m` 1–12, `d` 1–31).
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date (year, month 1–12, day 1–31) of a day counted from 1970-01-01.
pub fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn formats_known_instants() {
        assert_eq!(Timestamp(0).to_rfc3339(), "1970-01-01T00:00:00.000Z");
        assert_eq!(
            Timestamp(1_776_520_240_622).to_rfc3339(),
            "2026-04-18T13:50:40.622Z"
        );
    }

    #[test]
    fn local_text_shows_the_offset_it_was_given() {
        let t = Timestamp(1_776_520_240_622);
        assert_eq!(t.to_local_text(0), "2026-04-18 13:50:40 +00:00");
        assert_eq!(t.to_local_text(7200), "2026-04-18 15:50:40 +02:00");
        assert_eq!(
            t.to_local_text(-(3 * 3600 + 1800)),
            "2026-04-18 10:20:40 -03:30"
        );
        assert_eq!(t.to_local_text(12 * 3600), "2026-04-19 01:50:40 +12:00");
        assert_eq!(Timestamp(-1).to_local_text(0), "1969-12-31 23:59:59 +00:00");
    }

    #[test]
    fn parses_claude_code_timestamps() {
        assert_eq!(
            Timestamp::parse_rfc3339("2026-04-18T13:50:40.622Z"),
            Some(Timestamp(1_776_520_240_622))
        );
        assert_eq!(
            Timestamp::parse_rfc3339("2026-04-18T15:50:40+02:00"),
            Some(Timestamp(1_776_520_240_000))
        );
        // A fraction of one or two digits is tenths or hundredths; past three, it is cut.
        for (fraction, ms) in [("6", 600), ("62", 620), ("622", 622), ("622999", 622)] {
            assert_eq!(
                Timestamp::parse_rfc3339(&format!("2026-04-18T13:50:40.{fraction}Z")),
                Some(Timestamp(1_776_520_240_000 + ms))
            );
        }
        assert_eq!(Timestamp::parse_rfc3339("2026-04-18T13:50:40.Z"), None);
        assert_eq!(Timestamp::parse_rfc3339("2026-04-18"), None);
        assert_eq!(Timestamp::parse_rfc3339("not a time at all!!"), None);
        assert_eq!(Timestamp::parse_rfc3339("2026-13-18T13:50:40Z"), None);
    }

    proptest! {
        #[test]
        fn round_trips(ms in -10_000_000_000_000i64..100_000_000_000_000) {
            prop_assert_eq!(Timestamp::parse_rfc3339(&Timestamp(ms).to_rfc3339()), Some(Timestamp(ms)));
        }

        #[test]
        fn never_panics(s in any::<String>()) {
            let _ = Timestamp::parse_rfc3339(&s);
        }
    }
}
