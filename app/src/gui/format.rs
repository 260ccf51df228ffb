//! Strings and categories derived from an entry at view time, for the visible rows only.

use std::borrow::Cow;
use std::ffi::OsStr;
use std::path::Path;

use chrono::{DateTime, Datelike, Local, TimeZone};
use ferry_core::entry::{EntryRef, Kind};

/// A coarse family of files, used for the icon colour and the type column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Category {
    /// A folder (or a link to one).
    Folder,
    /// Pictures.
    Image,
    /// Sound.
    Audio,
    /// Moving pictures.
    Video,
    /// Archives, packages and disk images.
    Archive,
    /// Documents, spreadsheets, presentations, books.
    Document,
    /// Source code and structured text.
    Code,
    /// Plain text.
    Text,
    /// A file with an execute bit.
    Program,
    /// A link whose target is missing or not a folder.
    Link,
    /// Pipes, sockets, devices.
    Special,
    /// Anything else.
    Other,
}

/// The family of `entry`, from its kind, mode and extension.
pub fn category(entry: EntryRef<'_>) -> Category {
    if entry.is_dir_like() {
        return Category::Folder;
    }
    match entry.kind() {
        Kind::Symlink => return Category::Link,
        Kind::Fifo | Kind::Socket | Kind::BlockDevice | Kind::CharDevice => {
            return Category::Special;
        }
        Kind::File | Kind::Unknown | Kind::Dir => {}
    }
    match extension(entry.name_bytes()) {
        Some(ext) => by_extension(&ext),
        None if entry.kind() == Kind::File && entry.mode() & 0o111 != 0 => Category::Program,
        None => Category::Other,
    }
}

/// The family an item's icon is drawn in: a link to a file in that of what it leads to (by
/// its own name, as its type is named), so that a link to an MP3 is drawn as one.
pub fn icon_category(entry: EntryRef<'_>) -> Category {
    match (entry.kind(), entry.target_kind()) {
        (Kind::Symlink, Kind::File) => {
            extension(entry.name_bytes()).map_or(Category::Other, |ext| by_extension(&ext))
        }
        _ => category(entry),
    }
}

fn by_extension(ext: &str) -> Category {
    match ext {
        "png" | "jpg" | "jpeg" | "gif" | "webp" | "svg" | "bmp" | "tif" | "tiff" | "ico"
        | "heic" | "avif" | "xcf" | "psd" | "raw" | "cr2" | "nef" => Category::Image,
        "mp3" | "flac" | "ogg" | "oga" | "opus" | "wav" | "m4a" | "aac" | "wma" | "mid" => {
            Category::Audio
        }
        "mp4" | "mkv" | "webm" | "avi" | "mov" | "wmv" | "m4v" | "mpg" | "mpeg" | "ogv" => {
            Category::Video
        }
        "zip" | "tar" | "gz" | "tgz" | "xz" | "txz" | "bz2" | "zst" | "7z" | "rar" | "lz"
        | "lzma" | "deb" | "rpm" | "iso" | "img" | "jar" | "apk" | "cab" => Category::Archive,
        "pdf" | "doc" | "docx" | "odt" | "rtf" | "epub" | "xls" | "xlsx" | "ods" | "ppt"
        | "pptx" | "odp" | "djvu" => Category::Document,
        "rs" | "c" | "h" | "cc" | "cpp" | "hpp" | "py" | "js" | "ts" | "go" | "java" | "kt"
        | "rb" | "pl" | "php" | "lua" | "sh" | "bash" | "zsh" | "fish" | "toml" | "json"
        | "yaml" | "yml" | "xml" | "html" | "htm" | "css" | "scss" | "sql" | "swift" | "cs"
        | "hs" | "ml" | "el" | "vim" | "mk" | "cmake" | "ini" | "conf" | "desktop" => {
            Category::Code
        }
        "txt" | "md" | "rst" | "log" | "csv" | "tsv" | "org" | "tex" | "nfo" => Category::Text,
        "so" | "bin" | "run" | "appimage" | "exe" | "o" | "a" => Category::Program,
        _ => Category::Other,
    }
}

/// The lower-case extension of a file name, as the core sorts by it
/// ([`ferry_core::sort::extension`]: "GPL-2.0" or "notes.2024" have none).
pub fn extension(name: &[u8]) -> Option<String> {
    let ext = ferry_core::sort::extension(name);
    (!ext.is_empty()).then(|| String::from_utf8_lossy(ext).to_ascii_lowercase())
}

/// The type column: "Folder", "PNG image", "Plain text", "Link to MP3 audio", ...
pub fn type_label(entry: EntryRef<'_>) -> Cow<'static, str> {
    let category = category(entry);
    match (category, entry.kind()) {
        (Category::Folder, Kind::Symlink) => "Link to folder".into(),
        (Category::Folder, _) => "Folder".into(),
        (Category::Link, _) if entry.target_kind() == Kind::Unknown => "Broken link".into(),
        // Named as what it leads to (Nautilus: "Link to PDF document"); by its own name,
        // which the listing has, as links nearly always keep their target's extension.
        (Category::Link, _) => match extension(entry.name_bytes()) {
            Some(ext) => format!("Link to {}", by_name(&ext, by_extension(&ext))).into(),
            None => "Link to file".into(),
        },
        (_, Kind::Fifo) => "Pipe".into(),
        (_, Kind::Socket) => "Socket".into(),
        (_, Kind::BlockDevice) => "Block device".into(),
        (_, Kind::CharDevice) => "Character device".into(),
        (_, Kind::Unknown) if entry.stat_failed() => "Unknown".into(),
        _ => match extension(entry.name_bytes()) {
            Some(ext) => by_name(&ext, category).into(),
            None if category == Category::Program => "Program".into(),
            None => "File".into(),
        },
    }
}

/// A file's type by its extension `ext` and `category`: "PNG image", "MP3 audio".
fn by_name(ext: &str, category: Category) -> String {
    let noun = match category {
        Category::Image => "image",
        Category::Audio => "audio",
        Category::Video => "video",
        Category::Archive => "archive",
        Category::Document => "document",
        Category::Code => "source",
        Category::Text => "text",
        Category::Program => "binary",
        _ => "file",
    };
    format!("{} {noun}", ext.to_ascii_uppercase())
}

/// A byte count the way people read it: "512 bytes", "1.2 kB", "34.5 MB" (SI units, like
/// GNOME and `ls -h --si`).
pub fn size(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["kB", "MB", "GB", "TB", "PB", "EB"];
    if bytes == 1 {
        return "1 byte".to_owned();
    }
    if bytes < 1000 {
        return format!("{bytes} bytes");
    }
    // Precision loss above 2^53 bytes is far below the one decimal shown.
    #[allow(clippy::cast_precision_loss)]
    let mut value = bytes as f64 / 1000.0;
    let mut unit = 0;
    while value >= 999.95 && unit + 1 < UNITS.len() {
        value /= 1000.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// A count with thousands separators: 200000 -> "200,000".
pub fn count(n: usize) -> String {
    ferry_core::decimal::grouped(n as u64)
}

/// "3 items", "1 folder": a count with its noun, pluralised.
pub fn counted(n: usize, singular: &str, plural: &str) -> String {
    format!("{} {}", count(n), if n == 1 { singular } else { plural })
}

/// A modification time relative to `now`: "Today 14:03", "Yesterday 09:12", "12 Mar 14:03"
/// within the year, "12 Mar 2023" before.
pub fn modified<Tz: TimeZone>(secs: i64, now: &DateTime<Tz>) -> String
where
    Tz::Offset: std::fmt::Display,
{
    let Some(time) = now.timezone().timestamp_opt(secs, 0).single() else {
        return String::new();
    };
    let days = now
        .date_naive()
        .signed_duration_since(time.date_naive())
        .num_days();
    match days {
        0 => time.format("Today %H:%M").to_string(),
        1 => time.format("Yesterday %H:%M").to_string(),
        _ if time.year() == now.year() && days > 0 => time.format("%-d %b %H:%M").to_string(),
        _ => time.format("%-d %b %Y").to_string(),
    }
}

/// "1 folder and 4 files" (`joiner` " and "), "3 files", "2 folders": no part that is
/// none.
pub fn folders_and_files(folders: usize, files: usize, joiner: &str) -> String {
    match (folders, files) {
        (0, files) => counted(files, "file", "files"),
        (folders, 0) => counted(folders, "folder", "folders"),
        (folders, files) => format!(
            "{}{joiner}{}",
            counted(folders, "folder", "folders"),
            counted(files, "file", "files")
        ),
    }
}

/// The last component of `path` for people to read ("/" for the root), as [`shown_name`].
pub fn display_name(path: &Path) -> Cow<'_, str> {
    shown_name(path.file_name().unwrap_or(path.as_os_str()))
}

/// What a name shows for its character `c`, when not `c` itself: a newline as `↵`, a tab as
/// `⇥`, another control character as `�`, so that every name is one line (few fonts draw the
/// Control Pictures block, which would say more). The controls of text direction are `�`
/// too: drawn as what they do, `photo\u{202E}gpj.sh` read as "photohs.jpg".
pub fn symbol_for(c: char) -> Option<char> {
    match c {
        '\n' => Some('↵'),
        '\t' => Some('⇥'),
        c if c.is_control() || is_direction_control(c) => Some(char::REPLACEMENT_CHARACTER),
        _ => None,
    }
}

/// The invisible marks, embeddings, overrides and isolates of Unicode's bidirectional
/// algorithm.
fn is_direction_control(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Every character [`shown_name`] puts in place of what a name cannot show on one line.
pub const STAND_INS: [char; 3] = [char::REPLACEMENT_CHARACTER, '↵', '⇥'];

/// A name for people to read, on one line: bytes that are not UTF-8 as `�`, control
/// characters as [`symbol_for`] shows them.
pub fn shown_name(name: &OsStr) -> Cow<'_, str> {
    let text = name.to_string_lossy();
    if !text.chars().any(|c| symbol_for(c).is_some()) {
        return text;
    }
    Cow::Owned(text.chars().map(|c| symbol_for(c).unwrap_or(c)).collect())
}

/// Shortens `name` in the middle ("holiday-ph…2019.jpg") to `max_chars` characters, so that
/// its end, and the extension with it, stays visible.
pub fn ellipsize_middle(name: Cow<'_, str>, max_chars: usize) -> Cow<'_, str> {
    let count = name.chars().count();
    if count <= max_chars {
        return name;
    }
    let keep = max_chars.saturating_sub(1);
    let extension = extension_chars(&name);
    let tail = (keep / 3).max(extension + 4).min(keep.saturating_sub(1));
    let head = keep - tail;
    let start: String = name.chars().take(head).collect();
    let end: String = name.chars().skip(count - tail).collect();
    Cow::Owned(format!("{start}…{end}"))
}

/// How many characters of `name`'s end a shortened name keeps for its extension (the dot
/// included, at most 8; none for a dot file's leading dot).
pub fn extension_chars(name: &str) -> usize {
    name.rfind('.')
        .filter(|&dot| dot > 0)
        .map_or(0, |dot| name[dot..].chars().count())
        .min(8)
}

/// The current local time, read once per frame for [`modified`].
pub fn now() -> DateTime<Local> {
    Local::now()
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Utc;
    use ferry_core::entry::{Listing, Meta};
    use std::ffi::OsStr;
    use std::path::{Path, PathBuf};

    #[test]
    fn sizes_read_like_people_write_them() {
        assert_eq!(size(0), "0 bytes");
        assert_eq!(size(1), "1 byte");
        assert_eq!(size(999), "999 bytes");
        assert_eq!(size(1000), "1.0 kB");
        assert_eq!(size(1234), "1.2 kB");
        assert_eq!(size(999_949), "999.9 kB");
        assert_eq!(size(999_999), "1.0 MB");
        assert_eq!(size(34_500_000), "34.5 MB");
        assert_eq!(size(u64::MAX), "18.4 EB");
    }

    #[test]
    fn counts_have_separators() {
        assert_eq!(count(0), "0");
        assert_eq!(count(999), "999");
        assert_eq!(count(1000), "1,000");
        assert_eq!(count(200_000), "200,000");
        assert_eq!(count(1_234_567), "1,234,567");
        assert_eq!(counted(1, "item", "items"), "1 item");
        assert_eq!(counted(2_000, "item", "items"), "2,000 items");
    }

    #[test]
    fn dates_are_relative_to_now() {
        let now = Utc.with_ymd_and_hms(2024, 6, 15, 18, 30, 0).unwrap();
        let at = |y, mo, d, h, mi| {
            Utc.with_ymd_and_hms(y, mo, d, h, mi, 0)
                .unwrap()
                .timestamp()
        };
        assert_eq!(modified(at(2024, 6, 15, 9, 5), &now), "Today 09:05");
        assert_eq!(modified(at(2024, 6, 14, 23, 59), &now), "Yesterday 23:59");
        assert_eq!(modified(at(2024, 3, 2, 14, 3), &now), "2 Mar 14:03");
        assert_eq!(modified(at(2023, 12, 31, 10, 0), &now), "31 Dec 2023");
        // A file from the future (clock skew) shows its full date, not "Today".
        assert_eq!(modified(at(2024, 7, 1, 10, 0), &now), "1 Jul 2024");
    }

    #[test]
    fn display_names_and_middle_ellipsis() {
        use std::os::unix::ffi::OsStrExt;
        assert_eq!(display_name(Path::new("/home/ann/tax")), "tax");
        assert_eq!(display_name(Path::new("/")), "/");
        // One line per name: a name with a newline drew over the row below it.
        assert_eq!(
            display_name(Path::new("/x/two\nlines\t\x1b.txt")),
            "two↵lines⇥�.txt"
        );
        // A name cannot pass for another by turning its text around.
        assert_eq!(
            display_name(Path::new("/x/photo\u{202E}gpj.sh")),
            "photo�gpj.sh"
        );
        assert_eq!(display_name(Path::new("/x/c1\u{9b}31m")), "c1�31m");
        let odd = std::ffi::OsStr::from_bytes(b"caf\xe9");
        assert_eq!(shown_name(odd), "caf�");
        assert_eq!(ellipsize_middle("short.txt".into(), 20), "short.txt");
        let long = ellipsize_middle("a-very-long-holiday-photo-name-2019.jpg".into(), 16);
        assert_eq!(long, "a-very-…2019.jpg");
        assert_eq!(long.chars().count(), 16);
        let plain = ellipsize_middle("a-name-without-any-extension-at-all".into(), 16);
        assert_eq!(plain, "a-name-wit…t-all");
    }

    #[test]
    fn extensions() {
        assert_eq!(extension(b"photo.JPG").as_deref(), Some("jpg"));
        assert_eq!(extension(b"archive.tar.gz").as_deref(), Some("gz"));
        assert_eq!(extension(b".bashrc"), None);
        assert_eq!(extension(b"Makefile"), None);
        assert_eq!(extension(b"trailing."), None);
        assert_eq!(extension(b"Apache-2.0"), None);
        assert_eq!(extension(b"video.mp4").as_deref(), Some("mp4"));
        assert_eq!(extension(b"weird.\xff\xfe"), None);
    }

    fn listing(entries: &[(&str, Kind, Kind, u16)]) -> Listing {
        let mut listing = Listing::new(PathBuf::from("/x"));
        for &(name, kind, target, mode) in entries {
            let meta = Meta {
                kind,
                target,
                mode,
                ..Meta::default()
            };
            listing.push(OsStr::new(name), meta);
        }
        listing
    }

    #[test]
    fn labels_and_categories() {
        let listing = listing(&[
            ("docs", Kind::Dir, Kind::Unknown, 0o040_755),
            ("photo.png", Kind::File, Kind::Unknown, 0o100_644),
            ("run-me", Kind::File, Kind::Unknown, 0o100_755),
            ("README", Kind::File, Kind::Unknown, 0o100_644),
            ("to-docs", Kind::Symlink, Kind::Dir, 0o120_777),
            ("dangling", Kind::Symlink, Kind::Unknown, 0o120_777),
            ("fifo", Kind::Fifo, Kind::Unknown, 0o010_644),
            ("song.mp3", Kind::Symlink, Kind::File, 0o120_777),
            ("to-file", Kind::Symlink, Kind::File, 0o120_777),
        ]);
        let label = |i| type_label(listing.entry(i)).into_owned();
        let cat = |i| category(listing.entry(i));
        assert_eq!((label(0), cat(0)), ("Folder".to_owned(), Category::Folder));
        assert_eq!(
            (label(1), cat(1)),
            ("PNG image".to_owned(), Category::Image)
        );
        assert_eq!(
            (label(2), cat(2)),
            ("Program".to_owned(), Category::Program)
        );
        assert_eq!((label(3), cat(3)), ("File".to_owned(), Category::Other));
        assert_eq!(
            (label(4), cat(4)),
            ("Link to folder".to_owned(), Category::Folder)
        );
        assert_eq!(
            (label(5), cat(5)),
            ("Broken link".to_owned(), Category::Link)
        );
        assert_eq!((label(6), cat(6)), ("Pipe".to_owned(), Category::Special));
        // A link to a file is named as what it leads to: it said "Link".
        assert_eq!(
            (label(7), cat(7)),
            ("Link to MP3 audio".to_owned(), Category::Link)
        );
        assert_eq!(label(8), "Link to file");
        // Its icon is drawn as what it leads to: a link to an MP3 was a grey page.
        let icon = |i| icon_category(listing.entry(i));
        assert_eq!(
            (icon(7), icon(8), icon(5)),
            (Category::Audio, Category::Other, Category::Link)
        );
        use crate::gui::widget::icon::LinkMark;
        let mark = |i: usize| {
            let e = listing.entry(i);
            LinkMark::of(e.kind(), e.target_kind())
        };
        assert_eq!(
            (mark(7), mark(5), mark(1)),
            (LinkMark::Link, LinkMark::Broken, LinkMark::None)
        );
    }
}
