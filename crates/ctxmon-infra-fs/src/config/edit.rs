//! Editing a configuration file in place, for `config set` and `config unset`: one key changes,
//! and everything else the user wrote (comments, blank lines, key order, inline tables, quoting)
//! stays byte for byte.
//!
//! The file is edited as a `toml_edit` document rather than parsed and serialised again, which
//! would drop every comment. The edited text is then parsed as the other layers are and checked
//! with them before it is written, so what is checked is exactly what lands on disk.

use std::fs;
use std::io;
use std::path::Path;

use toml_edit::{DocumentMut, InlineTable, Item, Table, TableLike, Value};

use super::error::{ConfigError, ConfigErrorKind};
use super::kinds::KeyRef;
use super::layers;
use super::load::load_files_with;
use super::paths::{ConfigPaths, Scope};
use crate::fsutil::{Durability, is_symlink, symlink_refused, write_atomic};
use crate::layout::ProjectLayout;

/// Where a value given to `config set` comes from, in messages: the command, not a file it
/// was not written to.
pub(crate) const SET_SOURCE: &str = "`ctxmon config set`";

/// A configuration file as read for editing: its text (kept to compare the result with) and
/// its document. `None` when the file does not exist.
#[derive(Debug)]
pub(super) struct Edited {
    original: String,
    pub doc: DocumentMut,
}

impl Edited {
    /// Reads `path` as [`layers::read_file`] would (same refusals, same parse errors), keeping
    /// its layout; `None` when it does not exist.
    pub fn read(path: &Path) -> Result<Option<Edited>, ConfigError> {
        let Some(text) = layers::read_text(path, false)? else {
            return Ok(None);
        };
        // toml's errors carry the line and column every other reader reports; toml_edit
        // accepts exactly what toml does (toml parses with it), so its own error is a backstop.
        layers::parse_table(path, &text)?;
        let doc = text.parse::<DocumentMut>().map_err(|e| {
            ConfigError::new(
                ConfigErrorKind::Parse,
                None,
                path.display().to_string(),
                format!("{}; fix the TOML syntax", e.message().trim()),
            )
        })?;
        Ok(Some(Edited {
            original: text,
            doc,
        }))
    }

    /// An empty document, for a file `config set` creates.
    pub fn new() -> Edited {
        Edited {
            original: String::new(),
            doc: DocumentMut::new(),
        }
    }

    /// The text to write. Removing the first table leaves the blank line that separated it from
    /// the next one at the top of the file; a file that did not start with one does not get one.
    fn text(&self) -> String {
        let text = self.doc.to_string();
        if self.original.starts_with('\n') {
            text
        } else {
            text.trim_start_matches('\n').to_string()
        }
    }

    /// Checks the edited file layered with the others (defaults and every file, `scope`'s
    /// replaced by this one) and writes it, atomically and privately; nothing is written when
    /// the check fails. `key` is named in a serialisation error.
    pub fn check_and_write(
        &self,
        layout: &ProjectLayout,
        paths: &ConfigPaths,
        scope: Scope,
        target: &Path,
        key: &str,
    ) -> Result<(), ConfigError> {
        let text = self.text();
        let table = layers::parse_table(target, &text).map_err(|e| {
            ConfigError::new(
                ConfigErrorKind::InvalidValue,
                Some(key.to_string()),
                target.display().to_string(),
                format!(
                    "the edited file would not parse ({}); nothing was written",
                    e.message
                ),
            )
        })?;
        load_files_with(paths, (scope.layer(), &table))
            .map_err(|e| not_from(e, target, key))
            .map_err(nothing_written)?;
        let written = match scope {
            Scope::User => write_private(target, &text),
            Scope::Project | Scope::Local => write_in_ctxmon(layout, target, &text),
        };
        written.map_err(|e| {
            ConfigError::new(
                ConfigErrorKind::Io,
                None,
                target.display().to_string(),
                format!("cannot write it: {e}; check the folder's permissions and free space"),
            )
        })
    }
}

/// A parsed value as `toml_edit` writes it (`0.72`, `"on-change"`, `["a", "b"]`,
/// `{ opus = 1000000 }`), without surrounding spaces so the document gives it its usual ones.
pub(super) fn to_edit_value(value: &toml::Value) -> Result<Value, String> {
    value.to_string().parse::<Value>().map_err(|e| {
        format!(
            "the value cannot be written as TOML ({})",
            e.message().trim()
        )
    })
}

/// Sets `key` to `value`, creating the tables on the way (as `[section]` headers, or inside an
/// inline or dotted table when that is how the file writes its parent). A value that replaces
/// one keeps its place, the comment above its key and the comment after it. Fails, naming the
/// obstacle, when something that should be a table is not one.
pub(super) fn set(doc: &mut DocumentMut, key: &KeyRef, value: Value) -> Result<(), String> {
    let segs = layers::segments(key);
    let Some((leaf, parents)) = segs.split_last() else {
        return Ok(());
    };
    let mut current: &mut dyn TableLike = doc.as_table_mut();
    let mut inline = false;
    for (depth, seg) in parents.iter().enumerate() {
        if current.get(seg).is_none() {
            // A new table is written the way its parent is: `{ }` inside an inline table, a dotted
            // key inside a dotted one, else a `[section]` header (none for a table that only
            // holds tables: `[context_monitor.models]` alone).
            if inline {
                push_inline(current, seg, Value::InlineTable(InlineTable::new()));
            } else {
                let mut table = Table::new();
                table.set_implicit(true);
                table.set_dotted(current.is_dotted());
                current.insert(seg, Item::Table(table));
            }
        }
        let item = current.get_mut(seg);
        inline = inline || matches!(item, Some(Item::Value(Value::InlineTable(_))));
        current = item.and_then(Item::as_table_like_mut).ok_or_else(|| {
            format!(
                "{} is not a table; fix the file by hand",
                parents[..=depth].join(".")
            )
        })?;
    }
    match (current.get_mut(leaf), value) {
        (Some(Item::Value(old)), mut new) => {
            *new.decor_mut() = old.decor().clone();
            *old = new;
        }
        // A whole `[context_monitor.models]` table replaced: it stays a table where it was.
        (Some(Item::Table(old)), Value::InlineTable(new)) => {
            let mut table = new.into_table();
            *table.decor_mut() = old.decor().clone();
            if let Some(position) = old.position() {
                table.set_position(position);
            }
            *old = table;
        }
        (_, new) if inline => push_inline(current, leaf, new),
        (_, new) => {
            current.insert(leaf, Item::Value(new));
        }
    }
    Ok(())
}

/// Adds a key at the end of an inline table. The space before `}` belongs to the last value,
/// so it moves to the new one: `{ a = 1 }` becomes `{ a = 1, b = 2 }`, not `{ a = 1 , b = 2 }`.
fn push_inline(table: &mut dyn TableLike, key: &str, mut value: Value) {
    if let Some((_, Item::Value(last))) = table.iter_mut().last() {
        let suffix = last.decor().suffix().cloned();
        last.decor_mut().set_suffix("");
        if let Some(suffix) = suffix {
            value.decor_mut().set_suffix(suffix);
        }
    }
    table.insert(key, Item::Value(value));
}

/// Removes `key` and the comment lines directly above it; true when it was there. A table the
/// removal empties goes too (`[context_monitor.models]` without its last rule), unless a comment
/// sits on its header: that comment is the user's, and stays with the header.
pub(super) fn remove(doc: &mut DocumentMut, key: &KeyRef) -> bool {
    fn walk(table: &mut dyn TableLike, segs: &[String], inline: bool) -> bool {
        match segs {
            [] => false,
            [leaf] => {
                let last = table.iter().last().is_some_and(|(k, _)| k == leaf.as_str());
                match table.remove(leaf) {
                    Some(Item::Value(removed)) if inline && last => {
                        // `{ a = 1, b = 2 }` without `b`: its space before `}` goes to `a`.
                        if let (Some(suffix), Some((_, Item::Value(before)))) =
                            (removed.decor().suffix(), table.iter_mut().last())
                        {
                            before.decor_mut().set_suffix(suffix.clone());
                        }
                        true
                    }
                    removed => removed.is_some(),
                }
            }
            [first, rest @ ..] => {
                let commented = has_comment(table, first);
                let Some(item) = table.get_mut(first) else {
                    return false;
                };
                let inline = inline || matches!(item, Item::Value(Value::InlineTable(_)));
                let Some(inner) = item.as_table_like_mut() else {
                    return false;
                };
                let removed = walk(inner, rest, inline);
                if removed && inner.is_empty() && !commented {
                    table.remove(first);
                }
                removed
            }
        }
    }
    walk(doc.as_table_mut(), &layers::segments(key), false)
}

/// Whether the header of table `name` (or the key of an inline or dotted one) carries a comment.
fn has_comment(parent: &dyn TableLike, name: &str) -> bool {
    let commented = |decor: &toml_edit::Decor| {
        [decor.prefix(), decor.suffix()]
            .into_iter()
            .flatten()
            .any(|raw| raw.as_str().is_some_and(|s| s.contains('#')))
    };
    let on_key = parent.key(name).is_some_and(|k| commented(k.leaf_decor()));
    let on_header = match parent.get(name) {
        Some(Item::Table(table)) => commented(table.decor()),
        _ => false,
    };
    on_key || on_header
}

/// The value being set comes from `config set`, not from `target`: the file was not written,
/// so an error must not say the value is in it.
fn not_from(mut error: ConfigError, target: &Path, key: &str) -> ConfigError {
    let shown = target.display().to_string();
    let from_set = SET_SOURCE;
    let fix = |e: &mut ConfigError| {
        let mut named = false;
        for s in e.settings.iter_mut() {
            if s.key == key && s.source == shown {
                s.source = from_set.to_string();
                named = true;
            }
        }
        if named && e.source == shown {
            e.source = from_set.to_string();
        }
    };
    fix(&mut error);
    for e in error.more.iter_mut() {
        fix(e);
    }
    error
}

pub(super) fn nothing_written(mut error: ConfigError) -> ConfigError {
    error.message.push_str("; nothing was written");
    error
}

/// Replaces a file inside `.ctxmon` atomically (0600, fsync). `.ctxmon` is created or checked
/// by the layout, and a file that is a symbolic link is refused: contract C12 follows no link
/// inside `.ctxmon`, and renaming over it would silently turn the link into a file.
fn write_in_ctxmon(layout: &ProjectLayout, path: &Path, text: &str) -> io::Result<()> {
    layout.ensure_dir(layout.root())?;
    if is_symlink(path) {
        return Err(symlink_refused(path));
    }
    write_atomic(path, text.as_bytes(), Durability::Fsync)
}

/// Replaces the user's file atomically (0600, folders 0700, fsync). A symlinked file is
/// written through to its target, so dotfile managers keep working.
fn write_private(path: &Path, text: &str) -> io::Result<()> {
    let path = match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => fs::canonicalize(path)?,
        _ => path.to_path_buf(),
    };
    write_atomic(&path, text.as_bytes(), Durability::Fsync)
}

#[cfg(test)]
mod tests;
