//! What the planner does with an item whose destination is taken: the conflict kinds, the
//! job's policy, and answers given later ([`Planner::extend`]).

use std::collections::HashSet;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use rustix::fd::OwnedFd;
use rustix::io::Errno;

use super::conflict::{self, Conflict, ConflictKind, EntryInfo, Waiting, same_samples};
use super::plan::{Action, Forced, Mode, NO_ITEM, Planned, Planner};
use super::{ConflictPolicy, Resolution, SkipReason};
use crate::entry::Kind;
use crate::error::Error;
use crate::fs::{self, FileId, Meta};

/// What the policy says about a conflict, when it does not ask.
pub(super) enum Choice {
    Do(Resolution),
    Fail,
    Ask,
}

pub(super) fn policy_choice(policy: ConflictPolicy, kind: ConflictKind) -> Choice {
    use ConflictKind as K;
    use Resolution as R;
    match (policy, kind) {
        (ConflictPolicy::Ask, _) => Choice::Ask,
        (_, K::NameNotAllowed) => Choice::Fail,
        (ConflictPolicy::KeepBoth, _) => Choice::Do(R::KeepBoth),
        (_, K::FolderExists) => Choice::Do(R::Merge),
        (ConflictPolicy::Skip | ConflictPolicy::Merge, K::FileVsFolder) => Choice::Do(R::Skip),
        (_, K::FileVsFolder | K::DuplicateSource) => Choice::Fail,
        (ConflictPolicy::Replace, K::FileExists) => Choice::Do(R::Replace),
        (ConflictPolicy::ReplaceIfNewer, K::FileExists) => Choice::Do(R::ReplaceIfNewer),
        (ConflictPolicy::Skip | ConflictPolicy::Merge, K::FileExists) => Choice::Do(R::Skip),
    }
}

fn kind_of(source: Kind, existing: Kind) -> ConflictKind {
    match (source == Kind::Dir, existing == Kind::Dir) {
        (true, true) => ConflictKind::FolderExists,
        (false, false) => ConflictKind::FileExists,
        _ => ConflictKind::FileVsFolder,
    }
}

/// True when one `rename(2)` takes the item `meta`, from a folder on device `src_dev`, into
/// the folder `dest`: they share a mount (a bind mount is another mount of one device, and
/// rename across it fails with `EXDEV`) and the folders share a device. Btrfs subvolumes are
/// one mount, each with its own `st_dev`, and rename between them fails with `EXDEV` too,
/// except for a subvolume's own root: hence the source's folder, not the item, is compared.
pub(super) fn one_rename(meta: &Meta, src_dev: u64, dest: &Meta) -> bool {
    meta.mnt_id == dest.mnt_id && src_dev == dest.id.dev
}

impl Planner<'_> {
    /// Chooses what to do with item `i` (copy or move; its source folder is `src_dir`) given
    /// what its destination folder holds under its name (`dest_dir` is `None` when that folder
    /// is being created). A move renames whatever lands in an existing folder that one rename
    /// reaches (`renames`, see [`one_rename`]). `force` is an answer given for this very item.
    pub(super) fn decide(
        &mut self,
        i: u32,
        meta: &Meta,
        src_dir: &OwnedFd,
        dest_dir: Option<&OwnedFd>,
        renames: bool,
        force: Option<&Forced>,
    ) {
        let by_rename = self.mode == Mode::Move && dest_dir.is_some() && renames;
        // A device is made anew by root alone (`mknod`); for anyone else it is tried all the
        // same, and fails with the kernel's reason, as `cp -a` fails it (`commit.rs`).
        let dest = self.dest.expect("copy and move have a destination");
        if let Some(limit) = dest.mount.as_ref().and_then(fs::Mount::max_file_size)
            && meta.kind == Kind::File
            && meta.size > limit
            && !by_rename
        {
            let error = Error::TooLarge {
                path: self.plan.source_path(i),
                size: meta.size,
                limit,
            };
            return self.fail(i, error);
        }
        let name = self.plan.dest_name(i);
        if !conflict::name_fits(name, dest.caps.windows_names, dest.name_max) {
            let kind = ConflictKind::NameNotAllowed;
            return match policy_choice(self.policy, kind) {
                Choice::Ask => self.ask(i, kind, meta, None, src_dir, dest_dir),
                _ => self.fail(
                    i,
                    Error::NameNotAllowed {
                        path: self.plan.dest_path(i),
                    },
                ),
            };
        }
        let existing = match dest_dir.map(|d| fs::stat_at(d, name)) {
            None | Some(Err(Errno::NOENT)) => None,
            Some(Ok(m)) => Some(m),
            Some(Err(e)) => return self.fail(i, Error::io("stat", self.plan.dest_path(i), e)),
        };
        // Merged into or replaced, the undo journal would be overwritten or set aside.
        if existing.is_some_and(|e| Some(e.id) == self.state_id) {
            let path = self.plan.dest_path(i);
            return self.fail(i, Error::IntoFerryState { path });
        }
        let Some(existing) = existing else {
            let action = if by_rename {
                Action::Rename
            } else {
                Action::Create
            };
            // A resume continues the parts its record left: their bytes are written already.
            let kept = match (self.ctx.resuming, self.ctx.journal_seq, dest_dir) {
                (true, Some(seq), Some(dir)) => super::partial::part_bytes(dir, seq, name, meta),
                _ => 0,
            };
            self.set(i, meta, action);
            self.needed_bytes = self.needed_bytes.saturating_sub(kept);
            return;
        };
        // On a disk that takes `Notes.txt` for `notes.txt`, the one there may be this very
        // folder's other spelling, copied along: replacing it would lose one of the two.
        if dest.caps.windows_names
            && meta.kind != Kind::Dir
            && self.plan.item(i).parent != NO_ITEM
            && let Some(dir) = dest_dir
            && let Some(listed) = listed_otherwise(&mut self.dest_listing, dir, name)
            && fs::stat_at(src_dir, &listed).is_ok()
        {
            let path = self.plan.dest_path(i);
            let existing = path.with_file_name(&listed);
            return self.fail(i, Error::NameFolded { path, existing });
        }
        if existing.id == meta.id {
            // Pasting a file into its own folder makes a duplicate; anything else onto itself
            // is refused (Replace would destroy it), a source given a path that is itself
            // (`ferry cp a.txt a.txt`, or another name of the file) too, as `cp` refuses it.
            let root = &self.plan.roots[self.plan.root_of(i)];
            let named = root.origin == NO_ITEM && root.dest_name.is_some();
            let same_folder = self.plan.item(i).parent == NO_ITEM
                && !named
                && dest_dir.is_some_and(|d| {
                    fs::stat_fd(d).ok().map(|m| m.id) == fs::stat_fd(src_dir).ok().map(|m| m.id)
                });
            if same_folder && self.mode == Mode::Copy {
                return self.defer(i, ConflictKind::FileExists, Resolution::KeepBoth);
            }
            let error = Error::SameFile {
                path: self.plan.source_path(i),
                dest: self.plan.dest_path(i),
            };
            return self.fail(i, error);
        }
        // A link to what is there (`../mv1/a.txt` pasted into `mv1`): put in its place, it
        // would point at itself, the file or folder gone but for the replaced copy kept a
        // while. Refused as `cp -P` and `mv` refuse it ("are the same file").
        if meta.kind == Kind::Symlink
            && fs::stat_following_at(src_dir, self.plan.name(i)).is_ok_and(|t| t.id == existing.id)
        {
            let error = Error::SameFile {
                path: self.plan.source_path(i),
                dest: self.plan.dest_path(i),
            };
            return self.fail(i, error);
        }
        if self.ctx.resuming
            && self.mode == Mode::Copy
            && dest_dir.is_some_and(|d| self.copied_before(i, meta, &existing, src_dir, d))
        {
            // Done by the run being resumed: kept as it is, never replaced by itself; the
            // file's other names are linked to it.
            if meta.nlink > 1 {
                self.plan.links.present(meta.id, self.plan.dest_path(i));
            }
            return self.plan.set_action(i, Action::Skip);
        }
        let kind = kind_of(meta.kind, existing.kind);
        let answered_otherwise = |f: &Forced| {
            let asked_here = matches!(
                f.answered,
                ConflictKind::FileExists | ConflictKind::FolderExists | ConflictKind::FileVsFolder
            );
            let other_item = f.about.is_some_and(|id| id != existing.id);
            asked_here && (f.answered != kind || other_item)
        };
        let choice = match force {
            // Another kind of item is there than the one the answer was given about (Replace
            // said of a file replaced a folder another program had put there since).
            Some(f) if answered_otherwise(f) => Choice::Ask,
            Some(f) => Choice::Do(f.resolution.clone()),
            None => policy_choice(self.policy, kind),
        };
        let resolution = match choice {
            Choice::Do(r) => r,
            Choice::Ask => return self.ask(i, kind, meta, Some(&existing), src_dir, dest_dir),
            Choice::Fail => {
                let error = Error::KindConflict {
                    path: self.plan.dest_path(i),
                    existing: existing.kind.noun(),
                };
                return self.fail(i, error);
            }
        };
        let replace = if by_rename {
            Action::RenameOver
        } else {
            Action::Replace
        };
        let replaces = match &resolution {
            Resolution::Replace => true,
            Resolution::ReplaceIfNewer => meta.mtime.newer_than_held(existing.mtime),
            _ => false,
        };
        // What is there, or its folder, is immutable or append-only (`chattr`, which binds root
        // too): it cannot be set aside. Refused before anything is written, since the copy's
        // temporary could not be removed from an append-only folder either.
        if replaces && (existing.pinned || self.dest_pinned(i, dest_dir)) {
            let path = self.plan.dest_path(i);
            return self.fail(i, Error::io("move aside", path, Errno::PERM));
        }
        match resolution {
            Resolution::Skip | Resolution::Cancel => self.skip(i, SkipReason::Exists),
            Resolution::Merge if kind == ConflictKind::FolderExists => {
                self.set(i, meta, Action::Merge);
            }
            Resolution::Merge => self.skip(i, SkipReason::Exists),
            Resolution::Replace | Resolution::ReplaceIfNewer if replaces => {
                self.plan.replacing.insert(i, (existing.id, existing.kind));
                self.set(i, meta, replace);
            }
            Resolution::Replace | Resolution::ReplaceIfNewer => self.skip(i, SkipReason::Exists),
            r @ (Resolution::KeepBoth | Resolution::RenameTo(_)) => self.defer(i, kind, r),
        }
    }

    /// True when `existing`, in `dest_dir`, is item `i`'s copy made by the interrupted run
    /// of a resumed copy: a file the engine linked in with the source's size and mtime (and
    /// the same sampled bytes: a resumed copy removes nothing, and reading every byte of what
    /// a 400 GB copy wrote before it was killed would cost hours; a resumed move's sources are
    /// settled by `recovery::is_copy_of`), a link to the same target, or a FIFO or socket of
    /// the same time.
    fn copied_before(
        &self,
        i: u32,
        meta: &Meta,
        existing: &Meta,
        src_dir: &OwnedFd,
        dest_dir: &OwnedFd,
    ) -> bool {
        let (src, dest) = (self.plan.name(i), self.plan.dest_name(i));
        match (meta.kind, existing.kind) {
            (Kind::File, Kind::File) => {
                existing.size == meta.size
                    && meta.mtime.kept_as(existing.mtime)
                    && likely_identical(src_dir, src, dest_dir, dest, meta.size)
            }
            (Kind::Symlink, Kind::Symlink) => {
                let target = |dir, name| rustix::fs::readlinkat(dir, name, Vec::new()).ok();
                target(src_dir, src).is_some_and(|t| target(dest_dir, dest) == Some(t))
            }
            // Nothing in them but their kind and times, which a copy is given (a device's
            // number is not in `Meta`: one is replaced again, as before). Replaced again, the
            // run's own FIFO was staged as if the user's, and the undo could not put back both.
            (Kind::Fifo, Kind::Fifo) | (Kind::Socket, Kind::Socket) => {
                meta.mtime.kept_as(existing.mtime)
            }
            _ => false,
        }
    }

    /// Whether `dest_dir`, the folder item `i` goes into, is immutable or append-only: one
    /// `fstat` per folder, not per item replaced in it.
    fn dest_pinned(&mut self, i: u32, dest_dir: Option<&OwnedFd>) -> bool {
        let folder = (self.plan.root_of(i), self.plan.item(i).parent);
        match self.dest_pinned {
            Some((of, pinned)) if of == folder => pinned,
            _ => {
                let pinned = dest_dir.is_some_and(|d| fs::stat_fd(d).is_ok_and(|m| m.pinned));
                self.dest_pinned = Some((folder, pinned));
                pinned
            }
        }
    }

    fn set(&mut self, i: u32, meta: &Meta, action: Action) {
        let made = matches!(action, Action::Create | Action::Replace);
        let written = meta.kind == Kind::File && made;
        // A hard link to a file copied earlier takes no space, nor an inode.
        let linked = written && self.plan.links.add(i, meta);
        if written && !linked {
            self.needed_bytes += meta.size.min(meta.blocks * 512);
            self.needed_files += 1;
        }
        match (made, linked) {
            (true, false) => self.needed_inodes += 1,
            (true, true) => self.needed_links += 1,
            _ => {}
        }
        self.plan.set_action(i, action);
    }

    /// Answered without asking: carried out by a later root.
    fn defer(&mut self, i: u32, kind: ConflictKind, resolution: Resolution) {
        self.plan.set_action(i, Action::Ask);
        self.ctx.control.asks.decided(i, kind, resolution);
    }

    /// The second source of one name: a conflict of its own.
    pub(super) fn duplicate(
        &mut self,
        i: u32,
        first: u32,
        meta: &Meta,
        src_dir: &OwnedFd,
        dest_dir: &OwnedFd,
    ) {
        let kind = ConflictKind::DuplicateSource;
        match policy_choice(self.policy, kind) {
            Choice::Ask => {
                let f = *self.plan.item(first);
                let first_meta = Meta {
                    kind: f.kind,
                    size: f.size,
                    mtime: f.mtime,
                    ..*meta
                };
                let first_path = self.plan.source_path(first);
                self.ask_with(
                    i,
                    kind,
                    meta,
                    Some(&first_meta),
                    first_path,
                    src_dir,
                    dest_dir,
                );
            }
            Choice::Do(r @ Resolution::KeepBoth) => self.defer(i, kind, r),
            _ => self.fail(
                i,
                Error::DuplicateName {
                    path: self.plan.source_path(i),
                },
            ),
        }
    }

    fn ask(
        &mut self,
        i: u32,
        kind: ConflictKind,
        meta: &Meta,
        existing: Option<&Meta>,
        src_dir: &OwnedFd,
        dest_dir: Option<&OwnedFd>,
    ) {
        let dest_path = self.plan.dest_path(i);
        match dest_dir {
            Some(d) => self.ask_with(i, kind, meta, existing, dest_path, src_dir, d),
            // No destination folder yet (it is being created): nothing can be in the way
            // but a name the file system refuses; nothing to sample.
            None => {
                self.plan.set_action(i, Action::Ask);
                let about = existing.map(|m| m.id);
                if let Some(id) = self.ctx.control.asks.add_about(i, kind, about) {
                    let conflict = self.conflict_data(i, kind, meta, existing, dest_path, false);
                    self.conflicts.push(Conflict { id, ..conflict });
                }
            }
        }
    }

    #[allow(clippy::too_many_arguments)] // one call site each, all facts of one conflict
    fn ask_with(
        &mut self,
        i: u32,
        kind: ConflictKind,
        meta: &Meta,
        existing: Option<&Meta>,
        other: PathBuf,
        src_dir: &OwnedFd,
        dest_dir: &OwnedFd,
    ) {
        self.plan.set_action(i, Action::Ask);
        let about = existing.map(|m| m.id);
        let Some(id) = self.ctx.control.asks.add_about(i, kind, about) else {
            return; // answered by an earlier "all of this kind"
        };
        let identical = kind == ConflictKind::FileExists
            && meta.kind == Kind::File
            && existing.is_some_and(|e| e.kind == Kind::File && e.size == meta.size)
            // Only shown, and for "Identical: skip", which leaves both: samples will do.
            && likely_identical(
                src_dir,
                self.plan.name(i),
                dest_dir,
                self.plan.dest_name(i),
                meta.size,
            );
        let conflict = self.conflict_data(i, kind, meta, existing, other, identical);
        self.conflicts.push(Conflict { id, ..conflict });
    }

    fn conflict_data(
        &self,
        i: u32,
        kind: ConflictKind,
        meta: &Meta,
        existing: Option<&Meta>,
        other: PathBuf,
        likely_identical: bool,
    ) -> Conflict {
        let info = EntryInfo::of;
        // Named as it would be there: a trashed item's own name in the trash ("x.txt.2"),
        // or a copy's before its new name, was asked about ("Replace “x.txt.2”?").
        let mut source = info(self.plan.source_path(i), Some(meta));
        source.name = self.plan.dest_name(i).to_owned();
        let mut dest = info(other, existing);
        // The first of two items of one name is named as it too would be there (it showed
        // as "n.txt.3", its name in the trash).
        if kind == ConflictKind::DuplicateSource {
            dest.name = source.name.clone();
        }
        // Two links to one place are as alike as two files of the same bytes.
        let same_link = kind == ConflictKind::FileExists
            && source.link_target.is_some()
            && source.link_target == dest.link_target;
        Conflict {
            id: conflict::ConflictId(0),
            kind,
            source,
            dest,
            likely_identical: likely_identical || same_link,
        }
    }

    /// Plans the answered conflicts as new roots after the existing ones (skips are recorded
    /// at once). Returns the extended plan, and the error that stopped planning early, if any
    /// (cancelled, or the plan outgrew its indexes).
    pub(crate) fn extend(
        mut self,
        answers: Vec<(Waiting, Resolution)>,
    ) -> (Planned, Option<Error>) {
        for (w, resolution) in answers {
            let i = w.item;
            let name = self.plan.dest_name(i).to_owned();
            let (dest_name, force) = match resolution {
                // The job is being cancelled: the item stays not done.
                Resolution::Cancel => continue,
                Resolution::Skip => {
                    let reason = match w.kind {
                        ConflictKind::NameNotAllowed => SkipReason::NameNotAllowed,
                        _ => SkipReason::Exists,
                    };
                    self.skip(i, reason);
                    continue;
                }
                Resolution::KeepBoth => {
                    let dest = self.plan.dest_path(i);
                    let dir = dest.parent().unwrap_or(Path::new(""));
                    let name_max = self.dest.map_or(255, |d| d.name_max);
                    let claimed = &self.plan.claimed;
                    let folder = self.plan.item(i).kind == Kind::Dir;
                    let fresh = conflict::keep_both_name(&name, folder, name_max, |n| {
                        claimed.contains(&dir.join(n))
                            || std::fs::symlink_metadata(dir.join(n)).is_ok()
                    });
                    (Some(fresh), None)
                }
                Resolution::RenameTo(n) => (Some(n), None),
                resolution => {
                    let forced = Forced {
                        resolution,
                        answered: w.kind,
                        about: w.existing,
                    };
                    (self.own_dest_name(i), Some(forced))
                }
            };
            if let Err(e) = self.reroot(i, dest_name, force) {
                return (self.finish(), Some(e));
            }
        }
        (self.finish(), None)
    }

    /// The name item `i` goes to when it is not its source's (a restore's `notes.2` going back
    /// to `notes`): a new root standing for it keeps it.
    pub(in crate::jobs) fn own_dest_name(&self, i: u32) -> Option<OsString> {
        let name = self.plan.dest_name(i);
        (name != self.plan.name(i)).then(|| name.to_owned())
    }

    /// Hands item `i` over to a new root of the plan: its source into its destination folder,
    /// as `dest_name` (`None`: its source's name), carrying out `force`.
    pub(in crate::jobs) fn reroot(
        &mut self,
        i: u32,
        dest_name: Option<OsString>,
        force: Option<Forced>,
    ) -> Result<(), Error> {
        let (source, dest) = (self.plan.source_path(i), self.plan.dest_path(i));
        let dest_dir = dest.parent().map(PathBuf::from);
        if let Some(n) = &dest_name {
            self.plan
                .claimed
                .insert(dest_dir.clone().unwrap_or_default().join(n));
        }
        // The item is now carried out by the new root.
        self.plan.set_action(i, Action::Ask);
        self.add_root(&source, dest_dir, dest_name, i, force)
    }
}

/// Same size and same head, middle and tail samples.
fn likely_identical(
    src_dir: &OwnedFd,
    src: &OsStr,
    dest_dir: &OwnedFd,
    dest: &OsStr,
    size: u64,
) -> bool {
    match (
        fs::open_file_at(src_dir, src),
        fs::open_file_at(dest_dir, dest),
    ) {
        (Ok(a), Ok(b)) => same_samples(&a, &b, size),
        _ => false,
    }
}

/// How folder `dir` lists `name`, which opens an entry there, when not as it is written: the
/// other spelling a file system that folds names (FAT) keeps. The folder is read once and
/// kept in `cache` for its next items; `None` when it cannot be read.
fn listed_otherwise(
    cache: &mut Option<(FileId, HashSet<OsString>)>,
    dir: &OwnedFd,
    name: &OsStr,
) -> Option<OsString> {
    let id = fs::stat_fd(dir).ok()?.id;
    if cache.as_ref().is_none_or(|(read, _)| *read != id) {
        *cache = Some((id, fs::names_in(dir).ok()?));
    }
    let (_, names) = cache.as_ref()?;
    if names.contains(name) {
        return None;
    }
    let lower = |n: &OsStr| n.to_string_lossy().to_lowercase();
    let wanted = lower(name);
    names.iter().find(|n| lower(n) == wanted).cloned()
}
