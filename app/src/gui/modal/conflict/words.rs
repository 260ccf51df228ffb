//! What the dialog says: the question, what each answer will do, the kinds and rules in
//! words. Derived at view time from the conflict; no errno, no Rust names.

use std::borrow::Cow;
use std::ffi::OsStr;
use std::path::{Component, Path};

use ferry_core::entry::Kind;
use ferry_core::jobs::{Conflict, ConflictKind, EntryInfo, NameProblem, Resolution};

use super::Act;
use super::rows::Rule;
use crate::gui::{fit, format};

/// A name as people read it.
pub fn name(name: &OsStr) -> Cow<'_, str> {
    format::shown_name(name)
}

/// The name of the folder `path` is in: "Trash" for an item in a trash (a restore's, whose
/// folder there is the trash's own `files`).
pub fn folder_of(path: &Path) -> Cow<'_, str> {
    if ferry_core::jobs::is_trashed_item(path) {
        return Cow::Borrowed("Trash");
    }
    path.parent()
        .map_or(Cow::Borrowed("/"), format::display_name)
}

/// The folders `a` and `b` are in, told apart: their names ("Documents"), or where those are
/// the same, as many folders up as it takes ("A/dirX" and "B/dirX": both sides of a conflict
/// inside a merge said "in “dirX”").
pub fn folders_apart(a: &Path, b: &Path) -> (String, String) {
    let names = |p: &Path| -> Vec<String> {
        let parent = p.parent().unwrap_or(Path::new("/"));
        (parent.components())
            .filter_map(|c| match c {
                Component::Normal(name) => Some(format::shown_name(name).into_owned()),
                _ => None,
            })
            .collect()
    };
    let (na, nb) = (names(a), names(b));
    let tail = |n: &[String], k: usize| match n.len().checked_sub(k) {
        Some(from) if from > 0 => n[from..].join("/"),
        _ => format!("/{}", n.join("/")),
    };
    let last = |n: &[String], k: usize| n.len().checked_sub(k).map(|from| n[from..].to_vec());
    let most = na.len().max(nb.len());
    let k = (1..=most)
        .find(|&k| last(&na, k) != last(&nb, k))
        .unwrap_or(most);
    (tail(&na, k), tail(&nb, k))
}

/// "file", "folder", "link"...
pub fn noun(kind: Kind) -> &'static str {
    kind.noun()
}

/// What an item is, for a side of a conflict: its size (files), "Folder", "Link to …" (its
/// target fitted into `max_px` at 12 px) or its kind.
pub fn what(info: &EntryInfo, max_px: f32) -> String {
    match (info.kind, &info.link_target) {
        (Kind::Dir, _) => "Folder".to_owned(),
        (Kind::File, _) => format::size(info.size),
        (Kind::Symlink, Some(target)) => {
            let target = format::shown_name(target.as_os_str());
            format!("Link to {}", fit::middle(target, max_px - 45.0, 12.0))
        }
        (kind, _) => {
            let mut noun = noun(kind).to_owned();
            noun[..1].make_ascii_uppercase();
            noun
        }
    }
}

/// A filter chip's label.
pub fn kind_filter(kind: ConflictKind) -> &'static str {
    match kind {
        ConflictKind::FileExists => "Files",
        ConflictKind::FolderExists => "Folders",
        ConflictKind::FileVsFolder => "File or folder",
        ConflictKind::DuplicateSource => "Same name twice",
        ConflictKind::NameNotAllowed => "Name not allowed",
    }
}

/// The table's kind column.
pub fn kind_short(kind: ConflictKind) -> &'static str {
    match kind {
        ConflictKind::FileExists => "File",
        ConflictKind::FolderExists => "Folder",
        ConflictKind::FileVsFolder => "File/folder",
        ConflictKind::DuplicateSource => "Twice",
        ConflictKind::NameNotAllowed => "Bad name",
    }
}

/// The checkbox that answers every conflict of the kind: it names how many wait.
pub fn apply_to_all(others: usize) -> String {
    match others {
        0 => "Apply to later conflicts of this kind too".to_owned(),
        1 => "Apply to the 1 remaining conflict of this kind (and later ones)".to_owned(),
        n => format!(
            "Apply to all {} remaining conflicts of this kind (and later ones)",
            format::count(n)
        ),
    }
}

/// The question, in words, its names fitted to the dialog as drawn (at 18 px): a name of 255
/// bytes ran past the dialog and pushed its buttons below the window, and one of wide
/// letters without a break did so even cut to 60 characters.
pub fn question(c: &Conflict, folder: &str) -> String {
    let name = fit::middle(name(&c.source.name), 300.0, 18.0);
    let folder = fit::middle(folder.into(), 160.0, 18.0);
    match c.kind {
        ConflictKind::FileExists => format!("Replace “{name}” in “{folder}”?"),
        ConflictKind::FolderExists => {
            format!("Merge the folder “{name}” with the one in “{folder}”?")
        }
        ConflictKind::FileVsFolder => format!(
            "Replace the {} “{name}” in “{folder}” with a {}?",
            noun(c.dest.kind),
            noun(c.source.kind)
        ),
        ConflictKind::DuplicateSource => format!("Two items named “{name}” go to “{folder}”"),
        ConflictKind::NameNotAllowed => format!("“{name}” cannot be written to “{folder}”"),
    }
}

/// The line under the question.
pub fn explanation(c: &Conflict, problem: Option<NameProblem>) -> String {
    match c.kind {
        ConflictKind::FileExists => {
            format!("A {} of this name is already there.", noun(c.dest.kind))
        }
        ConflictKind::FolderExists => "A folder of this name is already there.".to_owned(),
        ConflictKind::FileVsFolder => format!(
            "A {} of this name is already there, and a {} cannot be merged with it.",
            noun(c.dest.kind),
            noun(c.source.kind)
        ),
        ConflictKind::DuplicateSource => {
            "Only one of them can have that name there: which one, and what of the other?"
                .to_owned()
        }
        ConflictKind::NameNotAllowed => match problem {
            Some(p) => format!("{} Give it another name, or leave it out.", name_problem(p)),
            None => {
                "That disk cannot hold this name. Give it another name, or leave it out.".to_owned()
            }
        },
    }
}

/// Why a name is refused, as a sentence.
pub fn name_problem(problem: NameProblem) -> String {
    match problem {
        // Said of "..", "Type a name." did not tell what was wrong with it.
        NameProblem::Empty => "Type a name: not empty, “.” or “..”.".to_owned(),
        NameProblem::Slash => "A name cannot contain “/”.".to_owned(),
        NameProblem::TooLong { max } => {
            format!("That name is too long for this disk (at most {max} bytes).")
        }
        NameProblem::Character(c) => {
            format!(
                "Names on this disk cannot contain “{}”.",
                c.escape_default()
            )
        }
        NameProblem::TrailingDotOrSpace => {
            "Names on this disk cannot end with a dot or a space.".to_owned()
        }
    }
}

/// An answer's title, and its access letter.
pub fn act_title(act: Act, c: &Conflict) -> &'static str {
    match act {
        Act::Replace => "Replace",
        Act::ReplaceIfNewer => "Replace if newer",
        Act::Skip if c.kind == ConflictKind::DuplicateSource => "Skip the second",
        Act::Skip => "Skip",
        Act::KeepBoth => "Keep both",
        Act::Merge => "Merge",
        Act::Rename => "Rename",
    }
}

/// What an answer will do, in words. `kept` is the name Keep both will give; `undoing`: the
/// job is an undo, which is not undone in turn, so what it replaces goes to the trash.
pub fn act_detail(act: Act, c: &Conflict, kept: &str, undoing: bool) -> String {
    let kept = fit::middle(kept.into(), 380.0, 13.0);
    let incoming = noun(c.source.kind);
    let existing = noun(c.dest.kind);
    match (act, c.kind) {
        (Act::Replace, _) if undoing => format!(
            "Put the incoming {incoming} in place of the existing {existing}, which goes to \
             the trash."
        ),
        (Act::Replace, _) => format!(
            "Put the incoming {incoming} in place of the existing {existing}, which is kept \
             aside: Undo brings it back."
        ),
        (Act::ReplaceIfNewer, _) => {
            let now = match c.source.mtime.cmp(&c.dest.mtime) {
                std::cmp::Ordering::Greater => "it is, so it replaces the existing one",
                _ => "it is not, so it is skipped",
            };
            format!("Overwrite older: replace only when the incoming {incoming} is newer ({now}).")
        }
        (Act::Skip, ConflictKind::DuplicateSource) => {
            "Leave the second one out; the first one goes there.".to_owned()
        }
        (Act::Skip, ConflictKind::NameNotAllowed) => format!("Leave this {incoming} out."),
        (Act::Skip, _) => {
            format!("Leave the existing {existing} as it is; the incoming one is left out.")
        }
        (Act::KeepBoth, ConflictKind::DuplicateSource) => {
            format!("The second one goes there as “{kept}”.")
        }
        (Act::KeepBoth, _) => format!("The incoming {incoming} goes there as “{kept}”."),
        (Act::Merge, _) => "Put the incoming items into the existing folder, which keeps \
                            everything it holds; items of the same name are asked about."
            .to_owned(),
        (Act::Rename, _) => {
            format!("A free name is suggested for the incoming {incoming}; Enter gives it.")
        }
    }
}

/// The label of an answer in a table row.
pub fn answer(answer: &Resolution) -> &'static str {
    match answer {
        Resolution::Replace => "Replace",
        Resolution::ReplaceIfNewer => "If newer",
        Resolution::Skip => "Skip",
        Resolution::KeepBoth => "Keep both",
        Resolution::RenameTo(_) => "Rename",
        Resolution::Merge => "Merge",
        Resolution::Cancel => "Cancel",
    }
}

/// A rule button's label.
pub fn rule(rule: Rule) -> &'static str {
    match rule {
        Rule::NewerWins => "Newer wins",
        Rule::IdenticalSkip => "Identical: skip",
        Rule::KeepBothRest => "Keep both for the rest",
        Rule::ReplaceAll => "Replace all",
        Rule::SkipAll => "Skip all",
    }
}

/// What a rule does, for its tooltip.
pub fn rule_detail(rule: Rule) -> &'static str {
    match rule {
        Rule::NewerWins => {
            "Files: replace the older existing ones, skip the others. Folders: merge."
        }
        Rule::IdenticalSkip => "Skip the files that look identical.",
        Rule::KeepBothRest => "Keep both wherever a second name can be given.",
        // A file and a folder of one name are replaced too (kept aside: Undo brings the
        // old one back); the tip said folders were never replaced.
        Rule::ReplaceAll => {
            "Replace files, and a file and a folder of one name (the old one is kept aside). \
             Two folders of one name are merged."
        }
        Rule::SkipAll => "Skip every undecided row.",
    }
}

/// "37 of 2,000 decided".
pub fn summary(decided: usize, total: usize) -> String {
    format!(
        "{} of {} decided",
        format::count(decided),
        format::count(total)
    )
}

/// "3 items" for a folder's count, "10,000+ items" when counting stopped.
pub fn items(n: u64, capped: bool) -> String {
    let n = usize::try_from(n).unwrap_or(usize::MAX);
    if capped {
        format!("{}+ items", format::count(n))
    } else {
        format::counted(n, "item", "items")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_of_one_name_are_told_apart_by_those_above() {
        let apart = |a: &str, b: &str| folders_apart(Path::new(a), Path::new(b));
        assert_eq!(
            apart("/t/A/dirX/f", "/t/B/dirX/f"),
            ("A/dirX".into(), "B/dirX".into())
        );
        assert_eq!(apart("/m/a/f", "/m/b/f"), ("a".into(), "b".into()));
        assert_eq!(apart("/x/f", "/y/x/f"), ("/x".into(), "/y/x".into()));
    }

    /// A restore's incoming item is in the trash, not in a folder named "files".
    #[test]
    fn an_item_in_a_trash_is_said_to_be_in_the_trash() {
        for trashed in [
            "/home/u/.local/share/Trash/files/x.txt",
            "/media/usb/.Trash-1000/files/x.txt",
            "/media/usb/.Trash/1000/files/x.txt",
        ] {
            assert_eq!(folder_of(Path::new(trashed)), "Trash", "{trashed}");
        }
        assert_eq!(folder_of(Path::new("/home/u/files/x.txt")), "files");
    }

    #[test]
    fn a_name_that_is_no_name_is_said_so() {
        assert_eq!(
            name_problem(NameProblem::Empty),
            "Type a name: not empty, “.” or “..”."
        );
    }

    /// A 255-byte name: the question and Keep both's line ran past the dialog, and pushed
    /// its buttons below the window; one of wide letters did so even cut to 60 characters.
    #[test]
    fn long_names_are_fitted_to_the_dialog() {
        let long = format!("{}.txt", "W".repeat(251));
        let c = crate::gui::modal::conflict::tests::fixture::file(1, &long, 1, 2);
        let asked = question(&c, &"b".repeat(200));
        assert!(
            fit::width(&asked, 18.0) < 640.0 && asked.contains('…'),
            "{asked}"
        );
        let kept = format!("{} (copy).txt", "W".repeat(244));
        let said = act_detail(Act::KeepBoth, &c, &kept, false);
        assert!(
            fit::width(&said, 13.0) < 640.0 && said.contains('…'),
            "{said}"
        );
    }
}
