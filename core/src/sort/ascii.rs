//! Sort keys for folders whose names are all printable ASCII, from a table instead of the
//! collator: the collator's sort keys were 70% of `ferry ls` on 50,000 names (1.4 us a name),
//! a table lookup per byte is a few nanoseconds.
//!
//! The keys order names exactly as the collator's do (a test checks it on random names for
//! every language allowed here), because for such names the collator's order is simple: each
//! character other than a digit has one collation element, whose primary weight orders it
//! (letters of both cases share one), each run of digits is one number (numeric ordering:
//! leading zeros do not count, fewer digits sort first), secondary weights are all equal, and
//! the tertiary weight says only the case. The table takes the primary order and the case
//! order from the locale's own collator, so a language that moves an ASCII letter (Estonian
//! `z`, Lithuanian `y`) is followed. What a table of single characters cannot see are
//! contractions (Czech `ch`, Hungarian `cs`, Welsh `ll`), settings such as Thai's shifted
//! punctuation and keywords such as German phonebook order: only the languages listed in
//! [`PLAIN_LANGUAGES`], whose CLDR collation has none of these for ASCII, and no keywords,
//! use the table.
//!
//! Key layout, compared byte by byte: one byte a character (its primary rank, 3 and up), or
//! for a run of digits the digits' rank, the count of significant digits and those digits;
//! then 0x01 (below every rank, so that a name sorts before the longer ones it begins); then
//! one case byte per non-digit character, less those of the first-sorting case at the end.
//! No byte is 0x00, as in the collator's keys.

use icu_collator::CollatorBorrowed;
use icu_collator::options::{AlternateHandling, CollatorOptions, Strength};
use icu_locale_core::Locale;

use super::collation::numeric_collator;

/// Languages whose collation orders printable ASCII character by character, with punctuation
/// not ignorable (see the module documentation); `und` is the root order.
pub(super) const PLAIN_LANGUAGES: &[&str] = &[
    "und", "en", "fr", "de", "it", "pt", "nl", "es", "ca", "pl", "ro", "tr", "ru", "uk", "be",
    "bg", "el", "he", "ar", "fa", "ja", "zh", "ko", "hi", "id", "ms",
];

/// Longest run of digits a key takes (the collator splits longer numbers).
const MAX_DIGITS: usize = 200;

/// Ends the primary part of a key.
const LEVEL_SEPARATOR: u8 = 0x01;

/// The case byte of the case that sorts first (the other one is 3); below every rank.
const LOWEST_CASE: u8 = 2;

/// The table of one collator; see the module documentation.
pub(super) struct AsciiOrder {
    /// Primary rank of every printable character but the digits (0: not printable ASCII).
    primary: [u8; 128],
    /// Rank of a number.
    digits: u8,
    /// Tertiary byte of every printable character.
    case: [u8; 128],
}

impl AsciiOrder {
    /// The table for `locale`'s collation, or `None` when it may not order ASCII names
    /// character by character.
    pub(super) fn new(locale: &Locale, collator: &CollatorBorrowed<'_>) -> Option<AsciiOrder> {
        let language = locale.id.language.as_str();
        let resolved = collator.resolved_options();
        if !PLAIN_LANGUAGES.contains(&language)
            || !locale.extensions.is_empty()
            || resolved.alternate_handling != AlternateHandling::NonIgnorable
            || resolved.strength != Strength::Tertiary
        {
            return None;
        }
        let mut options = CollatorOptions::default();
        options.strength = Some(Strength::Primary);
        let primary = numeric_collator(locale, options)?;
        // Every printable character but the digits, and '5' standing for every number.
        let chars = (0x20..0x7f)
            .filter(|c: &u8| !c.is_ascii_digit())
            .chain([b'5']);
        let mut keyed: Vec<(Vec<u8>, u8)> = chars.map(|c| (sort_key(&primary, &[c]), c)).collect();
        keyed.sort();
        let mut order = AsciiOrder {
            primary: [0; 128],
            digits: 0,
            case: [0; 128],
        };
        let mut rank = 2u8;
        for (i, (k, c)) in keyed.iter().enumerate() {
            if k.is_empty() {
                return None; // Ignorable: not a character-by-character order.
            }
            if i == 0 || keyed[i - 1].0 != *k {
                rank += 1;
            }
            match c {
                b'5' => order.digits = rank,
                _ => order.primary[usize::from(*c)] = rank,
            }
        }
        // Lowercase first unless the collator puts capitals first.
        let upper_first = sort_key(collator, b"A") < sort_key(collator, b"a");
        let (lower, upper) = if upper_first {
            (LOWEST_CASE + 1, LOWEST_CASE)
        } else {
            (LOWEST_CASE, LOWEST_CASE + 1)
        };
        for c in 0x20..0x7fu8 {
            order.case[usize::from(c)] = if c.is_ascii_uppercase() { upper } else { lower };
        }
        Some(order)
    }

    /// Whether [`write_key`](Self::write_key) can key `name`.
    pub(super) fn covers(&self, name: &[u8]) -> bool {
        let mut run = 0;
        name.iter().all(|&c| {
            run = if c.is_ascii_digit() { run + 1 } else { 0 };
            (0x20..0x7f).contains(&c) && run <= MAX_DIGITS
        })
    }

    /// Appends the key of `name`, which [`covers`](Self::covers) accepted, to `key`.
    pub(super) fn write_key(&self, name: &[u8], key: &mut Vec<u8>) {
        let mut rest = name;
        while let Some((&c, tail)) = rest.split_first() {
            if c.is_ascii_digit() {
                let len = rest.iter().take_while(|b| b.is_ascii_digit()).count();
                let (number, tail) = rest.split_at(len);
                let zeros = number.iter().take_while(|&&b| b == b'0').count();
                // All zeros: the number 0, one significant digit.
                let significant = &number[zeros.min(len - 1)..];
                key.push(self.digits);
                key.push(significant.len() as u8);
                key.extend_from_slice(significant);
                rest = tail;
            } else {
                key.push(self.primary[usize::from(c)]);
                rest = tail;
            }
        }
        key.push(LEVEL_SEPARATOR);
        key.extend(
            name.iter()
                .filter(|c| !c.is_ascii_digit())
                .map(|&c| self.case[usize::from(c)]),
        );
        // Case bytes are compared only between names of one shape (equal primaries), whose
        // case parts are as long: dropping the lowest trailing ones keeps their order, and
        // a name in the case that sorts first (most are) keeps no case part at all.
        while key.last() == Some(&LOWEST_CASE) {
            key.pop();
        }
    }
}

/// The collator's sort key of `s`.
fn sort_key(collator: &CollatorBorrowed<'_>, s: &[u8]) -> Vec<u8> {
    let mut key = Vec::new();
    let Ok(()) = collator.write_sort_key_utf8_to(s, &mut key);
    key
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestRunner};

    fn collation(language: &str) -> (CollatorBorrowed<'static>, AsciiOrder) {
        let locale: Locale = language.parse().unwrap();
        let collator = numeric_collator(&locale, CollatorOptions::default()).unwrap();
        let table =
            AsciiOrder::new(&locale, &collator).unwrap_or_else(|| panic!("{language}: no table"));
        (collator, table)
    }

    fn both_keys(collator: &CollatorBorrowed<'_>, table: &AsciiOrder, name: &str) -> [Vec<u8>; 2] {
        let icu = sort_key(collator, name.as_bytes());
        assert!(table.covers(name.as_bytes()), "{name:?}");
        let mut fast = Vec::new();
        table.write_key(name.as_bytes(), &mut fast);
        assert!(!fast.contains(&0), "{name:?}: {fast:?}");
        [icu, fast]
    }

    /// Names that meet what the table must get right: both cases of a letter, numbers with
    /// and without leading zeros, punctuation, one name the start of another.
    fn name() -> impl Strategy<Value = String> {
        prop_oneof![
            "[aAbBzZ0019 ._~-]{0,8}",
            "[a-zA-Z]{0,3}[0-9]{0,4}[ -/]{0,2}[a-zA-Z0-9]{0,3}",
            "[ -~]{0,10}",
            // Where contractions would show: Czech "ch", Hungarian "cs", "dzs", "gy", Welsh
            // "ll", "ph", Croatian "lj", "nj", Danish "aa", Dutch "ij".
            "(ch|cs|dz|dzs|gy|ly|ny|sz|ty|zs|ll|lj|nj|ij|aa|rr|th|ph|rh|ng|ff|dd|[a-z]){1,5}",
        ]
    }

    #[test]
    fn orders_names_as_the_collator_in_every_plain_language() {
        for &language in PLAIN_LANGUAGES {
            let (collator, table) = collation(language);
            let mut runner = TestRunner::new(Config {
                cases: 2000,
                failure_persistence: None,
                ..Config::default()
            });
            let result = runner.run(&(name(), name()), |(a, b)| {
                let [icu_a, fast_a] = both_keys(&collator, &table, &a);
                let [icu_b, fast_b] = both_keys(&collator, &table, &b);
                prop_assert_eq!(icu_a.cmp(&icu_b), fast_a.cmp(&fast_b), "{:?} {:?}", a, b);
                Ok(())
            });
            if let Err(e) = result {
                panic!("{language}: {e}");
            }
        }
    }

    #[test]
    fn orders_chosen_names_as_the_collator() {
        let mut names = vec![
            "",
            " ",
            "0",
            "00",
            "000",
            "1",
            "01",
            "001",
            "10",
            "9",
            "a",
            "A",
            "b",
            "B",
            "z",
            "Z",
            "a1",
            "a01",
            "A01",
            "a001",
            "a10",
            "a9",
            "a 1",
            "a-1",
            "a_1",
            "a.1",
            "ab",
            "aB",
            "Ab",
            "AB",
            "file2.txt",
            "file10.txt",
            "File10.txt",
            "file010.txt",
            "x1y2",
            "x01y2",
            "x1y02",
            ".hidden",
            "_private",
            "-dash",
            "~tilde",
            "#hash",
            "$dollar",
            "@at",
            "a0",
            "a00",
            "a0b",
            "a00b",
            "0a",
            "00a",
            "IMG_0001.JPG",
            "IMG_001.jpg",
            "img_1.jpg",
        ];
        let long = format!("v{}", "1234567890".repeat(19));
        names.push(&long);
        for language in ["und", "en", "de", "tr"] {
            let (collator, table) = collation(language);
            let keyed: Vec<_> = names
                .iter()
                .map(|n| (both_keys(&collator, &table, n), *n))
                .collect();
            let order = |k: usize| {
                let mut v: Vec<_> = keyed
                    .iter()
                    .map(|(keys, n)| (keys[k].clone(), *n))
                    .collect();
                v.sort();
                v.into_iter().map(|(_, n)| n).collect::<Vec<_>>()
            };
            assert_eq!(order(0), order(1), "{language}");
        }
    }

    #[test]
    fn languages_with_contractions_or_shifted_punctuation_keep_the_collator() {
        for language in ["cs", "hu", "cy", "da", "th", "de-u-co-phonebk"] {
            let locale: Locale = language.parse().unwrap();
            let collator = numeric_collator(&locale, CollatorOptions::default()).unwrap();
            assert!(AsciiOrder::new(&locale, &collator).is_none(), "{language}");
        }
        // Why: in Czech "ch" is a letter after "h", which no table of characters can say.
        let czech = numeric_collator(&"cs".parse().unwrap(), CollatorOptions::default()).unwrap();
        assert!(sort_key(&czech, b"chata") > sort_key(&czech, b"hrad"));
    }

    #[test]
    fn covers_printable_ascii_only() {
        let (_, table) = collation("en");
        assert!(table.covers(b"Report (final) v2.txt"));
        assert!(!table.covers("café".as_bytes()));
        assert!(!table.covers(b"tab\there"));
        assert!(!table.covers(b"\xff"));
        assert!(!table.covers("9".repeat(MAX_DIGITS + 1).as_bytes()));
    }
}
