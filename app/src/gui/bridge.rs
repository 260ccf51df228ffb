//! The one bridge from the core's crossbeam channels and blocking calls into iced: the only
//! module that touches `futures`.
//!
//! A plain thread blocks on the receiver (or does the blocking work) and pushes the result
//! into an iced stream; blocking inside the async executor itself would stall every other
//! subscription, and blocking in `update` would stall the window.

use std::hash::{Hash, Hasher};

use crossbeam_channel::Receiver;
use ferry_core::dirs::DirEvent;
use ferry_core::jobs;
use iced::futures::channel::oneshot;
use iced::futures::{SinkExt, Stream, executor};
use iced::{Subscription, Task};

/// Events of the [`DirService`](ferry_core::dirs::DirService) as a subscription.
///
/// The subscription's identity is constant: iced keeps one forwarding thread alive for as long
/// as the window asks for it, however often `subscription()` is rebuilt.
pub fn dir_events(rx: &Receiver<DirEvent>) -> Subscription<DirEvent> {
    Subscription::run_with(Forwarded::new("ferry-dir-events", rx), forward)
}

/// Events of the window's job [`Engine`](jobs::Engine) as a subscription (one engine per
/// window, so one identity, as for [`dir_events`]).
pub fn job_events(rx: &Receiver<jobs::Event>) -> Subscription<jobs::Event> {
    Subscription::run_with(Forwarded::new("ferry-job-events", rx), forward)
}

/// Events of the desktop's clipboard (one per window).
pub fn clipboard_events(
    rx: &Receiver<crate::gui::clipboard::ClipboardEvent>,
) -> Subscription<crate::gui::clipboard::ClipboardEvent> {
    Subscription::run_with(Forwarded::new("ferry-clipboard-events", rx), forward)
}

/// Runs `work` on a thread of its own and delivers its result as a task: for the file I/O
/// (the undo journal, the trash) that must never run in `update`.
pub fn blocking<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> Task<T> {
    let (tx, rx) = oneshot::channel();
    std::thread::Builder::new()
        .name("ferry-blocking".into())
        .spawn(move || {
            let _ = tx.send(work());
        })
        .expect("spawning a thread only fails when the system is out of resources");
    // No value only if `work` panicked: the panic message is already on stderr.
    Task::future(async move { rx.await.ok() }).and_then(Task::done)
}

/// A receiver, hashed by a fixed name (there is one of each kind per window).
struct Forwarded<T> {
    name: &'static str,
    rx: Receiver<T>,
}

impl<T> Forwarded<T> {
    fn new(name: &'static str, rx: &Receiver<T>) -> Self {
        Forwarded {
            name,
            rx: rx.clone(),
        }
    }
}

impl<T> Hash for Forwarded<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.name.hash(state);
    }
}

fn forward<T: Send + 'static>(from: &Forwarded<T>) -> impl Stream<Item = T> + use<T> {
    let (name, rx) = (from.name, from.rx.clone());
    iced::stream::channel(64, async move |mut output| {
        std::thread::Builder::new()
            .name(name.into())
            .spawn(move || {
                while let Ok(event) = rx.recv() {
                    // The window has gone when the stream is closed.
                    if executor::block_on(output.send(event)).is_err() {
                        break;
                    }
                }
            })
            .expect("spawning a thread only fails when the system is out of resources");
        std::future::pending::<()>().await;
    })
}
