//! Ferry's look: two palettes (light and dark, following the system) and the widget styles
//! built from them. Every colour used by the views comes from here.

use iced::font::Weight;
use iced::theme::{Mode, Palette};
use iced::widget::{button, container, rule, text, text_input};
use iced::{Background, Border, Color, Font, Theme, color};

use crate::gui::format::Category;

/// The colours of one variant of the theme.
#[derive(Debug, Clone, Copy)]
pub struct Colors {
    /// The list's background.
    pub base: Color,
    /// Toolbar, header and status bar.
    pub chrome: Color,
    /// Lines between areas.
    pub border: Color,
    /// Body text.
    pub text: Color,
    /// Secondary text (sizes, dates, status).
    pub dim: Color,
    /// A hovered row or button.
    pub hover: Color,
    /// A selected row.
    pub selected: Color,
    /// A selected row of the pane of a split without the keyboard.
    pub inactive_selected: Color,
    /// The accent: focus ring, active breadcrumb, toggles.
    pub accent: Color,
    /// Error text.
    pub danger: Color,
    /// The notice banner's background.
    pub notice: Color,
}

const LIGHT: Colors = Colors {
    base: color!(0xffffff),
    chrome: color!(0xf5f6f8),
    border: color!(0xe1e4e8),
    text: color!(0x1f2328),
    dim: color!(0x656d76),
    hover: color!(0xf0f2f5),
    selected: color!(0xd8e6fd),
    inactive_selected: color!(0xe3e6ea),
    accent: color!(0x2563eb),
    danger: color!(0xc62828),
    notice: color!(0xfff4d6),
};

const DARK: Colors = Colors {
    base: color!(0x1d1e21),
    chrome: color!(0x26282c),
    border: color!(0x37393e),
    text: color!(0xe6e7ea),
    dim: color!(0x9ba1a8),
    hover: color!(0x2b2d32),
    selected: color!(0x23406e),
    inactive_selected: color!(0x383b41),
    accent: color!(0x6d9bf1),
    danger: color!(0xf28b82),
    notice: color!(0x4a3f1c),
};

/// Ferry's theme for the system's colour scheme.
pub fn theme(mode: Mode) -> Theme {
    let (name, c) = match mode {
        Mode::Dark => ("Ferry Dark", DARK),
        Mode::Light | Mode::None => ("Ferry Light", LIGHT),
    };
    Theme::custom(
        name,
        Palette {
            background: c.base,
            text: c.text,
            primary: c.accent,
            success: color!(0x2e7d32),
            warning: color!(0xb26a00),
            danger: c.danger,
        },
    )
}

/// The colours for `theme`.
pub fn colors(theme: &Theme) -> &'static Colors {
    if theme.extended_palette().is_dark {
        &DARK
    } else {
        &LIGHT
    }
}

/// The toolbar and status bar.
pub fn chrome(theme: &Theme) -> container::Style {
    let c = colors(theme);
    container::Style {
        background: Some(c.chrome.into()),
        text_color: Some(c.text),
        ..container::Style::default()
    }
}

/// The list area.
pub fn list(theme: &Theme) -> container::Style {
    let c = colors(theme);
    container::Style {
        background: Some(c.base.into()),
        text_color: Some(c.text),
        ..container::Style::default()
    }
}

/// A one-pixel separator line.
pub fn separator(theme: &Theme) -> rule::Style {
    rule::Style {
        color: colors(theme).border,
        ..rule::default(theme)
    }
}

/// A flat toolbar button: no frame until hovered.
pub fn tool_button(theme: &Theme, status: button::Status) -> button::Style {
    let c = colors(theme);
    let base = button::Style {
        text_color: c.text,
        border: Border::default().rounded(6),
        ..button::Style::default()
    };
    match status {
        button::Status::Active => base,
        button::Status::Hovered => button::Style {
            background: Some(c.hover.into()),
            ..base
        },
        button::Status::Pressed => button::Style {
            background: Some(c.border.into()),
            ..base
        },
        button::Status::Disabled => button::Style {
            text_color: c.dim.scale_alpha(0.5),
            ..base
        },
    }
}

/// A breadcrumb segment; the current folder is drawn stronger.
pub fn crumb(current: bool) -> impl Fn(&Theme, button::Status) -> button::Style {
    move |theme, status| {
        let c = colors(theme);
        let style = tool_button(theme, status);
        button::Style {
            text_color: if current { c.text } else { c.dim },
            ..style
        }
    }
}

/// The path bar's frame, like a text field.
pub fn path_bar(theme: &Theme) -> container::Style {
    let c = colors(theme);
    container::Style {
        background: Some(c.base.into()),
        border: Border {
            color: c.border,
            width: 1.0,
            radius: 8.0.into(),
        },
        ..container::Style::default()
    }
}

/// The path bar while a path is typed into it: the same frame, with the accent when focused.
pub fn path_input(theme: &Theme, status: text_input::Status) -> text_input::Style {
    let c = colors(theme);
    let focused = matches!(status, text_input::Status::Focused { .. });
    text_input::Style {
        background: c.base.into(),
        border: Border {
            color: if focused { c.accent } else { c.border },
            width: if focused { 1.5 } else { 1.0 },
            radius: 8.0.into(),
        },
        icon: c.dim,
        placeholder: c.dim,
        value: c.text,
        // Stronger than a selected row's blue: F2's selected name, in a field on a selected
        // row, was hard to tell from the row.
        selection: c.accent.scale_alpha(0.35),
    }
}

/// A column header: text only, a light background when hovered.
pub fn header_button(theme: &Theme, status: button::Status) -> button::Style {
    let c = colors(theme);
    let base = button::Style {
        text_color: c.dim,
        ..button::Style::default()
    };
    match status {
        button::Status::Hovered | button::Status::Pressed => button::Style {
            background: Some(c.hover.into()),
            text_color: c.text,
            ..base
        },
        button::Status::Active | button::Status::Disabled => base,
    }
}

/// One row of the list.
pub fn row(selected: bool, hovered: bool, focused: bool) -> impl Fn(&Theme) -> container::Style {
    row_in(selected, hovered, focused, false)
}

/// [`row`], in the pane of a split that does not have the keyboard when `inactive`: the
/// selection in the hover's grey, a shade darker, and no focus ring, as Dolphin's inactive
/// view draws it.
pub fn row_in(
    selected: bool,
    hovered: bool,
    focused: bool,
    inactive: bool,
) -> impl Fn(&Theme) -> container::Style {
    move |theme| {
        let c = colors(theme);
        let background = match (selected, hovered) {
            (true, _) if inactive => Some(Background::Color(c.inactive_selected)),
            (true, _) => Some(Background::Color(c.selected)),
            (false, true) => Some(Background::Color(c.hover)),
            (false, false) => None,
        };
        let border = if focused && !inactive {
            Border {
                color: c.accent.scale_alpha(0.7),
                width: 1.0,
                radius: 6.0.into(),
            }
        } else {
            Border::default().rounded(6)
        };
        container::Style {
            background,
            border,
            text_color: Some(c.text),
            ..Default::default()
        }
    }
}

/// The notice banner.
pub fn notice(theme: &Theme) -> container::Style {
    let c = colors(theme);
    container::Style {
        background: Some(c.notice.into()),
        border: Border::default().rounded(8),
        text_color: Some(c.text),
        ..Default::default()
    }
}

/// The list's scrollbar thumb: dim, stronger while hovered or dragged.
pub fn scroll_thumb(theme: &Theme, active: bool) -> Color {
    let c = colors(theme);
    if active {
        c.dim
    } else {
        c.dim.scale_alpha(0.45)
    }
}

/// The body colour of the kind icon for `category`.
pub fn icon_color(theme: &Theme, category: Category) -> Color {
    let dark = theme.extended_palette().is_dark;
    let pick = |light: Color, dark_variant: Color| if dark { dark_variant } else { light };
    match category {
        Category::Folder => pick(color!(0x4a8fe7), color!(0x6aa5f0)),
        Category::Image => pick(color!(0x9b59b6), color!(0xb57fcc)),
        Category::Audio => pick(color!(0xe67e22), color!(0xf0a050)),
        Category::Video => pick(color!(0xd64541), color!(0xe8706c)),
        Category::Archive => pick(color!(0x8d6e63), color!(0xb09080)),
        Category::Document => pick(color!(0x2e86c1), color!(0x5dade2)),
        Category::Code => pick(color!(0x16a085), color!(0x48c9b0)),
        Category::Text => pick(color!(0x7f8c8d), color!(0xa0aaab)),
        Category::Program => pick(color!(0x27ae60), color!(0x58d68d)),
        Category::Link | Category::Special => pick(color!(0x95a5a6), color!(0x7f8c8d)),
        Category::Other => pick(color!(0xaab2bd), color!(0x6c757d)),
    }
}

/// A filled, rounded shape of the icon.
pub fn icon_shape(fill: Color, radius: f32) -> impl Fn(&Theme) -> container::Style {
    move |_| container::Style {
        background: Some(fill.into()),
        border: Border::default().rounded(radius),
        ..Default::default()
    }
}

/// The badge that marks a link's icon: the arrow in the text colour on the base, outlined.
pub fn link_badge(theme: &Theme) -> container::Style {
    let c = colors(theme);
    badge(c.base, c.dim, c.text)
}

/// The badge of a broken link's icon: the cross in the danger colour.
pub fn broken_link_badge(theme: &Theme) -> container::Style {
    let c = colors(theme);
    badge(c.base, c.danger, c.danger)
}

fn badge(base: Color, border: Color, text: Color) -> container::Style {
    container::Style {
        background: Some(base.into()),
        border: Border {
            color: border,
            width: 1.0,
            radius: 3.0.into(),
        },
        text_color: Some(text),
        ..Default::default()
    }
}

/// The outlined page of a file icon.
pub fn icon_page(fill: Color) -> impl Fn(&Theme) -> container::Style {
    move |theme| {
        let c = colors(theme);
        container::Style {
            background: Some(c.base.into()),
            border: Border {
                color: fill,
                width: 1.5,
                radius: 3.0.into(),
            },
            text_color: Some(fill),
            ..Default::default()
        }
    }
}

/// Secondary text: sizes, dates, hints.
pub fn dim_text(theme: &Theme) -> text::Style {
    text::Style {
        color: Some(colors(theme).dim),
    }
}

/// Text of entries drawn fainter (dot files, when shown).
pub fn faint_text(theme: &Theme) -> text::Style {
    text::Style {
        color: Some(colors(theme).text.scale_alpha(0.6)),
    }
}

/// The default font, bold.
pub fn bold() -> Font {
    Font {
        weight: Weight::Bold,
        ..Font::DEFAULT
    }
}

/// Error text (an inline refusal).
pub fn danger_text(theme: &Theme) -> text::Style {
    text::Style {
        color: Some(colors(theme).danger),
    }
}

/// The rubber band: a light wash of the accent with a thin border.
pub fn band(theme: &Theme) -> container::Style {
    let c = colors(theme);
    container::Style {
        background: Some(c.accent.scale_alpha(0.15).into()),
        border: Border {
            color: c.accent.scale_alpha(0.8),
            width: 1.0,
            radius: 2.0.into(),
        },
        ..container::Style::default()
    }
}

/// The line over a pane: the accent over the one with the keyboard in a split, the chrome
/// colour otherwise.
pub fn active_mark(active: bool) -> impl Fn(&Theme) -> container::Style {
    move |theme| {
        let c = colors(theme);
        container::Style {
            background: Some(if active { c.accent } else { c.chrome }.into()),
            ..container::Style::default()
        }
    }
}

/// A popup menu's frame, also the drag badge's. No shadow, as for [`toast`].
pub fn menu(theme: &Theme) -> container::Style {
    let c = colors(theme);
    container::Style {
        background: Some(c.base.into()),
        text_color: Some(c.text),
        border: Border {
            color: c.border,
            width: 1.0,
            radius: 8.0.into(),
        },
        ..container::Style::default()
    }
}

/// A menu entry; `highlighted` is the keyboard's.
pub fn menu_item(highlighted: bool) -> impl Fn(&Theme, button::Status) -> button::Style {
    move |theme, status| {
        let c = colors(theme);
        let base = button::Style {
            text_color: c.text,
            border: Border::default().rounded(5),
            ..button::Style::default()
        };
        match status {
            _ if highlighted => button::Style {
                background: Some(c.selected.into()),
                ..base
            },
            button::Status::Hovered | button::Status::Pressed => button::Style {
                background: Some(c.hover.into()),
                ..base
            },
            button::Status::Disabled => button::Style {
                text_color: c.dim.scale_alpha(0.6),
                ..base
            },
            button::Status::Active => base,
        }
    }
}

/// A tab of the tab bar; the shown one stands out.
pub fn tab(shown: bool) -> impl Fn(&Theme, button::Status) -> button::Style {
    move |theme, status| {
        let c = colors(theme);
        let background = match (shown, status) {
            (true, _) => Some(c.base.into()),
            (false, button::Status::Hovered | button::Status::Pressed) => Some(c.hover.into()),
            (false, _) => None,
        };
        button::Style {
            background,
            text_color: if shown { c.text } else { c.dim },
            border: Border {
                color: if shown { c.border } else { Color::TRANSPARENT },
                width: 1.0,
                radius: 6.0.into(),
            },
            ..button::Style::default()
        }
    }
}

/// A place in the sidebar; the current folder's place is highlighted, the keyboard's is
/// ringed.
pub fn place(current: bool, focused: bool) -> impl Fn(&Theme, button::Status) -> button::Style {
    move |theme, status| {
        let c = colors(theme);
        let background = match (current, status) {
            (true, _) => Some(c.selected.into()),
            (false, button::Status::Hovered | button::Status::Pressed) => Some(c.hover.into()),
            (false, _) => None,
        };
        let border = if focused {
            Border {
                color: c.accent,
                width: 1.5,
                radius: 6.0.into(),
            }
        } else {
            Border::default().rounded(6)
        };
        button::Style {
            background,
            text_color: c.text,
            border,
            ..button::Style::default()
        }
    }
}

/// The sidebar's background.
pub fn sidebar(theme: &Theme) -> container::Style {
    let c = colors(theme);
    container::Style {
        background: Some(c.chrome.into()),
        text_color: Some(c.text),
        ..container::Style::default()
    }
}

/// A volume's usage bar: the track and the used part.
pub fn usage(used: bool, nearly_full: bool) -> impl Fn(&Theme) -> container::Style {
    move |theme| {
        let c = colors(theme);
        let fill = match (used, nearly_full) {
            (false, _) => c.border,
            (true, true) => c.danger,
            (true, false) => c.accent.scale_alpha(0.7),
        };
        container::Style {
            background: Some(fill.into()),
            border: Border::default().rounded(2),
            ..container::Style::default()
        }
    }
}

/// A toast: a dark card at the bottom of the window. No shadow: the software renderer does
/// not repaint a shadow's blur once the toast is gone (seen under Xvfb).
pub fn toast(theme: &Theme) -> container::Style {
    let c = colors(theme);
    container::Style {
        background: Some(c.text.into()),
        text_color: Some(c.base),
        border: Border {
            color: c.border,
            width: 1.0,
            radius: 8.0.into(),
        },
        ..container::Style::default()
    }
}

/// A dialog's card.
pub fn dialog(theme: &Theme) -> container::Style {
    container::Style {
        border: Border {
            color: colors(theme).border,
            width: 1.0,
            radius: 10.0.into(),
        },
        ..menu(theme)
    }
}

/// The dimmed backdrop behind a dialog.
pub fn backdrop(_theme: &Theme) -> container::Style {
    container::Style {
        background: Some(Color::BLACK.scale_alpha(0.35).into()),
        ..container::Style::default()
    }
}

/// A button inside a toast: the toast's text colour, lit when hovered.
pub fn toast_button(theme: &Theme, status: button::Status) -> button::Style {
    let c = colors(theme);
    let base = button::Style {
        text_color: c.accent,
        border: Border::default().rounded(6),
        ..button::Style::default()
    };
    match status {
        button::Status::Hovered | button::Status::Pressed => button::Style {
            background: Some(c.base.scale_alpha(0.15).into()),
            ..base
        },
        _ => base,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pane of a split without the keyboard draws its selection in grey, with no focus
    /// ring: both panes drew the same strong selection, and only a 2-pixel line told which
    /// one keys went to.
    #[test]
    fn the_inactive_panes_selection_is_grey_and_unringed() {
        for mode in [Mode::Light, Mode::Dark] {
            let theme = theme(mode);
            let c = colors(&theme);
            let active = row_in(true, false, true, false)(&theme);
            let inactive = row_in(true, false, true, true)(&theme);
            assert_eq!(active.background, Some(c.selected.into()));
            assert_eq!(inactive.background, Some(c.inactive_selected.into()));
            assert!(active.border.width > 0.0);
            assert_eq!(inactive.border.width, 0.0);
        }
    }
}
