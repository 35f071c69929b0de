//! TZif zone files (RFC 8536, `/etc/localtime`, `/usr/share/zoneinfo/…`): the transition
//! table and the footer rule that continues it. Only what the offset needs is kept; leap
//! seconds and abbreviations are skipped.

use super::posix::PosixRule;

const HEADER_LEN: usize = 44;
/// No zone has ever been more than a day from UTC; a larger offset is a corrupt file.
const MAX_OFFSET_SECS: i64 = 26 * 3600;

#[derive(Debug, Clone, PartialEq)]
pub struct ZoneFile {
    /// Transition instants, seconds since the epoch, ascending.
    transitions: Vec<i64>,
    /// The local time type in force from each transition on.
    type_at: Vec<usize>,
    /// Each local time type's offset, seconds east of UTC.
    offsets: Vec<i32>,
    /// The rule after the last transition (version 2 and later).
    footer: Option<PosixRule>,
}

struct Counts {
    isut: usize,
    isstd: usize,
    leap: usize,
    time: usize,
    types: usize,
    chars: usize,
}

impl Counts {
    fn read(header: &[u8]) -> Option<Counts> {
        let count = |i: usize| -> Option<usize> {
            let bytes: [u8; 4] = header.get(20 + 4 * i..24 + 4 * i)?.try_into().ok()?;
            usize::try_from(u32::from_be_bytes(bytes)).ok()
        };
        Some(Counts {
            isut: count(0)?,
            isstd: count(1)?,
            leap: count(2)?,
            time: count(3)?,
            types: count(4)?,
            chars: count(5)?,
        })
    }

    /// The data block's length with `time_size`-byte times (4 in version 1, 8 after).
    fn block_len(&self, time_size: usize) -> Option<usize> {
        let parts = [
            self.time.checked_mul(time_size)?,
            self.time,
            self.types.checked_mul(6)?,
            self.chars,
            self.leap.checked_mul(time_size + 4)?,
            self.isstd,
            self.isut,
        ];
        parts.iter().try_fold(0usize, |sum, n| sum.checked_add(*n))
    }
}

impl ZoneFile {
    /// Parses a TZif file; `None` when it is not a well-formed one.
    pub fn parse(bytes: &[u8]) -> Option<ZoneFile> {
        let header = bytes.get(..HEADER_LEN)?;
        if header.get(..4)? != b"TZif" {
            return None;
        }
        let version = *header.get(4)?;
        let v1 = Counts::read(header)?;
        if version == 0 {
            return ZoneFile::block(bytes.get(HEADER_LEN..)?, &v1, 4, None);
        }
        // Version 2+: skip the 32-bit block; the 64-bit one follows with its own header.
        let second = HEADER_LEN.checked_add(v1.block_len(4)?)?;
        let header2 = bytes.get(second..second.checked_add(HEADER_LEN)?)?;
        if header2.get(..4)? != b"TZif" {
            return None;
        }
        let counts = Counts::read(header2)?;
        let data = bytes.get(second + HEADER_LEN..)?;
        let footer = data.get(counts.block_len(8)?..).and_then(footer_rule);
        ZoneFile::block(data, &counts, 8, footer)
    }

    fn block(
        data: &[u8],
        counts: &Counts,
        time_size: usize,
        footer: Option<PosixRule>,
    ) -> Option<ZoneFile> {
        if counts.types == 0 {
            return None;
        }
        let times_len = counts.time.checked_mul(time_size)?;
        let times = data.get(..times_len)?;
        let indices = data.get(times_len..times_len.checked_add(counts.time)?)?;
        let types_at = times_len + counts.time;
        let types = data.get(types_at..types_at.checked_add(counts.types.checked_mul(6)?)?)?;
        let transitions: Vec<i64> = times
            .chunks_exact(time_size)
            .map(|chunk| match chunk {
                [a, b, c, d] => i64::from(i32::from_be_bytes([*a, *b, *c, *d])),
                _ => chunk.try_into().map(i64::from_be_bytes).unwrap_or(i64::MAX),
            })
            .collect();
        if !transitions.is_sorted() {
            return None;
        }
        let type_at: Vec<usize> = indices.iter().map(|&i| usize::from(i)).collect();
        if type_at.iter().any(|&i| i >= counts.types) {
            return None;
        }
        let offsets = types
            .chunks_exact(6)
            .map(|t| {
                let utoff = i32::from_be_bytes(t.get(..4)?.try_into().ok()?);
                (i64::from(utoff).abs() <= MAX_OFFSET_SECS).then_some(utoff)
            })
            .collect::<Option<Vec<i32>>>()?;
        Some(ZoneFile {
            transitions,
            type_at,
            offsets,
            footer,
        })
    }

    /// Seconds east of UTC at `secs` seconds since the epoch.
    pub fn offset_at(&self, secs: i64) -> i32 {
        let first_type = self.offsets.first().copied().unwrap_or(0);
        let after = self.transitions.partition_point(|&t| t <= secs);
        if after == 0 {
            // Before the first transition (or none at all): type 0, unless only the footer
            // describes the zone.
            return match (&self.footer, self.transitions.is_empty()) {
                (Some(rule), true) => rule.offset_at(secs),
                _ => first_type,
            };
        }
        if after == self.transitions.len()
            && let Some(rule) = &self.footer
        {
            return rule.offset_at(secs);
        }
        self.type_at
            .get(after - 1)
            .and_then(|&t| self.offsets.get(t))
            .copied()
            .unwrap_or(first_type)
    }
}

/// The footer `\n<rule>\n`; an empty or unparsable rule is none.
fn footer_rule(footer: &[u8]) -> Option<PosixRule> {
    let body = footer.strip_prefix(b"\n")?;
    let end = body.iter().position(|&b| b == b'\n')?;
    PosixRule::parse(std::str::from_utf8(body.get(..end)?).ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(version: u8, time: u32, types: u32, chars: u32) -> Vec<u8> {
        let mut h = b"TZif".to_vec();
        h.push(version);
        h.extend([0u8; 15]);
        for count in [0, 0, 0, time, types, chars] {
            h.extend(u32::to_be_bytes(count));
        }
        h
    }

    /// A version 2 file: one transition (to +02:00 at 1,000,000,000 s), footer `rule`.
    fn v2_file(rule: &str) -> Vec<u8> {
        let mut f = header(b'2', 0, 1, 4);
        f.extend([0, 0, 0, 0, 0, 0]);
        f.extend(b"UTC\0");
        f.extend(header(b'2', 1, 2, 8));
        f.extend(1_000_000_000i64.to_be_bytes());
        f.push(1);
        f.extend(3600i32.to_be_bytes());
        f.extend([0, 0]);
        f.extend(7200i32.to_be_bytes());
        f.extend([1, 4]);
        f.extend(b"AAA\0BBB\0");
        f.extend(format!("\n{rule}\n").as_bytes());
        f
    }

    #[test]
    fn the_table_then_the_footer() {
        let zone = ZoneFile::parse(&v2_file("<+03>-3")).unwrap();
        assert_eq!(zone.offset_at(0), 3600);
        assert_eq!(zone.offset_at(999_999_999), 3600);
        // At the last transition and after it, the footer rule.
        assert_eq!(zone.offset_at(1_000_000_000), 10_800);
        let no_footer = ZoneFile::parse(&v2_file("")).unwrap();
        assert_eq!(no_footer.offset_at(2_000_000_000), 7200);
    }

    #[test]
    fn version_1_files_have_32_bit_times() {
        let mut f = header(0, 1, 1, 4);
        f.extend(100i32.to_be_bytes());
        f.push(0);
        f.extend((-18_000i32).to_be_bytes());
        f.extend([0, 0]);
        f.extend(b"EST\0");
        let zone = ZoneFile::parse(&f).unwrap();
        assert_eq!(zone.offset_at(500), -18_000);
    }

    #[test]
    fn damaged_files_are_refused_not_misread() {
        let good = v2_file("<+03>-3");
        // Cut anywhere before the footer: the header, the 32-bit block, the 64-bit one.
        for len in [0, 3, 43, 44, 60, 98, 106, 110] {
            assert!(ZoneFile::parse(&good[..len]).is_none(), "cut at {len}");
        }
        assert!(ZoneFile::parse(b"not a zone file at all, not even close....").is_none());
        let mut bad_index = v2_file("");
        // The one transition's type index (before 2 types, 8 characters and the footer
        // `\n\n`) points past the two types there are.
        let index = bad_index.len() - (12 + 8 + 2) - 1;
        bad_index[index] = 9;
        assert!(ZoneFile::parse(&bad_index).is_none());
    }
}
