//! The location bar: breadcrumbs, or the typed path while editing.

use std::path::{Component, Path, PathBuf};

use iced::widget::text::Wrapping;
use iced::widget::{Row, button, container, mouse_area, space, text, text_input};
use iced::{Alignment, Element, Fill, Font, mouse};

use super::view::TEXT;
use super::{Browser, Message};
use crate::gui::style;

/// At most this many breadcrumb segments; the middle collapses into "…".
const MAX_CRUMBS: usize = 6;

impl Browser {
    /// Breadcrumbs, or a text field while a path is typed.
    pub(super) fn path_bar(&self) -> Element<'_, Message> {
        if let Some(typed) = &self.editing_path {
            return text_input("Type a folder path", typed)
                .id(self.path_input_id())
                .on_input(Message::PathEdited)
                .on_submit(Message::PathSubmitted)
                .size(TEXT)
                .padding([7, 12])
                .style(style::path_input)
                .width(Fill)
                .into();
        }
        let crumbs = crumbs(&self.path, self.home.as_deref());
        let last = crumbs.len().saturating_sub(1);
        let mut bar = Row::new().spacing(0).align_y(Alignment::Center);
        for (i, crumb) in crumbs.into_iter().enumerate() {
            if i > 0 {
                bar = bar.push(text("›").size(16).style(style::dim_text));
            }
            bar = bar.push(match crumb {
                Crumb::Folder { label, path } => {
                    let current = i == last;
                    let font = if current {
                        style::bold()
                    } else {
                        Font::DEFAULT
                    };
                    button(text(label).size(TEXT).font(font).wrapping(Wrapping::None))
                        .padding([3, 8])
                        .style(style::crumb(current))
                        .on_press(Message::Navigate(path))
                        .into()
                }
                Crumb::Elided => Element::from(text("…").size(TEXT).style(style::dim_text)),
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
}

/// The folder a typed path names: `~` is the home folder, relative paths start at `current`.
/// Lexically, like a shell: "a/../b" is "b" even when "a" is a symlink elsewhere.
pub fn resolve(text: &str, current: &Path, home: Option<&Path>) -> PathBuf {
    let text = text.trim();
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

/// The path bar's segments: "Home" for the home folder, "/" for the root, then one per folder;
/// deep paths keep the first and the last few.
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
        let label = part.as_os_str().to_string_lossy().into_owned();
        crumbs.push(Crumb::Folder {
            label,
            path: at.clone(),
        });
    }
    if crumbs.len() > MAX_CRUMBS {
        let tail = crumbs.split_off(crumbs.len() - (MAX_CRUMBS - 2));
        crumbs.truncate(1);
        crumbs.push(Crumb::Elided);
        crumbs.extend(tail);
    }
    crumbs
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
    fn deep_paths_collapse_in_the_middle() {
        let c = crumbs(Path::new("/a/b/c/d/e/f/g"), None);
        assert_eq!(labels(&c), ["/", "…", "d", "e", "f", "g"]);
    }
}
