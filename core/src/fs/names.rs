//! [`NameList`]: names handed between threads in one allocation.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;

/// Names of one folder's entries, their bytes back to back: handing a batch of thousands to
/// another thread costs two allocations, not one per name.
#[derive(Debug, Default)]
pub struct NameList {
    bytes: Vec<u8>,
    /// End of each name in `bytes`, in order.
    ends: Vec<usize>,
}

impl NameList {
    /// Appends `name`.
    pub fn push(&mut self, name: &OsStr) {
        self.bytes.extend_from_slice(name.as_bytes());
        self.ends.push(self.bytes.len());
    }

    /// How many names it holds.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// True when it holds no name.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The names, in the order they were pushed.
    pub fn iter(&self) -> impl Iterator<Item = &OsStr> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        (starts.zip(&self.ends)).map(|(start, &end)| OsStr::from_bytes(&self.bytes[start..end]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gives_back_the_names_in_order_empty_ones_included() {
        let mut list = NameList::default();
        assert!(list.is_empty());
        for name in ["a", "", "bcd"] {
            list.push(OsStr::new(name));
        }
        assert_eq!(list.len(), 3);
        let names: Vec<&OsStr> = list.iter().collect();
        assert_eq!(names, ["a", "", "bcd"]);
    }
}
