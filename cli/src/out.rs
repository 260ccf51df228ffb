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

use std::fmt;
use std::io::{self, Write};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// Stdout failed: nothing more is written to it.
static STOPPED: AtomicBool = AtomicBool::new(false);
/// Why, unless its reader went away.
static FAILURE: Mutex<Option<io::Error>> = Mutex::new(None);

/// Writes `args` (and a newline) to stdout, unless it failed before.
pub fn stdout(args: fmt::Arguments<'_>, newline: bool) {
    if STOPPED.load(Ordering::Relaxed) {
        return;
    }
    let mut out = io::stdout().lock();
    let written = out.write_fmt(args).and_then(|()| {
        if newline {
            out.write_all(b"\n")
        } else {
            Ok(())
        }
    });
    if let Err(e) = written {
        STOPPED.store(true, Ordering::Relaxed);
        if e.kind() != io::ErrorKind::BrokenPipe {
            let mut failure = FAILURE.lock().unwrap_or_else(|e| e.into_inner());
            failure.get_or_insert(e);
        }
    }
}

/// Writes `args` (and a newline) to stderr, ignoring errors.
pub fn stderr(args: fmt::Arguments<'_>, newline: bool) {
    let mut err = io::stderr().lock();
    let _ = err.write_fmt(args).and_then(|()| {
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
