//! The stored form of the journal: one JSON object per line, with paths kept exactly.
//!
//! - here: the log's [`Line`]s; every path in its exact form, [`StoredPath`]
//!   (`exact_path.rs`);
//! - `job.rs`: a `begin` line's [`StoredJob`];
//! - `entry.rs`: the entries of a record's details file, compact and written by hand;
//! - `trash.rs`: trash records, trashed items and remade folders.

use std::path::Path;

use serde::{Deserialize, Serialize};

pub(super) use crate::exact_path::StoredPath;

mod entry;
mod job;
mod trash;

pub(super) use entry::{Absolute, Below, EntryOut, StoredEntry};
pub(super) use job::StoredJob;
pub(super) use trash::{StoredRemade, StoredTrashRecord};

/// One line of the log.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(super) enum Line {
    Begin {
        seq: u64,
        time: u64,
        /// The nanoseconds of the start, by the clock file times are stamped with (absent in
        /// logs from before it was kept: 0).
        #[serde(default, skip_serializing_if = "is_zero")]
        nsec: u32,
        pid: u32,
        pid_start: u64,
        job: StoredJob,
        preexisting: Vec<StoredPath>,
        #[serde(default)]
        resumed: bool,
    },
    End {
        seq: u64,
        time: u64,
        cancelled: bool,
        done: u64,
        skipped: u64,
        failed: u64,
        not_done: u64,
        /// Entries and trash records are in the record's details file (see `details.rs`).
        #[serde(default)]
        details: bool,
        /// The staging folders its entries' replaced items went to, for pruning.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        staging: Vec<StoredPath>,
        /// More than [`MAX_ENTRIES`](super::MAX_ENTRIES): none kept.
        #[serde(default)]
        dropped: bool,
    },
    Undone {
        seq: u64,
        time: u64,
        /// What the undo put in the trash is in the record's `undone` details file.
        #[serde(default)]
        details: bool,
        /// The newest record's number when it was undone: redo applies only while no job
        /// was recorded since (compaction groups a record's lines, so their order in the log
        /// cannot tell). Absent in logs written before it was kept.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        newest: Option<u64>,
        /// The undo put items back beside or over what had taken their places (keep both,
        /// replace), keeping what it replaced at these paths: no redo (see
        /// [`Error::RedoAfterAside`](crate::error::Error::RedoAfterAside)).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        aside: Option<Vec<StoredPath>>,
        /// Items the undo did not undo (skipped, changed or gone since): the record is
        /// undone, but not all of it. Absent when 0.
        #[serde(default, skip_serializing_if = "is_zero_u64")]
        left: u64,
        /// The undo undid nothing at all (everything had changed or gone since): there is
        /// nothing for a redo to do again.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        nothing: bool,
    },
    /// A resume stopped before it finished (see `Summary::resume_again`): the record is
    /// interrupted again, for another resume. A reader without this line skips it as torn.
    Halted { seq: u64, time: u64 },
    /// An undo of the record began, in process `pid`: until an `undone` line follows, it is
    /// under way, or (that process gone) unfinished. A reader without this line skips it.
    UndoStarted {
        seq: u64,
        time: u64,
        pid: u32,
        pid_start: u64,
    },
    /// The undo begun by the last `undo_started` line was refused before it changed anything
    /// (no room for what it would put back): the record is as it was before that undo began.
    /// A reader without this line skips it, and lists the record's undo as unfinished.
    UndoRefused { seq: u64, time: u64 },
    /// The redo begun by the record's last `begin` line was refused before it changed
    /// anything (no room): the record is undone again, as it was before that redo, for
    /// another redo. A reader without this line skips it, and lists the redo as stopped.
    RedoRefused { seq: u64, time: u64 },
}

impl Line {
    pub(super) fn seq(&self) -> u64 {
        match self {
            Line::Halted { seq, .. }
            | Line::UndoStarted { seq, .. }
            | Line::UndoRefused { seq, .. }
            | Line::RedoRefused { seq, .. } => *seq,
            Line::Begin { seq, .. } | Line::End { seq, .. } | Line::Undone { seq, .. } => *seq,
        }
    }
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's skip_serializing_if passes a reference
fn is_zero(n: &u32) -> bool {
    *n == 0
}

#[allow(clippy::trivially_copy_pass_by_ref)] // as is_zero
fn is_zero_u64(n: &u64) -> bool {
    *n == 0
}

/// What a `begin` line says besides its job, read without the job (see [`Line::skimmed`]).
#[derive(Deserialize)]
struct SkimmedLine {
    begin: BeginHead,
}

#[derive(Deserialize)]
struct BeginHead {
    seq: u64,
    time: u64,
    #[serde(default)]
    nsec: u32,
    pid: u32,
    pid_start: u64,
    #[serde(default)]
    resumed: bool,
}

impl Line {
    /// `line` as a `begin` line whose job and pre-existing items are not read (an empty
    /// copy stands for the job): parsing the job of one with 100,000 sources cost every
    /// later job's start 15-35 ms. `None` if it is not a `begin` line.
    pub(super) fn skimmed(line: &[u8]) -> Option<Line> {
        // The job follows the four numbers, and `resumed` ends the line (the order the log
        // is written in): reading only those skips even the scan of megabytes of sources
        // (10 ms for 7.8 MB). A line of another shape, or torn, is scanned whole.
        let job_at = line.windows(7).take(256).position(|w| w == b",\"job\":");
        let complete = line.ends_with(b"}}");
        let head = match job_at.filter(|_| complete) {
            Some(at) => {
                let mut text = line[..at].to_vec();
                text.extend_from_slice(if line.ends_with(b"\"resumed\":true}}") {
                    b",\"resumed\":true}}"
                } else {
                    b"}}"
                });
                serde_json::from_slice::<SkimmedLine>(&text).ok()
            }
            None => None,
        };
        let head = match head {
            Some(skimmed) => skimmed.begin,
            None => serde_json::from_slice::<SkimmedLine>(line).ok()?.begin,
        };
        Some(Line::Begin {
            seq: head.seq,
            time: head.time,
            nsec: head.nsec,
            pid: head.pid,
            pid_start: head.pid_start,
            job: StoredJob::Copy {
                sources: Vec::new(),
                dest_dir: StoredPath::Text(String::new()),
                dest_name: None,
                on_conflict: String::new(),
            },
            preexisting: Vec::new(),
            resumed: head.resumed,
        })
    }
}

impl StoredPath {
    /// A path, made absolute against the current folder, so that a record stays true for a
    /// process started elsewhere (symlinks are kept as given).
    pub(super) fn path(p: &Path) -> StoredPath {
        if p.is_absolute() {
            return StoredPath::of(p.as_os_str()); // the rule for a job's thousands of entries
        }
        StoredPath::of(std::path::absolute(p).as_deref().unwrap_or(p).as_os_str())
    }
}
