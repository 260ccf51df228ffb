//! Paths in messages, shown so that every name can be told apart and read back: a control
//! character (a newline, an escape sequence that would clear the terminal) as `\xNN` (a C1
//! one as `\u{NN}`), a byte that is not UTF-8 as `\xNN`, and a backslash as `\\`, where
//! `Path::display` would put U+FFFD for any of them and two different names could read the
//! same (a name holding the four characters `\x0a` and one holding a newline, without the
//! last rule). An empty path is `''`.

use std::fmt;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// `path` for a message (see the module documentation).
#[derive(Debug, Clone, Copy)]
pub struct Shown<'a>(pub &'a Path);

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // As coreutils names it: `cp: cannot stat '': No such file or directory`.
        if self.0.as_os_str().is_empty() {
            return f.write_str("''");
        }
        for chunk in self.0.as_os_str().as_bytes().utf8_chunks() {
            for c in chunk.valid().chars() {
                match u32::from(c) {
                    n @ (0..0x20 | 0x7f) => write!(f, "\\x{n:02x}")?,
                    n @ 0x80..0xa0 => write!(f, "\\u{{{n:x}}}")?,
                    0x5c => f.write_str("\\\\")?,
                    _ => fmt::Write::write_char(f, c)?,
                }
            }
            for b in chunk.invalid() {
                write!(f, "\\x{b:02x}")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    #[test]
    fn plain_names_are_as_they_are_and_odd_ones_escaped() {
        let shown = |bytes: &[u8]| Shown(Path::new(OsStr::from_bytes(bytes))).to_string();
        assert_eq!(shown("/home/é a.txt".as_bytes()), "/home/é a.txt");
        assert_eq!(shown(b"/t/bad\nname"), "/t/bad\\x0aname");
        assert_eq!(shown(b"/t/\x1b[2J"), "/t/\\x1b[2J");
        assert_eq!(shown(b"/t/\xff\xfe"), "/t/\\xff\\xfe");
        assert_eq!(shown("/t/\u{9b}x".as_bytes()), "/t/\\u{9b}x");
        assert_eq!(shown(br"/t/x\x0ay"), r"/t/x\\x0ay", "not the newline's");
        assert_ne!(shown(br"/t/x\x0ay"), shown(b"/t/x\ny"));
        assert_eq!(
            shown(b""),
            "''",
            "an empty path, an unset variable say, is seen"
        );
    }
}
