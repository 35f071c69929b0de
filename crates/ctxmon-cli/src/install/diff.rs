//! A unified diff of two small texts, for `ctxmon install --dry-run`: the user sees exactly the
//! lines that would change, in the form every reviewer already reads.

/// Lines of context around each change.
const CONTEXT: usize = 3;
/// Settings files are small; beyond this many line pairs the diff falls back to "all changed"
/// rather than spend quadratic time.
const MAX_CELLS: usize = 4_000_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Same(usize, usize),
    Del(usize),
    Ins(usize),
}

/// `--- old_name` / `+++ new_name` and `@@` hunks; empty when the texts are equal.
pub fn unified(old: &str, new: &str, old_name: &str, new_name: &str) -> String {
    if old == new {
        return String::new();
    }
    let a: Vec<&str> = old.split_inclusive('\n').collect();
    let b: Vec<&str> = new.split_inclusive('\n').collect();
    let ops = line_ops(&a, &b);
    let mut out = format!("--- {old_name}\n+++ {new_name}\n");
    let changed: Vec<usize> = ops
        .iter()
        .enumerate()
        .filter(|(_, op)| !matches!(op, Op::Same(..)))
        .map(|(i, _)| i)
        .collect();
    let mut i = 0;
    while i < changed.len() {
        // A hunk runs while the next change is within two contexts of the previous one.
        let mut j = i;
        while j + 1 < changed.len() && changed[j + 1] - changed[j] <= 2 * CONTEXT + 1 {
            j += 1;
        }
        let from = changed[i].saturating_sub(CONTEXT);
        let to = (changed[j] + CONTEXT + 1).min(ops.len());
        hunk(&mut out, &ops[from..to], &a, &b);
        i = j + 1;
    }
    out
}

fn hunk(out: &mut String, ops: &[Op], a: &[&str], b: &[&str]) {
    let (mut a_start, mut b_start, mut a_len, mut b_len) = (None, None, 0, 0);
    for op in ops {
        match *op {
            Op::Same(i, j) => {
                a_start.get_or_insert(i);
                b_start.get_or_insert(j);
                a_len += 1;
                b_len += 1;
            }
            Op::Del(i) => {
                a_start.get_or_insert(i);
                a_len += 1;
            }
            Op::Ins(j) => {
                b_start.get_or_insert(j);
                b_len += 1;
            }
        }
    }
    // A side with no lines in the hunk can only be an empty file (every other hunk has
    // context), which diff(1) writes as line 0.
    let a_at = a_start.map_or(0, |s| s + 1);
    let b_at = b_start.map_or(0, |s| s + 1);
    out.push_str(&format!("@@ -{a_at},{a_len} +{b_at},{b_len} @@\n"));
    for op in ops {
        let (sign, line) = match *op {
            Op::Same(i, _) => (' ', a[i]),
            Op::Del(i) => ('-', a[i]),
            Op::Ins(j) => ('+', b[j]),
        };
        out.push(sign);
        out.push_str(line);
        if !line.ends_with('\n') {
            out.push_str("\n\\ No newline at end of file\n");
        }
    }
}

/// Longest-common-subsequence alignment of two line lists, after trimming the common ends.
fn line_ops(a: &[&str], b: &[&str]) -> Vec<Op> {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (ma, mb) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    let mut ops: Vec<Op> = (0..prefix).map(|i| Op::Same(i, i)).collect();
    if ma.len().saturating_mul(mb.len()) > MAX_CELLS {
        ops.extend((0..ma.len()).map(|i| Op::Del(prefix + i)));
        ops.extend((0..mb.len()).map(|j| Op::Ins(prefix + j)));
    } else {
        // lcs[i][j]: the LCS length of ma[i..] and mb[j..].
        let w = mb.len() + 1;
        let mut lcs = vec![0u32; (ma.len() + 1) * w];
        for i in (0..ma.len()).rev() {
            for j in (0..mb.len()).rev() {
                lcs[i * w + j] = if ma[i] == mb[j] {
                    lcs[(i + 1) * w + j + 1] + 1
                } else {
                    lcs[(i + 1) * w + j].max(lcs[i * w + j + 1])
                };
            }
        }
        let (mut i, mut j) = (0, 0);
        while i < ma.len() || j < mb.len() {
            if i < ma.len() && j < mb.len() && ma[i] == mb[j] {
                ops.push(Op::Same(prefix + i, prefix + j));
                i += 1;
                j += 1;
            } else if i < ma.len() && (j == mb.len() || lcs[(i + 1) * w + j] >= lcs[i * w + j + 1])
            {
                // Deletions before insertions, as diff(1) prints them.
                ops.push(Op::Del(prefix + i));
                i += 1;
            } else {
                ops.push(Op::Ins(prefix + j));
                j += 1;
            }
        }
    }
    let (sa, sb) = (a.len() - suffix, b.len() - suffix);
    ops.extend((0..suffix).map(|k| Op::Same(sa + k, sb + k)));
    ops
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_texts_have_no_diff() {
        assert_eq!(unified("a\n", "a\n", "x", "y"), "");
    }

    #[test]
    fn an_insertion_shows_its_context() {
        let old = "1\n2\n3\n4\n5\n6\n7\n8\n";
        let new = "1\n2\n3\n4\n4.5\n5\n6\n7\n8\n";
        assert_eq!(
            unified(old, new, "a", "b"),
            "--- a\n+++ b\n@@ -2,6 +2,7 @@\n 2\n 3\n 4\n+4.5\n 5\n 6\n 7\n"
        );
    }

    #[test]
    fn far_apart_changes_make_two_hunks_and_a_missing_newline_is_marked() {
        let lines: Vec<String> = (1..=20).map(|i| format!("{i}\n")).collect();
        let old = lines.concat();
        let mut changed = lines.clone();
        changed[1] = "two\n".into();
        changed[18] = "nineteen\n".into();
        let new = changed.concat() + "end";
        let d = unified(&old, &new, "a", "b");
        assert_eq!(d.matches("@@ -").count(), 2, "{d}");
        assert!(d.contains("-2\n+two\n"), "{d}");
        assert!(d.ends_with("+end\n\\ No newline at end of file\n"), "{d}");
    }

    #[test]
    fn a_new_file_is_all_additions() {
        let d = unified("", "{\n}\n", "/dev/null", "b");
        assert_eq!(d, "--- /dev/null\n+++ b\n@@ -0,0 +1,2 @@\n+{\n+}\n");
    }
}
