//! A pane's history: the places behind it (Back) and ahead of it (Forward).

use std::ffi::OsString;
use std::path::PathBuf;

/// A history entry: a folder and the entry that had the focus when we left it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    /// The folder.
    pub path: PathBuf,
    /// The entry focused there when we left, to focus again on return.
    pub focus: Option<OsString>,
}

impl Place {
    /// `path`, with nothing to focus.
    pub fn new(path: PathBuf) -> Self {
        Place { path, focus: None }
    }
}

/// How a navigation treats the history.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Nav {
    /// A new place: the current one goes on the back stack, forward is cleared.
    Push,
    /// Going back: the current one goes on the forward stack.
    Back,
    /// Going forward: the current one goes on the back stack.
    Forward,
    /// The current place is replaced, history untouched (it is gone).
    Replace,
}

/// The back and forward stacks.
#[derive(Debug, Clone, Default)]
pub struct History {
    back: Vec<Place>,
    forward: Vec<Place>,
}

impl History {
    /// Records that we left `place` by `nav`.
    pub fn leave(&mut self, place: Place, nav: Nav) {
        match nav {
            Nav::Push => {
                self.back.push(place);
                self.forward.clear();
            }
            Nav::Back => self.forward.push(place),
            Nav::Forward => self.back.push(place),
            Nav::Replace => {}
        }
    }

    /// The place Back goes to, taken off its stack.
    pub fn take_back(&mut self) -> Option<Place> {
        self.back.pop()
    }

    /// The place Forward goes to, taken off its stack.
    pub fn take_forward(&mut self) -> Option<Place> {
        self.forward.pop()
    }

    /// A folder moved from `from` to `to`: every place at or below it is where it went.
    pub fn moved(&mut self, from: &std::path::Path, to: &std::path::Path) {
        for place in self.back.iter_mut().chain(self.forward.iter_mut()) {
            if let Ok(below) = place.path.strip_prefix(from) {
                place.path = to.join(below);
            }
        }
    }

    /// True when Back has somewhere to go.
    pub fn can_go_back(&self) -> bool {
        !self.back.is_empty()
    }

    /// True when Forward has somewhere to go.
    pub fn can_go_forward(&self) -> bool {
        !self.forward.is_empty()
    }
}
