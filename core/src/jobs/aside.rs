//! The hidden names a move gives its sources while it removes them (`remove.rs`), and
//! reading them back: a crash leaves a source whole under such a name, and recovery puts it
//! back under the name it had (`recovery/set_aside.rs`).
//!
//! `.ferry-moving-<pid>-<job>-<name>` holds the source's own name, in bytes (names need not be
//! UTF-8); a name too long for that (the whole over `NAME_MAX`) is set aside as
//! `.ferry-moving-<pid>-<job>#<item>`, which recovery reports rather than guesses at. Both
//! are unique in their folder for a job (its names are; its items are).

use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::os::unix::ffi::{OsStrExt, OsStringExt};

const PREFIX: &str = ".ferry-moving-";

/// Longest file name on Linux's file systems; a file system with a shorter one refuses the
/// longer names (`ENAMETOOLONG`), and the move falls back to [`numbered`].
const NAME_MAX: usize = 255;

/// What every name set aside by process `pid` starts with.
pub(crate) fn prefix(pid: u32) -> Vec<u8> {
    format!("{PREFIX}{pid}-").into_bytes()
}

/// The name the source `name`, item `item` of job `job` of this process, is set aside under:
/// one that tells `name` back where it fits in a name, else [`numbered`].
pub(crate) fn name(job: u64, name: &OsStr, item: u32) -> OsString {
    let mut aside = head(job);
    if aside.len() + 1 + name.len() > NAME_MAX {
        return numbered(job, item);
    }
    aside.push(b'-');
    aside.extend_from_slice(name.as_bytes());
    OsString::from_vec(aside)
}

/// The name item `item` of job `job` of this process is set aside under when its own name
/// cannot be part of it.
pub(crate) fn numbered(job: u64, item: u32) -> OsString {
    let mut aside = head(job);
    let _ = write!(aside, "#{item}"); // writing to a Vec cannot fail
    OsString::from_vec(aside)
}

/// `.ferry-moving-<pid>-<job>`.
fn head(job: u64) -> Vec<u8> {
    let mut head = prefix(std::process::id());
    let _ = write!(head, "{job}");
    head
}

/// What a source set aside was named.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Original<'a> {
    /// This name.
    Named(&'a OsStr),
    /// Not known: it was too long to be part of the name it was set aside under.
    Unknown,
}

/// The name that `aside`, set aside by process `pid`, had; `None` when `aside` is no such
/// name.
pub(crate) fn original(aside: &OsStr, pid: u32) -> Option<Original<'_>> {
    let rest = aside.as_bytes().strip_prefix(prefix(pid).as_slice())?;
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    let (job, rest) = rest.split_at(digits);
    match rest.split_first() {
        _ if job.is_empty() => None,
        Some((b'-', name)) if !matches!(name, b"" | b"." | b"..") => {
            Some(Original::Named(OsStr::from_bytes(name)))
        }
        Some((b'#', item)) if !item.is_empty() && item.iter().all(u8::is_ascii_digit) => {
            Some(Original::Unknown)
        }
        _ => None,
    }
}

/// The name that `aside` had, when a process no longer running set it aside (one still
/// running may be about to unlink it or put it back); `None` for any other name.
pub(crate) fn original_of_dead(aside: &OsStr) -> Option<Original<'_>> {
    let rest = aside.as_bytes().strip_prefix(PREFIX.as_bytes())?;
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    let pid: u32 = std::str::from_utf8(&rest[..digits]).ok()?.parse().ok()?;
    // Start time 0: any process of that number counts as running.
    if super::journal::is_alive(pid, 0) {
        return None;
    }
    original(aside, pid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_set_aside_tells_its_own_name_back_in_bytes() {
        let pid = std::process::id();
        for own in [
            &b"doc"[..],
            b"7",
            b"a-1-2",
            b"caf\xe9 \xff",
            b"#3",
            b".hidden",
        ] {
            let own = OsStr::from_bytes(own);
            let aside = name(12, own, 3);
            let want = [
                format!(".ferry-moving-{pid}-12-").as_bytes(),
                own.as_bytes(),
            ]
            .concat();
            assert_eq!(aside.as_bytes(), want);
            assert_eq!(original(&aside, pid), Some(Original::Named(own)));
            assert_eq!(original(&aside, pid + 1), None, "another process's");
        }
    }

    #[test]
    fn a_name_too_long_to_be_kept_is_set_aside_by_number_and_not_guessed_back() {
        let pid = std::process::id();
        let head = format!(".ferry-moving-{pid}-12-").len();
        let fits = "x".repeat(NAME_MAX - head);
        assert_eq!(name(12, fits.as_ref(), 3).len(), NAME_MAX);
        let long = "x".repeat(NAME_MAX - head + 1);
        let aside = name(12, long.as_ref(), 3);
        assert_eq!(aside, OsString::from(format!(".ferry-moving-{pid}-12#3")));
        assert_eq!(original(&aside, pid), Some(Original::Unknown));
    }

    #[test]
    fn only_a_process_that_is_gone_has_its_names_read_back_as_left_over() {
        let running = name(12, "doc".as_ref(), 3);
        assert_eq!(original_of_dead(&running), None, "this process is running");
        // Above the kernel's highest process number (2^22): never running.
        let gone = OsString::from(".ferry-moving-4194305-12-doc");
        assert_eq!(
            original_of_dead(&gone),
            Some(Original::Named("doc".as_ref()))
        );
        assert_eq!(original_of_dead("doc".as_ref()), None);
    }

    #[test]
    fn other_names_are_not_taken_for_ones_set_aside() {
        for other in [
            ".ferry-moving-0-",
            ".ferry-moving-0-1",
            ".ferry-moving-0-1-",
            ".ferry-moving-0-1-.",
            ".ferry-moving-0-1-..",
            ".ferry-moving-0-1#",
            ".ferry-moving-0-1#2x",
            ".ferry-moving-0-x-doc",
            ".ferry-moving-0--doc",
            ".ferry-moving-01-1-doc",
            ".ferry-tmp-0-1-doc",
        ] {
            assert_eq!(original(other.as_ref(), 0), None, "{other}");
        }
        assert_eq!(
            original(".ferry-moving-0-1-doc".as_ref(), 0),
            Some(Original::Named("doc".as_ref()))
        );
    }
}
