//! What the conflict table costs, for its goals (a batch of 2,000 conflicts: the table's
//! state built within 100 ms, a frame under 4 ms): the dialog built from a batch, and frames
//! of `update` (a scroll, or a key answering a row) plus `view` with the table open. Built in
//! memory, with no disk and no engine, so it measures the window's own work.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use ferry_core::dirs::ViewId;
use ferry_core::entry::Kind;
use ferry_core::fs::Timestamp;
use ferry_core::jobs::{Conflict, ConflictId, ConflictKind, EntryInfo, JobId};
use ferry_core::sort::SortSpec;
use iced::keyboard::{Key, Modifiers};

use super::{ConflictDialog, Message};
use crate::gui::screen::Ctx;
use crate::gui::screen::browser::Dirs;
use crate::gui::settings::Settings;

/// What the table cost.
#[derive(Debug, Clone)]
pub struct TableCost {
    /// Conflicts in the batch.
    pub conflicts: usize,
    /// Building the dialog's state from the batch (sorting included).
    pub build: Duration,
    /// Median of the frames: a scroll's `update` and the `view`.
    pub frame_median: Duration,
    /// The heaviest of them.
    pub frame_worst: Duration,
    /// Median of the frames in which a key answers the keyboard's row (and moves it on).
    pub key_median: Duration,
}

/// A listing service nobody calls: the dialog has no use for it.
struct NoDirs;

impl Dirs for NoDirs {
    fn open(&self, _: ViewId, _: PathBuf, _: SortSpec) -> u64 {
        0
    }
    fn resort(&self, _: ViewId, _: SortSpec) {}
    fn refresh(&self, _: ViewId) {}
    fn close(&self, _: ViewId) {}
}

/// A batch of `n` conflicts as a copy into `/dest` finds them: files in a few folders (one in
/// five looks identical, dates either way), a folder or two, a name twice, a name FAT refuses.
pub fn batch(n: usize) -> Vec<Conflict> {
    (0..n)
        .map(|i| {
            let id = ConflictId(i as u64 + 1);
            let folder = format!("Photos/{}", 2000 + i % 7);
            let (kind, name, source_kind, dest_kind) = match i % 50 {
                7 => (
                    ConflictKind::FolderExists,
                    format!("album-{i}"),
                    Kind::Dir,
                    Kind::Dir,
                ),
                13 => (
                    ConflictKind::NameNotAllowed,
                    format!("a:b-{i}.txt"),
                    Kind::File,
                    Kind::Unknown,
                ),
                21 => (
                    ConflictKind::FileVsFolder,
                    format!("notes-{i}"),
                    Kind::File,
                    Kind::Dir,
                ),
                _ => (
                    ConflictKind::FileExists,
                    format!("IMG_{i:05}.jpg"),
                    Kind::File,
                    Kind::File,
                ),
            };
            let side = |root: &str, kind, size: u64, sec: i64| {
                let path = PathBuf::from(format!("{root}/{folder}/{name}"));
                EntryInfo::new(path, size, Timestamp { sec, nsec: 0 }, kind)
            };
            let size = 1_000_000 + (i as u64 * 7919) % 9_000_000;
            let sec = 1_700_000_000 + (i as i64 * 3_607) % 40_000_000;
            let identical = kind == ConflictKind::FileExists && i % 5 == 0;
            let later = match i % 3 {
                _ if identical => sec,
                0 => sec - 86_400,
                _ => sec + 86_400,
            };
            Conflict {
                id,
                kind,
                source: side("/src", source_kind, size, later),
                dest: side(
                    "/dest",
                    dest_kind,
                    if identical { size } else { size / 2 },
                    sec,
                ),
                likely_identical: identical,
            }
        })
        .collect()
}

/// Measures the dialog of a batch of `n` conflicts: its build, then `frames` frames
/// scrolled through the middle of the table, then `frames` frames answering rows by key.
pub fn table_cost(n: usize, frames: usize) -> TableCost {
    let settings = Settings::default();
    let ctx = Ctx {
        dirs: &NoDirs,
        modifiers: Modifiers::empty(),
        home: None,
        settings: &settings,
    };
    let conflicts = batch(n);
    let started = Instant::now();
    let (mut dialog, _) = ConflictDialog::new(
        JobId(1),
        "Copying 10,000 items to “dest”",
        Some(PathBuf::from("/dest")),
        conflicts,
    );
    let build = started.elapsed();
    let update = |dialog: &mut ConflictDialog, message| {
        let _ = dialog.update(message, &ctx);
    };
    update(
        &mut dialog,
        Message::Scrolled {
            offset_y: 0.0,
            viewport_h: 520.0,
        },
    );
    #[allow(clippy::cast_precision_loss)] // a pixel offset
    let middle = n as f32 * super::table::ROW_H / 2.0;
    let mut times = Vec::with_capacity(frames);
    for frame in 0..frames {
        #[allow(clippy::cast_precision_loss)] // a few pixels
        let offset_y = middle + (frame % 64) as f32 * 9.0;
        let started = Instant::now();
        update(
            &mut dialog,
            Message::Scrolled {
                offset_y,
                viewport_h: 520.0,
            },
        );
        let element = dialog.view();
        std::hint::black_box(&element);
        drop(element);
        times.push(started.elapsed());
    }
    times.sort();
    let (frame_median, frame_worst) = (times[times.len() / 2], times[times.len() - 1]);
    let mut keys = Vec::with_capacity(frames);
    let skip = Key::Character("s".into());
    for _ in 0..frames {
        let started = Instant::now();
        if let Some(message) = dialog.key(&skip, Modifiers::ALT) {
            update(&mut dialog, message);
        }
        let element = dialog.view();
        std::hint::black_box(&element);
        drop(element);
        keys.push(started.elapsed());
    }
    keys.sort();
    TableCost {
        conflicts: n,
        build,
        frame_median,
        frame_worst,
        key_median: keys[keys.len() / 2],
    }
}
