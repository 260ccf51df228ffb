//! Geometry of the icon grid: fixed-size cells filling rows as wide as the pane. The grid is
//! windowed like the list ([`list`](super::list)), with a row of cells as one row, so a frame
//! builds only the cells in view.

use iced::Rectangle;

/// The grid's cell size and how many fit across.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Grid {
    /// Cell width.
    pub cell_w: f32,
    /// Cell height (a row's height).
    pub cell_h: f32,
    /// Cells per row (at least one).
    pub columns: usize,
}

impl Grid {
    /// The grid for icons `icon` pixels big in a pane `width` wide.
    pub fn new(icon: f32, width: f32) -> Grid {
        let cell_w = (icon + 48.0).max(96.0);
        // The icon, then two lines of name, with padding.
        let cell_h = icon + 64.0;
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // clamped, floored
        let columns = ((width.max(0.0) / cell_w).floor() as usize).max(1);
        Grid {
            cell_w,
            cell_h,
            columns,
        }
    }

    /// Rows of cells for `len` items.
    pub fn rows(&self, len: usize) -> usize {
        len.div_ceil(self.columns)
    }

    /// The items (by position) whose cells meet `rect`, in content coordinates.
    pub fn items_in(&self, rect: Rectangle, len: usize) -> Vec<usize> {
        let rows = cells(rect.y, rect.height, self.cell_h, self.rows(len));
        let columns = cells(rect.x, rect.width, self.cell_w, self.columns);
        let mut items = Vec::new();
        for row in rows {
            for column in columns.clone() {
                let item = row * self.columns + column;
                if item < len {
                    items.push(item);
                }
            }
        }
        items
    }
}

/// The cells of `size` (of which there are `count`) that the span `start..start + extent`
/// meets.
fn cells(start: f32, extent: f32, size: f32, count: usize) -> std::ops::Range<usize> {
    let end = start + extent;
    if end < 0.0 || count == 0 {
        return 0..0;
    }
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // clamped, floored
    let cell = |v: f32| (v.max(0.0) / size).floor() as usize;
    let first = cell(start);
    let last = cell(end).min(count - 1);
    if first > last { 0..0 } else { first..last + 1 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_fill_the_width() {
        let grid = Grid::new(64.0, 700.0);
        assert_eq!((grid.cell_w, grid.cell_h), (112.0, 128.0));
        assert_eq!(grid.columns, 6);
        assert_eq!(grid.rows(13), 3);
        assert_eq!(Grid::new(64.0, 50.0).columns, 1, "at least one");
    }

    #[test]
    fn a_band_selects_the_cells_it_touches() {
        let grid = Grid::new(64.0, 700.0); // 6 columns of 112 x 128
        let band = Rectangle {
            x: 100.0,
            y: 120.0,
            width: 130.0,
            height: 20.0,
        };
        let items = grid.items_in(band, 100);
        assert_eq!(items, vec![0, 1, 2, 6, 7, 8]);
        // Past the last item: nothing beyond it.
        let items = grid.items_in(band, 7);
        assert_eq!(items, vec![0, 1, 2, 6]);
        // Above the content: nothing.
        let above = Rectangle {
            y: -50.0,
            height: 10.0,
            ..band
        };
        assert!(grid.items_in(above, 100).is_empty());
    }
}
