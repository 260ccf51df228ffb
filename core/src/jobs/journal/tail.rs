//! The end of the log after a crash. An append cut short by a crash or power loss leaves a
//! last line without its newline; appending the next record straight after it would glue
//! the two into one line that no reader can parse, and the new record (a whole job, and its
//! undo) would be lost. So before each append the log's last byte is looked at, and a line
//! that was cut short is ended first: the torn part stays a line of its own, which readers
//! skip as they always did. One `fstat` and one one-byte `pread` per append.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;

use crate::error::Error;

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
