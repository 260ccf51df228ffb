//! The window's own costs, for `ferry bench`. Here: what a frame of a pane costs on a huge
//! folder, `update` of a scroll message plus `view` of the pane, in both views, scrolled to
//! the middle, with a large selection, built in memory (no listing service, no disk), so it
//! measures the window's own work, not the file system's. In [`window`]: the window's job
//! path without a window, frames while a copy runs, and frames during a drag.

pub mod window;

use std::ffi::OsStr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ferry_core::dirs::{DirEvent, ViewId};
use ferry_core::entry::{self, Kind, Meta};
use ferry_core::sort::SortSpec;
use iced::{Point, Rectangle, Size};

use super::screen::Ctx;
use super::screen::browser::{self, Browser, Dirs};
use super::settings::{Settings, ViewMode};
use super::shortcut::{PaneAction, Step};

/// The cost of one frame in one view.
#[derive(Debug, Clone)]
pub struct FrameCost {
    /// Which view.
    pub mode: ViewMode,
    /// Median of the frames measured.
    pub median: Duration,
    /// The heaviest frame.
    pub worst: Duration,
    /// Entries shown, and selected.
    pub entries: usize,
    /// Entries selected.
    pub selected: usize,
}

/// A listing service that answers nothing: the bench feeds the listing itself.
struct Silent;

impl Dirs for Silent {
    fn open(&self, _: ViewId, _: PathBuf, _: SortSpec) -> u64 {
        1
    }
    fn resort(&self, _: ViewId, _: SortSpec) {}
    fn refresh(&self, _: ViewId) {}
    fn close(&self, _: ViewId) {}
}

/// Measures `frames` frames of a pane showing `entries` files with `selected` of them
/// selected, in the details view and in the icon view.
pub fn frame_cost(entries: usize, selected: usize, frames: usize) -> Vec<FrameCost> {
    let settings = Settings::default();
    let ctx = Ctx {
        dirs: &Silent,
        modifiers: iced::keyboard::Modifiers::empty(),
        home: None,
        settings: &settings,
    };
    let mut browser = Browser::new(1, PathBuf::from("/bench"), &ctx);
    let mut listing = entry::Listing::new(PathBuf::from("/bench"));
    for i in 0..entries {
        let meta = Meta {
            kind: Kind::File,
            size: (i as u64) * 37,
            mtime_sec: 1_700_000_000 + i as i64,
            mode: 0o100_644,
            ..Meta::default()
        };
        listing.push(OsStr::new(&format!("photo-{i:06}.jpg")), meta);
    }
    let order: Arc<[u32]> = (0..u32::try_from(entries).unwrap_or(u32::MAX)).collect();
    let loaded = DirEvent::Loaded {
        view: 1,
        generation: browser.generation(),
        listing: Arc::new(listing),
        order,
        from_cache: true,
    };
    let update = |browser: &mut Browser, message| {
        let _ = browser.update(message, &ctx);
    };
    update(&mut browser, browser::Message::Dir(loaded));
    let bounds = Rectangle::new(Point::new(200.0, 90.0), Size::new(880.0, 600.0));
    update(&mut browser, browser::Message::Resized(bounds));
    // A page as tall as the selection, so one Shift+PageDown selects it.
    let mut costs = Vec::new();
    for mode in [ViewMode::Details, ViewMode::Icons] {
        update(&mut browser, browser::Message::SetMode(mode));
        let line_h = match mode {
            ViewMode::Details => 30.0,
            ViewMode::Icons => 128.0,
        };
        let per_line = match mode {
            ViewMode::Details => 1.0,
            ViewMode::Icons => 7.0,
        };
        #[allow(clippy::cast_precision_loss)] // a pixel height
        let page = selected as f32 / per_line * line_h;
        update(
            &mut browser,
            browser::Message::Scrolled {
                offset_y: 0.0,
                viewport_h: page,
            },
        );
        update(&mut browser, move_to(Step::First, false));
        update(&mut browser, move_to(Step::PageDown, true));
        #[allow(clippy::cast_precision_loss)] // a pixel offset
        let middle = (entries as f32 / per_line / 2.0) * line_h;
        let mut times = Vec::with_capacity(frames);
        for frame in 0..frames {
            #[allow(clippy::cast_precision_loss)] // a few pixels
            let offset_y = middle + (frame % 64) as f32 * 7.0;
            let started = Instant::now();
            update(
                &mut browser,
                browser::Message::Scrolled {
                    offset_y,
                    viewport_h: 600.0,
                },
            );
            let element = browser.view(crate::gui::screen::browser::Look::Active);
            std::hint::black_box(&element);
            drop(element);
            times.push(started.elapsed());
        }
        times.sort();
        costs.push(FrameCost {
            mode,
            median: times[times.len() / 2],
            worst: times[times.len() - 1],
            entries,
            selected: browser.selection().count(),
        });
    }
    costs
}

fn move_to(step: Step, extend: bool) -> browser::Message {
    browser::Message::Action(PaneAction::Move { step, extend })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_frame_bench_selects_what_it_says_in_both_views() {
        let costs = frame_cost(5_000, 500, 3);
        assert_eq!(costs.len(), 2);
        for cost in &costs {
            assert_eq!(cost.entries, 5_000);
            // A page is rounded to whole rows (and rows of cells) of the viewport.
            assert!((450..=560).contains(&cost.selected), "{cost:?}");
        }
    }
}
