//! Small drawn file icons: a folder (tab and body) or a page with a coloured band, in the
//! colour of the file's [`Category`]. Drawn from containers, so they cost no image upload and
//! scale to any size.

use iced::widget::{column, container, space, stack, text};
use iced::{Element, Fill, Theme};

use ferry_core::entry::Kind;

use crate::gui::format::Category;
use crate::gui::style;

/// An icon for a file of `category`, `size` logical pixels square; a link is drawn lighter.
pub fn icon<'a, Message: 'a>(category: Category, link: bool, size: f32) -> Element<'a, Message> {
    // Proportions of the 20 px design.
    let unit = size / 20.0;
    let shape: Element<'a, Message> = if category == Category::Folder {
        let body = move |theme: &Theme| {
            let fill = style::icon_color(theme, Category::Folder);
            let fill = if link { fill.scale_alpha(0.6) } else { fill };
            style::icon_shape(fill, 2.5 * unit)(theme)
        };
        let tab = move |theme: &Theme| {
            let fill = style::icon_color(theme, Category::Folder).scale_alpha(0.75);
            style::icon_shape(fill, 1.5 * unit)(theme)
        };
        column![
            container(space())
                .width(9.0 * unit)
                .height(4.0 * unit)
                .style(tab),
            container(space())
                .width(20.0 * unit)
                .height(13.0 * unit)
                .style(body),
        ]
        .spacing(-1.5 * unit)
        .into()
    } else {
        let band =
            move |theme: &Theme| style::icon_shape(style::icon_color(theme, category), unit)(theme);
        let page = move |theme: &Theme| style::icon_page(style::icon_color(theme, category))(theme);
        container(
            column![
                space().height(Fill),
                container(space())
                    .width(Fill)
                    .height(5.0 * unit)
                    .style(band)
            ]
            .padding(3.0 * unit),
        )
        .width(15.0 * unit)
        .height(19.0 * unit)
        .style(page)
        .into()
    };
    container(shape)
        .width(size)
        .height(size)
        .center_x(size)
        .center_y(size)
        .into()
}

/// What an item's icon says of it being a link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkMark {
    /// Not a link.
    None,
    /// A link (to what it leads to, as far as known).
    Link,
    /// A link to nothing.
    Broken,
}

impl LinkMark {
    /// The mark of an item of `kind` whose target is `target` (`Kind::Unknown`: none).
    pub fn of(kind: Kind, target: Kind) -> Self {
        match (kind, target) {
            (Kind::Symlink, Kind::Unknown) => LinkMark::Broken,
            (Kind::Symlink, _) => LinkMark::Link,
            _ => LinkMark::None,
        }
    }
}

/// [`icon`] for an item of a folder: a link is also marked with an arrow in a corner, as
/// Dolphin and Nautilus mark one (in the Icons view its lighter colour alone went unseen),
/// and a broken one with a cross in the danger colour.
pub fn item_icon<'a, Message: 'a>(
    category: Category,
    mark: LinkMark,
    size: f32,
) -> Element<'a, Message> {
    let drawn = icon(category, mark != LinkMark::None, size);
    let (glyph, style): (&str, fn(&Theme) -> container::Style) = match mark {
        LinkMark::None => return drawn,
        LinkMark::Link => ("↗", style::link_badge),
        LinkMark::Broken => ("✕", style::broken_link_badge),
    };
    let glyph = text(glyph).size((size * 0.42).max(8.0)).line_height(1.0);
    let badge = container(glyph).padding([0.0, size * 0.04]).style(style);
    let corner = container(badge)
        .width(size)
        .height(size)
        .align_left(size)
        .align_bottom(size);
    stack![drawn, corner].into()
}

/// A drive: a rounded box with a light, marked for removable media or a network share.
pub fn drive<'a, Message: 'a>(size: f32, removable: bool, network: bool) -> Element<'a, Message> {
    let unit = size / 20.0;
    let category = if network {
        Category::Link
    } else {
        Category::Archive
    };
    let body = move |theme: &Theme| {
        style::icon_shape(style::icon_color(theme, category), 3.0 * unit)(theme)
    };
    let light = move |theme: &Theme| {
        let c = style::colors(theme);
        style::icon_shape(if removable { c.accent } else { c.base }, unit)(theme)
    };
    let shape = container(
        column![
            space().height(Fill),
            container(space())
                .width(4.0 * unit)
                .height(2.5 * unit)
                .style(light)
        ]
        .align_x(iced::Alignment::End)
        .padding(3.0 * unit),
    )
    .width(20.0 * unit)
    .height(12.0 * unit)
    .style(body);
    container(shape)
        .width(size)
        .height(size)
        .center_x(size)
        .center_y(size)
        .into()
}

/// A trash can, with something in it when `full`.
pub fn trash<'a, Message: 'a>(size: f32, full: bool) -> Element<'a, Message> {
    let unit = size / 20.0;
    let fill = move |theme: &Theme| style::icon_color(theme, Category::Text);
    let lid = move |theme: &Theme| style::icon_shape(fill(theme), unit)(theme);
    let can = move |theme: &Theme| style::icon_page(fill(theme))(theme);
    let paper = move |theme: &Theme| {
        style::icon_shape(style::icon_color(theme, Category::Document), unit)(theme)
    };
    let mut inside = column![].padding(2.0 * unit);
    if full {
        inside = inside.push(
            container(space())
                .width(Fill)
                .height(6.0 * unit)
                .style(paper),
        );
    }
    let shape = column![
        container(space())
            .width(16.0 * unit)
            .height(2.5 * unit)
            .style(lid),
        container(inside)
            .width(13.0 * unit)
            .height(14.0 * unit)
            .style(can),
    ]
    .spacing(unit)
    .align_x(iced::Alignment::Center);
    container(shape)
        .width(size)
        .height(size)
        .center_x(size)
        .center_y(size)
        .into()
}
