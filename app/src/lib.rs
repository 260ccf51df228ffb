//! # ferry-app
//!
//! The glue between `ferry-core` and the user: the iced window ([`gui`]) and the headless
//! command line ([`cli`]). The window talks to the core only through typed events on crossbeam
//! channels, bridged into iced subscriptions in one module.

pub mod cli;
pub mod gui;
