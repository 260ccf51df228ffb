//! Names as `ls` shows them on a terminal (its default `shell-escape` quoting style since
//! coreutils 8.25): a name that a shell would take apart is put in single quotes, and bytes
//! that are not printable text (a line break, an escape sequence, bytes that are not UTF-8) are
//! written as `$'\n'`, `$'\377'`. What is printed is unambiguous, and pasting it into a shell
//! names the file: `\x1b` escaping was neither (a file named `a\x1bb` read as one named `a⎋b`).

/// Bytes that make a shell split, expand or redirect a word, wherever they stand.
const SPECIAL: &[u8] = b" !\"$&'()*;<=>?[\\^`|";

/// Bytes that are special in double quotes, where `'` is not.
const SPECIAL_IN_DOUBLE: &[u8] = b"\"$`\\!";

/// Appends `name` to `line` as `ls --quoting-style=shell-escape` shows it.
pub fn push_shell_quoted(line: &mut Vec<u8>, name: &[u8]) {
    let pieces = Pieces::of(name);
    let unprintable = pieces.clone().any(|p| matches!(p, Piece::Bytes(_)));
    let special = name.is_empty()
        || matches!(name.first(), Some(b'#' | b'~'))
        || name.iter().any(|b| SPECIAL.contains(b));
    if !special && !unprintable {
        line.extend_from_slice(name);
        return;
    }
    // A name with a `'` but nothing special between double quotes: "it's".
    if !unprintable && name.contains(&b'\'') && !name.iter().any(|b| SPECIAL_IN_DOUBLE.contains(b))
    {
        line.push(b'"');
        line.extend_from_slice(name);
        line.push(b'"');
        return;
    }
    line.push(b'\'');
    let mut quoted = true;
    for piece in pieces {
        match piece {
            Piece::Text(text) => {
                if !quoted {
                    line.push(b'\'');
                    quoted = true;
                }
                for &b in text {
                    match b {
                        b'\'' => line.extend_from_slice(b"'\\''"),
                        b => line.push(b),
                    }
                }
            }
            Piece::Bytes(bytes) => {
                if quoted {
                    line.push(b'\'');
                }
                line.extend_from_slice(b"$'");
                for &b in bytes {
                    push_escape(line, b);
                }
                line.push(b'\'');
                quoted = false;
            }
        }
    }
    if quoted {
        line.push(b'\'');
    }
}

/// `b` as an ANSI-C escape: a named one where there is one, else three octal digits.
fn push_escape(line: &mut Vec<u8>, b: u8) {
    let named = match b {
        0x07 => b'a',
        0x08 => b'b',
        b'\t' => b't',
        b'\n' => b'n',
        0x0b => b'v',
        0x0c => b'f',
        b'\r' => b'r',
        _ => {
            line.extend_from_slice(&[
                b'\\',
                b'0' + (b >> 6),
                b'0' + ((b >> 3) & 7),
                b'0' + (b & 7),
            ]);
            return;
        }
    };
    line.extend_from_slice(&[b'\\', named]);
}

/// A name cut into runs of printable text and runs of bytes that are not.
#[derive(Clone)]
struct Pieces<'a> {
    rest: &'a [u8],
}

enum Piece<'a> {
    Text(&'a [u8]),
    Bytes(&'a [u8]),
}

impl<'a> Pieces<'a> {
    fn of(name: &'a [u8]) -> Self {
        Self { rest: name }
    }
}

impl<'a> Iterator for Pieces<'a> {
    type Item = Piece<'a>;

    fn next(&mut self) -> Option<Piece<'a>> {
        if self.rest.is_empty() {
            return None;
        }
        let first_is_text = printable_len(self.rest) > 0;
        let mut at = 0;
        while at < self.rest.len() {
            let text = printable_len(&self.rest[at..]);
            if (text > 0) != first_is_text {
                break;
            }
            at += text.max(1);
        }
        let (piece, rest) = self.rest.split_at(at);
        self.rest = rest;
        Some(match first_is_text {
            true => Piece::Text(piece),
            false => Piece::Bytes(piece),
        })
    }
}

/// The length of the printable character `bytes` starts with, 0 if it does not start with
/// one: a control character (C0, DEL, C1) or a byte that is not part of valid UTF-8.
fn printable_len(bytes: &[u8]) -> usize {
    let len = match bytes[0] {
        0x20..=0x7e => return 1,
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => return 0,
    };
    let Some(char) = bytes
        .get(..len)
        .and_then(|c| std::str::from_utf8(c).ok())
        .and_then(|c| c.chars().next())
    else {
        return 0;
    };
    if ('\u{80}'..'\u{a0}').contains(&char) {
        return 0;
    }
    len
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quoted(name: &[u8]) -> String {
        let mut line = Vec::new();
        push_shell_quoted(&mut line, name);
        String::from_utf8(line).unwrap()
    }

    /// Each expected text is what GNU `ls --quoting-style=shell-escape` (coreutils 9.1)
    /// printed for that name.
    #[test]
    fn names_are_quoted_as_ls_quotes_them_on_a_terminal() {
        let cases: &[(&[u8], &str)] = &[
            (b"plain", "plain"),
            (b"sp ace", "'sp ace'"),
            (b"it's", "\"it's\""),
            (b"dollar$x", "'dollar$x'"),
            (b"both'$", "'both'\\''$'"),
            (b"a'b\"c", "'a'\\''b\"c'"),
            (b"nl\nx", "'nl'$'\\n''x'"),
            (b"two\n\tx", "'two'$'\\n\\t''x'"),
            (b"\ttab", "''$'\\t''tab'"),
            (b"q'\nx", "'q'\\'''$'\\n''x'"),
            (b"bad\xffname", "'bad'$'\\377''name'"),
            (b"\x7fdel", "''$'\\177''del'"),
            (b"c1\xc2\x9bx", "'c1'$'\\302\\233''x'"),
            (b"caf\\xc3\\xa9", "'caf\\xc3\\xa9'"),
            ("café".as_bytes(), "café"),
            ("nb\u{a0}sp".as_bytes(), "nb\u{a0}sp"),
            (b"#hash", "'#hash'"),
            (b"mid#hash", "mid#hash"),
            (b"~tilde", "'~tilde'"),
            (b"a~b", "a~b"),
            (b"brace{x}", "brace{x}"),
            (b"eq=x", "'eq=x'"),
            (b"q?", "'q?'"),
            (b"ex!", "'ex!'"),
            (b"a^b", "'a^b'"),
            (b"a]b", "a]b"),
            (b"a[b", "'a[b'"),
            (b"a|b", "'a|b'"),
            (b"a`b", "'a`b'"),
            (b"\"dq\"", "'\"dq\"'"),
            (b"-dash", "-dash"),
            (b"x:y,z@w%+", "x:y,z@w%+"),
            (b"''", "\"''\""),
        ];
        for &(name, want) in cases {
            assert_eq!(quoted(name), want, "{:?}", String::from_utf8_lossy(name));
        }
    }
}
