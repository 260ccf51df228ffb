//! Jobs that are one system call: rename and create folder. They never wait in the device
//! queue, and leave the same events and undo record as the long jobs.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use rustix::fs::Mode;
use rustix::io::Errno;

use super::control::JobCtx;
use super::plan::{Action, Plan};
use super::start::not_started;
use super::summary::{self, Operation};
use super::{Event, Summary, Totals};
use crate::entry::Kind;
use crate::error::Error;
use crate::fs;

/// A single path component: not empty, not `.` or `..`, no `/` or NUL.
pub(crate) fn is_valid_name(name: &OsStr) -> bool {
    let b = name.as_bytes();
    !b.is_empty() && b != b"." && b != b".." && !b.contains(&b'/') && !b.contains(&0)
}

fn planned(ctx: &JobCtx, kind: Kind) {
    let totals = Totals {
        items: 1,
        folders: u64::from(kind == Kind::Dir),
        ..Totals::default()
    };
    ctx.emit(Event::Planned {
        job: ctx.id,
        totals,
    });
}

/// Renames `path` to `new_name` in its folder, never replacing an existing item.
pub(crate) fn rename(ctx: &JobCtx, path: &Path, new_name: &OsStr) -> Summary {
    let fail = |e| not_started(ctx, &[path.to_path_buf()], e);
    let Some(name) = path.file_name() else {
        return fail(Error::Refused {
            op: "rename",
            path: path.to_path_buf(),
        });
    };
    let parent = path.parent().unwrap_or(Path::new(""));
    if !is_valid_name(new_name) {
        return fail(Error::io("rename to", parent.join(new_name), Errno::INVAL));
    }
    let opened = fs::open_dir_path(parent).map_err(|e| Error::io("open", parent, e));
    let (pfd, meta) = match opened.and_then(|fd| {
        Ok((
            fs::stat_at(&fd, name).map_err(|e| Error::io("stat", path, e))?,
            fd,
        ))
    }) {
        Ok((meta, fd)) => (fd, meta),
        Err(e) => return fail(e),
    };
    let plan = match Plan::single(
        path.to_path_buf(),
        parent.to_path_buf(),
        Some(new_name.to_owned()),
        Action::Rename,
        &meta,
    ) {
        Ok(plan) => plan,
        Err(e) => return fail(e),
    };
    planned(ctx, meta.kind);
    let done = vec![AtomicU64::new(0)];
    // Renaming to the same name is nothing to do; `rename` on two links of one inode would
    // "succeed" doing nothing, which RENAME_NOREPLACE refuses with EEXIST instead.
    let renamed = if name == new_name {
        Ok(())
    } else {
        match fs::rename_noreplace(&pfd, name, &pfd, new_name) {
            Err(Errno::EXIST | Errno::INVAL) if names_the_item(&pfd, new_name, name) => {
                rename_through_temp(&pfd, name, new_name)
            }
            other => other,
        }
    };
    match renamed {
        Ok(()) => {
            done[0].store(meta.id.ino, Relaxed);
            ctx.counters.add_item();
        }
        // The name is taken: said of the name, not of the item (the undo of a rename whose
        // old name was taken since said "An item named “renamed.txt” is already there").
        Err(e @ (Errno::EXIST | Errno::NOTEMPTY)) => {
            let taken = parent.join(new_name);
            ctx.fail(0, path.to_path_buf(), Error::io("rename to", taken, e));
        }
        Err(e) => ctx.fail(0, path.to_path_buf(), Error::io("rename", path, e)),
    }
    summary::build(ctx, Operation::Rename, plan, done, meta.id.dev)
}

/// True when `new_name` opens the item listed as `name` itself: the file system folds the
/// two names into one (FAT, exFAT: `Photo.JPG` and `photo.jpg`), and a rename from one to the
/// other changes only how the name is written.
pub(crate) fn names_the_item(dir: &rustix::fd::OwnedFd, new_name: &OsStr, name: &OsStr) -> bool {
    fs::folded_name(dir, new_name).is_ok_and(|listed| listed.as_deref() == Some(name))
}

/// Renames `name` to `new_name`, two spellings of one name on this file system, by way of a
/// temporary name: a rename between them is taken for one onto itself (`EEXIST`, or nothing
/// done), and a folder's for one into itself (`EINVAL`), as Windows' own tools also find.
/// Put back under `name` if the second step fails.
fn rename_through_temp(
    dir: &rustix::fd::OwnedFd,
    name: &OsStr,
    new_name: &OsStr,
) -> rustix::io::Result<()> {
    let temp = std::ffi::OsString::from(format!(".ferry-renaming-{}", std::process::id()));
    fs::rename_noreplace(dir, name, dir, &temp)?;
    fs::rename_noreplace(dir, &temp, dir, new_name).inspect_err(|_| {
        let _ = fs::rename_noreplace(dir, &temp, dir, name);
    })
}

/// Creates the folder `name` in `parent` (mode 0777 less the umask, like `mkdir`).
pub(crate) fn create_folder(ctx: &JobCtx, parent: &Path, name: &OsStr) -> Summary {
    let path: PathBuf = parent.join(name);
    let fail = |e| not_started(ctx, std::slice::from_ref(&path), e);
    if !is_valid_name(name) {
        return fail(Error::io("create folder", &path, Errno::INVAL));
    }
    let pfd = match fs::open_dir_path(parent) {
        Ok(fd) => fd,
        Err(e) => return fail(Error::io("open", parent, e)),
    };
    let created = rustix::fs::mkdirat(&pfd, name, Mode::from_raw_mode(0o777))
        .and_then(|()| fs::stat_at(&pfd, name));
    let meta = match created {
        Ok(meta) => meta,
        Err(e) => return fail(Error::io("create folder", &path, e)),
    };
    let plan = match Plan::single(
        path.clone(),
        parent.to_path_buf(),
        None,
        Action::Create,
        &meta,
    ) {
        Ok(plan) => plan,
        Err(e) => return fail(e),
    };
    planned(ctx, Kind::Dir);
    ctx.counters.add_item();
    let done = vec![AtomicU64::new(meta.id.ino)];
    summary::build(ctx, Operation::CreateFolder, plan, done, meta.id.dev)
}
