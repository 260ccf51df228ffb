//! The card both text prompts share (the folder typed for Copy to…, the name asked by New
//! Folder): a title, a hint, one field, the reason a value was refused, Cancel and the action.

use iced::widget::text::Wrapping;
use iced::widget::{Id, column, row, space, text, text_input};
use iced::{Alignment, Element};

use super::confirm::{self, Look};
use crate::gui::style;

/// What a prompt shows.
pub struct Prompt<'a> {
    pub title: &'a str,
    /// A line under the title, if any.
    pub hint: Option<String>,
    /// The field's placeholder and text.
    pub placeholder: &'a str,
    pub typed: &'a str,
    /// Why the value given was refused.
    pub problem: Option<&'a str>,
    /// A word on the value given, that does not refuse it.
    pub note: Option<&'a str>,
    /// The action's button ("Copy Here", "Create").
    pub action: &'a str,
    /// The ids of the field, the Cancel button and the action's button.
    pub ids: [&'static str; 3],
    pub width: f32,
}

impl<'a> Prompt<'a> {
    /// The card: edits send `on_input`, Enter and the action send `submit`, Cancel `cancel`.
    pub fn view<Message: Clone + 'a>(
        self,
        on_input: impl Fn(String) -> Message + 'a,
        submit: Message,
        cancel: Message,
    ) -> Element<'a, Message> {
        let [field_id, cancel_id, ok_id] = self.ids;
        let field = text_input(self.placeholder, self.typed)
            .id(Id::new(field_id))
            .on_input(on_input)
            .on_submit(submit.clone())
            .padding([6, 8])
            .size(14);
        let title = text(self.title).size(17).font(style::bold());
        let mut body = column![title.wrapping(Wrapping::WordOrGlyph)].spacing(10);
        if let Some(hint) = self.hint {
            body = body.push(text(hint).size(13).style(style::dim_text));
        }
        body = body.push(field);
        if let Some(problem) = self.problem {
            body = body.push(text(problem).size(13).style(style::danger_text));
        } else if let Some(note) = self.note {
            body = body.push(text(note).size(13).style(style::dim_text));
        }
        let buttons = row![
            space::horizontal(),
            confirm::button("Cancel", None, Look::Plain, false, cancel_id, cancel),
            confirm::button(self.action, None, Look::Suggested, false, ok_id, submit),
        ]
        .spacing(8)
        .align_y(Alignment::Center);
        column![body, buttons].spacing(20).width(self.width).into()
    }
}
