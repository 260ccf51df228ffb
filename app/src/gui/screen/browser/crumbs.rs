//! The location bar's breadcrumbs: "Home" or "/", then a crumb per folder down to the one
//! shown, fitted to the bar's width (the middle collapses into "…"), then the trail of folders
//! below it that the user came up from, fainter, as far as they fit.

use std::path::{Path, PathBuf};

use iced::widget::text::Wrapping;
use iced::widget::{Row, button, container, mouse_area, space, text};
use iced::{Alignment, Element, Fill, Font, mouse};

use super::view::TEXT;
use super::{Browser, Message};
use crate::gui::format::shown_name;
use crate::gui::style;

/// At most this many breadcrumb segments; the middle collapses into "…".
const MAX_CRUMBS: usize = 6;

impl Browser {
    /// The breadcrumbs: the current folder's, then the trail below it that fits.
    pub(super) fn crumb_bar(&self) -> Element<'_, Message> {
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
    fn deep_paths_collapse_in_the_middle_before_the_bar_is_laid_out() {
        let c = by_count(crumbs(Path::new("/a/b/c/d/e/f/g"), None));
        assert_eq!(labels(&c), ["/", "…", "d", "e", "f", "g"]);
    }
}
