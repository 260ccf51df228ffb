//! Printing for the command line without ever panicking (RELIABILITY rule 22): the standard
//! `println!` panics when stdout is a pipe whose reader went away (`ferry restore | head`:
//! EPIPE), and `eprintln!` likewise for stderr. The command line's `println!`, `eprintln!`
//! and `eprint!` (defined in `lib.rs`, and by `ferry bench` in the app) come here instead.
//!
//! Once its reader is gone, stdout is written no more and the command goes on to its end,
//! as if the rest had been read (a job still finishes and is recorded; a listing has nothing
//! more to do), then exits with its usual status, quietly, as `ls | head` does. Any other
//! stdout error (a full disk under `> file`) stops output too and is reported once at exit
//! ([`failure`]), since output was lost. Errors writing to stderr are ignored: there is
//! nowhere left to say anything.
//!
//! On a terminal, control characters in what is printed (a file may be named with an escape
//! sequence that clears the screen or retitles the window) are shown escaped, `\x1b` (a
//! listing's names are quoted as `ls` quotes them: `quote.rs`); into a pipe or a file, what
//! goes to stdout goes as its bytes, for the programs reading it. Messages on stderr are escaped everywhere, since people read them.

use std::fmt;
use std::io::{self, IsTerminal, Write};
use std::sync::Mutex;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

/// Stdout failed: nothing more is written to it.
static STOPPED: AtomicBool = AtomicBool::new(false);
/// Why, unless its reader went away.
static FAILURE: Mutex<Option<io::Error>> = Mutex::new(None);

/// Writes `args` (and a newline) to stdout, unless it failed before.
pub fn stdout(args: fmt::Arguments<'_>, newline: bool) {
    write_stdout(|out| {
        shown(args, stdout_is_terminal(), out)?;
        if newline {
            out.write_all(b"\n")
        } else {
            Ok(())
        }
    });
}

/// Writes `line` to stdout as its bytes, unless it failed before: a listing's line whose
/// names are not UTF-8, into a pipe (on a terminal, the caller shows them escaped).
pub fn stdout_bytes(line: &[u8]) {
    write_stdout(|out| out.write_all(line));
}

fn write_stdout(write: impl FnOnce(&mut io::StdoutLock<'static>) -> io::Result<()>) {
    if STOPPED.load(Ordering::Relaxed) {
        return;
    }
    let mut out = io::stdout().lock();
    if let Err(e) = write(&mut out) {
        STOPPED.store(true, Ordering::Relaxed);
        if e.kind() != io::ErrorKind::BrokenPipe {
            let mut failure = FAILURE.lock().unwrap_or_else(|e| e.into_inner());
            failure.get_or_insert(e);
        }
    }
}

/// Writes `args` (and a newline) to stderr, ignoring errors. Its control characters are
/// escaped wherever it goes: messages are read by people, in a terminal or later from a log
/// (`2>&1 | less`), as GNU tools quote the names in theirs.
pub fn stderr(args: fmt::Arguments<'_>, newline: bool) {
    let mut err = io::stderr().lock();
    let _ = shown(args, true, &mut err).and_then(|()| {
        if newline {
            err.write_all(b"\n")
        } else {
            Ok(())
        }
    });
}

/// The error that stopped output to stdout, if it was not a reader going away.
pub fn failure() -> Option<io::Error> {
    FAILURE.lock().unwrap_or_else(|e| e.into_inner()).take()
}

/// Whether stdout is a terminal (asked once).
pub fn stdout_is_terminal() -> bool {
    static TERMINAL: OnceLock<bool> = OnceLock::new();
    *TERMINAL.get_or_init(|| io::stdout().is_terminal())
}

/// Writes `args`, its control characters escaped when `terminal` (line breaks and tabs of
/// the message itself kept).
fn shown(args: fmt::Arguments<'_>, terminal: bool, out: &mut impl Write) -> io::Result<()> {
    if !terminal {
        return out.write_fmt(args);
    }
    let text = fmt::format(args);
    let mut escaped = Vec::with_capacity(text.len());
    push_escaped(&mut escaped, text.as_bytes(), b"\n\t");
    out.write_all(&escaped)
}

/// `text` with every control character escaped, as [`stderr`] shows them: for what is drawn
/// on the terminal past these functions (the progress line).
pub fn escaped(text: &str) -> String {
    let mut escaped = Vec::with_capacity(text.len());
    push_escaped(&mut escaped, text.as_bytes(), b"");
    String::from_utf8_lossy(&escaped).into_owned()
}

/// Appends `bytes` to `line`, each control character (C0, DEL, and C1 as UTF-8, which some
/// terminals obey too) but those in `keep` written as `\xNN` (a C1 as `\u{9b}`).
fn push_escaped(line: &mut Vec<u8>, bytes: &[u8], keep: &[u8]) {
    let mut rest = bytes;
    while let Some((&b, tail)) = rest.split_first() {
        if (b < 0x20 || b == 0x7f) && !keep.contains(&b) {
            line.extend_from_slice(format!("\\x{b:02x}").as_bytes());
        } else if b == 0xc2 && tail.first().is_some_and(|c| (0x80..0xa0).contains(c)) {
            line.extend_from_slice(format!("\\u{{{:x}}}", tail[0]).as_bytes());
            rest = &tail[1..];
            continue;
        } else {
            line.push(b);
        }
        rest = tail;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped_for_a_terminal_only() {
        let name = "a\x1b]0;owned\x07b\u{9b}2Jc\n";
        let mut out = Vec::new();
        shown(format_args!("{name}"), true, &mut out).unwrap();
        assert_eq!(out, b"a\\x1b]0;owned\\x07b\\u{9b}2Jc\n");
        out.clear();
        shown(format_args!("{name}"), false, &mut out).unwrap();
        assert_eq!(out, name.as_bytes());
        let mut line = Vec::new();
        push_escaped(&mut line, b"x\ny\xffz\xc2", b"");
        assert_eq!(line, b"x\\x0ay\xffz\xc2", "invalid UTF-8 kept as its bytes");
    }
}
