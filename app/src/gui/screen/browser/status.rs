//! The status bar: how many items, folders and selected; what is hidden or still loading.

use iced::widget::{container, row, space};
use iced::{Alignment, Element, Fill};

use super::view::small;
use super::{Browser, Contents, Listing, Message};
use crate::gui::format;
use crate::gui::style;

impl Browser {
    /// The bar under the list.
    pub(super) fn status_bar(&self) -> Element<'_, Message> {
        let (left, right) = match &self.listing {
            Listing::Failed(_) => (String::new(), String::new()),
            Listing::Loading(contents) => (
                counts(contents, self.selection.count()),
                "Loading…".to_owned(),
            ),
            Listing::Loaded(contents) => {
                let hidden = match contents.hidden() {
                    0 => String::new(),
                    n => format!("{} hidden", format::count(n)),
                };
                (counts(contents, self.selection.count()), hidden)
            }
        };
        // While a rename is refused, the reason takes the left of the bar.
        let left: iced::Element<'_, Message> =
            match self.renaming.as_ref().and_then(|r| r.problem.as_deref()) {
                Some(problem) => small(problem).style(style::danger_text).into(),
                None => small(left).into(),
            };
        let bar = row![left, space::horizontal(), small(right)].align_y(Alignment::Center);
        // Clipped: in a narrow split, the left pane's counts were drawn over the right's.
        container(bar)
            .padding([5, 14])
            .width(Fill)
            .clip(true)
            .style(style::chrome)
            .into()
    }
}

/// "N items, M folders, X selected" for the shown rows.
fn counts(contents: &Contents, selected: usize) -> String {
    let mut out = format!(
        "{}, {}",
        format::counted(contents.rows().len(), "item", "items"),
        format::counted(contents.folders(), "folder", "folders")
    );
    if selected > 0 {
        out.push_str(&format!(", {} selected", format::count(selected)));
    }
    out
}
