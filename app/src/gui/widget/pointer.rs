//! A wrapper that tells where the pointer is, for gestures `mouse_area` cannot express:
//! a press on the empty part of a list (no child took it), or on an item (a child took it:
//! the start of a drag), and the drag that follows, reported even when the pointer leaves
//! the area (rubber-band selection scrolls at the edges, items are dragged elsewhere); a
//! right press with the pointer's position in the window (a context menu opens there); and
//! the area's own bounds whenever they change (a grid needs its width, a menu opened from
//! the keyboard needs the focused row's place).

use iced::advanced::layout::{self, Layout};
use iced::advanced::widget::{Operation, Tree, tree};
use iced::advanced::{Clipboard, Shell, overlay, renderer};
use iced::{Element, Event, Length, Point, Rectangle, Size, Vector, mouse};

/// Wraps `content`; set the callbacks wanted.
pub fn pointer_area<'a, Message, Theme, Renderer>(
    content: impl Into<Element<'a, Message, Theme, Renderer>>,
) -> PointerArea<'a, Message, Theme, Renderer> {
    PointerArea {
        content: content.into(),
        on_press: None,
        on_item_press: None,
        on_drag: None,
        on_release: None,
        on_right_press: None,
        on_resize: None,
    }
}

/// See [`pointer_area`].
pub struct PointerArea<'a, Message, Theme, Renderer> {
    content: Element<'a, Message, Theme, Renderer>,
    on_press: Option<Box<dyn Fn(Point) -> Message + 'a>>,
    on_item_press: Option<Box<dyn Fn(Point) -> Message + 'a>>,
    on_drag: Option<Box<dyn Fn(Point) -> Message + 'a>>,
    on_release: Option<Message>,
    on_right_press: Option<Box<dyn Fn(Point, bool) -> Message + 'a>>,
    on_resize: Option<(Rectangle, OnResize<'a, Message>)>,
}

/// What [`PointerArea::on_resize`] makes of the area's bounds.
type OnResize<'a, Message> = Box<dyn Fn(Rectangle) -> Message + 'a>;

impl<'a, Message, Theme, Renderer> PointerArea<'a, Message, Theme, Renderer> {
    /// A left press inside the area that no child took, at this point relative to the area.
    #[must_use]
    pub fn on_press(mut self, f: impl Fn(Point) -> Message + 'a) -> Self {
        self.on_press = Some(Box::new(f));
        self
    }

    /// A left press inside the area that a child (an item) took, at this point relative to
    /// the area; the drag that follows is reported as for [`on_press`](Self::on_press).
    #[must_use]
    pub fn on_item_press(mut self, f: impl Fn(Point) -> Message + 'a) -> Self {
        self.on_item_press = Some(Box::new(f));
        self
    }

    /// The pointer moved while that press is held, anywhere in the window (relative to the
    /// area, so it can be outside it).
    #[must_use]
    pub fn on_drag(mut self, f: impl Fn(Point) -> Message + 'a) -> Self {
        self.on_drag = Some(Box::new(f));
        self
    }

    /// That press ended.
    #[must_use]
    pub fn on_release(mut self, message: Message) -> Self {
        self.on_release = Some(message);
        self
    }

    /// A right press inside the area, at this point in the window; the flag says whether a
    /// child (an item) took it first.
    #[must_use]
    pub fn on_right_press(mut self, f: impl Fn(Point, bool) -> Message + 'a) -> Self {
        self.on_right_press = Some(Box::new(f));
        self
    }

    /// The area's bounds in the window, whenever they differ from `known`, the bounds its
    /// owner holds. Compared with the owner's, not with the last reported: iced keeps this
    /// area's state by its place in the window, which the tabs share, so a tab shown again
    /// after the window was resized was never told, and kept its old width (no Name column)
    /// or height (rows missing).
    #[must_use]
    pub fn on_resize(mut self, known: Rectangle, f: impl Fn(Rectangle) -> Message + 'a) -> Self {
        self.on_resize = Some((known, Box::new(f)));
        self
    }
}

#[derive(Debug, Default)]
struct State {
    pressed: bool,
    /// The owner's bounds and the area's when the area last told them apart.
    told: Option<(Rectangle, Rectangle)>,
}

impl<Message: Clone, Theme, Renderer: renderer::Renderer>
    iced::advanced::Widget<Message, Theme, Renderer> for PointerArea<'_, Message, Theme, Renderer>
{
    fn tag(&self) -> tree::Tag {
        tree::Tag::of::<State>()
    }

    fn state(&self) -> tree::State {
        tree::State::new(State::default())
    }

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
        renderer: &Renderer,
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
        renderer: &Renderer,
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
        renderer: &Renderer,
        clipboard: &mut dyn Clipboard,
        shell: &mut Shell<'_, Message>,
        viewport: &Rectangle,
    ) {
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
        let state = tree.state.downcast_mut::<State>();
        let bounds = layout.bounds();
        if let Some((known, on_resize)) = &self.on_resize {
            if *known == bounds {
                state.told = None;
            } else if state.told != Some((*known, bounds)) {
                // Once per change: the owner takes it at its next update.
                state.told = Some((*known, bounds));
                shell.publish(on_resize(bounds));
            }
        }
        let local = |p: Point| Point::new(p.x - bounds.x, p.y - bounds.y);
        match event {
            Event::Mouse(mouse::Event::ButtonPressed(mouse::Button::Left)) => {
                let Some(at) = cursor.position_over(bounds) else {
                    return;
                };
                // A child that took the press is an item: a drag of it may follow.
                let handler = if shell.is_event_captured() {
                    &self.on_item_press
                } else {
                    &self.on_press
                };
                if let Some(handler) = handler {
                    state.pressed = true;
                    shell.publish(handler(local(at)));
                    shell.capture_event();
                }
            }
            Event::Mouse(mouse::Event::CursorMoved { position }) if state.pressed => {
                if let Some(on_drag) = &self.on_drag {
                    shell.publish(on_drag(local(*position)));
                }
            }
            Event::Mouse(mouse::Event::ButtonReleased(mouse::Button::Left)) if state.pressed => {
                state.pressed = false;
                if let Some(message) = &self.on_release {
                    shell.publish(message.clone());
                }
            }
            Event::Mouse(mouse::Event::ButtonPressed(mouse::Button::Right)) => {
                if let (Some(on_right), Some(at)) =
                    (&self.on_right_press, cursor.position_over(bounds))
                {
                    let taken = shell.is_event_captured();
                    shell.publish(on_right(at, taken));
                    shell.capture_event();
                }
            }
            _ => {}
        }
    }

    fn draw(
        &self,
        tree: &Tree,
        renderer: &mut Renderer,
        theme: &Theme,
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
        renderer: &Renderer,
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
        renderer: &Renderer,
        viewport: &Rectangle,
        translation: Vector,
    ) -> Option<overlay::Element<'b, Message, Theme, Renderer>> {
        self.content.as_widget_mut().overlay(
            &mut tree.children[0],
            layout,
            renderer,
            viewport,
            translation,
        )
    }
}

impl<'a, Message, Theme, Renderer> From<PointerArea<'a, Message, Theme, Renderer>>
    for Element<'a, Message, Theme, Renderer>
where
    Message: Clone + 'a,
    Theme: 'a,
    Renderer: renderer::Renderer + 'a,
{
    fn from(area: PointerArea<'a, Message, Theme, Renderer>) -> Self {
        Element::new(area)
    }
}
