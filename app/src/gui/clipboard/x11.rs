//! The X11 `CLIPBOARD` selection (ICCCM section 2), on `x11rb`: one connection and one unmapped
//! window, owned by two threads. The pump blocks on the connection and passes every event on;
//! the worker takes commands (offer, read, clear) and events, answers `SelectionRequest`s of
//! any client for as long as it owns the clipboard, and says when it lost it.
//!
//! Data larger than [`chunk_limit`] goes by INCR (the property is written piece by piece as
//! the requestor deletes it), both when Ferry offers and when it reads.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender, select};
use ferry_core::Error;
use x11rb::connection::{Connection, RequestConnection};
use x11rb::errors::{ConnectionError, ReplyError, ReplyOrIdError};
use x11rb::protocol::Event;
use x11rb::protocol::xproto::{
    Atom, AtomEnum, ChangeWindowAttributesAux, ConnectionExt as _, CreateWindowAux, EventMask,
    PropMode, Property, SELECTION_NOTIFY_EVENT, SelectionNotifyEvent, SelectionRequestEvent,
    Timestamp, Window, WindowClass,
};
use x11rb::rust_connection::RustConnection;
use x11rb::wrapper::ConnectionExt as _;
use x11rb::{COPY_DEPTH_FROM_PARENT, COPY_FROM_PARENT, CURRENT_TIME, NONE};

use super::{ClipboardEvent, Command, Contents, Handle, READ_TIMEOUT, Source, failed, formats};

/// How long an INCR transfer to a requestor that stopped taking pieces is kept.
const TRANSFER_IDLE: Duration = Duration::from_secs(10);

x11rb::atom_manager! {
    Atoms: AtomsCookie {
        CLIPBOARD,
        TARGETS,
        TIMESTAMP,
        MULTIPLE,
        INCR,
        ATOM,
        INTEGER,
        FERRY_SELECTION,
        FERRY_TIME,
    }
}

/// Connects to `display`, makes the window and starts both threads.
pub(super) fn start(display: Option<&str>) -> Result<(Handle, Receiver<ClipboardEvent>), Error> {
    let unusable = |e: &dyn std::fmt::Display| Error::Clipboard {
        op: "use the X11 clipboard",
        source: std::io::Error::new(std::io::ErrorKind::ConnectionRefused, e.to_string()),
    };
    let (conn, screen) = x11rb::connect(display).map_err(|e| unusable(&e))?;
    let conn = Arc::new(conn);
    let root = conn.setup().roots[screen].root;
    let setup = || -> Result<(Window, Atoms), ReplyOrIdError> {
        let window = conn.generate_id()?;
        conn.create_window(
            COPY_DEPTH_FROM_PARENT,
            window,
            root,
            -10,
            -10,
            1,
            1,
            0,
            WindowClass::INPUT_ONLY,
            COPY_FROM_PARENT,
            &CreateWindowAux::new()
                .override_redirect(1)
                .event_mask(EventMask::PROPERTY_CHANGE | EventMask::STRUCTURE_NOTIFY),
        )?;
        conn.change_property8(
            PropMode::REPLACE,
            window,
            AtomEnum::WM_NAME,
            AtomEnum::STRING,
            b"Ferry clipboard",
        )?;
        let atoms = Atoms::new(&*conn)?.reply()?;
        Ok((window, atoms))
    };
    let (window, atoms) = setup().map_err(|e| unusable(&e))?;
    let chunk = chunk_limit(conn.maximum_request_bytes());

    let (event_tx, event_rx) = crossbeam_channel::unbounded();
    let (command_tx, command_rx) = crossbeam_channel::unbounded();
    let (lost_tx, lost_rx) = crossbeam_channel::unbounded();
    let pump_conn = Arc::clone(&conn);
    spawn("ferry-clipboard-x11", move || {
        pump(&pump_conn, window, &event_tx);
    });
    let worker = Worker {
        conn,
        window,
        atoms,
        chunk,
        events: event_rx,
        lost: lost_tx,
        owned: None,
        transfers: Vec::new(),
        last_read_owner: NONE,
        broken: None,
    };
    spawn("ferry-clipboard", move || worker.run(&command_rx));
    Ok((
        Handle {
            commands: command_tx,
        },
        lost_rx,
    ))
}

/// The largest property Ferry writes at once; beyond it, INCR. The server's request limit
/// (less a header) bounds it, and 256 KiB keeps one request from stalling a busy server (GTK
/// uses the same bound).
fn chunk_limit(maximum_request_bytes: usize) -> usize {
    maximum_request_bytes
        .saturating_sub(64)
        .clamp(1024, 256 * 1024)
}

fn spawn(name: &str, work: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .name(name.into())
        .spawn(work)
        .expect("spawning a thread only fails when the system is out of resources");
}

/// Passes every event on until the worker has gone (its window destroyed) or the connection
/// breaks.
fn pump(conn: &RustConnection, window: Window, to: &Sender<Result<Event, String>>) {
    loop {
        match conn.wait_for_event() {
            Ok(Event::DestroyNotify(e)) if e.window == window => return,
            Ok(event) => {
                if to.send(Ok(event)).is_err() {
                    return;
                }
            }
            Err(e) => {
                let _ = to.send(Err(e.to_string()));
                return;
            }
        }
    }
}

/// What Ferry offers while it owns the clipboard.
struct Owned {
    contents: Contents,
    /// (target, property type, bytes).
    data: Vec<(Atom, Atom, Arc<[u8]>)>,
    since: Timestamp,
}

/// An INCR transfer under way to one requestor's property.
struct Transfer {
    requestor: Window,
    property: Atom,
    kind: Atom,
    data: Arc<[u8]>,
    sent: usize,
    deadline: Instant,
}

struct Worker {
    conn: Arc<RustConnection>,
    window: Window,
    atoms: Atoms,
    chunk: usize,
    events: Receiver<Result<Event, String>>,
    lost: Sender<ClipboardEvent>,
    owned: Option<Owned>,
    transfers: Vec<Transfer>,
    /// The owner the last read was answered by, so that `clear` empties only what was read.
    last_read_owner: Window,
    /// Why the connection is gone, once it is.
    broken: Option<String>,
}

impl Worker {
    fn run(mut self, commands: &Receiver<Command>) {
        loop {
            let wait = self
                .transfers
                .iter()
                .map(|t| t.deadline)
                .min()
                .map_or(Duration::from_secs(3600), |d| {
                    d.saturating_duration_since(Instant::now())
                });
            select! {
                recv(commands) -> command => match command {
                    Ok(command) => self.command(command),
                    Err(_) => break,
                },
                recv(self.events) -> event => match event {
                    Ok(Ok(event)) => self.handle(event),
                    Ok(Err(why)) => self.break_with(why),
                    Err(_) => self.break_with("the X connection's reader stopped".into()),
                },
                default(wait) => {
                    let now = Instant::now();
                    self.transfers.retain(|t| t.deadline > now);
                }
            }
        }
        // The pump ends on this window's DestroyNotify, and the connection with it.
        let _ = self.conn.destroy_window(self.window);
        let _ = self.conn.flush();
    }

    fn break_with(&mut self, why: String) {
        tracing::warn!(target: "ferry", "X11 clipboard: {why}");
        self.broken = Some(why);
        self.owned = None;
        self.transfers.clear();
        self.events = crossbeam_channel::never();
    }

    fn command(&mut self, command: Command) {
        if let Command::Read(reply) = command {
            let _ = reply.send(self.read());
            return;
        }
        if self.broken.is_some() {
            return;
        }
        let done = match command {
            Command::Offer(contents) => self.offer(contents),
            Command::OfferIfEmpty(contents) => self.offer_if_empty(contents),
            Command::Clear => self.clear(),
            Command::Read(_) => Ok(()),
        };
        if let Err(e) = done {
            self.break_with(e.to_string());
        }
    }

    /// Encodes `contents` for every target and takes the clipboard.
    fn offer(&mut self, contents: Contents) -> Result<(), ReplyError> {
        let encoded = match &contents {
            Contents::Files { paths, cut, .. } => formats::file_formats(paths, *cut),
            Contents::Text(text) => formats::text_formats(text),
            Contents::Other(_) | Contents::Empty => return self.clear(),
        };
        let names: Vec<_> = encoded.iter().map(|(name, _)| *name).collect();
        let atoms = self.intern(&names)?;
        let data = encoded
            .into_iter()
            .zip(atoms)
            .map(|((name, bytes), atom)| {
                let kind = if name == formats::STRING {
                    AtomEnum::STRING.into()
                } else {
                    atom
                };
                (atom, kind, Arc::from(bytes))
            })
            .collect();
        let since = self.server_time()?;
        self.conn
            .set_selection_owner(self.window, self.atoms.CLIPBOARD, since)?;
        let owner = self
            .conn
            .get_selection_owner(self.atoms.CLIPBOARD)?
            .reply()?
            .owner;
        if owner == self.window {
            self.owned = Some(Owned {
                contents,
                data,
                since,
            });
        } else {
            tracing::warn!(target: "ferry", "X11 clipboard: another program kept the clipboard");
            self.owned = None;
        }
        Ok(())
    }

    /// Gives up the clipboard if Ferry holds it, or empties it if it still belongs to the
    /// program the last read came from.
    fn offer_if_empty(&mut self, contents: Contents) -> Result<(), ReplyError> {
        let owner = (self
            .conn
            .get_selection_owner(self.atoms.CLIPBOARD)?
            .reply()?)
        .owner;
        if owner == NONE {
            return self.offer(contents);
        }
        let _ = self.lost.send(ClipboardEvent::Lost);
        Ok(())
    }

    fn clear(&mut self) -> Result<(), ReplyError> {
        let clipboard = self.atoms.CLIPBOARD;
        if self.owned.take().is_some() {
            self.conn
                .set_selection_owner(NONE, clipboard, CURRENT_TIME)?;
        } else if self.last_read_owner != NONE {
            let owner = self.conn.get_selection_owner(clipboard)?.reply()?.owner;
            if owner == self.last_read_owner {
                self.conn
                    .set_selection_owner(NONE, clipboard, CURRENT_TIME)?;
            }
        }
        self.last_read_owner = NONE;
        self.conn.flush()?;
        Ok(())
    }

    fn intern(&self, names: &[&str]) -> Result<Vec<Atom>, ReplyError> {
        let cookies = names
            .iter()
            .map(|name| self.conn.intern_atom(false, name.as_bytes()))
            .collect::<Result<Vec<_>, _>>()?;
        cookies
            .into_iter()
            .map(|cookie| Ok(cookie.reply()?.atom))
            .collect()
    }

    /// The server's time now (ICCCM: take ownership with a real time, not `CurrentTime`), from
    /// the notification of an empty append to a property of our own.
    fn server_time(&mut self) -> Result<Timestamp, ReplyError> {
        let (window, atom) = (self.window, self.atoms.FERRY_TIME);
        self.conn
            .change_property8(PropMode::APPEND, window, atom, AtomEnum::STRING, &[])?;
        self.conn.flush()?;
        let deadline = Instant::now() + READ_TIMEOUT;
        let notified = self.wait_for(
            deadline,
            |e| matches!(e, Event::PropertyNotify(p) if p.window == window && p.atom == atom),
        );
        Ok(match notified {
            Some(Event::PropertyNotify(p)) => p.time,
            _ => CURRENT_TIME,
        })
    }

    /// Waits until `deadline` for an event `wanted` picks, handling every other one meanwhile
    /// (so Ferry keeps answering other programs while it reads).
    fn wait_for(&mut self, deadline: Instant, wanted: impl Fn(&Event) -> bool) -> Option<Event> {
        loop {
            match self.events.recv_deadline(deadline) {
                Ok(Ok(event)) if wanted(&event) => return Some(event),
                Ok(Ok(event)) => self.handle(event),
                Ok(Err(why)) => {
                    self.break_with(why);
                    return None;
                }
                Err(RecvTimeoutError::Timeout) => return None,
                Err(RecvTimeoutError::Disconnected) => {
                    // `never()` after a break is disconnected too.
                    if self.broken.is_none() {
                        self.break_with("the X connection's reader stopped".into());
                    }
                    return None;
                }
            }
        }
    }

    fn handle(&mut self, event: Event) {
        let done = match event {
            Event::SelectionRequest(request) => self.answer(&request).map_err(ReplyError::from),
            Event::SelectionClear(e) if e.selection == self.atoms.CLIPBOARD => self.cleared(),
            Event::PropertyNotify(e) if e.state == Property::DELETE => {
                self.next_piece(e.window, e.atom).map_err(ReplyError::from)
            }
            Event::Error(e) => {
                tracing::debug!(target: "ferry", "X11 clipboard: {e:?}");
                Ok(())
            }
            _ => Ok(()),
        };
        if let Err(e) = done {
            self.break_with(e.to_string());
        }
    }

    /// Another client took the clipboard, or a clear of ours arrived late: the server says
    /// which.
    fn cleared(&mut self) -> Result<(), ReplyError> {
        if self.owned.is_none() {
            return Ok(());
        }
        let owner = self
            .conn
            .get_selection_owner(self.atoms.CLIPBOARD)?
            .reply()?
            .owner;
        if owner != self.window {
            self.owned = None;
            let _ = self.lost.send(ClipboardEvent::Lost);
        }
        Ok(())
    }

    /// Answers one `SelectionRequest`: the property written (or an INCR transfer started),
    /// then `SelectionNotify`; `NONE` for what Ferry does not hold.
    fn answer(&mut self, request: &SelectionRequestEvent) -> Result<(), ConnectionError> {
        // ICCCM: an obsolete client leaves the property `None`; use the target.
        let property = if request.property == NONE {
            request.target
        } else {
            request.property
        };
        let answered = self.write_answer(request, property)?;
        let notify = SelectionNotifyEvent {
            response_type: SELECTION_NOTIFY_EVENT,
            sequence: 0,
            time: request.time,
            requestor: request.requestor,
            selection: request.selection,
            target: request.target,
            property: if answered { property } else { NONE },
        };
        self.conn
            .send_event(false, request.requestor, EventMask::NO_EVENT, notify)?;
        self.conn.flush()
    }

    fn write_answer(
        &mut self,
        request: &SelectionRequestEvent,
        property: Atom,
    ) -> Result<bool, ConnectionError> {
        let Some(owned) = &self.owned else {
            return Ok(false);
        };
        let too_early = request.time != CURRENT_TIME
            && owned.since != CURRENT_TIME
            && request.time < owned.since;
        if request.selection != self.atoms.CLIPBOARD || request.owner != self.window || too_early {
            return Ok(false);
        }
        let (conn, atoms, to) = (&self.conn, &self.atoms, request.requestor);
        if request.target == atoms.TARGETS {
            let mut targets = vec![atoms.TARGETS, atoms.TIMESTAMP];
            targets.extend(owned.data.iter().map(|(target, ..)| *target));
            conn.change_property32(PropMode::REPLACE, to, property, atoms.ATOM, &targets)?;
            return Ok(true);
        }
        if request.target == atoms.TIMESTAMP {
            conn.change_property32(
                PropMode::REPLACE,
                to,
                property,
                atoms.INTEGER,
                &[owned.since],
            )?;
            return Ok(true);
        }
        let Some((_, kind, data)) = owned.data.iter().find(|(t, ..)| *t == request.target) else {
            return Ok(false);
        };
        if data.len() <= self.chunk {
            conn.change_property8(PropMode::REPLACE, to, property, *kind, data)?;
            return Ok(true);
        }
        // INCR: the size as a lower bound, then a piece each time the requestor deletes it.
        conn.change_window_attributes(
            to,
            &ChangeWindowAttributesAux::new().event_mask(EventMask::PROPERTY_CHANGE),
        )?;
        let size = u32::try_from(data.len()).unwrap_or(u32::MAX);
        conn.change_property32(PropMode::REPLACE, to, property, atoms.INCR, &[size])?;
        let transfer = Transfer {
            requestor: to,
            property,
            kind: *kind,
            data: Arc::clone(data),
            sent: 0,
            deadline: Instant::now() + TRANSFER_IDLE,
        };
        self.transfers
            .retain(|t| (t.requestor, t.property) != (to, property));
        self.transfers.push(transfer);
        Ok(true)
    }

    /// A requestor deleted a property an INCR transfer writes: the next piece, or the empty
    /// one that ends it.
    fn next_piece(&mut self, window: Window, property: Atom) -> Result<(), ConnectionError> {
        let Some(i) = self
            .transfers
            .iter()
            .position(|t| t.requestor == window && t.property == property)
        else {
            return Ok(());
        };
        let t = &mut self.transfers[i];
        let end = (t.sent + self.chunk).min(t.data.len());
        self.conn.change_property8(
            PropMode::REPLACE,
            window,
            property,
            t.kind,
            &t.data[t.sent..end],
        )?;
        if t.sent == end {
            self.transfers.swap_remove(i);
            if !self.transfers.iter().any(|t| t.requestor == window) {
                self.conn.change_window_attributes(
                    window,
                    &ChangeWindowAttributesAux::new().event_mask(EventMask::NO_EVENT),
                )?;
            }
        } else {
            t.sent = end;
            t.deadline = Instant::now() + TRANSFER_IDLE;
        }
        self.conn.flush()
    }

    fn read(&mut self) -> Result<Contents, Error> {
        if let Some(why) = &self.broken {
            return Err(failed(std::io::ErrorKind::ConnectionAborted, why));
        }
        // The owner, from the server: a SelectionClear may still be on its way.
        let owner = self
            .conn
            .get_selection_owner(self.atoms.CLIPBOARD)
            .map_err(ReplyError::from)
            .and_then(|c| c.reply())
            .map_err(|e| failed(std::io::ErrorKind::ConnectionAborted, e))?
            .owner;
        if let Some(owned) = &self.owned {
            if owner == self.window {
                return Ok(owned.contents.clone());
            }
            self.owned = None;
            let _ = self.lost.send(ClipboardEvent::Lost);
        }
        self.last_read_owner = owner;
        if owner == NONE {
            return Ok(Contents::Empty);
        }
        // Each read asks with a time of its own, so that a late answer to an earlier read
        // that timed out is not taken for this one's.
        let time = self
            .server_time()
            .map_err(|e| failed(std::io::ErrorKind::ConnectionAborted, e))?;
        super::read_from(&mut Reader {
            worker: self,
            time,
            names: Vec::new(),
        })
    }

    /// Asks the owner for `target` into our property; `None` if it refused.
    fn convert(&mut self, target: Atom, time: Timestamp) -> Result<Option<(Atom, Vec<u8>)>, Error> {
        let (window, property, clipboard) = (
            self.window,
            self.atoms.FERRY_SELECTION,
            self.atoms.CLIPBOARD,
        );
        let x = |e: ReplyError| failed(std::io::ErrorKind::ConnectionAborted, e);
        let requested = || -> Result<(), ConnectionError> {
            self.conn.delete_property(window, property)?;
            self.conn
                .convert_selection(window, clipboard, target, property, time)?;
            self.conn.flush()
        };
        requested().map_err(|e| x(e.into()))?;
        let notified = self.wait_for(Instant::now() + READ_TIMEOUT, |e| {
            matches!(e, Event::SelectionNotify(n)
                if n.requestor == window && n.selection == clipboard && n.target == target
                    && (n.time == time || n.time == CURRENT_TIME || time == CURRENT_TIME))
        });
        let Some(Event::SelectionNotify(notify)) = notified else {
            return Err(self.silent());
        };
        if notify.property == NONE {
            return Ok(None);
        }
        let (kind, value) = self.take_property().map_err(x)?;
        if kind != self.atoms.INCR {
            return Ok(Some((kind, value)));
        }
        // INCR: our delete (in take_property) asked for the first piece; each piece is a new
        // value, and an empty one ends it.
        let mut data = Vec::new();
        loop {
            let more = self.wait_for(Instant::now() + READ_TIMEOUT, |e| {
                matches!(e, Event::PropertyNotify(p)
                    if p.window == window && p.atom == property && p.state == Property::NEW_VALUE)
            });
            if more.is_none() {
                return Err(self.silent());
            }
            let (kind, piece) = self.take_property().map_err(x)?;
            if piece.is_empty() {
                return Ok(Some((kind, data)));
            }
            data.extend_from_slice(&piece);
        }
    }

    /// Reads and deletes our property.
    fn take_property(&self) -> Result<(Atom, Vec<u8>), ReplyError> {
        let reply = self
            .conn
            .get_property(
                true,
                self.window,
                self.atoms.FERRY_SELECTION,
                AtomEnum::ANY,
                0,
                u32::MAX / 4,
            )?
            .reply()?;
        Ok((reply.type_, reply.value))
    }

    fn silent(&self) -> Error {
        match &self.broken {
            Some(why) => failed(std::io::ErrorKind::ConnectionAborted, why),
            None => failed(
                std::io::ErrorKind::TimedOut,
                format!(
                    "the program holding it did not answer within {} s",
                    READ_TIMEOUT.as_secs()
                ),
            ),
        }
    }
}

/// Targets ICCCM defines for every owner, not contents.
const NOT_CONTENTS: [&str; 6] = [
    "TARGETS",
    "TIMESTAMP",
    "MULTIPLE",
    "SAVE_TARGETS",
    "DELETE",
    "INSERT_SELECTION",
];

/// The owner's offer, read through the worker.
struct Reader<'a> {
    worker: &'a mut Worker,
    time: Timestamp,
    names: Vec<(String, Atom)>,
}

impl Source for Reader<'_> {
    fn formats(&mut self) -> Result<Vec<String>, Error> {
        let targets = self.worker.atoms.TARGETS;
        let atoms: Vec<Atom> = match self.worker.convert(targets, self.time)? {
            Some((_, bytes)) => bytes
                .chunks_exact(4)
                .map(|b| u32::from_ne_bytes([b[0], b[1], b[2], b[3]]))
                .collect(),
            // An owner without TARGETS (very old programs): text is worth a try.
            None => vec![self.intern(formats::UTF8_STRING)?, AtomEnum::STRING.into()],
        };
        let conn = &self.worker.conn;
        let x = |e: ReplyError| failed(std::io::ErrorKind::ConnectionAborted, e);
        let cookies = atoms
            .iter()
            .map(|&atom| conn.get_atom_name(atom))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| x(e.into()))?;
        for (cookie, atom) in cookies.into_iter().zip(atoms) {
            // An atom the owner made up and the server does not know is left out.
            if let Ok(reply) = cookie.reply() {
                let name = String::from_utf8_lossy(&reply.name).into_owned();
                if !NOT_CONTENTS.contains(&name.as_str()) {
                    self.names.push((name, atom));
                }
            }
        }
        Ok(self.names.iter().map(|(name, _)| name.clone()).collect())
    }

    fn get(&mut self, format: &str) -> Result<Option<Vec<u8>>, Error> {
        let atom = match self.names.iter().find(|(name, _)| name == format) {
            Some((_, atom)) => *atom,
            None => self.intern(format)?,
        };
        Ok(self
            .worker
            .convert(atom, self.time)?
            .map(|(_, bytes)| bytes))
    }
}

impl Reader<'_> {
    fn intern(&self, name: &str) -> Result<Atom, Error> {
        self.worker
            .intern(&[name])
            .map(|atoms| atoms[0])
            .map_err(|e| failed(std::io::ErrorKind::ConnectionAborted, e))
    }
}

#[cfg(test)]
mod tests {
    use super::chunk_limit;

    #[test]
    fn pieces_fit_the_server_and_stay_small() {
        assert_eq!(chunk_limit(16 * 1024 * 1024), 256 * 1024);
        assert_eq!(chunk_limit(262_140), 262_076);
        assert_eq!(chunk_limit(100), 1024);
    }
}
