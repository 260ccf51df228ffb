//! Questions on the terminal for `ferry cp|mv|restore|undo --on-conflict ask` and for failed
//! items: one line per question on stderr, one answer per line on stdin.

use std::collections::HashSet;
use std::ffi::OsString;
use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use ferry_core::Error;
use ferry_core::entry::Kind;
use ferry_core::jobs::{Conflict, ConflictKind, ConflictPolicy, ErrorAction, Resolution, Scope};
use ferry_core::shown::Shown;

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

/// For `policy` [`Ask`](ConflictPolicy::Ask) without a `terminal` to ask on: when items
/// would go to places that are `taken` (item, place), lists them and returns the exit status
/// of a refusal, before anything is written. `None`: go on.
pub fn refuse_unanswerable(
    policy: ConflictPolicy,
    taken: &[(PathBuf, PathBuf)],
    terminal: bool,
) -> Option<i32> {
    if policy != ConflictPolicy::Ask || taken.is_empty() || terminal {
        return None;
    }
    eprintln!("ferry: conflicts (use --on-conflict); nothing written:");
    for (item, place) in taken {
        eprintln!("ferry:   {} -> {} is taken", Shown(item), Shown(place));
    }
    Some(EXIT_REFUSED)
}

/// The questions of one job: what was answered "for all" so far, and, without a terminal,
/// what could not be asked.
pub struct Prompt {
    answered_kinds: HashSet<ConflictKind>,
    /// Questions can be asked ([`can_ask`]); without a terminal nothing is printed as a
    /// question and stdin is never read: a prompt would go to a log or a pipe, and an answer
    /// would come from data that was never meant as one.
    terminal: bool,
    /// Where answers are read, one a line: stdin.
    answers: Box<dyn BufRead>,
    /// Conflicts met after writing began without a terminal to ask on, skipped ([`describe`]).
    unasked: Vec<String>,
    /// Set when the job is cancelled (a Ctrl-C): a question waiting on stdin gives up.
    given_up: Option<Arc<AtomicBool>>,
}

/// One line naming a conflict, for the prompt and for the list printed without a terminal.
pub fn describe(c: &Conflict) -> String {
    let what = match c.kind {
        ConflictKind::FileExists => "already exists",
        ConflictKind::FolderExists => "is an existing folder",
        ConflictKind::FileVsFolder if c.source.kind == Kind::Dir => {
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
    // A folder's own size is no measure of what it holds: only files' sizes are said.
    let sizes = match (c.source.kind, c.dest.kind) {
        (Kind::File, Kind::File) => format!(" ({} vs {} bytes)", c.source.size, c.dest.size),
        // Where each points is what tells two links apart.
        _ => match (&c.source.link_target, &c.dest.link_target) {
            (Some(a), Some(b)) => format!(" (link to {} vs link to {})", Shown(a), Shown(b)),
            _ => String::new(),
        },
    };
    format!(
        "{} -> {} {what}{same}{sizes}",
        Shown(&c.source.path),
        Shown(&c.dest.path),
    )
}

impl Prompt {
    /// Questions for a job, asked on the terminal if there is one ([`can_ask`]).
    pub fn on_terminal() -> Self {
        Self::new(can_ask(), Box::new(std::io::stdin().lock()))
    }

    /// Questions asked if `terminal`, answered from `answers`.
    pub fn new(terminal: bool, answers: Box<dyn BufRead>) -> Self {
        Prompt {
            answered_kinds: HashSet::new(),
            terminal,
            answers,
            unasked: Vec::new(),
            given_up: None,
        }
    }

    /// Makes a question waiting for its answer on stdin give up (answered Cancel) once
    /// `cancelled` is set.
    pub fn give_up_when(&mut self, cancelled: Arc<AtomicBool>) {
        self.given_up = Some(cancelled);
    }

    /// Waits until stdin has an answer to read (true), or the job was cancelled. The signal
    /// handlers restart an interrupted `read`, so a Ctrl-C at a question would otherwise
    /// wait for an answer that never comes, and the job would never end.
    fn answer_ready(&self) -> bool {
        use rustix::event::{PollFd, PollFlags, Timespec, poll};
        let Some(cancelled) = &self.given_up else {
            return true;
        };
        let stdin = std::io::stdin();
        // `poll` is never restarted (EINTR); the timeout covers a signal that came just
        // before it.
        let wake = Timespec {
            tv_sec: 0,
            tv_nsec: 100_000_000,
        };
        while !cancelled.load(Ordering::Relaxed) {
            let mut fds = [PollFd::new(&stdin, PollFlags::IN)];
            match poll(&mut fds, Some(&wake)) {
                Ok(0) | Err(rustix::io::Errno::INTR) => {}
                _ => return true,
            }
        }
        false
    }

    /// Whether questions are asked, rather than answered Skip.
    pub fn terminal(&self) -> bool {
        self.terminal
    }

    fn ask(&mut self, question: &str) -> Option<String> {
        eprint!("{question} ");
        let _ = std::io::stderr().flush();
        if !self.answer_ready() {
            eprintln!();
            return None;
        }
        let mut line = String::new();
        match self.answers.read_line(&mut line) {
            Ok(0) | Err(_) => None, // end of input: treated as cancel
            Ok(_) => Some(line.trim().to_owned()),
        }
    }

    /// Asks about `c`; `None` when an earlier "all" answer already covers it. Without a
    /// terminal, answers Skip: never replace what nobody was asked about (said afterwards by
    /// [`unasked`](Self::unasked)).
    pub fn conflict(&mut self, c: &Conflict) -> Option<(Resolution, Scope)> {
        if !self.terminal {
            self.unasked.push(describe(c));
            return Some((Resolution::Skip, Scope::This));
        }
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
            let Some(answer) = self.ask(menu) else {
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
                "n" => match self.ask("new name:") {
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

    /// Asks what to do about an item that failed; without a terminal, Skip (the item is
    /// reported as skipped after its error).
    pub fn error(&mut self, path: &Path, error: &Error) -> ErrorAction {
        if !self.terminal {
            return ErrorAction::Skip;
        }
        eprintln!("ferry: {}: {error}", Shown(path));
        loop {
            let Some(answer) = self.ask("[r]etry, [s]kip, [S]kip all like this, [c]ancel?") else {
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

    /// The conflicts skipped because there was no terminal to ask on, as [`describe`] says
    /// them.
    pub fn unasked(&self) -> &[String] {
        &self.unasked
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sizes are said for two files only: a folder's own size (4096 on ext4) says nothing of
    /// what it holds ("(4096 vs 4096 bytes)" for two folders).
    #[test]
    fn a_conflict_says_sizes_of_files_only() {
        use ferry_core::jobs::{ConflictId, EntryInfo};
        let side = |path: &str, kind, size| {
            EntryInfo::new(PathBuf::from(path), size, Default::default(), kind)
        };
        let conflict = |kind, source, dest| Conflict {
            id: ConflictId(1),
            kind,
            source,
            dest,
            likely_identical: false,
        };
        let files = conflict(
            ConflictKind::FileExists,
            side("/s/a", Kind::File, 3),
            side("/d/a", Kind::File, 5),
        );
        assert_eq!(
            describe(&files),
            "/s/a -> /d/a already exists (3 vs 5 bytes)"
        );
        let folders = conflict(
            ConflictKind::FolderExists,
            side("/s/f", Kind::Dir, 4096),
            side("/d/f", Kind::Dir, 4096),
        );
        assert_eq!(describe(&folders), "/s/f -> /d/f is an existing folder");
        let mut links = conflict(
            ConflictKind::FileExists,
            side("/s/l", Kind::Symlink, 9),
            side("/d/l", Kind::Symlink, 11),
        );
        links.source.link_target = Some("song.mp3".into());
        links.dest.link_target = Some("/srv/old.mp3".into());
        assert_eq!(
            describe(&links),
            "/s/l -> /d/l already exists (link to song.mp3 vs link to /srv/old.mp3)"
        );
    }

    /// An item that failed while nobody can be asked is skipped (the exit status then says
    /// so), even when stdin holds an answer: it is never read.
    #[test]
    fn without_a_terminal_an_error_is_skipped_and_stdin_left_unread() {
        let mut prompt = Prompt::new(false, Box::new(&b"r\n"[..]));
        let error = Error::io("open", "/a", std::io::ErrorKind::PermissionDenied);
        assert_eq!(prompt.error(Path::new("/a"), &error), ErrorAction::Skip);
    }
}
