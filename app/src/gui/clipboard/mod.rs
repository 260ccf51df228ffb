//! Files on the desktop's clipboard, shared with other file managers (iced 0.14's clipboard
//! is text only).
//!
//! A [`FileClipboard`] owns a thread that owns the clipboard connection: offering (Ctrl+C,
//! Ctrl+X, Copy Location) and clearing only send it a message, so the window's `update` never
//! waits; [`FileClipboard::read`] (Ctrl+V) blocks its caller for a round trip to the program
//! that holds the clipboard, at most about 2 s for one that does not answer, and is called on
//! a thread of its own (`bridge::blocking`). When another program takes the clipboard, a
//! [`ClipboardEvent::Lost`] arrives on the receiver [`FileClipboard::start`] returns (so the
//! window stops drawing cut items dimmed).
//!
//! What is offered (see [`formats`]): `x-special/gnome-copied-files` (Nautilus, Nemo, Thunar,
//! cosmic-files), `text/uri-list` with `application/x-kde-cutselection` (Dolphin), and the
//! paths as text for text editors. What is read: the same, preferring GNOME's list for its cut
//! flag, then the URI list with KDE's flag; text that is nothing but absolute paths of
//! existing files (one per line, or `file://` URIs), and GTK 3 Nautilus' files-as-text, are
//! read as files; any other text as text.
//!
//! Where it works:
//! - **X11** (and **XWayland**): the selection owner is written on `x11rb` (its own connection,
//!   every target at once, INCR both ways for large lists, ownership-lost events). Ferry answers
//!   any program until another takes the clipboard; the clipboard empties when Ferry quits
//!   (no `CLIPBOARD_MANAGER` hand-over).
//! - **Wayland**: winit opens the window on Wayland whenever `WAYLAND_DISPLAY` is set, so the
//!   clipboard goes there too: through the data-control protocol (`wl-clipboard-rs`), which
//!   wlroots compositors (Sway, Hyprland, ...) and KDE's KWin have and GNOME's Mutter has not.
//!   Without it, and with `DISPLAY` set, Ferry uses XWayland's X11 clipboard, which the
//!   compositor (Mutter too) passes to and from Wayland programs (tested: Sway with
//!   `wl-copy`/`wl-paste`, and the choice under Weston; not GNOME itself). Without either,
//!   [`FileClipboard::start`] fails with `Unsupported`, and the window falls back to iced's
//!   text clipboard.
//!
//! For the window: keep the [`FileClipboard`] from [`FileClipboard::start`] (at boot) in the
//! state and its receiver in a subscription through the bridge; call `offer_files`,
//! `offer_text` and `clear` from `update`; wrap a clone's `read` in `bridge::blocking`.

pub mod formats;
mod wayland;
mod x11;

use std::path::PathBuf;

use crossbeam_channel::{Receiver, Sender};
use ferry_core::Error;

/// How long a read waits for the program holding the clipboard to answer (each step).
pub const READ_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(2);

/// What the clipboard holds, as Ferry can use it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Contents {
    /// Files, by their local paths; `cut` when they were cut (paste moves them).
    Files {
        /// Absolute paths, as bytes (names need not be UTF-8).
        paths: Vec<PathBuf>,
        /// True for a cut, false for a copy.
        cut: bool,
        /// What the list named that is no local file (a web address), as offered: left out.
        left_out: Vec<String>,
    },
    /// Text that does not name existing files ("the clipboard holds text, not files").
    Text(String),
    /// Something else (an image, ...): the names of the formats offered.
    Other(Vec<String>),
    /// Nothing: no program holds the clipboard, or it holds an empty list.
    Empty,
}

impl Contents {
    /// Files, all of them local (what Ferry offers).
    pub fn files(paths: Vec<PathBuf>, cut: bool) -> Contents {
        Contents::Files {
            paths,
            cut,
            left_out: Vec::new(),
        }
    }
}

/// What the clipboard's thread tells the window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClipboardEvent {
    /// Another program took the clipboard: what Ferry offered is no longer there.
    Lost,
}

/// Which clipboard a [`FileClipboard`] talks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// The X11 `CLIPBOARD` selection (X11, or XWayland under a Wayland compositor).
    X11,
    /// The Wayland clipboard through the data-control protocol.
    WaylandDataControl,
}

/// The desktop's clipboard, for files and text. Cheap to clone: every clone talks to the same
/// thread, which stops (and gives the clipboard up) when the last clone is dropped.
#[derive(Clone)]
pub struct FileClipboard {
    handle: Handle,
    backend: Backend,
}

/// What the window asks of the clipboard's thread, whichever backend runs it.
enum Command {
    Offer(Contents),
    /// Offer it only if the clipboard is empty (nobody took it since Ferry emptied it); if
    /// not, say [`ClipboardEvent::Lost`].
    OfferIfEmpty(Contents),
    Read(Sender<Result<Contents, Error>>),
    Clear,
}

/// The clipboard thread's end: every clone sends to the same thread, which stops when the
/// last goes.
#[derive(Clone)]
struct Handle {
    commands: Sender<Command>,
}

impl Handle {
    fn offer(&self, contents: Contents) {
        let _ = self.commands.send(Command::Offer(contents));
    }

    fn clear(&self) {
        let _ = self.commands.send(Command::Clear);
    }

    fn offer_if_empty(&self, contents: Contents) {
        let _ = self.commands.send(Command::OfferIfEmpty(contents));
    }

    fn read(&self) -> Result<Contents, Error> {
        let (tx, rx) = crossbeam_channel::bounded(1);
        let gone = || {
            failed(
                std::io::ErrorKind::BrokenPipe,
                "the clipboard's thread stopped",
            )
        };
        self.commands.send(Command::Read(tx)).map_err(|_| gone())?;
        rx.recv().map_err(|_| gone())?
    }
}

impl std::fmt::Debug for FileClipboard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "FileClipboard({:?})", self.backend())
    }
}

impl FileClipboard {
    /// Connects to the clipboard of the display the window uses: Wayland's data-control when
    /// `WAYLAND_DISPLAY` is set and the compositor has it, else X11 (`DISPLAY`, which is
    /// XWayland under a Wayland compositor). Blocks for a connection and a few round trips
    /// (milliseconds): call it once, at start. An error means no file clipboard: use iced's
    /// text clipboard.
    pub fn start() -> Result<(FileClipboard, Receiver<ClipboardEvent>), Error> {
        let set = |name| std::env::var_os(name).is_some_and(|v| !v.is_empty());
        if set("WAYLAND_DISPLAY") || set("WAYLAND_SOCKET") {
            match wayland::start() {
                Ok((handle, events)) => {
                    return Ok((Self::from(handle, Backend::WaylandDataControl), events));
                }
                Err(why) if set("DISPLAY") => {
                    tracing::info!(target: "ferry", "{why}; using the X11 clipboard (XWayland)");
                }
                Err(why) => return Err(why),
            }
        }
        Self::start_x11(None)
    }

    /// Connects to the X11 clipboard of `display` (`None`: `DISPLAY`).
    pub fn start_x11(
        display: Option<&str>,
    ) -> Result<(FileClipboard, Receiver<ClipboardEvent>), Error> {
        let (handle, events) = x11::start(display)?;
        Ok((Self::from(handle, Backend::X11), events))
    }

    fn from(handle: Handle, backend: Backend) -> Self {
        FileClipboard { handle, backend }
    }

    /// Which clipboard this is.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Puts files on the clipboard (Ctrl+C, or Ctrl+X with `cut`). Does not block: the
    /// clipboard's thread takes the clipboard and answers every program that asks.
    pub fn offer_files(&self, paths: Vec<PathBuf>, cut: bool) {
        self.offer(Contents::files(paths, cut));
    }

    /// Puts text on the clipboard ("Copy Location", Ctrl+Shift+C). Does not block.
    pub fn offer_text(&self, text: String) {
        self.offer(Contents::Text(text));
    }

    fn offer(&self, contents: Contents) {
        self.handle.offer(contents);
    }

    /// Puts files back on the clipboard Ferry emptied (a cut whose paste moved nothing), unless
    /// another program has put something there since: then [`ClipboardEvent::Lost`] comes,
    /// as if it had taken them. Does not block.
    pub fn restore_files(&self, paths: Vec<PathBuf>, cut: bool) {
        self.handle.offer_if_empty(Contents::files(paths, cut));
    }

    /// Empties the clipboard if it still holds what Ferry offered, or what it read last (after
    /// a cut was pasted, as Nautilus does). Does not block.
    pub fn clear(&self) {
        self.handle.clear();
    }

    /// What the clipboard holds (Ctrl+V). **Blocks**: call it on a thread of its own
    /// (`bridge::blocking`), never in `update`. What Ferry itself offered comes back without
    /// a transfer (X11: one question to the server, to be sure it is still Ferry's); another
    /// program gets [`READ_TIMEOUT`] for each answer. Text that is only paths of
    /// existing files comes back as [`Contents::Files`] (a copy).
    pub fn read(&self) -> Result<Contents, Error> {
        let contents = self.handle.read()?;
        match contents {
            Contents::Text(text) => interpret_text(text),
            Contents::Files { paths, .. } if paths.is_empty() => Ok(Contents::Empty),
            other => Ok(other),
        }
    }
}

/// Text that names files is files to copy (never to move: see
/// [`formats::parse_nautilus_text`]): GTK 3 Nautilus' header, or nothing but absolute paths
/// (or `file://` URIs) of items that exist. Anything else stays text.
fn interpret_text(text: String) -> Result<Contents, Error> {
    if let Some(parsed) = formats::parse_nautilus_text(&text) {
        let paths = parsed.map_err(refused)?;
        return Ok(Contents::files(paths, false));
    }
    match formats::paths_in_text(&text) {
        Some(paths) if paths.iter().all(|p| formats::exists(p)) => {
            Ok(Contents::files(paths, false))
        }
        _ => Ok(Contents::Text(text)),
    }
}

/// A paste refused for what the clipboard holds.
fn refused(why: formats::Refused) -> Error {
    Error::Clipboard {
        op: "paste",
        source: std::io::Error::new(std::io::ErrorKind::InvalidData, why),
    }
}

/// The clipboard could not be reached or did not answer.
fn failed(kind: std::io::ErrorKind, why: impl std::fmt::Display) -> Error {
    Error::Clipboard {
        op: "read the clipboard",
        source: std::io::Error::new(kind, why.to_string()),
    }
}

/// What the owner offers, read into [`Contents`] with the preferences every backend shares:
/// GNOME's list, then the URI list (with KDE's cut flag), then text.
trait Source {
    /// The formats offered, by name.
    fn formats(&mut self) -> Result<Vec<String>, Error>;
    /// The bytes of one format; `None` if the owner refused it after all.
    fn get(&mut self, format: &str) -> Result<Option<Vec<u8>>, Error>;
}

fn read_from(source: &mut impl Source) -> Result<Contents, Error> {
    let offered = source.formats()?;
    let has = |name: &str| offered.iter().any(|f| f == name);
    if has(formats::GNOME_COPIED_FILES)
        && let Some(bytes) = source.get(formats::GNOME_COPIED_FILES)?
    {
        let (listed, cut) = formats::parse_gnome_copied_files(&bytes).map_err(refused)?;
        return Ok(listed.into_contents(cut));
    }
    if has(formats::URI_LIST)
        && let Some(bytes) = source.get(formats::URI_LIST)?
    {
        let listed = formats::parse_uri_list(&bytes).map_err(refused)?;
        let cut = has(formats::KDE_CUT)
            && source
                .get(formats::KDE_CUT)?
                .is_some_and(|flag| formats::parse_kde_cut(&flag));
        return Ok(listed.into_contents(cut));
    }
    for name in [
        formats::UTF8_STRING,
        formats::TEXT_UTF8,
        formats::TEXT_PLAIN,
        formats::STRING,
    ] {
        if has(name)
            && let Some(bytes) = source.get(name)?
        {
            let text = if name == formats::STRING {
                formats::from_latin1(&bytes)
            } else {
                String::from_utf8_lossy(&bytes).into_owned()
            };
            return Ok(Contents::Text(text));
        }
    }
    if offered.is_empty() {
        return Ok(Contents::Empty);
    }
    Ok(Contents::Other(offered))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    struct Offered(HashMap<&'static str, &'static [u8]>);

    impl Source for Offered {
        fn formats(&mut self) -> Result<Vec<String>, Error> {
            let mut names: Vec<_> = self.0.keys().map(|k| k.to_string()).collect();
            names.sort();
            Ok(names)
        }
        fn get(&mut self, format: &str) -> Result<Option<Vec<u8>>, Error> {
            Ok(self.0.get(format).map(|b| b.to_vec()))
        }
    }

    fn read(offered: &[(&'static str, &'static [u8])]) -> Result<Contents, Error> {
        read_from(&mut Offered(offered.iter().copied().collect()))
    }

    #[test]
    fn gnome_files_are_preferred_for_their_cut_flag() {
        let got = read(&[
            (formats::GNOME_COPIED_FILES, b"cut\nfile:///a"),
            (formats::URI_LIST, b"file:///b\r\n"),
            (formats::UTF8_STRING, b"/c"),
        ]);
        let want = Contents::files(vec!["/a".into()], true);
        assert_eq!(got.unwrap(), want);
    }

    #[test]
    fn a_uri_list_takes_its_cut_flag_from_kde() {
        let files = |cut| Contents::files(vec!["/b".into()], cut);
        assert_eq!(
            read(&[(formats::URI_LIST, b"file:///b\r\n")]).unwrap(),
            files(false)
        );
        let dolphin_cut = [
            (formats::URI_LIST, &b"file:///b\r\n"[..]),
            (formats::KDE_CUT, b"1"),
        ];
        assert_eq!(read(&dolphin_cut).unwrap(), files(true));
        let dolphin_copy = [
            (formats::URI_LIST, &b"file:///b\r\n"[..]),
            (formats::KDE_CUT, b"0"),
        ];
        assert_eq!(read(&dolphin_copy).unwrap(), files(false));
    }

    #[test]
    fn text_images_and_nothing() {
        assert_eq!(
            read(&[(formats::STRING, b"caf\xe9")]).unwrap(),
            Contents::Text("café".into())
        );
        assert_eq!(
            read(&[("image/png", b"\x89PNG")]).unwrap(),
            Contents::Other(vec!["image/png".into()])
        );
        assert_eq!(read(&[]).unwrap(), Contents::Empty);
    }

    #[test]
    fn web_addresses_are_refused_with_a_reason() {
        let err = read(&[(formats::URI_LIST, b"https://example.org/\r\n")]).unwrap_err();
        let Error::Clipboard { op, source } = &err else {
            panic!("{err:?}");
        };
        assert_eq!(*op, "paste");
        assert_eq!(source.kind(), std::io::ErrorKind::InvalidData);
        assert!(err.to_string().contains("https://example.org/"), "{err}");
        // Beside local files, they are left out of the paste, and named for it to say so.
        let mixed = read(&[(formats::URI_LIST, b"file:///b\r\nhttps://example.org/\r\n")]);
        let want = Contents::Files {
            paths: vec!["/b".into()],
            cut: false,
            left_out: vec!["https://example.org/".into()],
        };
        assert_eq!(mixed.unwrap(), want);
    }

    #[test]
    fn text_naming_existing_files_is_files() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a b.txt");
        std::fs::write(&a, "x").unwrap();
        let text = format!("{}\n{}\n", a.display(), dir.path().display());
        assert_eq!(
            interpret_text(text).unwrap(),
            Contents::files(vec![a.clone(), dir.path().to_path_buf()], false)
        );
        let missing = format!("{}\n{}", a.display(), dir.path().join("gone").display());
        assert_eq!(
            interpret_text(missing.clone()).unwrap(),
            Contents::Text(missing)
        );
        assert_eq!(
            interpret_text("hello".into()).unwrap(),
            Contents::Text("hello".into())
        );
        let nautilus = "x-special/nautilus-clipboard\ncut\nfile:///gone\n".to_owned();
        assert_eq!(
            interpret_text(nautilus).unwrap(),
            Contents::files(vec!["/gone".into()], false),
            "a cut in text is a copy: any program may write text"
        );
    }
}
