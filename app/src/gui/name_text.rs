//! The line of text the rename editor shows for a name, and the name an edited line stands
//! for.
//!
//! A name is bytes, and the editor edits one line of text, which showed only a name's first
//! line: a user could not see what they renamed. It shows a name as lists do
//! ([`format::shown_name`](crate::gui::format::shown_name)): a newline as `↵`, a tab as `⇥`,
//! another control character, or bytes that are not UTF-8, as `�`. Read back, what the user left as it was
//! at either end of the line keeps the name's own bytes, so changing `caf\xe9.txt` to
//! `caf\xe9.md`, or the extension of a name holding a newline, changes only what was typed.
//! In the part that was edited, `↵` and `⇥` stand for their characters again where the name
//! had them; a `�` there that stood for something else is refused, as no one can type it.

use std::ops::Range;

use crate::gui::format::symbol_for;

/// A name as the editor shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NameText {
    /// The name's bytes.
    name: Vec<u8>,
    /// Where each character shown comes from in `name`.
    spans: Vec<Range<usize>>,
    /// The line shown.
    pub(crate) shown: String,
    /// A `�` is shown for something that is not a `�` in the name.
    unreadable: bool,
}

/// Why an edited line stands for no name.
pub(crate) const UNREADABLE_CHANGED: &str =
    "“�” stands for something that cannot be typed: edit around it, or replace it.";

/// Why an edited line stands for no one name.
pub(crate) const AMBIGUOUS: &str = "The “�” beside your change stand for different characters, so which one changed is \
     unclear: retype them all, or change the name elsewhere.";

impl NameText {
    pub(crate) fn of(name: &[u8]) -> Self {
        let (mut shown, mut spans) = (String::new(), Vec::new());
        let mut at = 0;
        for chunk in name.utf8_chunks() {
            for c in chunk.valid().chars() {
                shown.push(symbol_for(c).unwrap_or(c));
                spans.push(at..at + c.len_utf8());
                at += c.len_utf8();
            }
            if !chunk.invalid().is_empty() {
                shown.push(char::REPLACEMENT_CHARACTER);
                spans.push(at..at + chunk.invalid().len());
                at += chunk.invalid().len();
            }
        }
        let unreadable = (shown.chars().zip(&spans))
            .any(|(c, span)| c == '�' && name[span.clone()] != *"�".as_bytes());
        NameText {
            name: name.to_vec(),
            spans,
            shown,
            unreadable,
        }
    }

    /// The name `typed` (an edit of [`shown`](Self::shown)) stands for; see the module
    /// documentation.
    pub(crate) fn name_for(&self, typed: &str) -> Result<Vec<u8>, &'static str> {
        let shown: Vec<char> = self.shown.chars().collect();
        let typed: Vec<char> = typed.chars().collect();
        let same = |(a, b): &(&char, &char)| a == b;
        let most = shown.len().min(typed.len());
        let head = shown.iter().zip(&typed).take_while(same).count();
        let tail = (shown.iter().rev().zip(typed.iter().rev()))
            .take_while(same)
            .count();
        // Where the edit is, taking as much as can be unchanged from the start, and from the
        // end: two `�` side by side may stand for different bytes, and then the line alone
        // does not say which one was deleted.
        let from_start = self.splice(&typed, head, tail.min(most - head))?;
        let from_end = self.splice(&typed, head.min(most - tail.min(most)), tail.min(most))?;
        if from_start != from_end {
            return Err(AMBIGUOUS);
        }
        Ok(from_start)
    }

    /// The name's own bytes for the first `head` and last `tail` characters shown, and the
    /// rest of `typed` between them.
    fn splice(&self, typed: &[char], head: usize, tail: usize) -> Result<Vec<u8>, &'static str> {
        let kept_head = self.spans.get(head).map_or(self.name.len(), |s| s.start);
        let end = self.spans.len() - tail;
        let kept_tail = self.spans.get(end).map_or(self.name.len(), |s| s.start);
        let mut name = self.name[..kept_head].to_vec();
        let mut buf = [0; 4];
        for &c in &typed[head..typed.len() - tail] {
            if c == char::REPLACEMENT_CHARACTER && self.unreadable {
                return Err(UNREADABLE_CHANGED);
            }
            let stood_for = ['\n', '\t']
                .into_iter()
                .find(|&k| symbol_for(k) == Some(c) && self.name.contains(&(k as u8)));
            name.extend_from_slice(stood_for.unwrap_or(c).encode_utf8(&mut buf).as_bytes());
        }
        name.extend_from_slice(&self.name[kept_tail..]);
        Ok(name)
    }
}

/// How many characters of `name` come before its extension (`.tar.gz` counts as one; a
/// leading dot is part of the stem): what a rename field selects, in the list (F2) and in
/// the conflict dialog.
pub fn stem_chars(name: &str) -> usize {
    let lower = name.to_ascii_lowercase();
    let double = [".tar.gz", ".tar.bz2", ".tar.xz", ".tar.zst"]
        .iter()
        .find(|ext| lower.ends_with(*ext) && lower.len() > ext.len())
        .map(|ext| name.len() - ext.len());
    let at = double.or_else(|| name.rfind('.').filter(|&i| i > 0));
    at.map_or_else(|| name.chars().count(), |i| name[..i].chars().count())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(name: &[u8], typed: &str) -> Result<Vec<u8>, &'static str> {
        NameText::of(name).name_for(typed)
    }

    #[test]
    fn control_characters_are_shown_as_their_symbols() {
        assert_eq!(NameText::of(b"two\nlines\t.txt").shown, "two↵lines⇥.txt");
        assert_eq!(NameText::of(b"del\x7f\x1b").shown, "del��");
        assert_eq!(NameText::of(b"plain.txt").shown, "plain.txt");
        assert_eq!(NameText::of(b"caf\xe9.txt").shown, "caf�.txt");
    }

    #[test]
    fn what_was_left_unchanged_keeps_its_bytes() {
        assert_eq!(edit(b"caf\xe9.txt", "caf�.md").unwrap(), b"caf\xe9.md");
        assert_eq!(
            edit(b"caf\xe9.txt", "new caf�.txt").unwrap(),
            b"new caf\xe9.txt"
        );
        assert_eq!(edit(b"a\nb.txt", "a↵b.md").unwrap(), b"a\nb.md");
        assert_eq!(edit(b"a\nb.txt", "x.txt").unwrap(), b"x.txt");
        assert_eq!(edit(b"plain.txt", "plain.txt").unwrap(), b"plain.txt");
        // Each byte that is not UTF-8 shows as a `�` of its own.
        assert_eq!(
            edit(b"\xff\xfe", "\u{fffd}\u{fffd}x").unwrap(),
            b"\xff\xfex"
        );
        // A character typed twice where it was once: the edit is at the end.
        assert_eq!(edit(b"aa\xe9", "aa\u{fffd}a").unwrap(), b"aa\xe9a");
    }

    /// Each `�` of `M\xfc\xdfig` stands for a byte of its own: deleting one of them cannot
    /// be told from deleting the other by the line alone. The ß was taken for deleted when
    /// the user had deleted the ü.
    #[test]
    fn an_edit_beside_two_unreadable_characters_that_differ_is_refused() {
        assert_eq!(edit(b"M\xfc\xdfig", "M�ig"), Err(AMBIGUOUS));
        assert_eq!(edit(b"x\xe9\xe8y", "x�y"), Err(AMBIGUOUS));
        // The same byte twice: either way is the same name.
        assert_eq!(edit(b"x\xe9\xe9y", "x�y").unwrap(), b"x\xe9y");
        // Away from them, or all of them retyped: no doubt.
        assert_eq!(edit(b"M\xfc\xdfig", "M��ige").unwrap(), b"M\xfc\xdfige");
        assert_eq!(edit(b"M\xfc\xdfig", "Muessig").unwrap(), b"Muessig");
        // Equal letters side by side are equal bytes: a deleted `s` is no question.
        assert_eq!(edit(b"Messig", "Mesig").unwrap(), b"Mesig");
    }

    #[test]
    fn in_the_edited_part_a_shown_symbol_is_its_character_and_unreadable_bytes_are_refused() {
        // Both ends edited: the newline between them was shown and kept.
        assert_eq!(edit(b"a\nb", "xa↵by").unwrap(), b"xa\nby");
        assert_eq!(edit(b"a\tb", "xa⇥by").unwrap(), b"xa\tby");
        // A symbol typed in a name that had no such character is taken as typed.
        assert_eq!(edit(b"ab", "a↵b").unwrap(), "a↵b".as_bytes());
        assert_eq!(edit(b"x\xe9y", "Ax�yB"), Err(UNREADABLE_CHANGED));
        assert_eq!(edit(b"x\x1by", "Ax�yB"), Err(UNREADABLE_CHANGED));
        // U+FFFD in a name that is valid UTF-8 is an ordinary character.
        assert_eq!(
            edit("x\u{fffd}y".as_bytes(), "Ax\u{fffd}yB").unwrap(),
            "Ax\u{fffd}yB".as_bytes()
        );
    }
}
