//! Tabs, each with one pane or two side by side (the split view, F3), and the stack of tabs
//! closed (Ctrl+Shift+T reopens). This screen hands out the panes' view ids: every pane is its
//! own view of the listing service, so two panes on one folder share its cached listing.

use std::path::{Path, PathBuf};

use ferry_core::dirs::ViewId;
use iced::widget::{Row, button, container, mouse_area, row, rule, text};
use iced::{Alignment, Element, Fill, Length, Point, Rectangle, Task};

use super::Ctx;
use super::browser::{self, Browser, Look};
use crate::gui::settings::{PaneSession, Session, TabSession};
use crate::gui::style;
use crate::gui::widget::pointer::pointer_area;

/// The size of a tab's name.
const TAB_TEXT: f32 = 13.0;
/// Space between two tabs.
const TAB_SPACING: f32 = 4.0;
/// Space between a tab's edge and its name.
const TAB_PADDING: f32 = 10.0;
/// The same when the tabs are narrow (see [`NAME_ROOM_MIN`]).
const TAB_PADDING_NARROW: f32 = 4.0;
/// ✕ and the space before it (with a few pixels to spare, so that a name measured a little
/// short never runs under ✕).
const TAB_CLOSE: f32 = 6.0 + 22.0 + 4.0;
/// Below this room for its name beside ✕, a tab shows ✕ only when it is the one shown.
const NAME_ROOM_MIN: f32 = 48.0;
/// The narrowest a tab gets (one that is not shown, in narrow mode): with more tabs than fit
/// so, the bar shows those around the shown tab, and ‹ and › go to the others, as Dolphin's
/// bar scrolls (25 tabs were each "p…").
const TAB_MIN: f32 = 64.0;
/// A ‹ or › button at an end of the bar, and the space after or before it.
const TAB_ARROW: f32 = 24.0 + TAB_SPACING;
/// The tab bar's height with its padding, as it was when it fitted its tabs: a responsive
/// bar takes all the height it is given.
const TAB_BAR_HEIGHT: f32 = 33.0;
/// The divider between the panes of a split: dragged, it gives one pane more room.
const DIVIDER: f32 = 5.0;
/// The least share of the width a pane of a split keeps.
const PANE_SHARE_MIN: f32 = 0.15;

/// How many closed tabs Ctrl+Shift+T can bring back.
const CLOSED_KEPT: usize = 16;

/// One tab: its panes (one, or two when split) and which has the keyboard.
#[derive(Debug)]
pub struct Tab {
    panes: Vec<Browser>,
    active: usize,
}

impl Tab {
    /// The pane with the keyboard.
    pub fn active(&self) -> &Browser {
        &self.panes[self.active]
    }

    /// Its panes, left first.
    pub fn panes(&self) -> &[Browser] {
        &self.panes
    }

    fn session(&self) -> TabSession {
        TabSession {
            panes: self
                .panes
                .iter()
                .map(|p| PaneSession {
                    path: p.path().to_path_buf(),
                })
                .collect(),
            active: self.active,
        }
    }
}

/// The tabs.
#[derive(Debug)]
pub struct Tabs {
    tabs: Vec<Tab>,
    active: usize,
    /// Tabs closed, newest last, with their panes' histories and where each was.
    closed: Vec<(TabSession, Vec<browser::History>, usize)>,
    next_view: ViewId,
    /// The tab under the pointer (a drag selects it).
    hovered: Option<usize>,
    /// The left pane's share of a split's width.
    split_share: f32,
    /// The split's bounds in the window, as its area last said.
    split_bounds: Rectangle,
    /// The divider is being dragged.
    dividing: bool,
}

/// Input of the tabs.
#[derive(Debug, Clone)]
pub enum Message {
    /// Something for the pane of view `ViewId`.
    Pane(ViewId, browser::Message),
    /// Show tab `usize`.
    Select(usize),
    /// Close tab `usize`.
    Close(usize),
    /// The pointer is over tab `usize`.
    Hovered(usize),
    /// The pointer left tab `usize`: forgotten only if it is still the one hovered (moving
    /// left, the next tab's enter comes before this one's exit).
    Left(usize),
    /// A press in a split, outside its panes (on the divider?), relative to the split.
    SplitPressed(Point),
    /// The pointer moved with that press held.
    SplitDragged(Point),
    /// That press ended.
    SplitReleased,
    /// The split's bounds in the window.
    SplitResized(Rectangle),
}

/// What the window must act on.
#[derive(Debug, Clone)]
pub enum Event {
    /// A pane asked for something.
    Pane(ViewId, browser::Event),
    /// The last tab was closed.
    LastClosed,
    /// Tabs, panes or folders changed: the session is worth saving.
    SessionChanged,
}

impl Tabs {
    /// The tabs of `session` (folders that are gone fall back to their nearest existing parent
    /// before this is called), or one tab on `start`.
    pub fn new(session: Option<&Session>, start: &Path, ctx: &Ctx<'_>) -> Self {
        let mut tabs = Tabs {
            tabs: Vec::new(),
            active: 0,
            closed: Vec::new(),
            next_view: 1,
            hovered: None,
            split_share: 0.5,
            split_bounds: Rectangle::default(),
            dividing: false,
        };
        match session.filter(|s| !s.tabs.is_empty()) {
            Some(session) => {
                for tab in &session.tabs {
                    let tab = tabs.restore(tab, ctx);
                    tabs.tabs.push(tab);
                }
                tabs.active = session.active.min(tabs.tabs.len() - 1);
            }
            None => {
                let pane = tabs.pane(start.to_path_buf(), ctx);
                tabs.tabs.push(Tab {
                    panes: vec![pane],
                    active: 0,
                });
            }
        }
        tabs
    }

    fn pane(&mut self, path: PathBuf, ctx: &Ctx<'_>) -> Browser {
        let view = self.next_view;
        self.next_view += 1;
        Browser::new(view, path, ctx)
    }

    fn restore(&mut self, tab: &TabSession, ctx: &Ctx<'_>) -> Tab {
        let panes: Vec<Browser> = tab
            .panes
            .iter()
            .take(2)
            .map(|p| self.pane(p.path.clone(), ctx))
            .collect();
        let active = tab.active.min(panes.len().saturating_sub(1));
        Tab { panes, active }
    }

    /// What to save: every tab's panes and which is active.
    pub fn session(&self) -> Session {
        Session {
            tabs: self.tabs.iter().map(Tab::session).collect(),
            active: self.active,
        }
    }

    /// The tab shown.
    pub fn current(&self) -> &Tab {
        &self.tabs[self.active]
    }

    /// How many tabs there are.
    pub fn count(&self) -> usize {
        self.tabs.len()
    }

    /// The pane with the keyboard.
    pub fn active_pane(&self) -> &Browser {
        self.current().active()
    }

    /// The pane with the keyboard, to change.
    pub fn active_pane_mut(&mut self) -> &mut Browser {
        let tab = &mut self.tabs[self.active];
        &mut tab.panes[tab.active]
    }

    /// The pane of `view`, in any tab.
    pub fn pane_mut(&mut self, view: ViewId) -> Option<&mut Browser> {
        self.tabs
            .iter_mut()
            .flat_map(|t| t.panes.iter_mut())
            .find(|p| p.view_id() == view)
    }

    /// Every pane of every tab.
    pub fn panes(&self) -> impl Iterator<Item = &Browser> {
        self.tabs.iter().flat_map(|t| t.panes.iter())
    }

    /// Pane `pane` of tab `tab`, to change.
    pub fn pane_at_mut(&mut self, tab: usize, pane: usize) -> Option<&mut Browser> {
        self.tabs.get_mut(tab)?.panes.get_mut(pane)
    }

    /// Every pane of every tab, to change.
    pub fn panes_mut(&mut self) -> impl Iterator<Item = &mut Browser> {
        self.tabs.iter_mut().flat_map(|t| t.panes.iter_mut())
    }

    /// The tab under the pointer.
    pub fn hovered_tab(&self) -> Option<usize> {
        self.hovered.filter(|&i| i < self.tabs.len())
    }

    /// The folder of tab `index`'s active pane.
    pub fn tab_folder(&self, index: usize) -> Option<std::path::PathBuf> {
        Some(self.tabs.get(index)?.active().path().to_path_buf())
    }

    /// The pane of the split shown that does not have the keyboard.
    pub fn inactive_pane(&self) -> Option<&Browser> {
        let tab = self.current();
        tab.panes
            .iter()
            .enumerate()
            .find(|(i, _)| *i != tab.active)
            .map(|(_, p)| p)
    }

    /// True when the tab shown is split.
    pub fn is_split(&self) -> bool {
        self.current().panes.len() > 1
    }

    /// Handles one message.
    pub fn update(&mut self, message: Message, ctx: &Ctx<'_>) -> (Task<Message>, Option<Event>) {
        match message {
            Message::Pane(view, message) => {
                let Some(pane) = self.pane_mut(view) else {
                    return (Task::none(), None); // its tab was closed
                };
                // A click in a pane's path bar is the user's turn to that pane, as one in its
                // list is: a folder typed there opened while the other kept the keyboard.
                let into_path_bar = matches!(
                    message,
                    browser::Message::EditPath | browser::Message::CrumbPressed(_)
                );
                let (task, event) = pane.update(message, ctx);
                if into_path_bar {
                    self.activate(view);
                }
                let task = task.map(move |m| Message::Pane(view, m));
                if matches!(
                    event,
                    Some(browser::Event::Activated | browser::Event::ContextMenu { .. })
                ) {
                    self.activate(view);
                }
                let event = match event {
                    Some(browser::Event::Navigated) => Some(Event::SessionChanged),
                    other => other.map(|e| Event::Pane(view, e)),
                };
                (task, event)
            }
            Message::Select(index) => (Task::none(), self.select(index)),
            Message::Hovered(index) => {
                self.hovered = Some(index);
                (Task::none(), None)
            }
            Message::Left(index) => {
                if self.hovered == Some(index) {
                    self.hovered = None;
                }
                (Task::none(), None)
            }
            Message::Close(index) => (Task::none(), self.close(index, ctx)),
            Message::SplitPressed(at) => {
                let divider = (self.split_bounds.width - DIVIDER) * self.split_share;
                self.dividing = (divider - 2.0..=divider + DIVIDER + 2.0).contains(&at.x);
                (Task::none(), None)
            }
            Message::SplitDragged(at) if self.dividing => {
                let room = (self.split_bounds.width - DIVIDER).max(1.0);
                let share = (at.x - DIVIDER / 2.0) / room;
                self.split_share = share.clamp(PANE_SHARE_MIN, 1.0 - PANE_SHARE_MIN);
                (Task::none(), None)
            }
            Message::SplitDragged(_) => (Task::none(), None),
            Message::SplitReleased => {
                self.dividing = false;
                (Task::none(), None)
            }
            Message::SplitResized(bounds) => {
                self.split_bounds = bounds;
                (Task::none(), None)
            }
        }
    }

    /// Gives the keyboard to the pane of `view` (and shows its tab).
    pub fn activate(&mut self, view: ViewId) {
        for (t, tab) in self.tabs.iter_mut().enumerate() {
            if let Some(p) = tab.panes.iter().position(|p| p.view_id() == view) {
                tab.active = p;
                self.active = t;
            }
        }
    }

    /// Opens a tab on `path` after the current one; shows it when `show`.
    pub fn open(&mut self, path: PathBuf, show: bool, ctx: &Ctx<'_>) -> Option<Event> {
        let pane = self.pane(path, ctx);
        let at = self.active + 1;
        self.tabs.insert(
            at,
            Tab {
                panes: vec![pane],
                active: 0,
            },
        );
        if show {
            self.active = at;
        }
        Some(Event::SessionChanged)
    }

    /// Shows tab `index` (counting from 0), if there is one.
    pub fn select(&mut self, index: usize) -> Option<Event> {
        (index < self.tabs.len() && index != self.active).then(|| {
            self.active = index;
            Event::SessionChanged
        })
    }

    /// Shows the next tab, or the previous one, wrapping around.
    pub fn cycle(&mut self, forward: bool) -> Option<Event> {
        let n = self.tabs.len();
        let next = if forward {
            (self.active + 1) % n
        } else {
            (self.active + n - 1) % n
        };
        self.select(next)
    }

    /// Closes tab `index`; closing the last one ends the window.
    pub fn close(&mut self, index: usize, ctx: &Ctx<'_>) -> Option<Event> {
        if index >= self.tabs.len() {
            return None;
        }
        if self.tabs.len() == 1 {
            return Some(Event::LastClosed);
        }
        let tab = self.tabs.remove(index);
        for pane in &tab.panes {
            pane.close(ctx);
        }
        // With each pane's Back and Forward: a tab reopened came back with neither.
        let histories = tab.panes.iter().map(|p| p.history().clone()).collect();
        self.closed.push((tab.session(), histories, index));
        if self.closed.len() > CLOSED_KEPT {
            self.closed.remove(0);
        }
        if self.active > index || self.active == self.tabs.len() {
            self.active = self.active.saturating_sub(1);
        }
        Some(Event::SessionChanged)
    }

    /// Opens the tab closed last again, where it can be, and shows it.
    pub fn reopen(&mut self, ctx: &Ctx<'_>) -> Option<Event> {
        let (closed, histories, index) = self.closed.pop()?;
        let mut tab = self.restore(&closed, ctx);
        for (pane, history) in tab.panes.iter_mut().zip(histories) {
            pane.set_history(history);
        }
        // Where it was, as browsers reopen a tab (it came back after the active one).
        let at = index.min(self.tabs.len());
        self.tabs.insert(at, tab);
        self.active = at;
        Some(Event::SessionChanged)
    }

    /// F3: splits the shown tab (the new pane shows the same folder and gets the keyboard),
    /// or closes the pane with the keyboard, as Dolphin does by default: F3 twice gives back
    /// the pane as it was, its history too (closing the other kept the new, history-less one).
    pub fn toggle_split(&mut self, ctx: &Ctx<'_>) -> Option<Event> {
        if self.is_split() {
            let tab = &mut self.tabs[self.active];
            let pane = tab.panes.remove(tab.active);
            pane.close(ctx);
            tab.active = 0;
        } else {
            let path = self.active_pane().path().to_path_buf();
            let pane = self.pane(path, ctx);
            let tab = &mut self.tabs[self.active];
            tab.panes.push(pane);
            tab.active = 1;
        }
        Some(Event::SessionChanged)
    }

    /// Opens `path` in the other pane of the split, splitting first if needed.
    pub fn open_in_split(&mut self, path: PathBuf, ctx: &Ctx<'_>) -> Option<Event> {
        if !self.is_split() {
            let pane = self.pane(path, ctx);
            let tab = &mut self.tabs[self.active];
            tab.panes.push(pane);
            tab.active = 1;
        } else {
            let tab = &mut self.tabs[self.active];
            let other = 1 - tab.active;
            let view = tab.panes[other].view_id();
            tab.panes[other] = Browser::new(view, path, ctx);
            tab.active = other;
        }
        Some(Event::SessionChanged)
    }

    /// Gives the keyboard to the first pane of the shown tab.
    pub fn activate_first(&mut self) {
        self.tabs[self.active].active = 0;
    }

    /// Gives the keyboard to the other pane of a split.
    pub fn other_pane(&mut self) {
        let tab = &mut self.tabs[self.active];
        if tab.panes.len() > 1 {
            tab.active = 1 - tab.active;
        }
    }

    /// The tab bar, once there are two tabs. The tabs share its width, and each name is
    /// shortened in the middle to what its tab leaves beside ✕: cut at 24 characters whatever
    /// the room, with a dozen tabs the names ran under ✕ and past the window's edge.
    pub fn tab_bar(&self) -> Option<Element<'_, Message>> {
        if self.tabs.len() < 2 {
            return None;
        }
        let bar = iced::widget::responsive(move |size| {
            let shown = shown_tabs(self.tabs.len(), self.active, size.width);
            let scrolls = shown.len() < self.tabs.len();
            let arrows = if scrolls { 2.0 * TAB_ARROW } else { 0.0 };
            #[allow(clippy::cast_precision_loss)] // a few tabs
            let n = shown.len() as f32;
            let widths = size.width - arrows - TAB_SPACING * (n - 1.0);
            let room = widths / n - 2.0 * TAB_PADDING - TAB_CLOSE;
            // Narrow tabs show ✕ on the shown tab alone, as browsers do (the others close with
            // a middle click, or Ctrl+W once shown), so their names keep some room; the shown
            // one is twice as wide as the others.
            let narrow = room < NAME_ROOM_MIN;
            let unit = if narrow {
                widths / (n + 1.0)
            } else {
                widths / n
            };
            let padding = if narrow {
                TAB_PADDING_NARROW
            } else {
                TAB_PADDING
            };
            let mut bar = Row::new().spacing(TAB_SPACING).align_y(Alignment::Center);
            let arrow = |label, to: Option<usize>| {
                button(text(label).size(TAB_TEXT).center())
                    .padding([4, 0])
                    .width(TAB_ARROW - TAB_SPACING)
                    .style(style::tool_button)
                    .on_press_maybe(to.map(Message::Select))
            };
            if scrolls {
                bar = bar.push(arrow("‹", shown.start.checked_sub(1)));
            }
            for (i, tab) in self
                .tabs
                .iter()
                .enumerate()
                .take(shown.end)
                .skip(shown.start)
            {
                let with_close = !narrow || i == self.active;
                let (portion, width) = match (narrow, i == self.active) {
                    (true, true) => (2, 2.0 * unit),
                    _ => (1, unit),
                };
                let close_width = if with_close { TAB_CLOSE } else { 0.0 };
                let room = width - 2.0 * padding - close_width;
                let name = tab.active().folder_name();
                let name = crate::gui::fit::middle(name, room.max(0.0), TAB_TEXT);
                let name = text(name.into_owned())
                    .size(TAB_TEXT)
                    .wrapping(iced::widget::text::Wrapping::None)
                    .width(Fill);
                let label: Element<'_, Message> = if with_close {
                    let close = button(text("✕").size(11))
                        .padding([1, 5])
                        .style(style::tool_button)
                        .on_press(Message::Close(i));
                    row![name, close]
                        .spacing(6)
                        .align_y(Alignment::Center)
                        .into()
                } else {
                    name.into()
                };
                // Clipped: so many tabs that even "…" does not fit stay inside the bar.
                let tab = button(label)
                    .padding([4.0, padding])
                    .clip(true)
                    .width(iced::Length::FillPortion(portion))
                    .style(style::tab(i == self.active))
                    .on_press(Message::Select(i));
                // A middle click closes a tab, as in browsers.
                bar = bar.push(
                    mouse_area(tab)
                        .on_middle_press(Message::Close(i))
                        .on_enter(Message::Hovered(i))
                        .on_exit(Message::Left(i))
                        .interaction(iced::mouse::Interaction::Pointer),
                );
            }
            if scrolls {
                let next = (shown.end < self.tabs.len()).then_some(shown.end);
                bar = bar.push(arrow("›", next));
            }
            bar.clip(true).into()
        });
        Some(
            container(bar)
                .padding([4, 8])
                .width(Fill)
                .height(TAB_BAR_HEIGHT)
                .style(style::chrome)
                .into(),
        )
    }

    /// The shown tab's panes, side by side.
    /// The panes; `keyboard_elsewhere`: the places or the jobs panel have the keyboard, and
    /// no pane is drawn as having it (a tester saw the focus ring in the places and the
    /// pane's accent line, selection and focus ring at once).
    pub fn view(&self, keyboard_elsewhere: bool) -> Element<'_, Message> {
        let tab = self.current();
        let split = tab.panes.len() > 1;
        let mut panes = Row::new().height(Fill);
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // 150..=850
        let portions = [
            (self.split_share * 1000.0).round() as u16,
            ((1.0 - self.split_share) * 1000.0).round() as u16,
        ];
        for (i, pane) in tab.panes.iter().enumerate() {
            if i > 0 {
                let line = container(rule::vertical(1).style(style::separator))
                    .center_x(DIVIDER)
                    .height(Fill);
                panes = panes.push(
                    mouse_area(line).interaction(iced::mouse::Interaction::ResizingHorizontally),
                );
            }
            let view = pane.view_id();
            let width = if split {
                Length::FillPortion(portions[i.min(1)])
            } else {
                Length::Fill
            };
            panes = panes.push(
                container(
                    pane.view(pane_look(split, i == tab.active, keyboard_elsewhere))
                        .map(move |m| Message::Pane(view, m)),
                )
                .width(width),
            );
        }
        if !split {
            return panes.into();
        }
        pointer_area(panes)
            .on_press(Message::SplitPressed)
            .on_drag(Message::SplitDragged)
            .on_release(Message::SplitReleased)
            .on_resize(self.split_bounds, Message::SplitResized)
            .into()
    }
}

/// How a pane is drawn: with the keyboard elsewhere (the places, the jobs panel), none is
/// drawn as having it.
fn pane_look(split: bool, active: bool, keyboard_elsewhere: bool) -> Look {
    match (split, active) {
        _ if keyboard_elsewhere => Look::Inactive,
        (false, _) => Look::Alone,
        (true, true) => Look::Active,
        (true, false) => Look::Inactive,
    }
}

/// Which tabs the bar shows, `width` wide: all while each can have [`TAB_MIN`] (the shown one
/// twice that, as in narrow mode), else as many as fit beside ‹ and ›, the shown tab
/// (`active`) in their middle where the ends allow.
fn shown_tabs(count: usize, active: usize, width: f32) -> std::ops::Range<usize> {
    #[allow(clippy::cast_precision_loss)] // a few tabs
    let fit =
        |k: usize, room: f32| (k as f32 + 1.0) * TAB_MIN + (k as f32 - 1.0) * TAB_SPACING <= room;
    if fit(count, width) {
        return 0..count;
    }
    let room = width - 2.0 * TAB_ARROW;
    let mut k = 1;
    while k + 1 < count && fit(k + 1, room) {
        k += 1;
    }
    let start = active.saturating_sub(k / 2).min(count - k);
    start..start + k
}

#[cfg(test)]
mod tests {
    use super::*;

    /// With the places or the jobs panel holding the keyboard, no pane looks as if it had
    /// it: the focus was drawn in two places at once.
    #[test]
    fn a_pane_looks_active_only_with_the_keyboard() {
        assert_eq!(pane_look(false, true, false), Look::Alone);
        assert_eq!(pane_look(true, true, false), Look::Active);
        assert_eq!(pane_look(true, false, false), Look::Inactive);
        assert_eq!(pane_look(false, true, true), Look::Inactive);
        assert_eq!(pane_look(true, true, true), Look::Inactive);
    }

    /// 25 tabs in 1,264 pixels were each "p…": the bar shows those that fit around the shown
    /// one, and every tab while they fit.
    #[test]
    fn the_bar_shows_the_tabs_that_fit_around_the_shown_one() {
        assert_eq!(shown_tabs(3, 2, 1264.0), 0..3);
        for active in [0, 12, 24] {
            let shown = shown_tabs(25, active, 1264.0);
            assert!(shown.contains(&active), "{shown:?} holds {active}");
            assert!(shown.len() >= 10 && shown.len() < 25, "{shown:?}");
            #[allow(clippy::cast_precision_loss)]
            let each = (1264.0 - 2.0 * TAB_ARROW) / (shown.len() as f32 + 1.0);
            assert!(each >= TAB_MIN - TAB_SPACING, "{each} a tab");
        }
        assert_eq!(shown_tabs(25, 0, 1264.0).start, 0);
        assert_eq!(shown_tabs(25, 24, 1264.0).end, 25);
        assert_eq!(shown_tabs(4, 3, 100.0), 3..4, "at least the shown tab");
    }
}
