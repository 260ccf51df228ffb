//! Where an interrupted Keep both job (`--on-conflict keep-both`) put its sources.
//!
//! Under Keep both a source whose place was taken goes to the first free name of the ones
//! Keep both tries (`src (copy)`, `src (copy 2)`, ...), and the item that was there is never
//! touched. The record keeps no per-item identities until the job ends, so after a crash that
//! name is found again: the first of those names that the job changed (its ctime at or after
//! the job's start; what the user had there before is older), up to the first free one. A
//! resume then goes on into that place (or into the place the job made under the source's
//! own name) rather than keeping both again with its own part copy (`src (copy 2)`), and a
//! roll back takes back what is there, leaving the taken place alone.

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};

use super::super::ConflictPolicy;
use super::super::conflict::keep_both_name;
use super::super::journal::JournalRecord;
use super::changed_since;

/// Where the job of `record` put (or is to put) one source.
pub(super) struct Landing {
    pub(super) source: PathBuf,
    /// The place: `dest_dir/name`, or the Keep both name the job gave it.
    pub(super) dest: PathBuf,
    /// Whether the job made the place (rather than merging into one that was there).
    pub(super) created: bool,
    /// The policy to resume it with: Merge to go on into a place the job made itself.
    pub(super) policy: ConflictPolicy,
    /// False for a place taken before a Keep both job that had not yet made its place beside
    /// it: nothing of the job's is there. A resume keeps both again; a roll back and the
    /// folders' times leave the place alone (it was rolled back as the job's own: a copy's
    /// files matching their sources went to the trash, a move's whole folder to the source).
    pub(super) holds_the_jobs: bool,
}

impl Landing {
    /// The folder and, when it is not the source's own, the name to resume into.
    fn resume_into(&self) -> (PathBuf, Option<OsString>) {
        let parent = self.dest.parent().unwrap_or(Path::new("/")).to_path_buf();
        let renamed = (self.dest.file_name() != self.source.file_name())
            .then(|| self.dest.file_name().map(ToOwned::to_owned))
            .flatten();
        (parent, renamed)
    }
}

/// Sources that resume into one place with one policy: one job.
pub(super) struct Group {
    pub(super) folder: PathBuf,
    /// The name to resume under, when it is not the source's own.
    pub(super) name: Option<OsString>,
    pub(super) sources: Vec<PathBuf>,
    pub(super) policy: ConflictPolicy,
}

/// The sources of `landings` by the place they resume into and the policy they resume with,
/// in their order.
pub(super) fn by_place<'a>(landings: impl Iterator<Item = &'a Landing>) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    for landing in landings {
        let (folder, name) = landing.resume_into();
        let same =
            |g: &&mut Group| g.folder == folder && g.name == name && g.policy == landing.policy;
        match groups.iter_mut().find(same) {
            Some(group) => group.sources.push(landing.source.clone()),
            None => groups.push(Group {
                folder,
                name,
                sources: vec![landing.source.clone()],
                policy: landing.policy,
            }),
        }
    }
    groups
}

/// The landings of the copy or move of `record`, found on disk for a Keep both job;
/// `None` for a place taken before a Keep both job whose source is gone, that it never
/// reached (nothing of it to resume into or take back: the job does not touch what was
/// there). [`on_disk`] leaves out, for a roll back, the places that hold nothing of the job.
pub(super) fn landings(record: &JournalRecord, policy: ConflictPolicy) -> Vec<Option<Landing>> {
    record
        .job
        .landings()
        .into_iter()
        .map(|(source, dest)| {
            let taken = record.preexisting.contains(&dest);
            let source = source.to_path_buf();
            if policy != ConflictPolicy::KeepBoth {
                let created = !taken;
                // A place that was free when the job began and is taken now holds what the
                // job made there: gone on into (folders merged, what is complete kept), not
                // asked about as another's (the window's jobs ask; answered Skip, a resume
                // left it half copied and called the job done).
                let policy = match policy {
                    ConflictPolicy::Ask if created && fs::symlink_metadata(&dest).is_ok() => {
                        ConflictPolicy::Merge
                    }
                    policy => policy,
                };
                return Some(Landing {
                    source,
                    dest,
                    created,
                    policy,
                    holds_the_jobs: true,
                });
            }
            if !taken {
                // Made by the job if it is there now: gone on into, never kept both with.
                let policy = match fs::symlink_metadata(&dest) {
                    Ok(_) => ConflictPolicy::Merge,
                    Err(_) => ConflictPolicy::KeepBoth,
                };
                return Some(Landing {
                    source,
                    dest,
                    created: true,
                    policy,
                    holds_the_jobs: true,
                });
            }
            let beside = kept_beside(record, &source, &dest);
            let (dest, policy, holds_the_jobs) = match beside {
                Some(beside) => (beside, ConflictPolicy::Merge, true),
                None if fs::symlink_metadata(&source).is_ok() => {
                    (dest, ConflictPolicy::KeepBoth, false)
                }
                None => return None,
            };
            Some(Landing {
                source,
                dest,
                created: holds_the_jobs,
                policy,
                holds_the_jobs,
            })
        })
        .collect()
}

/// The place beside `dest` (taken before the job) where the job of `record` kept `source`,
/// if it got that far.
fn kept_beside(record: &JournalRecord, source: &Path, dest: &Path) -> Option<PathBuf> {
    let (dir, name) = (dest.parent()?, dest.file_name()?);
    let name_max = rustix::fs::statfs(dir).map_or(255, |s| s.f_namelen as usize);
    // A folder's name has no extension to keep; a source moved away whole is looked for both
    // ways.
    let kinds: &[bool] = match fs::symlink_metadata(source) {
        Ok(m) => &[m.is_dir()][..],
        Err(_) => &[false, true],
    };
    kinds.iter().find_map(|&folder| {
        let mut found = None;
        keep_both_name(name, folder, name_max, |candidate| {
            let path = dir.join(candidate);
            let Ok(meta) = fs::symlink_metadata(&path) else {
                return false; // free: the job went no further
            };
            if changed_since(&meta, record.started) {
                found = Some(path);
                return false;
            }
            true // the user's: the job tried the next
        });
        found
    })
}

/// The landings of `record` that hold what its job wrote or moved: what a roll back takes
/// back and whose folders' times a resume restores.
pub(super) fn on_disk(record: &JournalRecord, policy: ConflictPolicy) -> Vec<Landing> {
    (landings(record, policy).into_iter().flatten())
        .filter(|landing| landing.holds_the_jobs)
        .collect()
}
