//! "Copy 3 items to: [folder]": the folder for Copy to…, Move to… or Create Link… typed in
//! the window, where the desktop has no folder dialog to show (no portal, no zenity: see
//! [`picker`](crate::gui::picker)). The field starts on the likely destination (the other
//! pane's folder, else the pane's own), `~` is the home folder, and the folder is checked on
//! a worker thread before anything is submitted ("There is no folder “…”.").
//!
//! Keyboard: the field has it; Tab completes the folder name being typed (Tab again cycles
//! through the candidates, as in the location bar), Enter submits, Escape cancels.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ferry_core::Error;
use iced::keyboard::key::Named;
use iced::keyboard::{Key, Modifiers};
use iced::widget::{Id, operation};
use iced::{Element, Task};

use super::prompt::Prompt;
use crate::gui::completion::{Completion, folder_part, with_real_names};
use crate::gui::{bridge, picker, words};

/// The field's id (focused when the prompt opens).
pub const INPUT_ID: &str = "ferry-folder-prompt";

/// What the prompt sends.
#[derive(Debug, Clone)]
pub enum Message {
    /// The field was edited.
    Edited(String),
    /// Enter, or the action's button.
    Submitted,
    /// The typed folder was checked.
    Checked(PathBuf, Result<(), Arc<Error>>),
    /// Cancel, Escape or the backdrop.
    Cancelled,
    /// Tab: complete the folder name being typed.
    Complete,
    /// The folders of the folder being typed in arrived, for completing `typed`.
    Completed {
        typed: String,
        names: Result<Arc<[OsString]>, Arc<Error>>,
    },
}

/// What the window must act on; the prompt is done with either.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event<T> {
    /// This folder was chosen for `T`.
    Chosen(T, PathBuf),
    /// Nothing was chosen.
    Cancelled,
}

/// A folder asked for in the window.
#[derive(Debug, Clone)]
pub struct FolderPrompt<T> {
    token: T,
    title: String,
    action: String,
    typed: String,
    problem: Option<String>,
    checking: bool,
    home: Option<PathBuf>,
    completion: Completion,
    /// The candidates Tab listed, as shown under the field.
    listed: Option<String>,
}

impl<T: Clone> FolderPrompt<T> {
    /// Asks `title` ("Copy 3 items to"), starting on `start`; `action` names the button
    /// ("Copy Here"); `token` comes back with the folder.
    pub fn new(
        token: T,
        title: impl Into<String>,
        action: impl Into<String>,
        start: &Path,
        home: Option<PathBuf>,
    ) -> (Self, Task<Message>) {
        let prompt = FolderPrompt {
            token,
            title: title.into(),
            action: action.into(),
            typed: start.display().to_string(),
            problem: None,
            checking: false,
            home,
            completion: Completion::default(),
            listed: None,
        };
        let focus = operation::focus(Id::new(INPUT_ID));
        (prompt, Task::batch([focus, cursor_to_end()]))
    }

    /// Handles a message.
    pub fn update(&mut self, message: Message) -> (Task<Message>, Option<Event<T>>) {
        match message {
            Message::Edited(typed) => {
                self.typed = typed;
                self.problem = None;
                self.completion.clear();
                self.listed = None;
                (Task::none(), None)
            }
            Message::Complete => {
                if let Some(next) = self.completion.next() {
                    self.typed = next;
                    self.listed = self.completion.line();
                    return (cursor_to_end(), None);
                }
                let typed = self.typed.clone();
                let dir_text = match folder_part(&typed) {
                    "" => ".",
                    dir => dir,
                };
                let dir = with_real_names(picker::typed_folder(dir_text, self.home.as_deref()));
                let read = bridge::blocking(move || {
                    let names = ferry_core::lister::folder_names(&dir)
                        .map(Arc::from)
                        .map_err(Arc::new);
                    Message::Completed { typed, names }
                });
                (read, None)
            }
            Message::Completed { typed, names } => {
                if typed != self.typed {
                    return (Task::none(), None); // typed on since: stale
                }
                match names {
                    Ok(names) => match self.completion.found(&typed, &names) {
                        Ok(text) => self.typed = text,
                        Err(problem) => self.problem = Some(problem),
                    },
                    Err(e) => self.problem = Some(words::error_in_words(&e)),
                }
                self.listed = self.completion.line();
                (cursor_to_end(), None)
            }
            Message::Submitted if self.checking => (Task::none(), None),
            Message::Submitted => {
                let folder = picker::typed_folder(&self.typed, self.home.as_deref());
                self.checking = true;
                let check = bridge::blocking(move || {
                    let checked = picker::check_folder(&folder);
                    Message::Checked(folder, checked)
                });
                (check, None)
            }
            Message::Checked(folder, checked) => {
                self.checking = false;
                match checked {
                    Ok(()) => (
                        Task::none(),
                        Some(Event::Chosen(self.token.clone(), folder)),
                    ),
                    Err(e) => {
                        self.problem = Some(words::error_in_words(&e));
                        (Task::none(), None)
                    }
                }
            }
            Message::Cancelled => (Task::none(), Some(Event::Cancelled)),
        }
    }

    /// The prompt's content, for [`dialog`](super::dialog) (whose backdrop should send
    /// [`Message::Cancelled`]).
    pub fn view(&self) -> Element<'_, Message> {
        let prompt = Prompt {
            title: &self.title,
            hint: None,
            placeholder: "A folder",
            typed: &self.typed,
            problem: self.problem.as_deref(),
            note: self.listed.as_deref(),
            action: &self.action,
            ids: [
                INPUT_ID,
                "ferry-folder-prompt-cancel",
                "ferry-folder-prompt-ok",
            ],
            width: 480.0,
        };
        prompt.view(Message::Edited, Message::Submitted, Message::Cancelled)
    }
}

/// What a key the field does not take does while the prompt is open (it is modal): Escape
/// cancels, Tab completes; `None` for any other, which does nothing.
pub fn key(key: &Key, modifiers: Modifiers) -> Option<Message> {
    match key.as_ref() {
        Key::Named(Named::Escape) => Some(Message::Cancelled),
        Key::Named(Named::Tab) if modifiers.is_empty() => Some(Message::Complete),
        _ => None,
    }
}

fn cursor_to_end() -> Task<Message> {
    operation::move_cursor_to_end(Id::new(INPUT_ID))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typed_folder_is_checked_before_it_is_chosen() {
        let dir = tempfile::tempdir().unwrap();
        let (mut prompt, _) =
            FolderPrompt::new(7, "Copy 3 items to", "Copy Here", dir.path(), None);
        let gone = dir.path().join("gone");
        let (_, event) = prompt.update(Message::Edited(gone.display().to_string()));
        assert_eq!(event, None);
        let checked = picker::check_folder(&gone);
        let (_, event) = prompt.update(Message::Checked(gone, checked));
        assert_eq!(event, None, "a folder that is not there is refused");
        assert!(prompt.problem.is_some());
        let here = dir.path().to_path_buf();
        let (_, event) = prompt.update(Message::Checked(here.clone(), Ok(())));
        assert_eq!(event, Some(Event::Chosen(7, here)));
        let (_, event) = prompt.update(Message::Cancelled);
        assert_eq!(event, Some(Event::Cancelled));
    }

    #[test]
    fn tab_completes_the_folder_being_typed() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["Photos 2023", "Photos 2024", "Music"] {
            std::fs::create_dir(dir.path().join(name)).unwrap();
        }
        std::fs::write(dir.path().join("Photos.txt"), "a file").unwrap();
        let (mut prompt, _) = FolderPrompt::new(7, "Copy 1 item to", "Copy Here", dir.path(), None);
        let base = format!("{}/", dir.path().display());
        let _ = prompt.update(Message::Edited(format!("{base}Ph")));
        let names = ferry_core::lister::folder_names(dir.path())
            .map(Arc::from)
            .map_err(Arc::new);
        let typed = prompt.typed.clone();
        let _ = prompt.update(Message::Completed { typed, names });
        assert_eq!(prompt.typed, format!("{base}Photos 202"), "folders only");
        assert!(prompt.listed.as_deref().unwrap().contains("Photos 2024"));
        let _ = prompt.update(Message::Complete);
        assert_eq!(prompt.typed, format!("{base}Photos 2023/"));
        let _ = prompt.update(Message::Complete);
        assert_eq!(prompt.typed, format!("{base}Photos 2024/"));
        let _ = prompt.update(Message::Edited(format!("{base}x")));
        assert_eq!(prompt.listed, None);
        let names = ferry_core::lister::folder_names(dir.path())
            .map(Arc::from)
            .map_err(Arc::new);
        let typed = prompt.typed.clone();
        let _ = prompt.update(Message::Completed { typed, names });
        assert!(prompt.problem.as_deref().unwrap().contains("“x”"));
    }
}
