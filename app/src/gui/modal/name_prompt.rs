//! "New Folder: [New Folder]": the name of a folder to make, asked before it is made, as
//! Dolphin's and Nautilus's New Folder dialogs ask. Made first and named in place after, a
//! folder given another name took two undo steps (its making, then its rename) and left a
//! "New Folder" behind when the rename failed.
//!
//! The prompt only collects the name: the window checks it against the folder's listing
//! ([`Browser::name_refused`](crate::gui::screen::browser::Browser::name_refused)) and
//! either makes the folder or gives the reason back ([`NamePrompt::refuse`]).
//!
//! The same prompt renames a bookmark in the places ("Rename…" in its menu, Dolphin's
//! "Edit…"): the label it is shown under; left empty, the folder's name is shown again.
//!
//! Keyboard: the field has it, its text selected; Enter submits, Escape cancels.

use std::borrow::Cow;
use std::path::PathBuf;

use ferry_core::dirs::ViewId;
use ferry_core::places::{Bookmark, Target};
use iced::widget::{Id, operation};
use iced::{Element, Task};

use super::prompt::Prompt;
use crate::gui::format;
use crate::gui::screen::browser::HIDDEN_NAME;

/// The field's id (focused, its text selected, when the prompt opens).
pub const INPUT_ID: &str = "ferry-name-prompt";

/// What the prompt sends.
#[derive(Debug, Clone)]
pub enum Message {
    /// The field was edited.
    Edited(String),
    /// Enter, or the action's button.
    Submitted,
    /// Cancel, Escape or the backdrop.
    Cancelled,
}

/// What the window must act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// This name was given for a new folder in `parent`, asked by the pane of `view`: check
    /// it, then make the folder or [`refuse`](NamePrompt::refuse) it. Spaces around it are
    /// dropped, as Nautilus drops them.
    Named {
        view: ViewId,
        parent: PathBuf,
        name: String,
    },
    /// `bookmark` is to be shown under `label` (`None`: under its folder's name), spaces
    /// around it dropped.
    Labelled {
        bookmark: Bookmark,
        label: Option<String>,
    },
    /// Nothing is to be made.
    Cancelled,
}

/// What the name is for.
#[derive(Debug, Clone)]
enum Purpose {
    /// A folder to make in `parent`, for the pane of `view`.
    NewFolder { view: ViewId, parent: PathBuf },
    /// A new label for a bookmark.
    PlaceLabel(Bookmark),
}

/// A name asked in the window: of a folder to make, or a bookmark's label.
#[derive(Debug, Clone)]
pub struct NamePrompt {
    purpose: Purpose,
    typed: String,
    problem: Option<String>,
}

impl NamePrompt {
    /// Asks for the name of a folder to make in `parent`, for the pane of `view`, starting on
    /// `suggested` ("New Folder", or the first free "New Folder 2"...), all of it selected.
    pub fn new(view: ViewId, parent: PathBuf, suggested: String) -> (Self, Task<Message>) {
        Self::asking(Purpose::NewFolder { view, parent }, suggested)
    }

    /// Asks for a new label of `bookmark`, starting on the name it is shown under.
    pub fn relabel(bookmark: Bookmark) -> (Self, Task<Message>) {
        let shown = bookmark.name().into_owned();
        Self::asking(Purpose::PlaceLabel(bookmark), shown)
    }

    fn asking(purpose: Purpose, typed: String) -> (Self, Task<Message>) {
        let prompt = NamePrompt {
            purpose,
            typed,
            problem: None,
        };
        let id = || Id::new(INPUT_ID);
        (
            prompt,
            Task::batch([operation::focus(id()), operation::select_all(id())]),
        )
    }

    /// Handles a message.
    pub fn update(&mut self, message: Message) -> Option<Event> {
        match message {
            Message::Edited(typed) => {
                self.typed = typed;
                self.problem = None;
                None
            }
            Message::Submitted => {
                let name = self.typed.trim().to_owned();
                Some(match &self.purpose {
                    Purpose::NewFolder { view, parent } => Event::Named {
                        view: *view,
                        parent: parent.clone(),
                        name,
                    },
                    Purpose::PlaceLabel(bookmark) => Event::Labelled {
                        bookmark: bookmark.clone(),
                        label: (!name.is_empty()).then_some(name),
                    },
                })
            }
            Message::Cancelled => Some(Event::Cancelled),
        }
    }

    /// The name given cannot be used, for `why`: said under the field, which stays open.
    pub fn refuse(&mut self, why: String) {
        self.problem = Some(why);
    }

    /// A word on the name typed: a folder named with a leading dot is hidden.
    fn note(&self) -> Option<&'static str> {
        matches!(self.purpose, Purpose::NewFolder { .. })
            .then_some(HIDDEN_NAME)
            .filter(|_| self.typed.trim().starts_with('.'))
    }

    /// The prompt's content, for [`dialog`](super::dialog) (whose backdrop should send
    /// [`Message::Cancelled`]).
    pub fn view(&self) -> Element<'_, Message> {
        let (title, hint, placeholder, action) = match &self.purpose {
            Purpose::NewFolder { parent, .. } => {
                let place = format::display_name(parent);
                let hint = format!("Make a folder in “{place}” named:");
                ("New Folder", hint, "Folder name", "Create")
            }
            Purpose::PlaceLabel(bookmark) => {
                let place = match &bookmark.target {
                    Target::Local(path) => format::shown_name(path.as_os_str()),
                    Target::Remote(uri) => Cow::Borrowed(uri.as_str()),
                };
                let hint = format!("Show “{place}” in Places as:");
                ("Rename Place", hint, "The folder's name", "Rename")
            }
        };
        let prompt = Prompt {
            title,
            hint: Some(hint),
            placeholder,
            typed: &self.typed,
            problem: self.problem.as_deref(),
            note: self.note(),
            action,
            ids: [INPUT_ID, "ferry-name-prompt-cancel", "ferry-name-prompt-ok"],
            width: 420.0,
        };
        prompt.view(Message::Edited, Message::Submitted, Message::Cancelled)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_handed_over_and_a_refusal_stays_until_the_next_edit() {
        let view: ViewId = 3;
        let (mut prompt, _) = NamePrompt::new(view, "/home/u/Music".into(), "New Folder".into());
        assert_eq!(prompt.update(Message::Edited("  Live ".into())), None);
        let named = prompt.update(Message::Submitted);
        assert_eq!(
            named,
            Some(Event::Named {
                view,
                parent: "/home/u/Music".into(),
                name: "Live".into()
            }),
            "the spaces around dropped"
        );
        prompt.refuse("“Live” already exists here.".into());
        assert!(prompt.problem.is_some());
        prompt.update(Message::Edited("Live 2".into()));
        assert_eq!(prompt.problem, None);
        assert_eq!(prompt.update(Message::Cancelled), Some(Event::Cancelled));
    }

    #[test]
    fn a_folder_named_with_a_leading_dot_is_said_to_be_hidden() {
        let (mut prompt, _) = NamePrompt::new(3, "/home/u".into(), "New Folder".into());
        assert_eq!(prompt.note(), None);
        prompt.update(Message::Edited(" .config".into()));
        assert_eq!(prompt.note(), Some(HIDDEN_NAME));
    }
}
