//! The places sidebar: Home and the XDG user folders, the GTK bookmarks, the mounted file
//! systems with their free space, and the trash. The data comes from `ferry_core::places`,
//! loaded on a worker thread by the window; this screen shows it, highlights the place of the
//! active pane's folder, and can be resized by dragging its right edge.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use ferry_core::Error;
use ferry_core::places::{Bookmark, PlaceId, Places, StandardKind, Status, Volume};
use iced::widget::{Column, button, column, container, mouse_area, row, scrollable, space, text};
use iced::{Alignment, Element, Fill, Point, Task, mouse};

use super::Ctx;
use crate::gui::format::{self, Category};
use crate::gui::style;
use crate::gui::widget::icon;
use crate::gui::widget::pointer::pointer_area;

/// The narrowest and widest the sidebar can be dragged.
pub const WIDTHS: std::ops::RangeInclusive<f32> = 140.0..=480.0;
/// The grab zone at the sidebar's right edge.
const HANDLE: f32 = 6.0;
const ICON: f32 = 18.0;

/// A place as the context menu acts on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// A folder to open (standard place, volume, trash).
    Folder(PathBuf),
    /// A bookmark: its folder, if local, and the bookmark itself, label and all (to remove
    /// it, and no other to the same folder).
    Bookmark(Option<PathBuf>, Bookmark),
}

impl Place {
    /// The folder it opens, if any.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Place::Folder(path) => Some(path),
            Place::Bookmark(path, _) => path.as_deref(),
        }
    }
}

/// Input of the sidebar.
#[derive(Debug, Clone)]
pub enum Message {
    /// The places were read (on a worker thread).
    Loaded(Result<Box<Places>, Arc<Error>>),
    /// A place was clicked.
    Open(PathBuf),
    /// A place was clicked with the middle button.
    OpenInNewTab(PathBuf),
    /// A place was right-clicked (the position follows as [`Message::RightPressed`]).
    PlaceRightPressed(Place),
    /// The pointer is over a place.
    Hovered(Place),
    /// The pointer left a place: forgotten only if it is still the one hovered (moving up,
    /// the next place's enter comes before this one's exit, and a drop on it did nothing).
    Left(Place),
    /// A right press in the sidebar at this window position.
    RightPressed(Point),
    /// A press on the sidebar's empty part or its edge, here (sidebar coordinates).
    Pressed(Point),
    /// The pointer moved with the button held.
    Dragged(Point),
    /// The button was released.
    Released,
}

/// What the window must act on.
#[derive(Debug, Clone)]
pub enum Event {
    /// Show this folder in the active pane.
    Navigate(PathBuf),
    /// Open this folder in a new tab.
    OpenInNewTab(PathBuf),
    /// Open the context menu of `place` at this window position.
    ContextMenu {
        /// The place.
        place: Place,
        /// Where.
        at: Point,
    },
    /// The user dragged the sidebar to this width.
    Resized(f32),
    /// Files of the places could not be read: say so once.
    Problems(Vec<Arc<Error>>),
}

/// The sidebar's state.
#[derive(Debug, Default)]
pub struct Sidebar {
    places: Option<Places>,
    width: f32,
    resizing: bool,
    /// The place a right press landed on, until the press's position arrives.
    pressed: Option<Place>,
    /// Problems already reported, so a reload does not repeat them.
    reported: usize,
    /// The home trash's files folder, what the Trash place stands for (it opens the Trash
    /// view).
    trash: Option<PathBuf>,
    /// The place the keyboard is on, while the sidebar has the keyboard (Tab goes there
    /// after the panes).
    focus: Option<usize>,
    /// The place under the pointer (a drop lands there).
    hovered: Option<Place>,
}

impl Sidebar {
    /// A sidebar `width` wide, with nothing loaded yet; its Trash place stands for the home
    /// trash `trash` (a `…/Trash` folder).
    pub fn new(width: f32, trash: Option<&std::path::Path>) -> Self {
        Sidebar {
            width: width.clamp(*WIDTHS.start(), *WIDTHS.end()),
            trash: trash.map(|home| home.join("files")),
            ..Sidebar::default()
        }
    }

    /// Its width.
    pub fn width(&self) -> f32 {
        self.width
    }

    /// The places, once loaded.
    pub fn places(&self) -> Option<&Places> {
        self.places.as_ref()
    }

    /// Handles one message.
    pub fn update(&mut self, message: Message, _ctx: &Ctx<'_>) -> (Task<Message>, Option<Event>) {
        let event = match message {
            Message::Loaded(Ok(places)) => {
                let fresh: Vec<Arc<Error>> =
                    places.errors.iter().skip(self.reported).cloned().collect();
                self.reported = places.errors.len();
                self.places = Some(*places);
                (!fresh.is_empty()).then_some(Event::Problems(fresh))
            }
            Message::Loaded(Err(error)) => Some(Event::Problems(vec![error])),
            Message::Open(path) => Some(Event::Navigate(path)),
            Message::OpenInNewTab(path) => Some(Event::OpenInNewTab(path)),
            Message::PlaceRightPressed(place) => {
                self.pressed = Some(place);
                None
            }
            Message::Hovered(place) => {
                self.hovered = Some(place);
                None
            }
            Message::Left(place) => {
                if self.hovered.as_ref() == Some(&place) {
                    self.hovered = None;
                }
                None
            }
            Message::RightPressed(at) => self
                .pressed
                .take()
                .map(|place| Event::ContextMenu { place, at }),
            Message::Pressed(at) => {
                self.resizing = (at.x - self.width).abs() <= HANDLE + 2.0;
                None
            }
            Message::Dragged(at) if self.resizing => {
                self.width = at.x.clamp(*WIDTHS.start(), *WIDTHS.end());
                Some(Event::Resized(self.width))
            }
            Message::Dragged(_) => None,
            Message::Released => {
                self.resizing = false;
                None
            }
        };
        (Task::none(), event)
    }

    /// Every place in sidebar order, as the keyboard walks them.
    fn places_in_order(&self) -> Vec<Place> {
        let Some(places) = &self.places else {
            return Vec::new();
        };
        let mut all: Vec<Place> = places
            .standard
            .iter()
            .map(|p| Place::Folder(p.path.clone()))
            .collect();
        all.extend(self.trash.clone().map(Place::Folder));
        all.extend(places.bookmarks.iter().map(|b| {
            let path = b.bookmark.target.path().map(Path::to_path_buf);
            Place::Bookmark(path, b.bookmark.clone())
        }));
        all.extend(
            places
                .volumes
                .iter()
                .map(|v| Place::Folder(v.mount_point.clone())),
        );
        all
    }

    /// The place under the pointer.
    pub fn hovered(&self) -> Option<&Place> {
        self.hovered.as_ref()
    }

    /// The home trash's folder, what the Trash place stands for.
    pub fn trash_path(&self) -> Option<&std::path::Path> {
        self.trash.as_deref()
    }

    /// The Trash place (a drop on it trashes).
    pub fn trash_place(&self) -> Option<Place> {
        self.trash.clone().map(Place::Folder)
    }

    /// True while the keyboard is in the sidebar.
    pub fn has_focus(&self) -> bool {
        self.focus.is_some()
    }

    /// Gives the sidebar the keyboard, on its first place; false when there is none.
    pub fn take_focus(&mut self, current: &Path) -> bool {
        self.focus = (!self.places_in_order().is_empty()).then(|| self.index_of(current));
        self.focus.is_some()
    }

    /// Where the place holding `current` is in sidebar order (as [`view`](Self::view)
    /// highlights it), the first when none holds it: the keyboard starts there, as in
    /// Dolphin, not always on Home.
    fn index_of(&self, current: &Path) -> usize {
        let Some(places) = &self.places else {
            return 0;
        };
        if self.trash.as_deref() == Some(current) {
            return places.standard.len();
        }
        let (first_bookmark, first_volume) = self.sections(places);
        match places.best_for(current) {
            Some(PlaceId::Standard(i)) => i,
            Some(PlaceId::Bookmark(i)) => first_bookmark + i,
            Some(PlaceId::Volume(i)) => first_volume + i,
            None => 0,
        }
    }

    /// Where the bookmarks and the devices start in sidebar order.
    fn sections(&self, places: &Places) -> (usize, usize) {
        let first_bookmark = places.standard.len() + usize::from(self.trash.is_some());
        (first_bookmark, first_bookmark + places.bookmarks.len())
    }

    /// Gives the keyboard back to the panes.
    pub fn leave_focus(&mut self) {
        self.focus = None;
    }

    /// Moves the keyboard's place down (or up), stopping at the ends.
    pub fn step_focus(&mut self, down: bool) {
        let count = self.places_in_order().len();
        if let Some(at) = &mut self.focus {
            *at = if down {
                (*at + 1).min(count.saturating_sub(1))
            } else {
                at.saturating_sub(1)
            };
        }
    }

    /// Moves the keyboard's place to the last place (or the first).
    pub fn focus_end(&mut self, last: bool) {
        let count = self.places_in_order().len();
        if let Some(at) = &mut self.focus {
            *at = if last { count.saturating_sub(1) } else { 0 };
        }
    }

    /// The place the keyboard is on, and about where the foot of its row is drawn, in the
    /// window (for its menu, which opens under the row, leaving it in sight): the rows above
    /// it and the headings of their sections, at the heights [`view`](Self::view) draws them
    /// (unscrolled; a menu opened at a fixed height stood a row or two above the place, more
    /// the further down it was).
    pub fn focused(&self) -> Option<(Place, Point)> {
        let at = self.focus?;
        let places = self.places.as_ref()?;
        let place = self.places_in_order().into_iter().nth(at)?;
        let (first_bookmark, first_volume) = self.sections(places);
        let height = |i: usize| match i {
            i if i < first_bookmark => ROW_H,
            i if i < first_volume => match places.bookmarks[i - first_bookmark].status {
                Status::Present => ROW_H,
                _ => ROW_H + NOTE_H,
            },
            _ => VOLUME_ROW_H,
        };
        let heading = |i: usize| match i {
            0 => 0.0,
            i if i == first_bookmark || i == first_volume => HEADING_H,
            _ => 0.0,
        };
        let top: f32 = FIRST_ROW_TOP + (0..at).map(|i| height(i) + heading(i + 1)).sum::<f32>();
        Some((place, Point::new(self.width - 24.0, top + height(at))))
    }

    /// The sidebar; the place holding `current` (the active pane's folder) is highlighted.
    pub fn view(&self, current: &Path) -> Element<'_, Message> {
        let mut list = Column::new().spacing(1).padding([8, 6]);
        if let Some(places) = &self.places {
            // The Trash view lights the Trash place only, not the disk its folder is on.
            let in_trash = self.trash.as_deref() == Some(current);
            let best = places.best_for(current).filter(|_| !in_trash);
            let mut index = 0;
            let mut next = || {
                index += 1;
                self.focus == Some(index - 1)
            };
            list = list.push(heading("Places"));
            for (i, place) in places.standard.iter().enumerate() {
                let label = standard_name(place.kind);
                let current = best == Some(PlaceId::Standard(i));
                list = list.push(entry(
                    icon::icon(Category::Folder, false, ICON),
                    label.into(),
                    None,
                    (current, next()),
                    Place::Folder(place.path.clone()),
                ));
            }
            if let Some(trash) = &self.trash {
                let trash_label = if places.trash_full {
                    "Trash"
                } else {
                    "Trash (empty)"
                };
                list = list.push(entry(
                    icon::trash(ICON, places.trash_full),
                    trash_label.into(),
                    None,
                    (trash == current, next()),
                    Place::Folder(trash.clone()),
                ));
            }
            if !places.bookmarks.is_empty() {
                list = list.push(heading("Bookmarks"));
            }
            for (i, bookmark) in places.bookmarks.iter().enumerate() {
                let target = bookmark.bookmark.target.clone();
                let path = target.path().map(Path::to_path_buf);
                let note = match bookmark.status {
                    Status::Present => None,
                    Status::Missing => Some("missing".to_owned()),
                    Status::NotResponding => Some("not responding".to_owned()),
                    Status::Remote => Some("network".to_owned()),
                };
                list = list.push(entry(
                    icon::icon(Category::Folder, true, ICON),
                    // On one line, as the tab and the path bar show it ("nl↵dir").
                    format::shown_name(bookmark.bookmark.name().as_ref().as_ref()).into_owned(),
                    note,
                    (best == Some(PlaceId::Bookmark(i)), next()),
                    Place::Bookmark(path, bookmark.bookmark.clone()),
                ));
            }
            if !places.volumes.is_empty() {
                list = list.push(heading("Devices"));
            }
            for (i, volume) in places.volumes.iter().enumerate() {
                let lit = (best == Some(PlaceId::Volume(i)), next());
                list = list.push(volume_entry(volume, lit));
            }
        }
        let handle = mouse_area(container(space()).width(HANDLE).height(Fill))
            .interaction(mouse::Interaction::ResizingHorizontally);
        let body = row![
            scrollable(list).height(Fill).width(self.width - HANDLE),
            handle
        ];
        pointer_area(
            container(body)
                .width(self.width)
                .height(Fill)
                .style(style::sidebar),
        )
        .on_press(Message::Pressed)
        .on_drag(Message::Dragged)
        .on_release(Message::Released)
        .on_right_press(|at, _| Message::RightPressed(at))
        .into()
    }
}

/// Where the places' rows are drawn in the window, as measured on screen: the top of the
/// first row (below the tool bar and the "Places" heading), a row of one line, the line a
/// note adds ("missing"), a device's row (name, bar, free space), a section's heading.
const FIRST_ROW_TOP: f32 = 81.5;
const ROW_H: f32 = 27.0;
const NOTE_H: f32 = 14.0;
const VOLUME_ROW_H: f32 = 46.0;
const HEADING_H: f32 = 32.0;

fn standard_name(kind: StandardKind) -> &'static str {
    match kind {
        StandardKind::Home => "Home",
        StandardKind::Desktop => "Desktop",
        StandardKind::Documents => "Documents",
        StandardKind::Downloads => "Downloads",
        StandardKind::Music => "Music",
        StandardKind::Pictures => "Pictures",
        StandardKind::Videos => "Videos",
    }
}

fn heading<'a>(title: &'a str) -> Element<'a, Message> {
    container(
        text(title)
            .size(11)
            .font(style::bold())
            .style(style::dim_text),
    )
    .padding([8, 8])
    .into()
}

/// A clickable place: icon, name and an optional note under it; `lit` says whether it is the
/// current folder's place and whether the keyboard is on it.
fn entry<'a>(
    icon: Element<'a, Message>,
    label: String,
    note: Option<String>,
    lit: (bool, bool),
    place: Place,
) -> Element<'a, Message> {
    let mut name = column![text(label).size(13)];
    if let Some(note) = note {
        name = name.push(text(note).size(11).style(style::dim_text));
    }
    place_button(
        row![icon, name]
            .spacing(8)
            .align_y(Alignment::Center)
            .into(),
        lit,
        place,
    )
}

fn place_button<'a>(
    content: Element<'a, Message>,
    (current, focused): (bool, bool),
    place: Place,
) -> Element<'a, Message> {
    let mut button = button(content)
        .padding([4, 8])
        .width(Fill)
        .style(style::place(current, focused));
    let mut area_place = None;
    if let Some(path) = place.path() {
        button = button.on_press(Message::Open(path.to_path_buf()));
        area_place = Some(path.to_path_buf());
    }
    let mut area = mouse_area(button)
        .on_right_press(Message::PlaceRightPressed(place.clone()))
        .on_enter(Message::Hovered(place.clone()))
        .on_exit(Message::Left(place));
    if let Some(path) = area_place {
        area = area.on_middle_press(Message::OpenInNewTab(path));
    }
    area.into()
}

/// A volume: its name, a usage bar and "X free of Y".
fn volume_entry(volume: &Volume, lit: (bool, bool)) -> Element<'_, Message> {
    let name = volume
        .name()
        .map_or_else(|| "File System".to_owned(), std::borrow::Cow::into_owned);
    let mut details = column![text(name).size(13)].spacing(3);
    match (&volume.space, volume.responding) {
        (_, false) => {
            details = details.push(text("not responding").size(11).style(style::dim_text));
        }
        (Some(space), true) if space.total > 0 => {
            #[allow(clippy::cast_precision_loss)] // a ratio
            let used = space.used() as f32 / space.total as f32;
            let nearly_full = used > 0.9;
            let bar = row![
                container(space::horizontal())
                    .width(iced::Length::FillPortion(
                        (used * 100.0).round().max(1.0) as u16
                    ))
                    .height(3)
                    .style(style::usage(true, nearly_full)),
                container(space::horizontal())
                    .width(iced::Length::FillPortion(
                        ((1.0 - used) * 100.0).round().max(1.0) as u16
                    ))
                    .height(3)
                    .style(style::usage(false, false)),
            ];
            let mut note = format!(
                "{} free of {}",
                format::size(space.available),
                format::size(space.total)
            );
            if volume.read_only {
                note.push_str(", read-only");
            }
            if volume.removable {
                note.push_str(", removable");
            }
            details = details
                .push(bar)
                .push(text(note).size(11).style(style::dim_text));
        }
        _ => {}
    }
    let icon = icon::drive(ICON, volume.removable, volume.network);
    place_button(
        row![icon, details.width(Fill)]
            .spacing(8)
            .align_y(Alignment::Center)
            .into(),
        lit,
        Place::Folder(volume.mount_point.clone()),
    )
}
