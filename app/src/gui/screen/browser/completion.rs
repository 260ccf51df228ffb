//! Tab in the location field (see [`crate::gui::completion`]): the folders whose names
//! complete the one being typed, listed under the field and cycled through by more Tabs. The
//! folder is read off the UI thread, or taken from the pane's own listing when it is the
//! folder shown.

use std::ffi::OsString;
use std::path::Path;
use std::sync::Arc;

use ferry_core::Error;
use iced::widget::{Row, container, operation, text};
use iced::{Element, Task};

use super::location::{Editing, resolve};
use super::view::SMALL;
use super::{Browser, Listing, Message};
use crate::gui::bridge;
use crate::gui::completion::{CANDIDATE_GAP, fitting, folder_part, with_real_names};
use crate::gui::screen::Ctx;
use crate::gui::style;

/// The candidate line's height: one line of [`SMALL`] text.
const CANDIDATE_LINE: f32 = SMALL * 1.4;

impl Browser {
    /// Tab: the next candidate when they are listed, or the folders that complete the name
    /// being typed.
    pub(super) fn complete(&mut self, ctx: &Ctx<'_>) -> Task<Message> {
        let Some(editing) = &mut self.editing else {
            return Task::none();
        };
        if let Some(next) = editing.completion.next() {
            editing.text = next;
            return self.show_completion();
        }
        let typed = editing.text.clone();
        let dir_text = folder_part(&typed);
        let dir = resolve(
            if dir_text.is_empty() { "." } else { dir_text },
            &self.path,
            ctx.home,
        );
        // The folder shown is already listed: complete from the pane's own listing.
        if dir == self.path
            && let Listing::Loaded(contents) = &self.listing
        {
            let names: Arc<[OsString]> = contents
                .entries()
                .iter()
                .filter(|e| e.is_dir_like())
                .map(|e| e.name().to_owned())
                .collect();
            self.completed(&typed, &dir, Ok(names));
            return self.show_completion();
        }
        bridge::blocking(move || {
            // A folder whose name is not UTF-8 is typed as shown, with U+FFFD.
            let names = ferry_core::lister::folder_names(&with_real_names(dir.clone()))
                .map(Arc::from)
                .map_err(Arc::new);
            Message::Completed { typed, dir, names }
        })
    }

    /// The folders of `dir` arrived for completing `typed`.
    pub(super) fn completed(
        &mut self,
        typed: &str,
        dir: &Path,
        names: Result<Arc<[OsString]>, Arc<Error>>,
    ) {
        let Some(editing) = &mut self.editing else {
            return;
        };
        if editing.text != typed {
            return; // typed on since: stale
        }
        let names = match names {
            Ok(names) => names,
            Err(error) => {
                editing.problem = Some(format!("Can't read {}: {error}", dir.display()));
                return;
            }
        };
        // Said of an earlier Tab, it stayed under a completion that found a folder.
        editing.problem = None;
        match editing.completion.found(typed, &names) {
            Ok(text) => editing.text = text,
            Err(problem) => editing.problem = Some(problem),
        }
    }

    /// Puts the cursor after the completed text.
    pub(super) fn show_completion(&self) -> Task<Message> {
        operation::move_cursor_to_end(self.path_input_id())
    }

    /// "Documents  Downloads  … 3 more  (Tab: next)" under the field, on one line: as many
    /// names as fit its width.
    pub(super) fn candidate_line<'a>(&self, editing: &'a Editing) -> Element<'a, Message> {
        let completion = &editing.completion;
        let line = iced::widget::responsive(move |size| {
            let candidates = &completion.candidates;
            let shown = fitting(candidates, completion.cycle, size.width, SMALL);
            let mut line = Row::new().spacing(CANDIDATE_GAP);
            for i in shown.clone() {
                let label = text(candidates[i].clone())
                    .size(SMALL)
                    .wrapping(text::Wrapping::None);
                line = line.push(if completion.cycle == Some(i) {
                    label.font(style::bold())
                } else {
                    label.style(style::dim_text)
                });
            }
            let more = candidates.len() - shown.len();
            if more > 0 {
                line = line.push(
                    text(format!("… {more} more"))
                        .size(SMALL)
                        .style(style::dim_text),
                );
            }
            let hint = text("(Tab: next)").size(SMALL).style(style::dim_text);
            container(line.push(hint)).clip(true).into()
        });
        container(line).height(CANDIDATE_LINE).into()
    }
}
