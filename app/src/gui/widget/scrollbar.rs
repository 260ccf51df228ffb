//! A vertical scrollbar whose thumb never shrinks below a size a pointer can grab.
//!
//! iced's own scroller is proportional down to 2 px: on a folder of 200,000 rows (6,000,000
//! px of list) it is a dot. This one keeps the thumb at least [`MIN_THUMB`] high and maps
//! the rest of the track onto the whole list, as desktop toolkits do. It draws the track and
//! thumb, and turns a press on the track (jump there), a drag of the thumb, or a press and
//! drag anywhere into the offset to scroll to; the list's scrollable, with its own bar hidden,
//! still handles the wheel and reports where it is.

use iced::advanced::layout::{self, Layout};
use iced::advanced::renderer;
use iced::advanced::widget::{Tree, Widget, tree};
use iced::advanced::{Clipboard, Shell};
use iced::{Border, Element, Event, Length, Rectangle, Size, Theme, mouse};

use crate::gui::style;

/// The thumb's least height, in logical pixels.
pub const MIN_THUMB: f32 = 32.0;

/// The bar's width, in logical pixels.
const WIDTH: f32 = 12.0;

/// The thumb's width inside the bar.
const THUMB_WIDTH: f32 = 6.0;

/// Where the thumb is on a track, for a list `content` high seen through `viewport` at
/// `offset`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Thumb {
    /// Distance from the top of the track.
    pub top: f32,
    /// Height.
    pub height: f32,
}

/// The thumb on a track `track` high; `None` when the whole list fits.
pub fn thumb(track: f32, content: f32, viewport: f32, offset: f32) -> Option<Thumb> {
    if content <= viewport || track <= 0.0 {
        return None;
    }
    let height = (track * viewport / content).max(MIN_THUMB).min(track);
    let max_offset = content - viewport;
    let top = (track - height) * (offset / max_offset).clamp(0.0, 1.0);
    Some(Thumb { top, height })
}

/// The offset that puts the thumb's top at `top` (from the track's top).
pub fn offset_at(track: f32, content: f32, viewport: f32, top: f32) -> f32 {
    let Some(thumb) = thumb(track, content, viewport, 0.0) else {
        return 0.0;
    };
    let travel = track - thumb.height;
    if travel <= 0.0 {
        return 0.0;
    }
    (top / travel).clamp(0.0, 1.0) * (content - viewport)
}

/// A scrollbar for a list `content` high seen through `viewport`, scrolled to `offset`;
/// `on_scroll(offset)` asks to scroll elsewhere.
pub fn scrollbar<'a, Message>(
    content: f32,
    viewport: f32,
    offset: f32,
    on_scroll: impl Fn(f32) -> Message + 'a,
) -> Scrollbar<'a, Message> {
    Scrollbar {
        content,
        viewport,
        offset,
        on_scroll: Box::new(on_scroll),
    }
}

/// See [`scrollbar`].
pub struct Scrollbar<'a, Message> {
    content: f32,
    viewport: f32,
    offset: f32,
    on_scroll: Box<dyn Fn(f32) -> Message + 'a>,
}

/// While the thumb is dragged: where in the thumb it was grabbed.
#[derive(Debug, Default)]
struct State {
    grab: Option<f32>,
}

impl<Message> Scrollbar<'_, Message> {
    fn thumb(&self, bounds: Rectangle) -> Option<Thumb> {
        thumb(bounds.height, self.content, self.viewport, self.offset)
    }

    /// The offset for the pointer at `y` holding the thumb `grab` below its top.
    fn offset_for(&self, bounds: Rectangle, y: f32, grab: f32) -> f32 {
        offset_at(
            bounds.height,
            self.content,
            self.viewport,
            y - bounds.y - grab,
        )
    }
}

impl<Message, Renderer: renderer::Renderer> Widget<Message, Theme, Renderer>
    for Scrollbar<'_, Message>
{
    fn tag(&self) -> tree::Tag {
        tree::Tag::of::<State>()
    }

    fn state(&self) -> tree::State {
        tree::State::new(State::default())
    }

    fn size(&self) -> Size<Length> {
        Size::new(Length::Fixed(WIDTH), Length::Fill)
    }

    fn layout(
        &mut self,
        _tree: &mut Tree,
        _renderer: &Renderer,
        limits: &layout::Limits,
    ) -> layout::Node {
        layout::atomic(limits, WIDTH, Length::Fill)
    }

    fn update(
        &mut self,
        tree: &mut Tree,
        event: &Event,
        layout: Layout<'_>,
        cursor: mouse::Cursor,
        _renderer: &Renderer,
        _clipboard: &mut dyn Clipboard,
        shell: &mut Shell<'_, Message>,
        _viewport: &Rectangle,
    ) {
        let state = tree.state.downcast_mut::<State>();
        let bounds = layout.bounds();
        let Some(thumb) = self.thumb(bounds) else {
            state.grab = None;
            return;
        };
        match event {
            Event::Mouse(mouse::Event::ButtonPressed(mouse::Button::Left)) => {
                let Some(at) = cursor.position_over(bounds) else {
                    return;
                };
                let top = bounds.y + thumb.top;
                // On the thumb: hold it where it was taken. On the track: jump so that the
                // thumb is centred under the pointer, and hold it there.
                let grab = if (top..top + thumb.height).contains(&at.y) {
                    at.y - top
                } else {
                    let grab = thumb.height / 2.0;
                    shell.publish((self.on_scroll)(self.offset_for(bounds, at.y, grab)));
                    grab
                };
                state.grab = Some(grab);
                shell.capture_event();
            }
            Event::Mouse(mouse::Event::CursorMoved { position }) => {
                if let Some(grab) = state.grab {
                    shell.publish((self.on_scroll)(self.offset_for(bounds, position.y, grab)));
                    shell.capture_event();
                }
            }
            Event::Mouse(mouse::Event::ButtonReleased(mouse::Button::Left))
                if state.grab.take().is_some() =>
            {
                shell.request_redraw();
            }
            _ => {}
        }
    }

    fn draw(
        &self,
        tree: &Tree,
        renderer: &mut Renderer,
        theme: &Theme,
        _style: &renderer::Style,
        layout: Layout<'_>,
        cursor: mouse::Cursor,
        _viewport: &Rectangle,
    ) {
        let bounds = layout.bounds();
        let Some(thumb) = self.thumb(bounds) else {
            return;
        };
        let state = tree.state.downcast_ref::<State>();
        let active = state.grab.is_some() || cursor.is_over(bounds);
        let thumb_bounds = Rectangle {
            x: bounds.x + (WIDTH - THUMB_WIDTH) / 2.0,
            y: bounds.y + thumb.top,
            width: THUMB_WIDTH,
            height: thumb.height,
        };
        renderer.fill_quad(
            renderer::Quad {
                bounds: thumb_bounds,
                border: Border::default().rounded(THUMB_WIDTH / 2.0),
                ..renderer::Quad::default()
            },
            style::scroll_thumb(theme, active),
        );
    }

    fn mouse_interaction(
        &self,
        tree: &Tree,
        layout: Layout<'_>,
        cursor: mouse::Cursor,
        _viewport: &Rectangle,
        _renderer: &Renderer,
    ) -> mouse::Interaction {
        let state = tree.state.downcast_ref::<State>();
        if state.grab.is_some() {
            mouse::Interaction::Grabbing
        } else if cursor.is_over(layout.bounds()) && self.thumb(layout.bounds()).is_some() {
            mouse::Interaction::Grab
        } else {
            mouse::Interaction::default()
        }
    }
}

impl<'a, Message: 'a, Renderer: renderer::Renderer + 'a> From<Scrollbar<'a, Message>>
    for Element<'a, Message, Theme, Renderer>
{
    fn from(bar: Scrollbar<'a, Message>) -> Self {
        Element::new(bar)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_list_keeps_a_grabbable_thumb_that_spans_the_whole_list() {
        // 200,000 rows of 30 px seen through 600 px on a 600 px track.
        let (track, content, viewport) = (600.0, 6_000_000.0, 600.0);
        let top = thumb(track, content, viewport, 0.0).unwrap();
        assert_eq!(
            top,
            Thumb {
                top: 0.0,
                height: MIN_THUMB
            }
        );
        let end = thumb(track, content, viewport, content - viewport).unwrap();
        assert_eq!(end.top, track - MIN_THUMB);
        let middle = thumb(track, content, viewport, (content - viewport) / 2.0).unwrap();
        assert_eq!(middle.top, (track - MIN_THUMB) / 2.0);
        // And back: the thumb's position gives the offset.
        assert_eq!(
            offset_at(track, content, viewport, middle.top),
            (content - viewport) / 2.0
        );
        assert_eq!(offset_at(track, content, viewport, -50.0), 0.0);
        assert_eq!(
            offset_at(track, content, viewport, track),
            content - viewport
        );
    }

    #[test]
    fn a_short_list_has_a_proportional_thumb_or_none() {
        let half = thumb(400.0, 1600.0, 800.0, 800.0).unwrap();
        assert_eq!(
            half,
            Thumb {
                top: 200.0,
                height: 200.0
            }
        );
        assert_eq!(thumb(400.0, 800.0, 800.0, 0.0), None);
        assert_eq!(offset_at(400.0, 800.0, 800.0, 100.0), 0.0);
    }
}
