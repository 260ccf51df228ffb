//! The Wayland clipboard through the data-control protocol (`wlr-data-control`, or
//! `ext-data-control`), on `wl-clipboard-rs`: the way a program reads and sets the clipboard
//! without a focused surface of its own. wlroots compositors and KDE's KWin have it, GNOME's
//! Mutter has not (there [`start`] fails and the window uses XWayland's X11 clipboard).
//!
//! Each offer is served on a thread of its own until it is cancelled: another client took the
//! clipboard ([`ClipboardEvent::Lost`]), or Ferry offered again or cleared it (no event).

use std::io::Read;
use std::os::fd::AsFd;
use std::time::Instant;

use crossbeam_channel::{Receiver, Sender, select};
use ferry_core::Error;
use rustix::event::{PollFd, PollFlags, Timespec};
use wl_clipboard_rs::{copy, paste};

use super::{ClipboardEvent, Command, Contents, Handle, READ_TIMEOUT, Source, failed, formats};

/// Checks that the compositor has data-control, and starts the worker.
pub(super) fn start() -> Result<(Handle, Receiver<ClipboardEvent>), Error> {
    let unusable = |kind, why: &dyn std::fmt::Display| Error::Clipboard {
        op: "use the Wayland clipboard",
        source: std::io::Error::new(kind, why.to_string()),
    };
    match paste::get_mime_types(paste::ClipboardType::Regular, paste::Seat::Unspecified) {
        Ok(_) | Err(paste::Error::ClipboardEmpty | paste::Error::NoMimeType) => {}
        Err(e @ paste::Error::MissingProtocol { .. }) => {
            return Err(unusable(
                std::io::ErrorKind::Unsupported,
                &format!("{e} (wlroots compositors and KWin have it, GNOME's Mutter has not)"),
            ));
        }
        Err(e @ paste::Error::NoSeats) => {
            return Err(unusable(std::io::ErrorKind::Unsupported, &e));
        }
        Err(e) => return Err(unusable(std::io::ErrorKind::ConnectionRefused, &e)),
    }
    let (command_tx, command_rx) = crossbeam_channel::unbounded();
    let (lost_tx, lost_rx) = crossbeam_channel::unbounded();
    let (served_tx, served_rx) = crossbeam_channel::unbounded();
    let worker = Worker {
        generation: 0,
        current: None,
        read_other: false,
        served: served_tx,
        lost: lost_tx,
    };
    std::thread::Builder::new()
        .name("ferry-clipboard".into())
        .spawn(move || worker.run(&command_rx, &served_rx))
        .expect("spawning a thread only fails when the system is out of resources");
    Ok((
        Handle {
            commands: command_tx,
        },
        lost_rx,
    ))
}

struct Worker {
    /// Counts offers, so that the end of a replaced one is not taken for a loss.
    generation: u64,
    current: Option<(u64, Contents)>,
    /// The last read came from another program (which `clear` then empties).
    read_other: bool,
    served: Sender<u64>,
    lost: Sender<ClipboardEvent>,
}

impl Worker {
    fn run(mut self, commands: &Receiver<Command>, served: &Receiver<u64>) {
        loop {
            select! {
                recv(commands) -> command => match command {
                    Ok(Command::Offer(contents)) => self.offer(contents),
                    Ok(Command::OfferIfEmpty(contents)) => {
                        if Offer.formats().is_ok_and(|f| f.is_empty()) {
                            self.offer(contents);
                        } else {
                            let _ = self.lost.send(ClipboardEvent::Lost);
                        }
                    }
                    Ok(Command::Read(reply)) => {
                        let _ = reply.send(self.read());
                    }
                    Ok(Command::Clear) => self.clear(),
                    Err(_) => break,
                },
                recv(served) -> generation => {
                    if let Ok(generation) = generation
                        && self.current.as_ref().is_some_and(|(g, _)| *g == generation)
                    {
                        self.current = None;
                        let _ = self.lost.send(ClipboardEvent::Lost);
                    }
                }
            }
        }
        if self.current.is_some() {
            self.clear();
        }
    }

    fn offer(&mut self, contents: Contents) {
        let encoded = match &contents {
            Contents::Files { paths, cut, .. } => formats::file_formats(paths, *cut),
            Contents::Text(text) => formats::text_formats(text),
            Contents::Other(_) | Contents::Empty => return self.clear(),
        };
        // Wayland names formats by MIME type only; XWayland maps them to X11's names.
        let sources: Vec<_> = encoded
            .into_iter()
            .filter(|(name, _)| *name != formats::UTF8_STRING && *name != formats::STRING)
            .map(|(name, bytes)| copy::MimeSource {
                source: copy::Source::Bytes(bytes.into_boxed_slice()),
                mime_type: copy::MimeType::Specific(name.to_owned()),
            })
            .collect();
        self.generation += 1;
        let generation = self.generation;
        self.current = None;
        self.read_other = false;
        // Prepared (the selection set) and served on one thread; the worker waits only for
        // the first.
        let (ready_tx, ready_rx) = crossbeam_channel::bounded(1);
        let served = self.served.clone();
        std::thread::Builder::new()
            .name("ferry-clipboard-offer".into())
            .spawn(move || {
                let mut options = copy::Options::new();
                options
                    .foreground(true)
                    .omit_additional_text_mime_types(true);
                match options.prepare_copy_multi(sources) {
                    Ok(prepared) => {
                        let _ = ready_tx.send(Ok(()));
                        if let Err(e) = prepared.serve() {
                            tracing::warn!(target: "ferry", "Wayland clipboard: {e}");
                        }
                        let _ = served.send(generation);
                    }
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                    }
                }
            })
            .expect("spawning a thread only fails when the system is out of resources");
        match ready_rx.recv() {
            Ok(Ok(())) => self.current = Some((generation, contents)),
            Ok(Err(e)) => tracing::warn!(target: "ferry", "Wayland clipboard: cannot offer: {e}"),
            Err(_) => {}
        }
    }

    fn clear(&mut self) {
        if self.current.take().is_some() || std::mem::take(&mut self.read_other) {
            self.generation += 1;
            if let Err(e) = copy::clear(copy::ClipboardType::Regular, copy::Seat::All) {
                tracing::warn!(target: "ferry", "Wayland clipboard: cannot clear: {e}");
            }
        }
    }

    fn read(&mut self) -> Result<Contents, Error> {
        if let Some((_, contents)) = &self.current {
            return Ok(contents.clone());
        }
        let contents = super::read_from(&mut Offer)?;
        self.read_other = contents != Contents::Empty;
        Ok(contents)
    }
}

/// The current selection, read through data-control.
struct Offer;

impl Source for Offer {
    fn formats(&mut self) -> Result<Vec<String>, Error> {
        match paste::get_mime_types_ordered(paste::ClipboardType::Regular, paste::Seat::Unspecified)
        {
            Ok(types) => Ok(types),
            Err(
                paste::Error::ClipboardEmpty | paste::Error::NoMimeType | paste::Error::NoSeats,
            ) => Ok(Vec::new()),
            Err(e) => Err(failed(std::io::ErrorKind::ConnectionAborted, e)),
        }
    }

    fn get(&mut self, format: &str) -> Result<Option<Vec<u8>>, Error> {
        let pipe = match paste::get_contents(
            paste::ClipboardType::Regular,
            paste::Seat::Unspecified,
            paste::MimeType::Specific(format),
        ) {
            Ok((pipe, _)) => pipe,
            Err(paste::Error::ClipboardEmpty | paste::Error::NoMimeType) => return Ok(None),
            Err(e) => return Err(failed(std::io::ErrorKind::ConnectionAborted, e)),
        };
        read_all(pipe).map(Some)
    }
}

/// Reads the pipe to its end, waiting at most [`READ_TIMEOUT`] for each piece.
fn read_all(mut pipe: impl Read + AsFd) -> Result<Vec<u8>, Error> {
    let mut data = Vec::new();
    let mut buffer = vec![0; 64 * 1024];
    loop {
        let deadline = Instant::now() + READ_TIMEOUT;
        let ready = loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let timeout = Timespec {
                tv_sec: left.as_secs().try_into().unwrap_or(i64::MAX),
                tv_nsec: left.subsec_nanos().into(),
            };
            let mut fds = [PollFd::new(&pipe, PollFlags::IN)];
            match rustix::event::poll(&mut fds, Some(&timeout)) {
                Ok(n) => break n > 0,
                Err(rustix::io::Errno::INTR) => continue,
                Err(e) => return Err(failed(std::io::ErrorKind::Other, e)),
            }
        };
        if !ready {
            return Err(failed(
                std::io::ErrorKind::TimedOut,
                format!(
                    "the program holding it did not answer within {} s",
                    READ_TIMEOUT.as_secs()
                ),
            ));
        }
        match pipe.read(&mut buffer) {
            Ok(0) => return Ok(data),
            Ok(n) => data.extend_from_slice(&buffer[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(failed(e.kind(), e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pipe_is_read_to_its_end() {
        let (reader, mut writer) = std::io::pipe().unwrap();
        let writing = std::thread::spawn(move || {
            use std::io::Write;
            writer.write_all(&vec![7u8; 300_000]).unwrap();
        });
        assert_eq!(read_all(reader).unwrap().len(), 300_000);
        writing.join().unwrap();
    }
}
