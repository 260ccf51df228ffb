//! The dialog's keyboard. iced 0.14 moves the focus only between text fields, so the dialog
//! keeps its own: [`Control`] names everything that can have the keyboard, Tab and Shift+Tab
//! walk them in the order shown, Enter (or Space) makes the one with the keyboard act, and
//! that one is drawn with a ring. It starts on the suggested answer (Apply in the table), so
//! Enter takes it. When the ring reaches the Rename field the field gets iced's focus
//! too, and loses it when the ring moves on.
//!
//! The window calls [`ConflictDialog::key`] for every key press no widget took while the
//! dialog is open (the dialog's card keeps Alt+letters from its text field, so they arrive
//! untaken), and feeds the message back to `update`.

use iced::Task;
use iced::keyboard::key::Named;
use iced::keyboard::{Key, Modifiers};
use iced::widget::{Id, operation};

use super::rows::{KINDS, RULES};
use super::{Act, ConflictDialog, Filter, Message, Mode, Rule, SortKey, single};
use crate::gui::shortcut::Step;

/// Something that can have the keyboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Control {
    /// An answer of the one-conflict dialog.
    Act(Act),
    /// The Rename field.
    RenameField,
    /// "Apply to all of this kind".
    ApplyAll,
    /// Back to the table.
    Back,
    /// Cancel job.
    CancelJob,
    /// A bulk rule.
    Rule(Rule),
    /// A filter chip.
    Filter(Filter),
    /// A column header.
    Sort(SortKey),
    /// One by one.
    OneByOne,
    /// Apply.
    Apply,
    /// The confirmation's "Keep Going".
    KeepGoing,
    /// The confirmation's "Cancel Job".
    ConfirmCancel,
}

/// The table's sortable columns, in order.
pub const SORTS: [SortKey; 5] = [
    SortKey::Name,
    SortKey::Kind,
    SortKey::Existing,
    SortKey::Incoming,
    SortKey::Answer,
];

/// The id of the job's Rename field.
pub fn rename_id(dialog: &ConflictDialog) -> Id {
    Id::from(format!("ferry-conflict-rename-{}", dialog.job.0))
}

impl ConflictDialog {
    /// Everything that can have the keyboard now, in Tab order.
    pub fn controls(&self) -> Vec<Control> {
        if self.confirming {
            return vec![Control::KeepGoing, Control::ConfirmCancel];
        }
        let mut controls = Vec::new();
        if let Some(row) = self.single_row() {
            for &act in single::offered(row.conflict.kind) {
                controls.push(match act {
                    Act::Rename => Control::RenameField,
                    act => Control::Act(act),
                });
            }
            controls.push(Control::ApplyAll);
            if self.has_back() {
                controls.push(Control::Back);
            }
            controls.push(Control::CancelJob);
            return controls;
        }
        controls.extend(RULES.iter().map(|&r| Control::Rule(r)));
        controls.extend(self.filters().into_iter().map(Control::Filter));
        controls.extend(SORTS.iter().map(|&k| Control::Sort(k)));
        // Greyed buttons take no keyboard: Enter on them did nothing.
        if self.rows.first_undecided().is_some() {
            controls.push(Control::OneByOne);
        }
        controls.push(Control::CancelJob);
        if self.rows.decided() > 0 {
            controls.push(Control::Apply);
        }
        controls
    }

    /// The filter chips shown: all, each kind present, identical (if any), undecided.
    pub(super) fn filters(&self) -> Vec<Filter> {
        let counts = self.rows.counts();
        let mut filters = vec![Filter::All];
        filters.extend(
            KINDS
                .iter()
                .zip(counts.kinds)
                .filter(|(_, n)| *n > 0)
                .map(|(&k, _)| Filter::Kind(k)),
        );
        if counts.identical > 0 {
            filters.push(Filter::Identical);
        }
        filters.push(Filter::Undecided);
        filters
    }

    /// Whether the lone conflict was reached from the table (and can go back to it).
    pub(super) fn has_back(&self) -> bool {
        matches!(self.mode, Mode::One { .. }) && self.rows.len() > 1
    }

    /// What has the keyboard.
    pub fn focused(&self) -> Control {
        let controls = self.controls();
        match self.focus {
            Some(c) if controls.contains(&c) => c,
            _ => self.suggested(),
        }
    }

    /// What Enter does before the keyboard moves: the suggested answer; in the table Apply
    /// once a row is answered, before that One by one, which asks each conflict in turn;
    /// "Cancel Job" in the confirmation.
    fn suggested(&self) -> Control {
        if self.confirming {
            return Control::ConfirmCancel;
        }
        match self.single_row() {
            Some(row) => match single::suggested(&row.conflict) {
                Act::Rename => Control::RenameField,
                act => Control::Act(act),
            },
            None if self.rows.decided() > 0 => Control::Apply,
            None => Control::OneByOne,
        }
    }

    /// Tab (`forward`) or Shift+Tab.
    pub(super) fn move_focus(&mut self, forward: bool) -> Task<Message> {
        let controls = self.controls();
        let now = self.focused();
        let at = controls.iter().position(|&c| c == now).unwrap_or(0);
        let n = controls.len();
        let next = if forward {
            (at + 1) % n
        } else {
            (at + n - 1) % n
        };
        self.focus = Some(controls[next]);
        focus_task(self, Some(now))
    }

    /// The message for a key press no widget took, if it means something here: Escape
    /// (Cancel job, or back from its confirmation), Enter or Space (the control with the
    /// keyboard), Tab and Shift+Tab, the arrows (the answers, or the table's rows), Delete
    /// (clears a row's answer), and the access letters with Alt: R Replace, N Replace if
    /// newer, S Skip, K Keep both, M Merge, E Rename, A apply to all, B back to the table,
    /// C Cancel job; in the table the answer letters answer the keyboard's row, P applies
    /// and O goes one by one.
    pub fn key(&mut self, key: &Key, modifiers: Modifiers) -> Option<Message> {
        if self.is_empty() {
            return None;
        }
        let table = self.single.is_none();
        if let Key::Named(named) = key.as_ref() {
            let step = |step| {
                if table {
                    Message::RowMoved(step)
                } else {
                    Message::FocusMoved(matches!(step, Step::Down))
                }
            };
            return match named {
                Named::Escape => Some(Message::Escape),
                Named::Enter => Some(Message::Activate),
                Named::Space if !modifiers.alt() => Some(Message::Activate),
                Named::Tab => Some(Message::FocusMoved(!modifiers.shift())),
                _ if self.confirming => None,
                Named::ArrowUp => Some(step(Step::Up)),
                Named::ArrowDown => Some(step(Step::Down)),
                Named::PageUp if table => Some(Message::RowMoved(Step::PageUp)),
                Named::PageDown if table => Some(Message::RowMoved(Step::PageDown)),
                Named::Home if table => Some(Message::RowMoved(Step::First)),
                Named::End if table => Some(Message::RowMoved(Step::Last)),
                Named::Delete | Named::Backspace if table => {
                    Some(Message::RowAnswered(self.cursor?, None))
                }
                _ => None,
            };
        }
        let Key::Character(c) = key.as_ref() else {
            return None;
        };
        if !modifiers.alt() || modifiers.control() || self.confirming {
            return None;
        }
        let letter = c.chars().next()?.to_ascii_lowercase();
        match letter {
            'c' => return Some(Message::CancelJob),
            'a' if !table => {
                let on = self.single.as_ref().is_some_and(|s| s.apply_all);
                return Some(Message::ApplyAllToggled(!on));
            }
            'b' if self.has_back() => return Some(Message::Back),
            'p' if table => return Some(Message::Apply),
            'o' if table => return Some(Message::OneByOne),
            _ => {}
        }
        let act = [
            Act::Replace,
            Act::ReplaceIfNewer,
            Act::Skip,
            Act::KeepBoth,
            Act::Merge,
            Act::Rename,
        ]
        .into_iter()
        .find(|a| a.letter() == letter)?;
        if table {
            let row = self.rows.get(self.cursor?)?;
            let fits = act == Act::Rename
                || act
                    .resolution()
                    .is_some_and(|r| super::rows::offered(row.conflict.kind).contains(&r));
            return fits.then_some(Message::Shortcut(act));
        }
        let row = self.single_row()?;
        if !single::offered(row.conflict.kind).contains(&act) {
            return None;
        }
        Some(match act {
            // The letter takes the keyboard to the field; Enter there renames.
            Act::Rename => Message::Focus(Control::RenameField),
            act => Message::Answered(act),
        })
    }
}

/// What `control` does when Enter is pressed on it.
pub(super) fn activate(dialog: &ConflictDialog, control: Control) -> Message {
    match control {
        Control::Act(act) => Message::Answered(act),
        Control::RenameField => Message::RenameSubmitted,
        Control::ApplyAll => {
            Message::ApplyAllToggled(!dialog.single.as_ref().is_some_and(|s| s.apply_all))
        }
        Control::Back => Message::Back,
        Control::CancelJob => Message::CancelJob,
        Control::Rule(rule) => Message::RuleApplied(rule),
        Control::Filter(filter) => Message::FilterChosen(filter),
        Control::Sort(key) => Message::SortChosen(key),
        Control::OneByOne => Message::OneByOne,
        Control::Apply => Message::Apply,
        Control::KeepGoing => Message::KeepGoing,
        Control::ConfirmCancel => Message::ConfirmCancel,
    }
}

/// Gives the Rename field iced's focus when the ring has just reached it (with the name's
/// stem selected, ready to be typed over), and takes it away when the ring has left it.
pub(super) fn focus_task(dialog: &ConflictDialog, before: Option<Control>) -> Task<Message> {
    let now = dialog.focused();
    let id = rename_id(dialog);
    match (
        before == Some(Control::RenameField),
        now == Control::RenameField,
    ) {
        (false, true) => {
            let stem = dialog
                .single
                .as_ref()
                .map_or(0, |s| single::stem_chars(&s.draft));
            Task::batch([
                operation::focus(id.clone()),
                operation::select_range(id, 0, stem),
            ])
        }
        // Focusing an id nobody has takes the focus from every field.
        (true, false) => operation::focus(Id::new("ferry-conflict-nothing")),
        _ => Task::none(),
    }
}
