//! Keyboard access letters for labels: [`mnemonic`] draws a label with its letter underlined
//! (Alt+that letter does what the label says) and still reads as the plain label to widget
//! operations, so selectors (`click("Replace")`) and text searches find it whole; iced's rich
//! text, which can underline, reports no text. [`hold_alt_keys`] keeps Alt+key presses from
//! the widgets inside it: a focused text field would otherwise type the letter and take the
//! key, and the shortcut would never reach the window's key routing.

use iced::advanced::layout::{self, Layout};
use iced::advanced::widget::{Operation, Tree};
use iced::advanced::{Clipboard, Shell, overlay, renderer, text};
use iced::widget::{rich_text, span};
use iced::{Element, Event, Font, Length, Rectangle, Size, Vector, keyboard, mouse};

/// `label` at `size` in `font`, with the first occurrence of `letter` (either case)
/// underlined; without a letter, or when the label lacks it, a plain label.
pub fn mnemonic<'a, Message: 'a>(
    label: impl Into<String>,
    letter: Option<char>,
    size: f32,
    font: Font,
) -> Element<'a, Message> {
    let label: String = label.into();
    let at = letter.and_then(|l| {
        label
            .char_indices()
            .find(|(_, c)| c.eq_ignore_ascii_case(&l))
            .map(|(i, c)| (i, i + c.len_utf8()))
    });
    let spans: Vec<text::Span<'a, (), Font>> = match at {
        Some((start, end)) => vec![
            span(label[..start].to_owned()).font(font).size(size),
            span(label[start..end].to_owned())
                .font(font)
                .size(size)
                .underline(true),
            span(label[end..].to_owned()).font(font).size(size),
        ],
        None => vec![span(label.clone()).font(font).size(size)],
    };
    let content: Element<'a, Message> = rich_text(spans).into();
    Element::new(Labelled { content, label })
}

/// A rich text that reads as `label`.
struct Labelled<'a, Message> {
    content: Element<'a, Message>,
    label: String,
}

impl<Message> iced::advanced::Widget<Message, iced::Theme, iced::Renderer>
    for Labelled<'_, Message>
{
    fn children(&self) -> Vec<Tree> {
        vec![Tree::new(&self.content)]
    }

    fn diff(&self, tree: &mut Tree) {
        tree.diff_children(std::slice::from_ref(&self.content));
    }

    fn size(&self) -> Size<Length> {
        self.content.as_widget().size()
    }

    fn layout(
        &mut self,
        tree: &mut Tree,
        renderer: &iced::Renderer,
        limits: &layout::Limits,
    ) -> layout::Node {
        self.content
            .as_widget_mut()
            .layout(&mut tree.children[0], renderer, limits)
    }

    fn operate(
        &mut self,
        _tree: &mut Tree,
        layout: Layout<'_>,
        _renderer: &iced::Renderer,
        operation: &mut dyn Operation,
    ) {
        operation.text(None, layout.bounds(), &self.label);
    }

    fn draw(
        &self,
        tree: &Tree,
        renderer: &mut iced::Renderer,
        theme: &iced::Theme,
        style: &renderer::Style,
        layout: Layout<'_>,
        cursor: mouse::Cursor,
        viewport: &Rectangle,
    ) {
        self.content.as_widget().draw(
            &tree.children[0],
            renderer,
            theme,
            style,
            layout,
            cursor,
            viewport,
        );
    }
}

/// `content`, with Alt+key presses and releases kept from it (they go on to the window's
/// key routing, uncaptured). Ctrl+Alt is left alone (AltGr on some layouts).
pub fn hold_alt_keys<'a, Message: 'a>(
    content: impl Into<Element<'a, Message>>,
) -> Element<'a, Message> {
    Element::new(AltKeys {
        content: content.into(),
    })
}

struct AltKeys<'a, Message> {
    content: Element<'a, Message>,
}

fn is_alt_key(event: &Event) -> bool {
    match event {
        Event::Keyboard(
            keyboard::Event::KeyPressed { modifiers, .. }
            | keyboard::Event::KeyReleased { modifiers, .. },
        ) => modifiers.alt() && !modifiers.control(),
        _ => false,
    }
}

impl<Message> iced::advanced::Widget<Message, iced::Theme, iced::Renderer>
    for AltKeys<'_, Message>
{
    fn children(&self) -> Vec<Tree> {
        vec![Tree::new(&self.content)]
    }

    fn diff(&self, tree: &mut Tree) {
        tree.diff_children(std::slice::from_ref(&self.content));
    }

    fn size(&self) -> Size<Length> {
        self.content.as_widget().size()
    }

    fn layout(
        &mut self,
        tree: &mut Tree,
        renderer: &iced::Renderer,
        limits: &layout::Limits,
    ) -> layout::Node {
        self.content
            .as_widget_mut()
            .layout(&mut tree.children[0], renderer, limits)
    }

    fn operate(
        &mut self,
        tree: &mut Tree,
        layout: Layout<'_>,
        renderer: &iced::Renderer,
        operation: &mut dyn Operation,
    ) {
        self.content
            .as_widget_mut()
            .operate(&mut tree.children[0], layout, renderer, operation);
    }

    fn update(
        &mut self,
        tree: &mut Tree,
        event: &Event,
        layout: Layout<'_>,
        cursor: mouse::Cursor,
        renderer: &iced::Renderer,
        clipboard: &mut dyn Clipboard,
        shell: &mut Shell<'_, Message>,
        viewport: &Rectangle,
    ) {
        if is_alt_key(event) {
            return;
        }
        self.content.as_widget_mut().update(
            &mut tree.children[0],
            event,
            layout,
            cursor,
            renderer,
            clipboard,
            shell,
            viewport,
        );
    }

    fn draw(
        &self,
        tree: &Tree,
        renderer: &mut iced::Renderer,
        theme: &iced::Theme,
        style: &renderer::Style,
        layout: Layout<'_>,
        cursor: mouse::Cursor,
        viewport: &Rectangle,
    ) {
        self.content.as_widget().draw(
            &tree.children[0],
            renderer,
            theme,
            style,
            layout,
            cursor,
            viewport,
        );
    }

    fn mouse_interaction(
        &self,
        tree: &Tree,
        layout: Layout<'_>,
        cursor: mouse::Cursor,
        viewport: &Rectangle,
        renderer: &iced::Renderer,
    ) -> mouse::Interaction {
        self.content.as_widget().mouse_interaction(
            &tree.children[0],
            layout,
            cursor,
            viewport,
            renderer,
        )
    }

    fn overlay<'b>(
        &'b mut self,
        tree: &'b mut Tree,
        layout: Layout<'b>,
        renderer: &iced::Renderer,
        viewport: &Rectangle,
        translation: Vector,
    ) -> Option<overlay::Element<'b, Message, iced::Theme, iced::Renderer>> {
        self.content.as_widget_mut().overlay(
            &mut tree.children[0],
            layout,
            renderer,
            viewport,
            translation,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use iced::keyboard::{Key, Modifiers, key};
    use iced::widget::{column, text_input};
    use iced_test::simulator;

    #[derive(Debug, Clone, PartialEq)]
    enum Msg {
        Typed(String),
    }

    #[test]
    fn an_underlined_label_is_found_whole() {
        let view = || -> Element<'_, Msg> {
            column![
                mnemonic("Replace", Some('r'), 14.0, Font::DEFAULT),
                mnemonic("Keep both", Some('k'), 14.0, Font::DEFAULT),
                mnemonic("Skip", None, 14.0, Font::DEFAULT),
            ]
            .into()
        };
        let mut ui = simulator(view());
        for label in ["Replace", "Keep both", "Skip"] {
            assert!(ui.find(label).is_ok(), "{label}");
        }
        assert!(ui.find("eplace").is_err());
    }

    #[test]
    fn alt_keys_do_not_reach_a_focused_field() {
        let field = || text_input("", "ab").id("field").on_input(Msg::Typed).into();
        let press = |modifiers: Modifiers| {
            Event::Keyboard(keyboard::Event::KeyPressed {
                key: Key::Character("r".into()),
                modified_key: Key::Character("r".into()),
                physical_key: key::Physical::Code(key::Code::KeyR),
                location: keyboard::Location::Standard,
                modifiers,
                text: Some("r".into()),
                repeat: false,
            })
        };
        for (guarded, modifiers, typed) in [
            (true, Modifiers::ALT, false),
            (true, Modifiers::empty(), true),
            (false, Modifiers::ALT, true),
        ] {
            let view: Element<'_, Msg> = if guarded {
                hold_alt_keys(field())
            } else {
                field()
            };
            let mut ui = simulator(view);
            ui.click(iced_test::selector::id("field")).unwrap();
            let _ = ui.simulate([press(modifiers)]);
            let messages: Vec<Msg> = ui.into_messages().collect();
            assert_eq!(
                messages.contains(&Msg::Typed("abr".into())),
                typed,
                "guarded {guarded}, {modifiers:?}"
            );
        }
    }
}
