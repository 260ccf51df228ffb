//! # ferry-core
//!
//! Everything Ferry does to files, with no GUI: the compact directory [`entry`] table, the
//! [`lister`] that fills it (getdents + statx relative to a directory fd, in batches over a
//! crossbeam channel), natural [`sort`]ing, the three-entry expiring [`cache`] kept current by
//! the [`watch`]er, the background job [`jobs`] engine (copy, move, delete), and the
//! [`places`] of the window's sidebar (XDG folders, GTK bookmarks, mounts with free space).
//!
//! The app talks to this crate only through typed events on crossbeam channels; nothing here
//! blocks a caller's thread for long or knows about iced.
#![deny(missing_docs)]

pub mod cache;
pub mod cpus;
pub mod decimal;
pub mod dirs;
pub mod entry;
pub mod error;
pub mod exact_path;
pub mod fault;
pub mod fs;
pub mod jobs;
pub mod lister;
pub mod memory;
pub mod places;
pub mod shown;
pub mod sort;
pub mod uri;
pub mod watch;

pub use error::{Error, Result};
