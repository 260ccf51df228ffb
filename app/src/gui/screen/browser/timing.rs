//! Timing of navigations for the log (`RUST_LOG=ferry=info`): one line per folder opened,
//! `navigate <path>: first rows <ms> ms, complete <ms> ms, <N> entries`, where "first rows" is
//! the first frame that showed entries of the new folder (the window tells each pane when a
//! frame was drawn, while one waits for it).

use std::time::{Duration, Instant};

use super::Browser;

/// How long a navigation took, for the `navigate` timing log line.
#[derive(Debug, Clone)]
pub(super) struct NavTiming {
    started: Instant,
    /// The first frame that showed entries of the folder.
    first_rows: Option<Duration>,
    /// Rows were set and a frame is awaited to show them.
    awaiting_frame: bool,
    /// The complete listing arrived: when, and how many entries.
    complete: Option<(Duration, usize)>,
}

impl Browser {
    /// True when rows were set and the frame showing them is awaited for the timing log.
    pub fn awaits_frame(&self) -> bool {
        self.timing.as_ref().is_some_and(|t| t.awaiting_frame)
    }

    /// A frame was drawn: the first one after rows were set ends the "first rows" time.
    pub fn frame_drawn(&mut self) {
        if let Some(timing) = &mut self.timing
            && timing.awaiting_frame
        {
            timing.awaiting_frame = false;
            timing.first_rows.get_or_insert(timing.started.elapsed());
            self.log_navigation();
        }
    }

    /// Entries of a new folder are shown: the next frame ends the "first rows" time.
    pub(super) fn rows_arrived(&mut self) {
        let shown = self
            .listing
            .contents()
            .is_some_and(|c| !c.rows().is_empty());
        if let Some(timing) = &mut self.timing
            && timing.first_rows.is_none()
            && shown
        {
            timing.awaiting_frame = true;
        }
    }

    /// The complete listing of `entries` entries arrived.
    pub(super) fn listing_complete(&mut self, entries: usize) {
        if let Some(timing) = &mut self.timing {
            timing
                .complete
                .get_or_insert((timing.started.elapsed(), entries));
        }
        self.rows_arrived();
        self.log_navigation();
    }

    /// Logs `navigate <path>: first rows <ms> ms, complete <ms> ms, <N> entries` once both
    /// are known (an empty folder has no first rows).
    pub(super) fn log_navigation(&mut self) {
        let Some(timing) = &self.timing else {
            return;
        };
        let Some((complete, entries)) = timing.complete else {
            return;
        };
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        let first = match timing.first_rows {
            Some(first) => format!("{:.1} ms", ms(first)),
            None if self.listing.contents().is_none_or(|c| c.rows().is_empty()) => {
                "none (nothing to show)".to_owned()
            }
            None => return,
        };
        tracing::info!(
            target: "ferry",
            "navigate {}: first rows {first}, complete {:.1} ms, {entries} entries",
            self.path.display(),
            ms(complete)
        );
        self.timing = None;
    }
}

impl NavTiming {
    pub(super) fn start() -> Self {
        NavTiming {
            started: Instant::now(),
            first_rows: None,
            awaiting_frame: false,
            complete: None,
        }
    }
}
