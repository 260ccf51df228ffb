//! Dragging items inside the window: onto a folder row or cell, a place, a tab, the other
//! pane of a split, or the empty part of a pane (its folder). iced has no drag source, so the
//! drag is ours: it starts when a pane reports that the pointer moved a few pixels with the
//! button held on an item, follows the pointer at the window's level (a badge says what a
//! drop would do, and changes with Ctrl and Shift), opens a folder held under the pointer for
//! a moment (spring-loaded) and selects a tab held under it, scrolls a list near its edges,
//! and ends with the button's release (the job) or Escape (nothing).
//!
//! The action follows the convention: same file system = move, another = copy; Ctrl copies,
//! Shift moves, Ctrl+Shift links; a drop onto the Trash trashes. A drop the target cannot take
//! (an item onto itself or into its own folder tree, a read-only file system, a copy into the
//! trash) is refused, and the badge says why. Items dragged out of the Trash view (which holds
//! them, see `screen/trash/drag.rs`) are restored where they are dropped: a place or a tab,
//! the panes being hidden behind the view.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ferry_core::fs::MountTable;
use ferry_core::jobs::{ConflictPolicy, Job};
use iced::keyboard::Modifiers;
use iced::widget::{container, pin, row, stack, text};
use iced::{Alignment, Element, Point, Size, Task};

use super::format::{self, Category};
use super::jobs::FollowUp;
use super::screen::{browser, sidebar, tabs, trash};
use super::widget::icon;
use super::words;
use super::{Ferry, Message, style};

/// A folder held under the pointer this long opens.
pub(super) const SPRING: Duration = Duration::from_millis(800);
/// A tab held under the pointer this long is shown.
const TAB_SPRING: Duration = Duration::from_millis(500);

/// A drag under way.
#[derive(Debug, Clone)]
pub struct Drag {
    /// What is dragged (for a drag out of the Trash view, the items' files in the trash).
    pub paths: Vec<PathBuf>,
    /// The items come from the Trash view: a drop restores them (the view holds them).
    pub from_trash: bool,
    /// The first item's kind, for the badge.
    pub first: Category,
    /// Where the pointer is, in the window.
    pub pointer: Point,
    /// What is under the pointer, and since when (spring-loading).
    hover: Option<(Hover, Instant)>,
    /// What a drop would do, and for what it was decided (a target and the modifiers held):
    /// decided again only when they change, since deciding looks at every item dragged
    /// (0.7 ms a frame for 10,000 items, measured by `ferry bench`).
    action: Option<Action>,
    decided_for: Option<(Option<Hover>, Modifiers)>,
}

/// What the pointer is over during a drag.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Hover {
    /// A folder item of a pane (it opens when held).
    Item(ferry_core::dirs::ViewId, PathBuf),
    /// The empty part of a pane: its folder.
    Pane(PathBuf),
    /// A place of the sidebar.
    Place(sidebar::Place),
    /// A tab (it is shown when held).
    Tab(usize),
}

/// What a drop would do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Move into the folder.
    Move(PathBuf),
    /// Copy into the folder.
    Copy(PathBuf),
    /// Make links in the folder.
    Link(PathBuf),
    /// Move to the trash.
    Trash,
    /// Restore trashed items into the folder.
    Restore(PathBuf),
    /// Nothing: why not.
    Refused(String),
}

impl Drag {
    /// A drag of `paths` starting with the pointer at `pointer`.
    pub fn new(paths: Vec<PathBuf>, first: Category, pointer: Point) -> Self {
        Drag {
            paths,
            from_trash: false,
            first,
            pointer,
            hover: None,
            action: None,
            decided_for: None,
        }
    }

    /// A drag of the Trash view's items, whose files in the trash are `files`.
    pub fn from_trash(files: Vec<PathBuf>, first: Category, pointer: Point) -> Self {
        Drag {
            from_trash: true,
            ..Drag::new(files, first, pointer)
        }
    }

    /// The mounts changed: what a drop would do is decided again.
    pub fn forget_decision(&mut self) {
        self.decided_for = None;
    }

    /// Makes what is under the pointer held `by` longer, as if that much time had passed.
    #[cfg(test)]
    pub(super) fn age_hover(&mut self, by: Duration) {
        if let Some((_, since)) = &mut self.hover {
            *since = since.checked_sub(by).expect("the clock is older than that");
        }
    }
}

impl Ferry {
    /// A pane started dragging its selection.
    pub(super) fn drag_started(&mut self, paths: Vec<PathBuf>, first: Category) {
        self.drag = Some(Drag::new(paths, first, self.pointer));
        self.menu = None;
        self.refresh_drop();
    }

    /// The pointer moved (in the window) during a drag: what is under it now.
    pub(super) fn drag_moved(&mut self, pointer: Point) -> Task<Message> {
        self.pointer = pointer;
        let Some(drag) = &mut self.drag else {
            return Task::none();
        };
        drag.pointer = pointer;
        let panes_shown = self.trash.is_none();
        let sidebar = (self.services.settings.show_sidebar).then_some(&self.sidebar);
        let hover = hover_at(&self.tabs, sidebar, pointer, panes_shown);
        if drag.hover.as_ref().map(|(h, _)| h) != hover.as_ref() {
            drag.hover = hover.map(|h| (h, Instant::now()));
        }
        self.refresh_drop();
        if !panes_shown {
            return Task::none();
        }
        // The list under the pointer scrolls near its edges.
        let messages: Vec<Message> = self
            .tabs
            .current()
            .panes()
            .iter()
            .map(|pane| {
                let bounds = pane.list_bounds();
                let over = if bounds.contains(pointer) {
                    browser::Message::DragOver(Point::new(
                        pointer.x - bounds.x,
                        pointer.y - bounds.y,
                    ))
                } else {
                    browser::Message::Released
                };
                Message::Tabs(tabs::Message::Pane(pane.view_id(), over))
            })
            .collect();
        Task::batch(messages.into_iter().map(Task::done))
    }

    /// Time passed during a drag: a folder or a tab held under the pointer opens.
    pub(super) fn drag_tick(&mut self) -> Task<Message> {
        let Some(drag) = &mut self.drag else {
            return Task::none();
        };
        let Some((hover, since)) = &drag.hover else {
            return Task::none();
        };
        // A folder dragged (or one inside it) is not opened: nothing can be dropped there,
        // and the pane would be left inside what is being dragged.
        let dragged = |folder: &Path| drag.paths.iter().any(|p| folder.starts_with(p));
        match hover {
            Hover::Item(view, folder) if since.elapsed() >= SPRING && !dragged(folder) => {
                let (view, folder) = (*view, folder.clone());
                // The pane shows the folder now, under the pointer: a release there drops
                // into it, before the pointer moves again.
                drag.hover = Some((Hover::Pane(folder.clone()), Instant::now()));
                self.refresh_drop();
                self.update(Message::Tabs(tabs::Message::Pane(
                    view,
                    browser::Message::Navigate(folder),
                )))
            }
            Hover::Tab(index) if since.elapsed() >= TAB_SPRING => {
                let index = *index;
                drag.hover = Some((
                    Hover::Tab(index),
                    Instant::now() + Duration::from_secs(3600),
                ));
                self.update(Message::Tabs(tabs::Message::Select(index)))
            }
            _ => Task::none(),
        }
    }

    /// What dropping now would do.
    pub(super) fn drop_action(&self) -> Option<Action> {
        self.drag.as_ref()?.action.clone()
    }

    /// Decides again what a drop would do, if its target or the modifiers changed.
    pub(super) fn refresh_drop(&mut self) {
        let Some(drag) = &self.drag else {
            return;
        };
        let key = (
            drag.hover.as_ref().map(|(h, _)| h.clone()),
            self.services.modifiers,
        );
        if drag.decided_for.as_ref() == Some(&key) {
            return;
        }
        let action = self.decide_drop();
        if let Some(drag) = &mut self.drag {
            drag.action = action;
            drag.decided_for = Some(key);
        }
    }

    fn decide_drop(&self) -> Option<Action> {
        let drag = self.drag.as_ref()?;
        let target = match &drag.hover.as_ref()?.0 {
            Hover::Item(_, folder) | Hover::Pane(folder) => Target::Folder(folder.clone()),
            Hover::Place(place) if Some(place) == self.sidebar.trash_place().as_ref() => {
                Target::Trash
            }
            Hover::Place(place) => Target::Folder(place.path()?.to_path_buf()),
            Hover::Tab(index) => Target::Folder(self.tabs.tab_folder(*index)?),
        };
        if drag.from_trash {
            return Some(decide_restore(&target, &self.mounts));
        }
        Some(decide(
            &drag.paths,
            &target,
            self.services.modifiers,
            &self.mounts,
        ))
    }

    /// The button was released: the drop, if it would do something.
    pub(super) fn dropped(&mut self) -> Task<Message> {
        let action = self.drop_action();
        let Some(drag) = self.drag.take() else {
            return Task::none();
        };
        let release = self.release_panes();
        let job = match action {
            // A drop's move can become a copy from its toast.
            Some(Action::Move(dest_dir)) => {
                let moved = self.start_move(drag.paths, dest_dir, FollowUp::ToastWithCopy, false);
                return Task::batch([release, moved]);
            }
            Some(Action::Copy(dest_dir)) => Job::Copy {
                sources: drag.paths,
                dest_dir,
                dest_name: None,
                on_conflict: ConflictPolicy::Ask,
            },
            Some(Action::Trash) => {
                let trashed = self.start_trash(drag.paths);
                return Task::batch([release, trashed]);
            }
            Some(Action::Link(dest_dir)) => Job::Link {
                targets: drag.paths,
                dest_dir,
                on_conflict: ConflictPolicy::Ask,
            },
            Some(Action::Restore(folder)) => {
                let restore = self.trash_message(trash::Message::DroppedInto(folder));
                return Task::batch([release, restore]);
            }
            Some(Action::Refused(_)) | None if drag.from_trash => {
                let cancel = self.trash_message(trash::Message::DragCancelled);
                return Task::batch([release, cancel]);
            }
            Some(Action::Refused(_)) | None => return release,
        };
        Task::batch([release, self.start_job(job, FollowUp::Toast)])
    }

    /// Escape during a drag: nothing happens.
    pub(super) fn drag_cancelled(&mut self) -> Task<Message> {
        let from_trash = self.drag.take().is_some_and(|d| d.from_trash);
        let release = self.release_panes();
        if from_trash {
            return Task::batch([release, self.trash_message(trash::Message::DragCancelled)]);
        }
        release
    }

    fn release_panes(&self) -> Task<Message> {
        Task::batch(self.tabs.panes().map(|pane| {
            Task::done(Message::Tabs(tabs::Message::Pane(
                pane.view_id(),
                browser::Message::Released,
            )))
        }))
    }

    /// The badge following the pointer: what a drop would do, with the first item's icon.
    pub(super) fn drag_badge<'a>(&'a self, base: Element<'a, Message>) -> Element<'a, Message> {
        let Some(drag) = &self.drag else {
            return crate::gui::widget::unlayered(base);
        };
        let count = format::counted(drag.paths.len(), "item", "items");
        let (words, refused) = match self.drop_action() {
            Some(Action::Move(to)) => (format!("Move {count} to {}", words::quoted(&to)), false),
            Some(Action::Copy(to)) => (format!("Copy {count} to {}", words::quoted(&to)), false),
            Some(Action::Link(to)) => (format!("Link {count} in {}", words::quoted(&to)), false),
            Some(Action::Trash) => (format!("Move {count} to the trash"), false),
            Some(Action::Restore(to)) => {
                (format!("Restore {count} to {}", words::quoted(&to)), false)
            }
            Some(Action::Refused(why)) => (why, true),
            None => (count, false),
        };
        let at = badge_at(drag.pointer, &words, self.window);
        let label = text(words).size(13);
        let label = if refused {
            label.style(style::danger_text)
        } else {
            label
        };
        let badge = container(
            row![icon::icon(drag.first, false, 20.0), label]
                .spacing(8)
                .align_y(Alignment::Center),
        )
        .padding([6, 10])
        .style(style::menu);
        stack![base, pin(badge).x(at.x).y(at.y)].into()
    }
}

/// The badge's width beside its text: the icon, the gap after it and the padding.
const BADGE_CHROME: f32 = 20.0 + 8.0 + 2.0 * 10.0 + 4.0;
/// The badge's height: the icon and the padding.
const BADGE_HEIGHT: f32 = 20.0 + 2.0 * 6.0 + 2.0;

/// Where the badge saying `words` goes for the pointer at `pointer` in a window of `window`:
/// below and to the right of it, kept inside the window as a menu is (flipped left or up near
/// an edge). Pinned to the right of the pointer, it was squeezed to a sliver over the last tab.
fn badge_at(pointer: Point, words: &str, window: Size) -> Point {
    let size = Size::new(
        crate::gui::fit::width(words, 13.0) + BADGE_CHROME,
        BADGE_HEIGHT,
    );
    let anchor = Point::new(pointer.x + 14.0, pointer.y + 18.0);
    crate::gui::widget::context_menu::place(anchor, size, window)
}

/// The pointer's moves and the left button's release.
#[allow(
    clippy::needless_pass_by_value,
    reason = "the signature `listen_with` takes"
)]
pub fn listen(event: iced::Event, _: iced::event::Status, _: iced::window::Id) -> Option<Message> {
    match event {
        iced::Event::Mouse(iced::mouse::Event::CursorMoved { position }) => {
            Some(Message::PointerMoved(position))
        }
        iced::Event::Mouse(iced::mouse::Event::ButtonReleased(iced::mouse::Button::Left)) => {
            Some(Message::PointerReleased)
        }
        _ => None,
    }
}

/// Where a drop would land.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Target {
    Folder(PathBuf),
    Trash,
}

/// What is under `pointer`: a hovered place or tab, else (when the panes are shown, not the
/// Trash view) the pane whose list holds it (its hovered folder item, or its folder).
///
/// A place, a tab or a breadcrumb says itself when the pointer enters and leaves it; what it
/// says counts only where the pointer is in its part of the window. One left unseen (under a
/// menu, or as the Trash view opened) stayed "under the pointer", and a click in the Trash
/// view that moved a little restored the item into Home, without a word.
fn hover_at(
    tabs: &tabs::Tabs,
    sidebar: Option<&sidebar::Sidebar>,
    pointer: Point,
    panes_shown: bool,
) -> Option<Hover> {
    let first_list = tabs.current().panes().first().map(|p| p.list_bounds());
    let over_lists = first_list.is_some_and(|list| list.height > 0.0 && pointer.y >= list.y);
    if let Some(sidebar) = sidebar
        && pointer.x <= sidebar.width()
        && let Some(place) = sidebar.hovered()
    {
        return Some(Hover::Place(place.clone()));
    }
    if !over_lists && let Some(index) = tabs.hovered_tab() {
        return Some(Hover::Tab(index));
    }
    if !panes_shown {
        return None;
    }
    let panes = tabs.current().panes();
    let Some(pane) = panes.iter().find(|p| p.list_bounds().contains(pointer)) else {
        // Above the lists: a breadcrumb's folder, if one is under the pointer.
        let crumb = (panes.iter())
            .filter(|p| {
                let list = p.list_bounds();
                pointer.y < list.y && (list.x..=list.x + list.width).contains(&pointer.x)
            })
            .find_map(|p| p.hovered_crumb());
        return crumb.map(|folder| Hover::Pane(folder.to_path_buf()));
    };
    Some(match pane.hovered_folder() {
        Some(folder) => Hover::Item(pane.view_id(), folder),
        None => Hover::Pane(pane.path().to_path_buf()),
    })
}

/// What dropping `paths` on `target` does, with `modifiers` held.
fn decide(paths: &[PathBuf], target: &Target, modifiers: Modifiers, mounts: &MountTable) -> Action {
    let (ctrl, shift) = (modifiers.command(), modifiers.shift());
    let folder = match target {
        Target::Trash if ctrl => return Action::Refused("Can't copy into the trash".to_owned()),
        Target::Trash => return Action::Trash,
        Target::Folder(folder) => folder,
    };
    if let Some(source) = paths.iter().find(|p| folder.starts_with(p)) {
        return Action::Refused(format!(
            "Can't put “{}” into itself",
            format::display_name(source)
        ));
    }
    if mount_of(mounts, folder).is_some_and(|m| m.read_only) {
        return Action::Refused(format!("{} is read-only", words::quoted(folder)));
    }
    if ctrl && shift {
        return Action::Link(folder.clone());
    }
    let here = paths.iter().all(|p| p.parent() == Some(folder.as_path()));
    let same_device = paths.iter().all(|p| {
        let source = mount_of(mounts, p).map(|m| m.dev);
        source.is_some() && source == mount_of(mounts, folder).map(|m| m.dev)
    });
    if ctrl || (!shift && !same_device) {
        return Action::Copy(folder.clone());
    }
    if here {
        return Action::Refused(format!("Already in {}", words::quoted(folder)));
    }
    Action::Move(folder.clone())
}

/// What dropping trashed items on `target` does: restore them there, unless it is the trash
/// itself or a read-only file system.
fn decide_restore(target: &Target, mounts: &MountTable) -> Action {
    match target {
        Target::Trash => Action::Refused("Already in the trash".to_owned()),
        Target::Folder(folder) if mount_of(mounts, folder).is_some_and(|m| m.read_only) => {
            Action::Refused(format!("{} is read-only", words::quoted(folder)))
        }
        Target::Folder(folder) => Action::Restore(folder.clone()),
    }
}

/// The mount holding `path`: the longest mount point that is a prefix of it (told from the
/// path alone; a drop's default action is a suggestion the modifiers override).
fn mount_of<'a>(mounts: &'a MountTable, path: &Path) -> Option<&'a ferry_core::fs::Mount> {
    mounts
        .mounts()
        .iter()
        .filter(|m| path.starts_with(&m.mount_point))
        .max_by_key(|m| m.mount_point.as_os_str().len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_badge_stays_inside_the_window_near_its_edges() {
        let window = Size::new(1100.0, 720.0);
        let words = "Move 1 item to “Pictures”";
        let width = crate::gui::fit::width(words, 13.0) + BADGE_CHROME;
        let free = badge_at(Point::new(300.0, 200.0), words, window);
        assert_eq!(
            free,
            Point::new(314.0, 218.0),
            "beside the pointer where it fits"
        );
        let right = badge_at(Point::new(1090.0, 60.0), words, window);
        assert!(
            right.x + width <= window.width && right.x < 1090.0,
            "{right:?}"
        );
        let bottom = badge_at(Point::new(300.0, 715.0), words, window);
        assert!(bottom.y + BADGE_HEIGHT <= window.height, "{bottom:?}");
    }

    fn mounts() -> MountTable {
        MountTable::parse(
            b"22 1 8:1 / / rw - ext4 /dev/sda1 rw\n\
              30 22 0:40 / /media/usb rw - vfat /dev/sdb1 rw\n\
              31 22 0:41 / /mnt/cd ro - iso9660 /dev/sr0 ro\n",
        )
    }

    fn to(folder: &str) -> Target {
        Target::Folder(PathBuf::from(folder))
    }

    #[test]
    fn same_disk_moves_another_copies_and_the_modifiers_decide() {
        let items = [PathBuf::from("/home/a/x.txt")];
        let none = Modifiers::empty();
        assert_eq!(
            decide(&items, &to("/home/b"), none, &mounts()),
            Action::Move("/home/b".into())
        );
        assert_eq!(
            decide(&items, &to("/media/usb/backup"), none, &mounts()),
            Action::Copy("/media/usb/backup".into())
        );
        assert_eq!(
            decide(&items, &to("/home/b"), Modifiers::CTRL, &mounts()),
            Action::Copy("/home/b".into())
        );
        assert_eq!(
            decide(&items, &to("/media/usb"), Modifiers::SHIFT, &mounts()),
            Action::Move("/media/usb".into())
        );
        assert_eq!(
            decide(
                &items,
                &to("/home/b"),
                Modifiers::CTRL | Modifiers::SHIFT,
                &mounts()
            ),
            Action::Link("/home/b".into())
        );
    }

    #[test]
    fn drops_that_cannot_be_taken_say_why() {
        let folder = [PathBuf::from("/home/a/photos")];
        let refused = |target, modifiers| {
            matches!(
                decide(&folder, &target, modifiers, &mounts()),
                Action::Refused(_)
            )
        };
        assert!(
            refused(to("/home/a/photos"), Modifiers::empty()),
            "onto itself"
        );
        assert!(
            refused(to("/home/a/photos/2024"), Modifiers::empty()),
            "into itself"
        );
        assert!(refused(to("/home/a"), Modifiers::empty()), "already there");
        assert!(refused(to("/mnt/cd"), Modifiers::empty()), "read-only");
        assert!(
            refused(Target::Trash, Modifiers::CTRL),
            "a copy into the trash"
        );
        assert_eq!(
            decide(&folder, &Target::Trash, Modifiers::empty(), &mounts()),
            Action::Trash
        );
        assert_eq!(
            decide(&folder, &to("/home/a"), Modifiers::CTRL, &mounts()),
            Action::Copy("/home/a".into()),
            "a copy into its own folder duplicates"
        );
    }
}
