//! Emptying the trash, and the rule a permanent delete of trashed items follows: every
//! entry of every trash folder of the user's is deleted by the engine's remover (read-only
//! folders of ours made writable first, as GNOME's and KDE's trash do), then the info files of
//! what is gone.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustix::fs::AtFlags;
use rustix::io::Errno;

use super::{TrashRoots, info, trash_dirs};
use crate::error::{Error, Result};
use crate::fs;
use crate::jobs::control::JobCtx;
use crate::jobs::{Event, Failed, Summary, remove};

/// How a delete treats read-only folders of ours: made writable when every path is an item in
/// a trash (the trash view's Delete permanently), as emptying it does; else as `rm -rf`.
pub(crate) fn read_only_rule(paths: &[PathBuf]) -> remove::ReadOnly {
    if !paths.is_empty() && paths.iter().all(|p| is_trashed_item(p)) {
        remove::ReadOnly::MakeWritable
    } else {
        remove::ReadOnly::Fail
    }
}

/// `path` is an entry of a trash's `files` folder: `…/Trash/files/x`, `…/.Trash-1000/files/x`
/// or `…/.Trash/1000/files/x`.
pub fn is_trashed_item(path: &Path) -> bool {
    fn name(p: Option<&Path>) -> Option<&[u8]> {
        p.and_then(Path::file_name).map(OsStr::as_bytes)
    }
    let files = path.parent();
    let trash = files.and_then(Path::parent);
    name(files) == Some(b"files")
        && match name(trash) {
            Some(b"Trash") => true,
            Some(n) if n.starts_with(b".Trash-") => true,
            Some(n) => {
                n.iter().all(u8::is_ascii_digit)
                    && name(trash.and_then(Path::parent)) == Some(b".Trash")
            }
            None => false,
        }
}

/// Runs an empty-trash job: every entry of every trash folder (of those `listed`, when the
/// user was asked about a list: see [`Job::EmptyTrash`](crate::jobs::Job::EmptyTrash)) is
/// deleted by the engine's remover, then the info files of what is gone. A trash folder
/// whose `files/` or `info/` is a link, or a volume's that is not the user's, is left alone
/// (it could lead anywhere).
pub(crate) fn run_empty(
    ctx: &JobCtx,
    roots: &TrashRoots,
    listed: Option<&[(PathBuf, fs::FileId)]>,
) -> Summary {
    let listed: Option<HashMap<&Path, fs::FileId>> =
        listed.map(|l| l.iter().map(|(p, id)| (p.as_path(), *id)).collect());
    let mut dirs = trash_dirs(roots);
    let mut entries = Vec::new();
    let mut failed = Vec::new();
    let mut buf = Vec::new();
    dirs.retain(|dir| {
        let files = dir.join("files");
        let read = info::TrashFolder::open(dir).and_then(|folder| {
            fs::read_dir(&folder.files, &mut buf, |name, _| {
                let path = files.join(name);
                let asked = listed.as_ref().is_none_or(|listed| {
                    listed.get(path.as_path()).is_some_and(|id| {
                        fs::stat_at(&folder.files, name).is_ok_and(|m| m.id == *id)
                    })
                });
                if asked {
                    entries.push(path);
                }
                Ok(())
            })
        });
        match read {
            Ok(()) => true,
            Err(Errno::NOENT) => false,
            Err(e) => {
                failed.push((files.clone(), Error::io("read folder", &files, e)));
                false
            }
        }
    });
    let mut summary = remove::run_job(ctx, &entries, remove::ReadOnly::MakeWritable);
    for dir in &dirs {
        if let Err(e) = remove_orphan_infos(dir) {
            failed.push((dir.join("info"), e));
        }
    }
    for (path, error) in failed {
        let error = Arc::new(error);
        ctx.emit(Event::ItemFailed {
            job: ctx.id,
            path: path.clone(),
            error: Arc::clone(&error),
        });
        summary.failed.push(Failed { path, error });
    }
    summary
}

/// Removes every info file whose item is gone, and the `directorysizes` cache.
fn remove_orphan_infos(dir: &Path) -> Result<()> {
    let info_path = dir.join("info");
    let Ok(info::TrashFolder { info, files, .. }) = info::TrashFolder::open(dir) else {
        return Ok(());
    };
    let mut names = Vec::new();
    fs::read_dir(&info, &mut Vec::new(), |name, _| {
        names.push(name.to_owned());
        Ok(())
    })
    .map_err(|e| Error::io("read folder", &info_path, e))?;
    for name in names {
        let Some(item) = name.as_bytes().strip_suffix(b".trashinfo") else {
            continue;
        };
        if fs::stat_at(&files, OsStr::from_bytes(item)) == Err(Errno::NOENT) {
            match rustix::fs::unlinkat(&info, &name, AtFlags::empty()) {
                Ok(()) | Err(Errno::NOENT) => {}
                Err(e) => return Err(Error::io("delete", info_path.join(&name), e)),
            }
        }
    }
    if let Ok(dfd) = fs::open_dir_path(dir) {
        let _ = rustix::fs::unlinkat(&dfd, "directorysizes", AtFlags::empty());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_items_in_a_trash_are_deleted_as_emptying_it() {
        fn rule(paths: &[&str]) -> remove::ReadOnly {
            read_only_rule(&paths.iter().map(PathBuf::from).collect::<Vec<_>>())
        }
        use remove::ReadOnly::{Fail, MakeWritable};
        for (path, expected) in [
            ("/home/u/.local/share/Trash/files/a", MakeWritable),
            ("/mnt/usb/.Trash-1000/files/a", MakeWritable),
            ("/mnt/usb/.Trash/1000/files/a", MakeWritable),
            ("/home/u/files/a", Fail),
            ("/mnt/usb/.Trash/files/a", Fail),
            ("/home/u/.local/share/Trash/files", Fail),
            ("/home/u/.local/share/Trash/files/a/b", Fail),
        ] {
            assert_eq!(rule(&[path]), expected, "{path}");
        }
        let mixed = ["/home/u/.local/share/Trash/files/a", "/home/u/a"];
        assert_eq!(rule(&mixed), remove::ReadOnly::Fail);
        assert_eq!(rule(&[]), remove::ReadOnly::Fail);
    }
}
