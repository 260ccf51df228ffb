//! Putting a written item in place. A file gets its mode, extended attributes and times
//! through its descriptor, a link or FIFO its times by name; then the temporary it was
//! written as is renamed to its final name, never replacing anything (for Replace, the old
//! item goes to the staging folder first). A temporary that is not committed is removed
//! when dropped, so a failure leaves nothing behind. Symbolic links and FIFOs are made here
//! too, under a temporary name (they have no unnamed form), as are the owner and permission
//! bits a copy is given.
//!
//! Owners are kept as `cp -a` and `mv` keep them: root gives a copy its source's owner and
//! group; anyone else keeps their own user and gives the source's group where they belong to
//! it (the kernel decides; a refusal is silent, as with `cp -a`). So a move across file
//! systems as root leaves every file its owner, as `mv` does. Set-user-id and set-group-id
//! bits survive only with the owner and group they go with. What a copy is created with is
//! the process's group, or a set-group-id destination folder's (`Batch::group`): compared
//! with the source's, so that a copy into a shared folder gets its source's group back
//! where `cp -a` would, and a folder created there keeps the inherited bit.

use std::ffi::{OsStr, OsString};
use std::sync::Arc;

use rustix::fd::OwnedFd;
use rustix::fs::{AtFlags, FileType, Mode};
use rustix::io::Errno;

use super::NoteKind;
use super::copy::{Batch, Copier, Outcome};
use super::notes::refused;
use super::partial::PartSource;
use super::plan::Action;
use crate::entry::Kind;
use crate::error::Error;
use crate::fs;

/// Files at least this large are looked at again once written: written to meanwhile (a
/// download, a log, an edit in place whose tool set the modification time back, or a
/// `chmod`), their copy holds neither the old content nor the new, and the item fails as
/// changed during the copy, the copy not put in place (RELIABILITY rule 10). A smaller
/// file is copied in one call, too fast for a write to fall in between as a rule, and one
/// more `fstat` each costs 3-10% of a copy of many small files (measured on 5,000 x 4 KiB).
const RECHECK_MIN_SIZE: u64 = 1 << 20;

/// Whether a copy has its source's owner and group.
#[derive(Debug, Clone, Copy)]
pub(super) struct Ownership {
    user: bool,
    group: bool,
    /// Given after the copy was made: the kernel cleared its set-id bits then.
    changed: bool,
}

impl Copier<'_> {
    /// Gives a written file its mode, extended attributes and times; returns its inode, or
    /// [`INODE_PENDING`] for a file `created` in a hidden folder, whose inode is read with
    /// its folder's entries. `inherits_acl`: see [`Batch::inherits_acl`]. What the
    /// destination refuses to hold is a note of the job, not a failure (see `notes.rs`).
    pub(super) fn finish_file(
        &self,
        src: &OwnedFd,
        dst: &OwnedFd,
        meta: &fs::Meta,
        i: u32,
        (created, inherits_acl): (Option<Created>, bool),
    ) -> Result<u64, Error> {
        let dest_err = |op| move |e| Error::io(op, self.plan.dest_path(i), e);
        crate::fault::point("file-written");
        if meta.size >= RECHECK_MIN_SIZE {
            let path = || self.plan.source_path(i);
            let now = fs::stat_fd(src).map_err(|e| Error::io("stat", path(), e))?;
            // A link made or removed meanwhile moves the change time too, and is no change.
            let ctime_moved = now.ctime != meta.ctime && now.nlink == meta.nlink;
            if (now.size, now.mtime) != (meta.size, meta.mtime) || ctime_moved {
                return Err(Error::Changed { path: path() });
            }
        }
        let written = match created {
            Some(created) => created,
            None => {
                let st = fs::stat_fd(dst).map_err(dest_err("stat"))?;
                Created {
                    mode: st.mode,
                    size: st.size,
                    ino: st.id.ino,
                    gid: st.gid,
                }
            }
        };
        // Before the mode: a change of owner clears the set-id bits.
        let owner = self.give_owner(i, (meta.uid, meta.gid), written.gid, |uid, gid| {
            fs::set_owner_fd(dst, uid, gid)
        })?;
        // An unnamed file is created with its final mode: most keep it through the umask.
        let mode = self.mode_of(i, meta.mode, owner);
        if written.mode != mode || (owner.changed && mode & 0o6000 != 0) {
            self.set_mode(dst, mode, i)
                .map_err(dest_err("set the permissions of"))?;
        }
        // Best effort: extended attributes never fail the file.
        let inherited: &[&str] = if inherits_acl { &[fs::ACCESS_ACL] } else { &[] };
        if let Err(e) = fs::copy_xattrs(src, dst, inherited) {
            self.ctx.note_xattrs(self.plan.dest_path(i), e);
        }
        let set = fs::set_times_fd(dst, meta.atime, meta.mtime);
        self.metadata(i, NoteKind::Times, set)
            .map_err(dest_err("set the times of"))?;
        let planned = self.plan.item(i);
        if written.size != planned.size || meta.mtime != planned.mtime {
            super::lock(&self.written).push((i, written.size, meta.mtime));
        }
        Ok(written.ino)
    }

    /// `set`, the result of giving item `i` some metadata `what`: an error saying the
    /// destination cannot hold it becomes the job's note; others are returned.
    pub(super) fn metadata(
        &self,
        i: u32,
        what: NoteKind,
        set: rustix::io::Result<()>,
    ) -> rustix::io::Result<()> {
        match set {
            Err(e) if refused(e) => {
                self.ctx.note(what, self.plan.dest_path(i), Some(e));
                Ok(())
            }
            other => other,
        }
    }

    /// Sets the mode of item `i`'s copy; where the destination keeps no permissions (or
    /// refuses them now), notes that they are not kept.
    pub(super) fn set_mode(&self, fd: &OwnedFd, mode: u32, i: u32) -> rustix::io::Result<()> {
        if self.keeps_modes {
            self.metadata(i, NoteKind::Permissions, fs::set_mode_fd(fd, mode))
        } else {
            self.ctx
                .note(NoteKind::Permissions, self.plan.dest_path(i), None);
            Ok(())
        }
    }

    /// The mode item `i`'s copy gets from `mode`, its source's (or the plan's for it,
    /// [`Plan::mode_for`](super::plan::Plan::mode_for)): set-user-id survives only if the
    /// copy has the owner of the original, set-group-id only if it has its group.
    pub(super) fn mode_of(&self, i: u32, mode: u32, owner: Ownership) -> u32 {
        let mode = self.plan.mode_for(i, mode);
        let user = if owner.user { 0 } else { 0o4000 };
        let group = if owner.group { 0 } else { 0o2000 };
        mode & !(user | group)
    }

    /// Whose a copy of an item owned by `uid` and `gid` is as this process creates it with
    /// the group `group` (its own, or a set-group-id folder's).
    pub(super) fn as_created(&self, (uid, gid): (u32, u32), group: u32) -> Ownership {
        Ownership {
            user: uid == self.euid,
            group: gid == group,
            changed: false,
        }
    }

    /// Gives item `i`'s copy, created with the group `group`, its source's owner `uid` and
    /// group `gid` with `chown` where creating it did not and the process may (see the module
    /// documentation). Where root is refused (a FAT disk, many FUSE mounts), a note that
    /// permissions are not kept.
    pub(super) fn give_owner(
        &self,
        i: u32,
        (uid, gid): (u32, u32),
        group: u32,
        chown: impl FnOnce(Option<u32>, Option<u32>) -> rustix::io::Result<()>,
    ) -> Result<Ownership, Error> {
        let mut owner = self.as_created((uid, gid), group);
        let root = self.euid == 0;
        // `u32::MAX` is "no change" to the kernel, never an owner. Anyone but root may give
        // only a group they are in: no call that is sure to be refused (a user's copy of
        // `/usr/share` would make one a file).
        let user = (root && !owner.user && uid != u32::MAX).then_some(uid);
        let may_give = |gid| root || gid == self.egid || self.groups.contains(&gid);
        let group = (!owner.group && gid != u32::MAX && may_give(gid)).then_some(gid);
        if !self.keeps_modes || (user.is_none() && group.is_none()) {
            return Ok(owner);
        }
        match chown(user, group) {
            Ok(()) => {
                owner.user |= user.is_some();
                owner.group = true;
                owner.changed = true;
            }
            Err(Errno::PERM) if !root => {}
            Err(e) => self
                .metadata(i, NoteKind::Permissions, Err(e))
                .map_err(|e| Error::io("set the owner of", self.plan.dest_path(i), e))?,
        }
        Ok(owner)
    }

    pub(super) fn copy_symlink(&self, batch: &Batch, i: u32) -> Result<Outcome, Error> {
        let target = rustix::fs::readlinkat(&*batch.src, self.plan.name(i), Vec::new()).map_err(
            |e| match e {
                Errno::INVAL => Error::Changed {
                    path: self.plan.source_path(i),
                },
                e => Error::io("read the link", self.plan.source_path(i), e),
            },
        )?;
        let (temp, ()) = self
            .temp(batch, i, |dir, name| {
                rustix::fs::symlinkat(&*target, dir, name)
            })
            .map_err(|e| self.node_refused(Kind::Symlink, e))?;
        let item = self.plan.item(i);
        self.give_owner(i, (item.uid, item.gid), batch.group, |uid, gid| {
            fs::set_owner_at(&*batch.dst, &temp.name, uid, gid)
        })?;
        // Best effort, as for files: a link's `trusted.*` or `security.*` attributes.
        let from = (&*batch.src, self.plan.name(i));
        if let Err(e) = fs::copy_xattrs_at(from, (&*batch.dst, &*temp.name), &[]) {
            self.ctx.note_xattrs(self.plan.dest_path(i), e);
        }
        self.finish_special(batch, temp, i)
    }

    /// A FIFO, a socket, or a character or block device, made anew with the source's type and
    /// device number (a device only by root, as `cp -a` run by root makes them). Where the
    /// kernel or the file system refuses (EPERM, EOPNOTSUPP, ENOSYS), the item fails with that
    /// reason, as `cp -a` fails it: a skip would hide why, and end the job as complete. A socket made anew is an inode no program
    /// listens on, as `cp -a` and `mv` across file systems make it: the program that made it
    /// makes it again when it starts, and a folder moved with one is not left behind.
    pub(super) fn copy_node(&self, batch: &Batch, i: u32) -> Result<Outcome, Error> {
        let (meta, rdev) = fs::stat_node_at(&*batch.src, self.plan.name(i))
            .map_err(|e| Error::io("stat", self.plan.source_path(i), e))?;
        let planned = self.plan.item(i);
        let file_type = match meta.kind {
            Kind::Fifo => Some(FileType::Fifo),
            Kind::Socket => Some(FileType::Socket),
            Kind::CharDevice => Some(FileType::CharacterDevice),
            Kind::BlockDevice => Some(FileType::BlockDevice),
            _ => None,
        };
        let Some(file_type) =
            file_type.filter(|_| meta.kind == planned.kind && meta.id == planned.id)
        else {
            return Err(Error::Changed {
                path: self.plan.source_path(i),
            });
        };
        let make = |dir: &OwnedFd, name: &OsStr| {
            rustix::fs::mknodat(dir, name, file_type, Mode::from_raw_mode(0o600), rdev)
        };
        let temp = match self.temp(batch, i, make) {
            Ok((temp, ())) => temp,
            Err(e) => return Err(self.node_refused(meta.kind, e)),
        };
        let owner = self.give_owner(i, (meta.uid, meta.gid), batch.group, |uid, gid| {
            fs::set_owner_at(&*batch.dst, &temp.name, uid, gid)
        })?;
        let mode = Mode::from_raw_mode(self.mode_of(i, meta.mode, owner));
        let set = rustix::fs::chmodat(&*batch.dst, &temp.name, mode, AtFlags::empty());
        self.metadata(i, NoteKind::Permissions, set)
            .map_err(|e| Error::io("set the permissions of", self.plan.dest_path(i), e))?;
        // Its ACLs, and none its folder's default ACL gave it that its source has not (a
        // FIFO open to more users than its source would let them read what is written to it).
        let inherited: &[&str] = if batch.inherits_acl {
            &[fs::ACCESS_ACL]
        } else {
            &[]
        };
        let from = (&*batch.src, self.plan.name(i));
        if let Err(e) = fs::copy_xattrs_at(from, (&*batch.dst, &*temp.name), inherited) {
            self.ctx.note_xattrs(self.plan.dest_path(i), e);
        }
        self.finish_special(batch, temp, i)
    }

    /// `error` from making a link or node of `kind`, as the item's failure, said as what it
    /// means where it means that this file system cannot hold one: ENOSYS or EOPNOTSUPP
    /// (fusefat makes no link), EPERM for a link on a FAT or exFAT disk, and EIO from a FUSE
    /// server that makes none (fusefat's FIFOs), which elsewhere stops the job as a failing
    /// disk would. It fails that item alone.
    fn node_refused(&self, kind: Kind, error: Error) -> Error {
        let fuse = self.dest.mount.as_ref().is_some_and(fs::Mount::is_fuse);
        let windows = self.dest.caps.windows_names;
        match error {
            Error::Io { op, path, source }
                if source.raw_os_error().is_some_and(|raw| {
                    cannot_hold(kind, Errno::from_raw_os_error(raw), fuse, windows)
                }) =>
            {
                let reason = format!("this file system cannot hold a {} ({source})", kind.noun());
                let source = std::io::Error::new(std::io::ErrorKind::Unsupported, reason);
                Error::Io { op, path, source }
            }
            error => error,
        }
    }

    /// Times, identity and commit of a link, FIFO, socket or device (no descriptor to work through).
    pub(super) fn finish_special(
        &self,
        batch: &Batch,
        temp: Temp<'_>,
        i: u32,
    ) -> Result<Outcome, Error> {
        let item = self.plan.item(i);
        let set = fs::set_times_at(&*batch.dst, &temp.name, item.atime, item.mtime);
        self.metadata(i, NoteKind::Times, set)
            .map_err(|e| Error::io("set the times of", self.plan.dest_path(i), e))?;
        let ino = fs::stat_at(&*batch.dst, &temp.name)
            .map_err(|e| Error::io("stat", self.plan.dest_path(i), e))?
            .id
            .ino;
        crate::fault::point("special-made");
        self.commit(batch, temp, i, (ino, 0))
    }

    /// Creates a uniquely named temporary with `make` in the batch's destination folder.
    pub(super) fn temp<'b, T>(
        &self,
        batch: &'b Batch,
        i: u32,
        make: impl Fn(&OwnedFd, &OsStr) -> rustix::io::Result<T>,
    ) -> Result<(Temp<'b>, T), Error> {
        let (name, made) = self.temp_name(&batch.dst, i, make)?;
        let temp = Temp {
            dir: &batch.dst,
            name,
            armed: true,
            part_of: None,
        };
        Ok((temp, made))
    }

    /// Makes something with `make` under a temporary name for item `i` in `dir`, not taken
    /// yet; returns the name.
    pub(super) fn temp_name<T>(
        &self,
        dir: &OwnedFd,
        i: u32,
        make: impl Fn(&OwnedFd, &OsStr) -> rustix::io::Result<T>,
    ) -> Result<(OsString, T), Error> {
        for attempt in 0..8 {
            let name = match attempt {
                0 => format!("{}{i}", self.temp_prefix),
                n => format!("{}{i}-{n}", self.temp_prefix),
            };
            match make(dir, OsStr::new(&name)) {
                Ok(t) => return Ok((name.into(), t)),
                Err(Errno::EXIST) => {} // left over by a crashed run with the same pid: pick another
                Err(e) => {
                    // A FUSE FAT disk answers a FIFO's `mknodat` with EIO and keeps an entry
                    // under the name all the same: ours, so not left for the user to find.
                    let _ = rustix::fs::unlinkat(dir, name.as_str(), AtFlags::empty());
                    return Err(Error::io("create", self.plan.dest_path(i), e));
                }
            }
        }
        Err(Error::io("create", self.plan.dest_path(i), Errno::EXIST))
    }

    /// Renames the finished temporary into place without replacing anything (for Replace,
    /// the old item is moved to the staging folder first); a name that appeared since
    /// planning is a new conflict, never clobbered.
    /// Puts the written temporary of item `i` in place; `counted` is what its writing added
    /// to the job's bytes done (taken back if its name was taken meanwhile).
    pub(super) fn commit(
        &self,
        batch: &Batch,
        mut temp: Temp<'_>,
        i: u32,
        (ino, counted): (u64, u64),
    ) -> Result<Outcome, Error> {
        let name = self.plan.dest_name(i);
        let staged = match self.plan.item(i).action {
            Action::Replace => {
                crate::fault::point("replace-written");
                self.stash(&batch.dst, i)?
            }
            _ => None,
        };
        // Given to the temporary, and lost by the rename on some FUSE file systems (fusefat
        // stamps a renamed file with the time of the rename): given again once in place.
        let times = (self.dest_resets_times_on_rename)
            .then(|| fs::stat_at(&*batch.dst, &temp.name).ok())
            .flatten();
        let renamed = fs::rename_noreplace(&*batch.dst, &temp.name, &*batch.dst, name);
        self.settle(staged, renamed, &batch.dst, i)?;
        match renamed {
            Ok(()) => {
                temp.armed = false;
                if let Some(m) = times {
                    let set = fs::set_times_at(&*batch.dst, name, m.atime, m.mtime);
                    if let Err(e) = set {
                        self.ctx
                            .note(NoteKind::Times, self.plan.dest_path(i), Some(e));
                    }
                }
                Ok(Outcome::Done(ino))
            }
            Err(Errno::EXIST) => {
                let outcome = self.taken_after_writing(&batch.dst, i, counted);
                if let (Ok(Outcome::Asked), Some(source)) = (&outcome, temp.part_of) {
                    temp.armed = false;
                    let part = std::mem::take(&mut temp.name);
                    (self.plan.asked_parts).keep(source, Arc::clone(&batch.dst), part, ino);
                }
                outcome
            }
            Err(e) => Err(Error::io("rename into place", self.plan.dest_path(i), e)),
        }
    }
}

/// What a written file is: its permission bits, size and inode.
#[derive(Debug, Clone, Copy)]
pub(super) struct Created {
    pub(super) mode: u32,
    pub(super) size: u64,
    pub(super) ino: u64,
    pub(super) gid: u32,
}

/// A temporary in the destination folder, removed unless committed.
pub(super) struct Temp<'b> {
    pub(super) dir: &'b OwnedFd,
    pub(super) name: OsString,
    pub(super) armed: bool,
    /// A large file's part (`partial.rs`): the source it is a copy of, as it was. Kept when
    /// its name is found taken and asked about, for the answer to put in place.
    pub(super) part_of: Option<PartSource>,
}

impl Drop for Temp<'_> {
    fn drop(&mut self) {
        if self.armed {
            let _ = rustix::fs::unlinkat(self.dir, &self.name, AtFlags::empty());
        }
    }
}

/// Whether `errno` from making a link or node of `kind` means that the destination cannot
/// hold one (see `Copier::node_refused`): `fuse` for a FUSE file system, `windows` for one
/// with Windows' rules for names (FAT, exFAT, NTFS).
fn cannot_hold(kind: Kind, errno: Errno, fuse: bool, windows: bool) -> bool {
    match errno {
        Errno::NOSYS | Errno::OPNOTSUPP => true,
        Errno::PERM => kind == Kind::Symlink && windows,
        Errno::IO => fuse,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// fusefat answered a link with ENOSYS, shown raw ("Function not implemented"); a FAT
    /// disk answers EPERM. A FIFO refused by a non-root user's EPERM is not the disk's doing.
    #[test]
    fn what_a_disk_that_cannot_hold_a_link_or_node_answers() {
        assert!(cannot_hold(Kind::Symlink, Errno::NOSYS, true, true));
        assert!(cannot_hold(Kind::Symlink, Errno::PERM, false, true));
        assert!(cannot_hold(Kind::Fifo, Errno::IO, true, true));
        assert!(cannot_hold(Kind::Fifo, Errno::OPNOTSUPP, false, false));
        assert!(!cannot_hold(Kind::Fifo, Errno::PERM, false, true));
        assert!(!cannot_hold(Kind::Symlink, Errno::PERM, false, false));
        assert!(
            !cannot_hold(Kind::Symlink, Errno::IO, false, true),
            "a failing disk"
        );
        assert!(!cannot_hold(Kind::Symlink, Errno::NOSPC, true, true));
    }
}
