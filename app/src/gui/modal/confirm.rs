//! A confirmation: a question, what will happen, and two buttons — the action, named by what
//! it does ("Delete Permanently", "Empty Trash", "Quit"), and Cancel. "Permanently delete 3
//! folders and 12 files, 1.2 GB?", "Empty the trash: 240 items, 3.1 GB?", cancelling a job
//! that has done part of its work, quitting with jobs running.
//!
//! The caller chooses a token (`T`: what to do once confirmed, e.g. the items to delete) and
//! gets it back in the [`Event`], so one dialog type serves every question and the window
//! needs no state of its own for what was asked. A dangerous action's button is drawn in the
//! danger colour.
//!
//! A notice ([`Confirm::notice`]) has the one button that declines: for what cannot be done
//! at all ("“ferry” can't be moved").
//!
//! Keyboard: Enter presses the button with the focus, which starts on the action (as the
//! question was asked because the user asked for it), or on Cancel where the action is rarely
//! meant ([`Confirm::cancel_by_default`]) or cannot be undone ([`Confirm::danger`], as KDE
//! asks its dangerous questions: Shift+Delete then Enter deleted 20,000 files for good);
//! Alt and the action's underlined letter presses it; Escape cancels; Tab, Shift+Tab and the
//! arrow keys move the focus. iced 0.14 buttons take no keyboard focus, so the dialog keeps
//! its own and draws it as a ring; the window routes keys here through [`Confirm::key`].
//!
//! The module also holds the buttons every dialog of Ferry draws ([`button`]), with the
//! focus ring and an underlined Alt+letter.

use iced::keyboard::key::Named;
use iced::keyboard::{Key, Modifiers};
use iced::widget::text::Span;
use iced::widget::text::Wrapping::WordOrGlyph;
use iced::widget::{self, column, container, rich_text, row, space, span, text};
use iced::{Alignment, Border, Color, Element, Font, Task, Theme};

use crate::gui::screen::Ctx;
use crate::gui::style;

/// The dialog's two buttons.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    /// Do it.
    Confirm,
    /// Don't.
    Cancel,
}

/// What the dialog sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Message {
    /// A button was pressed (or its key).
    Chose(Choice),
    /// Tab or an arrow key: the focus goes to the other button.
    FocusMoved,
}

/// What the window must act on; the dialog is done with either.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event<T> {
    /// The user confirmed: do what `T` says.
    Confirmed(T),
    /// The user declined (Cancel, Escape, the backdrop).
    Cancelled(T),
}

/// A confirmation waiting for an answer.
#[derive(Debug, Clone)]
pub struct Confirm<T> {
    token: T,
    title: String,
    message: String,
    detail: Option<String>,
    confirm_label: String,
    cancel_label: String,
    danger: bool,
    /// False for a notice: no action button.
    action: bool,
    focus: Choice,
}

/// Ids of the two buttons (for tests and for the window's own focus handling).
pub const CONFIRM_ID: &str = "ferry-confirm-ok";
/// See [`CONFIRM_ID`].
pub const CANCEL_ID: &str = "ferry-confirm-cancel";

impl<T: Clone> Confirm<T> {
    /// Asks `title` (a question), explaining with `message`; `confirm_label` names the action.
    /// The cancel button says "Cancel"; the action is not dangerous until [`danger`] says so.
    ///
    /// [`danger`]: Self::danger
    pub fn new(
        token: T,
        title: impl Into<String>,
        message: impl Into<String>,
        confirm_label: impl Into<String>,
    ) -> Self {
        Confirm {
            token,
            title: title.into(),
            message: message.into(),
            detail: None,
            confirm_label: confirm_label.into(),
            cancel_label: "Cancel".to_owned(),
            danger: false,
            action: true,
            focus: Choice::Confirm,
        }
    }

    /// Tells `title` and `message` with one button, `label` ("OK"), which answers
    /// [`Event::Cancelled`]: there is nothing to confirm.
    pub fn notice(
        token: T,
        title: impl Into<String>,
        message: impl Into<String>,
        label: impl Into<String>,
    ) -> Self {
        Confirm {
            action: false,
            focus: Choice::Cancel,
            ..Confirm::new(token, title, message, "").cancel_label(label)
        }
    }

    /// Cancel has the focus at first, so that Enter declines: for an action that is far
    /// more often a slip than meant (moving the home folder).
    #[must_use]
    pub fn cancel_by_default(mut self) -> Self {
        self.focus = Choice::Cancel;
        self
    }

    /// The action cannot be undone: its button is drawn in the danger colour, and Cancel has
    /// the focus at first.
    #[must_use]
    pub fn danger(mut self) -> Self {
        self.danger = true;
        self.focus = Choice::Cancel;
        self
    }

    /// The action's Alt+letter: the first letter of its label.
    fn mnemonic(&self) -> char {
        (self.confirm_label.chars())
            .find(|c| c.is_alphabetic())
            .unwrap_or('o')
    }

    /// The cancel button says `label` ("Keep Running", "Don't Quit").
    #[must_use]
    pub fn cancel_label(mut self, label: impl Into<String>) -> Self {
        self.cancel_label = label.into();
        self
    }

    /// A line below the message, dimmer ("This can't be undone.").
    #[must_use]
    pub fn detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = Some(detail.into());
        self
    }

    /// The same question with another token: a screen asks with its own, the window wraps
    /// it in one of its own.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Confirm<U> {
        Confirm {
            token: f(self.token),
            title: self.title,
            message: self.message,
            detail: self.detail,
            confirm_label: self.confirm_label,
            cancel_label: self.cancel_label,
            danger: self.danger,
            action: self.action,
            focus: self.focus,
        }
    }

    /// `asked` put in place of this question while it is open ("Quit while 2 jobs are
    /// running?" once one has ended), the focus staying on the button it was on.
    pub fn reword(&mut self, asked: Confirm<T>) {
        let focus = self.focus;
        *self = Confirm { focus, ..asked };
    }

    /// What was asked about.
    pub fn token(&self) -> &T {
        &self.token
    }

    /// What was asked about, to add to while the question is open.
    pub fn token_mut(&mut self) -> &mut T {
        &mut self.token
    }

    /// The question.
    pub fn title(&self) -> &str {
        &self.title
    }

    /// The explanation.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The action's label.
    pub fn confirm_label(&self) -> &str {
        &self.confirm_label
    }

    /// Whether the action is drawn as dangerous.
    pub fn is_danger(&self) -> bool {
        self.danger
    }

    /// The button Enter presses now.
    pub fn focus(&self) -> Choice {
        self.focus
    }

    /// Handles a message; an answer ends the dialog (the window drops it).
    pub fn update(
        &mut self,
        message: Message,
        _ctx: &Ctx<'_>,
    ) -> (Task<Message>, Option<Event<T>>) {
        let event = match message {
            Message::Chose(Choice::Confirm) => Some(Event::Confirmed(self.token.clone())),
            Message::Chose(Choice::Cancel) => Some(Event::Cancelled(self.token.clone())),
            Message::FocusMoved => {
                self.focus = match self.focus {
                    Choice::Cancel if self.action => Choice::Confirm,
                    _ => Choice::Cancel,
                };
                None
            }
        };
        (Task::none(), event)
    }

    /// What a key does while the dialog is open: Enter (or Space) presses the focused button,
    /// Escape cancels, Tab and the arrows move the focus. Every other key does nothing (the
    /// dialog is modal).
    pub fn key(&mut self, key: &Key, modifiers: Modifiers) -> Option<Message> {
        match key.as_ref() {
            Key::Character(c)
                if modifiers.alt()
                    && self.action
                    && c.chars().eq(self.mnemonic().to_lowercase()) =>
            {
                Some(Message::Chose(Choice::Confirm))
            }
            Key::Named(Named::Enter | Named::Space) => Some(Message::Chose(self.focus)),
            Key::Named(Named::Escape) => Some(Message::Chose(Choice::Cancel)),
            Key::Named(
                Named::Tab
                | Named::ArrowLeft
                | Named::ArrowRight
                | Named::ArrowUp
                | Named::ArrowDown,
            ) => Some(Message::FocusMoved),
            _ => None,
        }
    }

    /// The dialog's content, for [`modal::dialog`](super::dialog) (whose backdrop should send
    /// `Message::Chose(Choice::Cancel)`).
    pub fn view(&self) -> Element<'_, Message> {
        let look = if self.danger {
            Look::Danger
        } else {
            Look::Suggested
        };
        let mut buttons = row![
            space::horizontal(),
            button(
                &self.cancel_label,
                None,
                Look::Plain,
                self.focus == Choice::Cancel,
                CANCEL_ID,
                Message::Chose(Choice::Cancel),
            ),
        ]
        .spacing(8)
        .align_y(Alignment::Center);
        if self.action {
            buttons = buttons.push(button(
                &self.confirm_label,
                Some(self.mnemonic()),
                look,
                self.focus == Choice::Confirm,
                CONFIRM_ID,
                Message::Chose(Choice::Confirm),
            ));
        }
        // A long name is one word: broken between characters rather than run out of the
        // dialog (a 255-byte name did).
        let mut body = column![
            text(&self.title)
                .size(17)
                .font(style::bold())
                .wrapping(WordOrGlyph),
            text(&self.message).size(14).wrapping(WordOrGlyph),
        ]
        .spacing(10);
        if let Some(detail) = &self.detail {
            let detail = text(detail).size(13).style(style::dim_text);
            body = body.push(detail.wrapping(WordOrGlyph));
        }
        column![body, buttons].spacing(20).width(440).into()
    }
}

/// How a dialog button looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Look {
    /// Framed, quiet: Cancel, Skip.
    Plain,
    /// Filled with the accent: the suggested action.
    Suggested,
    /// Filled with the danger colour: an action that cannot be undone.
    Danger,
}

/// A dialog button saying `label`, its `mnemonic` letter underlined (the Alt+letter that
/// presses it), ringed when it has the dialog's keyboard `focused`, inside a container with
/// `id` (for tests and `scroll_to`).
pub fn button<'a, Message: Clone + 'a>(
    label: &'a str,
    mnemonic: Option<char>,
    look: Look,
    focused: bool,
    id: &'static str,
    on_press: Message,
) -> Element<'a, Message> {
    let content = rich_text(mnemonic_spans(label, mnemonic)).size(14);
    let button = widget::button(content)
        .padding([6, 16])
        .style(move |theme, status| button_style(theme, status, look))
        .on_press(on_press);
    container(button)
        .id(widget::Id::new(id))
        .padding(4)
        .style(move |theme| focus_ring(theme, focused))
        .into()
}

/// `label` as spans with the first `mnemonic` letter (either case) underlined.
fn mnemonic_spans(label: &str, mnemonic: Option<char>) -> Vec<Span<'_, (), Font>> {
    let at = mnemonic.and_then(|m| {
        label
            .char_indices()
            .find(|(_, c)| c.eq_ignore_ascii_case(&m))
            .map(|(i, c)| (i, i + c.len_utf8()))
    });
    match at {
        Some((start, end)) => vec![
            span(&label[..start]),
            span(&label[start..end]).underline(true),
            span(&label[end..]),
        ],
        None => vec![span(label)],
    }
}

fn button_style(
    theme: &Theme,
    status: widget::button::Status,
    look: Look,
) -> widget::button::Style {
    use widget::button::Status;
    let c = style::colors(theme);
    let (fill, text_color, frame) = match look {
        Look::Plain => (c.chrome, c.text, c.border),
        Look::Suggested => (c.accent, on_fill(c.accent), c.accent),
        Look::Danger => (c.danger, on_fill(c.danger), c.danger),
    };
    let fill = match (look, status) {
        (_, Status::Disabled) => fill.scale_alpha(0.5),
        (Look::Plain, Status::Hovered) => c.hover,
        (Look::Plain, Status::Pressed) => c.border,
        (_, Status::Hovered) => fill.scale_alpha(0.88),
        (_, Status::Pressed) => fill.scale_alpha(0.75),
        (_, Status::Active) => fill,
    };
    widget::button::Style {
        background: Some(fill.into()),
        text_color,
        border: Border {
            color: frame,
            width: 1.0,
            radius: 6.0.into(),
        },
        ..widget::button::Style::default()
    }
}

/// Text on a filled button: white on a dark fill, near-black on a light one (the dark
/// theme's accent and danger colours are light).
fn on_fill(fill: Color) -> Color {
    let luma = 0.299 * fill.r + 0.587 * fill.g + 0.114 * fill.b;
    if luma > 0.6 {
        Color::from_rgb8(0x1d, 0x1e, 0x21)
    } else {
        Color::WHITE
    }
}

/// The ring around the button with the keyboard focus.
fn focus_ring(theme: &Theme, focused: bool) -> container::Style {
    let color = if focused {
        style::colors(theme).accent
    } else {
        Color::TRANSPARENT
    };
    container::Style {
        border: Border {
            color,
            width: 2.0,
            radius: 9.0.into(),
        },
        ..container::Style::default()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::path::PathBuf;
    use std::sync::LazyLock;

    use ferry_core::sort::SortSpec;
    use iced_test::{selector, simulator};

    use super::*;
    use crate::gui::screen::browser::Dirs;
    use crate::gui::settings::Settings;

    /// A listing service for components that never list.
    pub(crate) struct NoDirs;

    impl Dirs for NoDirs {
        fn open(&self, _: ferry_core::dirs::ViewId, _: PathBuf, _: SortSpec) -> u64 {
            unreachable!("dialogs and the trash view never list folders")
        }
        fn resort(&self, _: ferry_core::dirs::ViewId, _: SortSpec) {}
        fn refresh(&self, _: ferry_core::dirs::ViewId) {}
        fn close(&self, _: ferry_core::dirs::ViewId) {}
    }

    static SETTINGS: LazyLock<Settings> = LazyLock::new(Settings::default);

    /// What the window passes to `update`, with `modifiers` held.
    pub(crate) fn ctx(modifiers: Modifiers) -> Ctx<'static> {
        Ctx {
            dirs: &NoDirs,
            modifiers,
            home: None,
            settings: &SETTINGS,
        }
    }

    fn delete_three() -> Confirm<u32> {
        Confirm::new(
            7,
            "Permanently delete 3 files, 1.2 GB?",
            "They will be gone for good.",
            "Delete Permanently",
        )
        .danger()
    }

    /// Clicks the element with `id` in `dialog`'s view and feeds what it sent back.
    fn click(dialog: &mut Confirm<u32>, id: &'static str) -> Vec<Event<u32>> {
        let mut ui = simulator(dialog.view());
        ui.click(selector::id(id)).expect("the button is shown");
        let messages: Vec<Message> = ui.into_messages().collect();
        messages
            .into_iter()
            .filter_map(|m| dialog.update(m, &ctx(Modifiers::empty())).1)
            .collect()
    }

    #[test]
    fn the_buttons_answer_with_the_token() {
        let mut dialog = delete_three();
        assert_eq!(click(&mut dialog, CONFIRM_ID), [Event::Confirmed(7)]);
        assert_eq!(click(&mut dialog, CANCEL_ID), [Event::Cancelled(7)]);
        assert!(dialog.is_danger());
    }

    #[test]
    fn it_says_what_will_happen() {
        let dialog = delete_three().detail("This can't be undone.");
        let mut ui = simulator(dialog.view());
        for shown in [
            "Permanently delete 3 files, 1.2 GB?",
            "They will be gone for good.",
            "This can't be undone.",
        ] {
            assert!(ui.find(shown).is_ok(), "{shown}");
        }
    }

    #[test]
    fn enter_confirms_escape_cancels_tab_moves() {
        let mut dialog = Confirm::new(7, "Quit Ferry?", "Every job has ended.", "Quit");
        let none = Modifiers::empty();
        let enter = Key::Named(Named::Enter);
        assert_eq!(
            dialog.key(&enter, none),
            Some(Message::Chose(Choice::Confirm))
        );
        assert_eq!(
            dialog.key(&Key::Named(Named::Escape), none),
            Some(Message::Chose(Choice::Cancel))
        );
        assert_eq!(dialog.key(&Key::Character("x".into()), none), None);
        // Tab to Cancel: Enter now cancels, and Escape still does.
        let tab = dialog
            .key(&Key::Named(Named::Tab), Modifiers::SHIFT)
            .unwrap();
        assert_eq!(dialog.update(tab, &ctx(none)).1, None);
        let message = dialog.key(&enter, none).unwrap();
        assert_eq!(
            dialog.update(message, &ctx(none)).1,
            Some(Event::Cancelled(7))
        );
    }

    #[test]
    fn cancel_first_and_a_notice_with_one_button() {
        let none = Modifiers::empty();
        let enter = Key::Named(Named::Enter);
        // Cancel first: Enter declines until Tab moves to the action.
        let mut dialog = delete_three().cancel_by_default();
        let message = dialog.key(&enter, none).unwrap();
        assert_eq!(
            dialog.update(message, &ctx(none)).1,
            Some(Event::Cancelled(7))
        );
        let tab = dialog.key(&Key::Named(Named::Tab), none).unwrap();
        let _ = dialog.update(tab, &ctx(none));
        assert_eq!(dialog.focus(), Choice::Confirm);
        // A notice: one button, which every key declines with.
        let mut notice = Confirm::notice(7, "“ferry” can't be moved", "Never.", "OK");
        let tab = notice.key(&Key::Named(Named::Tab), none).unwrap();
        let _ = notice.update(tab, &ctx(none));
        let message = notice.key(&enter, none).unwrap();
        assert_eq!(
            notice.update(message, &ctx(none)).1,
            Some(Event::Cancelled(7))
        );
        let shown = simulator(notice.view())
            .find(selector::id(CONFIRM_ID))
            .is_ok();
        assert!(!shown, "no action button");
        assert_eq!(click(&mut notice, CANCEL_ID), [Event::Cancelled(7)]);
    }

    #[test]
    fn a_screen_token_can_be_wrapped_by_the_window() {
        #[derive(Debug, Clone, PartialEq)]
        enum Window {
            Trash(u32),
        }
        let mut dialog = delete_three().cancel_label("Keep").map(Window::Trash);
        assert_eq!(dialog.token(), &Window::Trash(7));
        let message = dialog
            .key(&Key::Character("d".into()), Modifiers::ALT)
            .unwrap();
        assert_eq!(
            dialog.update(message, &ctx(Modifiers::empty())).1,
            Some(Event::Confirmed(Window::Trash(7)))
        );
    }

    /// What cannot be undone is never a single Enter away: Cancel has the focus, and Alt with
    /// the action's underlined letter confirms.
    #[test]
    fn a_dangerous_question_starts_on_cancel_and_alt_letter_confirms() {
        let mut dialog = delete_three();
        let none = Modifiers::empty();
        let enter = dialog.key(&Key::Named(Named::Enter), none);
        assert_eq!(enter, Some(Message::Chose(Choice::Cancel)));
        assert_eq!(dialog.key(&Key::Character("d".into()), none), None);
        let alt_d = dialog.key(&Key::Character("d".into()), Modifiers::ALT);
        assert_eq!(alt_d, Some(Message::Chose(Choice::Confirm)));
        assert_eq!(
            dialog.key(&Key::Character("x".into()), Modifiers::ALT),
            None
        );
    }

    #[test]
    fn the_mnemonic_letter_is_its_own_underlined_span() {
        let spans = mnemonic_spans("Skip all", Some('a'));
        let texts: Vec<&str> = spans.iter().map(|s| s.text.as_ref()).collect();
        assert_eq!(texts, ["Skip ", "a", "ll"]);
        assert!(spans[1].underline && !spans[0].underline);
        assert_eq!(mnemonic_spans("Retry", None).len(), 1);
    }
}
