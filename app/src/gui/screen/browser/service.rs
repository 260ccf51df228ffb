//! What the listing service says about the pane's folder, and how the pane follows it:
//! batches while loading, the complete listing, live changes (the selection is kept by name),
//! a folder that is gone (the pane moves to the parent the service names), a failure.

use std::sync::Arc;

use ferry_core::dirs::DirEvent;
use ferry_core::entry;
use iced::Task;

use super::history::{Nav, Place};
use super::{Browser, Contents, Event, Filter, Listing, Message, Renaming, Selection};
use crate::gui::format;
use crate::gui::screen::Ctx;
use crate::gui::widget::list::top_of;

impl Browser {
    pub(super) fn on_dir_event(
        &mut self,
        event: DirEvent,
        ctx: &Ctx<'_>,
    ) -> (Task<Message>, Option<Event>) {
        if event.view() != self.view_id || event.generation() != self.generation {
            return (Task::none(), None);
        }
        match event {
            DirEvent::Batch { entries, .. } => {
                // After the first complete listing, a refresh's batches are not shown: the old
                // complete listing stays until the new one is done.
                if let Listing::Loading(contents) = &mut self.listing {
                    contents.append(&entries, self.show_hidden);
                    self.rows_arrived();
                }
                (Task::none(), None)
            }
            DirEvent::Loaded { listing, order, .. } => {
                let entries = listing.len();
                let shown = self.show(listing, order);
                self.listing_complete(entries);
                shown
            }
            DirEvent::Changed { listing, order, .. } => self.show(listing, order),
            DirEvent::Gone {
                renamed: Some(renamed),
                ..
            } => self.followed(Place::new(renamed), ctx),
            DirEvent::Gone { path, nearest, .. } => {
                let Some(parent) = nearest else {
                    return (Task::none(), None);
                };
                let (task, event) = self.followed(Place::new(parent.clone()), ctx);
                // What is under the gone folder's name there now is another item (the folder
                // moved away and one made in its place): neither selected nor on the way
                // back down, where Delete trashed it unseen.
                self.focus_on_load = None;
                self.trail = None;
                self.notice = Some(gone_notice(&path, &parent));
                (task, event)
            }
            DirEvent::Failed { error, .. } => {
                self.listing = Listing::Failed(error);
                self.selection = Selection::default();
                self.revision = self.revision.wrapping_add(1);
                self.hovered = None;
                self.timing = None;
                (Task::none(), None)
            }
        }
    }

    /// Shows `place` in place of the folder that went, keeping a path being typed in the
    /// location field: the user is on the way elsewhere, and a path checked as the folder
    /// went must still be opened, not dropped with the field.
    fn followed(&mut self, place: Place, ctx: &Ctx<'_>) -> (Task<Message>, Option<Event>) {
        let editing = self.editing.take();
        let followed = self.navigated(place, Nav::Replace, ctx);
        self.editing = editing;
        followed
    }

    /// The rows after `focused`, nearest first, a few, with the listing that names them:
    /// where the keyboard goes on if the focused item goes. Entry numbers only, read by name
    /// only when the focused item is gone.
    fn rows_after_focus(&self, focused: Option<usize>) -> Option<RowsAfter> {
        let (row, contents) = (focused?, self.listing.contents()?);
        let rows = contents.rows().get(row + 1..).unwrap_or_default();
        Some(RowsAfter {
            entries: contents.shared_entries(),
            rows: rows.iter().take(NEXT_ROWS).copied().collect(),
        })
    }

    /// Shows a complete listing, keeping the selection by name; says so when the item being
    /// renamed went.
    fn show(
        &mut self,
        entries: Arc<entry::Listing>,
        order: Arc<[u32]>,
    ) -> (Task<Message>, Option<Event>) {
        let filter = self.filter.as_deref().and_then(Filter::new);
        let resorted = std::mem::take(&mut self.reveal_when_sorted);
        // What the view stays on when rows come and go above it (not after a new sort, which
        // brings the focused item into view instead).
        let anchor = (!resorted).then(|| self.scroll_anchor()).flatten();
        // Where the focus was, for when its item is gone (deleted or renamed elsewhere): the
        // keyboard goes on from there, as in Dolphin, where Down went to the first row.
        let focused_row = self.focused_row();
        let after_focus = self.rows_after_focus(focused_row);
        let focus_selected = (self.selection.focus()).is_some_and(|f| self.selection.contains(f));
        let was_loading = matches!(self.listing, Listing::Loading(_));
        // The rows of the listing replaced are not read again (the selection is carried over
        // by the entries).
        let spare = match &mut self.listing {
            Listing::Loaded(old) => old.take_rows(),
            _ => Vec::new(),
        };
        let contents = Contents::sorted_into(entries, order, self.show_hidden, filter, spare);
        self.selection = match self.listing.contents() {
            Some(old) => self.selection.carry_over(old.entries(), contents.entries()),
            None => Selection::default(),
        };
        if self.selection.focus().is_none()
            && let Some(row) = focused_row
        {
            // The next item that stays (a delete of many from a shell shifts every row after
            // them), else the row where it was, else the last.
            let rows = contents.rows();
            let next = after_focus.and_then(|after| after.first_listed(&contents));
            if let Some(&entry) = next.as_ref().or(rows.get(row)).or(rows.last()) {
                // The selection the user trashed or deleted gone with it: the next one is
                // selected, as in Dolphin, so that Delete again goes on (it did nothing, the
                // next row only focused).
                let deleted = std::mem::take(&mut self.select_next_when_gone);
                match deleted && focus_selected && self.selection.count() == 0 {
                    true => self.selection.select_only(entry),
                    false => self.selection.focus_on(entry),
                }
            }
        }
        let focus = self.focus_on_load.take().and_then(|name| {
            let row = contents.row_named(name.as_encoded_bytes())?;
            Some((row, contents.rows()[row]))
        });
        // The rename editor stays on its entry, wherever the change moved it. Gone (renamed,
        // moved or deleted by another program), it closes, and says so: the editor vanished
        // silently, and the rest of the name typed went to type-ahead, Enter opening a file.
        let mut notice = None;
        if let Some(renaming) = &mut self.renaming {
            // By name and inode: another item under its name (the item moved away and a new
            // one made) is not the one to rename, and Enter renamed it.
            let ino_of = |row: usize| {
                let entry = contents.rows()[row] as usize;
                contents.entries().get(entry).map(|e| e.ino())
            };
            let row = contents
                .row_named(renaming.original.as_encoded_bytes())
                .filter(|&row| ino_of(row) == Some(renaming.ino))
                // Renamed by another program: the editor follows it, as Dolphin's does, and
                // what is typed renames it from its new name.
                .or_else(|| {
                    let known = renaming.ino != 0;
                    (0..contents.rows().len())
                        .find(|&row| known && ino_of(row) == Some(renaming.ino))
                });
            match row {
                Some(row) => {
                    let entry = contents.rows()[row];
                    let item = contents.entries().entry(entry as usize);
                    // Nothing typed yet: the editor shows the new name (Enter renamed it
                    // back to the old one).
                    if item.name() != renaming.original {
                        // The selection went with its old name.
                        self.selection.select_only(entry);
                        match renaming.text == renaming.name_text.shown {
                            true => {
                                *renaming = Renaming {
                                    slot: renaming.slot,
                                    ..Renaming::of(entry, item)
                                }
                            }
                            false => renaming.original = item.name().to_owned(),
                        }
                    }
                    renaming.entry = entry;
                }
                None => {
                    notice = Some(Event::Notice(format!(
                        "“{}” was renamed, moved or deleted elsewhere, so the name typed was \
                         not given.",
                        format::shown_name(&renaming.original)
                    )));
                    self.renaming = None;
                }
            }
        }
        self.listing = Listing::Loaded(contents);
        let check_trail = self.check_trail();
        let rows_changed = self.rows_changed();
        let reveal = match (focus, anchor) {
            (Some((row, entry)), _) => {
                self.selection.select_only(entry);
                self.reveal(row, true)
            }
            (None, Some(anchor)) => self.keep_anchored(&anchor),
            (None, None) => Task::none(),
        };
        let task = Task::batch([
            check_trail,
            rows_changed,
            reveal,
            self.select_if_pending(),
            self.type_ahead_after_loading(),
            // Chosen while the folder loaded (a click, an arrow key), the focused item moves
            // when the folder is sorted whole: it is brought into view, where a click left it
            // 34,000 rows below the top shown. So it is when the user sorts it otherwise.
            if was_loading || resorted {
                self.reveal_focus()
            } else {
                Task::none()
            },
        ]);
        (task, notice)
    }
}

/// Rows of the view that it stays on when rows come and go above them (another program adds
/// or deletes files): the focused row if it is in view, then the rows in view from the top,
/// each by name with how far its line's top is below the viewport's top. The first still
/// listed keeps its place on screen, as Dolphin's view keeps it: the list slid under a still
/// viewport, and the selected file went out of sight.
struct Anchor {
    rows: Vec<(Vec<u8>, f32)>,
}

impl Browser {
    /// What the view stays on across a live change; `None` at the top of the list with the
    /// focus out of view (new items at the top are then shown), or while loading.
    fn scroll_anchor(&self) -> Option<Anchor> {
        let Listing::Loaded(contents) = &self.listing else {
            return None;
        };
        let (line_h, per_line) = (self.line_height(), self.per_line());
        let focused = (self.focused_row())
            .filter(|&row| self.scroll.reveal(row / per_line, line_h).is_none());
        if focused.is_none() && self.scroll.offset_y <= 0.0 {
            return None;
        }
        let top = self.scroll.row_under(0.0, line_h) * per_line;
        let in_view = top..top + (self.scroll.page(line_h) + 1) * per_line;
        let rows = (focused.into_iter().chain(in_view))
            .filter_map(|row| {
                let &entry = contents.rows().get(row)?;
                let name = contents
                    .entries()
                    .entry(entry as usize)
                    .name_bytes()
                    .to_vec();
                Some((name, top_of(row / per_line, line_h) - self.scroll.offset_y))
            })
            .collect();
        Some(Anchor { rows })
    }

    /// Scrolls so that the first row of `anchor` still listed is where it was on screen.
    fn keep_anchored(&mut self, anchor: &Anchor) -> Task<Message> {
        let Some(contents) = self.listing.contents() else {
            return Task::none();
        };
        let names = anchor.rows.iter().map(|(name, _)| name.as_slice());
        let Some((i, row)) = first_still_listed(contents, names) else {
            return Task::none();
        };
        let below_top = anchor.rows[i].1;
        let (line_h, per_line) = (self.line_height(), self.per_line());
        let lines = contents.rows().len().div_ceil(per_line);
        let end = (top_of(lines, line_h) - self.scroll.viewport_h).max(0.0);
        let offset = (top_of(row / per_line, line_h) - below_top).clamp(0.0, end);
        if (offset - self.scroll.offset_y).abs() < 0.5 {
            return Task::none();
        }
        self.scroll_to(offset)
    }
}

/// What a pane says when its folder `was` is gone and it shows `now` instead (also a tab of
/// the last session whose folder went while Ferry was closed).
pub fn gone_notice(was: &std::path::Path, now: &std::path::Path) -> String {
    format!(
        "“{}” was moved or deleted; showing {} instead.",
        format::display_name(was),
        now.display()
    )
}

/// How many rows after the focused one are remembered at each change of the folder, to find
/// the next that stays when the focused item goes.
const NEXT_ROWS: usize = 128;

/// Rows after the focused one, as entries of the listing they were read from.
struct RowsAfter {
    entries: Arc<entry::Listing>,
    rows: Vec<u32>,
}

impl RowsAfter {
    /// The entry of `contents` showing the first of these rows (nearest first) still there.
    fn first_listed(&self, contents: &Contents) -> Option<u32> {
        let names = (self.rows.iter()).map(|&e| self.entries.entry(e as usize).name_bytes());
        let (_, row) = first_still_listed(contents, names)?;
        Some(contents.rows()[row])
    }
}

/// The first of `names` that `contents` shows: its place among `names`, and its row. One
/// pass over the rows, however many they are and however many of `names` went.
fn first_still_listed<'a>(
    contents: &Contents,
    names: impl Iterator<Item = &'a [u8]>,
) -> Option<(usize, usize)> {
    let wanted: std::collections::HashMap<&[u8], usize> =
        names.enumerate().map(|(i, name)| (name, i)).collect();
    if wanted.is_empty() {
        return None;
    }
    (contents.rows().iter().enumerate())
        .filter_map(|(row, &e)| {
            let name = contents.entries().entry(e as usize).name_bytes();
            wanted.get(name).map(|&i| (i, row))
        })
        .min_by_key(|&(i, _)| i)
}
