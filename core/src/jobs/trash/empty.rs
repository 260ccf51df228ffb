//! Emptying the trash, and the rule a permanent delete of trashed items follows: every
//! entry of every trash folder of the user's is deleted by the engine's remover (read-only
//! folders of ours made writable first, as GNOME's and KDE's trash do), then the info files of
//! what is gone.

use std::collections::{HashMap, HashSet};
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustix::fs::AtFlags;
use rustix::io::Errno;

use super::{TrashRoots, find, info, trash_dirs};
use crate::error::{Error, Result};
use crate::fs;
use crate::jobs::control::JobCtx;
use crate::jobs::{Event, Failed, Summary, remove};

/// How a delete treats read-only folders of ours: made writable when every path is an item in
/// a trash of the user's (the trash view's Delete permanently), as emptying it does; else as
/// `rm -rf`, whatever the folders happen to be called.
fn read_only_rule(paths: &[PathBuf]) -> remove::ReadOnly {
    // The trash folders the items are in, each looked at once (a Delete of 1,000 trashed
    // items is in one or two).
    let trashes: Option<HashSet<&Path>> = (paths.iter())
        .map(|p| is_trashed_item(p).then(|| p.parent()?.parent()).flatten())
        .collect();
    let home_trash = TrashRoots::from_env()
        .ok()
        .map(|roots| roots.home_followed());
    let users = |trashes: HashSet<&Path>| {
        let home = home_trash.as_deref();
        !trashes.is_empty() && trashes.into_iter().all(|t| is_users_trash(t, home))
    };
    match trashes.is_some_and(users) {
        true => remove::ReadOnly::MakeWritable,
        false => remove::ReadOnly::Fail,
    }
}

/// Whether `trash`, a folder named as a trash is, is one of the user's: the home trash
/// (`home_trash`, the same folder), or one of the trash folders finding them takes at the
/// top of a disk (`find::trash_folders_at`: the user's `.Trash-<uid>`, or `.Trash/<uid>` in
/// a sticky `.Trash`), that top on another device than the folder above it.
fn is_users_trash(trash: &Path, home_trash: Option<&Path>) -> bool {
    let Ok(id) = fs::stat_path(trash).map(|m| m.id) else {
        return false;
    };
    if home_trash.is_some_and(|home| fs::stat_path(home).is_ok_and(|m| m.id == id)) {
        return true;
    }
    let uid = rustix::process::getuid().as_raw();
    let dev = |p: &Path| fs::stat_path(p).ok().map(|m| m.id.dev);
    let at_top = |top: &Path| top.parent().is_none_or(|above| dev(top) != dev(above));
    // `.Trash-<uid>` is in the top; `<uid>` in its `.Trash`.
    [trash.parent(), trash.parent().and_then(Path::parent)]
        .into_iter()
        .flatten()
        .filter(|top| at_top(top))
        .any(|top| {
            find::trash_folders_at(top, uid)
                .iter()
                .any(|(_, (dev, ino))| (*dev, *ino) == (id.dev, id.ino))
        })
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

/// Runs a delete job. Items in the trash (the Trash view's Delete permanently, or `ferry rm`
/// of them) go as emptying takes them: read-only folders of ours made writable, and the info
/// file of each item gone removed in the job, with the trash's `directorysizes` lines. The
/// window once forgot those info files when it next listed the trash: quit before, 11,000 of
/// them stayed for good, entries for nothing.
pub(crate) fn run_delete(ctx: &JobCtx, paths: &[PathBuf]) -> Summary {
    let rule = read_only_rule(paths);
    let summary = remove::run_job(ctx, paths, rule);
    if rule == remove::ReadOnly::MakeWritable {
        // Info files hold data: 20,000 take a second or two, not counted as items.
        ctx.counters.set_phase(crate::jobs::Phase::FinishingWrites);
        // By the trash folder's real path: a home trash may be a link of the user's own
        // (`TrashRoots::home_followed`), which the info files' removal does not follow.
        let mut gone_by_trash: HashMap<PathBuf, Vec<&OsStr>> = HashMap::new();
        let mut real: HashMap<&Path, Option<PathBuf>> = HashMap::new();
        for path in paths {
            let (Some(name), Some(trash)) =
                (path.file_name(), path.parent().and_then(Path::parent))
            else {
                continue;
            };
            let real = real
                .entry(trash)
                .or_insert_with(|| std::fs::canonicalize(trash).ok());
            let Some(trash) = real.as_deref() else {
                continue;
            };
            let names = gone_by_trash.entry(trash.to_owned()).or_default();
            names.push(name);
        }
        for (trash, names) in gone_by_trash {
            if let Ok(gone) = info::forget_gone(&trash, &names) {
                super::sizes::update(&trash, &[], &gone);
            }
        }
    }
    summary
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
    ctx.counters.set_phase(crate::jobs::Phase::FinishingWrites);
    for dir in &dirs {
        if let Err(e) = remove_orphan_infos(dir, &entries) {
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

/// Removes every info file whose item is gone, and the `directorysizes` lines of folders
/// gone or emptied in part (`entries`: what the job was to delete).
fn remove_orphan_infos(dir: &Path, entries: &[PathBuf]) -> Result<()> {
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
    let files_path = dir.join("files");
    let in_dir = |p: &&PathBuf| p.parent() == Some(files_path.as_path());
    let stale: Vec<&OsStr> = entries
        .iter()
        .filter(in_dir)
        .filter_map(|p| p.file_name())
        .collect();
    super::sizes::update(dir, &[], &stale);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_are_named_as_in_a_trash_by_their_folders() {
        for (path, expected) in [
            ("/home/u/.local/share/Trash/files/a", true),
            ("/mnt/usb/.Trash-1000/files/a", true),
            ("/mnt/usb/.Trash/1000/files/a", true),
            ("/home/u/files/a", false),
            ("/mnt/usb/.Trash/files/a", false),
            ("/home/u/.local/share/Trash/files", false),
            ("/home/u/.local/share/Trash/files/a/b", false),
        ] {
            assert_eq!(is_trashed_item(Path::new(path)), expected, "{path}");
        }
        assert_eq!(read_only_rule(&[]), remove::ReadOnly::Fail);
    }

    /// A folder called `Trash` or `.Trash-<uid>` is not a trash for being so called: only
    /// the home trash, and a volume's at the top of its disk.
    #[test]
    fn only_the_users_own_trash_folders_are_trashes() {
        let dir = tempfile::tempdir().unwrap();
        let uid = rustix::process::getuid().as_raw();
        let home = dir.path().join("data/Trash");
        let named_alike = dir.path().join("plain/Trash");
        let volume_alike = dir.path().join(format!(".Trash-{uid}"));
        for d in [&home, &named_alike, &volume_alike] {
            std::fs::create_dir_all(d.join("files")).unwrap();
        }
        assert!(is_users_trash(&home, Some(&home)));
        assert!(!is_users_trash(&named_alike, Some(&home)));
        // A temporary folder is not the top of its disk.
        assert!(!is_users_trash(&volume_alike, Some(&home)));
        assert!(!is_users_trash(&dir.path().join("gone"), Some(&home)));
    }
}
