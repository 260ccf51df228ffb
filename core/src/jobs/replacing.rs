//! Replacing and re-asking at commit time: the old item goes to the staging folder before
//! the new one is put in place (and comes back if that fails); a name taken since planning
//! becomes a new conflict.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;

use rustix::fd::OwnedFd;
use rustix::io::Errno;

use super::conflict::{Conflict, ConflictKind, EntryInfo};
use super::copy::{Copier, Outcome};
use super::decide::{Choice, policy_choice};
use super::staging::{self, Staging};
use super::{ConflictPolicy, Event, Resolution, SkipReason, lock};
use crate::entry::Kind;
use crate::error::Error;
use crate::fs;

impl Copier<'_> {
    /// Moves what is at item `i`'s destination in `dir` into the staging folder; returns
    /// where it went (`None`: nothing was there any more).
    pub(super) fn stash(&self, dir: &OwnedFd, i: u32) -> Result<Option<PathBuf>, Error> {
        let staging = self.staging.get_or_init(|| {
            let mount = self.dest.mount.as_ref().map(|m| m.mount_point.as_path());
            let roots = &self.ctx.staging;
            let (job, record) = (self.ctx.id.0, self.ctx.journal_seq);
            Staging::open(job, record, roots, mount, &self.dest.path, &self.dest.fd)
                .map_err(Arc::new)
        });
        let staging = staging.as_ref().map_err(|e| Error::Staging {
            path: self.plan.dest_path(i),
            error: Arc::clone(e),
        })?;
        let name = self.plan.dest_name(i);
        match staging.stash(dir, name, &self.plan.dest_path(i)) {
            Ok(path) => {
                // Another item put there since the decision to replace (a folder swapped in
                // for the file asked about) goes back: it was never asked about.
                let expected = self.plan.replacing.get(&i);
                let set_aside = fs::stat_at(rustix::fs::CWD, &path).map(|m| (m.id, m.kind));
                if expected.is_some_and(|found| set_aside.as_ref() != Ok(found)) {
                    let dest = self.plan.dest_path(i);
                    return Err(match staging.unstash(&path, dir, name) {
                        Ok(()) => Error::Changed { path: dest },
                        Err(e) => Error::io("put back", path, e),
                    });
                }
                crate::fault::point("replace-staged");
                Ok(Some(path))
            }
            // Gone since planning: nothing to keep.
            Err(Errno::NOENT) => Ok(None),
            Err(e) => Err(Error::io("move aside", self.plan.dest_path(i), e)),
        }
    }

    /// After putting item `i` in place (`placed`) with the old one `staged`: record it for
    /// undo, or, if the new one did not make it, put the old one back. One whose name another
    /// program took meanwhile goes back beside it under a keep-both name (left in the
    /// staging folder, it was named by no record, so that no undo could bring it back, and
    /// pruned a week later); one that cannot go back at all is an error naming where it is
    /// kept.
    pub(super) fn settle(
        &self,
        staged: Option<PathBuf>,
        placed: rustix::io::Result<()>,
        dir: &OwnedFd,
        i: u32,
    ) -> Result<(), Error> {
        let Some(staged) = staged else {
            return Ok(());
        };
        if placed.is_ok() {
            crate::fault::point("replace-placed");
            lock(&self.staged).push((i, staged));
            return Ok(());
        }
        let staging = self.staging.get().and_then(|s| s.as_ref().ok());
        match staging.map(|s| s.unstash(&staged, dir, self.plan.dest_name(i))) {
            Some(Ok(())) => Ok(()),
            Some(Err(Errno::EXIST | Errno::NOTEMPTY)) => {
                let taken = self.plan.dest_path(i);
                Err(match staging::put_back_beside(&staged, &taken) {
                    Some(path) => Error::PutBackBeside { path, taken },
                    None => Error::ReplacedKept {
                        path: taken,
                        staged,
                    },
                })
            }
            Some(Err(e)) => Err(Error::io("put back", staged, e)),
            None => Ok(()),
        }
    }

    /// The destination name of file `i` was taken since planning: ask again, keep both, or
    /// skip.
    /// One whose name the file system takes for another item's (two sources `Notes.txt` and
    /// `notes.txt` onto FAT) fails, naming both: skipped as "already exists", the second
    /// would be lost without a word, as its name seems free in every listing.
    pub(super) fn taken(&self, dir: &OwnedFd, i: u32) -> Result<Outcome, Error> {
        if self.ask_again(dir, i) {
            return Ok(Outcome::Asked);
        }
        if let Ok(Some(existing)) = fs::folded_name(dir, self.plan.dest_name(i)) {
            let path = self.plan.dest_path(i);
            let existing = path.with_file_name(existing);
            return Err(Error::NameFolded { path, existing });
        }
        Ok(Outcome::Skipped(SkipReason::Exists))
    }

    /// [`taken`](Self::taken), for a file whose `counted` bytes were written (and counted as
    /// done) before its name was found taken: asked about, it is copied again once answered
    /// (a large file's part is kept and put in place then, `partial.rs`), and they are taken
    /// back, so that the bytes done do not pass the total ("1.8 GB of 1.0 GB" after a
    /// Replace).
    pub(super) fn taken_after_writing(
        &self,
        dir: &OwnedFd,
        i: u32,
        counted: u64,
    ) -> Result<Outcome, Error> {
        let outcome = self.taken(dir, i);
        if matches!(outcome, Ok(Outcome::Asked)) {
            let bytes = &self.ctx.counters.bytes;
            let _ = bytes.fetch_update(Relaxed, Relaxed, |b| Some(b.saturating_sub(counted)));
        }
        outcome
    }

    /// Reports a conflict found while writing item `i` into `dir`, or answers it at once as
    /// planning answers the policy's conflicts (the item is planned again after this pass):
    /// Keep both under a new name, Replace (if newer) over what appeared, a folder meeting a
    /// folder merged into it. False when the policy skips it (the caller skips the item).
    /// `--on-conflict replace` skipped every file whose name another job took meanwhile.
    pub(super) fn ask_again(&self, dir: &OwnedFd, i: u32) -> bool {
        let item = self.plan.item(i);
        let existing = fs::stat_at(dir, self.plan.dest_name(i)).ok();
        let kind = match existing.map(|m| m.kind) {
            Some(Kind::Dir) if item.kind == Kind::Dir => ConflictKind::FolderExists,
            Some(Kind::Dir) => ConflictKind::FileVsFolder,
            _ if item.kind == Kind::Dir => ConflictKind::FileVsFolder,
            _ => ConflictKind::FileExists,
        };
        if self.policy != ConflictPolicy::Ask {
            // A name taken since planning (by another job, say) is answered as planning would
            // have answered it, but never replaced when it is another item of the batch whose
            // name the file system folds into this one's (`taken` says so).
            let folded = || matches!(fs::folded_name(dir, self.plan.dest_name(i)), Ok(Some(_)));
            return match policy_choice(self.policy, kind) {
                Choice::Do(Resolution::Skip) | Choice::Fail | Choice::Ask => false,
                Choice::Do(Resolution::Replace | Resolution::ReplaceIfNewer) if folded() => false,
                Choice::Do(answer) => {
                    self.ctx.control.asks.decided(i, kind, answer);
                    true
                }
            };
        }
        if let Some(id) = self.ctx.control.asks.add(i, kind) {
            let info = EntryInfo::new;
            let mut source = info(self.plan.source_path(i), item.size, item.mtime, item.kind);
            source.name = self.plan.dest_name(i).to_owned(); // as in `decide.rs`
            let conflict = Conflict {
                id,
                kind,
                source,
                dest: info(
                    self.plan.dest_path(i),
                    existing.map_or(0, |m| m.size),
                    existing.map(|m| m.mtime).unwrap_or_default(),
                    existing.map_or(Kind::Unknown, |m| m.kind),
                ),
                likely_identical: false,
            };
            self.ctx.emit(Event::Conflicts {
                job: self.ctx.id,
                conflicts: vec![conflict],
            });
        }
        true
    }
}
