//! The clipboard's formats as bytes: what Ferry offers under each name, and how it reads what
//! other programs offer. Pure functions, shared by the X11 and the Wayland backends.
//!
//! | name | content | written by |
//! | --- | --- | --- |
//! | `x-special/gnome-copied-files` | `copy` or `cut`, then one `file://` URI per line (`\n`) | Nautilus, Nemo, Thunar, cosmic-files, Dolphin |
//! | `text/uri-list` | `file://` URIs, each line ending in CRLF; `#` lines are comments (RFC 2483) | nearly everyone |
//! | `application/x-kde-cutselection` | `1` for a cut, `0` for a copy | Dolphin |
//! | `UTF8_STRING`, `text/plain;charset=utf-8`, `text/plain` | the paths, one per line | for text editors |
//! | `STRING` | the same in Latin-1 | old X11 programs |
//!
//! URIs are percent-encoded bytes ([`ferry_core::uri`]), so names that are not UTF-8 go
//! through the file formats exactly; the text formats can only carry them lossily (`�`).

use std::path::{Path, PathBuf};

use ferry_core::uri::{self, NotLocal};

/// GNOME's list of copied or cut files.
pub const GNOME_COPIED_FILES: &str = "x-special/gnome-copied-files";
/// RFC 2483's list of URIs.
pub const URI_LIST: &str = "text/uri-list";
/// KDE's cut marker, beside `text/uri-list`.
pub const KDE_CUT: &str = "application/x-kde-cutselection";
/// UTF-8 text, by its MIME name.
pub const TEXT_UTF8: &str = "text/plain;charset=utf-8";
/// Text of no stated charset (UTF-8 on any desktop of this century).
pub const TEXT_PLAIN: &str = "text/plain";
/// UTF-8 text, by its X11 name.
pub const UTF8_STRING: &str = "UTF8_STRING";
/// Latin-1 text, by its X11 name.
pub const STRING: &str = "STRING";

/// The header GTK 3 Nautilus (3.30 to 42) puts before its files when it offers them as text.
const NAUTILUS_TEXT_HEADER: &str = "x-special/nautilus-clipboard\n";

/// The formats Ferry offers for files, in the order other programs should prefer them.
pub fn file_formats(paths: &[PathBuf], cut: bool) -> Vec<(&'static str, Vec<u8>)> {
    let text = text_of(paths);
    let mut formats = vec![
        (GNOME_COPIED_FILES, gnome_copied_files(paths, cut)),
        (URI_LIST, uri_list(paths)),
        (KDE_CUT, kde_cut(cut)),
    ];
    formats.extend(text_formats(&text));
    formats
}

/// The formats Ferry offers for text.
pub fn text_formats(text: &str) -> Vec<(&'static str, Vec<u8>)> {
    vec![
        (UTF8_STRING, text.as_bytes().to_vec()),
        (TEXT_UTF8, text.as_bytes().to_vec()),
        (TEXT_PLAIN, text.as_bytes().to_vec()),
        (STRING, latin1(text)),
    ]
}

/// `copy` or `cut`, then one URI per line, with no newline at the end (as Nautilus writes it).
pub fn gnome_copied_files(paths: &[PathBuf], cut: bool) -> Vec<u8> {
    let mut out = String::from(if cut { "cut" } else { "copy" });
    for path in paths {
        out.push('\n');
        out.push_str(&uri::file_uri(path));
    }
    out.into_bytes()
}

/// One URI per line, each line ending in CRLF.
pub fn uri_list(paths: &[PathBuf]) -> Vec<u8> {
    let mut out = String::new();
    for path in paths {
        out.push_str(&uri::file_uri(path));
        out.push_str("\r\n");
    }
    out.into_bytes()
}

/// `1` for a cut, `0` for a copy.
pub fn kde_cut(cut: bool) -> Vec<u8> {
    vec![if cut { b'1' } else { b'0' }]
}

/// The paths as text, one per line, no newline at the end (names that are not UTF-8 are shown
/// with `�`: text cannot carry them).
pub fn text_of(paths: &[PathBuf]) -> String {
    let lines: Vec<_> = paths.iter().map(|p| p.to_string_lossy()).collect();
    lines.join("\n")
}

/// Latin-1 bytes of `text`; characters beyond it become `?`.
pub fn latin1(text: &str) -> Vec<u8> {
    text.chars()
        .map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?'))
        .collect()
}

/// Text from Latin-1 bytes.
pub fn from_latin1(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| char::from(b)).collect()
}

/// Why what the clipboard holds cannot be pasted as files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// A URI that names no local file.
    NotLocal {
        /// The URI as offered (lossily as text).
        uri: String,
        /// Why.
        why: NotLocal,
    },
    /// A `x-special/gnome-copied-files` whose first line is neither `copy` nor `cut`.
    NoAction(String),
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::NotLocal { uri, why } => write!(f, "the clipboard holds {uri}: {why}"),
            Refused::NoAction(line) => write!(
                f,
                "the clipboard's file list starts with {line:?}, not \"copy\" or \"cut\""
            ),
        }
    }
}

impl std::error::Error for Refused {}

/// A file list read from the clipboard: its local files, and the addresses it holds that name
/// none (a web page's), left out of the paste. Refused only when no local file is left.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Listed {
    /// The local files, by path.
    pub paths: Vec<PathBuf>,
    /// What is not a local file, as offered (lossily as text).
    pub left_out: Vec<String>,
}

impl Listed {
    /// As what the clipboard holds: a cut (`cut`) or a copy of these files.
    pub fn into_contents(self, cut: bool) -> super::Contents {
        super::Contents::Files {
            paths: self.paths,
            cut,
            left_out: self.left_out,
        }
    }
}

fn listed<'a>(uris: impl Iterator<Item = &'a [u8]>) -> Result<Listed, Refused> {
    let (mut listed, mut refused) = (Listed::default(), None);
    for uri in uris {
        match local_path(uri) {
            Ok(path) => listed.paths.push(path),
            Err(why) => {
                listed.left_out.push(lossy(uri));
                refused.get_or_insert(why);
            }
        }
    }
    match refused {
        Some(why) if listed.paths.is_empty() => Err(why),
        _ => Ok(listed),
    }
}

/// Reads `x-special/gnome-copied-files`: the files, and true for a cut.
pub fn parse_gnome_copied_files(bytes: &[u8]) -> Result<(Listed, bool), Refused> {
    let mut lines = lines(bytes);
    let action = lines.next().unwrap_or_default();
    let cut = match action.trim_ascii() {
        b"cut" => true,
        b"copy" => false,
        other => return Err(Refused::NoAction(lossy(other))),
    };
    let listed = listed(lines.filter(|line| !line.trim_ascii().is_empty()))?;
    Ok((listed, cut))
}

/// Reads `text/uri-list`: CRLF or LF lines, `#` comments and blank lines skipped.
pub fn parse_uri_list(bytes: &[u8]) -> Result<Listed, Refused> {
    listed(
        lines(bytes)
            .map(<[u8]>::trim_ascii)
            .filter(|line| !line.is_empty() && !line.starts_with(b"#")),
    )
}

/// Reads `application/x-kde-cutselection`: true for a cut.
pub fn parse_kde_cut(bytes: &[u8]) -> bool {
    bytes.trim_ascii() == b"1"
}

/// Files in text that GTK 3 Nautilus (3.30 to 42) offers: its header, then as
/// `x-special/gnome-copied-files`. `None` for any other text. Always a copy, even of a cut:
/// any program may write text (a web page can), and a paste must not move the user's
/// folders on the word of one.
pub fn parse_nautilus_text(text: &str) -> Option<Result<Vec<PathBuf>, Refused>> {
    let rest = text.strip_prefix(NAUTILUS_TEXT_HEADER)?;
    Some(parse_gnome_copied_files(rest.as_bytes()).map(|(listed, _cut)| listed.paths))
}

/// The paths of text that is nothing but paths: every line not blank is an absolute path or a
/// `file:` URI. Whether they exist is for the caller to check.
pub fn paths_in_text(text: &str) -> Option<Vec<PathBuf>> {
    let paths: Vec<_> = text
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            if line.starts_with('/') {
                Some(PathBuf::from(line))
            } else {
                uri::path_from_file_uri(line.trim().as_bytes()).ok()
            }
        })
        .collect::<Option<_>>()?;
    (!paths.is_empty()).then_some(paths)
}

/// Lines split at `\n`, a `\r` before it dropped; no empty line for a final newline.
fn lines(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    bytes
        .split(|&b| b == b'\n')
        .map(|line| line.strip_suffix(b"\r").unwrap_or(line))
        .filter(move |_| !bytes.is_empty())
}

fn local_path(uri_bytes: &[u8]) -> Result<PathBuf, Refused> {
    uri::path_from_file_uri(uri_bytes).map_err(|why| Refused::NotLocal {
        uri: lossy(uri_bytes),
        why,
    })
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// True when `path` is there (a dangling link counts: it can be copied).
pub fn exists(path: &Path) -> bool {
    path.symlink_metadata().is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A GNOME list that names only local files: its paths and cut flag.
    fn gnome_paths(bytes: &[u8]) -> (Vec<PathBuf>, bool) {
        let (listed, cut) = parse_gnome_copied_files(bytes).unwrap();
        assert!(listed.left_out.is_empty(), "{listed:?}");
        (listed.paths, cut)
    }

    /// A URI list that names only local files: its paths.
    fn uris(bytes: &[u8]) -> Vec<PathBuf> {
        let listed = parse_uri_list(bytes).unwrap();
        assert!(listed.left_out.is_empty(), "{listed:?}");
        listed.paths
    }
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;

    fn odd_paths() -> Vec<PathBuf> {
        vec![
            PathBuf::from("/home/u/My Music/a%b.txt"),
            PathBuf::from(OsStr::from_bytes(b"/tmp/caf\xc3\xa9/x\xff\xfe")),
            PathBuf::from("/tmp/#hash?"),
        ]
    }

    #[test]
    fn gnome_copied_files_has_the_action_then_encoded_uris() {
        let paths = odd_paths();
        let copy = gnome_copied_files(&paths, false);
        assert_eq!(
            copy,
            b"copy\nfile:///home/u/My%20Music/a%25b.txt\nfile:///tmp/caf%C3%A9/x%FF%FE\n\
              file:///tmp/%23hash%3F"
        );
        assert!(gnome_copied_files(&paths, true).starts_with(b"cut\nfile:///home"));
        assert_eq!(gnome_paths(&copy), (paths.clone(), false));
        let cut = gnome_copied_files(&paths, true);
        assert_eq!(gnome_paths(&cut), (paths, true));
    }

    #[test]
    fn uri_lists_end_every_line_in_crlf_and_round_trip() {
        let paths = odd_paths();
        let list = uri_list(&paths);
        assert_eq!(
            list,
            b"file:///home/u/My%20Music/a%25b.txt\r\nfile:///tmp/caf%C3%A9/x%FF%FE\r\n\
              file:///tmp/%23hash%3F\r\n"
        );
        assert_eq!(uris(&list), paths);
    }

    #[test]
    fn the_kde_flag_is_one_for_a_cut() {
        assert_eq!(kde_cut(true), b"1");
        assert_eq!(kde_cut(false), b"0");
        assert!(parse_kde_cut(b"1"));
        assert!(parse_kde_cut(b"1\n"));
        assert!(!parse_kde_cut(b"0"));
        assert!(!parse_kde_cut(b""));
    }

    #[test]
    fn text_is_the_paths_one_per_line() {
        let paths = odd_paths();
        assert_eq!(
            text_of(&paths),
            "/home/u/My Music/a%b.txt\n/tmp/café/x\u{FFFD}\u{FFFD}\n/tmp/#hash?"
        );
        assert_eq!(latin1("café €"), b"caf\xe9 ?");
        assert_eq!(from_latin1(b"caf\xe9"), "café");
        let formats = file_formats(&paths, true);
        let names: Vec<_> = formats.iter().map(|(name, _)| *name).collect();
        assert_eq!(
            names,
            [
                GNOME_COPIED_FILES,
                URI_LIST,
                KDE_CUT,
                UTF8_STRING,
                TEXT_UTF8,
                TEXT_PLAIN,
                STRING
            ]
        );
    }

    #[test]
    fn what_others_offer_parses_with_or_without_a_final_newline() {
        let want = vec![PathBuf::from("/a b"), PathBuf::from("/c")];
        for gnome in [
            &b"copy\nfile:///a%20b\nfile:///c"[..],
            b"copy\nfile:///a%20b\nfile:///c\n",
            b"copy\r\nfile:///a%20b\r\nfile:///c\r\n",
            b"copy\nfile://localhost/a%20b\n\nfile:///c\n",
        ] {
            assert_eq!(gnome_paths(gnome), (want.clone(), false));
        }
        assert_eq!(
            gnome_paths(b"cut\nfile:///c\n"),
            (vec![PathBuf::from("/c")], true)
        );
        for list in [
            &b"file:///a%20b\r\nfile:///c"[..],
            b"file:///a%20b\nfile:///c\n",
            b"# from a test\r\nfile:///a%20b\r\n\r\n#another\r\nfile://localhost/c\r\n",
        ] {
            assert_eq!(uris(list), want);
        }
        assert_eq!(uris(b""), Vec::<PathBuf>::new());
        assert_eq!(uris(b"\r\n"), Vec::<PathBuf>::new());
        assert_eq!(gnome_paths(b"copy"), (Vec::new(), false));
    }

    #[test]
    fn uris_that_are_not_local_files_are_refused_with_a_reason() {
        // Beside local files, left out (said by the paste); alone, refused with the reason.
        let mixed = parse_uri_list(b"file:///ok\r\nhttps://example.org/x\r\n").unwrap();
        assert_eq!(mixed.paths, [PathBuf::from("/ok")]);
        assert_eq!(mixed.left_out, ["https://example.org/x"]);
        let err = parse_uri_list(b"https://example.org/x\r\n").unwrap_err();
        assert_eq!(
            err,
            Refused::NotLocal {
                uri: "https://example.org/x".into(),
                why: NotLocal::OtherScheme("https".into())
            }
        );
        assert!(err.to_string().contains("https://example.org/x"));
        assert!(err.to_string().contains("not a local file"));
        let err = parse_gnome_copied_files(b"copy\nsftp://host/a").unwrap_err();
        assert!(matches!(err, Refused::NotLocal { .. }));
        let err = parse_uri_list(b"file://server/share/a\n").unwrap_err();
        assert!(err.to_string().contains("another computer"));
        let err = parse_gnome_copied_files(b"move\nfile:///a").unwrap_err();
        assert_eq!(err, Refused::NoAction("move".into()));
        assert!(parse_gnome_copied_files(b"").is_err());
    }

    #[test]
    fn gtk3_nautilus_files_in_text_are_files_to_copy() {
        let text = "x-special/nautilus-clipboard\ncut\nfile:///a%20b\nfile:///c\n";
        assert_eq!(
            parse_nautilus_text(text).unwrap().unwrap(),
            [PathBuf::from("/a b"), PathBuf::from("/c")],
            "a cut in text pastes as a copy"
        );
        assert!(parse_nautilus_text("some text").is_none());
    }

    #[test]
    fn text_that_is_only_paths_gives_them() {
        assert_eq!(
            paths_in_text("/a b\n/c\n").unwrap(),
            [PathBuf::from("/a b"), PathBuf::from("/c")]
        );
        assert_eq!(
            paths_in_text("file:///a%20b\r\n\n/c").unwrap(),
            [PathBuf::from("/a b"), PathBuf::from("/c")]
        );
        assert!(paths_in_text("hello\n/c").is_none());
        assert!(paths_in_text("relative/path").is_none());
        assert!(paths_in_text("https://example.org/").is_none());
        assert!(paths_in_text("").is_none());
        assert!(paths_in_text("\n \n").is_none());
    }
}
