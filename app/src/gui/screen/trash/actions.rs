//! What the Trash view's actions ask for: the jobs (a restore that asks about conflicts, a
//! restore into a picked folder, a permanent delete, emptying) and the questions asked first.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ferry_core::entry::Kind;
use ferry_core::jobs::{ConflictPolicy, Job, TrashedItem};
use iced::Task;

use super::{Asked, Event, Loaded, Message, Notice, Pending, Picked, RestoreTo, Trash};
use crate::gui::format;
use crate::gui::modal::confirm::Confirm;
use crate::gui::modal::folder_prompt::{self, FolderPrompt};
use crate::gui::{picker, words};

impl Trash {
    /// The focused item if selected, else the first selected one.
    pub(super) fn focused_item(&self) -> Option<&TrashedItem> {
        let loaded = self.loaded()?;
        let focus = self
            .selection
            .focus()
            .filter(|&e| self.selection.contains(e));
        let first = || {
            self.order
                .iter()
                .copied()
                .find(|&e| self.selection.contains(e))
        };
        loaded.item(focus.or_else(first)?)
    }

    /// The selected items no job was submitted for yet, in display order.
    pub(crate) fn actionable_items(&self) -> Vec<TrashedItem> {
        self.selected_items()
            .into_iter()
            .filter(|item| !self.submitted.contains(&item.info))
            .collect()
    }

    /// How many actionable selected items can be restored in place, and how many in all
    /// (for every frame's toolbar: counts, nothing cloned).
    pub(super) fn actionable(&self) -> (usize, usize) {
        let Some(loaded) = self.loaded() else {
            return (0, 0);
        };
        let items = self
            .selection
            .iter()
            .filter_map(|i| loaded.item(i))
            .filter(|item| !self.submitted.contains(&item.info));
        items.fold((0, 0), |(safe, all), item| {
            (safe + usize::from(item.unsafe_entry.is_none()), all + 1)
        })
    }

    pub(super) fn submit(&mut self, items: &[TrashedItem], job: Job) -> Option<Event> {
        self.submitted.extend(items.iter().map(|i| i.info.clone()));
        Some(Event::Submit(job))
    }

    /// The selection for the clipboard (Ctrl+C, Ctrl+X); `None` when nothing can go.
    pub(super) fn clip(&self, cut: bool) -> Option<Event> {
        let items = self.actionable_items();
        (!items.is_empty()).then_some(Event::Clip { items, cut })
    }

    pub(super) fn restore(&mut self) -> Option<Event> {
        let (safe, unsafe_ones): (Vec<_>, Vec<_>) = self
            .actionable_items()
            .into_iter()
            .partition(|item| item.unsafe_entry.is_none());
        if !unsafe_ones.is_empty() {
            let about = (unsafe_ones.iter()).map(|i| (i.info.clone(), i.name.clone()));
            self.notice = Some(Notice::Unsafe(about.collect()));
        }
        if safe.is_empty() {
            return None;
        }
        let job = Job::Restore {
            items: safe.clone(),
            on_conflict: ConflictPolicy::Ask,
        };
        self.submit(&safe, job)
    }

    pub(super) fn restore_to(&mut self) -> Task<Message> {
        let items = self.actionable_items();
        if items.is_empty() {
            return Task::none();
        }
        let title = match items.as_slice() {
            [one] => format!("Restore “{}” to", format::shown_name(&one.name)),
            many => format!(
                "Restore {} to",
                format::counted(many.len(), "item", "items")
            ),
        };
        self.restore_to = Some(RestoreTo {
            items,
            title: title.clone(),
            prompt: None,
        });
        picker::pick(title, self.home.clone()).map(Message::Picked)
    }

    pub(super) fn picked(&mut self, picked: Picked) -> (Task<Message>, Option<Event>) {
        match picked {
            Picked::Folder(folder) => (Task::none(), self.restore_into(&folder)),
            Picked::Cancelled => {
                self.restore_to = None;
                (Task::none(), None)
            }
            Picked::Unavailable => {
                let home = self.home.clone();
                let Some(restore_to) = &mut self.restore_to else {
                    return (Task::none(), None);
                };
                let start = home.clone().unwrap_or_else(|| PathBuf::from("/"));
                let title = restore_to.title.clone();
                let (prompt, task) = FolderPrompt::new((), title, "Restore Here", &start, home);
                restore_to.prompt = Some(prompt);
                (task.map(Message::Folder), None)
            }
        }
    }

    /// A message of Restore to…'s own folder prompt.
    pub(super) fn folder_prompt(
        &mut self,
        message: folder_prompt::Message,
    ) -> (Task<Message>, Option<Event>) {
        let Some(prompt) = self.restore_to.as_mut().and_then(|r| r.prompt.as_mut()) else {
            return (Task::none(), None);
        };
        let (task, event) = prompt.update(message);
        let task = task.map(Message::Folder);
        match event {
            Some(folder_prompt::Event::Chosen((), folder)) => (task, self.restore_into(&folder)),
            Some(folder_prompt::Event::Cancelled) => {
                self.restore_to = None;
                (task, None)
            }
            None => (task, None),
        }
    }

    pub(super) fn restore_into(&mut self, folder: &Path) -> Option<Event> {
        let items = self.restore_to.take()?.items;
        let job = Job::Restore {
            items: items.iter().map(|item| item.restore_to(folder)).collect(),
            on_conflict: ConflictPolicy::Ask,
        };
        self.submit(&items, job)
    }

    pub(super) fn ask_delete(&self) -> Option<Event> {
        let items = self.actionable_items();
        if items.is_empty() {
            return None;
        }
        Some(Event::Confirm(delete_question(items)))
    }

    pub(super) fn confirmed(&mut self, pending: Pending) -> Event {
        match pending {
            Pending::Delete(items) => {
                let listed = (items.iter())
                    .map(|i| (i.file.clone(), (i.id, i.kind)))
                    .collect();
                let names = (items.iter())
                    .map(|i| (i.file.clone(), i.name.clone()))
                    .collect();
                self.submitted.extend(items.iter().map(|i| i.info.clone()));
                Event::DeleteListed { listed, names }
            }
            Pending::Empty(Asked(loaded)) => {
                let items = loaded.items();
                self.submitted.extend(items.iter().map(|i| i.info.clone()));
                Event::Submit(Job::EmptyTrash {
                    roots: self.roots.clone(),
                    listed: Some(items.iter().map(|i| (i.file.clone(), i.id)).collect()),
                })
            }
        }
    }
}

/// "Permanently delete 3 folders and 12 files, 1.2 GB?"
pub(super) fn delete_question(items: Vec<TrashedItem>) -> Confirm<Pending> {
    let size: u64 = items.iter().map(|i| i.size).fold(0, u64::saturating_add);
    let folders = items.iter().filter(|i| i.kind == Kind::Dir).count();
    let (title, them) = match items.as_slice() {
        [one] => (
            format!(
                "Permanently delete “{}”, {}?",
                format::shown_name(&one.name),
                unbroken(&format::size(size))
            ),
            "It",
        ),
        _ => (
            format!(
                "Permanently delete {}, {}?",
                words::folders_and_files(folders, items.len() - folders),
                unbroken(&format::size(size))
            ),
            "They",
        ),
    };
    Confirm::new(
        Pending::Delete(items),
        title,
        format!("{them} will be gone for good: what is deleted from the trash can't be restored."),
        "Delete Permanently",
    )
    .danger()
}

/// What the notice says of the unsafe entries `about` (info file, name) a Restore left out.
pub(super) fn unsafe_notice(about: &[(PathBuf, OsString)]) -> String {
    let (what, them) = match about {
        [(_, name)] => (format!("“{}” names", format::shown_name(name)), "it"),
        many => (
            format!("{} name", format::counted(many.len(), "entry", "entries")),
            "them",
        ),
    };
    format!("{what} an unsafe place to restore to, so only Restore to… can restore {them}.")
}

/// "Empty the trash: 240 items, 3.1 GB?"
pub(super) fn empty_question(loaded: &Arc<Loaded>) -> Confirm<Pending> {
    Confirm::new(
        Pending::Empty(Asked(Arc::clone(loaded))),
        format!(
            "Empty the trash: {}, {}?",
            format::counted(loaded.len(), "item", "items"),
            unbroken(&format::size(loaded.total_size()))
        ),
        "Everything in the trash will be deleted permanently. This can't be undone.",
        "Empty Trash",
    )
    .danger()
}

/// `size` ("48.2 MB") that a title does not wrap between number and unit.
fn unbroken(size: &str) -> String {
    size.replace(' ', "\u{a0}")
}
