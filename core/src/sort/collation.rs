//! The collation names are sorted by: the collator of the user's locale (`LC_ALL`,
//! `LC_COLLATE`, `LANG`), numeric ordering on, made once per process, with the table of its
//! ASCII order when it has one (`ascii.rs`).

use std::sync::OnceLock;

use icu_collator::options::CollatorOptions;
use icu_collator::preferences::CollationNumericOrdering;
use icu_collator::{CollatorBorrowed, CollatorPreferences};
use icu_locale_core::Locale;

use super::ascii::AsciiOrder;

/// The collator of a locale, numeric ordering on, and its ASCII table if it has one.
pub(super) struct Collation {
    pub(super) collator: CollatorBorrowed<'static>,
    pub(super) ascii: Option<AsciiOrder>,
}

impl Collation {
    fn new(locale: Locale) -> Collation {
        // No tailoring for that locale in the compiled data: the root order.
        let (locale, collator) = match numeric_collator(&locale, CollatorOptions::default()) {
            Some(collator) => (locale, collator),
            None => (
                Locale::UNKNOWN,
                numeric_collator(&Locale::UNKNOWN, CollatorOptions::default())
                    .expect("root collation data is compiled in"),
            ),
        };
        let ascii = AsciiOrder::new(&locale, &collator);
        Collation { collator, ascii }
    }
}

/// The collator of `locale` with numeric ordering on, or `None` if the compiled data has
/// none for it.
pub(super) fn numeric_collator(
    locale: &Locale,
    options: CollatorOptions,
) -> Option<CollatorBorrowed<'static>> {
    let mut prefs = CollatorPreferences::from(locale);
    prefs.numeric_ordering = Some(CollationNumericOrdering::True);
    CollatorBorrowed::try_new(prefs, options).ok()
}

/// The process-wide collation of the user's collation locale.
pub(super) fn collation() -> &'static Collation {
    static COLLATION: OnceLock<Collation> = OnceLock::new();
    COLLATION.get_or_init(|| Collation::new(collation_locale()))
}

/// The locale names are collated for: the first of `LC_ALL`, `LC_COLLATE`, `LANG` that is set,
/// turned from POSIX form ("de_DE.UTF-8@euro") into a BCP 47 tag ("de-DE"); the root locale
/// for "C", "POSIX" or anything unparsable.
fn collation_locale() -> Locale {
    let value = ["LC_ALL", "LC_COLLATE", "LANG"]
        .iter()
        .filter_map(std::env::var_os)
        .find(|v| !v.is_empty())
        .unwrap_or_default();
    posix_to_locale(value.to_str().unwrap_or(""))
}

fn posix_to_locale(posix: &str) -> Locale {
    let tag = posix
        .split(['.', '@'])
        .next()
        .unwrap_or("")
        .replace('_', "-");
    if tag == "C" || tag == "POSIX" {
        return Locale::UNKNOWN;
    }
    Locale::try_from_str(&tag).unwrap_or(Locale::UNKNOWN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn posix_locale_names_map_to_bcp47() {
        assert_eq!(posix_to_locale("de_DE.UTF-8@euro").to_string(), "de-DE");
        assert_eq!(posix_to_locale("sv_SE").to_string(), "sv-SE");
        assert_eq!(posix_to_locale("C.UTF-8"), Locale::UNKNOWN);
        assert_eq!(posix_to_locale("POSIX"), Locale::UNKNOWN);
        assert_eq!(posix_to_locale(""), Locale::UNKNOWN);
        assert_eq!(posix_to_locale("not a locale!"), Locale::UNKNOWN);
    }
}
