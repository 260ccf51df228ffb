//! Type-ahead, as Dolphin and Nautilus have it in every list (a folder, the Trash): letters
//! typed within a second of each other go to the next name that starts with them (then one
//! that contains them), ignoring case; the same letter again goes on to the next such name.

use std::time::{Duration, Instant};

use crate::gui::screen::browser::{contains_ignoring_case, starts_ignoring_case};

/// A pause this long starts a new search.
const RESET: Duration = Duration::from_secs(1);

/// What was typed, and when.
#[derive(Debug, Default)]
pub struct TypeAhead {
    typed: String,
    at: Option<Instant>,
}

/// A search for [`find`]: what to look for (lowercase), and whether to start after the
/// current row ("aaa" cycles through the names starting with "a").
#[derive(Debug, PartialEq, Eq)]
pub struct Search {
    pub needle: String,
    pub skip_current: bool,
}

impl TypeAhead {
    /// `c` typed at `now`: the search it makes, `None` for a space that would start one (a
    /// space selects, in Dolphin, and never begins a name typed).
    pub fn push(&mut self, c: char, now: Instant) -> Option<Search> {
        if self.at.is_none_or(|at| now.duration_since(at) > RESET) {
            self.typed.clear();
        }
        if c == ' ' && self.typed.is_empty() {
            return None;
        }
        self.typed.push(c);
        self.at = Some(now);
        Some(self.search())
    }

    /// The search for what was typed so far.
    pub fn search(&self) -> Search {
        let mut chars = self.typed.chars();
        let first = chars.next();
        let repeated = chars.all(|other| Some(other) == first);
        match first {
            Some(first) if repeated => Search {
                needle: first.to_lowercase().collect(),
                skip_current: true,
            },
            _ => Search {
                needle: self.typed.to_lowercase(),
                skip_current: false,
            },
        }
    }

    /// What was typed in the current search.
    pub fn typed(&self) -> &str {
        &self.typed
    }
}

/// The first of `count` rows, going round from `current` (the one after it, if
/// `search.skip_current`), whose name starts with the needle, or else contains it.
pub fn find<'a>(
    count: usize,
    name: impl Fn(usize) -> &'a [u8],
    current: Option<usize>,
    search: &Search,
) -> Option<usize> {
    if count == 0 {
        return None;
    }
    let start = match current {
        Some(row) if search.skip_current => row + 1,
        Some(row) => row,
        None => 0,
    };
    let order = (start..start + count).map(|r| r % count);
    (order.clone())
        .find(|&r| starts_ignoring_case(name(r), &search.needle))
        .or_else(|| {
            order
                .clone()
                .find(|&r| contains_ignoring_case(name(r), &search.needle))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_find_names_and_a_letter_again_goes_on() {
        let names: [&[u8]; 4] = [b"Alpha", b"beta", b"abc", b"gamma-b"];
        let at = |i: usize| names[i];
        let now = Instant::now();
        let mut typed = TypeAhead::default();
        let search = typed.push('a', now).unwrap();
        assert_eq!(find(4, at, None, &search), Some(0));
        let search = typed.push('a', now).unwrap();
        assert_eq!(
            find(4, at, Some(0), &search),
            Some(2),
            "the next starting with a"
        );
        // A pause: a new search.
        let later = now + RESET + Duration::from_millis(1);
        let search = typed.push('b', later).unwrap();
        assert_eq!(find(4, at, Some(2), &search), Some(1));
        let search = typed.push('-', later).unwrap();
        assert_eq!(typed.typed(), "b-");
        assert_eq!(find(4, at, Some(1), &search), None);
        assert_eq!(TypeAhead::default().push(' ', now), None);
        let search = TypeAhead::default().push('M', now).unwrap();
        assert_eq!(find(4, at, None, &search), Some(3), "contained, case aside");
    }
}
