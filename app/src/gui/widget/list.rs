//! The windowed list: iced 0.14 has no virtualized list, so only the rows in the viewport (plus a
//! little overscan) are built, between two spacers that give the scrollable its full height.
//! The icon grid uses it too, with a row of cells as a row.
//!
//! All rows of a list have one height (which zoom changes); the scroll offset and viewport
//! height come from `scrollable(..).on_scroll` and are kept in [`Scroll`]. Building a frame
//! costs the visible rows, not the folder's size.

use iced::widget::{Column, column, space};
use iced::{Element, Length};

/// Rows built above and below the viewport, so a fast wheel turn does not show a gap before
/// the next frame.
const OVERSCAN: usize = 6;

/// Viewport height assumed before the scrollable has reported one (a tall window's list).
const DEFAULT_VIEWPORT: f32 = 1200.0;

/// Where the list is scrolled to and how much of it shows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scroll {
    /// Distance from the top of the list to the top of the viewport.
    pub offset_y: f32,
    /// Height of the visible part of the list.
    pub viewport_h: f32,
}

impl Default for Scroll {
    fn default() -> Self {
        Self {
            offset_y: 0.0,
            viewport_h: DEFAULT_VIEWPORT,
        }
    }
}

impl Scroll {
    /// The rows `first..last` to build for a list of `len` rows `row_h` high.
    pub fn window(&self, len: usize, row_h: f32) -> std::ops::Range<usize> {
        let first = row_at(self.offset_y, row_h)
            .saturating_sub(OVERSCAN)
            .min(len);
        let shown = rows_in(self.viewport_h, row_h) + 1;
        let last = (row_at(self.offset_y, row_h) + shown + OVERSCAN).min(len);
        first..last
    }

    /// How many whole rows fit in the viewport (at least one): the PageUp/PageDown step.
    pub fn page(&self, row_h: f32) -> usize {
        rows_in(self.viewport_h, row_h).max(1)
    }

    /// The row under `y` pixels below the viewport's top (a pointer position).
    pub fn row_under(&self, y: f32, row_h: f32) -> usize {
        row_at(self.offset_y + y, row_h)
    }

    /// The offset that brings `row` fully into view with the least movement, or `None` when it
    /// is already visible.
    pub fn reveal(&self, row: usize, row_h: f32) -> Option<f32> {
        let top = top_of(row, row_h);
        let bottom = top + row_h;
        if top < self.offset_y {
            Some(top)
        } else if bottom > self.offset_y + self.viewport_h {
            Some((bottom - self.viewport_h).max(0.0))
        } else {
            None
        }
    }

    /// The offset to scroll back to when a list of `len` rows `row_h` high, seen through a
    /// viewport `height` high, now ends above the viewport (it shrank: scrolled past its end,
    /// the list built no row at all); `None` while it does not.
    pub fn back_within(&self, len: usize, row_h: f32, height: f32) -> Option<f32> {
        let max = (top_of(len, row_h) - height).max(0.0);
        (self.offset_y > max).then_some(max)
    }

    /// The offset that puts `row` near the middle of the viewport, or `None` when it is already
    /// visible (used when a folder opens with an entry to focus).
    pub fn center_on(&self, row: usize, row_h: f32) -> Option<f32> {
        self.reveal(row, row_h)
            .map(|_| (top_of(row, row_h) - self.viewport_h / 2.0).max(0.0))
    }
}

/// The pixel offset of the top of `row`.
#[allow(clippy::cast_precision_loss)] // exact for any row count a folder can have
pub fn top_of(row: usize, row_h: f32) -> f32 {
    row as f32 * row_h
}

#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // clamped to >= 0, floored
fn row_at(offset_y: f32, row_h: f32) -> usize {
    (offset_y.max(0.0) / row_h).floor() as usize
}

#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // clamped to >= 0, rounded up
fn rows_in(height: f32, row_h: f32) -> usize {
    (height.max(0.0) / row_h).ceil() as usize
}

/// A column of `len` rows `row_h` high of which only the window for `scroll` is built, by
/// `row(index)`.
pub fn windowed<'a, Message: 'a>(
    len: usize,
    scroll: Scroll,
    row_h: f32,
    row: impl Fn(usize) -> Element<'a, Message>,
) -> Element<'a, Message> {
    let window = scroll.window(len, row_h);
    let above = top_of(window.start, row_h);
    let below = top_of(len - window.end, row_h);
    column![
        space().height(Length::Fixed(above)),
        Column::with_children(window.map(row)),
        space().height(Length::Fixed(below)),
    ]
    .width(Length::Fill)
    .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROW_HEIGHT: f32 = 30.0;

    fn scroll(offset_y: f32, viewport_h: f32) -> Scroll {
        Scroll {
            offset_y,
            viewport_h,
        }
    }

    #[test]
    fn window_covers_viewport_plus_overscan() {
        // 10 rows visible at offset 0: rows 0..10 plus one partial plus overscan.
        assert_eq!(scroll(0.0, 300.0).window(1000, ROW_HEIGHT), 0..17);
        // Scrolled to row 100: overscan above too.
        assert_eq!(scroll(3000.0, 300.0).window(1000, ROW_HEIGHT), 94..117);
        // Clamped at the end and for short lists.
        assert_eq!(scroll(29_700.0, 300.0).window(1000, ROW_HEIGHT), 984..1000);
        assert_eq!(scroll(0.0, 300.0).window(3, ROW_HEIGHT), 0..3);
        assert_eq!(scroll(0.0, 300.0).window(0, ROW_HEIGHT), 0..0);
    }

    #[test]
    fn window_survives_an_offset_past_the_end() {
        // The list shrank under a stale offset: build nothing rather than panic.
        assert_eq!(scroll(90_000.0, 300.0).window(10, ROW_HEIGHT), 10..10);
    }

    #[test]
    fn reveal_moves_the_least() {
        let s = scroll(300.0, 300.0); // rows 10..20 visible
        assert_eq!(s.reveal(12, ROW_HEIGHT), None);
        assert_eq!(s.reveal(9, ROW_HEIGHT), Some(270.0));
        assert_eq!(s.reveal(20, ROW_HEIGHT), Some(330.0));
        assert_eq!(s.page(ROW_HEIGHT), 10);
    }

    #[test]
    fn center_on_only_when_hidden() {
        let s = scroll(0.0, 300.0);
        assert_eq!(s.center_on(3, ROW_HEIGHT), None);
        assert_eq!(s.center_on(100, ROW_HEIGHT), Some(2850.0));
        assert_eq!(s.row_under(45.0, ROW_HEIGHT), 1);
    }
}
