//! POSIX `TZ` rules (`std offset [dst [offset] [,start[/time],end[/time]]]`), as `TZ` may hold
//! them and as a TZif file's footer states the zone's current rule: `CET-1CEST,M3.5.0,M10.5.0/3`
//! is one hour east of UTC, two from 02:00 on March's last Sunday to 03:00 on October's last
//! Sunday. Offsets in the string count west (`EST5` is UTC−5); this type reports them east.

use ctxmon_domain::time::{civil_from_days, days_from_civil};

/// The offset an unspecified summer time adds, and the rule an unspecified one follows (the
/// US rule, as the C library assumes).
const DEFAULT_DST_SHIFT: i32 = 3600;
const DEFAULT_START: DayRule = DayRule::Month {
    month: 3,
    week: 2,
    weekday: 0,
};
const DEFAULT_END: DayRule = DayRule::Month {
    month: 11,
    week: 1,
    weekday: 0,
};
/// Transitions happen at 02:00 local time unless the rule says otherwise.
const DEFAULT_TIME: i32 = 2 * 3600;

#[derive(Debug, Clone, PartialEq)]
pub struct PosixRule {
    /// Standard time, seconds east of UTC.
    std_offset: i32,
    dst: Option<Summer>,
}

#[derive(Debug, Clone, PartialEq)]
struct Summer {
    /// Seconds east of UTC.
    offset: i32,
    start: DayRule,
    /// Local (standard) time of day the summer time starts, seconds; may pass 24 hours.
    start_time: i32,
    end: DayRule,
    /// Local (summer) time of day it ends.
    end_time: i32,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum DayRule {
    /// `Jn`: day 1–365, February 29 never counted.
    NoLeap(u16),
    /// `n`: day 0–365, February 29 counted.
    Leap(u16),
    /// `Mm.w.d`: weekday `d` (0 Sunday) of week `w` (5 = the last) of month `m`.
    Month { month: u8, week: u8, weekday: u8 },
}

impl PosixRule {
    /// Parses a rule string; `None` for anything else (a zone name, a typo).
    pub fn parse(text: &str) -> Option<PosixRule> {
        let mut p = Parser {
            rest: text.as_bytes(),
        };
        p.name()?;
        let std_offset = -p.offset(24)?;
        if p.rest.is_empty() {
            return Some(PosixRule {
                std_offset,
                dst: None,
            });
        }
        p.name()?;
        let offset = match p.rest.first() {
            Some(b'+' | b'-' | b'0'..=b'9') => -p.offset(24)?,
            _ => std_offset + DEFAULT_DST_SHIFT,
        };
        let ((start, start_time), (end, end_time)) = if p.rest.is_empty() {
            ((DEFAULT_START, DEFAULT_TIME), (DEFAULT_END, DEFAULT_TIME))
        } else {
            p.expect(b',')?;
            let start = p.day_and_time()?;
            p.expect(b',')?;
            let end = p.day_and_time()?;
            (start, end)
        };
        if !p.rest.is_empty() {
            return None;
        }
        Some(PosixRule {
            std_offset,
            dst: Some(Summer {
                offset,
                start,
                start_time,
                end,
                end_time,
            }),
        })
    }

    /// Seconds east of UTC at `secs` seconds since the epoch.
    pub fn offset_at(&self, secs: i64) -> i32 {
        let Some(dst) = &self.dst else {
            return self.std_offset;
        };
        let std = i64::from(self.std_offset);
        let local_day = (secs + std).div_euclid(86_400);
        let (year, _, _) = civil_from_days(local_day);
        let start = day_of(year, dst.start) * 86_400 + i64::from(dst.start_time) - std;
        let end = day_of(year, dst.end) * 86_400 + i64::from(dst.end_time) - i64::from(dst.offset);
        let summer = if start < end {
            (start..end).contains(&secs)
        } else {
            // Southern hemisphere: summer time spans the new year.
            !(end..start).contains(&secs)
        };
        if summer { dst.offset } else { self.std_offset }
    }
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

/// Days since the epoch of the day `rule` names in `year`.
fn day_of(year: i64, rule: DayRule) -> i64 {
    let jan1 = days_from_civil(year, 1, 1);
    match rule {
        DayRule::NoLeap(n) => {
            let n = i64::from(n);
            jan1 + n - 1 + i64::from(is_leap(year) && n >= 60)
        }
        DayRule::Leap(n) => jan1 + i64::from(n),
        DayRule::Month {
            month,
            week,
            weekday,
        } => {
            let month = i64::from(month);
            let first = days_from_civil(year, month, 1);
            let next = if month == 12 {
                days_from_civil(year + 1, 1, 1)
            } else {
                days_from_civil(year, month + 1, 1)
            };
            // 1970-01-01 was a Thursday (4).
            let first_weekday = (first + 4).rem_euclid(7);
            let mut day = first + (i64::from(weekday) - first_weekday).rem_euclid(7);
            day += 7 * (i64::from(week) - 1);
            while day >= next {
                day -= 7;
            }
            day
        }
    }
}

struct Parser<'a> {
    rest: &'a [u8],
}

impl Parser<'_> {
    fn expect(&mut self, byte: u8) -> Option<()> {
        let (&first, rest) = self.rest.split_first()?;
        (first == byte).then(|| self.rest = rest)
    }

    /// A zone abbreviation: three or more letters, or `<…>` of letters, digits and signs.
    fn name(&mut self) -> Option<()> {
        let len = if self.rest.first() == Some(&b'<') {
            let close = self.rest.iter().position(|&b| b == b'>')?;
            let inner = self.rest.get(1..close)?;
            if inner.len() < 3
                || !inner
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || *b == b'+' || *b == b'-')
            {
                return None;
            }
            close + 1
        } else {
            let letters = self
                .rest
                .iter()
                .take_while(|b| b.is_ascii_alphabetic())
                .count();
            if letters < 3 {
                return None;
            }
            letters
        };
        self.rest = self.rest.get(len..)?;
        Some(())
    }

    /// `[+-]hh[:mm[:ss]]` as signed seconds, hours at most `max_hours`.
    fn offset(&mut self, max_hours: i64) -> Option<i32> {
        let sign = match self.rest.first() {
            Some(b'-') => {
                self.rest = self.rest.get(1..)?;
                -1
            }
            Some(b'+') => {
                self.rest = self.rest.get(1..)?;
                1
            }
            _ => 1,
        };
        let hours = self.number(3)?;
        if hours > max_hours {
            return None;
        }
        let mut secs = hours * 3600;
        for scale in [60, 1] {
            if self.rest.first() != Some(&b':') {
                break;
            }
            self.rest = self.rest.get(1..)?;
            let part = self.number(2)?;
            if part > 59 {
                return None;
            }
            secs += part * scale;
        }
        i32::try_from(sign * secs).ok()
    }

    /// Up to `max_digits` decimal digits, at least one.
    fn number(&mut self, max_digits: usize) -> Option<i64> {
        let digits = self
            .rest
            .iter()
            .take(max_digits)
            .take_while(|b| b.is_ascii_digit())
            .count();
        if digits == 0 {
            return None;
        }
        let text = std::str::from_utf8(self.rest.get(..digits)?).ok()?;
        self.rest = self.rest.get(digits..)?;
        text.parse().ok()
    }

    /// `Jn`, `n` or `Mm.w.d`, then an optional `/time` (up to 167 hours, as zic writes).
    fn day_and_time(&mut self) -> Option<(DayRule, i32)> {
        let rule = match self.rest.first()? {
            b'J' => {
                self.rest = self.rest.get(1..)?;
                let n = self.number(3)?;
                DayRule::NoLeap(u16::try_from(n).ok().filter(|n| (1..=365).contains(n))?)
            }
            b'M' => {
                self.rest = self.rest.get(1..)?;
                let month = self.number(2)?;
                self.expect(b'.')?;
                let week = self.number(1)?;
                self.expect(b'.')?;
                let weekday = self.number(1)?;
                if !(1..=12).contains(&month) || !(1..=5).contains(&week) || weekday > 6 {
                    return None;
                }
                DayRule::Month {
                    month: u8::try_from(month).ok()?,
                    week: u8::try_from(week).ok()?,
                    weekday: u8::try_from(weekday).ok()?,
                }
            }
            _ => {
                let n = self.number(3)?;
                DayRule::Leap(u16::try_from(n).ok().filter(|n| *n <= 365)?)
            }
        };
        let time = if self.rest.first() == Some(&b'/') {
            self.rest = self.rest.get(1..)?;
            self.offset(167)?
        } else {
            DEFAULT_TIME
        };
        Some((rule, time))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctxmon_domain::Timestamp;

    fn offset(rule: &str, rfc3339: &str) -> i32 {
        let secs = Timestamp::parse_rfc3339(rfc3339).unwrap().millis() / 1000;
        PosixRule::parse(rule).unwrap().offset_at(secs)
    }

    #[test]
    fn central_europe_switches_at_one_in_the_morning_utc() {
        let cet = "CET-1CEST,M3.5.0,M10.5.0/3";
        // 2026: March 29 and October 25 are the last Sundays.
        assert_eq!(offset(cet, "2026-03-29T00:59:59Z"), 3600);
        assert_eq!(offset(cet, "2026-03-29T01:00:00Z"), 7200);
        assert_eq!(offset(cet, "2026-10-25T00:59:59Z"), 7200);
        assert_eq!(offset(cet, "2026-10-25T01:00:00Z"), 3600);
        assert_eq!(offset(cet, "2026-12-31T23:30:00Z"), 3600);
    }

    #[test]
    fn the_us_and_the_default_summer_rule() {
        let rule = "EST5EDT,M3.2.0,M11.1.0";
        // 2026: March 8 and November 1.
        assert_eq!(offset(rule, "2026-03-08T06:59:59Z"), -18_000);
        assert_eq!(offset(rule, "2026-03-08T07:00:00Z"), -14_400);
        assert_eq!(offset(rule, "2026-11-01T05:59:59Z"), -14_400);
        assert_eq!(offset(rule, "2026-11-01T06:00:00Z"), -18_000);
        assert_eq!(offset("EST5EDT", "2026-07-01T12:00:00Z"), -14_400);
    }

    #[test]
    fn the_southern_summer_spans_the_new_year() {
        let sydney = "AEST-10AEDT,M10.1.0,M4.1.0/3";
        assert_eq!(offset(sydney, "2026-01-15T00:00:00Z"), 39_600);
        assert_eq!(offset(sydney, "2026-07-15T00:00:00Z"), 36_000);
        assert_eq!(offset(sydney, "2026-12-31T20:00:00Z"), 39_600);
    }

    #[test]
    fn fixed_offsets_and_quoted_names() {
        assert_eq!(offset("<+0530>-5:30", "2026-07-01T00:00:00Z"), 19_800);
        assert_eq!(offset("<-03>3", "2026-07-01T00:00:00Z"), -10_800);
        assert_eq!(offset("UTC0", "2026-07-01T00:00:00Z"), 0);
        // Julian days: J60 is March 1 in every year.
        let rule = "AAA0BBB,J60/0,J300/0";
        assert_eq!(offset(rule, "2028-02-29T12:00:00Z"), 0);
        assert_eq!(offset(rule, "2028-03-01T12:00:00Z"), 3600);
    }

    #[test]
    fn anything_else_is_refused() {
        for bad in [
            "",
            "Europe/Berlin",
            "UT0",
            "CET",
            "CET-1CEST,M3.5.0",
            "CET-1CEST,M13.5.0,M10.5.0",
            "CET-1CEST,M3.6.0,M10.5.0",
            "CET-99",
            "<+05>",
            "CET-1 trailing",
        ] {
            assert_eq!(PosixRule::parse(bad), None, "{bad:?}");
        }
    }
}
