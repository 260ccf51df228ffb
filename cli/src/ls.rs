//! `ferry ls`: lists a folder with the core's lister and sort, as the window's listing
//! service does (folders first). Given anything else, it prints that item's line, named as
//! given, as `ls -l FILE` does.
//!
//! Human output is one line per entry, `ls -l` style: kind and permissions, size in bytes,
//! modification time (UTC, `YYYY-MM-DD HH:MM`), then the name, and for a symlink ` -> ` and
//! where it points. Into a pipe or a file, names and targets go as their bytes; on a terminal
//! they are quoted as `ls` quotes them there (`quote.rs`). A symlink to a file has that file's
//! size and time, as in the window (`ls -l` gives the link's own); other symlinks have their
//! own.
//!
//! `--json` prints one array of objects with `"name"`, `"kind"` (`"file"`, `"dir"`,
//! `"symlink"`, `"fifo"`, `"socket"`, `"block_device"`, `"char_device"`, `"unknown"`),
//! `"size"` (bytes), `"mtime"` (seconds since the epoch) and `"mtime_nsec"`, `"mode"`
//! (permission bits as a number, e.g. 420 for 0644), `"mode_string"` (`"-rw-r--r--"`),
//! `"nlink"`, `"ino"`, `"hidden"` and `"stat_failed"`; metadata fields are `null` when the stat
//! failed. Symlinks add `"target_kind"` (`null` when broken) and `"followed"`: true when
//! `"size"`, `"mtime"` and `"mtime_nsec"` are the target's (a link to a file, as listed
//! above), false when they are the link's own, and `"target"`, where the link points (`null`
//! if it cannot be read). A name or target that is not UTF-8 adds `"name_bytes"` or
//! `"target_bytes"`, its exact bytes as an array of numbers, since the text is then lossy.

use std::borrow::Cow;
use std::io::{self, Write};
use std::os::fd::AsFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use ferry_core::decimal::push_uint_right;
use ferry_core::entry::{EntryRef, Kind, Listing};
use ferry_core::lister;
use ferry_core::shown::Shown;
use ferry_core::sort::{self, Direction, SortKey, SortSpec};
use serde::Serialize;

use super::{EXIT_OK, EXIT_PARTIAL, EXIT_REFUSED};

/// Arguments of `ferry ls`.
#[derive(Debug, Args)]
pub struct LsArgs {
    /// Also show hidden entries (names starting with a dot).
    #[arg(short = 'a', long = "all")]
    pub all: bool,
    /// What to sort by (folders always come first, as in the window).
    #[arg(long, value_enum, default_value_t = SortBy::Name)]
    pub sort: SortBy,
    /// Reverse the order.
    #[arg(long)]
    pub reverse: bool,
    /// Print a JSON array of entries instead of lines.
    #[arg(long)]
    pub json: bool,
    /// Folder to list (or a file, whose line is printed).
    pub dir: PathBuf,
}

/// Sort keys of `ferry ls --sort`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SortBy {
    /// Natural name order.
    Name,
    /// Size in bytes.
    Size,
    /// Modification time.
    Mtime,
    /// Type as the window shows it (folders; files by extension; programs; links by
    /// extension; broken links; special files), then name.
    Type,
}

impl LsArgs {
    fn sort_spec(&self) -> SortSpec {
        let key = match self.sort {
            SortBy::Name => SortKey::Name,
            SortBy::Size => SortKey::Size,
            SortBy::Mtime => SortKey::Modified,
            SortBy::Type => SortKey::Type,
        };
        let direction = if self.reverse {
            Direction::Descending
        } else {
            Direction::Ascending
        };
        SortSpec {
            key,
            direction,
            ..SortSpec::default()
        }
    }
}

/// Runs `ferry ls`; returns the exit status.
///
/// The listing is the core's ([`lister::list_all`], the same stat split over two threads
/// the window's listing service uses, then [`sort::sorted_order`]), without the service: a
/// snapshot needs no watch, and tearing an inotify instance down at exit waits for the
/// kernel (`fsnotify_destroy_group`), 3 to 20 ms a run measured here, more than listing
/// 5,000 entries takes.
pub fn run(args: &LsArgs) -> i32 {
    let dir = match std::path::absolute(&args.dir) {
        Ok(dir) => lister::list_path(&dir),
        Err(e) => {
            eprintln!("ferry ls: cannot open {}: {e}", Shown(&args.dir));
            return EXIT_REFUSED;
        }
    };
    let (listing, named) = match lister::list_all(&dir) {
        Ok(listing) => (listing, false),
        // `ls -l FILE`: the line of the item itself, named as given (a link is not followed;
        // one that leads nowhere is listed too, as `ls -l` lists it).
        Err(error)
            if matches!(error, ferry_core::Error::NotADirectory { .. }) || error.is_not_found() =>
        {
            match the_item(&args.dir) {
                Some(item) => (item, true),
                None => {
                    eprintln!("ferry ls: {error}");
                    return EXIT_REFUSED;
                }
            }
        }
        Err(error) => {
            eprintln!("ferry ls: {error}");
            return EXIT_REFUSED;
        }
    };
    let order = sort::sorted_order(&listing, args.sort_spec());
    let shown = |e: &EntryRef<'_>| named || args.all || !e.is_hidden();
    let entries = order
        .iter()
        .map(|&i| listing.entry(i as usize))
        .filter(shown);
    // Where a link points is read when it is printed: one `readlink` a link, none for the rest.
    let base = (!named).then(|| listing.dir());
    let target_of = |e: &EntryRef<'_>| {
        let path = base.map_or_else(|| PathBuf::from(e.name()), |dir| dir.join(e.name()));
        std::fs::read_link(path).ok()
    };
    let mut out = io::BufWriter::new(io::stdout().lock());
    let written = if args.json {
        write_json(&mut out, entries, target_of)
    } else {
        write_lines(&mut out, entries, target_of)
    };
    match written.and_then(|()| out.flush()) {
        Ok(()) => unreadable(&listing, &order, shown),
        // `ferry ls | head`: the reader has all it wanted.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => EXIT_OK,
        Err(e) => {
            eprintln!("ferry ls: cannot write the listing: {e}");
            EXIT_PARTIAL
        }
    }
}

/// Names every entry shown whose details could not be read (`?` in the listing) with the
/// reason, as `ls -l` does, and returns the exit status: partial if there was one.
fn unreadable(listing: &Listing, order: &[u32], shown: impl Fn(&EntryRef<'_>) -> bool) -> i32 {
    let mut code = EXIT_OK;
    for entry in order.iter().map(|&i| listing.entry(i as usize)) {
        if let Some(error) = entry.stat_error().filter(|_| shown(&entry)) {
            let path = listing.dir().join(entry.name());
            eprintln!("ferry ls: {}", ferry_core::Error::io("access", path, error));
            code = EXIT_PARTIAL;
        }
    }
    code
}

/// A listing of the one item at `path`, under the name given; `None` if it cannot be stat'ed
/// (`file/`: a final slash asks for a folder).
fn the_item(path: &Path) -> Option<Listing> {
    let here = std::fs::File::open(".").ok()?;
    let meta = lister::stat_at(here.as_fd(), path.as_os_str());
    if meta.stat_failed() {
        return None;
    }
    let mut item = Listing::new(path.parent().unwrap_or(Path::new(".")).to_owned());
    item.push(path.as_os_str(), meta);
    Some(item)
}

/// One line per entry, built in one buffer: formatting each through `fmt` (three `String`s a
/// line) took 190 M instructions for 50,000 entries, more than listing and sorting them.
fn write_lines<'a>(
    out: &mut impl Write,
    entries: impl Iterator<Item = EntryRef<'a>>,
    target_of: impl Fn(&EntryRef<'a>) -> Option<PathBuf>,
) -> io::Result<()> {
    let mut line = Vec::with_capacity(128);
    // Names go as their bytes, but on a terminal quoted, without the escape sequences they
    // may hold.
    let push_name = match crate::out::stdout_is_terminal() {
        true => crate::quote::push_shell_quoted,
        false => |line: &mut Vec<u8>, name: &[u8]| line.extend_from_slice(name),
    };
    // Files made together share their minute: its text is made once for them all.
    let mut minute: Option<(i64, String)> = None;
    for entry in entries {
        line.clear();
        if entry.stat_failed() {
            line.push(kind_char(entry.kind()) as u8);
            line.extend_from_slice(STAT_FAILED);
        } else {
            line.extend_from_slice(&mode_bytes(entry.kind(), entry.mode()));
            line.extend_from_slice(b"  ");
            push_uint_right(&mut line, entry.size(), 12);
            line.extend_from_slice(b"  ");
            let (sec, _) = entry.mtime();
            let at = sec.div_euclid(60);
            let text = match &minute {
                Some((m, text)) if *m == at => text,
                _ => &minute.insert((at, utc_minute(sec))).1,
            };
            line.extend_from_slice(text.as_bytes());
            line.extend_from_slice(b"  ");
        }
        push_name(&mut line, entry.name_bytes());
        if entry.kind() == Kind::Symlink {
            line.extend_from_slice(b" -> ");
            match target_of(&entry) {
                Some(target) => push_name(&mut line, target.as_os_str().as_bytes()),
                None => line.push(b'?'),
            }
        }
        line.push(b'\n');
        out.write_all(&line)?;
    }
    Ok(())
}

/// The line of an entry whose stat failed, after its kind: `?` for every column, laid out as
/// the columns of the others.
const STAT_FAILED: &[u8] = b"?????????             ?  ?                 ";

/// One entry of `ferry ls --json`.
#[derive(Serialize)]
struct JsonEntry<'a> {
    name: Cow<'a, str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    name_bytes: Option<&'a [u8]>,
    kind: &'static str,
    /// Present for symlinks only: what the link points to, `null` if broken.
    #[serde(skip_serializing_if = "Option::is_none")]
    target_kind: Option<Option<&'static str>>,
    /// Present for symlinks only: whether the size and times are the target's.
    #[serde(skip_serializing_if = "Option::is_none")]
    followed: Option<bool>,
    /// Present for symlinks only: where the link points, `null` if it cannot be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    target: Option<Option<Cow<'static, str>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    target_bytes: Option<Vec<u8>>,
    size: Option<u64>,
    mtime: Option<i64>,
    mtime_nsec: Option<u32>,
    mode: Option<u16>,
    mode_string: Option<String>,
    nlink: Option<u32>,
    ino: Option<u64>,
    hidden: bool,
    stat_failed: bool,
}

fn write_json<'a>(
    out: &mut impl Write,
    entries: impl Iterator<Item = EntryRef<'a>>,
    target_of: impl Fn(&EntryRef<'a>) -> Option<PathBuf>,
) -> io::Result<()> {
    // Written as the entries come: a whole array built first cost 270 bytes an entry more.
    let mut json = serde_json::Serializer::new(&mut *out);
    let entries = entries.map(|entry| {
        let target = (entry.kind() == Kind::Symlink).then(|| target_of(&entry));
        json_entry(entry, target)
    });
    serde::Serializer::collect_seq(&mut json, entries)?;
    out.write_all(b"\n")
}

/// `target`: for a symlink, where it points if that could be read.
fn json_entry(entry: EntryRef<'_>, target: Option<Option<PathBuf>>) -> JsonEntry<'_> {
    let bytes = entry.name_bytes();
    let name = String::from_utf8_lossy(bytes);
    let stat = (!entry.stat_failed()).then_some(entry);
    let target_bytes = target
        .as_ref()
        .and_then(Option::as_ref)
        .map(|t| t.as_os_str().as_bytes().to_vec())
        .filter(|t| std::str::from_utf8(t).is_err());
    let target = target.map(|t| t.map(|t| Cow::Owned(t.to_string_lossy().into_owned())));
    JsonEntry {
        target,
        target_bytes,
        name_bytes: matches!(name, Cow::Owned(_)).then_some(bytes),
        name,
        kind: kind_name(entry.kind()),
        target_kind: (entry.kind() == Kind::Symlink).then(|| {
            Some(entry.target_kind())
                .filter(|&k| k != Kind::Unknown)
                .map(kind_name)
        }),
        followed: (entry.kind() == Kind::Symlink).then(|| entry.target_kind() == Kind::File),
        size: stat.map(|e| e.size()),
        mtime: stat.map(|e| e.mtime().0),
        mtime_nsec: stat.map(|e| e.mtime().1),
        mode: stat.map(|e| e.mode() & 0o7777),
        mode_string: stat.map(|e| mode_string(e.kind(), e.mode())),
        nlink: stat.map(|e| e.nlink()),
        ino: stat.map(|e| e.ino()),
        hidden: entry.is_hidden(),
        stat_failed: entry.stat_failed(),
    }
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Unknown => "unknown",
        Kind::File => "file",
        Kind::Dir => "dir",
        Kind::Symlink => "symlink",
        Kind::Fifo => "fifo",
        Kind::Socket => "socket",
        Kind::BlockDevice => "block_device",
        Kind::CharDevice => "char_device",
    }
}

fn kind_char(kind: Kind) -> char {
    match kind {
        Kind::Unknown => '?',
        Kind::File => '-',
        Kind::Dir => 'd',
        Kind::Symlink => 'l',
        Kind::Fifo => 'p',
        Kind::Socket => 's',
        Kind::BlockDevice => 'b',
        Kind::CharDevice => 'c',
    }
}

/// `ls -l`'s mode column: the kind, then rwx for user, group and others, with the set-id and
/// sticky bits shown as `s`/`S` and `t`/`T`.
fn mode_bytes(kind: Kind, mode: u16) -> [u8; 10] {
    let mut s = [b'-'; 10];
    s[0] = kind_char(kind) as u8;
    for (k, (shift, special, special_char)) in
        [(6, 0o4000, b's'), (3, 0o2000, b's'), (0, 0o1000, b't')]
            .into_iter()
            .enumerate()
    {
        let bits = (mode >> shift) & 0o7;
        let at = 1 + 3 * k;
        if bits & 0o4 != 0 {
            s[at] = b'r';
        }
        if bits & 0o2 != 0 {
            s[at + 1] = b'w';
        }
        s[at + 2] = match (bits & 0o1 != 0, mode & special != 0) {
            (true, true) => special_char,
            (false, true) => special_char.to_ascii_uppercase(),
            (true, false) => b'x',
            (false, false) => b'-',
        };
    }
    s
}

/// [`mode_bytes`] as text.
fn mode_string(kind: Kind, mode: u16) -> String {
    String::from_utf8_lossy(&mode_bytes(kind, mode)).into_owned()
}

/// `YYYY-MM-DD HH:MM` in UTC for seconds since the epoch (days to civil date: Howard
/// Hinnant's algorithm, valid for any `i64` day count in range).
fn utc_minute(sec: i64) -> String {
    let days = sec.div_euclid(86_400);
    let minute_of_day = sec.rem_euclid(86_400) / 60;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}",
        minute_of_day / 60,
        minute_of_day % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mode_strings_match_ls() {
        assert_eq!(mode_string(Kind::File, 0o100_644), "-rw-r--r--");
        assert_eq!(mode_string(Kind::Dir, 0o041_777), "drwxrwxrwt");
        assert_eq!(mode_string(Kind::File, 0o106_644), "-rwSr-Sr--");
        assert_eq!(mode_string(Kind::File, 0o104_755), "-rwsr-xr-x");
        assert_eq!(mode_string(Kind::Symlink, 0o120_777), "lrwxrwxrwx");
        assert_eq!(mode_string(Kind::Fifo, 0o010_600), "prw-------");
    }

    #[test]
    fn lines_are_laid_out_as_ls_l_columns() {
        let mut out = Vec::new();
        push_uint_right(&mut out, 0, 12);
        push_uint_right(&mut out, 1_234_567, 12);
        push_uint_right(&mut out, u64::MAX, 12);
        let want = format!("{:>12}{:>12}{:>12}", 0, 1_234_567, u64::MAX);
        assert_eq!(String::from_utf8(out).unwrap(), want);
        let failed = format!("?????????  {:>12}  {:16}  ", "?", "?");
        assert_eq!(failed.as_bytes(), STAT_FAILED);
    }

    #[test]
    fn utc_dates() {
        assert_eq!(utc_minute(0), "1970-01-01 00:00");
        assert_eq!(utc_minute(951_782_400 + 86_399), "2000-02-29 23:59");
        assert_eq!(utc_minute(1_700_000_000), "2023-11-14 22:13");
        assert_eq!(utc_minute(-1), "1969-12-31 23:59");
    }
}
