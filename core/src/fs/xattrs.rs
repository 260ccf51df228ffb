//! Extended attributes and POSIX ACLs: read from a source, written to its copy best effort
//! (what the destination refuses is a [`NotKept`], which a job makes a note, not a failure),
//! and the ACLs a copy inherited from its folder's default ACL taken off again.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use rustix::fd::{AsFd, BorrowedFd};
use rustix::io::{Errno, Result};

use super::proc_path;

/// True unless folder `dir` surely has no default ACL (which, where present, gives what is
/// created in it its permissions instead of the umask).
pub fn may_have_default_acl(dir: impl AsFd) -> bool {
    !matches!(
        rustix::fs::fgetxattr_query(dir, DEFAULT_ACL),
        Err(Errno::NODATA | Errno::OPNOTSUPP)
    )
}

/// Extended attributes (ACLs included) of a file or folder, names with values.
pub type Xattrs = Vec<(std::ffi::OsString, Vec<u8>)>;

/// What extended attributes are read from or written to: an open file or folder, or a
/// symbolic link itself, which has no descriptor to work through (`cp -a` keeps a link's
/// `trusted.*` and `security.*` attributes too; `user.*` ones a link cannot have).
enum XattrsOf<'a> {
    Fd(BorrowedFd<'a>),
    /// The link, by a path through its folder's `/proc` entry (never followed: `l*xattr`).
    Link(PathBuf),
}

impl XattrsOf<'_> {
    fn link(dir: BorrowedFd<'_>, name: &OsStr) -> XattrsOf<'static> {
        XattrsOf::Link(proc_path(dir).join(name))
    }

    /// The size of the list of names.
    fn list_size(&self) -> Result<usize> {
        match self {
            XattrsOf::Fd(fd) => rustix::fs::flistxattr_query(fd),
            XattrsOf::Link(path) => rustix::fs::llistxattr_query(path),
        }
    }

    /// The size of the value of `name`.
    fn value_size(&self, name: &OsStr) -> Result<usize> {
        match self {
            XattrsOf::Fd(fd) => rustix::fs::fgetxattr_query(fd, name),
            XattrsOf::Link(path) => rustix::fs::lgetxattr_query(path, name),
        }
    }

    fn list(&self, names: &mut [u8]) -> Result<usize> {
        match self {
            XattrsOf::Fd(fd) => rustix::fs::flistxattr(fd, names),
            XattrsOf::Link(path) => rustix::fs::llistxattr(path, names),
        }
    }

    fn get(&self, name: &OsStr, value: &mut [u8]) -> Result<usize> {
        match self {
            XattrsOf::Fd(fd) => rustix::fs::fgetxattr(fd, name, value),
            XattrsOf::Link(path) => rustix::fs::lgetxattr(path, name, value),
        }
    }

    fn remove(&self, name: &str) -> Result<()> {
        match self {
            XattrsOf::Fd(fd) => rustix::fs::fremovexattr(fd, name),
            XattrsOf::Link(path) => rustix::fs::lremovexattr(path, name),
        }
    }

    fn set(&self, name: &OsStr, value: &[u8]) -> Result<()> {
        let flags = rustix::fs::XattrFlags::empty();
        match self {
            XattrsOf::Fd(fd) => rustix::fs::fsetxattr(fd, name, value, flags),
            XattrsOf::Link(path) => rustix::fs::lsetxattr(path, name, value, flags),
        }
    }

    /// Every extended attribute; none for a file system without them.
    fn read(&self) -> Result<Xattrs> {
        let len = match self.list_size() {
            Ok(0) | Err(Errno::OPNOTSUPP) => return Ok(Vec::new()),
            Ok(n) => n,
            Err(e) => return Err(e),
        };
        let mut names = vec![0u8; len];
        let len = self.list(&mut names[..])?;
        let mut out = Vec::new();
        for name in names[..len].split(|&b| b == 0).filter(|n| !n.is_empty()) {
            let name = OsStr::from_bytes(name);
            let size = match self.value_size(name) {
                Ok(n) => n,
                Err(Errno::NODATA) => continue,
                Err(e) => return Err(e),
            };
            let mut value = vec![0u8; size];
            let size = self.get(name, &mut value[..])?;
            value.truncate(size);
            out.push((name.to_owned(), value));
        }
        Ok(out)
    }

    /// Sets every attribute of `xattrs`, best effort (see [`write_xattrs`]).
    fn write(&self, xattrs: &Xattrs) -> std::result::Result<(), NotKept> {
        let mut not_kept: Option<NotKept> = None;
        for (name, value) in xattrs {
            if let Err(errno) = self.set(name, value) {
                let acl = is_acl(name);
                let first = not_kept.get_or_insert(NotKept {
                    errno,
                    acls_only: true,
                });
                first.acls_only &= acl;
            }
        }
        not_kept.map_or(Ok(()), Err)
    }
}

/// Extended attributes a copy could not be given: the file system's first answer, and
/// whether what it refused was ACLs alone (a `noacl` mount keeps `user.*` attributes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotKept {
    /// The first refusal.
    pub errno: Errno,
    /// Only `system.posix_acl_*` attributes were refused.
    pub acls_only: bool,
}

impl From<Errno> for NotKept {
    fn from(errno: Errno) -> Self {
        NotKept {
            errno,
            acls_only: false,
        }
    }
}

fn is_acl(name: &OsStr) -> bool {
    name == ACCESS_ACL || name == DEFAULT_ACL
}

/// Reads every extended attribute of `fd`; none for a file system without them.
pub fn read_xattrs(fd: impl AsFd) -> Result<Xattrs> {
    XattrsOf::Fd(fd.as_fd()).read()
}

/// Sets every attribute of `xattrs` on `fd`, best effort: every one is tried (a file system
/// may hold `user.*` attributes and refuse ACLs), and the first that could not be set is the
/// error returned (`ENOTSUP` when it cannot hold it); a caller records it as a note, not a
/// failure.
pub fn write_xattrs(fd: impl AsFd, xattrs: &Xattrs) -> std::result::Result<(), NotKept> {
    XattrsOf::Fd(fd.as_fd()).write(xattrs)
}

/// A file's or folder's access ACL, as an extended attribute.
pub const ACCESS_ACL: &str = "system.posix_acl_access";
/// A folder's default ACL, which what is created in it inherits.
pub const DEFAULT_ACL: &str = "system.posix_acl_default";

/// Copies extended attributes (ACLs included) from `src` to `dst`, as [`write_xattrs`]
/// does. `inherited`: ACLs `dst` may have got from its folder's default ACL on creation
/// (see [`may_have_default_acl`]); those its source does not have are removed again, as
/// `cp -a` does, so that a copy is never open to more users than its source.
pub fn copy_xattrs(
    src: impl AsFd,
    dst: impl AsFd,
    inherited: &[&str],
) -> std::result::Result<(), NotKept> {
    let (src, dst) = (XattrsOf::Fd(src.as_fd()), XattrsOf::Fd(dst.as_fd()));
    copy_between(&src, &dst, inherited)
}

/// [`copy_xattrs`] for what has no descriptor to work through: `src_name` in folder
/// `src_dir` to `dst_name` in `dst_dir`, neither followed. A symbolic link (whose `user.*`
/// attributes the kernel refuses, and which inherits no ACL), or a FIFO, socket or device,
/// which may have ACLs of its own and inherit its folder's.
pub fn copy_xattrs_at(
    (src_dir, src_name): (impl AsFd, &OsStr),
    (dst_dir, dst_name): (impl AsFd, &OsStr),
    inherited: &[&str],
) -> std::result::Result<(), NotKept> {
    let src = XattrsOf::link(src_dir.as_fd(), src_name);
    let dst = XattrsOf::link(dst_dir.as_fd(), dst_name);
    copy_between(&src, &dst, inherited)
}

fn copy_between(
    src: &XattrsOf<'_>,
    dst: &XattrsOf<'_>,
    inherited: &[&str],
) -> std::result::Result<(), NotKept> {
    let xattrs = src.read()?;
    let written = if xattrs.is_empty() {
        Ok(())
    } else {
        dst.write(&xattrs)
    };
    for &name in inherited {
        if xattrs.iter().any(|(n, _)| n == name) {
            continue;
        }
        match dst.remove(name) {
            Ok(()) | Err(Errno::NODATA | Errno::OPNOTSUPP) => {}
            Err(errno) => written.and(Err(NotKept {
                errno,
                acls_only: true,
            }))?,
        }
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extended_attributes_are_copied() {
        let tmp = tempfile::tempdir().unwrap();
        let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
        let src = std::fs::File::create(&a).unwrap();
        rustix::fs::fsetxattr(&src, "user.one", b"1", rustix::fs::XattrFlags::empty()).unwrap();
        rustix::fs::fsetxattr(&src, "user.two", b"22", rustix::fs::XattrFlags::empty()).unwrap();
        let dst = std::fs::File::create(&b).unwrap();
        copy_xattrs(&src, &dst, &[]).unwrap();
        let mut value = [0u8; 8];
        let n = rustix::fs::getxattr(&b, "user.two", &mut value[..]).unwrap();
        assert_eq!(&value[..n], b"22");
    }
}
