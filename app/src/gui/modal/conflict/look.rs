//! The dialog's own styles, built on the window's palette ([`style::colors`]): answers with
//! the suggested one standing out, the keyboard's ring, chips, badges and table rows.

use iced::widget::{button, container, text};
use iced::{Border, Color, Theme};

use crate::gui::style;

/// The dialog's card: the window's dialog frame without its blurred shadow, which the
/// software renderer redraws on every frame that touches the card (about 100 ms for a
/// table-sized card); the dimmed backdrop sets the card apart already.
pub fn card(theme: &Theme) -> container::Style {
    container::Style {
        shadow: iced::Shadow::default(),
        ..style::dialog(theme)
    }
}

/// The keyboard's ring.
fn ring(theme: &Theme) -> Border {
    Border {
        color: style::colors(theme).accent,
        width: 2.0,
        radius: 7.0.into(),
    }
}

/// A whole-width answer of the one-conflict dialog; the suggested one is tinted with the
/// accent, the keyboard's is ringed.
pub fn answer(suggested: bool, focused: bool) -> impl Fn(&Theme, button::Status) -> button::Style {
    move |theme, status| {
        let c = style::colors(theme);
        let background = match (suggested, status) {
            (_, button::Status::Pressed) => Some(c.border.into()),
            (true, button::Status::Hovered) => Some(c.accent.scale_alpha(0.22).into()),
            (true, _) => Some(c.accent.scale_alpha(0.13).into()),
            (false, button::Status::Hovered) => Some(c.hover.into()),
            (false, _) => None,
        };
        let border = if focused {
            ring(theme)
        } else if suggested {
            Border {
                color: c.accent.scale_alpha(0.6),
                width: 1.0,
                radius: 7.0.into(),
            }
        } else {
            Border {
                color: c.border,
                width: 1.0,
                radius: 7.0.into(),
            }
        };
        button::Style {
            background,
            text_color: if status == button::Status::Disabled {
                c.dim.scale_alpha(0.6)
            } else {
                c.text
            },
            border,
            ..button::Style::default()
        }
    }
}

/// A plain button (Cancel job, Back, One by one), ringed when it has the keyboard.
pub fn plain(focused: bool) -> impl Fn(&Theme, button::Status) -> button::Style {
    move |theme, status| {
        let mut s = style::tool_button(theme, status);
        let c = style::colors(theme);
        s.border = if focused {
            ring(theme)
        } else {
            Border {
                color: c.border,
                width: 1.0,
                radius: 6.0.into(),
            }
        };
        s
    }
}

/// A button drawn as text (a title that acts, a column header): a light background when
/// hovered, the ring when it has the keyboard.
pub fn bare(focused: bool) -> impl Fn(&Theme, button::Status) -> button::Style {
    move |theme, status| {
        let c = style::colors(theme);
        let background = match status {
            button::Status::Hovered | button::Status::Pressed => Some(c.hover.into()),
            _ => None,
        };
        button::Style {
            background,
            text_color: c.text,
            border: if focused {
                ring(theme)
            } else {
                Border::default().rounded(6)
            },
            ..button::Style::default()
        }
    }
}

/// The button that sends (Apply, the confirmed Cancel job): filled with the accent, or the
/// danger colour.
pub fn strong(danger: bool, focused: bool) -> impl Fn(&Theme, button::Status) -> button::Style {
    move |theme, status| {
        let c = style::colors(theme);
        let fill = if danger { c.danger } else { c.accent };
        let background = match status {
            button::Status::Disabled => c.border,
            button::Status::Hovered => fill.scale_alpha(0.85),
            button::Status::Pressed => fill.scale_alpha(0.7),
            button::Status::Active => fill,
        };
        let border = if focused {
            Border {
                color: c.text,
                width: 2.0,
                radius: 7.0.into(),
            }
        } else {
            Border::default().rounded(7)
        };
        button::Style {
            background: Some(background.into()),
            text_color: if status == button::Status::Disabled {
                c.dim
            } else {
                c.base
            },
            border,
            ..button::Style::default()
        }
    }
}

/// A toggle: a filter chip, a rule, a row's answer; `on` shows it chosen.
pub fn chip(on: bool, focused: bool) -> impl Fn(&Theme, button::Status) -> button::Style {
    move |theme, status| {
        let c = style::colors(theme);
        let background = match (on, status) {
            (true, _) => Some(c.selected.into()),
            (false, button::Status::Hovered | button::Status::Pressed) => Some(c.hover.into()),
            (false, _) => None,
        };
        let border = if focused {
            ring(theme)
        } else {
            Border {
                color: if on {
                    c.accent.scale_alpha(0.7)
                } else {
                    c.border
                },
                width: 1.0,
                radius: 6.0.into(),
            }
        };
        button::Style {
            background,
            text_color: if on { c.text } else { c.dim },
            border,
            ..button::Style::default()
        }
    }
}

/// One side of the comparison.
pub fn side(theme: &Theme) -> container::Style {
    let c = style::colors(theme);
    container::Style {
        background: Some(c.chrome.into()),
        text_color: Some(c.text),
        border: Border {
            color: c.border,
            width: 1.0,
            radius: 8.0.into(),
        },
        ..container::Style::default()
    }
}

/// A small badge: "Newer" in the accent, "Identical" in green.
pub fn badge(identical: bool) -> impl Fn(&Theme) -> container::Style {
    move |theme| {
        let tint = tint(theme, identical);
        container::Style {
            background: Some(tint.scale_alpha(0.16).into()),
            text_color: Some(tint),
            border: Border::default().rounded(4),
            ..container::Style::default()
        }
    }
}

fn tint(theme: &Theme, identical: bool) -> Color {
    if identical {
        theme.extended_palette().success.base.color
    } else {
        style::colors(theme).accent
    }
}

/// The newer side's date.
pub fn newer_text(theme: &Theme) -> text::Style {
    text::Style {
        color: Some(style::colors(theme).accent),
    }
}

/// A row of the table: the keyboard's row is highlighted.
pub fn row(current: bool) -> impl Fn(&Theme) -> container::Style {
    move |theme| {
        let c = style::colors(theme);
        container::Style {
            background: current.then(|| c.hover.into()),
            border: if current {
                Border {
                    color: c.accent.scale_alpha(0.7),
                    width: 1.0,
                    radius: 6.0.into(),
                }
            } else {
                Border::default()
            },
            text_color: Some(c.text),
            ..container::Style::default()
        }
    }
}

/// The table's frame.
pub fn table(theme: &Theme) -> container::Style {
    let c = style::colors(theme);
    container::Style {
        background: Some(c.base.into()),
        border: Border {
            color: c.border,
            width: 1.0,
            radius: 8.0.into(),
        },
        text_color: Some(c.text),
        ..container::Style::default()
    }
}

/// The confirmation bar before a job with work done is cancelled.
pub fn confirm(theme: &Theme) -> container::Style {
    style::notice(theme)
}
