//! Paths in JSON exactly: a name that is not UTF-8 cannot be a JSON string, so a path is
//! stored as a string when it is UTF-8 and as its bytes otherwise (the journal's every path,
//! the window's session). With `#[serde(with = "ferry_core::exact_path")]` on a `PathBuf`.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A path or name, exactly: UTF-8 as a string, anything else as bytes.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(untagged)]
pub enum StoredPath {
    /// A UTF-8 path.
    Text(String),
    /// Any other, as its bytes.
    Bytes(Vec<u8>),
}

impl StoredPath {
    /// The stored form of `s`.
    pub fn of(s: &OsStr) -> StoredPath {
        match s.to_str() {
            Some(t) => StoredPath::Text(t.to_owned()),
            None => StoredPath::Bytes(s.as_bytes().to_vec()),
        }
    }

    /// The name or path stored.
    pub fn into_os(self) -> OsString {
        match self {
            StoredPath::Text(t) => t.into(),
            StoredPath::Bytes(b) => OsString::from_vec(b),
        }
    }

    /// The path stored.
    pub fn into_path(self) -> PathBuf {
        self.into_os().into()
    }
}

/// Writes `path` in its exact form.
pub fn serialize<S: Serializer>(path: &Path, serializer: S) -> Result<S::Ok, S::Error> {
    StoredPath::of(path.as_os_str()).serialize(serializer)
}

/// Reads a path written by [`serialize`] (or as a plain string).
pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<PathBuf, D::Error> {
    StoredPath::deserialize(deserializer).map(StoredPath::into_path)
}
