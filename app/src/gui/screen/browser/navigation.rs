//! Moving between folders: a navigation kept in the history, the folder shown and the entry
//! focused when it is listed, a refresh, and opening a row (a folder here, a file elsewhere).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use iced::Task;
use iced::widget::operation::{self, AbsoluteOffset};

use super::history::{Nav, Place};
use super::timing::NavTiming;
use super::{Browser, Contents, Dirs, Event, Listing, Message, Selection};
use crate::gui::bridge;
use crate::gui::screen::Ctx;

impl Browser {
    pub(super) fn navigated(
        &mut self,
        place: Place,
        nav: Nav,
        ctx: &Ctx<'_>,
    ) -> (Task<Message>, Option<Event>) {
        if place.path == self.path && nav == Nav::Push {
            self.editing = None;
            return (Task::none(), None);
        }
        (self.go_to(place, nav, ctx), Some(Event::Navigated))
    }

    /// Cuts the way back down where its folders are no longer there (deleted or renamed by
    /// another program): their crumbs led to "No such folder". The next folder is looked
    /// for in the listing; the ones below it are looked at off the UI thread.
    pub(super) fn check_trail(&mut self) -> Task<Message> {
        let (Some(trail), Some(contents)) = (&self.trail, self.listing.contents()) else {
            return Task::none();
        };
        let Some(next) = (trail.strip_prefix(&self.path).ok()).and_then(|b| b.components().next())
        else {
            return Task::none();
        };
        let name = next.as_os_str().as_encoded_bytes();
        let gone = !(contents.entries().iter()).any(|e| e.name_bytes() == name && e.is_dir_like());
        if gone {
            self.trail = None;
            return Task::none();
        }
        let trail = trail.clone();
        bridge::blocking(move || {
            let there = trail.ancestors().find(|p| p.is_dir()).map(PathBuf::from);
            Message::TrailChecked(trail, there)
        })
    }

    /// The deepest folder of the way back down `trail` still there is `there`.
    pub(super) fn trail_checked(&mut self, trail: &Path, there: Option<PathBuf>) {
        if self.trail.as_deref() == Some(trail) {
            self.trail = there.filter(|t| t.starts_with(&self.path) && *t != self.path);
        }
    }

    /// Shows `place`, focusing its remembered entry once listed; or, coming up into an
    /// ancestor, the folder we came from.
    pub(super) fn go_to(&mut self, place: Place, nav: Nav, ctx: &Ctx<'_>) -> Task<Message> {
        let leaving = Place {
            focus: self.focused_name(),
            path: std::mem::replace(&mut self.path, place.path),
        };
        self.focus_on_load = place.focus.or_else(|| {
            let rest = leaving.path.strip_prefix(&self.path).ok()?;
            Some(rest.components().next()?.as_os_str().to_owned())
        });
        // The deepest folder of this line of folders: the old trail if it goes on below the
        // folder left, else that folder; kept while it lies below the one shown.
        let deepest = match self.trail.take() {
            Some(trail) if trail.starts_with(&leaving.path) => trail,
            _ => leaving.path.clone(),
        };
        self.trail = (deepest.starts_with(&self.path) && deepest != self.path).then_some(deepest);
        self.history.leave(leaving, nav);
        // The breadcrumbs are drawn anew: one named before must not take a drop.
        self.hovered_crumb = None;
        (self.mode, self.sort) = ctx.settings.view_for(&self.path);
        self.generation = ctx.dirs.open(self.view_id, self.path.clone(), self.sort);
        self.listing = Listing::Loading(Contents::empty(self.path.clone()));
        self.revision = self.revision.wrapping_add(1);
        self.selection = Selection::default();
        self.hovered = None;
        self.notice = None;
        self.typed_hidden = None;
        self.editing = None;
        self.filter = None;
        self.band = None;
        self.renaming = None;
        self.select_when_listed = Default::default();
        self.select_next_when_gone = false;
        // What was typed here is not a name to look for there.
        self.typeahead = Default::default();
        self.timing = Some(NavTiming::start());
        self.scroll_to(0.0)
    }

    /// Puts the list's scrollable back at this pane's own offset. iced keeps a scrollable's
    /// offset by its place in the window, not by pane: shown again after another tab's list
    /// or the Trash view was in its place, the list was scrolled as that one had been, its rows
    /// built for its own offset, and looked empty.
    pub fn scroll_as_before<T>(&self) -> Task<T> {
        operation::scroll_to(
            self.list_id(),
            AbsoluteOffset {
                x: None,
                y: Some(self.scroll.offset_y),
            },
        )
    }

    pub(super) fn scroll_to(&mut self, offset_y: f32) -> Task<Message> {
        self.scroll.offset_y = offset_y;
        operation::scroll_to(
            self.list_id(),
            AbsoluteOffset {
                x: None,
                y: Some(offset_y),
            },
        )
    }

    /// The name of the focused entry, if it is shown.
    pub(super) fn focused_name(&self) -> Option<OsString> {
        let entries = self.listing.contents()?.entries();
        Some(
            entries
                .get(self.selection.focus()? as usize)?
                .name()
                .to_owned(),
        )
    }

    pub(super) fn refresh(&mut self, dirs: &dyn Dirs) {
        if let Listing::Failed(_) = self.listing {
            // The service dropped the failed folder: open it afresh (maybe it is readable now).
            self.generation = dirs.open(self.view_id, self.path.clone(), self.sort);
            self.listing = Listing::Loading(Contents::empty(self.path.clone()));
            self.revision = self.revision.wrapping_add(1);
        } else {
            dirs.refresh(self.view_id);
        }
    }

    pub(super) fn open_row(&mut self, row: usize, ctx: &Ctx<'_>) -> (Task<Message>, Option<Event>) {
        let Some((_, entry)) = self.listing.contents().and_then(|c| c.row(row)) else {
            return (Task::none(), None);
        };
        let target = self.path.join(entry.name());
        if entry.is_dir_like() {
            self.navigated(Place::new(target), Nav::Push, ctx)
        } else {
            (Task::none(), Some(Event::OpenFile(target)))
        }
    }

    pub(super) fn row_folder(&self, row: usize) -> Option<PathBuf> {
        let (_, entry) = self.listing.contents()?.row(row)?;
        entry.is_dir_like().then(|| self.path.join(entry.name()))
    }
}
