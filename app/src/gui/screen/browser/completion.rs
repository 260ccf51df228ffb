//! Tab in the location field: the folders whose names complete the one being typed, listed
//! under the field and cycled through by more Tabs. The folder is read off the UI thread, or
//! taken from the pane's own listing when it is the folder shown.

use std::ffi::OsString;
use std::path::Path;
use std::sync::Arc;

use ferry_core::Error;
use iced::widget::{Row, operation, text};
use iced::{Element, Task};

use super::location::{Editing, resolve, with_real_names};
use super::view::SMALL;
use super::{Browser, Listing, Message};
use crate::gui::bridge;
use crate::gui::format::shown_name;
use crate::gui::screen::Ctx;
use crate::gui::style;

/// Completion candidates listed under the field.
const SHOWN_CANDIDATES: usize = 8;

impl Browser {
    /// Tab: the next candidate when they are listed, or the folders that complete the name
    /// being typed.
    pub(super) fn complete(&mut self, ctx: &Ctx<'_>) -> Task<Message> {
        let Some(editing) = &mut self.editing else {
            return Task::none();
        };
        if !editing.candidates.is_empty() {
            let next = editing
                .cycle
                .map_or(0, |i| (i + 1) % editing.candidates.len());
            editing.cycle = Some(next);
            editing.text = format!("{}{}/", editing.base, editing.candidates[next]);
            return self.show_completion();
        }
        let typed = editing.text.clone();
        let (dir_text, _) = split_typed(&typed);
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
        let (base, prefix) = split_typed(typed);
        let found = candidates(&names, prefix);
        editing.base = base.to_owned();
        // Said of an earlier Tab, it stayed under a completion that found a folder.
        editing.problem = None;
        match found.as_slice() {
            [] => {
                editing.problem = Some(format!("No folder here starts with “{prefix}”."));
            }
            [only] => editing.text = format!("{base}{only}/"),
            many => {
                editing.text = format!("{base}{}", common_prefix(many));
                editing.candidates = found;
            }
        }
    }

    /// Puts the cursor after the completed text.
    pub(super) fn show_completion(&self) -> Task<Message> {
        operation::move_cursor_to_end(self.path_input_id())
    }

    /// "Documents · Downloads · … 3 more (Tab)" under the field.
    pub(super) fn candidate_line(&self, editing: &Editing) -> Element<'_, Message> {
        let mut line = Row::new().spacing(10);
        for (i, name) in editing.candidates.iter().take(SHOWN_CANDIDATES).enumerate() {
            let chosen = editing.cycle == Some(i);
            let label = text(name.clone()).size(SMALL);
            line = line.push(if chosen {
                label.font(style::bold())
            } else {
                label.style(style::dim_text)
            });
        }
        let more = editing.candidates.len().saturating_sub(SHOWN_CANDIDATES);
        if more > 0 {
            line = line.push(
                text(format!("… {more} more"))
                    .size(SMALL)
                    .style(style::dim_text),
            );
        }
        line.push(text("(Tab: next)").size(SMALL).style(style::dim_text))
            .into()
    }
}

/// The typed text split into the folder part (up to and with the last `/`) and the name
/// being typed after it.
fn split_typed(typed: &str) -> (&str, &str) {
    match typed.rfind('/') {
        Some(slash) => typed.split_at(slash + 1),
        None if typed == "~" => (typed, ""),
        None => ("", typed),
    }
}

/// The names starting with `prefix` (exactly, or else ignoring case), sorted; dot folders only
/// when the prefix starts with a dot. A name that is not UTF-8, or holds a newline, is given as
/// the field shows it, with U+FFFD or ↵ (opening the path finds the real name, see
/// [`with_real_names`]); such names were left out, and Tab said no folder started with what
/// was typed.
pub(super) fn candidates(names: &[OsString], prefix: &str) -> Vec<String> {
    let shown = || {
        names
            .iter()
            .filter(|name| prefix.starts_with('.') || !name.as_encoded_bytes().starts_with(b"."))
            .map(|name| shown_name(name))
    };
    let mut exact: Vec<String> = shown()
        .filter(|n| n.starts_with(prefix))
        .map(std::borrow::Cow::into_owned)
        .collect();
    if exact.is_empty() {
        let lower = prefix.to_lowercase();
        exact = shown()
            .filter(|n| n.to_lowercase().starts_with(&lower))
            .map(std::borrow::Cow::into_owned)
            .collect();
    }
    exact.sort_by_key(|n| n.to_lowercase());
    exact
}

/// The longest start all of `names` share.
fn common_prefix(names: &[String]) -> &str {
    let first = names[0].as_str();
    let mut end = first.len();
    for name in &names[1..] {
        end = first
            .char_indices()
            .zip(name.chars())
            .take_while(|((_, a), b)| a == b)
            .last()
            .map_or(0, |((i, a), _)| i + a.len_utf8())
            .min(end);
    }
    &first[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_paths_split_at_the_last_slash() {
        assert_eq!(split_typed("/home/ann/Do"), ("/home/ann/", "Do"));
        assert_eq!(split_typed("/home/ann/"), ("/home/ann/", ""));
        assert_eq!(split_typed("Mus"), ("", "Mus"));
        assert_eq!(split_typed("~"), ("~", ""));
    }

    #[test]
    fn completion_prefers_exact_case_and_hides_dot_folders() {
        let names: Vec<OsString> = ["Documents", "Downloads", "docs", ".dotfiles", "Music"]
            .iter()
            .map(OsString::from)
            .collect();
        assert_eq!(candidates(&names, "Do"), ["Documents", "Downloads"]);
        assert_eq!(candidates(&names, "mu"), ["Music"], "else ignoring case");
        assert_eq!(candidates(&names, "."), [".dotfiles"]);
        assert!(candidates(&names, "").iter().all(|n| !n.starts_with('.')));
        let many = candidates(&names, "Do");
        assert_eq!(common_prefix(&many), "Do");
        assert_eq!(
            common_prefix(&["Photos 2023".to_owned(), "Photos 2024".to_owned()]),
            "Photos 202"
        );
    }

    /// A name that is not UTF-8 is completed as it is shown: it was left out, and Tab said no
    /// folder started with "dir" beside "dir\u{fffd}\u{fffd}bad".
    #[test]
    fn completion_offers_names_that_are_not_utf8_as_shown() {
        use std::os::unix::ffi::OsStringExt;
        let names = vec![OsString::from_vec(b"dir\xfe\xffbad".to_vec())];
        assert_eq!(candidates(&names, "dir"), ["dir\u{fffd}\u{fffd}bad"]);
    }
}
