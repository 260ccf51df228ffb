//! The end of the log after a crash. An append cut short by a crash or power loss leaves a
//! last line without its newline; appending the next record straight after it would glue
//! the two into one line that no reader can parse, and the new record (a whole job, and its
//! undo) would be lost. So before each append the log's last byte is looked at, and a line
//! that was cut short is ended first: the torn part stays a line of its own, which readers
//! skip as they always did. One `fstat` and one one-byte `pread` per append.
//!
//! And the log as another user may find it: readable, in a folder they cannot write (its
//! reads then take a shared lock, see [`read_lock`]).

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;

use rustix::fs::FlockOperation;
use rustix::io::Errno;

use crate::error::Error;

/// The lock to read the log under: `exclusive` (the lock every append takes) when it could
/// be had, else, where this user may not write the journal's folder or lock file, a shared
/// lock on the lock file opened for reading, or none when there is no lock file (then no
/// one has written the log since it was made).
pub(super) fn read_lock(
    exclusive: Result<File, Error>,
    lock_file: &Path,
) -> Result<Option<File>, Error> {
    let denied = [Errno::ACCESS, Errno::PERM, Errno::ROFS].map(|e| Some(e.raw_os_error()));
    match exclusive {
        Ok(file) => Ok(Some(file)),
        Err(e) if denied.contains(&e.raw_os_error()) => match File::open(lock_file) {
            Ok(file) => {
                rustix::fs::flock(&file, FlockOperation::LockShared)
                    .map_err(|e| Error::io("lock", lock_file, e))?;
                Ok(Some(file))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(Error::io("open", lock_file, e)),
        },
        Err(e) => Err(e),
    }
}

/// True when the log `file` (at `path`) does not end with a newline: the next append must
/// start a line of its own.
pub(super) fn is_torn(file: &File, path: &Path) -> Result<bool, Error> {
    let len = file
        .metadata()
        .map_err(|e| Error::io("stat", path, e))?
        .len();
    if len == 0 {
        return Ok(false);
    }
    let mut last = [0u8];
    file.read_exact_at(&mut last, len - 1)
        .map_err(|e| Error::io("read", path, e))?;
    Ok(last[0] != b'\n')
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::super::UndoJournal;
    use crate::jobs::{Job, Summary};

    #[test]
    fn a_record_appended_after_a_torn_line_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let journal = UndoJournal::at(dir.path().join("journal.jsonl"));
        let job = |n: &str| Job::CreateFolder {
            parent: dir.path().to_path_buf(),
            name: n.into(),
        };
        let first = journal.begin(&job("a")).unwrap().unwrap();
        let mut log = std::fs::OpenOptions::new()
            .append(true)
            .open(journal.path())
            .unwrap();
        log.write_all(br#"{"end":{"seq":1,"ti"#).unwrap();
        let second = journal.begin(&job("b")).unwrap().unwrap();
        journal.finish(second, &Summary::default(), false).unwrap();
        let seqs: Vec<u64> = journal.records().unwrap().iter().map(|r| r.seq).collect();
        assert_eq!(seqs, [first, second]);
        let text = std::fs::read_to_string(journal.path()).unwrap();
        assert!(text.contains("\"ti\n{\"begin\""), "{text}");
    }
}
