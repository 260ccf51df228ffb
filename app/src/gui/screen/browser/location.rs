//! The location bar: breadcrumbs, or, while editing (Ctrl+L, or a click on the bar's empty
//! part), the typed path with Tab completion of folder names and an inline refusal of a path
//! that is not a folder. Completion reads the folder off the UI thread, or from the pane's
//! own listing when it is the folder shown; the path is checked off the UI thread too.

use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use ferry_core::Error;
use iced::widget::operation;
use iced::widget::text::Wrapping;
use iced::widget::{Row, button, column, container, mouse_area, space, text, text_input};
use iced::{Alignment, Element, Fill, Font, Task, mouse};

use super::view::{SMALL, TEXT};
use super::{Browser, Event, Listing, Message};
use crate::gui::bridge;
use crate::gui::format::{STAND_INS, shown_name};
use crate::gui::screen::Ctx;
use crate::gui::style;
use crate::gui::widget::field::{self, Opened};

/// At most this many breadcrumb segments; the middle collapses into "…".
const MAX_CRUMBS: usize = 6;
/// Completion candidates listed under the field.
const SHOWN_CANDIDATES: usize = 8;

/// A path being typed.
#[derive(Debug, Clone, Default)]
pub(super) struct Editing {
    pub(super) text: String,
    /// Why the last path submitted was refused, or why completion found nothing.
    problem: Option<String>,
    /// The folders that complete the text Tab was last pressed on.
    candidates: Vec<String>,
    /// The text those candidates complete (the part before the name being completed).
    base: String,
    /// Which candidate repeated Tab presses are at.
    cycle: Option<usize>,
    /// The text it opened with, all selected (for letters typed before it has the keyboard).
    opened: Opened,
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
            editing.candidates.clear();
            editing.cycle = None;
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

    /// Tab: the next candidate when they are listed, or the folders that complete the name
    /// being typed.
    pub(super) fn complete(&mut self, ctx: &Ctx<'_>) -> Task<Message> {
        let Some(editing) = &mut self.editing else {
            return Task::none();
        };
        if !editing.candidates.is_empty() {
            let next = editing
                .cycle
                .map_or(0, |i| (i + 1) % editing.candidates.len());
            editing.cycle = Some(next);
            editing.text = format!("{}{}/", editing.base, editing.candidates[next]);
            return self.show_completion();
        }
        let typed = editing.text.clone();
        let (dir_text, _) = split_typed(&typed);
        let dir = resolve(
            if dir_text.is_empty() { "." } else { dir_text },
            &self.path,
            ctx.home,
        );
        // The folder shown is already listed: complete from the pane's own listing.
        if dir == self.path
            && let Listing::Loaded(contents) = &self.listing
        {
            let names: Arc<[OsString]> = contents
                .entries()
                .iter()
                .filter(|e| e.is_dir_like())
                .map(|e| e.name().to_owned())
                .collect();
            self.completed(&typed, &dir, Ok(names));
            return self.show_completion();
        }
        bridge::blocking(move || {
            // A folder whose name is not UTF-8 is typed as shown, with U+FFFD.
            let names = ferry_core::lister::folder_names(&with_real_names(dir.clone()))
                .map(Arc::from)
                .map_err(Arc::new);
            Message::Completed { typed, dir, names }
        })
    }

    /// The folders of `dir` arrived for completing `typed`.
    pub(super) fn completed(
        &mut self,
        typed: &str,
        dir: &Path,
        names: Result<Arc<[OsString]>, Arc<Error>>,
    ) {
        let Some(editing) = &mut self.editing else {
            return;
        };
        if editing.text != typed {
            return; // typed on since: stale
        }
        let names = match names {
            Ok(names) => names,
            Err(error) => {
                editing.problem = Some(format!("Can't read {}: {error}", dir.display()));
                return;
            }
        };
        let (base, prefix) = split_typed(typed);
        let found = candidates(&names, prefix);
        editing.base = base.to_owned();
        // Said of an earlier Tab, it stayed under a completion that found a folder.
        editing.problem = None;
        match found.as_slice() {
            [] => {
                editing.problem = Some(format!("No folder here starts with “{prefix}”."));
            }
            [only] => editing.text = format!("{base}{only}/"),
            many => {
                editing.text = format!("{base}{}", common_prefix(many));
                editing.candidates = found;
            }
        }
    }

    /// Puts the cursor after the completed text.
    pub(super) fn show_completion(&self) -> Task<Message> {
        operation::move_cursor_to_end(self.path_input_id())
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
            } else if !editing.candidates.is_empty() {
                bar = bar.push(self.candidate_line(editing));
            }
            return bar.into();
        }
        let crumbs = crumbs(&self.path, self.home.as_deref());
        // Laid out once the pane has a width; before that, by count.
        let crumbs = match self.bounds.width {
            w if w > 0.0 => fit_crumbs(crumbs, w - BAR_SPARE),
            _ => by_count(crumbs),
        };
        let last = crumbs.len().saturating_sub(1);
        let trail = self.trail_crumbs(&crumbs);
        let mut bar = Row::new().spacing(0).align_y(Alignment::Center);
        for (i, crumb) in crumbs.into_iter().chain(trail).enumerate() {
            if i > 0 {
                bar = bar.push(text("›").size(16).style(style::dim_text));
            }
            bar = bar.push(match crumb {
                Crumb::Folder { label, path } => {
                    // Below the current folder: the way back down, fainter than the rest.
                    let (current, below) = (i == last, i > last);
                    let font = if current {
                        style::bold()
                    } else {
                        Font::DEFAULT
                    };
                    let mut label = text(label).size(TEXT).font(font).wrapping(Wrapping::None);
                    if below {
                        label = label.style(style::faint_text);
                    }
                    let crumb = button(label)
                        .padding(CRUMB_PAD)
                        .style(style::crumb(current))
                        .on_press(Message::CrumbPressed(path.clone()));
                    mouse_area(crumb)
                        .on_enter(Message::CrumbEntered(path.clone()))
                        .on_exit(Message::CrumbLeft(path))
                        .into()
                }
                Crumb::Elided => Element::from(
                    container(text("…").size(TEXT).style(style::dim_text)).padding(CRUMB_PAD),
                ),
            });
        }
        // The empty rest of the bar turns it into a text field, as in most file managers.
        let rest = mouse_area(container(space()).width(Fill).height(Fill))
            .interaction(mouse::Interaction::Text)
            .on_press(Message::EditPath);
        container(bar.push(rest))
            .padding([0, 4])
            .height(34)
            .width(Fill)
            .align_y(Alignment::Center)
            .clip(true)
            .style(style::path_bar)
            .into()
    }

    /// The crumbs of the trail below the current folder that fit beside `shown` (the fitted
    /// crumbs up to it), nearest first; none before the bar's width is known.
    fn trail_crumbs(&self, shown: &[Crumb]) -> Vec<Crumb> {
        let Some(below) = (self.trail.as_ref()).and_then(|t| t.strip_prefix(&self.path).ok())
        else {
            return Vec::new();
        };
        let separator = crate::gui::fit::width("›", 16.0);
        let used: f32 = shown.iter().map(|c| crumb_width(c) + separator).sum();
        let mut room = self.bounds.width - BAR_SPARE - used;
        let mut at = self.path.clone();
        let mut trail = Vec::new();
        for part in below.components() {
            at.push(part);
            let crumb = Crumb::Folder {
                label: shown_name(part.as_os_str()).into_owned(),
                path: at.clone(),
            };
            room -= crumb_width(&crumb) + separator;
            if room < 0.0 {
                break;
            }
            trail.push(crumb);
        }
        trail
    }

    /// "Documents · Downloads · … 3 more (Tab)" under the field.
    fn candidate_line(&self, editing: &Editing) -> Element<'_, Message> {
        let mut line = Row::new().spacing(10);
        for (i, name) in editing.candidates.iter().take(SHOWN_CANDIDATES).enumerate() {
            let chosen = editing.cycle == Some(i);
            let label = text(name.clone()).size(SMALL);
            line = line.push(if chosen {
                label.font(style::bold())
            } else {
                label.style(style::dim_text)
            });
        }
        let more = editing.candidates.len().saturating_sub(SHOWN_CANDIDATES);
        if more > 0 {
            line = line.push(
                text(format!("… {more} more"))
                    .size(SMALL)
                    .style(style::dim_text),
            );
        }
        line.push(text("(Tab: next)").size(SMALL).style(style::dim_text))
            .into()
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

/// The typed text split into the folder part (up to and with the last `/`) and the name
/// being typed after it.
fn split_typed(typed: &str) -> (&str, &str) {
    match typed.rfind('/') {
        Some(slash) => typed.split_at(slash + 1),
        None if typed == "~" => (typed, ""),
        None => ("", typed),
    }
}

/// The names starting with `prefix` (exactly, or else ignoring case), sorted; dot folders only
/// when the prefix starts with a dot. A name that is not UTF-8, or holds a newline, is given as
/// the field shows it, with U+FFFD or ↵ (opening the path finds the real name, see
/// [`with_real_names`]); such names were left out, and Tab said no folder started with what
/// was typed.
fn candidates(names: &[OsString], prefix: &str) -> Vec<String> {
    let shown = || {
        names
            .iter()
            .filter(|name| prefix.starts_with('.') || !name.as_encoded_bytes().starts_with(b"."))
            .map(|name| shown_name(name))
    };
    let mut exact: Vec<String> = shown()
        .filter(|n| n.starts_with(prefix))
        .map(std::borrow::Cow::into_owned)
        .collect();
    if exact.is_empty() {
        let lower = prefix.to_lowercase();
        exact = shown()
            .filter(|n| n.to_lowercase().starts_with(&lower))
            .map(std::borrow::Cow::into_owned)
            .collect();
    }
    exact.sort_by_key(|n| n.to_lowercase());
    exact
}

/// The longest start all of `names` share.
fn common_prefix(names: &[String]) -> &str {
    let first = names[0].as_str();
    let mut end = first.len();
    for name in &names[1..] {
        end = first
            .char_indices()
            .zip(name.chars())
            .take_while(|((_, a), b)| a == b)
            .last()
            .map_or(0, |((i, a), _)| i + a.len_utf8())
            .min(end);
    }
    &first[..end]
}

/// `path` with each name that holds a symbol the field shows in place of what cannot be shown
/// on one line (U+FFFD for bytes that are not UTF-8, ↵ for a newline: [`shown_name`]) replaced
/// by the one name of its folder that is shown so, as the field shows, and Tab completes,
/// names; other names as typed. Reads folders: off the UI thread.
fn with_real_names(path: PathBuf) -> PathBuf {
    let stands_in = |text: &str| text.chars().any(|c| STAND_INS.contains(&c));
    if !stands_in(&path.to_string_lossy()) {
        return path;
    }
    let mut real = PathBuf::new();
    for part in path.components() {
        let shown = part.as_os_str();
        let text = shown.to_string_lossy();
        let found = stands_in(&text)
            .then(|| the_name_shown_as(&real, &text))
            .flatten();
        real.push(found.as_deref().unwrap_or(shown));
    }
    real
}

/// The one name in folder `dir` that is shown as `text`; `None` if there is none, or two
/// (which one was meant cannot be told).
fn the_name_shown_as(dir: &Path, text: &str) -> Option<std::ffi::OsString> {
    let mut names = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.file_name());
    let first = names.find(|n| shown_name(n) == text)?;
    names.all(|n| shown_name(&n) != text).then_some(first)
}

/// The folder a typed path names: `~` is the home folder, a `file://` address its path,
/// relative paths start at `current`.
/// Lexically, like a shell: "a/../b" is "b" even when "a" is a symlink elsewhere.
pub fn resolve(text: &str, current: &Path, home: Option<&Path>) -> PathBuf {
    resolve_as_typed(text.trim(), current, home)
}

/// [`resolve`] without trimming the text: spaces at its ends are part of the names.
/// Whether the typed `text` is the trash's address: `trash:`, `trash:/` or `trash:///`, as
/// Dolphin and Nautilus name it.
fn names_trash(text: &str) -> bool {
    let text = text.trim();
    text.get(..6)
        .is_some_and(|s| s.eq_ignore_ascii_case("trash:"))
        && text[6..].bytes().all(|b| b == b'/')
}

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

/// One segment of the path bar.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Crumb {
    Folder { label: String, path: PathBuf },
    Elided,
}

/// The path bar's segments: "Home" for the home folder, "/" for the root, then one per folder
/// (fitted to the bar by [`fit_crumbs`]).
fn crumbs(path: &Path, home: Option<&Path>) -> Vec<Crumb> {
    let (mut crumbs, rest) = match home.and_then(|home| Some((home, path.strip_prefix(home).ok()?)))
    {
        Some((home, rest)) => (
            vec![Crumb::Folder {
                label: "Home".into(),
                path: home.to_path_buf(),
            }],
            rest,
        ),
        None => (
            vec![Crumb::Folder {
                label: "/".into(),
                path: PathBuf::from("/"),
            }],
            path.strip_prefix("/").unwrap_or(path),
        ),
    };
    let mut at = match &crumbs[0] {
        Crumb::Folder { path, .. } => path.clone(),
        Crumb::Elided => unreachable!("the first crumb is a folder"),
    };
    for part in rest.components() {
        at.push(part);
        let label = shown_name(part.as_os_str()).into_owned();
        crumbs.push(Crumb::Folder {
            label,
            path: at.clone(),
        });
    }
    crumbs
}

/// A crumb's padding: its button's, and the "…"'s.
const CRUMB_PAD: [u16; 2] = [3, 8];
/// What the bar keeps of its width beside the crumbs: its own padding, and room to click
/// into it to type a path.
const BAR_SPARE: f32 = 48.0;

/// Deep paths by count, before the bar's width is known: the first crumb and the last few.
fn by_count(mut crumbs: Vec<Crumb>) -> Vec<Crumb> {
    if crumbs.len() > MAX_CRUMBS {
        let tail = crumbs.split_off(crumbs.len() - (MAX_CRUMBS - 2));
        crumbs.truncate(1);
        crumbs.push(Crumb::Elided);
        crumbs.extend(tail);
    }
    crumbs
}

/// The crumbs that fit `max_px`, as Dolphin fits them: the first ("Home" or "/") and as many
/// of the last as fit, with "…" between when some are left out; the current folder always
/// shows, its name shortened in the middle if it alone is too wide.
/// How wide a crumb is drawn (as the current folder's, in bold, a little wider).
fn crumb_width(crumb: &Crumb) -> f32 {
    let pad = 2.0 * f32::from(CRUMB_PAD[1]);
    match crumb {
        Crumb::Folder { label, .. } => crate::gui::fit::width(label, TEXT) * 1.08 + pad,
        Crumb::Elided => crate::gui::fit::width("…", TEXT) + pad,
    }
}

fn fit_crumbs(crumbs: Vec<Crumb>, max_px: f32) -> Vec<Crumb> {
    let pad = 2.0 * f32::from(CRUMB_PAD[1]);
    let separator = crate::gui::fit::width("›", 16.0);
    let width = crumb_width;
    let total: f32 = crumbs.iter().map(|c| width(c) + separator).sum();
    if total <= max_px || crumbs.len() < 2 {
        return crumbs;
    }
    let mut crumbs = crumbs;
    let mut last = crumbs.pop().expect("two or more");
    let first = crumbs.remove(0);
    let mut room = max_px - width(&first) - 2.0 * separator - width(&Crumb::Elided);
    let shorten = |crumb: &mut Crumb, room: f32| {
        if let Crumb::Folder { label, .. } = crumb {
            let fits = ((room - pad) / 1.08).max(0.0);
            *label = crate::gui::fit::middle(label.as_str().into(), fits, TEXT).into_owned();
        }
    };
    // Too narrow for the current folder's name beside the first crumb: its name alone.
    if width(&last) > room && room < max_px / 2.0 {
        shorten(&mut last, max_px);
        return vec![last];
    }
    shorten(&mut last, room);
    room -= width(&last);
    let mut kept = Vec::new();
    // Some left out: the one that did not fit (the last of them too: "Home › Incoming" for
    // ~/Documents/Incoming said a wrong path) and those before it.
    let mut elided = false;
    while let Some(c) = crumbs.pop() {
        let needed = width(&c) + separator;
        // The "…" goes once some are left out: if all the rest fits, no room is kept for it.
        let rest_fits = crumbs.is_empty() && needed <= room + width(&Crumb::Elided) + separator;
        if needed > room && !rest_fits {
            elided = true;
            break;
        }
        room -= needed;
        kept.push(c);
    }
    let mut fitted = vec![first];
    if elided {
        fitted.push(Crumb::Elided);
    }
    fitted.extend(kept.into_iter().rev());
    fitted.push(last);
    fitted
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(crumbs: &[Crumb]) -> Vec<&str> {
        crumbs
            .iter()
            .map(|c| match c {
                Crumb::Folder { label, .. } => label.as_str(),
                Crumb::Elided => "…",
            })
            .collect()
    }

    #[test]
    fn crumbs_start_at_home_or_root() {
        let home = Path::new("/home/ann");
        let c = crumbs(Path::new("/home/ann/Documents/tax"), Some(home));
        assert_eq!(labels(&c), ["Home", "Documents", "tax"]);
        assert_eq!(
            c[2],
            Crumb::Folder {
                label: "tax".into(),
                path: PathBuf::from("/home/ann/Documents/tax")
            }
        );
        assert_eq!(
            labels(&crumbs(Path::new("/usr/share"), Some(home))),
            ["/", "usr", "share"]
        );
        assert_eq!(labels(&crumbs(Path::new("/"), Some(home))), ["/"]);
        assert_eq!(labels(&crumbs(home, Some(home))), ["Home"]);
    }

    #[test]
    fn crumbs_fit_the_bar_and_the_current_folder_always_shows() {
        let home = Some(Path::new("/home/ann"));
        let deep = Path::new(
            "/home/ann/Documents/Projects/2024 Client Reports/Quarterly Summaries/Final Versions",
        );
        let all = crumbs(deep, home);
        assert_eq!(
            labels(&fit_crumbs(all.clone(), 2000.0)).len(),
            6,
            "room for all"
        );
        let wide = crumbs(Path::new("/a/b/c/d/e/f/g/h"), home);
        assert_eq!(labels(&fit_crumbs(wide, 2000.0)).len(), 9, "no count limit");
        let narrow = fit_crumbs(all, 330.0);
        let shown = labels(&narrow);
        assert_eq!(shown[..2], ["Home", "…"], "{shown:?}");
        assert_eq!(shown.last(), Some(&"Final Versions"), "{shown:?}");
        let long_name = "x".repeat(150);
        let long = crumbs(&Path::new("/home/ann/a/b/c").join(&long_name), home);
        let fitted = fit_crumbs(long, 250.0);
        let shown = labels(&fitted);
        assert_eq!(shown[..2], ["Home", "…"], "{shown:?}");
        let last = shown.last().unwrap();
        assert!(last.starts_with('x') && last.contains('…'), "{shown:?}");
        let Crumb::Folder { path, .. } = fitted.last().unwrap() else {
            panic!()
        };
        assert!(path.ends_with(&long_name), "still leads to the folder");
        // Too narrow for more: the current folder alone, whole if it fits.
        let narrow = crumbs(Path::new("/home/ann/Documents/Projects/last"), home);
        assert_eq!(labels(&fit_crumbs(narrow, 90.0)), ["last"]);
        // One folder between the first and the current left out: said, never a wrong path
        // ("Home › Incoming" for ~/Documents/Incoming).
        let one_between = crumbs(Path::new("/home/ann/Documents/Incoming"), home);
        for width in (100..400).step_by(5) {
            #[allow(clippy::cast_precision_loss)] // a small width
            let fitted = fit_crumbs(one_between.clone(), width as f32);
            let shown = labels(&fitted);
            assert!(
                shown.len() == 1 || shown.contains(&"Documents") || shown.contains(&"…"),
                "at {width}: {shown:?}"
            );
        }
    }

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
    fn typed_paths_split_at_the_last_slash() {
        assert_eq!(split_typed("/home/ann/Do"), ("/home/ann/", "Do"));
        assert_eq!(split_typed("/home/ann/"), ("/home/ann/", ""));
        assert_eq!(split_typed("Mus"), ("", "Mus"));
        assert_eq!(split_typed("~"), ("~", ""));
    }

    #[test]
    fn completion_prefers_exact_case_and_hides_dot_folders() {
        let names: Vec<OsString> = ["Documents", "Downloads", "docs", ".dotfiles", "Music"]
            .iter()
            .map(OsString::from)
            .collect();
        assert_eq!(candidates(&names, "Do"), ["Documents", "Downloads"]);
        assert_eq!(candidates(&names, "mu"), ["Music"], "else ignoring case");
        assert_eq!(candidates(&names, "."), [".dotfiles"]);
        assert!(candidates(&names, "").iter().all(|n| !n.starts_with('.')));
        let many = candidates(&names, "Do");
        assert_eq!(common_prefix(&many), "Do");
        assert_eq!(
            common_prefix(&["Photos 2023".to_owned(), "Photos 2024".to_owned()]),
            "Photos 202"
        );
    }

    /// A name that is not UTF-8 is completed as it is shown: it was left out, and Tab said no
    /// folder started with "dir" beside "dir\u{fffd}\u{fffd}bad".
    #[test]
    fn completion_offers_names_that_are_not_utf8_as_shown() {
        use std::os::unix::ffi::OsStringExt;
        let names = vec![OsString::from_vec(b"dir\xfe\xffbad".to_vec())];
        assert_eq!(candidates(&names, "dir"), ["dir\u{fffd}\u{fffd}bad"]);
    }

    #[test]
    fn deep_paths_collapse_in_the_middle_before_the_bar_is_laid_out() {
        let c = by_count(crumbs(Path::new("/a/b/c/d/e/f/g"), None));
        assert_eq!(labels(&c), ["/", "…", "d", "e", "f", "g"]);
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
        let names = vec![OsString::from("two\nlines")];
        assert_eq!(candidates(&names, "two"), ["two↵lines"]);
    }
}
