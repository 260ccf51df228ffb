//! The XDG user folders, read from `user-dirs.dirs` as `xdg-user-dir` and GLib read it.
//!
//! Not `directories::UserDirs`: it reads `HOME` and `XDG_CONFIG_HOME` from the process
//! environment only, so tests could not point it at a temporary home.

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};

use super::{PlacesEnv, StandardKind, StandardPlace};
use crate::error::Error;

/// The user folders the sidebar shows, in its order, with their `user-dirs.dirs` keys and
/// the folder `xdg-user-dirs-update` creates for them in an English locale.
const FOLDERS: [(StandardKind, &[u8], &str); 6] = [
    (StandardKind::Desktop, b"XDG_DESKTOP_DIR", "Desktop"),
    (StandardKind::Documents, b"XDG_DOCUMENTS_DIR", "Documents"),
    (StandardKind::Downloads, b"XDG_DOWNLOAD_DIR", "Downloads"),
    (StandardKind::Music, b"XDG_MUSIC_DIR", "Music"),
    (StandardKind::Pictures, b"XDG_PICTURES_DIR", "Pictures"),
    (StandardKind::Videos, b"XDG_VIDEOS_DIR", "Videos"),
];

/// Home, then each user folder that exists and is not home itself. With a `user-dirs.dirs`,
/// a folder it does not set is home (as `xdg-user-dir` answers) and so not shown; without
/// one (no xdg-user-dirs installed) the conventional `~/Documents`, ... are shown if they
/// exist, as Qt (so Dolphin) does. An unreadable file is reported and treated as missing.
pub(super) fn standard_places(env: &PlacesEnv) -> (Vec<StandardPlace>, Option<Error>) {
    let file = env.config_home.join("user-dirs.dirs");
    let (text, error) = match std::fs::read(&file) {
        Ok(text) => (Some(text), None),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (None, None),
        Err(e) => (None, Some(Error::io("read", &file, e))),
    };
    let set = text.as_deref().map(|text| parse(text, &env.home));
    let mut places = vec![StandardPlace {
        kind: StandardKind::Home,
        path: env.home.clone(),
    }];
    for (kind, key, default) in FOLDERS {
        let path = match &set {
            Some(set) => match set.iter().rev().find(|(k, _)| *k == key) {
                Some((_, path)) => path.clone(),
                None => continue,
            },
            None => env.home.join(default),
        };
        if places.iter().all(|p| p.path != path) && path.is_dir() {
            places.push(StandardPlace { kind, path });
        }
    }
    (places, error)
}

/// The `KEY="value"` assignments of a `user-dirs.dirs` file, in order, values resolved to
/// paths: `"$HOME/…"` under `home`, `"/…"` as is; any other value (relative, unquoted) is
/// ignored, as GLib ignores it. Backslash escapes (`\"`, `\$`) are undone, as the shell that
/// `xdg-user-dir` sources the file with would.
fn parse<'a>(text: &'a [u8], home: &Path) -> Vec<(&'a [u8], PathBuf)> {
    text.split(|&b| b == b'\n')
        .filter_map(|line| {
            let line = line.trim_ascii();
            if line.starts_with(b"#") {
                return None;
            }
            let eq = line.iter().position(|&b| b == b'=')?;
            let key = line[..eq].trim_ascii();
            let value = unquote(line[eq + 1..].trim_ascii())?;
            let path = if let Some(rest) = value.strip_prefix(b"$HOME") {
                if !rest.is_empty() && !rest.starts_with(b"/") {
                    return None; // `$HOMEWORK`: another variable
                }
                let rest = &rest[rest.iter().take_while(|&&b| b == b'/').count()..];
                match rest {
                    [] => home.to_path_buf(),
                    _ => home.join(OsString::from_vec(rest.to_vec())),
                }
            } else if value.starts_with(b"/") {
                PathBuf::from(OsString::from_vec(value))
            } else {
                return None;
            };
            Some((key, path))
        })
        .collect()
}

/// The content of a double-quoted value, escapes undone; `None` if it is not quoted.
fn unquote(value: &[u8]) -> Option<Vec<u8>> {
    let mut inner = value.strip_prefix(b"\"")?.iter();
    let mut out = Vec::with_capacity(value.len());
    while let Some(&b) = inner.next() {
        match b {
            b'"' => return Some(out),
            b'\\' => out.push(*inner.next()?),
            _ => out.push(b),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;

    #[test]
    fn values_resolve_under_home_or_as_absolute_paths() {
        let text = b"# written by xdg-user-dirs-update\n\
            XDG_DESKTOP_DIR=\"$HOME/Desktop\"\n\
            \tXDG_DOWNLOAD_DIR = \"$HOME/My \\\"Downloads\\\"\"\n\
            XDG_MUSIC_DIR=\"/srv/music\"\n\
            XDG_VIDEOS_DIR=\"$HOME/\"\n\
            XDG_PICTURES_DIR=\"$HOME\"\n\
            XDG_PUBLICSHARE_DIR=Public\n\
            XDG_TEMPLATES_DIR=\"Templates\"\n\
            XDG_DOCUMENTS_DIR=\"$HOMEWORK/x\"\n\
            XDG_DESKTOP_DIR=\"$HOME/caf\xc3\xa9\xff\"\n\
            XDG_MUSIC_DIR=\"$HOME//Music/\"\n";
        let home = Path::new("/home/u");
        let got = parse(text, home);
        let owned: Vec<(&[u8], &Path)> = got.iter().map(|(k, p)| (*k, p.as_path())).collect();
        assert_eq!(
            owned,
            [
                (&b"XDG_DESKTOP_DIR"[..], Path::new("/home/u/Desktop")),
                (b"XDG_DOWNLOAD_DIR", Path::new("/home/u/My \"Downloads\"")),
                (b"XDG_MUSIC_DIR", Path::new("/srv/music")),
                (b"XDG_VIDEOS_DIR", home),
                (b"XDG_PICTURES_DIR", home),
                (
                    b"XDG_DESKTOP_DIR",
                    Path::new(OsStr::from_bytes(b"/home/u/caf\xc3\xa9\xff"))
                ),
                (b"XDG_MUSIC_DIR", Path::new("/home/u/Music")),
            ]
        );
        assert_eq!(unquote(b"\"unterminated"), None);
    }

    fn env(root: &Path) -> PlacesEnv {
        PlacesEnv::in_root(root)
    }

    #[test]
    fn only_existing_folders_other_than_home_are_places() {
        let tmp = tempfile::tempdir().unwrap();
        let env = env(tmp.path());
        for dir in ["Docs", "Downloads", "Videos", "Music"] {
            std::fs::create_dir_all(env.home.join(dir)).unwrap();
        }
        std::fs::create_dir_all(&env.config_home).unwrap();
        std::fs::write(
            env.config_home.join("user-dirs.dirs"),
            "XDG_DOCUMENTS_DIR=\"$HOME/Docs\"\n\
             XDG_DOWNLOAD_DIR=\"$HOME/Downloads\"\n\
             XDG_PICTURES_DIR=\"$HOME/Pictures\"\n\
             XDG_DESKTOP_DIR=\"$HOME/\"\n\
             XDG_VIDEOS_DIR=\"$HOME/Docs\"\n",
        )
        .unwrap();
        // Music exists but is not set: it is home, as xdg-user-dir says. Pictures is set but
        // missing; Videos is Documents again.
        let (places, error) = standard_places(&env);
        assert!(error.is_none());
        let kinds: Vec<_> = places.iter().map(|p| (p.kind, p.path.clone())).collect();
        assert_eq!(
            kinds,
            [
                (StandardKind::Home, env.home.clone()),
                (StandardKind::Documents, env.home.join("Docs")),
                (StandardKind::Downloads, env.home.join("Downloads")),
            ]
        );
    }

    #[test]
    fn without_the_file_the_conventional_folders_are_used() {
        let tmp = tempfile::tempdir().unwrap();
        let env = env(tmp.path());
        std::fs::create_dir_all(env.home.join("Music")).unwrap();
        std::fs::create_dir_all(env.home.join("Templates")).unwrap();
        let (places, error) = standard_places(&env);
        assert!(error.is_none());
        let kinds: Vec<_> = places.iter().map(|p| p.kind).collect();
        assert_eq!(kinds, [StandardKind::Home, StandardKind::Music]);
    }
}
