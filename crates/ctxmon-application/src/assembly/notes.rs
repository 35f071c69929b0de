//! Notes on how odd input was read (a NaN score, a duplicate path, an unknown role) and on
//! what was left out and why (over the budget, not shortened because `allowSummarization` is
//! false, beyond an item limit), reported in `debug.notes` so nothing is silently
//! reinterpreted or dropped.

use ctxmon_domain::human::count;

/// At most this many notes are kept; a hostile input with 100,000 bad scores must not produce
/// a debug section larger than the bundle.
pub const MAX_NOTES: usize = 50;

/// Notes on how odd input was read and what was left out, at most [`MAX_NOTES`] of them plus a
/// count of the rest.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Notes {
    list: Vec<String>,
    omitted: u64,
}

impl Notes {
    /// No notes.
    pub fn new() -> Notes {
        Notes::default()
    }

    /// Adds a note built lazily, so that an input full of oddities pays only for the notes kept.
    pub fn push_with(&mut self, note: impl FnOnce() -> String) {
        if self.list.len() < MAX_NOTES {
            self.list.push(note());
        } else {
            self.omitted += 1;
        }
    }

    /// Adds `other`'s notes after these (still at most [`MAX_NOTES`]).
    pub fn append(&mut self, other: Notes) {
        for note in other.list {
            self.push_with(|| note);
        }
        self.omitted += other.omitted;
    }

    /// The notes, with a last one saying how many were left out when there were too many.
    pub fn into_vec(mut self) -> Vec<String> {
        if self.omitted > 0 {
            self.list.push(format!(
                "{} omitted",
                count(self.omitted, "more note", "more notes")
            ));
        }
        self.list
    }
}

/// A 0–1 score made safe to sort: non-finite values are treated as absent (0.5, neutral) and
/// finite ones are clamped, with a note naming `path` whenever the value was changed.
pub fn sanitize_score(value: Option<f64>, path: impl FnOnce() -> String, notes: &mut Notes) -> f64 {
    match value {
        None => 0.5,
        Some(v) if !v.is_finite() => {
            notes.push_with(|| format!("{}: {v:?} is not a number, treated as 0.5", path()));
            0.5
        }
        Some(v) if !(0.0..=1.0).contains(&v) => {
            let clamped = v.clamp(0.0, 1.0);
            notes.push_with(|| format!("{}: {v:?} is outside 0-1, treated as {clamped:?}", path()));
            clamped
        }
        Some(v) => v,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_are_neutral_clamped_or_kept() {
        let mut notes = Notes::new();
        assert_eq!(sanitize_score(None, || "a".into(), &mut notes), 0.5);
        assert_eq!(sanitize_score(Some(0.3), || "b".into(), &mut notes), 0.3);
        assert_eq!(
            sanitize_score(Some(f64::NAN), || "c".into(), &mut notes),
            0.5
        );
        assert_eq!(
            sanitize_score(Some(f64::INFINITY), || "d".into(), &mut notes),
            0.5
        );
        assert_eq!(sanitize_score(Some(-2.0), || "e".into(), &mut notes), 0.0);
        assert_eq!(sanitize_score(Some(7.0), || "f".into(), &mut notes), 1.0);
        let notes = notes.into_vec();
        assert_eq!(notes.len(), 4);
        assert_eq!(notes[0], "c: NaN is not a number, treated as 0.5");
        assert_eq!(notes[2], "e: -2.0 is outside 0-1, treated as 0.0");
    }

    #[test]
    fn notes_are_capped_with_a_count() {
        let mut notes = Notes::new();
        for i in 0..(MAX_NOTES + 7) {
            notes.push_with(|| format!("n{i}"));
        }
        let list = notes.into_vec();
        assert_eq!(list.len(), MAX_NOTES + 1);
        assert_eq!(
            list.last().map(String::as_str),
            Some("7 more notes omitted")
        );
    }
}
