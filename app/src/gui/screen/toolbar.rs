//! The window's toolbar: history and parent folder for the active pane, the view modes, the
//! split, and the menu. It holds no state: what it shows comes from the active pane.

use iced::widget::{button, container, row, space, text};
use iced::{Alignment, Element, Fill, Point};

use super::browser::Browser;
use crate::gui::settings::ViewMode;
use crate::gui::shortcut::{PaneAction, WindowAction};
use crate::gui::style;
use crate::gui::widget::tool;

/// What a toolbar button asks for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Message {
    /// For the active pane.
    Pane(PaneAction),
    /// For the window.
    Window(WindowAction),
    /// Open the window's menu under this point.
    Menu(Point),
}

/// The toolbar for `pane`, the active one; `trash`: whether the Trash view is shown, and
/// whether Forward would show it again; `width` is the window's (the menu opens under its
/// right end).
pub fn view(
    pane: &Browser,
    split: bool,
    (in_trash, trash_ahead): (bool, bool),
    width: f32,
) -> Element<'_, Message> {
    // In the Trash view, Back and Up lead back to the panes, and the panes' modes are not
    // shown.
    let back = tool(
        "←",
        "Back (Alt+Left)",
        (pane.can_go_back() || in_trash).then_some(Message::Pane(PaneAction::Back)),
    );
    let forward = tool(
        "→",
        "Forward (Alt+Right)",
        ((pane.can_go_forward() || trash_ahead) && !in_trash)
            .then_some(Message::Pane(PaneAction::Forward)),
    );
    let up = tool(
        "↑",
        "Parent folder (Alt+Up)",
        pane.path().parent().map(|_| Message::Pane(PaneAction::Up)),
    );
    let refresh = tool(
        "⟳",
        "Refresh (F5)",
        Some(Message::Pane(PaneAction::Refresh)),
    );
    let mode = |label: &'static str, this: ViewMode, action: PaneAction| {
        button(text(label).size(13))
            .padding([5, 10])
            .style(style::tab(pane.mode() == this))
            .on_press(Message::Pane(action))
    };
    let modes = row![
        mode("Details", ViewMode::Details, PaneAction::DetailsView),
        mode("Icons", ViewMode::Icons, PaneAction::IconsView)
    ]
    .spacing(2);
    let split = button(text(if split { "Close split" } else { "Split" }).size(13))
        .padding([5, 10])
        .style(style::tool_button)
        .on_press(Message::Window(WindowAction::ToggleSplit));
    let menu = tool(
        "☰",
        "Menu (F10)",
        Some(Message::Menu(Point::new(width - 8.0, 46.0))),
    );
    let mut bar = row![back, forward, up, refresh, space::horizontal()];
    if !in_trash {
        bar = bar.push(modes).push(split);
    }
    let bar = bar.push(menu).spacing(6).align_y(Alignment::Center);
    container(bar)
        .padding([6, 10])
        .width(Fill)
        .style(style::chrome)
        .into()
}
