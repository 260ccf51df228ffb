//! "New Folder: [New Folder]": the name of a folder to make, asked before it is made, as
//! Dolphin's and Nautilus's New Folder dialogs ask. Made first and named in place after, a
//! folder given another name took two undo steps (its making, then its rename) and left a
//! "New Folder" behind when the rename failed.
//!
//! The prompt only collects the name: the window checks it against the folder's listing
//! ([`Browser::name_refused`](crate::gui::screen::browser::Browser::name_refused)) and
//! either makes the folder or gives the reason back ([`NamePrompt::refuse`]).
//!
//! Keyboard: the field has it, its text selected; Enter submits, Escape cancels.

use std::path::PathBuf;

use iced::widget::{Id, column, operation, row, space, text, text_input};
use iced::{Alignment, Element, Task};

use super::confirm::{self, Look};
use crate::gui::style;

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
    /// This name was given for a new folder in `parent`: check it, then make the folder or
    /// [`refuse`](NamePrompt::refuse) it.
    Named { parent: PathBuf, name: String },
    /// Nothing is to be made.
    Cancelled,
}

/// The name of a folder to make in `parent`, asked in the window.
#[derive(Debug, Clone)]
pub struct NamePrompt {
    parent: PathBuf,
    typed: String,
    problem: Option<String>,
}

impl NamePrompt {
    /// Asks for the name of a folder to make in `parent`, starting on `suggested` ("New
    /// Folder", or the first free "New Folder 2"...), all of it selected.
    pub fn new(parent: PathBuf, suggested: String) -> (Self, Task<Message>) {
        let prompt = NamePrompt {
            parent,
            typed: suggested,
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
            Message::Submitted => Some(Event::Named {
                parent: self.parent.clone(),
                name: self.typed.clone(),
            }),
            Message::Cancelled => Some(Event::Cancelled),
        }
    }

    /// The name given cannot be used, for `why`: said under the field, which stays open.
    pub fn refuse(&mut self, why: String) {
        self.problem = Some(why);
    }

    /// The prompt's content, for [`dialog`](super::dialog) (whose backdrop should send
    /// [`Message::Cancelled`]).
    pub fn view(&self) -> Element<'_, Message> {
        let field = text_input("Folder name", &self.typed)
            .id(Id::new(INPUT_ID))
            .on_input(Message::Edited)
            .on_submit(Message::Submitted)
            .padding([6, 8])
            .size(14);
        let place = self.parent.file_name().map_or_else(
            || self.parent.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let mut body = column![
            text("New Folder").size(17).font(style::bold()),
            text(format!("Make a folder in “{place}” named:"))
                .size(13)
                .style(style::dim_text),
            field,
        ]
        .spacing(10);
        if let Some(problem) = &self.problem {
            body = body.push(text(problem).size(13).style(style::danger_text));
        }
        let buttons = row![
            space::horizontal(),
            confirm::button(
                "Cancel",
                None,
                Look::Plain,
                false,
                "ferry-name-prompt-cancel",
                Message::Cancelled
            ),
            confirm::button(
                "Create",
                None,
                Look::Suggested,
                false,
                "ferry-name-prompt-ok",
                Message::Submitted
            ),
        ]
        .spacing(8)
        .align_y(Alignment::Center);
        column![body, buttons].spacing(20).width(420).into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_handed_over_and_a_refusal_stays_until_the_next_edit() {
        let (mut prompt, _) = NamePrompt::new("/home/u/Music".into(), "New Folder".into());
        assert_eq!(prompt.update(Message::Edited("Live".into())), None);
        let named = prompt.update(Message::Submitted);
        assert_eq!(
            named,
            Some(Event::Named {
                parent: "/home/u/Music".into(),
                name: "Live".into()
            })
        );
        prompt.refuse("“Live” already exists here.".into());
        assert!(prompt.problem.is_some());
        prompt.update(Message::Edited("Live 2".into()));
        assert_eq!(prompt.problem, None);
        assert_eq!(prompt.update(Message::Cancelled), Some(Event::Cancelled));
    }
}
