//! What the one-conflict dialog needs from the disk, found on a worker thread through the
//! [`bridge`](crate::gui::bridge) and delivered as messages: the destination's name rules,
//! the name Keep both will give, a free name for Rename (a valid one where the name is not
//! allowed), the folders' item counts ([`Probe`]); and whether a typed name is free
//! ([`Checked`]), asked as it is typed and again when Rename is chosen.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ferry_core::Error;
use ferry_core::entry::Kind;
use ferry_core::jobs::{
    Conflict, ConflictId, ConflictKind, EntryInfo, NameCheck, NameRules, Resolution, Scope,
    check_name, free_name, keep_both_name,
};
use iced::Task;

use super::single::NameState;
use super::{ConflictDialog, Event, Message, words};
use crate::gui::bridge;
use crate::gui::format;

/// Counting a folder's items stops here ("100,000+ items").
const COUNT_CAP: usize = 100_000;

/// A folder's item count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Items {
    /// How many (at most the cap).
    pub n: u64,
    /// Counting stopped at the cap.
    pub capped: bool,
}

/// What the worker thread found for the conflict shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    /// The destination's name rules.
    pub rules: NameRules,
    /// The name Keep both will give.
    pub kept: OsString,
    /// The name Rename starts with: free there, and allowed.
    pub suggestion: OsString,
    /// Items in the incoming folder.
    pub incoming: Option<Items>,
    /// Items in the existing folder.
    pub existing: Option<Items>,
}

/// A probe's result, for [`Message::Probed`].
#[derive(Debug, Clone)]
pub struct Probed {
    pub(super) id: ConflictId,
    pub(super) result: Result<Arc<Probe>, Arc<Error>>,
}

/// A name check's result, for [`Message::NameChecked`].
#[derive(Debug, Clone)]
pub struct Checked {
    pub(super) id: ConflictId,
    pub(super) name: OsString,
    pub(super) submit: bool,
    pub(super) result: Result<NameCheck, Arc<Error>>,
}

/// The task that probes `folder`, where the item of `c` goes.
pub fn probe_task(c: &Conflict, folder: PathBuf) -> Task<Message> {
    // The name the incoming item would have there, as the engine's Keep both takes it.
    let (id, kind, name) = (c.id, c.kind, c.source.name.clone());
    let sides = (dir_path(&c.source), dir_path(&c.dest));
    bridge::blocking(move || probe(&folder, &name, kind, sides))
        .map(move |result| Message::Probed(Probed { id, result }))
}

/// Until the folder is asked: a name the disk refused is refused on FAT-like rules (the
/// usual reason), the others on Unix ones.
pub fn guessed_rules(kind: ConflictKind) -> NameRules {
    NameRules {
        windows_names: kind == ConflictKind::NameNotAllowed,
        ..NameRules::UNIX
    }
}

fn dir_path(info: &EntryInfo) -> Option<PathBuf> {
    (info.kind == Kind::Dir).then(|| info.path.clone())
}

/// On a worker thread: the folder's rules, the names to offer, the folders' item counts.
fn probe(
    folder: &Path,
    name: &OsStr,
    kind: ConflictKind,
    (incoming, existing): (Option<PathBuf>, Option<PathBuf>),
) -> Result<Arc<Probe>, Arc<Error>> {
    let rules = NameRules::of(folder)?;
    let exists = |n: &OsStr| std::fs::symlink_metadata(folder.join(n)).is_ok();
    // As the engine names it: the name itself counts as taken (the existing item, or the
    // first of two sources has it).
    let is_folder = incoming.is_some();
    let kept = keep_both_name(name, is_folder, rules.name_max, |n| n == name || exists(n));
    let suggestion = match kind {
        ConflictKind::NameNotAllowed => free_name(folder, &rules, name, is_folder)?,
        _ => kept.clone(),
    };
    let count = |dir: Option<PathBuf>| {
        let n = std::fs::read_dir(dir?).ok()?.take(COUNT_CAP + 1).count();
        Some(Items {
            n: n.min(COUNT_CAP) as u64,
            capped: n > COUNT_CAP,
        })
    };
    Ok(Arc::new(Probe {
        rules,
        kept,
        suggestion,
        incoming: count(incoming),
        existing: count(existing),
    }))
}

impl ConflictDialog {
    /// The Rename field changed: refused at once if the rules say so, else checked on the
    /// disk.
    pub(super) fn edit_name(&mut self, name: String) -> Task<Message> {
        let Some(single) = &mut self.single else {
            return Task::none();
        };
        single.draft = name;
        single.edited = true;
        self.check_name(false).0
    }

    /// Rename: the name is checked first, and sent once the check says it is free.
    pub(super) fn submit_name(&mut self) -> (Task<Message>, Option<Event>) {
        self.check_name(true)
    }

    fn check_name(&mut self, submit: bool) -> (Task<Message>, Option<Event>) {
        let Some(single) = &mut self.single else {
            return (Task::none(), None);
        };
        let name = match single.draft_name.name_for(&single.draft) {
            Ok(name) => OsString::from_vec(name),
            Err(why) => {
                single.name = NameState::Refused(why.to_owned());
                return (Task::none(), None);
            }
        };
        let rules = single.rules().unwrap_or(guessed_rules(single.kind));
        if let Some(problem) = rules.problem(&name) {
            single.name = NameState::Refused(words::name_problem(problem));
            return (Task::none(), None);
        }
        let Some(folder) = single.folder.clone() else {
            // Nowhere to look: the engine refuses a taken name when it writes (and asks).
            single.name = NameState::Free;
            return match submit {
                true => self.send_rename(name),
                false => (Task::none(), None),
            };
        };
        if self.claimed.contains(&folder.join(&name)) {
            single.name = NameState::Refused("Another item of this job gets that name.".into());
            return (Task::none(), None);
        }
        single.name = NameState::Checking;
        let (id, rules) = (single.id, single.rules());
        let checked = name.clone();
        let task = bridge::blocking(move || {
            let rules = match rules {
                Some(rules) => rules,
                None => NameRules::of(&folder)?,
            };
            check_name(&folder, &rules, &checked)
        })
        .map(move |result: Result<NameCheck, Error>| {
            Message::NameChecked(Checked {
                id,
                name: name.clone(),
                submit,
                result: result.map_err(Arc::new),
            })
        });
        (task, None)
    }

    /// A name check answered: refused inline, or sent if Rename was asked for.
    pub(super) fn name_checked(&mut self, checked: Checked) -> (Task<Message>, Option<Event>) {
        let Some(single) = &mut self.single else {
            return (Task::none(), None);
        };
        let now = single.draft_name.name_for(&single.draft).ok();
        if checked.id != single.id || now.as_deref() != Some(checked.name.as_bytes()) {
            return (Task::none(), None); // stale: the name changed since
        }
        let shown = words::name(&checked.name).into_owned();
        single.name = match checked.result {
            Ok(NameCheck::Free) if checked.submit => return self.send_rename(checked.name),
            Ok(NameCheck::Free) => NameState::Free,
            Ok(NameCheck::Taken) => {
                let folder = single
                    .folder
                    .as_deref()
                    .map_or("/".into(), format::display_name);
                NameState::Refused(format!("“{shown}” is already taken in “{folder}”."))
            }
            Ok(NameCheck::NotAllowed(problem)) => NameState::Refused(words::name_problem(problem)),
            Err(e) => NameState::Refused(format!("The name could not be checked: {e}")),
        };
        (Task::none(), None)
    }

    fn send_rename(&mut self, name: OsString) -> (Task<Message>, Option<Event>) {
        let Some(single) = self.single.take() else {
            return (Task::none(), None);
        };
        if let Some(folder) = &single.folder {
            self.claimed.insert(folder.join(&name));
        }
        self.remove_row(single.id);
        let answer = (single.id, Resolution::RenameTo(name), Scope::This);
        (self.after_answer(), Some(self.resolve(vec![answer])))
    }
}
