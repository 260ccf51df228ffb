//! Browser tests: UI flows through `iced_test`'s simulator (messages fed back to `update`), and
//! `update` driven directly with the events a `DirService` would send. This module holds the
//! support (a recording `Dirs`, listings, the `Ctx`); the flows are in the files beside it.

mod changes;
mod flows;
mod keyboard;
mod views;

use std::cell::{Cell, RefCell};
use std::ffi::OsStr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::LazyLock;

use ferry_core::dirs::{ChangeSummary, DirEvent, ViewId};
use ferry_core::entry::{self, Kind, Meta};
use ferry_core::sort::SortSpec;
use iced::keyboard::Modifiers;
use iced_test::simulator;

use super::{Browser, Dirs, Event, Listing, Look, Message};
use crate::gui::screen::Ctx;
use crate::gui::settings::Settings;

const VIEW: ViewId = 7;

/// The preferences of a first start.
static DEFAULTS: LazyLock<Settings> = LazyLock::new(Settings::default);

/// What the browser asked of the listing service.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Call {
    Open(PathBuf, SortSpec),
    Resort(SortSpec),
    Refresh,
    Close,
}

/// A `Dirs` that records calls and hands out increasing generations.
#[derive(Default)]
struct Recorder {
    calls: RefCell<Vec<Call>>,
    generation: Cell<u64>,
}

impl Dirs for Recorder {
    fn open(&self, view: ViewId, path: PathBuf, sort: SortSpec) -> u64 {
        assert_eq!(view, VIEW);
        self.calls.borrow_mut().push(Call::Open(path, sort));
        self.generation.set(self.generation.get() + 1);
        self.generation.get()
    }
    fn resort(&self, view: ViewId, sort: SortSpec) {
        assert_eq!(view, VIEW);
        self.calls.borrow_mut().push(Call::Resort(sort));
    }
    fn refresh(&self, view: ViewId) {
        assert_eq!(view, VIEW);
        self.calls.borrow_mut().push(Call::Refresh);
    }
    fn close(&self, view: ViewId) {
        assert_eq!(view, VIEW);
        self.calls.borrow_mut().push(Call::Close);
    }
}

impl Recorder {
    fn last(&self) -> Option<Call> {
        self.calls.borrow().last().cloned()
    }
}

/// What the window passes to `update`, with no modifier held.
fn ctx(dirs: &dyn Dirs) -> Ctx<'_> {
    held(dirs, Modifiers::empty())
}

/// What the window passes to `update` while `modifiers` are held.
fn held(dirs: &dyn Dirs, modifiers: Modifiers) -> Ctx<'_> {
    Ctx {
        dirs,
        modifiers,
        home: None,
        settings: &DEFAULTS,
    }
}

/// A browser on `dir` that has received nothing yet.
fn browser_on(dirs: &Recorder, dir: &str) -> Browser {
    Browser::new(VIEW, PathBuf::from(dir), &ctx(dirs))
}

/// A listing of `dir`; names ending in '/' are folders, sizes are the position.
fn listing(dir: &str, names: &[&str]) -> Arc<entry::Listing> {
    let mut listing = entry::Listing::new(PathBuf::from(dir));
    for (i, name) in names.iter().enumerate() {
        let (name, kind) = match name.strip_suffix('/') {
            Some(name) => (name, Kind::Dir),
            None => (*name, Kind::File),
        };
        let size = u64::try_from(i).unwrap() * 1000;
        listing.push(
            OsStr::new(name),
            Meta {
                kind,
                size,
                mtime_sec: 1_700_000_000,
                ..Meta::default()
            },
        );
    }
    Arc::new(listing)
}

/// The identity order (the test listings are built already sorted).
fn order(listing: &entry::Listing) -> Arc<[u32]> {
    (0..u32::try_from(listing.len()).unwrap()).collect()
}

fn loaded(browser: &Browser, listing: Arc<entry::Listing>) -> DirEvent {
    let order = order(&listing);
    DirEvent::Loaded {
        view: VIEW,
        generation: browser.generation(),
        listing,
        order,
        from_cache: false,
    }
}

fn changed(browser: &Browser, listing: Arc<entry::Listing>) -> DirEvent {
    let order = order(&listing);
    let change = ChangeSummary::default();
    DirEvent::Changed {
        view: VIEW,
        generation: browser.generation(),
        listing,
        order,
        change,
    }
}

/// A live change of the browser's folder to `names`, handed to it.
fn change_to(browser: &mut Browser, dirs: &Recorder, names: &[&str]) {
    let dir = browser
        .path()
        .to_str()
        .expect("test folders are UTF-8")
        .to_owned();
    let event = changed(browser, listing(&dir, names));
    let _ = browser.update(Message::Dir(event), &ctx(dirs));
}

/// A browser on `dir` showing `names`.
fn browser_with(dirs: &Recorder, dir: &str, names: &[&str]) -> Browser {
    let mut browser = browser_on(dirs, dir);
    let event = loaded(&browser, listing(dir, names));
    let _ = browser.update(Message::Dir(event), &ctx(dirs));
    browser
}

/// Feeds every message to `update`, collecting the events it raises.
fn feed(browser: &mut Browser, dirs: &Recorder, messages: Vec<Message>) -> Vec<Event> {
    messages
        .into_iter()
        .filter_map(|m| browser.update(m, &ctx(dirs)).1)
        .collect()
}

/// Feeds every message to `update` while `modifiers` are held.
fn feed_held(browser: &mut Browser, dirs: &Recorder, modifiers: Modifiers, messages: Vec<Message>) {
    for message in messages {
        let _ = browser.update(message, &held(dirs, modifiers));
    }
}

/// Clicks each target in turn on one frame, returning the messages produced.
fn click(browser: &Browser, targets: &[&str]) -> Vec<Message> {
    let mut ui = simulator(browser.view(Look::Alone));
    for target in targets {
        ui.click(*target).unwrap();
    }
    ui.into_messages().collect()
}

/// True when some widget's whole text is `text`.
fn shows(browser: &Browser, text: &str) -> bool {
    simulator(browser.view(Look::Alone)).find(text).is_ok()
}

fn selected_names(browser: &Browser) -> Vec<String> {
    let entries = browser.listing().contents().unwrap().entries();
    let mut names: Vec<String> = browser
        .selection()
        .iter()
        .map(|e| {
            entries
                .entry(e as usize)
                .name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    names
}
