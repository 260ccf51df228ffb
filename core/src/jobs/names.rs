//! Names a dialog asks the user for: what a destination folder's file system takes, whether
//! a name is free there, and a free (or valid) name to suggest. The rules are found as a job
//! finds them (name limit, FAT/NTFS-style names, probed where the type does not say), so a
//! name these accept is one the job can write. Every function here but [`NameRules::problem`]
//! and [`NameRules::fix`] reads the disk: call them off the UI thread.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::Path;

use rustix::io::Errno;

use super::conflict::{keep_both_name, split_extension, trim_stem};
use super::dest::Dest;
use crate::error::Error;
use crate::fs;

/// What names a folder's file system takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NameRules {
    /// Longest name, in bytes.
    pub name_max: usize,
    /// Limited as on Windows: none of `"*:<>?\|` or control characters, no final dot or
    /// space (FAT, exFAT, NTFS and some network shares).
    pub windows_names: bool,
}

/// Why a name cannot be given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameProblem {
    /// Empty, `.` or `..`.
    Empty,
    /// It holds a `/` (or a NUL byte): a path, not a name.
    Slash,
    /// Longer than the file system takes.
    TooLong {
        /// The limit, in bytes.
        max: usize,
    },
    /// It holds a character the file system refuses (the first one).
    Character(char),
    /// It ends in a dot or a space, which the file system drops or refuses.
    TrailingDotOrSpace,
}

/// Whether a name can be given in a folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameCheck {
    /// Nothing has that name there, and the file system takes it.
    Free,
    /// Something has that name there already.
    Taken,
    /// The file system cannot hold it.
    NotAllowed(NameProblem),
}

/// Characters FAT and NTFS refuse, besides control characters.
const WINDOWS_REFUSED: &[u8] = b"\"*:<>?\\|";

impl NameRules {
    /// The usual Unix rules (255 bytes, anything but `/`): what to assume before a folder has
    /// been asked.
    pub const UNIX: NameRules = NameRules {
        name_max: 255,
        windows_names: false,
    };

    /// The rules of folder `dir`.
    pub fn of(dir: &Path) -> Result<NameRules, Error> {
        let dest = Dest::open_unjournaled(dir)?;
        Ok(NameRules {
            name_max: dest.name_max,
            windows_names: dest.caps.windows_names,
        })
    }

    /// Why `name` cannot be given under these rules, or `None` when it can.
    pub fn problem(&self, name: &OsStr) -> Option<NameProblem> {
        let b = name.as_bytes();
        if b.is_empty() || b == b"." || b == b".." {
            return Some(NameProblem::Empty);
        }
        if b.contains(&b'/') || b.contains(&0) {
            return Some(NameProblem::Slash);
        }
        if b.len() > self.name_max {
            return Some(NameProblem::TooLong { max: self.name_max });
        }
        if self.windows_names {
            if let Some(&c) = b.iter().find(|c| refused(**c)) {
                return Some(NameProblem::Character(char::from(c)));
            }
            if matches!(b.last(), Some(b'.' | b' ')) {
                return Some(NameProblem::TrailingDotOrSpace);
            }
        }
        None
    }

    /// `name` made acceptable, changing as little as possible: refused characters (and `/`)
    /// become `_`, final dots and spaces go, and a name too long loses the end of its stem,
    /// keeping the extension.
    pub fn fix(&self, name: &OsStr) -> OsString {
        let mut b: Vec<u8> = name
            .as_bytes()
            .iter()
            .map(|&c| {
                let bad = c == b'/' || c == 0 || (self.windows_names && refused(c));
                if bad { b'_' } else { c }
            })
            .collect();
        if self.windows_names {
            while matches!(b.last(), Some(b'.' | b' ')) {
                b.pop();
            }
        }
        if b.is_empty() || b == b"." || b == b".." {
            b = b"_".to_vec();
        }
        if b.len() > self.name_max {
            let (stem, ext) = split_extension(&b);
            b = if ext.len() < self.name_max {
                let mut short = trim_stem(stem, self.name_max - ext.len()).to_vec();
                short.extend_from_slice(ext);
                short
            } else {
                trim_stem(&b, self.name_max).to_vec()
            };
        }
        OsString::from_vec(b)
    }
}

fn refused(c: u8) -> bool {
    c < 0x20 || WINDOWS_REFUSED.contains(&c)
}

/// Whether `name` can be given to an item in folder `dir`, whose rules are `rules`.
pub fn check_name(dir: &Path, rules: &NameRules, name: &OsStr) -> Result<NameCheck, Error> {
    if let Some(problem) = rules.problem(name) {
        return Ok(NameCheck::NotAllowed(problem));
    }
    let fd = fs::open_dir_path(dir).map_err(|e| Error::io("open", dir, e))?;
    match fs::stat_at(&fd, name) {
        Ok(_) => Ok(NameCheck::Taken),
        Err(Errno::NOENT) => Ok(NameCheck::Free),
        Err(e) => Err(Error::io("stat", dir.join(name), e)),
    }
}

/// A name close to `name` that is free in folder `dir` and that its rules take: `name`
/// itself made valid ([`NameRules::fix`]) when that is free, else the keep-both name the
/// engine would give it (`report (copy).pdf`, see [`keep_both_name`]).
pub fn free_name(
    dir: &Path,
    rules: &NameRules,
    name: &OsStr,
    folder: bool,
) -> Result<OsString, Error> {
    let fd = fs::open_dir_path(dir).map_err(|e| Error::io("open", dir, e))?;
    let mut failed = None;
    let mut taken = |n: &OsStr| match fs::stat_at(&fd, n) {
        Ok(_) => true,
        Err(Errno::NOENT) => false,
        Err(e) => {
            failed.get_or_insert(Error::io("stat", dir.join(n), e));
            false
        }
    };
    let fixed = rules.fix(name);
    let free = if taken(&fixed) {
        keep_both_name(&fixed, folder, rules.name_max, &mut taken)
    } else {
        fixed
    };
    match failed {
        Some(e) => Err(e),
        None => Ok(free),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FAT: NameRules = NameRules {
        name_max: 255,
        windows_names: true,
    };

    fn os(s: &str) -> &OsStr {
        OsStr::new(s)
    }

    #[test]
    fn problems_are_named() {
        let unix = NameRules::UNIX;
        assert_eq!(unix.problem(os("a:b?.txt")), None);
        assert_eq!(unix.problem(os("")), Some(NameProblem::Empty));
        assert_eq!(unix.problem(os("..")), Some(NameProblem::Empty));
        assert_eq!(unix.problem(os("a/b")), Some(NameProblem::Slash));
        let long = "x".repeat(256);
        assert_eq!(
            unix.problem(os(&long)),
            Some(NameProblem::TooLong { max: 255 })
        );
        assert_eq!(
            FAT.problem(os("a:b?.txt")),
            Some(NameProblem::Character(':'))
        );
        assert_eq!(
            FAT.problem(os("notes. ")),
            Some(NameProblem::TrailingDotOrSpace)
        );
        assert_eq!(FAT.problem(os("ok name.txt")), None);
    }

    #[test]
    fn fixed_names_are_allowed_and_keep_their_extension() {
        assert_eq!(FAT.fix(os("a:b?.txt")), "a_b_.txt");
        assert_eq!(FAT.fix(os("notes. ")), "notes");
        assert_eq!(FAT.fix(os("...")), "_");
        assert_eq!(NameRules::UNIX.fix(os("a:b")), "a:b");
        let short = NameRules {
            name_max: 12,
            windows_names: false,
        };
        assert_eq!(short.fix(os("a-long-report.pdf")), "a-long-r.pdf");
        assert_eq!(short.fix(os("x.averyveryverylongext")), "x.averyveryv");
        for name in ["a:b?.txt", "CON<>.", "é*.tar.gz"] {
            assert_eq!(FAT.problem(&FAT.fix(os(name))), None, "{name}");
        }
    }

    #[test]
    fn names_are_checked_and_suggested_in_the_folder() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        std::fs::write(dir.join("report.pdf"), "x").unwrap();
        std::fs::write(dir.join("report (copy).pdf"), "x").unwrap();
        let rules = NameRules::of(dir).unwrap();
        assert_eq!(rules.name_max, 255);
        let check = |n| check_name(dir, &rules, os(n)).unwrap();
        assert_eq!(check("report.pdf"), NameCheck::Taken);
        assert_eq!(check("other.pdf"), NameCheck::Free);
        assert_eq!(check("a/b"), NameCheck::NotAllowed(NameProblem::Slash));
        let free = |rules: &NameRules, n| free_name(dir, rules, os(n), false).unwrap();
        assert_eq!(free(&rules, "report.pdf"), "report (copy 2).pdf");
        assert_eq!(free(&rules, "new.pdf"), "new.pdf");
        assert_eq!(free(&FAT, "a:b.txt"), "a_b.txt");
        std::fs::write(dir.join("a_b.txt"), "x").unwrap();
        assert_eq!(free(&FAT, "a:b.txt"), "a_b (copy).txt");
        assert!(check_name(&dir.join("gone"), &rules, os("x")).is_err());
    }
}
