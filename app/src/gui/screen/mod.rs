//! The window's screens. Each has a `Message` (its own input), an `Event` (what its parent
//! must act on), `update(&mut self, Message, &Ctx) -> (Task<Message>, Option<Event>)` and
//! `view`; the parent maps both with its own message variant.

pub mod browser;
pub mod jobs_panel;
pub mod recovery;
pub mod sidebar;
pub mod tabs;
pub mod toolbar;
pub mod trash;

use std::path::Path;

use iced::keyboard::Modifiers;

use browser::Dirs;

use crate::gui::settings::Settings;

/// What screens may read from the window while they update: passed explicitly, never global.
pub struct Ctx<'a> {
    /// The listing service (only browser panes use it).
    pub dirs: &'a dyn Dirs,
    /// The keyboard modifiers held now (Ctrl/Shift-click).
    pub modifiers: Modifiers,
    /// The user's home folder, for `~` and the first breadcrumb.
    pub home: Option<&'a Path>,
    /// The preferences (a folder's own view mode and sort, the defaults).
    pub settings: &'a Settings,
}
