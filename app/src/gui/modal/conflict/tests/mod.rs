//! Flows of the conflict dialog through `iced_test`'s simulator: clicks and typing on its
//! view, the messages fed back to `update`, the tasks' results run for real (the name checks
//! read a temporary folder), and the key function driven directly.

mod single;
mod table;

pub mod fixture {
    //! Conflicts as the core reports them.

    use std::path::PathBuf;

    use ferry_core::entry::Kind;
    use ferry_core::fs::Timestamp;
    use ferry_core::jobs::{Conflict, ConflictId, ConflictKind, EntryInfo};

    fn info(path: PathBuf, kind: Kind, size: u64, sec: i64) -> EntryInfo {
        EntryInfo::new(path, size, Timestamp { sec, nsec: 0 }, kind)
    }

    /// A conflict of `kind` for `name`, going from `/src` into `dest`.
    pub fn in_dir(
        dest: &std::path::Path,
        id: u64,
        kind: ConflictKind,
        name: &str,
        (existing, incoming): (Kind, Kind),
        (existing_sec, incoming_sec): (i64, i64),
    ) -> Conflict {
        Conflict {
            id: ConflictId(id),
            kind,
            source: info(
                PathBuf::from("/src").join(name),
                incoming,
                2_000,
                incoming_sec,
            ),
            dest: info(dest.join(name), existing, 1_000, existing_sec),
            likely_identical: false,
        }
    }

    /// A file onto a file in `/dest`, the existing one dated `existing`, the incoming one
    /// `incoming` (seconds).
    pub fn file(id: u64, name: &str, existing: i64, incoming: i64) -> Conflict {
        let dest = std::path::Path::new("/dest");
        let files = (Kind::File, Kind::File);
        in_dir(
            dest,
            id,
            ConflictKind::FileExists,
            name,
            files,
            (existing, incoming),
        )
    }

    /// Two files of one size that look identical.
    pub fn identical(id: u64, name: &str) -> Conflict {
        let mut c = file(id, name, 100, 100);
        c.dest.size = c.source.size;
        c.likely_identical = true;
        c
    }

    /// A folder onto a folder.
    pub fn folder(id: u64, name: &str) -> Conflict {
        let dest = std::path::Path::new("/dest");
        let dirs = (Kind::Dir, Kind::Dir);
        in_dir(dest, id, ConflictKind::FolderExists, name, dirs, (100, 200))
    }

    /// A name the destination refuses.
    pub fn not_allowed(id: u64, name: &str) -> Conflict {
        let dest = std::path::Path::new("/dest");
        let kinds = (Kind::Unknown, Kind::File);
        let mut c = in_dir(
            dest,
            id,
            ConflictKind::NameNotAllowed,
            name,
            kinds,
            (0, 200),
        );
        c.dest.size = 0;
        c.dest.mtime = Timestamp::default();
        c
    }
}

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock};

use ferry_core::dirs::ViewId;
use ferry_core::entry::Kind;
use ferry_core::jobs::{
    Conflict, ConflictId, ConflictKind, JobId, NameCheck, NameRules, Resolution, Scope,
};
use ferry_core::sort::SortSpec;
use iced::Task;
use iced::futures::executor;
use iced::keyboard::key::Named;
use iced::keyboard::{Key, Modifiers};
use iced_test::runtime::Action;
use iced_test::simulator;

use super::checks::{Checked, Probe, Probed};
use super::{Act, ConflictDialog, Control, Event, Message, NameState, Rule};
use crate::gui::screen::Ctx;
use crate::gui::screen::browser::Dirs;
use crate::gui::settings::Settings;

const JOB: JobId = JobId(4);

struct NoDirs;

impl Dirs for NoDirs {
    fn open(&self, _: ViewId, _: PathBuf, _: SortSpec) -> u64 {
        0
    }
    fn resort(&self, _: ViewId, _: SortSpec) {}
    fn refresh(&self, _: ViewId) {}
    fn close(&self, _: ViewId) {}
}

static SETTINGS: LazyLock<Settings> = LazyLock::new(Settings::default);

fn ctx() -> Ctx<'static> {
    Ctx {
        dirs: &NoDirs,
        modifiers: Modifiers::empty(),
        home: None,
        settings: &SETTINGS,
    }
}

/// What a task would deliver: its stream run to the end (worker threads included); widget
/// operations (focus, scrolling) are left out.
fn outputs(task: Task<Message>) -> Vec<Message> {
    let Some(stream) = iced_test::runtime::task::into_stream(task) else {
        return Vec::new();
    };
    // Each action is dropped as it comes: a widget operation that can send output holds the
    // stream open until it is.
    executor::block_on_stream(stream)
        .filter_map(|action| match action {
            Action::Output(message) => Some(message),
            _ => None,
        })
        .collect()
}

/// Runs `task` and feeds what it delivers back, to the end; the events that came out.
fn settle(dialog: &mut ConflictDialog, task: Task<Message>) -> Vec<Event> {
    let mut events = Vec::new();
    let mut waiting = outputs(task);
    while !waiting.is_empty() {
        for message in std::mem::take(&mut waiting) {
            let (task, event) = dialog.update(message, &ctx());
            events.extend(event);
            waiting.extend(outputs(task));
        }
    }
    events
}

/// Feeds `message` (and whatever its tasks deliver).
fn feed(dialog: &mut ConflictDialog, message: Message) -> Vec<Event> {
    let (task, event) = dialog.update(message, &ctx());
    let mut events: Vec<Event> = event.into_iter().collect();
    events.extend(settle(dialog, task));
    events
}

/// Clicks `target` in the dialog's view and feeds what it sends.
fn click(dialog: &mut ConflictDialog, target: &str) -> Vec<Event> {
    let mut ui = simulator(dialog.view());
    ui.click(target)
        .unwrap_or_else(|e| panic!("{target}: {e:?}"));
    let messages: Vec<Message> = ui.into_messages().collect();
    assert!(!messages.is_empty(), "{target} sends nothing");
    messages.into_iter().flat_map(|m| feed(dialog, m)).collect()
}

/// Presses `key` with `modifiers`, as the window's key routing would.
fn press(dialog: &mut ConflictDialog, key: &Key, modifiers: Modifiers) -> Vec<Event> {
    match dialog.key(key, modifiers) {
        Some(message) => feed(dialog, message),
        None => Vec::new(),
    }
}

fn alt(dialog: &mut ConflictDialog, letter: &str) -> Vec<Event> {
    press(dialog, &Key::Character(letter.into()), Modifiers::ALT)
}

fn named(dialog: &mut ConflictDialog, key: Named) -> Vec<Event> {
    press(dialog, &Key::Named(key), Modifiers::empty())
}

fn shows(dialog: &ConflictDialog, text: &str) -> bool {
    simulator(dialog.view()).find(text).is_ok()
}

/// The dialog for `conflicts`, its first tasks (the probe) run.
fn open(conflicts: Vec<Conflict>, dest: Option<&Path>) -> ConflictDialog {
    let (mut dialog, task) = ConflictDialog::new(
        JOB,
        "Copying 3 items to “Backup”",
        dest.map(Path::to_path_buf),
        conflicts,
    );
    assert!(settle(&mut dialog, task).is_empty());
    dialog
}

fn resolve(answers: &[(u64, Resolution, Scope)]) -> Event {
    Event::Resolve {
        job: JOB,
        answers: answers
            .iter()
            .map(|(id, r, s)| (ConflictId(*id), r.clone(), *s))
            .collect(),
    }
}

/// A folder holding `report.pdf` and the names given, for the disk checks.
fn backup(names: &[&str]) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    for name in ["report.pdf"].iter().chain(names) {
        std::fs::write(tmp.path().join(name), "x").unwrap();
    }
    tmp
}

fn report_in(dir: &Path, existing: i64, incoming: i64) -> Conflict {
    let files = (Kind::File, Kind::File);
    fixture::in_dir(
        dir,
        1,
        ConflictKind::FileExists,
        "report.pdf",
        files,
        (existing, incoming),
    )
}
