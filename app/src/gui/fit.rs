//! Names and paths shortened to the pixels of the column they are drawn in.
//!
//! A count of characters is no measure of width: 255 `W`s are twice as wide as 255 `i`s, and a
//! CJK character is about twice a Latin one. Shortened by count, a long name either overflowed
//! its column (and wrapped onto a second, clipped line) or was cut far short of it. Here each
//! character's advance is measured once, with the font and shaping the text widgets use, and
//! remembered; a name's width is the sum of its characters'. Kerning makes real text a little
//! narrower than that sum, so what is cut to fit does fit; callers still draw without wrapping
//! so that a script whose shaping joins characters is clipped at worst, never wrapped.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;

use iced::advanced::graphics::text::Paragraph;
use iced::advanced::text::{LineHeight, Paragraph as _, Shaping, Text, Wrapping};
use iced::alignment::Vertical;
use iced::{Font, Pixels, Size};

const ELLIPSIS: char = '…';

thread_local! {
    /// Advances by character and text size (its bits), measured on first use. The window draws
    /// on one thread and names use few distinct characters, so this stays small.
    static ADVANCES: RefCell<HashMap<(char, u32), f32>> = RefCell::new(HashMap::new());
}

/// How wide `c` is drawn at `size` pixels.
fn advance(c: char, size: f32) -> f32 {
    ADVANCES.with(|cache| {
        *cache
            .borrow_mut()
            .entry((c, size.to_bits()))
            .or_insert_with(|| measure(c, size))
    })
}

/// Shapes `c` alone: between other letters, kerning would take some of its width off. White
/// space alone is not counted in a line's width, so it is shaped between two letters and their
/// width taken off.
fn measure(c: char, size: f32) -> f32 {
    let mut buffer = [0u8; 4];
    let alone = c.encode_utf8(&mut buffer);
    if c.is_whitespace() {
        (line_width(&format!("x{alone}x"), size) - line_width("xx", size)).max(0.0)
    } else {
        line_width(alone, size)
    }
}

fn line_width(content: &str, size: f32) -> f32 {
    Paragraph::with_text(Text {
        content,
        bounds: Size::INFINITE,
        size: Pixels(size),
        line_height: LineHeight::default(),
        font: Font::DEFAULT,
        align_x: iced::advanced::text::Alignment::Default,
        align_y: Vertical::Top,
        shaping: Shaping::Advanced,
        wrapping: Wrapping::None,
    })
    .min_width()
}

/// How wide `text` is drawn at `size` pixels, as the sum of its characters' advances.
pub fn width(text: &str, size: f32) -> f32 {
    text.chars().map(|c| advance(c, size)).sum()
}

/// Shortens `name` in the middle ("holiday-ph…2019.jpg") to fit `max_px` at `size`, keeping its
/// end, and the extension with it, in view.
pub fn middle(name: Cow<'_, str>, max_px: f32, size: f32) -> Cow<'_, str> {
    if width(&name, size) <= max_px {
        return name;
    }
    let budget = (max_px - advance(ELLIPSIS, size)).max(0.0);
    // The end keeps a third of the room, and at least the extension and four characters
    // before it (so "report-2024-final.pdf" stays told apart from "report-2024-draft.pdf"),
    // as long as a character of the start still fits.
    let extension = super::format::extension_chars(&name);
    let ending: f32 = name
        .chars()
        .rev()
        .take(extension + 4)
        .map(|c| advance(c, size))
        .sum();
    let first = name.chars().next().map_or(0.0, |c| advance(c, size));
    let tail_px = (budget / 3.0).max(ending).min(budget - first);
    let tail_start = fitting_from_end(&name, tail_px, size);
    let tail_width = width(&name[tail_start..], size);
    let head_end = fitting_from_start(&name[..tail_start], budget - tail_width, size);
    Cow::Owned(format!(
        "{}{ELLIPSIS}{}",
        &name[..head_end],
        &name[tail_start..]
    ))
}

/// Shortens `path` at its start ("…/Reports/2024") to fit `max_px` at `size`, so that its end
/// stays in view.
pub fn start(path: Cow<'_, str>, max_px: f32, size: f32) -> Cow<'_, str> {
    if width(&path, size) <= max_px {
        return path;
    }
    let budget = (max_px - advance(ELLIPSIS, size)).max(0.0);
    let tail_start = fitting_from_end(&path, budget, size);
    Cow::Owned(format!("{ELLIPSIS}{}", &path[tail_start..]))
}

/// Shortens `text` at its end ("JPEG im…") to fit `max_px` at `size`: a label read from
/// its start, cut mid-word without a sign that it was.
pub fn end(text: Cow<'_, str>, max_px: f32, size: f32) -> Cow<'_, str> {
    if width(&text, size) <= max_px {
        return text;
    }
    let budget = (max_px - advance(ELLIPSIS, size)).max(0.0);
    let head_end = fitting_from_start(&text, budget, size);
    Cow::Owned(format!("{}{ELLIPSIS}", text[..head_end].trim_end()))
}

/// `name` on at most two lines of `line_px` at `size` (joined by a line break, to be drawn
/// without wrapping): whole on one line when it fits. Else the first line ends where a word
/// does (after a space, `-` or `_`, or before a `.`) if that leaves it at least a third full,
/// or where it is full; the rest is the second line, shortened in the middle so that its end
/// and the extension stay. Wrapped by the text widget instead, `IMG_0001.jpg` left its last
/// letter alone on the second line, and a long name broken at words took a third line, clipped
/// with its ending.
pub fn two_lines(name: Cow<'_, str>, line_px: f32, size: f32) -> Cow<'_, str> {
    if width(&name, size) <= line_px {
        return name;
    }
    let full =
        fitting_from_start(&name, line_px, size).max(name.chars().next().map_or(0, char::len_utf8));
    let word_end = (name[..full].char_indices())
        .filter_map(|(at, c)| match c {
            ' ' | '-' | '_' => Some(at + c.len_utf8()),
            '.' if at > 0 => Some(at),
            _ => None,
        })
        .rfind(|&at| at < name.len() && 3 * at >= full);
    let split = word_end.unwrap_or(full);
    let first = name[..split].trim_end();
    let rest = middle(Cow::Borrowed(name[split..].trim_start()), line_px, size);
    Cow::Owned(format!("{first}\n{rest}"))
}

/// The widest line of `text` at `size`.
pub fn widest_line(text: &str, size: f32) -> f32 {
    text.lines()
        .map(|line| width(line, size))
        .fold(0.0, f32::max)
}

/// The byte index where the longest prefix of `text` no wider than `px` ends.
fn fitting_from_start(text: &str, px: f32, size: f32) -> usize {
    let mut used = 0.0;
    for (at, c) in text.char_indices() {
        used += advance(c, size);
        if used > px {
            return at;
        }
    }
    text.len()
}

/// The byte index where the longest suffix of `text` no wider than `px` starts.
fn fitting_from_end(text: &str, px: f32, size: f32) -> usize {
    let mut used = 0.0;
    let mut start = text.len();
    for (at, c) in text.char_indices().rev() {
        used += advance(c, size);
        if used > px {
            break;
        }
        start = at;
    }
    start
}

#[cfg(test)]
mod tests {
    use super::*;

    const SIZE: f32 = 14.0;

    #[test]
    fn wide_letters_and_wide_scripts_are_cut_shorter_than_narrow_ones() {
        assert!(advance('W', SIZE) > advance('i', SIZE));
        assert!(advance('漢', SIZE) > advance('a', SIZE));
        assert!(advance(' ', SIZE) > 0.0, "a space takes room");
        let max = 300.0;
        for letter in ["i", "a", "W", "漢", "é"] {
            let name = letter.repeat(255);
            let shown = middle(name.as_str().into(), max, SIZE);
            let drawn = line_width(&shown, SIZE);
            assert!(drawn <= max, "{letter}: {drawn} px drawn in {max}");
            assert!(
                drawn > max * 0.85,
                "{letter}: only {drawn} px of {max} used"
            );
            assert!(shown.contains(ELLIPSIS));
        }
    }

    #[test]
    fn the_end_and_extension_stay_in_view() {
        let name = "a-very-long-holiday-photo-name-taken-in-2019-at-the-lake.jpeg";
        let shown = middle(name.into(), 160.0, SIZE);
        assert!(shown.ends_with("lake.jpeg"), "{shown}");
        assert!(shown.starts_with("a-very"), "{shown}");
        assert!(line_width(&shown, SIZE) <= 160.0);
        assert_eq!(middle("short.txt".into(), 160.0, SIZE), "short.txt");
        // No room even for the ellipsis: an ellipsis, never a panic or a wrap.
        assert_eq!(middle(name.into(), 1.0, SIZE), "…");
    }

    /// Two lines at most, broken where a word ends when one does far enough along, the
    /// second line keeping the end of the name.
    #[test]
    fn names_go_on_two_lines_broken_at_words_keeping_their_end() {
        let line = width("IMG_0001.j", SIZE);
        assert_eq!(
            two_lines("IMG_0001.jpg".into(), line, SIZE),
            "IMG_0001\n.jpg"
        );
        assert_eq!(two_lines("a.txt".into(), line, SIZE), "a.txt");
        let long = "A very long photo name from the family holiday in Portugal 2025.jpg";
        let shown = two_lines(long.into(), 90.0, SIZE);
        let lines: Vec<&str> = shown.lines().collect();
        assert_eq!(lines.len(), 2, "{shown}");
        assert!(lines[0].starts_with("A very"), "{shown}");
        assert!(lines[1].ends_with("2025.jpg"), "{shown}");
        assert!(widest_line(&shown, SIZE) <= 90.0, "{shown}");
        // One word longer than a line: broken where the line is full.
        let word = "x".repeat(40);
        let shown = two_lines(word.as_str().into(), 90.0, SIZE);
        assert!(shown.lines().all(|l| width(l, SIZE) <= 90.0), "{shown}");
        assert_eq!(shown.lines().count(), 2);
    }

    #[test]
    fn labels_keep_their_start_and_say_they_were_cut() {
        let shown = end("XLSX document".into(), 60.0, SIZE);
        assert!(
            shown.starts_with("XL") && shown.ends_with(ELLIPSIS),
            "{shown}"
        );
        assert!(line_width(&shown, SIZE) <= 60.0);
        assert_eq!(end("Folder".into(), 60.0, SIZE), "Folder");
    }

    #[test]
    fn paths_keep_their_end() {
        let path = "/home/ann/Documents/Reports/2024/Quarterly";
        let shown = start(path.into(), 120.0, SIZE);
        assert!(
            shown.starts_with('…') && shown.ends_with("Quarterly"),
            "{shown}"
        );
        assert!(line_width(&shown, SIZE) <= 120.0);
        assert_eq!(start("~/a".into(), 120.0, SIZE), "~/a");
    }
}
