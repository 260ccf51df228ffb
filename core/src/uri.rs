//! Paths as `file://` URIs and back, byte for byte: the one percent-encoding of the code base
//! (trash info files, GTK bookmarks, the file clipboard).
//!
//! Linux file names are bytes, not text, so the encoding works on bytes: every byte but the
//! unreserved characters of RFC 3986 and `/` becomes `%XX`, and decoding gives back exactly
//! the bytes that went in, UTF-8 or not.

use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

/// `path`'s bytes with every byte but unreserved characters (`A-Z a-z 0-9 - . _ ~`) and `/`
/// percent-encoded, as the trash specification asks of `Path=`. GLib leaves a few more
/// sub-delimiters as they are; both decode to the same bytes.
pub fn percent_encode_path(path: &Path) -> String {
    let bytes = path.as_os_str().as_bytes();
    let mut out = String::with_capacity(bytes.len());
    for &b in bytes {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(char::from(b));
        } else {
            const HEX: &[u8; 16] = b"0123456789ABCDEF";
            out.push('%');
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 0xF)]));
        }
    }
    out
}

/// Decodes `%XX` escapes to bytes; a malformed escape (`100%`, `%2`, `%zz`) is kept as it is.
pub fn percent_decode(text: &[u8]) -> Vec<u8> {
    let hex = |i: usize| text.get(i).and_then(|&b| char::from(b).to_digit(16));
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        match (text[i], hex(i + 1), hex(i + 2)) {
            (b'%', Some(high), Some(low)) => {
                out.push((high * 16 + low) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    out
}

/// `file://` and the [percent-encoded](percent_encode_path) path: `/tmp/a b` is
/// `file:///tmp/a%20b`.
pub fn file_uri(path: &Path) -> String {
    let mut uri = String::from("file://");
    uri.push_str(&percent_encode_path(path));
    uri
}

/// Why a URI names no local path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotLocal {
    /// Not a URI at all (no `scheme:`), such as a bare path or a word.
    NotAUri,
    /// Another scheme (`https`, `sftp`, `smb`, `trash`, ...), named here.
    OtherScheme(String),
    /// A `file://` URI on another host, named here.
    OtherHost(String),
    /// A `file:` URI whose path is not absolute.
    NotAbsolute,
    /// The path holds a NUL byte (`%00`), which no file name can.
    NulByte,
}

impl std::fmt::Display for NotLocal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotLocal::NotAUri => f.write_str("not a URI"),
            NotLocal::OtherScheme(scheme) => write!(f, "a {scheme}: address, not a local file"),
            NotLocal::OtherHost(host) => write!(f, "a file on another computer ({host})"),
            NotLocal::NotAbsolute => f.write_str("not an absolute path"),
            NotLocal::NulByte => f.write_str("a name with a NUL byte"),
        }
    }
}

impl std::error::Error for NotLocal {}

/// The local path a `file:` URI names, percent-decoded to bytes (names that are not UTF-8
/// come back exactly). Accepts `file:///path`, `file://localhost/path` and `file:/path`
/// (the scheme and `localhost` in any case); anything else says why not.
pub fn path_from_file_uri(uri: &[u8]) -> Result<PathBuf, NotLocal> {
    let Some(colon) = uri.iter().position(|&b| b == b':') else {
        return Err(NotLocal::NotAUri);
    };
    let (scheme, rest) = (&uri[..colon], &uri[colon + 1..]);
    let is_scheme = scheme.first().is_some_and(u8::is_ascii_alphabetic)
        && scheme
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || b"+-.".contains(&b));
    if !is_scheme {
        return Err(NotLocal::NotAUri);
    }
    if !scheme.eq_ignore_ascii_case(b"file") {
        return Err(NotLocal::OtherScheme(
            String::from_utf8_lossy(scheme).to_ascii_lowercase(),
        ));
    }
    let path = match rest.strip_prefix(b"//") {
        Some(authority_and_path) => {
            let slash = authority_and_path
                .iter()
                .position(|&b| b == b'/')
                .unwrap_or(authority_and_path.len());
            let (host, path) = authority_and_path.split_at(slash);
            if !host.is_empty() && !host.eq_ignore_ascii_case(b"localhost") {
                return Err(NotLocal::OtherHost(
                    String::from_utf8_lossy(&percent_decode(host)).into_owned(),
                ));
            }
            path
        }
        None => rest,
    };
    if !path.starts_with(b"/") {
        return Err(NotLocal::NotAbsolute);
    }
    let bytes = percent_decode(path);
    if bytes.contains(&0) {
        return Err(NotLocal::NulByte);
    }
    Ok(PathBuf::from(OsString::from_vec(bytes)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    #[test]
    fn any_bytes_round_trip() {
        let path = Path::new(OsStr::from_bytes(b"/tmp/a b%/caf\xc3\xa9/x\xff\n#?+"));
        let uri = file_uri(path);
        assert_eq!(uri, "file:///tmp/a%20b%25/caf%C3%A9/x%FF%0A%23%3F%2B");
        assert_eq!(path_from_file_uri(uri.as_bytes()).unwrap(), path);
        assert_eq!(percent_decode(b"100%"), b"100%");
        assert_eq!(percent_decode(b"%2"), b"%2");
        assert_eq!(percent_decode(b"%zz%41"), b"%zzA");
    }

    #[test]
    fn local_forms_are_accepted() {
        for uri in [
            &b"file:///srv/x"[..],
            b"file://localhost/srv/x",
            b"FILE://LocalHost/srv/x",
            b"file:/srv/x",
        ] {
            assert_eq!(
                path_from_file_uri(uri).unwrap(),
                Path::new("/srv/x"),
                "{uri:?}"
            );
        }
        // Characters GLib leaves unencoded, and raw UTF-8 some programs send.
        assert_eq!(
            path_from_file_uri("file:///a+b,c=d/café".as_bytes()).unwrap(),
            Path::new("/a+b,c=d/café")
        );
    }

    #[test]
    fn other_uris_say_why_they_are_refused() {
        let why = |uri: &str| path_from_file_uri(uri.as_bytes()).unwrap_err();
        assert_eq!(
            why("https://example.org/a"),
            NotLocal::OtherScheme("https".into())
        );
        assert_eq!(why("SFTP://host/dir"), NotLocal::OtherScheme("sftp".into()));
        assert_eq!(
            why("file://server/share/a"),
            NotLocal::OtherHost("server".into())
        );
        assert_eq!(why("file:relative/a"), NotLocal::NotAbsolute);
        assert_eq!(why("file://"), NotLocal::NotAbsolute);
        assert_eq!(why("file:///zero%00"), NotLocal::NulByte);
        assert_eq!(why("/just/a/path"), NotLocal::NotAUri);
        assert_eq!(why("C:\\x"), NotLocal::OtherScheme("c".into()));
        assert_eq!(why("2:00"), NotLocal::NotAUri);
        assert!(why("https://x").to_string().contains("not a local file"));
    }
}
