//! GTK bookmarks: `$XDG_CONFIG_HOME/gtk-3.0/bookmarks`, one `URI[ LABEL]` per line, which
//! GTK 3, GTK 4 (Nautilus) and Ferry share.
//!
//! Lines are kept as read: a bookmark not edited, and any line not understood (blank, not
//! UTF-8, not a URI), is written back byte for byte. `file://` URIs are percent-decoded to
//! bytes, so folders whose names are not UTF-8 work; any other URI (`sftp://`, `smb://`,
//! `recent:///`) is kept as a [`Target::Remote`].

use std::borrow::Cow;
use std::ffi::OsString;
use std::fs::File;
use std::io::Write;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use super::PlacesEnv;
use crate::error::{Error, Result};
use crate::uri::{NotLocal, file_uri, path_from_file_uri};

/// What a bookmark points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A local folder (a `file://` URI without a host, or with `localhost`).
    Local(PathBuf),
    /// Any other URI, as written (`sftp://host/dir`, `smb://server/share`, ...): listed,
    /// never checked, written back untouched.
    Remote(String),
}

impl Target {
    /// The folder, for a local bookmark.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Target::Local(path) => Some(path),
            Target::Remote(_) => None,
        }
    }
}

/// One bookmark: where it points and the label the user gave it, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bookmark {
    /// The folder or URI.
    pub target: Target,
    /// The label written after the URI (GTK shows the folder's name when there is none).
    pub label: Option<String>,
}

impl Bookmark {
    /// The label, else the folder's name (`/` for the root), else the URI.
    pub fn name(&self) -> Cow<'_, str> {
        if let Some(label) = &self.label {
            return Cow::Borrowed(label);
        }
        match &self.target {
            Target::Local(path) => match path.file_name() {
                Some(name) => name.to_string_lossy(),
                None => path.to_string_lossy(),
            },
            Target::Remote(uri) => Cow::Borrowed(uri),
        }
    }
}

/// One line of the file.
#[derive(Debug, Clone)]
enum Line {
    /// A bookmark: the line as read (or as last written), the length of its URI in it.
    Entry {
        raw: Vec<u8>,
        uri_len: usize,
        bookmark: Bookmark,
    },
    /// Anything else, kept as it is.
    Other(Vec<u8>),
}

/// The bookmarks file, read, to list or edit and [`save`](Self::save).
#[derive(Debug, Clone)]
pub struct Bookmarks {
    file: PathBuf,
    lines: Vec<Line>,
}

impl Bookmarks {
    /// Reads the user's bookmarks (none if the file does not exist). When
    /// `gtk-3.0/bookmarks` is missing, `~/.gtk-bookmarks` (GTK 2) is read instead, as GTK 3
    /// does; saving always writes `gtk-3.0/bookmarks`.
    pub fn load(env: &PlacesEnv) -> Result<Bookmarks> {
        let file = env.bookmarks_file();
        let text = match read_if_exists(&file)? {
            Some(text) => text,
            None => read_if_exists(&env.home.join(".gtk-bookmarks"))?.unwrap_or_default(),
        };
        Ok(Bookmarks {
            file,
            lines: parse(&text),
        })
    }

    /// The file [`save`](Self::save) writes.
    pub fn file(&self) -> &Path {
        &self.file
    }

    /// Every bookmark, in the file's order.
    pub fn iter(&self) -> impl Iterator<Item = &Bookmark> {
        self.lines.iter().filter_map(|line| match line {
            Line::Entry { bookmark, .. } => Some(bookmark),
            Line::Other(_) => None,
        })
    }

    /// Adds a bookmark to the folder `path` (absolute) at the end, with an optional label
    /// (line breaks in it become spaces). False, and nothing changed, when the folder is
    /// bookmarked already.
    pub fn add(&mut self, path: &Path, label: Option<&str>) -> Result<bool> {
        if !path.is_absolute() {
            return Err(Error::Refused {
                op: "bookmark",
                path: path.to_path_buf(),
            });
        }
        let target = Target::Local(path.to_path_buf());
        if self.iter().any(|b| b.target == target) {
            return Ok(false);
        }
        let uri = file_uri(path);
        let bookmark = Bookmark {
            target,
            label: None,
        };
        let mut line = Line::Entry {
            raw: Vec::new(),
            uri_len: uri.len(),
            bookmark,
        };
        set_label(&mut line, uri.as_bytes(), label);
        self.lines.push(line);
        Ok(true)
    }

    /// Removes `bookmark`: its target with its label (twice in the file, both lines). Other
    /// bookmarks to the same folder under other labels stay: removing "with space" took the
    /// one labelled "Trailing" too. False when there was none.
    pub fn remove(&mut self, bookmark: &Bookmark) -> bool {
        let before = self.lines.len();
        self.lines
            .retain(|line| !matches!(line, Line::Entry { bookmark: b, .. } if b == bookmark));
        self.lines.len() != before
    }

    /// Gives the bookmarks to `target` a new label (`None` or empty: none). False when there
    /// is no such bookmark.
    pub fn relabel(&mut self, target: &Target, label: Option<&str>) -> bool {
        let mut found = false;
        for line in &mut self.lines {
            if let Line::Entry {
                raw,
                uri_len,
                bookmark,
            } = line
                && bookmark.target == *target
            {
                let uri = raw[..*uri_len].to_vec();
                set_label(line, &uri, label);
                found = true;
            }
        }
        found
    }

    /// Writes the bookmarks back atomically: a temporary file in the same folder (created if
    /// missing), flushed, then renamed over the file, which keeps its permissions. A
    /// symlinked file (dotfiles) is written where the link points, and stays a link.
    pub fn save(&self) -> Result<()> {
        let file = std::fs::canonicalize(&self.file).unwrap_or_else(|_| self.file.clone());
        let dir = file.parent().unwrap_or(Path::new("/"));
        std::fs::create_dir_all(dir).map_err(|e| Error::io("create folder", dir, e))?;
        let permissions = std::fs::metadata(&file).ok().map(|m| m.permissions());
        let (temp, mut out) = create_temp(dir, &file)?;
        let written = (|| {
            if let Some(permissions) = permissions {
                out.set_permissions(permissions)?;
            }
            out.write_all(&self.to_bytes())?;
            out.sync_all()?;
            std::fs::rename(&temp, &file)
        })();
        if let Err(e) = written {
            let _ = std::fs::remove_file(&temp);
            return Err(Error::io("write", &file, e));
        }
        // The file is in place; a folder that cannot be flushed (some FUSE file systems
        // refuse) only makes the rename less durable across a crash.
        if let Ok(folder) = File::open(dir) {
            let _ = folder.sync_all();
        }
        Ok(())
    }

    fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for line in &self.lines {
            match line {
                Line::Entry { raw, .. } | Line::Other(raw) => out.extend_from_slice(raw),
            }
            out.push(b'\n');
        }
        out
    }
}

fn read_if_exists(file: &Path) -> Result<Option<Vec<u8>>> {
    match std::fs::read(file) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io("read", file, e)),
    }
}

/// Creates a new file next to `file`, hidden and named for this process, with the mode a new
/// file gets (0666 less the umask, as GTK creates it).
fn create_temp(dir: &Path, file: &Path) -> Result<(PathBuf, File)> {
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let base = file.file_name().unwrap_or_default().as_bytes();
    loop {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let mut name = b".".to_vec();
        name.extend_from_slice(base);
        name.extend_from_slice(format!(".ferry-{}-{n}", std::process::id()).as_bytes());
        let temp = dir.join(OsString::from_vec(name));
        match File::options()
            .write(true)
            .create_new(true)
            .mode(0o666)
            .open(&temp)
        {
            Ok(out) => return Ok((temp, out)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(Error::io("create", temp, e)),
        }
    }
}

/// Rewrites an entry line as `URI[ LABEL]`.
fn set_label(line: &mut Line, uri: &[u8], label: Option<&str>) {
    let Line::Entry { raw, bookmark, .. } = line else {
        return;
    };
    let label = label
        .map(|l| l.replace(['\n', '\r'], " ").trim().to_owned())
        .filter(|l| !l.is_empty());
    *raw = uri.to_vec();
    if let Some(label) = &label {
        raw.push(b' ');
        raw.extend_from_slice(label.as_bytes());
    }
    bookmark.label = label;
}

fn parse(text: &[u8]) -> Vec<Line> {
    let text = text.strip_suffix(b"\n").unwrap_or(text);
    if text.is_empty() {
        return Vec::new();
    }
    text.split(|&b| b == b'\n')
        .map(|raw| match parse_line(raw) {
            Some((uri_len, bookmark)) => Line::Entry {
                raw: raw.to_vec(),
                uri_len,
                bookmark,
            },
            None => Line::Other(raw.to_vec()),
        })
        .collect()
}

/// A line as GTK reads it: UTF-8 (GTK skips other lines), the URI up to the first space,
/// the label after it. Returns the URI's length and the bookmark.
fn parse_line(raw: &[u8]) -> Option<(usize, Bookmark)> {
    let text = std::str::from_utf8(raw).ok()?;
    let text = text.strip_suffix('\r').unwrap_or(text);
    let (uri, label) = match text.split_once(' ') {
        Some((uri, label)) => (uri, Some(label)),
        None => (text, None),
    };
    let target = if uri.starts_with("file://") {
        match path_from_file_uri(uri.as_bytes()) {
            Ok(path) => Target::Local(path),
            Err(NotLocal::NulByte) => return None,
            Err(_) => Target::Remote(uri.to_owned()), // file://otherhost/...
        }
    } else if has_scheme(uri) {
        Target::Remote(uri.to_owned())
    } else {
        return None;
    };
    let label = label.filter(|l| !l.is_empty()).map(str::to_owned);
    Some((uri.len(), Bookmark { target, label }))
}

/// True for `scheme:...` (RFC 3986: a letter, then letters, digits, `+`, `-`, `.`).
fn has_scheme(uri: &str) -> bool {
    uri.split_once(':').is_some_and(|(scheme, _)| {
        scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;
    use std::os::unix::fs::PermissionsExt;

    const SAMPLE: &[u8] = b"file:///home/u/My%20Music Music and more\n\
        file:///home/u/caf%C3%A9%FF\n\
        file://localhost/srv/a+b%2\n\
        sftp://me@host/srv/share Server\n\
        smb://nas/media\n\
        \n\
        not a uri\n\
        file:///bad\xff name\n\
        file:///home/u/Windows\r\n\
        file:///zero%00\n";

    fn loaded(root: &Path, text: &[u8]) -> (PlacesEnv, Bookmarks) {
        let env = PlacesEnv::in_root(root);
        std::fs::create_dir_all(env.bookmarks_file().parent().unwrap()).unwrap();
        std::fs::write(env.bookmarks_file(), text).unwrap();
        let bookmarks = Bookmarks::load(&env).unwrap();
        (env, bookmarks)
    }

    fn local(path: &[u8]) -> Target {
        Target::Local(PathBuf::from(OsStr::from_bytes(path)))
    }

    #[test]
    fn lines_parse_to_paths_as_bytes_labels_and_remote_uris() {
        let tmp = tempfile::tempdir().unwrap();
        let (_, bookmarks) = loaded(tmp.path(), SAMPLE);
        let got: Vec<_> = bookmarks
            .iter()
            .map(|b| (b.target.clone(), b.label.as_deref()))
            .collect();
        assert_eq!(
            got,
            [
                (local(b"/home/u/My Music"), Some("Music and more")),
                (local(b"/home/u/caf\xc3\xa9\xff"), None),
                (local(b"/srv/a+b%2"), None),
                (
                    Target::Remote("sftp://me@host/srv/share".into()),
                    Some("Server")
                ),
                (Target::Remote("smb://nas/media".into()), None),
                (local(b"/home/u/Windows"), None),
            ]
        );
        let names: Vec<_> = bookmarks.iter().map(|b| b.name().into_owned()).collect();
        assert_eq!(names[1], "caf\u{e9}\u{fffd}");
        assert_eq!(names[4], "smb://nas/media");
        assert_eq!(
            bookmarks.to_bytes(),
            SAMPLE,
            "an unedited file is written back as read"
        );
    }

    #[test]
    fn paths_round_trip_through_the_uri_encoding() {
        let path = Path::new(OsStr::from_bytes(b"/tmp/a b%/caf\xc3\xa9/x\xff#?+"));
        let uri = file_uri(path);
        assert_eq!(uri, "file:///tmp/a%20b%25/caf%C3%A9/x%FF%23%3F%2B");
        let (len, bookmark) = parse_line(uri.as_bytes()).unwrap();
        assert_eq!(
            (len, bookmark.target),
            (uri.len(), Target::Local(path.into()))
        );
    }

    /// Two bookmarks to one folder under two labels: removing one removed both.
    #[test]
    fn removing_a_bookmark_leaves_others_to_its_folder() {
        let tmp = tempfile::tempdir().unwrap();
        let text = b"file:///t/with%20space\nfile:///t/with%20space Trailing\n";
        let (_, mut bookmarks) = loaded(tmp.path(), text);
        let first = bookmarks.iter().next().cloned().unwrap();
        assert_eq!(first.label, None);
        assert!(bookmarks.remove(&first));
        let left: Vec<_> = bookmarks.iter().map(|b| b.label.clone()).collect();
        assert_eq!(left, [Some("Trailing".to_owned())]);
    }

    #[test]
    fn add_remove_and_relabel_keep_every_other_line() {
        let tmp = tempfile::tempdir().unwrap();
        let (env, mut bookmarks) = loaded(tmp.path(), SAMPLE);
        let new = Path::new(OsStr::from_bytes(b"/data/new folder\xfe"));
        assert!(bookmarks.add(new, Some("New\nOne ")).unwrap());
        assert!(!bookmarks.add(new, None).unwrap(), "no duplicates");
        assert!(!bookmarks.add(Path::new("/home/u/My Music/"), None).unwrap());
        assert!(bookmarks.add(Path::new("relative"), None).is_err());
        let listed = |target: &Target| {
            (bookmarks.iter())
                .find(|b| b.target == *target)
                .cloned()
                .expect("listed")
        };
        let cafe = listed(&local(b"/home/u/caf\xc3\xa9\xff"));
        let nas = listed(&Target::Remote("smb://nas/media".into()));
        assert!(bookmarks.remove(&cafe));
        assert!(bookmarks.remove(&nas));
        let nowhere = Bookmark {
            target: local(b"/nowhere"),
            label: None,
        };
        assert!(!bookmarks.remove(&nowhere));
        assert!(bookmarks.relabel(&local(b"/srv/a+b%2"), Some("Plus")));
        assert!(bookmarks.relabel(&local(b"/home/u/My Music"), None));
        bookmarks.save().unwrap();
        let written = std::fs::read(env.bookmarks_file()).unwrap();
        assert_eq!(
            written,
            b"file:///home/u/My%20Music\n\
              file://localhost/srv/a+b%2 Plus\n\
              sftp://me@host/srv/share Server\n\
              \n\
              not a uri\n\
              file:///bad\xff name\n\
              file:///home/u/Windows\r\n\
              file:///zero%00\n\
              file:///data/new%20folder%FE New One\n"
        );
        let again = Bookmarks::load(&env).unwrap();
        assert_eq!(
            again.iter().last().unwrap().target,
            Target::Local(new.into())
        );
        assert_eq!(
            again.iter().last().unwrap().label.as_deref(),
            Some("New One")
        );
    }

    #[test]
    fn saving_creates_the_folder_and_leaves_no_temporary_file() {
        let tmp = tempfile::tempdir().unwrap();
        let env = PlacesEnv::in_root(tmp.path());
        let mut bookmarks = Bookmarks::load(&env).unwrap();
        assert_eq!(bookmarks.iter().count(), 0);
        bookmarks.add(Path::new("/srv"), None).unwrap();
        bookmarks.save().unwrap();
        let dir = env.bookmarks_file().parent().unwrap().to_owned();
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["bookmarks"]);
        assert_eq!(
            std::fs::read(env.bookmarks_file()).unwrap(),
            b"file:///srv\n"
        );
    }

    #[test]
    fn saving_keeps_the_mode_and_a_symlinked_file() {
        let tmp = tempfile::tempdir().unwrap();
        let env = PlacesEnv::in_root(tmp.path());
        let real = tmp.path().join("dotfiles/bookmarks");
        std::fs::create_dir_all(real.parent().unwrap()).unwrap();
        std::fs::write(&real, "file:///a\n").unwrap();
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).unwrap();
        std::fs::create_dir_all(env.bookmarks_file().parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(&real, env.bookmarks_file()).unwrap();
        let mut bookmarks = Bookmarks::load(&env).unwrap();
        bookmarks.add(Path::new("/b"), None).unwrap();
        bookmarks.save().unwrap();
        let link = std::fs::symlink_metadata(env.bookmarks_file()).unwrap();
        assert!(link.file_type().is_symlink());
        assert_eq!(std::fs::read(&real).unwrap(), b"file:///a\nfile:///b\n");
        let mode = std::fs::metadata(&real).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o640);
    }

    #[test]
    fn the_gtk2_file_is_read_when_the_gtk3_one_is_missing() {
        let tmp = tempfile::tempdir().unwrap();
        let env = PlacesEnv::in_root(tmp.path());
        std::fs::create_dir_all(&env.home).unwrap();
        std::fs::write(env.home.join(".gtk-bookmarks"), "file:///old Old\n").unwrap();
        let bookmarks = Bookmarks::load(&env).unwrap();
        assert_eq!(bookmarks.iter().next().unwrap().name(), "Old");
        assert_eq!(bookmarks.file(), env.bookmarks_file());
    }
}
