//! Applying a folder's changed names to its cached listing ([`apply_changes`]): each name
//! stat'ed once, relative to the folder's fd, then one pass over the listing. Split from the
//! watcher, which only collects the names (`watch.rs`).

use std::collections::{HashMap, HashSet};
use std::ffi::{OsStr, OsString};
use std::os::fd::BorrowedFd;
use std::os::unix::ffi::OsStrExt;

use rustix::io::Errno;

use crate::entry::{Kind, Listing, Meta};
use crate::lister;

/// What changed in a listing, by name. Sent with every change event.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChangeSummary {
    /// Entries that appeared.
    pub added: Vec<OsString>,
    /// Entries that disappeared (a rename is a removal plus an addition).
    pub removed: Vec<OsString>,
    /// Entries whose metadata changed.
    pub modified: Vec<OsString>,
    /// The listing was read again in full (after an event-queue overflow or a refresh); the
    /// three lists are then empty and anything may have changed.
    pub rescanned: bool,
}

impl ChangeSummary {
    /// True when nothing changed.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty()
            && self.removed.is_empty()
            && self.modified.is_empty()
            && !self.rescanned
    }
}

/// A folder holding at most this many links has them stat'ed again with each change in it.
const LINKS_FOLLOWED_MAX: usize = 4096;

/// Applies the changes to `names` in the folder `dir` to `listing`: stats each name once, then
/// makes one pass over the listing to update, remove, and finally append entries. O(N + k).
///
/// A link is listed with what it leads to (its target's size and time), which may be one of
/// the names changed: the folder's links are stat'ed again too (where it holds at most
/// [`LINKS_FOLLOWED_MAX`]), so that a link to a file rewritten beside it does not keep the
/// old size until F5.
pub fn apply_changes(
    listing: &mut Listing,
    dir: BorrowedFd<'_>,
    names: &HashSet<OsString>,
) -> ChangeSummary {
    let links: Vec<OsString> = (listing.iter())
        .filter(|e| !names.is_empty() && e.kind() == Kind::Symlink && !names.contains(e.name()))
        .map(|e| e.name().to_owned())
        .take(LINKS_FOLLOWED_MAX + 1)
        .collect();
    let links = if links.len() <= LINKS_FOLLOWED_MAX {
        &links[..]
    } else {
        &[]
    };
    // What the disk says now about each affected name: `None` = absent.
    let mut disk: HashMap<&OsStr, Option<Meta>> = (names.iter().chain(links))
        .map(|name| (name.as_os_str(), probe(dir, name)))
        .collect();
    unfold(dir, &mut disk);
    let mut summary = ChangeSummary::default();
    let mut updates = Vec::new();
    let mut removals = Vec::new();
    for (index, entry) in listing.iter().enumerate() {
        match disk.remove(entry.name()) {
            None => {}
            Some(None) => {
                removals.push(index);
                summary.removed.push(entry.name().to_owned());
            }
            Some(Some(meta)) if meta != entry.meta() => {
                updates.push((index, meta));
                summary.modified.push(entry.name().to_owned());
            }
            Some(Some(_)) => {}
        }
    }
    for (index, meta) in updates {
        listing.set_meta(index, meta);
    }
    // Highest index first: each removal swaps in the current last entry, which is then always
    // one not marked for removal.
    for &index in removals.iter().rev() {
        listing.remove(index);
    }
    for (name, meta) in disk {
        if let Some(meta) = meta {
            listing.push(name, meta);
            summary.added.push(name.to_owned());
        }
    }
    summary
}

/// On a file system that may fold names (FAT, exFAT, FUSE), a name renamed to another
/// spelling (`Photo.JPG` to `photo.jpg`) still opens the file: only the folder's listing
/// says which spelling is there. Names found that it does not list are absent. One read of
/// the folder per set of changes, and only on such file systems.
fn unfold(dir: BorrowedFd<'_>, disk: &mut HashMap<&OsStr, Option<Meta>>) {
    const MSDOS: u32 = 0x4d44;
    const EXFAT: u32 = 0x2011_bab0;
    const FUSE: u32 = 0x6573_5546;
    let folds =
        rustix::fs::fstatfs(dir).is_ok_and(|s| matches!(s.f_type as u32, MSDOS | EXFAT | FUSE));
    if !folds || disk.values().all(Option::is_none) {
        return;
    }
    if let Ok(listed) = crate::fs::names_in(dir) {
        for (name, meta) in disk.iter_mut() {
            if meta.is_some() && !listed.contains(*name) {
                *meta = None;
            }
        }
    }
}

/// The current metadata of `name` in `dir`, or `None` when it no longer exists. An entry that
/// exists but cannot be stat'ed (EACCES) is present, flagged as the lister flags it.
fn probe(dir: BorrowedFd<'_>, name: &OsStr) -> Option<Meta> {
    let bytes = name.as_bytes();
    if bytes.is_empty() || bytes == b"." || bytes == b".." || bytes.contains(&b'/') {
        return None;
    }
    let meta = lister::stat_at(dir, name);
    match meta.stat_error {
        Some(Errno::NOENT | Errno::NOTDIR) => None,
        _ => Some(meta),
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use std::fs;
    use std::os::fd::AsFd;
    use std::os::unix::ffi::OsStringExt;
    use std::path::Path;

    /// A set of `names`.
    pub(in crate::watch) fn set(names: &[&str]) -> HashSet<OsString> {
        names.iter().map(OsString::from).collect()
    }

    fn sorted_names(listing: &Listing) -> Vec<OsString> {
        let mut names: Vec<_> = listing.iter().map(|e| e.name().to_owned()).collect();
        names.sort();
        names
    }

    /// Asserts `listing` holds exactly what a fresh listing of its folder holds.
    fn assert_fresh(listing: &Listing, dir: &Path) {
        let fresh = lister::list_all(dir).unwrap();
        assert_eq!(sorted_names(listing), sorted_names(&fresh));
        for entry in fresh.iter() {
            let i = listing.position(entry.name()).unwrap();
            assert_eq!(listing.entry(i).meta(), entry.meta(), "{:?}", entry.name());
        }
    }

    #[test]
    fn apply_adds_removes_and_modifies_only_the_named_entries() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        for name in ["keep", "gone", "grow", "old"] {
            fs::write(dir.join(name), b"x").unwrap();
        }
        let mut listing = lister::list_all(dir).unwrap();
        fs::remove_file(dir.join("gone")).unwrap();
        fs::write(dir.join("grow"), b"longer").unwrap();
        fs::rename(dir.join("old"), dir.join("new")).unwrap();
        fs::write(dir.join("made"), b"").unwrap();
        std::os::unix::fs::symlink("nowhere", dir.join("broken")).unwrap();
        // "keep" is named but unchanged; "ghost" was created and deleted within the window.
        let names = set(&[
            "gone", "grow", "old", "new", "made", "broken", "keep", "ghost",
        ]);
        let fd = lister::open_dir(dir).unwrap();
        let mut summary = apply_changes(&mut listing, fd.as_fd(), &names);
        summary.added.sort();
        summary.removed.sort();
        assert_eq!(summary.added, ["broken", "made", "new"]);
        assert_eq!(summary.removed, ["gone", "old"]);
        assert_eq!(summary.modified, ["grow"]);
        assert!(!summary.rescanned);
        assert_fresh(&listing, dir);
        // Replaying the same names changes nothing.
        assert!(apply_changes(&mut listing, fd.as_fd(), &names).is_empty());
    }

    /// A link is listed with its target's size and time: the target rewritten beside it, the
    /// link's row kept the old size until F5.
    #[test]
    fn a_change_to_a_links_target_reaches_the_link() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        fs::write(dir.join("movie.mkv"), b"short").unwrap();
        std::os::unix::fs::symlink("movie.mkv", dir.join("link-to-movie")).unwrap();
        let mut listing = lister::list_all(dir).unwrap();
        fs::write(dir.join("movie.mkv"), b"a good deal longer").unwrap();
        let fd = lister::open_dir(dir).unwrap();
        let summary = apply_changes(&mut listing, fd.as_fd(), &set(&["movie.mkv"]));
        let mut modified = summary.modified;
        modified.sort();
        assert_eq!(modified, ["link-to-movie", "movie.mkv"]);
        let link = listing
            .iter()
            .find(|e| e.name() == "link-to-movie")
            .unwrap();
        assert_eq!(link.size(), 18);
        assert_fresh(&listing, dir);
    }

    #[test]
    fn apply_handles_a_large_burst() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        for i in 0..500 {
            fs::write(dir.join(format!("old{i}")), b"").unwrap();
        }
        let mut listing = lister::list_all(dir).unwrap();
        let mut names = HashSet::new();
        for i in 0..500 {
            if i % 2 == 0 {
                fs::remove_file(dir.join(format!("old{i}"))).unwrap();
                names.insert(OsString::from(format!("old{i}")));
            }
            fs::write(dir.join(format!("new{i}")), b"").unwrap();
            names.insert(OsString::from(format!("new{i}")));
        }
        let fd = lister::open_dir(dir).unwrap();
        let summary = apply_changes(&mut listing, fd.as_fd(), &names);
        assert_eq!((summary.added.len(), summary.removed.len()), (500, 250));
        assert_fresh(&listing, dir);
    }

    #[test]
    fn apply_keeps_non_utf8_names_exact() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let mut listing = lister::list_all(dir).unwrap();
        let name = OsString::from_vec(b"caf\xe9".to_vec());
        fs::write(dir.join(&name), b"").unwrap();
        let fd = lister::open_dir(dir).unwrap();
        let summary = apply_changes(&mut listing, fd.as_fd(), &HashSet::from([name.clone()]));
        assert_eq!(summary.added, [name]);
        assert_eq!(listing.entry(0).name_bytes(), b"caf\xe9");
    }
}
