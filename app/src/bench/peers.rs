//! The optional extra peers: fast copy and delete tools a user may have installed beside the
//! classic ones (`cargo install xcp cpz rmz`). Each one found on `PATH` joins the workloads it
//! does; one not found is skipped with a note. The benchmark never needs them.

use std::ffi::OsStr;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// An extra peer tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum Peer {
    /// `xcp -r SRC DEST_DIR`: a parallel `cp`.
    Xcp,
    /// `cpz SRC DEST`: the copy tool of the `fuc` project.
    Cpz,
    /// `rmz PATH`: the delete tool of the `fuc` project.
    Rmz,
    /// The bare system calls of a small-file copy (`floor.rs`): a reference that shows what
    /// the machine allows, never a rival to beat. Always there: it is this executable.
    Floor,
}

impl Peer {
    /// Every extra peer a user may install, in report order.
    pub(super) const ALL: [Peer; 3] = [Peer::Xcp, Peer::Cpz, Peer::Rmz];

    /// Whether Ferry must be ahead of it: every peer but the floor.
    pub(super) fn is_rival(self) -> bool {
        self != Peer::Floor
    }

    /// Its program name.
    pub(super) fn name(self) -> &'static str {
        match self {
            Peer::Xcp => "xcp",
            Peer::Cpz => "cpz",
            Peer::Rmz => "rmz",
            Peer::Floor => "floor",
        }
    }

    /// The command copying the folder `src` into the existing folder `dest_dir` (landing as
    /// `dest_dir/<name of src>`, as `cp -r` does); `None` for a tool that does not copy.
    pub(super) fn copy(self, exe: &Path, src: &Path, dest_dir: &Path) -> Option<Command> {
        let mut cmd = Command::new(exe);
        match self {
            Peer::Xcp => {
                cmd.arg("-r").arg(src).arg(dest_dir);
            }
            // cpz takes the path to create, not the folder to put it in.
            Peer::Cpz => {
                cmd.arg(src).arg(dest_dir.join(src.file_name()?));
            }
            Peer::Floor => {
                cmd.args(["bench", "--floor-copy"])
                    .arg(src)
                    .arg(dest_dir.join(src.file_name()?));
            }
            Peer::Rmz => return None,
        }
        Some(cmd)
    }

    /// The command deleting `path` and everything in it; `None` for a tool that does not
    /// delete.
    pub(super) fn delete(self, exe: &Path, path: &Path) -> Option<Command> {
        match self {
            Peer::Rmz => {
                let mut cmd = Command::new(exe);
                cmd.arg(path);
                Some(cmd)
            }
            Peer::Xcp | Peer::Cpz | Peer::Floor => None,
        }
    }
}

/// The extra peers found, with their executables.
#[derive(Debug, Default, Clone)]
pub(super) struct Peers {
    found: Vec<(Peer, PathBuf)>,
}

impl Peers {
    /// Looks for every extra peer on `search_path` (a `PATH`-style list); the floor is `this`
    /// executable.
    pub(super) fn find(search_path: Option<&OsStr>, this: PathBuf) -> Peers {
        let found = Peer::ALL
            .into_iter()
            .filter_map(|p| Some((p, find_program(p.name(), search_path?)?)))
            .chain([(Peer::Floor, this)])
            .collect();
        Peers { found }
    }

    /// The executable of `peer`, if installed.
    pub(super) fn exe(&self, peer: Peer) -> Option<&Path> {
        self.found
            .iter()
            .find(|(p, _)| *p == peer)
            .map(|(_, e)| e.as_path())
    }

    /// The peers not installed.
    pub(super) fn missing(&self) -> Vec<Peer> {
        Peer::ALL
            .into_iter()
            .filter(|p| self.exe(*p).is_none())
            .collect()
    }

    /// Every peer found, with its executable.
    pub(super) fn found(&self) -> &[(Peer, PathBuf)] {
        &self.found
    }
}

/// The first executable regular file called `name` in the folders of `search_path`.
fn find_program(name: &str, search_path: &OsStr) -> Option<PathBuf> {
    std::env::split_paths(search_path)
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(|dir| dir.join(name))
        .find(|candidate| {
            candidate
                .metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;

    fn install(dir: &Path, name: &str, mode: u32) {
        let path = dir.join(name);
        fs::write(&path, "#!/bin/sh\n").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(mode)).unwrap();
    }

    #[test]
    fn peers_are_found_only_as_executable_files_on_the_path() {
        let tmp = tempfile::tempdir().unwrap();
        let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
        fs::create_dir(&a).unwrap();
        fs::create_dir(&b).unwrap();
        install(&a, "xcp", 0o644); // not executable: skipped for the next one
        install(&b, "xcp", 0o755);
        fs::create_dir(a.join("rmz")).unwrap(); // a folder is no program
        let path = std::env::join_paths([&a, &b]).unwrap();

        let peers = Peers::find(Some(&path), PathBuf::from("/bin/ferry"));
        assert_eq!(peers.exe(Peer::Xcp), Some(b.join("xcp").as_path()));
        assert_eq!(peers.missing(), [Peer::Cpz, Peer::Rmz]);
        assert_eq!(peers.exe(Peer::Floor), Some(Path::new("/bin/ferry")));
        assert_eq!(Peers::find(None, PathBuf::new()).missing(), Peer::ALL);
    }

    #[test]
    fn each_peer_gets_the_command_line_of_its_own_kind() {
        let exe = Path::new("/bin/tool");
        let copy = |p: Peer| {
            p.copy(exe, Path::new("/s/set"), Path::new("/d"))
                .map(|c| c.get_args().map(|a| a.to_owned()).collect::<Vec<_>>())
        };
        assert_eq!(copy(Peer::Xcp).unwrap(), ["-r", "/s/set", "/d"]);
        assert_eq!(copy(Peer::Cpz).unwrap(), ["/s/set", "/d/set"]);
        assert_eq!(
            copy(Peer::Floor).unwrap(),
            ["bench", "--floor-copy", "/s/set", "/d/set"]
        );
        assert!(copy(Peer::Rmz).is_none());
        assert!(Peer::Rmz.delete(exe, Path::new("/t")).is_some());
        assert!(Peer::Xcp.delete(exe, Path::new("/t")).is_none());
    }
}
