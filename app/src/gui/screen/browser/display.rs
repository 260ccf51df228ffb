//! How the pane shows its folder: hidden files, the filter, sort, view mode and zoom (each
//! chosen here is remembered by the window for the folder, see [`Event`]).

use ferry_core::sort::SortSpec;
use iced::Task;

use super::{Browser, Event, Filter, ICON_SIZES, Listing, Message, details};
use crate::gui::screen::Ctx;
use crate::gui::settings::ViewMode;

impl Browser {
    pub(super) fn set_show_hidden(&mut self, show: bool) -> Task<Message> {
        if show == self.show_hidden {
            return Task::none();
        }
        self.show_hidden = show;
        let (Listing::Loading(contents) | Listing::Loaded(contents)) = &mut self.listing else {
            return Task::none();
        };
        contents.set_show_hidden(show);
        let rows_changed = self.rows_changed();
        let typed = match self.typed_hidden.take().filter(|_| show) {
            Some(name) => {
                self.notice = None;
                self.select_when_listed([name])
            }
            None => Task::none(),
        };
        Task::batch([rows_changed, self.reveal_focus(), typed])
    }

    pub(super) fn set_filter(&mut self, text: Option<String>) -> Task<Message> {
        let filter = text.as_deref().and_then(Filter::new);
        self.filter = text;
        let show_hidden = self.show_hidden;
        if let Listing::Loading(contents) | Listing::Loaded(contents) = &mut self.listing
            && contents.filter() != filter.as_ref()
        {
            contents.set_filter(filter, show_hidden);
            let rows_changed = self.rows_changed();
            return Task::batch([rows_changed, self.reveal_focus()]);
        }
        Task::none()
    }

    /// The rows were rebuilt: only shown entries stay selected, row positions drawn before
    /// mean nothing now, and the list scrolls back within its rows if it is now past them.
    pub(super) fn rows_changed(&mut self) -> Task<Message> {
        let Some(contents) = self.listing.contents() else {
            return Task::none();
        };
        // Each selected entry is checked by itself: no set of every row at every change.
        self.selection.retain(|e| contents.shows(e));
        self.revision = self.revision.wrapping_add(1);
        self.hovered = None;
        // Scrolled past the end of a list that shrank (another program deleted most of the
        // folder, a filter), the list built no row at all: a blank pane that stayed blank.
        let lines = contents.rows().len().div_ceil(self.per_line());
        let height = self.scroll.viewport_h.min(self.bounds.height);
        match self.scroll.back_within(lines, self.line_height(), height) {
            Some(offset) => self.scroll_to(offset),
            None => Task::none(),
        }
    }

    pub(super) fn set_sort(
        &mut self,
        sort: SortSpec,
        ctx: &Ctx<'_>,
    ) -> (Task<Message>, Option<Event>) {
        self.sort = sort;
        self.reveal_when_sorted = true;
        ctx.dirs.resort(self.view_id, sort);
        (Task::none(), Some(Event::SortChosen(sort)))
    }

    /// Shows the folder as `mode` and `sort`, chosen for it in another pane showing it too.
    pub fn follow_view(
        &mut self,
        (mode, sort): (ViewMode, SortSpec),
        ctx: &Ctx<'_>,
    ) -> Task<Message> {
        if sort != self.sort {
            self.sort = sort;
            ctx.dirs.resort(self.view_id, sort);
        }
        if mode == self.mode {
            return Task::none();
        }
        self.set_mode(mode).0
    }

    pub(super) fn set_mode(&mut self, mode: ViewMode) -> (Task<Message>, Option<Event>) {
        self.mode = mode;
        self.revision = self.revision.wrapping_add(1);
        self.hovered = None;
        (self.reveal_focus(), Some(Event::ModeChosen(mode)))
    }

    /// Steps the current view's icon size `by` (0: back to the default).
    pub(super) fn zoom(&self, by: i32) -> Option<Event> {
        let (sizes, current, default): (&[u16], u16, u16) = match self.mode {
            ViewMode::Icons => (&ICON_SIZES, self.icon_size, 64),
            ViewMode::Details => (&details::ICON_SIZES, self.details_icon, 22),
        };
        let at = sizes.iter().position(|&s| s >= current).unwrap_or(0);
        let size = match by {
            0 => default,
            1 => sizes[(at + 1).min(sizes.len() - 1)],
            _ => sizes[at.saturating_sub(1)],
        };
        (size != current).then_some(Event::Zoomed(self.mode, size))
    }
}
