//! The sources a job was given, each a root of the plan: its folder opened (once for all the
//! sources it holds), the source itself examined (refused, skipped as given twice or as
//! inside another source, or checked against its destination) before the walk goes below it.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustix::fd::OwnedFd;
use rustix::io::Errno;

use super::super::{Action, Forced, Mode, NO_ITEM, Root, removable};
use super::Planner;
use crate::entry::Kind;
use crate::error::Error;
use crate::fs::{self, FileId, Meta};
use crate::jobs::SkipReason;
use crate::jobs::decide::one_rename;

impl Planner<'_> {
    /// Plans one more root: `source` into `dest_dir` (the job's destination if `None`) as
    /// `dest_name`, standing for item `origin` of an earlier root, carrying out `force`.
    pub(in crate::jobs) fn add_root(
        &mut self,
        source: &Path,
        dest_dir: Option<PathBuf>,
        dest_name: Option<OsString>,
        origin: u32,
        force: Option<Forced>,
    ) -> Result<(), Error> {
        // `lnk/` copies the folder behind the link, named as the link (`cp -r lnk/ x`).
        let folder = (self.mode == Mode::Copy)
            .then(|| fs::folder_behind_final_slash(source))
            .flatten();
        let dest_name = match &folder {
            Some(_) => dest_name.or_else(|| source.file_name().map(OsStr::to_owned)),
            None => dest_name,
        };
        let source = folder.as_deref().unwrap_or(source);
        let (item, blocks) = (self.plan.items.len() as u32, self.plan.blocks.len() as u32);
        self.plan.roots.push(Root {
            item,
            end: item,
            blocks: (blocks, blocks),
            source: source.to_path_buf(),
            dest_name,
            dest_dir,
            origin,
            force,
            source_parent: None,
            source_parent_real: None,
        });
        self.source(source)?;
        let (items, blocks) = (self.plan.items.len() as u32, self.plan.blocks.len() as u32);
        let root = self.plan.roots.last_mut().expect("pushed above");
        (root.end, root.blocks.1) = (items, blocks);
        Ok(())
    }

    /// For a move that copies, then removes, item `i` (named `name` in `dir`, stat'ed as
    /// `meta`, given as `source`) whose removal once copied was `refused`: asks like an error
    /// reading the source (Retry looks at the item, and at an unchecked holder, again) until
    /// it could be removed (true) or is skipped (false). See `removable.rs`.
    pub(super) fn ask_until_removable(
        &mut self,
        (i, source): (u32, &Path),
        dir: &OwnedFd,
        mut holder: removable::Holder,
        (name, mut meta): (&OsStr, Meta),
        refused: Errno,
    ) -> bool {
        let mut refusal = Some(refused);
        while let Some(e) = refusal {
            if !self.retry(i, Error::io("move", source, e)) {
                return false;
            }
            if holder.unchecked.is_some()
                && let Ok(m) = fs::stat_fd(dir)
            {
                holder = removable::Holder::parent(&m);
            }
            meta = fs::stat_at(dir, name).unwrap_or(meta);
            refusal = removable::refused(dir, &holder, name, &meta);
        }
        true
    }

    fn op(&self) -> &'static str {
        match self.mode {
            Mode::Copy => "copy",
            Mode::Move => "move",
            Mode::Delete => "delete",
        }
    }

    fn source(&mut self, source: &Path) -> Result<(), Error> {
        let name =
            (source.file_name()).filter(|_| self.mode != Mode::Delete || !fs::ends_in_dot(source));
        let Some(name) = name else {
            // `/`, `..`, `a/..`: nothing a file manager should copy, move or delete; nor
            // `a/.` to delete, as `rm` refuses it (a copy or move takes it as `a`).
            let i = self.plan.push(NO_ITEM, OsStr::new(""), Kind::Unknown)?;
            self.fail(
                i,
                Error::Refused {
                    op: self.op(),
                    path: source.to_path_buf(),
                },
            );
            return Ok(());
        };
        let i = self.plan.push(NO_ITEM, name, Kind::Unknown)?;
        if self.inside_others.contains(source) {
            self.skip(i, SkipReason::InsideSource);
            return Ok(());
        }
        let parent_path = self
            .plan
            .roots
            .last()
            .expect("pushed by run")
            .parent()
            .to_path_buf();
        let (parent, parent_meta, meta) = loop {
            let opened = self.open_parent(&parent_path).map_err(|e| ("open", e));
            let stat = |(p, m): (Arc<OwnedFd>, Meta)| {
                let meta = fs::stat_at(&*p, name).map_err(|e| ("stat", e))?;
                Ok((p, m, meta))
            };
            match opened.and_then(stat) {
                Ok(found) => break found,
                Err((op, e)) if self.retry(i, Error::io(op, source, e)) => {}
                Err(_) => return Ok(()),
            }
        };
        self.plan.set_meta(i, &meta);
        let real = (self.mode == Mode::Move)
            .then(|| self.real_parent(&parent, parent_meta.id, &parent_path))
            .flatten();
        let root = self.plan.roots.last_mut().expect("pushed by run");
        (root.source_parent, root.source_parent_real) = (Some(parent_meta.id), real);
        let derived = root.origin != NO_ITEM;
        // Given twice: the same item, under the same name. Two names of one file are links.
        let linked = meta.kind == Kind::File && meta.nlink > 1;
        let seen = (meta.id, linked.then(|| name.to_owned()));
        if !derived && !self.ids_seen.insert(seen) {
            self.skip(i, SkipReason::Duplicate);
            return Ok(());
        }
        if let Err(e) = fs::check_final_slash(source, &meta, &*parent, name) {
            self.fail(i, Error::io(self.op(), source, e));
            return Ok(());
        }
        if self.mode == Mode::Delete
            && self.is_ferry_state((name, meta.id), &parent, parent_meta.id, &parent_path)
        {
            let path = source.to_path_buf();
            self.fail(i, Error::HoldsFerryState { path });
            return Ok(());
        }
        self.root_mnt = meta.mnt_id;
        // Moving a mount point across file systems would empty the mounted file system and
        // then fail on the folder (EBUSY); renaming it fails anyway. A delete leaves it too.
        let mount_point = meta.kind == Kind::Dir && meta.mnt_id != parent_meta.mnt_id;
        if mount_point && self.mode != Mode::Copy {
            let path = source.to_path_buf();
            self.fail(i, Error::OtherFilesystem { path });
            return Ok(());
        }
        let mut dest_fd = None;
        if self.mode != Mode::Delete {
            let dest = self.dest.expect("copy and move have a destination");
            if let Some(state) = self.state_id
                && dest.ancestors.contains(&state)
            {
                let path = self.plan.dest_path(i);
                self.fail(i, Error::IntoFerryState { path });
                return Ok(());
            }
            if self.holds_dest(&meta) {
                self.fail(
                    i,
                    Error::IntoItself {
                        path: source.to_path_buf(),
                        dest: dest.path.clone(),
                    },
                );
                return Ok(());
            }
            let (fd, dmeta) = match self.root_dest() {
                Ok(pair) => pair,
                Err(e) => {
                    self.fail(i, e);
                    return Ok(());
                }
            };
            let dest_name = self.plan.dest_name(i).to_owned();
            if !derived && let Some(&first) = self.names_seen.get(&dest_name) {
                self.duplicate(i, first, &meta, &parent, &fd);
                return Ok(());
            }
            let folds = self.dest.is_some_and(|d| d.caps.windows_names);
            if !derived && folds {
                let lower = dest_name.to_string_lossy().to_lowercase();
                if let Some(&first) = self.folded_seen.get(&lower) {
                    let path = self.plan.dest_path(i);
                    let existing = self.plan.dest_path(first);
                    self.fail(i, Error::NameFolded { path, existing });
                    return Ok(());
                }
                self.folded_seen.insert(lower, i);
            }
            self.names_seen.entry(dest_name).or_insert(i);
            let force = self.plan.roots.last().and_then(|r| r.force.clone());
            let renames = self.renames && one_rename(&meta, parent_meta.id.dev, &dmeta);
            let holder = removable::Holder::parent(&parent_meta);
            if self.mode == Mode::Move
                && !renames
                && let Some(e) = removable::refused(&*parent, &holder, name, &meta)
                && !self.ask_until_removable((i, source), &parent, holder, (name, meta), e)
            {
                return Ok(());
            }
            self.decide(i, &meta, &parent, Some(&*fd), renames, force.as_ref());
            dest_fd = Some((fd, dmeta));
        }
        if self.plan.item(i).walkable() {
            let merged = self.plan.item(i).action == Action::Merge;
            let dest = dest_fd.filter(|_| merged);
            self.walk(i, parent, parent_meta.id, dest)?;
        }
        Ok(())
    }

    /// Whether the item `name` (of identity `item`), in the folder `dir` (of identity `id`,
    /// reached by `path`), is, holds or is in Ferry's state folder (checked before anything
    /// of it is deleted).
    fn is_ferry_state(
        &mut self,
        (name, item): (&OsStr, FileId),
        dir: &OwnedFd,
        id: FileId,
        path: &Path,
    ) -> bool {
        let Some(state) = self.state.as_ref() else {
            return false;
        };
        let in_state = match self.state_parent {
            Some((cached, inside)) if cached == id => inside,
            _ => {
                let inside = state.holds_dir(dir);
                self.state_parent = Some((id, inside));
                inside
            }
        };
        let real = self
            .real_parent(dir, id, path)
            .or_else(|| fs::absolute(path));
        let state = self.state.as_ref();
        in_state
            || real.zip(state).is_some_and(|(real, state)| {
                crate::jobs::caution::is_ferry_state(&real.join(name), item, state)
            })
    }

    /// The open destination folder of the current root.
    fn root_dest(&self) -> Result<(Arc<OwnedFd>, Meta), Error> {
        let dest = self.dest.expect("copy and move have a destination");
        match &self.plan.roots.last().expect("a root").dest_dir {
            None => Ok((Arc::clone(&dest.fd), dest.meta)),
            Some(dir) => dest.open_dir(dir).map_err(|e| Error::io("open", dir, e)),
        }
    }

    /// Where the folder `dir` (of identity `id`, reached by `path`) really is, when a link on
    /// `path` leads elsewhere: a move's record keeps it, so that its undo tells a folder made
    /// again there from a link swapped in for it (`undo.rs`). Once per folder.
    fn real_parent(&mut self, dir: &OwnedFd, id: FileId, path: &Path) -> Option<PathBuf> {
        if let Some((cached, real)) = &self.parent_real
            && *cached == id
        {
            return real.clone();
        }
        let real = fs::real_path(dir).filter(|r| Some(r) != fs::absolute(path).as_ref());
        self.parent_real = Some((id, real.clone()));
        real
    }

    /// The folder holding a source, opened once for all the sources it holds (a selection of
    /// thousands of files in one folder costs one open, not thousands).
    fn open_parent(&mut self, path: &Path) -> rustix::io::Result<(Arc<OwnedFd>, Meta)> {
        if let Some((cached, fd, meta)) = &self.parent
            && cached == path
        {
            return Ok((Arc::clone(fd), *meta));
        }
        let fd = Arc::new(fs::open_dir_path(path)?);
        let meta = fs::stat_fd(&*fd)?;
        self.parent = Some((path.to_path_buf(), Arc::clone(&fd), meta));
        Ok((fd, meta))
    }
}
