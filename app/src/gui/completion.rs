//! Tab completion of a typed folder path, shared by every field that takes one: the location
//! bar and the folder prompts (Copy to…, Move to…, Create Link…). Tab lists the folders
//! whose names complete the one being typed (the longest start they share is filled in, or
//! the only one with its `/`), and more Tabs cycle through them. Reading the folder is the
//! caller's, off the UI thread.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::gui::format::{STAND_INS, shown_name};

/// Candidates listed under a field; the rest are counted.
pub const SHOWN_CANDIDATES: usize = 8;

/// Where Tab presses on one field stand.
#[derive(Debug, Clone, Default)]
pub struct Completion {
    /// The folders that complete the text Tab was last pressed on.
    pub candidates: Vec<String>,
    /// The text those candidates complete (the part before the name being completed).
    base: String,
    /// Which candidate repeated Tab presses are at.
    pub cycle: Option<usize>,
}

impl Completion {
    /// The text was edited: what was listed no longer applies.
    pub fn clear(&mut self) {
        self.candidates.clear();
        self.cycle = None;
    }

    /// Tab with candidates listed: the field's text with the next one; `None` when none are
    /// listed (the folder is to be read for `folder_to_read`).
    pub fn next(&mut self) -> Option<String> {
        if self.candidates.is_empty() {
            return None;
        }
        let next = self.cycle.map_or(0, |i| (i + 1) % self.candidates.len());
        self.cycle = Some(next);
        Some(format!("{}{}/", self.base, self.candidates[next]))
    }

    /// The names of the folder `typed` is in arrived: the field's new text, or why nothing
    /// completes it.
    pub fn found(&mut self, typed: &str, names: &[OsString]) -> Result<String, String> {
        let (base, prefix) = split_typed(typed);
        let found = candidates(names, prefix);
        self.base = base.to_owned();
        match found.as_slice() {
            [] => Err(format!("No folder here starts with “{prefix}”.")),
            [only] => Ok(format!("{base}{only}/")),
            many => {
                let text = format!("{base}{}", common_prefix(many));
                self.candidates = found;
                Ok(text)
            }
        }
    }

    /// The candidates on one line, for a field that shows them as plain text ("Documents ·
    /// Downloads · … 3 more (Tab: next)"); `None` when none are listed.
    pub fn line(&self) -> Option<String> {
        if self.candidates.is_empty() {
            return None;
        }
        let mut shown: Vec<String> = (self.candidates.iter().enumerate())
            .take(SHOWN_CANDIDATES)
            .map(|(i, name)| match self.cycle == Some(i) {
                true => format!("[{name}]"),
                false => name.clone(),
            })
            .collect();
        let more = self.candidates.len().saturating_sub(SHOWN_CANDIDATES);
        if more > 0 {
            shown.push(format!("… {more} more"));
        }
        Some(format!("{}  (Tab: next)", shown.join(" · ")))
    }
}

/// The gap between the names of a candidate line.
pub const CANDIDATE_GAP: f32 = 10.0;

/// Of `candidates`, the run that fits on one line `width` pixels wide at text size `size`,
/// at most [`SHOWN_CANDIDATES`], beside room for "… N more" and "(Tab: next)", the one Tab
/// cycled to (`cycle`) among them; at least one. Long names in a narrow pane (a split view)
/// wrapped the line onto three.
pub fn fitting(
    candidates: &[String],
    cycle: Option<usize>,
    width: f32,
    size: f32,
) -> std::ops::Range<usize> {
    let hints =
        crate::gui::fit::width("… 9999 more", size) + crate::gui::fit::width("(Tab: next)", size);
    let budget = width - hints - 2.0 * CANDIDATE_GAP;
    let run_from = |from: usize| {
        let (mut used, mut end) = (0.0, from);
        while end < candidates.len() && end - from < SHOWN_CANDIDATES {
            used += crate::gui::fit::width(&candidates[end], size) + CANDIDATE_GAP;
            if used > budget && end > from {
                break;
            }
            end += 1;
        }
        from..end
    };
    let first = run_from(0);
    match cycle {
        Some(chosen) if chosen >= first.end && chosen < candidates.len() => run_from(chosen),
        _ => first,
    }
}

/// The folder part of `typed` (up to and with its last `/`; empty for a bare name), whose
/// names complete it.
pub fn folder_part(typed: &str) -> &str {
    split_typed(typed).0
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
/// the field shows it, with U+FFFD or ↵ (opening the path finds the real name); such names
/// were left out, and Tab said no folder started with what was typed.
pub(super) fn candidates(names: &[OsString], prefix: &str) -> Vec<String> {
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
pub fn with_real_names(path: PathBuf) -> PathBuf {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_candidate_line_holds_what_fits_and_the_one_cycled_to() {
        let names: Vec<String> = ["Project Alpha Documents", "Project Beta Documents"]
            .iter()
            .chain(&["Project Gamma Documents", "Project Delta Documents"])
            .map(|s| (*s).to_owned())
            .collect();
        assert_eq!(
            fitting(&names, None, 2000.0, 13.0),
            0..4,
            "all, in a wide field"
        );
        let narrow = fitting(&names, None, 430.0, 13.0);
        assert!(
            narrow.start == 0 && (1..4).contains(&narrow.end),
            "{narrow:?}"
        );
        let cycled = fitting(&names, Some(3), 430.0, 13.0);
        assert!(cycled.contains(&3), "{cycled:?}");
        assert_eq!(fitting(&names, None, 10.0, 13.0), 0..1, "one at least");
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
    fn tab_fills_in_the_shared_start_then_cycles() {
        let names: Vec<OsString> = ["Photos 2023", "Photos 2024", "Music"]
            .iter()
            .map(OsString::from)
            .collect();
        let mut c = Completion::default();
        assert_eq!(c.next(), None, "nothing listed: the folder is read");
        assert_eq!(c.found("/p/Ph", &names).unwrap(), "/p/Photos 202");
        assert_eq!(c.next().unwrap(), "/p/Photos 2023/");
        assert_eq!(c.next().unwrap(), "/p/Photos 2024/");
        assert_eq!(c.next().unwrap(), "/p/Photos 2023/", "round again");
        assert!(c.line().unwrap().starts_with("[Photos 2023] · Photos 2024"));
        c.clear();
        assert_eq!(c.line(), None);
        assert_eq!(c.found("/p/M", &names).unwrap(), "/p/Music/");
        assert!(c.found("/p/x", &names).unwrap_err().contains("“x”"));
    }
}
