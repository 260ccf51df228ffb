//! Small drawn file icons: a folder (tab and body) or a page with a coloured band, in the
//! colour of the file's [`Category`]. Drawn from containers, so they cost no image upload and
//! scale to any size.

use iced::widget::{column, container, space};
use iced::{Element, Fill, Theme};

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
