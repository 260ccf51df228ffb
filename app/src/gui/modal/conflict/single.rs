//! One conflict alone: both sides (icon, name, size, date, the newer one marked, identical
//! files said so, a folder's item count once counted), the question, every answer with what
//! it will do, Rename with a checked name, and "apply to all of this kind".
//!
//! What needs the disk is found on a worker thread ([`checks`](super::checks)); until the
//! destination has been read, the names shown are the ones the rules of a Unix disk give.

use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;
use std::sync::Arc;

use ferry_core::Error;
use ferry_core::entry::Kind;
use ferry_core::jobs::{Conflict, ConflictId, ConflictKind, EntryInfo, NameRules, keep_both_name};
use iced::widget::{Column, button, checkbox, column, container, row, text, text_input};
use iced::{Alignment, Element, Fill, Task};

use super::checks::{self, Items, Probe, Probed, guessed_rules};
use super::rows::Row;
use super::{Act, ConflictDialog, Control, Message, keys, look, words};
use crate::gui::format::{self, Category};
use crate::gui::name_text::NameText;
use crate::gui::style;
use crate::gui::widget::icon::{LinkMark, item_icon};
use crate::gui::widget::mnemonic::mnemonic;

/// The answers offered for a conflict of `kind`, in the order shown.
pub fn offered(kind: ConflictKind) -> &'static [Act] {
    match kind {
        ConflictKind::FileExists => &[
            Act::Replace,
            Act::ReplaceIfNewer,
            Act::Skip,
            Act::KeepBoth,
            Act::Rename,
        ],
        ConflictKind::FolderExists => &[
            Act::Merge,
            Act::Replace,
            Act::Skip,
            Act::KeepBoth,
            Act::Rename,
        ],
        ConflictKind::FileVsFolder => &[Act::Replace, Act::Skip, Act::KeepBoth, Act::Rename],
        ConflictKind::DuplicateSource => &[Act::KeepBoth, Act::Skip, Act::Rename],
        ConflictKind::NameNotAllowed => &[Act::Rename, Act::Skip],
    }
}

/// The answer Enter takes: skip what looks identical or is not newer, replace an older
/// file, merge folders, keep both where one cannot replace the other, rename a name the
/// disk refuses.
pub fn suggested(c: &Conflict) -> Act {
    match c.kind {
        ConflictKind::FileExists if c.likely_identical => Act::Skip,
        ConflictKind::FileExists if c.source.mtime > c.dest.mtime => Act::Replace,
        ConflictKind::FileExists => Act::Skip,
        ConflictKind::FolderExists => Act::Merge,
        ConflictKind::FileVsFolder | ConflictKind::DuplicateSource => Act::KeepBoth,
        ConflictKind::NameNotAllowed => Act::Rename,
    }
}

pub use crate::gui::name_text::stem_chars;

/// Where the name in the Rename field stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NameState {
    /// Not checked.
    Unchecked,
    /// Being checked on the disk.
    Checking,
    /// Free, and allowed.
    Free,
    /// Refused, and why.
    Refused(String),
}

/// The probe's state.
#[derive(Debug, Clone)]
enum Probing {
    Loading,
    Ready(Arc<Probe>),
    Failed(Arc<Error>),
}

/// The conflict shown alone.
#[derive(Debug, Clone)]
pub struct Single {
    pub(super) id: ConflictId,
    pub(super) apply_all: bool,
    /// The name in the Rename field.
    pub(super) draft: String,
    /// The name the field was filled with, to read what is typed back into a name.
    pub(super) draft_name: NameText,
    /// Typed into by the user (the probe's suggestion no longer replaces it).
    pub(super) edited: bool,
    pub(super) name: NameState,
    probe: Probing,
    kept: String,
    /// The folder its item goes into, if known.
    pub(super) folder: Option<PathBuf>,
    pub(super) kind: ConflictKind,
}

impl Single {
    /// The state for `row`, whose item goes into `folder` (if known), and the task that
    /// probes the folder.
    pub fn new(row: &Row, folder: Option<PathBuf>) -> (Single, Task<Message>) {
        let c = &row.conflict;
        // The name the incoming item would have at the place, as the engine's Keep both takes
        // it. Not the other side's: of two trashed `n.txt` restored into one folder, the first
        // is `n.txt.3` in the trash, and "n.txt (copy).3" was offered.
        let name = c.source.name.clone();
        let guess = guessed_rules(c.kind);
        let is_folder = c.source.kind == Kind::Dir;
        let kept = keep_both_name(&name, is_folder, guess.name_max, |n| n == name.as_os_str());
        let draft = match c.kind {
            ConflictKind::NameNotAllowed => guess.fix(&name),
            _ => kept.clone(),
        };
        let draft_name = NameText::of(draft.as_bytes());
        let single = Single {
            id: c.id,
            apply_all: false,
            draft: draft_name.shown.clone(),
            draft_name,
            edited: false,
            name: NameState::Unchecked,
            probe: Probing::Loading,
            kept: format::shown_name(&kept).into_owned(),
            folder: folder.clone(),
            kind: c.kind,
        };
        let task = folder.map_or_else(Task::none, |folder| checks::probe_task(c, folder));
        (single, task)
    }

    /// The probe answered.
    pub fn probed(&mut self, probed: Probed) {
        if probed.id != self.id {
            return;
        }
        self.probe = match probed.result {
            Ok(probe) => {
                if !self.edited {
                    self.draft_name = NameText::of(probe.suggestion.as_bytes());
                    self.draft = self.draft_name.shown.clone();
                }
                self.kept = format::shown_name(&probe.kept).into_owned();
                Probing::Ready(probe)
            }
            Err(e) => Probing::Failed(e),
        };
    }

    /// The destination's rules: found, or guessed.
    pub(super) fn rules(&self) -> Option<NameRules> {
        match &self.probe {
            Probing::Ready(p) => Some(p.rules),
            _ => None,
        }
    }

    fn failed(&self) -> Option<&Error> {
        match &self.probe {
            Probing::Failed(e) => Some(e),
            _ => None,
        }
    }

    fn found(&self) -> Option<&Probe> {
        match &self.probe {
            Probing::Ready(p) => Some(p),
            _ => None,
        }
    }
}

/// The view of `single`, whose row is `row`.
pub fn view<'a>(d: &'a ConflictDialog, single: &'a Single, row: &'a Row) -> Element<'a, Message> {
    let c = &row.conflict;
    let folder = match (c.kind, d.folder_of(c)) {
        (ConflictKind::DuplicateSource, Some(dir)) => {
            format::display_name(&dir).into_owned().into()
        }
        _ => words::folder_of(&c.dest.path),
    };
    let problem = single.rules().and_then(|r| r.problem(&c.source.name));
    let mut content = column![
        text(&d.title).size(12).style(style::dim_text),
        text(words::question(c, &folder))
            .size(18)
            .font(style::bold()),
        text(words::explanation(c, problem))
            .size(13)
            .style(style::dim_text),
    ]
    .spacing(6);
    content = content.push(sides(d, row, single));
    if c.likely_identical {
        content = content.push(
            container(text(identical_words(c.source.kind)).size(13))
                .padding([4, 10])
                .style(look::badge(true)),
        );
    }
    let focused = d.focused();
    let suggested = suggested(c);
    let mut answers = Column::new().spacing(6);
    for &act in offered(c.kind) {
        answers = answers.push(match act {
            Act::Rename => rename_row(d, single, c, focused == Control::RenameField),
            act => answer_row(
                (c, d.undoing),
                act,
                &single.kept,
                act == suggested,
                focused == Control::Act(act),
            ),
        });
    }
    content = content.push(answers);
    let others = d.rows.others_of_kind(c.kind, c.id);
    let apply_all = row![
        checkbox(single.apply_all)
            .on_toggle(Message::ApplyAllToggled)
            .size(16),
        button(mnemonic(
            words::apply_to_all(others),
            Some('a'),
            13.0,
            style::bold()
        ))
        .padding([2, 4])
        .style(look::bare(false))
        .on_press(Message::ApplyAllToggled(!single.apply_all)),
    ]
    .spacing(6)
    .align_y(Alignment::Center);
    content = content.push(
        container(apply_all)
            .padding([2, 6])
            .style(move |t| ring_box(t, focused == Control::ApplyAll)),
    );
    content = content.push(super::table::bottom(d, focused));
    content.spacing(12).into()
}

/// A frame that shows the keyboard's ring when `on`.
pub fn ring_box(theme: &iced::Theme, on: bool) -> container::Style {
    let c = style::colors(theme);
    container::Style {
        border: iced::Border {
            color: if on {
                c.accent
            } else {
                iced::Color::TRANSPARENT
            },
            width: 2.0,
            radius: 7.0.into(),
        },
        ..container::Style::default()
    }
}

/// One answer: its title with the access letter, and what it will do.
fn answer_row<'a>(
    (c, undoing): (&Conflict, bool),
    act: Act,
    kept: &str,
    suggested: bool,
    focused: bool,
) -> Element<'a, Message> {
    let title = mnemonic(
        words::act_title(act, c),
        Some(act.letter()),
        14.0,
        style::bold(),
    );
    let detail = text(words::act_detail(act, c, kept, undoing))
        .size(12)
        .style(style::dim_text);
    button(
        row![container(title).width(150), detail.width(Fill)]
            .spacing(12)
            .align_y(Alignment::Center),
    )
    .padding([8, 12])
    .width(Fill)
    .style(look::answer(suggested, focused))
    .on_press(Message::Answered(act))
    .into()
}

/// Rename: its title (pressing it renames), the field, and where the name stands.
fn rename_row<'a>(
    d: &'a ConflictDialog,
    single: &'a Single,
    c: &'a Conflict,
    focused: bool,
) -> Element<'a, Message> {
    let title = button(mnemonic("Rename", Some('e'), 14.0, style::bold()))
        .padding(0)
        .style(look::bare(false))
        .on_press(Message::RenameSubmitted);
    let field = text_input("A new name", &single.draft)
        .id(keys::rename_id(d))
        .on_input(Message::RenameEdited)
        .on_submit(Message::RenameSubmitted)
        .size(13)
        .padding([5, 8])
        .style(style::path_input);
    let line: Element<'a, Message> = match &single.name {
        NameState::Refused(why) => text(why.as_str()).size(12).style(style::danger_text).into(),
        NameState::Checking => text("Checking the name…")
            .size(12)
            .style(style::dim_text)
            .into(),
        NameState::Free => text("That name is free.")
            .size(12)
            .style(style::dim_text)
            .into(),
        NameState::Unchecked if single.failed().is_some() => text(format!(
            "The destination could not be read ({}); the name is checked when it is written.",
            single.failed().map(ToString::to_string).unwrap_or_default()
        ))
        .size(12)
        .style(style::dim_text)
        .into(),
        NameState::Unchecked => text(words::act_detail(Act::Rename, c, &single.kept, false))
            .size(12)
            .style(style::dim_text)
            .into(),
    };
    let suggested = suggested(c) == Act::Rename;
    container(
        row![
            container(title).width(150),
            column![field, line].spacing(4).width(Fill)
        ]
        .spacing(12)
        .align_y(Alignment::Center),
    )
    .padding([8, 12])
    .width(Fill)
    .style(move |t| {
        let b = look::answer(suggested, focused)(t, button::Status::Active);
        container::Style {
            background: b.background,
            border: b.border,
            text_color: Some(b.text_color),
            ..container::Style::default()
        }
    })
    .into()
}

/// The existing and the incoming item side by side.
fn sides<'a>(d: &ConflictDialog, row: &'a Row, single: &'a Single) -> Element<'a, Message> {
    let c = &row.conflict;
    let now = format::now();
    let newer = row.newer();
    let found = single.found();
    let (left_title, right_title) = match c.kind {
        ConflictKind::DuplicateSource => ("First", "Second"),
        _ => ("Existing", "Incoming"),
    };
    let (mut right_place, mut left_place) = (d.place_of(&c.source.path), d.place_of(&c.dest.path));
    if right_place == left_place && c.kind != ConflictKind::DuplicateSource {
        let (from, to) = words::folders_apart(&c.source.path, &c.dest.path);
        (right_place, left_place) = (format!("in “{from}”"), format!("in “{to}”"));
    }
    let right = side(
        (right_title, right_place),
        &c.source,
        row.icons.0,
        newer == Some(std::cmp::Ordering::Greater),
        found.and_then(|p| p.incoming),
        &now,
    );
    let left = if c.kind == ConflictKind::NameNotAllowed {
        let why = single
            .rules()
            .and_then(|r| r.problem(&c.source.name))
            .map_or_else(
                || "The disk there cannot hold this name.".to_owned(),
                words::name_problem,
            );
        container(
            column![
                text("At the destination").size(11).style(style::dim_text),
                text(why).size(13),
            ]
            .spacing(6),
        )
        .padding(12)
        .width(Fill)
        .style(look::side)
        .into()
    } else {
        side(
            (left_title, left_place),
            &c.dest,
            row.icons.1,
            newer == Some(std::cmp::Ordering::Less),
            found.and_then(|p| p.existing),
            &now,
        )
    };
    row![left, right]
        .spacing(12)
        .height(iced::Length::Shrink)
        .into()
}

/// What the badge of two alike items says.
fn identical_words(kind: Kind) -> &'static str {
    match kind {
        Kind::Symlink => "These links point to the same place",
        _ => "These files look identical",
    }
}

/// One side: what it is, with its name, size, date, (folders) item count and (links) target.
fn side<'a>(
    (title, place): (&'a str, String),
    info: &'a EntryInfo,
    category: Category,
    newer: bool,
    items: Option<Items>,
    now: &chrono::DateTime<chrono::Local>,
) -> Element<'a, Message> {
    let heading = text(format!("{title} · {place}"))
        .size(11)
        .style(style::dim_text);
    // Fitted to the card as drawn (bold, 14 px): 34 wide letters ran into the other card.
    let name = crate::gui::fit::middle(words::name(&info.name), 250.0, 15.0);
    let size = match (info.kind, items) {
        (Kind::Dir, Some(items)) => format!("Folder · {}", words::items(items.n, items.capped)),
        _ => words::what(info, 250.0),
    };
    let date = format!("Modified {}", format::modified(info.mtime.sec, now));
    let mut date_line = row![text(date).size(12).style(if newer {
        look::newer_text
    } else {
        style::dim_text
    })]
    .spacing(6)
    .align_y(Alignment::Center);
    if newer {
        date_line = date_line.push(
            container(text("Newer").size(11).font(style::bold()))
                .padding([1, 6])
                .style(look::badge(false)),
        );
    }
    container(
        column![
            heading,
            row![
                item_icon(category, LinkMark::of(info.kind, Kind::File), 40.0),
                column![
                    text(name).size(14).font(style::bold()),
                    text(size).size(12),
                    date_line,
                ]
                .spacing(2)
            ]
            .spacing(10)
            .align_y(Alignment::Center),
        ]
        .spacing(6),
    )
    .padding(12)
    .width(Fill)
    .style(look::side)
    .into()
}
