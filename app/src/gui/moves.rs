//! Every move the window starts for the user (a paste of a cut, a drop that moves, Move to…
//! and Shift+F6), and every move to the trash (Delete, a drop on the Trash), is checked
//! first, off the UI thread, as `ferry mv` checks it ([`move_cautions`]): moving the home
//! folder, a folder holding it or a trash folder is asked about, with Cancel first; Ferry's
//! state folder, or a folder holding it, is never moved (see `ferry_core::jobs::caution`):
//! the dialog says so and offers to move the other items. Moves with nothing to ask about (a
//! file is never asked about) are submitted as soon as the check returns.
//!
//! The question carries the move exactly as it will be submitted ([`Move`]), so confirming
//! submits that and nothing else.

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;
use std::sync::Arc;

use ferry_core::entry::Listing;

use ferry_core::jobs::{Caution, ConflictPolicy, Job, TrashRoots, in_trash, move_cautions};
use iced::Task;

use super::dialogs::Ask;
use super::jobs::{FollowUp, in_words};
use super::modal::confirm::Confirm;
use super::words::quoted;
use super::{Ferry, Message, bridge, format};

/// A move the window will submit: the job's fields, and how the window follows it.
#[derive(Debug, Clone, PartialEq)]
pub struct Move {
    /// What moves.
    pub sources: Vec<PathBuf>,
    /// Where to.
    pub dest_dir: PathBuf,
    /// What to do with names taken there.
    pub on_conflict: ConflictPolicy,
    /// What the window does at its end.
    pub follow_up: FollowUp,
    /// A paste of a cut, which took it from the clipboard: declining the move puts it back.
    pub from_cut: bool,
    /// A move to the trash, into these trash folders (`dest_dir` is then unused).
    pub to_trash: Option<TrashRoots>,
    /// The listings the sources were seen in, when they come from the panes.
    pub seen_in: SeenIn,
}

/// The listings of the panes a move's sources were chosen in: a source that is not the item
/// listed there any more (another program moved the folder away and made another of its name)
/// is left alone, as Delete trashed a file the user had never seen.
#[derive(Debug, Clone, Default)]
pub struct SeenIn(pub Vec<Arc<Listing>>);

impl PartialEq for SeenIn {
    fn eq(&self, other: &Self) -> bool {
        self.0.len() == other.0.len() && self.0.iter().zip(&other.0).all(|(a, b)| Arc::ptr_eq(a, b))
    }
}

impl SeenIn {
    /// The inode each of `paths` was listed with, where a listing holds it: read in memory,
    /// one pass over each listing that holds any (off the UI thread: 200,000 entries).
    pub(super) fn listed(&self, paths: &[PathBuf]) -> Vec<Option<u64>> {
        let mut listed = vec![None; paths.len()];
        for listing in &self.0 {
            let here: Vec<usize> = (0..paths.len())
                .filter(|&i| listed[i].is_none() && paths[i].parent() == Some(listing.dir()))
                .collect();
            if here.is_empty() {
                continue;
            }
            let inodes: HashMap<&[u8], u64> =
                listing.iter().map(|e| (e.name_bytes(), e.ino())).collect();
            for i in here {
                let name = paths[i].file_name().unwrap_or_default();
                listed[i] = inodes.get(name.as_encoded_bytes()).copied();
            }
        }
        listed
    }

    /// Splits `sources` into those that are still the item listed under their name, and those
    /// that are another now (another inode); one gone is kept, for the job to say so.
    fn split_changed(&self, sources: Vec<PathBuf>) -> (Vec<PathBuf>, Vec<PathBuf>) {
        let listed = self.listed(&sources);
        let (mut same, mut changed) = (Vec::with_capacity(sources.len()), Vec::new());
        for (source, listed) in sources.into_iter().zip(listed) {
            let now = std::fs::symlink_metadata(&source).map(|m| m.ino());
            match (listed, now) {
                (Some(listed), Ok(now)) if listed != now => changed.push(source),
                _ => same.push(source),
            }
        }
        (same, changed)
    }
}

impl Move {
    fn job(&self) -> Job {
        match &self.to_trash {
            Some(roots) => Job::Trash {
                paths: self.sources.clone(),
                roots: roots.clone(),
            },
            None => Job::Move {
                sources: self.sources.clone(),
                dest_dir: self.dest_dir.clone(),
                dest_name: None,
                on_conflict: self.on_conflict,
            },
        }
    }

    /// Where it goes, in words: "“Music”", "the trash".
    fn destination(&self) -> String {
        match self.to_trash {
            Some(_) => "the trash".to_owned(),
            None => format::display_name(&self.dest_dir).into_owned(),
        }
    }
}

/// What the check of a move's sources found.
pub type Cautions = Vec<(PathBuf, Caution)>;

impl Ferry {
    /// Moves `sources` into `dest_dir` (name conflicts asked about), once checked.
    pub(super) fn start_move(
        &self,
        sources: Vec<PathBuf>,
        dest_dir: PathBuf,
        follow_up: FollowUp,
        from_cut: bool,
    ) -> Task<Message> {
        let checked = Move {
            sources,
            dest_dir,
            on_conflict: ConflictPolicy::Ask,
            follow_up,
            from_cut,
            to_trash: None,
            seen_in: SeenIn::default(),
        };
        self.check_move(checked)
    }

    /// Moves `paths` to the trash, once checked.
    pub(super) fn start_trash(&mut self, paths: Vec<PathBuf>) -> Task<Message> {
        let roots = match self.jobs.stores().trash() {
            Ok(roots) => roots,
            Err(e) => {
                self.toast(format!("There is no trash to move them to: {e}"));
                return Task::none();
            }
        };
        self.check_move(Move {
            sources: paths,
            dest_dir: PathBuf::new(),
            on_conflict: ConflictPolicy::Ask,
            follow_up: FollowUp::Toast,
            from_cut: false,
            to_trash: Some(roots),
            seen_in: self.seen_in(),
        })
    }

    /// The listings the panes of the tab shown hold, which the user chooses items in.
    pub(super) fn seen_in(&self) -> SeenIn {
        SeenIn(
            self.tabs
                .panes()
                .filter_map(|p| p.shown_listing())
                .collect(),
        )
    }

    /// Submits `checked` once its sources are checked, or asks about them.
    fn check_move(&self, checked: Move) -> Task<Message> {
        let (stores, home) = (self.jobs.stores().clone(), self.services.home.clone());
        // The move travels with the check, uncloned: a cut may hold 100,000 paths.
        bridge::blocking(move || {
            let mut checked = checked;
            let (same, changed) = checked.seen_in.split_changed(checked.sources);
            checked.sources = same;
            let own = stores.own_folders(home);
            let mut cautions = move_cautions(&checked.sources, &own);
            if checked.to_trash.is_some() {
                cautions.extend(in_trash(&checked.sources, &own));
            }
            Message::MoveChecked(checked, cautions, changed)
        })
    }

    /// The sources of a move were checked: it is submitted, or asked about.
    pub(super) fn move_checked(
        &mut self,
        checked: Move,
        cautions: Cautions,
        changed: &[PathBuf],
    ) -> Task<Message> {
        if !changed.is_empty() {
            let (what, are) = match changed {
                [one] => (quoted(one), "is"),
                many => (format::counted(many.len(), "item", "items"), "are"),
            };
            self.toast(format!(
                "{what} {are} not what was shown there any more (another program put it there): \
                 left alone."
            ));
            if checked.sources.is_empty() {
                return Task::none();
            }
        }
        if cautions.is_empty() {
            return self.submit_move(&checked);
        }
        // A trash, or a folder holding one, cannot go into the trash (the job refuses it):
        // refused here, not asked about and then refused.
        let to_trash = checked.to_trash.is_some();
        let (asked, refused): (Cautions, Cautions) = (cautions.into_iter())
            .partition(|(_, c)| c.can_be_forced() && !(to_trash && *c == Caution::Trash));
        let rest = Move {
            sources: (checked.sources.iter())
                .filter(|s| refused.iter().all(|(r, _)| r != *s))
                .cloned()
                .collect(),
            ..checked
        };
        self.ask(move_question(rest, &refused, &asked));
        Task::none()
    }

    /// Submits `checked` as it is.
    pub(super) fn submit_move(&self, checked: &Move) -> Task<Message> {
        self.start_job(checked.job(), checked.follow_up.clone())
    }

    /// The question about `declined` was answered Cancel: a cut it took from the clipboard
    /// goes back (what could move of it), so that the user can paste it elsewhere.
    pub(super) fn move_declined(&mut self, declined: Move) -> Task<Message> {
        if declined.from_cut && !declined.sources.is_empty() {
            self.restore_cut(declined.sources);
        }
        Task::none()
    }
}

/// The question about `rest` (what would move), after `refused` (Ferry's state folder, or
/// folders holding it; going to the trash, a trash, what holds one or what is in one), with
/// why each of `asked` deserves it. With nothing left to move, a notice.
fn move_question(rest: Move, refused: &Cautions, asked: &Cautions) -> Confirm<Ask> {
    let refused_paths: Vec<PathBuf> = refused.iter().map(|(p, _)| p.clone()).collect();
    let of = |kind: Caution| -> Vec<PathBuf> {
        (refused.iter())
            .filter(|(_, c)| *c == kind)
            .map(|(p, _)| p.clone())
            .collect()
    };
    let moving = in_words(&rest.job());
    let mut message = Vec::new();
    let title = match (
        refused_paths.as_slice(),
        rest.sources.as_slice(),
        asked.as_slice(),
    ) {
        ([], [one], [(_, Caution::HomeFolder)]) => format!(
            "Move your home folder, {}, to {}?",
            quoted(one),
            rest.destination()
        ),
        ([], _, _) => format!("{moving}?"),
        (refused, rest_sources, _) => {
            let what = match refused {
                [one] => quoted(one),
                many => format::counted(many.len(), "item", "items"),
            };
            // Each kind said once, with what follows from it.
            let why = [
                (
                    Caution::FerryState,
                    " Ferry never moves it; a shell's mv can, with Ferry closed.",
                ),
                (Caution::Trash, " A trash cannot go into the trash."),
                (Caution::InTrash, ""),
            ];
            for (kind, then) in why {
                let these = of(kind);
                if !these.is_empty() {
                    message.push(format!("{}: {kind}.{then}", names(&these)));
                }
            }
            if rest_sources.is_empty() {
                let title = match rest.to_trash {
                    Some(_) => format!("{what} can't be moved to the trash"),
                    None => format!("{what} can't be moved"),
                };
                let refused = Ask::MoveRefused(refused.to_vec());
                return Confirm::notice(refused, title, message.join("\n"), "OK");
            }
            format!("{what} can't be moved. {moving}?")
        }
    };
    message.extend(asked.iter().take(3).map(|(path, why)| {
        let then = match why {
            Caution::HomeFolder | Caution::HoldsHomeFolder => {
                " Programs that keep their settings and files in it will no longer find them."
            }
            _ => "",
        };
        format!("{}: {why}.{then}", quoted(path))
    }));
    if asked.len() > 3 {
        let more = format::count(asked.len() - 3);
        message.push(format!("And {more} more like them."));
    }
    // With items refused, the button says how many still move.
    let to = if rest.to_trash.is_some() {
        " to Trash"
    } else {
        ""
    };
    let label = match rest.sources.len() {
        _ if refused.is_empty() => format!("Move{to}"),
        n => format!("Move {}{to}", format::counted(n, "Item", "Items")),
    };
    let question = Confirm::new(Ask::Move(rest), title, message.join("\n"), label);
    if asked.is_empty() {
        question.cancel_by_default()
    } else {
        question.danger().cancel_by_default()
    }
}

/// "“a”", "“a” and “b”", "“a”, “b” and 3 more".
fn names(paths: &[PathBuf]) -> String {
    let quoted: Vec<String> = paths.iter().take(2).map(|p| quoted(p)).collect();
    match paths.len() {
        0..=2 => quoted.join(" and "),
        n => format!("{} and {} more", quoted.join(", "), format::count(n - 2)),
    }
}
