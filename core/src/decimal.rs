//! Numbers written as decimal text straight into a byte buffer, without the formatting
//! machinery: the journal writes thousands per job and `ferry ls` several per line; and
//! counts as people read them, with their thousands grouped.

/// Appends `n` in decimal.
pub fn push_uint(out: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

/// Appends `n` in decimal, right-aligned in `width` columns (as `{:>width$}`).
pub fn push_uint_right(out: &mut Vec<u8>, n: u64, width: usize) {
    let len = n.checked_ilog10().map_or(1, |log| log as usize + 1);
    out.extend(std::iter::repeat_n(b' ', width.saturating_sub(len)));
    push_uint(out, n);
}

/// `n` with its thousands grouped by commas, as a count is read: 38176 -> "38,176" (the
/// window's counts and the command line's alike).
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_like_the_formatter() {
        for n in [0, 1, 9, 10, 99, 100, 12_345, u64::MAX] {
            for width in [0, 1, 5, 25] {
                let mut out = Vec::new();
                push_uint_right(&mut out, n, width);
                assert_eq!(out, format!("{n:>width$}").into_bytes());
            }
        }
    }
    #[test]
    fn counts_are_grouped_by_thousands() {
        let said: Vec<String> = [0, 999, 1057, 38176, 100_000, 1_234_567]
            .into_iter()
            .map(grouped)
            .collect();
        assert_eq!(
            said,
            ["0", "999", "1,057", "38,176", "100,000", "1,234,567"]
        );
    }
}
