//! Names and counts as the window says them: “quoted”, shortened when long, and "3 folders
//! and 12 files".

use std::path::Path;

use crate::gui::format;

/// "3 folders and 12 files", "1 file", "2 folders": what a selection holds.
pub fn folders_and_files(folders: usize, files: usize) -> String {
    let folders_part = format::counted(folders, "folder", "folders");
    let files_part = format::counted(files, "file", "files");
    match (folders, files) {
        (0, _) => files_part,
        (_, 0) => folders_part,
        _ => format!("{folders_part} and {files_part}"),
    }
}

/// “name”.
pub(crate) fn quoted(path: &Path) -> String {
    // A name of 255 bytes would push a toast's buttons, or the status bar's, off the window.
    let name = format::ellipsize_middle(format::display_name(path), QUOTED_CHARS);
    format!("“{name}”")
}

/// The most characters of a name [`quoted`] shows.
pub(super) const QUOTED_CHARS: usize = 60;

/// “/the/whole/path”.
pub(super) fn quoted_full(path: &Path) -> String {
    format!("“{}”", format::shown_name(path.as_os_str()))
}

/// “name of the folder holding path”.
pub(super) fn parent_quoted(path: &Path) -> String {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => quoted(parent),
        _ => quoted(path),
    }
}

/// An info file's item name: “a.txt” for `…/info/a.txt.trashinfo`.
pub(super) fn quoted_stem(info: &Path) -> String {
    let name = format::display_name(info);
    format!("“{}”", name.strip_suffix(".trashinfo").unwrap_or(&name))
}

pub(super) fn upper_first(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The first letter in lower case, unless the word is a quoted name or an acronym.
pub(super) fn lowercase_first(text: &str) -> String {
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(first), Some(second)) if first.is_uppercase() && !second.is_uppercase() => {
            first.to_lowercase().chain(text.chars().skip(1)).collect()
        }
        _ => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    /// A name of 255 bytes is shortened in the middle, its extension kept, so that a toast's
    /// buttons stay on the window.
    #[test]
    fn long_names_are_quoted_shortened() {
        let name = format!("{}.txt", "L".repeat(251));
        let shown = quoted(Path::new(&name));
        assert!(shown.chars().count() <= QUOTED_CHARS + 2, "{shown}");
        assert!(shown.ends_with(".txt”") && shown.contains('…'), "{shown}");
        assert_eq!(quoted(Path::new("/a/b.txt")), "“b.txt”");
    }

    #[test]
    fn selections_are_counted_in_folders_and_files() {
        assert_eq!(folders_and_files(3, 12), "3 folders and 12 files");
        assert_eq!(folders_and_files(0, 1), "1 file");
        assert_eq!(folders_and_files(2, 0), "2 folders");
    }
}
