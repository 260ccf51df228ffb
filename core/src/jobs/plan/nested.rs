//! Sources of a move that lie inside another source folder of the same move
//! (`ferry mv d d/sub DEST`): each goes with the folder holding it, as it is, instead of
//! being moved on its own as well. Planned twice, across file systems it was copied twice
//! (`DEST/sub` and `DEST/d/sub`), and removing it after `d` failed; `mv` moves `d` and then
//! fails on `d/sub`.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// The sources that lie inside another of them, a folder. Compared by the path of each as
/// a shell resolves it (its folder's links resolved, its own name not followed), which costs
/// one `realpath` per distinct folder, and nothing when all share one folder, as a window's
/// selection does.
pub(super) fn inside_others(sources: &[PathBuf]) -> HashSet<PathBuf> {
    let folder_of = |s: &PathBuf| s.parent().map(Path::to_path_buf);
    let first = sources.first().map(folder_of);
    if sources.iter().all(|s| Some(folder_of(s)) == first) {
        return HashSet::new();
    }
    let mut real_folders: HashMap<PathBuf, Option<PathBuf>> = HashMap::new();
    let mut real = |s: &PathBuf| {
        let folder = match s.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let real_folder = real_folders
            .entry(folder.to_path_buf())
            .or_insert_with(|| std::fs::canonicalize(folder).ok());
        Some(real_folder.as_ref()?.join(s.file_name()?))
    };
    let resolved: Vec<_> = sources.iter().map(&mut real).collect();
    let folders: HashSet<&PathBuf> = (resolved.iter().flatten())
        .filter(|p| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir()))
        .collect();
    let inside = |p: &PathBuf| {
        p.ancestors()
            .skip(1)
            .any(|a| folders.contains(&a.to_path_buf()))
    };
    (sources.iter().zip(&resolved))
        .filter(|(_, r)| r.as_ref().is_some_and(inside))
        .map(|(s, _)| s.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_source_inside_another_source_folder_is_found_in_either_order() {
        let tmp = tempfile::tempdir().unwrap();
        let t = tmp.path();
        std::fs::create_dir_all(t.join("d/sub/deeper")).unwrap();
        std::fs::create_dir(t.join("d2")).unwrap();
        std::fs::write(t.join("d/file"), "").unwrap();
        std::os::unix::fs::symlink(t.join("d"), t.join("link")).unwrap();
        let p = |s: &str| t.join(s);
        let sources = [
            p("d/sub/deeper"),
            p("d"),
            p("d2"),
            p("link/file"),
            p("d/../d2"),
        ];
        let inside = inside_others(&sources);
        let expected: HashSet<_> = [p("d/sub/deeper"), p("link/file")].into_iter().collect();
        assert_eq!(inside, expected);
        // Siblings, and a folder whose name starts like another's, are not inside it.
        assert!(inside_others(&[p("d"), p("d/../d2")]).is_empty());
        // The link itself is a source of its own, not the folder it points to.
        assert!(inside_others(&[p("link"), p("d/file")]).is_empty());
    }
}
