//! Questions on the terminal for `ferry cp|mv|restore|undo --on-conflict ask` and for failed
//! items: one line per question on stderr, one answer per line on stdin.

use std::collections::HashSet;
use std::ffi::OsString;
use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};

use ferry_core::Error;
use ferry_core::jobs::{Conflict, ConflictKind, ConflictPolicy, ErrorAction, Resolution, Scope};

use super::EXIT_REFUSED;
use super::jobs::OnConflict;

/// The engine's policy for a `--on-conflict` choice.
pub fn policy_of(choice: OnConflict) -> ConflictPolicy {
    match choice {
        OnConflict::Ask => ConflictPolicy::Ask,
        OnConflict::Skip => ConflictPolicy::Skip,
        OnConflict::Replace => ConflictPolicy::Replace,
        OnConflict::ReplaceIfNewer => ConflictPolicy::ReplaceIfNewer,
        OnConflict::KeepBoth => ConflictPolicy::KeepBoth,
        OnConflict::Merge => ConflictPolicy::Merge,
    }
}

/// Whether questions can be asked: stdin and stderr are both terminals.
pub fn can_ask() -> bool {
    std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
}

/// For `policy` [`Ask`](ConflictPolicy::Ask) without a terminal to ask on: when items would
/// go to places that are `taken` (item, place), lists them and returns the exit status of a
/// refusal, before anything is written. `None`: go on.
pub fn refuse_unanswerable(policy: ConflictPolicy, taken: &[(PathBuf, PathBuf)]) -> Option<i32> {
    if policy != ConflictPolicy::Ask || taken.is_empty() || can_ask() {
        return None;
    }
    eprintln!("ferry: conflicts (use --on-conflict); nothing written:");
    for (item, place) in taken {
        eprintln!(
            "ferry:   {} -> {} is taken",
            item.display(),
            place.display()
        );
    }
    Some(EXIT_REFUSED)
}

/// What was answered "for all" so far.
#[derive(Default)]
pub struct Prompt {
    answered_kinds: HashSet<ConflictKind>,
}

/// One line naming a conflict, for the prompt and for the list printed without a terminal.
pub fn describe(c: &Conflict) -> String {
    let what = match c.kind {
        ConflictKind::FileExists => "already exists",
        ConflictKind::FolderExists => "is an existing folder",
        ConflictKind::FileVsFolder if c.source.kind == ferry_core::entry::Kind::Dir => {
            "is a file, the source a folder"
        }
        ConflictKind::FileVsFolder => "is a folder, the source a file",
        ConflictKind::DuplicateSource => "has the same name as another source",
        ConflictKind::NameNotAllowed => "is not a valid name there",
    };
    let same = if c.likely_identical {
        " (likely identical)"
    } else {
        ""
    };
    format!(
        "{} -> {} {what}{same} ({} vs {} bytes)",
        c.source.path.display(),
        c.dest.path.display(),
        c.source.size,
        c.dest.size
    )
}

fn ask(question: &str) -> Option<String> {
    eprint!("{question} ");
    let _ = std::io::stderr().flush();
    let mut line = String::new();
    match std::io::stdin().lock().read_line(&mut line) {
        Ok(0) | Err(_) => None, // end of input: treated as cancel
        Ok(_) => Some(line.trim().to_owned()),
    }
}

impl Prompt {
    /// Asks about `c`; `None` when an earlier "all" answer already covers it.
    pub fn conflict(&mut self, c: &Conflict) -> Option<(Resolution, Scope)> {
        if self.answered_kinds.contains(&c.kind) {
            return None;
        }
        eprintln!("ferry: {}", describe(c));
        let folders = c.kind == ConflictKind::FolderExists;
        let menu = if folders {
            "[m]erge, [M]erge all, [r]eplace, [R]eplace all, [s]kip, [S]kip all, [k]eep both, [K]eep both all, re[n]ame, [c]ancel?"
        } else {
            "[r]eplace, [R]eplace all, [s]kip, [S]kip all, [k]eep both, [K]eep both all, re[n]ame, [c]ancel?"
        };
        loop {
            let Some(answer) = ask(menu) else {
                return Some((Resolution::Cancel, Scope::This));
            };
            let (resolution, all) = match answer.as_str() {
                "r" => (Resolution::Replace, false),
                "R" => (Resolution::Replace, true),
                "s" => (Resolution::Skip, false),
                "S" => (Resolution::Skip, true),
                "k" => (Resolution::KeepBoth, false),
                "K" => (Resolution::KeepBoth, true),
                "m" if folders => (Resolution::Merge, false),
                "M" if folders => (Resolution::Merge, true),
                "c" => (Resolution::Cancel, false),
                "n" => match ask("new name:") {
                    Some(name) if !name.is_empty() => {
                        (Resolution::RenameTo(OsString::from(name)), false)
                    }
                    _ => continue,
                },
                _ => continue,
            };
            if !resolution.applies_to(c.kind) {
                eprintln!("ferry: not possible here");
                continue;
            }
            if all {
                self.answered_kinds.insert(c.kind);
            }
            let scope = if all { Scope::AllOfKind } else { Scope::This };
            return Some((resolution, scope));
        }
    }

    /// Asks what to do about an item that failed.
    pub fn error(&mut self, path: &Path, error: &Error) -> ErrorAction {
        eprintln!("ferry: {}: {error}", path.display());
        loop {
            let Some(answer) = ask("[r]etry, [s]kip, [S]kip all like this, [c]ancel?") else {
                return ErrorAction::Cancel;
            };
            return match answer.as_str() {
                "r" => ErrorAction::Retry,
                "s" => ErrorAction::Skip,
                "S" => ErrorAction::SkipAllOfKind,
                "c" => ErrorAction::Cancel,
                _ => continue,
            };
        }
    }
}
