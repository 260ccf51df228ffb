//! Every waiting conflict of a job in one table: per row the item, the kind, both sides'
//! size and date (the newer marked, identical files marked) and its answer; the bulk rules
//! and the kind filter above, the column headers sort. Only the rows in view are built
//! ([`windowed`]), so 10,000 rows cost a frame what 20 do.

use std::cmp::Ordering;

use ferry_core::entry::Kind;
use ferry_core::jobs::{ConflictKind, EntryInfo, Resolution};
use iced::widget::operation::{self, AbsoluteOffset};
use iced::widget::scrollable::{Direction, Scrollbar};
use iced::widget::tooltip::Position;
use iced::widget::{
    Id, Row as RowWidget, button, column, container, row, rule, scrollable, space, stack, text,
    tooltip,
};
use iced::{Alignment, Element, Fill, Length, Task};

use super::keys::SORTS;
use super::rows::{Filter, RULES, Row, SortKey, kind_rank};
use super::{ConflictDialog, Control, Message, look, words};
use crate::gui::format;
use crate::gui::shortcut::Step;
use crate::gui::style;
use crate::gui::widget::icon::{LinkMark, item_icon};
use crate::gui::widget::list::windowed;
use crate::gui::widget::mnemonic::mnemonic;
use crate::gui::widget::scrollbar::scrollbar;

/// Every row's height.
pub const ROW_H: f32 = 38.0;

const KIND_W: f32 = 80.0;
/// The table's width from which every column shows, the names with 180 pixels at least.
const FULL_WIDTH: f32 = 950.0;
const SIDE_W: f32 = 132.0;
/// The answer columns: Replace, Skip, Keep both, then Rename… and (folders) Merge, so that
/// a table of files has no gap.
const ANSWER_W: [f32; 5] = [70.0, 46.0, 80.0, 76.0, 62.0];
const ANSWERS: [Resolution; 3] = [Resolution::Replace, Resolution::Skip, Resolution::KeepBoth];

impl ConflictDialog {
    /// The id of the job's scrollable rows.
    fn rows_id(&self) -> Id {
        Id::from(format!("ferry-conflict-rows-{}", self.job.0))
    }

    /// Moves the table's keyboard row, scrolling it into view.
    pub(super) fn move_cursor(&mut self, step: Step) -> Task<Message> {
        let n = self.rows.shown();
        if n == 0 {
            return Task::none();
        }
        let at = self.cursor.and_then(|id| self.rows.shown_position(id));
        let page = self.scroll.page(ROW_H);
        let next = match (step, at) {
            (Step::First, _) | (_, None) => 0,
            (Step::Last, _) => n - 1,
            (Step::Up, Some(i)) => i.saturating_sub(1),
            (Step::Down, Some(i)) => (i + 1).min(n - 1),
            (Step::PageUp, Some(i)) => i.saturating_sub(page),
            (Step::PageDown, Some(i)) => (i + page).min(n - 1),
            (Step::Left | Step::Right, Some(i)) => i,
        };
        self.cursor = Some(self.rows.shown_row(next).conflict.id);
        self.reveal(next)
    }

    /// Scrolls the keyboard's row into view (after a sort).
    pub(super) fn reveal_cursor(&mut self) -> Task<Message> {
        match self.cursor.and_then(|id| self.rows.shown_position(id)) {
            Some(i) => self.reveal(i),
            None => Task::none(),
        }
    }

    fn reveal(&mut self, i: usize) -> Task<Message> {
        match self.scroll.reveal(i, ROW_H) {
            Some(y) => self.scroll_to(y),
            None => Task::none(),
        }
    }

    pub(super) fn scroll_to(&mut self, offset_y: f32) -> Task<Message> {
        self.scroll.offset_y = offset_y;
        operation::scroll_to(
            self.rows_id(),
            AbsoluteOffset {
                x: None,
                y: Some(offset_y),
            },
        )
    }
}

/// The table.
pub fn view(d: &ConflictDialog) -> Element<'_, Message> {
    let focused = d.focused();
    let total = d.rows.len();
    // Once every row has its answer, none waits: "2 conflicts waiting for an answer" stood
    // beside "2 of 2 decided".
    let title = match d.rows.decided() {
        decided if decided == total && total > 0 => {
            format!(
                "{} answered: Apply to go on",
                format::counted(total, "conflict", "conflicts")
            )
        }
        _ => format!(
            "{} waiting for an answer",
            format::counted(total, "conflict", "conflicts")
        ),
    };
    let heading = row![
        text(title).size(18).font(style::bold()),
        space::horizontal(),
        text(words::summary(d.rows.decided(), total))
            .size(13)
            .style(style::dim_text),
    ]
    .align_y(Alignment::Center);
    let rules = RULES.iter().fold(
        row![
            text("Fill the undecided rows shown:")
                .size(12)
                .style(style::dim_text)
        ]
        .spacing(6)
        .align_y(Alignment::Center),
        |r, &rule| {
            let chip = button(text(words::rule(rule)).size(12))
                .padding([4, 10])
                .style(look::chip(false, focused == Control::Rule(rule)))
                .on_press(Message::RuleApplied(rule));
            let tip = container(text(words::rule_detail(rule)).size(12))
                .padding([4, 8])
                .style(container::rounded_box);
            r.push(tooltip(chip, tip, Position::Bottom).gap(4))
        },
    );
    let counts = d.rows.counts();
    let filters = d.filters().into_iter().fold(
        row![text("Show:").size(12).style(style::dim_text)]
            .spacing(6)
            .align_y(Alignment::Center),
        |r, filter| {
            let (label, n) = match filter {
                Filter::All => ("All", total),
                Filter::Kind(kind) => (words::kind_filter(kind), counts.kinds[kind_rank(kind)]),
                Filter::Identical => ("Identical", counts.identical),
                Filter::Undecided => ("Undecided", total - d.rows.decided()),
            };
            let on = d.rows.filter() == filter;
            r.push(
                button(
                    row![
                        text(label).size(12),
                        text(format::count(n)).size(11).style(style::dim_text)
                    ]
                    .spacing(5),
                )
                .padding([3, 9])
                .style(look::chip(on, focused == Control::Filter(filter)))
                .on_press(Message::FilterChosen(filter)),
            )
        },
    );
    column![
        text(&d.title).size(12).style(style::dim_text),
        heading,
        text(
            "The rest of the job goes on meanwhile. Answer rows, or let a rule fill the \
             undecided ones, then Apply; rows without an answer keep waiting."
        )
        .size(12)
        .style(style::dim_text),
        // In a small window the chips go on to a second line: at 640 px "Skip all" was cut off.
        rules.wrap().vertical_spacing(6),
        filters.wrap().vertical_spacing(6),
        container(iced::widget::responsive(move |size| {
            // Too narrow for every column (an 800-pixel window), the names and the answers:
            // the names went first, the table reading "File · 7 bytes" with nothing to tell
            // its rows apart. One by one… shows the rest.
            let narrow = size.width < FULL_WIDTH;
            column![
                header(d, focused, narrow),
                rule::horizontal(1).style(style::separator),
                body(d, narrow)
            ]
            .into()
        }))
        .padding([4, 4])
        .height(Fill)
        .style(look::table),
        bottom(d, focused),
    ]
    .spacing(10)
    .into()
}

fn header(d: &ConflictDialog, focused: Control, narrow: bool) -> Element<'_, Message> {
    let sort = d.rows.sort();
    let cell = |key: SortKey, label: &'static str, width: Length| {
        let arrow = match (sort.key == key, sort.descending) {
            (false, _) => "",
            (true, false) => "▲",
            (true, true) => "▼",
        };
        button(
            row![text(label).size(12), text(arrow).size(9)]
                .spacing(4)
                .align_y(Alignment::Center),
        )
        .padding([4, 6])
        .width(width)
        .style(look::bare(focused == Control::Sort(key)))
        .on_press(Message::SortChosen(key))
    };
    let widths = [
        Length::Fill,
        Length::Fixed(KIND_W),
        Length::Fixed(SIDE_W),
        Length::Fixed(SIDE_W),
        Length::Fixed(ANSWER_W.iter().sum::<f32>() + 4.0 * 4.0),
    ];
    let labels = ["Name", "Kind", "Existing", "Incoming", "Answer"];
    // As the rows: their padding, and the scrollbar's room on the right.
    let padding = iced::Padding::from([2, 8]).right(22);
    let mut cells = RowWidget::new().spacing(8).padding(padding);
    for (k, ((key, label), width)) in SORTS.iter().zip(labels).zip(widths).enumerate() {
        if !narrow || k == 0 || k == 4 {
            cells = cells.push(cell(*key, label, width));
        }
    }
    cells.into()
}

fn body(d: &ConflictDialog, narrow: bool) -> Element<'_, Message> {
    let shown = d.rows.shown();
    if shown == 0 {
        return container(text("No conflict is shown: choose another filter.").size(13))
            .center(Fill)
            .into();
    }
    let now = format::now();
    let list = windowed(shown, d.scroll, ROW_H, |i| {
        let r = d.rows.shown_row(i);
        table_row(d, r, (d.cursor == Some(r.conflict.id), narrow), &now)
    });
    // Room on the right for the scrollbar.
    let list = container(list).padding(iced::Padding::ZERO.right(14));
    #[allow(clippy::cast_precision_loss)] // a pixel height
    let content_h = shown as f32 * ROW_H;
    let scroll = scrollable(list)
        .id(d.rows_id())
        .direction(Direction::Vertical(Scrollbar::hidden()))
        .on_scroll(|viewport| Message::Scrolled {
            offset_y: viewport.absolute_offset().y,
            viewport_h: viewport.bounds().height,
        })
        .height(Fill);
    let bar = scrollbar(
        content_h,
        d.scroll.viewport_h,
        d.scroll.offset_y,
        Message::ScrollTo,
    );
    stack![scroll, container(bar).align_right(Fill).height(Fill)].into()
}

fn table_row<'a>(
    d: &'a ConflictDialog,
    r: &'a Row,
    (current, narrow): (bool, bool),
    now: &chrono::DateTime<chrono::Local>,
) -> Element<'a, Message> {
    let c = &r.conflict;
    let newer = r.newer();
    let folder = match &d.dest_dir {
        // Items of one name: where each comes from tells them apart.
        _ if c.kind == ConflictKind::DuplicateSource => Some(d.source_place(&c.source.path)),
        Some(dir) => c
            .dest
            .path
            .parent()
            .and_then(|p| p.strip_prefix(dir).ok())
            .map(|p| format::shown_name(p.as_os_str()))
            .filter(|p| !p.is_empty())
            .map(|p| format!("in {}", format::ellipsize_middle(p, 34))),
        None => None,
    }
    .unwrap_or_else(|| format!("in {}", words::folder_of(&c.dest.path)));
    let mut second = row![text(folder).size(11).style(style::dim_text)].spacing(6);
    if c.likely_identical {
        second = second.push(
            container(text("identical").size(10))
                .padding([0, 4])
                .style(look::badge(true)),
        );
    }
    let name = button(
        row![
            item_icon(r.icons.0, LinkMark::of(c.source.kind, Kind::File), 18.0),
            column![
                text(format::ellipsize_middle(words::name(&c.source.name), 40))
                    .size(13)
                    .wrapping(text::Wrapping::None),
                second
            ]
        ]
        .spacing(8)
        .align_y(Alignment::Center),
    )
    .padding(0)
    .width(Fill)
    .style(|t, _| iced::widget::button::Style {
        text_color: style::colors(t).text,
        ..iced::widget::button::Style::default()
    })
    .on_press(Message::RowPicked(c.id));
    // Clipped: a long name, shortened to 40 characters, still ran into the Kind column's
    // "File" in a narrow table.
    let name = container(name).width(Fill).clip(true);
    let existing: Element<'a, Message> = if c.kind == ConflictKind::NameNotAllowed {
        text("name not allowed")
            .size(11)
            .style(style::danger_text)
            .into()
    } else {
        side_cell(&c.dest, newer == Some(Ordering::Less), now)
    };
    let cells = match narrow {
        true => row![name, answers(r, current)],
        false => row![
            name,
            container(
                text(words::kind_short(c.kind))
                    .size(12)
                    .style(style::dim_text)
            )
            .width(KIND_W),
            container(existing).width(SIDE_W),
            container(side_cell(&c.source, newer == Some(Ordering::Greater), now)).width(SIDE_W),
            answers(r, current),
        ],
    }
    .spacing(8)
    .align_y(Alignment::Center);
    container(cells)
        .padding([0, 8])
        .height(ROW_H)
        .center_y(ROW_H)
        .style(look::row(current))
        .into()
}

/// Size (or "Folder") over date; the newer side's date in the accent.
fn side_cell<'a>(
    info: &EntryInfo,
    newer: bool,
    now: &chrono::DateTime<chrono::Local>,
) -> Element<'a, Message> {
    let size = words::what(info, SIDE_W);
    let date = format::modified(info.mtime.sec, now);
    let date = if newer {
        // "· newer" where it fits (bold runs about a tenth wider than the measure): "Yesterday
        // 23:52 · newer" wrapped onto a third line, over the next row. The accent still says it.
        let marked = format!("{date} · newer");
        let fits = crate::gui::fit::width(&marked, 11.0) * 1.1 <= SIDE_W;
        text(if fits { marked } else { date })
            .size(11)
            .style(look::newer_text)
            .font(style::bold())
            .wrapping(iced::widget::text::Wrapping::None)
    } else {
        text(date).size(11).style(style::dim_text)
    };
    column![text(size).size(12), date].into()
}

/// A row's answers: one toggle per answer that fits, in fixed columns.
fn answers(r: &Row, current: bool) -> Element<'_, Message> {
    let c = &r.conflict;
    let offered = super::rows::offered(c.kind);
    // The access letters show on the keyboard's row, which they answer.
    let letter = |l| current.then_some(l);
    let toggle = |answer: &Resolution, width: f32| -> Element<'_, Message> {
        if !offered.contains(answer) {
            return space().width(width).into();
        }
        let on = r.answer.as_ref() == Some(answer);
        let key = match answer {
            Resolution::Replace => 'r',
            Resolution::Merge => 'm',
            Resolution::Skip => 's',
            _ => 'k',
        };
        let label = mnemonic(
            words::answer(answer),
            letter(key),
            12.0,
            iced::Font::DEFAULT,
        );
        button(container(label).center_x(Fill))
            .padding([3, 2])
            .width(width)
            .style(look::chip(on, false))
            .on_press(Message::RowAnswered(c.id, (!on).then(|| answer.clone())))
            .into()
    };
    let renamed = matches!(r.answer, Some(Resolution::RenameTo(_)));
    let rename = button(
        container(mnemonic("Rename…", letter('e'), 12.0, iced::Font::DEFAULT)).center_x(Fill),
    )
    .padding([3, 2])
    .width(ANSWER_W[3])
    .style(look::chip(renamed, false))
    .on_press(Message::RowRename(c.id));
    let mut cells = RowWidget::new().spacing(4).align_y(Alignment::Center);
    for (answer, width) in ANSWERS.iter().zip(ANSWER_W) {
        cells = cells.push(toggle(answer, width));
    }
    cells
        .push(rename)
        .push(toggle(&Resolution::Merge, ANSWER_W[4]))
        .into()
}

/// The bottom row: the confirmation before a job with work done is cancelled, else the
/// dialog's own buttons (in the table: the count, One by one, Cancel job and Apply).
pub fn bottom(d: &ConflictDialog, focused: Control) -> Element<'_, Message> {
    let plain = |label: &'static str, letter: char, control: Control, message: Option<Message>| {
        button(mnemonic(label, Some(letter), 13.0, iced::Font::DEFAULT))
            .padding([6, 14])
            .style(look::plain(focused == control))
            .on_press_maybe(message)
    };
    if d.confirming {
        let done = usize::try_from(d.done).unwrap_or(usize::MAX);
        let stay = if done == 1 { "stays" } else { "stay" };
        let question = format!(
            "Cancel the job? The {} done so far {stay}; nothing else is copied or moved.",
            format::counted(done, "item", "items")
        );
        let cancel = button(text("Cancel Job").size(13))
            .padding([6, 14])
            .style(look::strong(true, focused == Control::ConfirmCancel))
            .on_press(Message::ConfirmCancel);
        let keep = button(text("Keep Going").size(13))
            .padding([6, 14])
            .style(look::plain(focused == Control::KeepGoing))
            .on_press(Message::KeepGoing);
        return container(
            row![text(question).size(13).width(Fill), keep, cancel]
                .spacing(8)
                .align_y(Alignment::Center),
        )
        .padding([8, 12])
        .style(look::confirm)
        .into();
    }
    let cancel = plain(
        "Cancel Job",
        'c',
        Control::CancelJob,
        Some(Message::CancelJob),
    );
    if d.single.is_some() {
        let mut bar = row![space::horizontal()]
            .spacing(8)
            .align_y(Alignment::Center);
        if d.has_back() {
            bar = bar.push(plain(
                "Back to the table",
                'b',
                Control::Back,
                Some(Message::Back),
            ));
        }
        return bar.push(cancel).into();
    }
    let decided = d.rows.decided();
    let apply = button(mnemonic("Apply", Some('p'), 13.0, style::bold()))
        .padding([6, 18])
        .style(look::strong(false, focused == Control::Apply))
        .on_press_maybe((decided > 0).then_some(Message::Apply));
    let what = match decided {
        0 => "Answer rows to apply them.".to_owned(),
        n => format!("Apply sends {}.", format::counted(n, "answer", "answers")),
    };
    row![
        text(what).size(12).style(style::dim_text),
        space::horizontal(),
        plain(
            "One by one…",
            'o',
            Control::OneByOne,
            (d.rows.first_undecided().is_some()).then_some(Message::OneByOne)
        ),
        cancel,
        apply
    ]
    .spacing(8)
    .align_y(Alignment::Center)
    .into()
}
