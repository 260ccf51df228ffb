//! The modes of the sources a move removes where its copies could not keep them (FAT,
//! exFAT): written to `records/<seq>.modes.json` before the first source goes, so that the
//! roll back of the move, killed before its end put those modes in its record (or resumed,
//! whose record covers only the resumed run), gives the items back their own modes rather
//! than the disk's (a private key came back 0777 from exfat-fuse).
//!
//! Synced, file and folder, before the sources go: they are removed on another disk, whose
//! removals may reach it first after a power loss. Swept with its record's other details
//! (`details::sweep` goes by the number before the first dot).

use std::collections::HashMap;
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::stored::StoredPath;
use crate::error::Error;

#[derive(Default, Serialize, Deserialize)]
struct Kept {
    /// Where each item is now (the move's destination), and the mode its source had.
    modes: Vec<(StoredPath, u16)>,
}

fn file(folder: &Path, seq: u64) -> PathBuf {
    folder.join(format!("{seq}.modes.json"))
}

/// Adds `modes` (destination path, source mode) to those kept for record `seq` in the
/// details folder `folder`, durably.
pub(crate) fn keep(folder: &Path, seq: u64, modes: &[(PathBuf, u16)]) -> Result<(), Error> {
    if modes.is_empty() {
        return Ok(());
    }
    super::private_folder(folder)?;
    let path = file(folder, seq);
    let mut all = read(folder, seq)?;
    all.extend(modes.iter().cloned());
    let kept = Kept {
        modes: (all.into_iter())
            .map(|(p, m)| (StoredPath::of(p.as_os_str()), m))
            .collect(),
    };
    let text = serde_json::to_vec(&kept).expect("modes serialise");
    super::write_replacing(&path.with_extension("json.tmp"), &path, &text, true)?;
    super::sync_dir(&path)
}

/// The modes kept for record `seq`, by destination path; none when the file is missing or
/// torn.
pub(crate) fn read(folder: &Path, seq: u64) -> Result<HashMap<PathBuf, u16>, Error> {
    let path = file(folder, seq);
    let file = match File::open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(HashMap::new()),
        Err(e) => return Err(Error::io("open", &path, e)),
    };
    let kept: Kept = serde_json::from_reader(BufReader::new(file)).unwrap_or_default();
    Ok((kept.modes.into_iter())
        .map(|(p, m)| (p.into_path(), m))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::ffi::OsStrExt;

    #[test]
    fn modes_kept_twice_for_a_record_add_up_and_keep_odd_names() {
        let dir = tempfile::tempdir().unwrap();
        let odd = PathBuf::from(std::ffi::OsStr::from_bytes(b"/fat/k\xffey"));
        keep(dir.path(), 7, &[(odd.clone(), 0o600)]).unwrap();
        keep(dir.path(), 7, &[(PathBuf::from("/fat/d"), 0o750)]).unwrap();
        let read = read(dir.path(), 7).unwrap();
        assert_eq!(read.get(&odd), Some(&0o600));
        assert_eq!(read.get(Path::new("/fat/d")), Some(&0o750));
        assert!(super::read(dir.path(), 8).unwrap().is_empty());
    }
}
