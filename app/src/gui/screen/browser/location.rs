//! The location bar: breadcrumbs (`crumbs.rs`), or, while editing (Ctrl+L, or a click on the
//! bar's empty part), the typed path with Tab completion of folder names (`completion.rs`)
//! and an inline refusal of a path that is not a folder. Here: the editing, and how a typed
//! path is read (`~`, `file://`, relative, names shown with stand-ins). The path is checked
//! off the UI thread.

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use ferry_core::Error;
use iced::widget::{column, text, text_input};
use iced::{Element, Fill, Task};

use super::view::{SMALL, TEXT};
use super::{Browser, Event, Message};
use crate::gui::bridge;
use crate::gui::completion::{Completion, with_real_names};
use crate::gui::format::shown_name;
use crate::gui::style;
use crate::gui::widget::field::{self, Opened};

/// A path being typed.
#[derive(Debug, Clone, Default)]
pub(super) struct Editing {
    pub(super) text: String,
    /// Why the last path submitted was refused, or why completion found nothing.
    pub(super) problem: Option<String>,
    /// Where Tab presses stand.
    pub(super) completion: Completion,
    /// The text it opened with, all selected (for letters typed before it has the keyboard).
    pub(super) opened: Opened,
    /// Opened over the Trash view (Ctrl+L there): Escape shows it again.
    pub(super) over_trash: bool,
}

impl Browser {
    pub(super) fn edit_path(&mut self) -> Task<Message> {
        // On one line, as the list shows names: a newline in a name cut the field there.
        let text = shown_name(self.path.as_os_str()).into_owned();
        let opened = Opened::all(&text);
        self.editing = Some(Editing {
            text,
            opened: opened.clone(),
            ..Editing::default()
        });
        field::focus(self.path_input_id(), opened)
    }

    /// The location being edited with the trash's address in it, as Dolphin's Ctrl+L shows
    /// `trash:/` in its Trash: it left the Trash for the last folder, its path in the field.
    pub(super) fn edit_trash_address(&mut self) -> Task<Message> {
        let text = "trash:/".to_owned();
        let opened = Opened::all(&text);
        self.editing = Some(Editing {
            text,
            opened: opened.clone(),
            over_trash: true,
            ..Editing::default()
        });
        field::focus(self.path_input_id(), opened)
    }

    pub(super) fn path_edited(&mut self, text: String) {
        if let Some(editing) = &mut self.editing {
            editing.text = text;
            editing.problem = None;
            editing.completion.clear();
        }
    }

    /// `c` for the path field, typed before it had the keyboard; `None` when it is not open.
    pub(super) fn path_typed_early(&mut self, c: char) -> Option<Task<Message>> {
        let editing = self.editing.as_ref()?;
        let mut text = editing.text.clone();
        let cursor = editing
            .opened
            .type_early(self.path_input_id(), &mut text, c);
        self.path_edited(text);
        Some(cursor)
    }

    /// Enter: the trash's address shows the trash; a path is checked ([`submit_path`]).
    ///
    /// [`submit_path`]: Self::submit_path
    pub(super) fn submit_location(&mut self) -> (Task<Message>, Option<Event>) {
        if self.editing.as_ref().is_some_and(|e| names_trash(&e.text)) {
            self.editing = None;
            return (Task::none(), Some(Event::OpenTrash));
        }
        (self.submit_path(), None)
    }

    /// The typed path is checked off the UI thread; a folder is then opened (a file's
    /// folder, with the file selected).
    fn submit_path(&mut self) -> Task<Message> {
        let Some(editing) = &self.editing else {
            return Task::none();
        };
        let (text, home) = (&editing.text, self.home.as_deref());
        let target = resolve(text, &self.path, home);
        // A name may begin or end with a space: the text exactly as typed is tried first.
        let as_typed = (text.trim() != text).then(|| resolve_as_typed(text, &self.path, home));
        // "notes.txt/" names a folder, as a shell reads it ("Not a directory"): never the file.
        let folder_only = text.trim_end().ends_with('/');
        bridge::blocking(move || {
            if let Some(as_typed) = as_typed.map(with_real_names)
                && let Ok(checked) = check_folder(&as_typed)
            {
                return Message::PathChecked(as_typed, Ok(checked));
            }
            let target = with_real_names(target);
            let checked = check_folder(&target);
            // A file: its folder, with it selected.
            if let Err(Error::NotADirectory { .. }) = &checked
                && !folder_only
                && let (Some(dir), Some(name)) = (target.parent(), target.file_name())
            {
                return Message::FileTyped(dir.to_path_buf(), name.to_owned());
            }
            Message::PathChecked(target, checked.map_err(Arc::new))
        })
    }

    pub(super) fn path_refused(&mut self, error: &Error) {
        if let Some(editing) = &mut self.editing {
            editing.problem = Some(if error.is_not_found() {
                "No such folder.".to_owned()
            } else if matches!(error, Error::NotADirectory { .. }) {
                "This is not a folder.".to_owned()
            } else if error.is_permission_denied() {
                "You don't have permission to open it.".to_owned()
            } else {
                error.to_string()
            });
        }
    }

    /// Breadcrumbs, or a text field while a path is typed.
    pub(super) fn path_bar(&self) -> Element<'_, Message> {
        if let Some(editing) = &self.editing {
            let field = text_input("Type a folder path (Tab completes)", &editing.text)
                .id(self.path_input_id())
                .on_input(Message::PathEdited)
                .on_submit(Message::PathSubmitted)
                .size(TEXT)
                .padding([7, 12])
                .style(style::path_input)
                .width(Fill);
            let mut bar = column![field].spacing(4);
            if let Some(problem) = &editing.problem {
                bar = bar.push(text(problem.as_str()).size(SMALL).style(style::danger_text));
            } else if !editing.completion.candidates.is_empty() {
                bar = bar.push(self.candidate_line(editing));
            }
            return bar.into();
        }
        self.crumb_bar()
    }
}

/// Blocking: `path` is a folder one can open (following a final symlink, as a shell does).
fn check_folder(path: &Path) -> Result<(), Error> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(_) => Err(Error::NotADirectory {
            path: path.to_owned(),
        }),
        Err(e) => Err(Error::io("open folder", path, e)),
    }
}

/// The folder a typed path names: `~` is the home folder, a `file://` address its path,
/// relative paths start at `current`.
/// Lexically, like a shell: "a/../b" is "b" even when "a" is a symlink elsewhere.
pub fn resolve(text: &str, current: &Path, home: Option<&Path>) -> PathBuf {
    resolve_as_typed(text.trim(), current, home)
}

/// Whether the typed `text` is the trash's address: `trash:`, `trash:/` or `trash:///`, as
/// Dolphin and Nautilus name it.
fn names_trash(text: &str) -> bool {
    let text = text.trim();
    text.get(..6)
        .is_some_and(|s| s.eq_ignore_ascii_case("trash:"))
        && text[6..].bytes().all(|b| b == b'/')
}

/// [`resolve`] without trimming the text: spaces at its ends are part of the names.
fn resolve_as_typed(text: &str, current: &Path, home: Option<&Path>) -> PathBuf {
    // A `file://` address, as Dolphin and Nautilus take one ("%20" for a space).
    if let Some(path) = (text.get(..7))
        .filter(|scheme| scheme.eq_ignore_ascii_case("file://"))
        .and_then(|_| ferry_core::uri::path_from_file_uri(text.as_bytes()).ok())
    {
        return path;
    }
    let typed = match (text.strip_prefix('~'), home) {
        (Some(rest), Some(home)) if rest.is_empty() || rest.starts_with('/') => {
            home.join(rest.trim_start_matches('/'))
        }
        _ => PathBuf::from(text),
    };
    let mut path = PathBuf::new();
    for part in current.join(typed).components() {
        match part {
            Component::ParentDir => {
                path.pop();
            }
            Component::CurDir => {}
            other => path.push(other),
        }
    }
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_trash_is_named_as_dolphin_and_nautilus_name_it() {
        for typed in ["trash:", "trash:/", "trash:///", " TRASH:/ "] {
            assert!(names_trash(typed), "{typed}");
        }
        for typed in ["trash", "trash:/x", "/trash:/", "trash:/ /"] {
            assert!(!names_trash(typed), "{typed}");
        }
    }

    #[test]
    fn typed_paths_are_read_like_a_shell_reads_them() {
        let here = Path::new("/home/ann/music");
        let home = Some(Path::new("/home/ann"));
        assert_eq!(resolve("~/docs", here, home), Path::new("/home/ann/docs"));
        assert_eq!(resolve("~", here, home), Path::new("/home/ann"));
        assert_eq!(resolve("../music/./old/..", here, home), here);
        assert_eq!(resolve("/etc ", here, home), Path::new("/etc"));
        assert_eq!(resolve("sub", here, home), Path::new("/home/ann/music/sub"));
        assert_eq!(
            resolve("~ann", here, home),
            Path::new("/home/ann/music/~ann")
        );
        // A file:// address, as Dolphin and Nautilus take one: it said "No such folder."
        assert_eq!(
            resolve("file:///home/ann/has%20space.txt", here, home),
            Path::new("/home/ann/has space.txt")
        );
        assert_eq!(
            resolve("FILE://localhost/tmp", here, home),
            Path::new("/tmp")
        );
    }

    #[test]
    fn names_shown_with_replacement_characters_find_their_folders() {
        use std::os::unix::ffi::OsStrExt;
        let tmp = tempfile::tempdir().unwrap();
        let odd = std::ffi::OsStr::from_bytes(b"bad\xff\xfedir");
        let inner = std::ffi::OsStr::from_bytes(b"in\xe9ner");
        let real = tmp.path().join(odd).join(inner);
        std::fs::create_dir_all(&real).unwrap();
        // As the field shows it, and as a user leaves it.
        let shown = PathBuf::from(real.to_string_lossy().into_owned());
        assert_ne!(shown, real);
        assert_eq!(with_real_names(shown), real);
        // A plain path, and one naming nothing, stay as typed.
        assert_eq!(with_real_names(tmp.path().to_owned()), tmp.path());
        let nothing = tmp.path().join("gone\u{fffd}");
        assert_eq!(with_real_names(nothing.clone()), nothing);
    }

    /// A name holding a newline cut the field at it: only "/tmp/two" showed of
    /// "/tmp/two\nlines". The field shows it on one line, as the list does, completes it so,
    /// and what it shows opens the folder.
    #[test]
    fn names_holding_newlines_show_on_one_line_and_find_their_folders() {
        let tmp = tempfile::tempdir().unwrap();
        let real = tmp.path().join("two\nlines").join("tab\there");
        std::fs::create_dir_all(&real).unwrap();
        let shown = shown_name(real.as_os_str()).into_owned();
        assert!(shown.ends_with("/two↵lines/tab⇥here"), "{shown}");
        assert_eq!(with_real_names(PathBuf::from(&shown)), real);
        let names = vec![std::ffi::OsString::from("two\nlines")];
        assert_eq!(
            crate::gui::completion::candidates(&names, "two"),
            ["two↵lines"]
        );
    }
}
