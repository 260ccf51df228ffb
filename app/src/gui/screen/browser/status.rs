//! The status bar: how many items, folders and selected; what is hidden or still loading.

use iced::widget::{container, row, space};
use iced::{Alignment, Element, Fill};

use super::view::{SMALL, small};
use super::{Browser, Contents, Listing, Message};
use crate::gui::{fit, format};

/// The bar's padding left and right, together.
const BAR_PADDING: f32 = 28.0;
/// The least room kept between the bar's left and right parts.
const BAR_GAP: f32 = 24.0;
use crate::gui::style;

impl Browser {
    /// The bar under the list.
    pub(super) fn status_bar(&self) -> Element<'_, Message> {
        let (left, right) = match &self.listing {
            Listing::Failed(_) => (String::new(), String::new()),
            // Nothing read yet: not "Empty folder" beside "Loading…" (a folder holding a mount
            // that no longer answers stayed so).
            Listing::Loading(contents) if contents.entries().is_empty() => {
                (String::new(), "Loading…".to_owned())
            }
            Listing::Loading(contents) => {
                let right = "Loading…".to_owned();
                (self.counts(contents, self.name_room(&right)), right)
            }
            Listing::Loaded(contents) => {
                let hidden = match (contents.hidden(), contents.unfinished()) {
                    (0, _) => String::new(),
                    // All a job's items in the making (see the empty pane's words).
                    (n, unfinished) if unfinished == n => {
                        format!("{} unfinished", format::count(n))
                    }
                    (n, _) => format!("{} hidden", format::count(n)),
                };
                (self.counts(contents, self.name_room(&hidden)), hidden)
            }
        };
        // While a rename is refused, the reason takes the left of the bar; a name that
        // hides the item says so.
        let renaming = self.renaming.as_ref();
        let left: iced::Element<'_, Message> = match renaming.and_then(|r| r.problem.as_deref()) {
            Some(problem) => small(problem).style(style::danger_text).into(),
            None => match renaming.and_then(|r| r.note()) {
                Some(note) => small(note).style(style::dim_text).into(),
                None => small(left).into(),
            },
        };
        let bar = row![left, space::horizontal(), small(right)].align_y(Alignment::Center);
        // Clipped: in a narrow split, the left pane's counts were drawn over the right's.
        container(bar)
            .padding([5.0, BAR_PADDING / 2.0])
            .width(Fill)
            .clip(true)
            .style(style::chrome)
            .into()
    }
}

impl Browser {
    /// How wide the one name selected may be drawn beside `right` in the bar: a long one
    /// was cut mid-character and pushed the bar's right part out of it.
    fn name_room(&self, right: &str) -> f32 {
        if self.bounds.width <= 0.0 {
            return f32::INFINITY; // not laid out yet
        }
        let around = fit::width("“” selected (999.9 MB)", SMALL) + fit::width(right, SMALL);
        (self.bounds.width - BAR_PADDING - BAR_GAP - around).max(fit::width("ab…yz", SMALL))
    }

    /// What the shown rows are, as Dolphin counts them: "2 folders, 14 files" (no "0
    /// folders"), "Empty folder"; with a selection, "“a.txt” selected (4 bytes)" or "3 of 16
    /// selected (2.0 MB)": the size is that of the files selected (a folder's is not known
    /// without going through it), as Nautilus and Dolphin show it; a link to a file counts the
    /// file's. Short, so that a narrow pane of a split shows it whole.
    fn counts(&self, contents: &Contents, name_room: f32) -> String {
        let rows = contents.rows().len();
        let selected = self.selection.count();
        let bytes = || {
            (self.selected_files_bytes(contents))
                .map_or_else(String::new, |b| format!(" ({})", format::size(b)))
        };
        if selected == 1
            && let Some(name) = (self.selection.iter().next())
                .and_then(|e| contents.entries().get(e as usize))
                .map(|e| format::shown_name(e.name()).into_owned())
        {
            let name = fit::middle(name.into(), name_room, SMALL);
            return format!("“{name}” selected{}", bytes());
        }
        if selected > 0 {
            let of = format::count(rows);
            return format!("{} of {of} selected{}", format::count(selected), bytes());
        }
        let (folders, files) = (contents.folders(), rows - contents.folders());
        match (folders, files) {
            (0, 0) if contents.hidden() + contents.filtered_out() == 0 => "Empty folder".to_owned(),
            (0, 0) => "Nothing shown".to_owned(),
            (folders, files) => format::folders_and_files(folders, files, ", "),
        }
    }

    /// The left of the bar beside "1 hidden", as drawn.
    #[cfg(test)]
    pub(super) fn counts_for_test(&self, contents: &Contents) -> String {
        self.counts(contents, self.name_room("1 hidden"))
    }

    /// The bytes of the files among the selected entries; `None` if none is a file.
    fn selected_files_bytes(&self, contents: &Contents) -> Option<u64> {
        let entries = contents.entries();
        let key = (self.selection.stamp(), std::ptr::from_ref(entries) as usize);
        match self.selected_bytes.get() {
            Some((stamp, listing, bytes)) if (stamp, listing) == key => bytes,
            _ => {
                let files = (self.selection.iter())
                    .filter_map(|e| entries.get(e as usize))
                    .filter(|e| !e.is_dir_like() && !e.stat_failed());
                let bytes = files.fold(None, |sum: Option<u64>, e| {
                    Some(sum.unwrap_or(0).saturating_add(e.size()))
                });
                self.selected_bytes.set(Some((key.0, key.1, bytes)));
                bytes
            }
        }
    }
}
