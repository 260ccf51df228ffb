//! The one bridge from the core's crossbeam channels into iced: the only module that touches
//! `futures`.
//!
//! A plain thread blocks on the receiver and pushes each event into an iced stream; blocking
//! inside the async executor itself would stall every other subscription.

use std::hash::{Hash, Hasher};

use crossbeam_channel::Receiver;
use ferry_core::dirs::DirEvent;
use iced::Subscription;
use iced::futures::{SinkExt, Stream, executor};

/// Events of the [`DirService`](ferry_core::dirs::DirService) as a subscription.
///
/// The subscription's identity is constant: iced keeps one forwarding thread alive for as long
/// as the window asks for it, however often `subscription()` is rebuilt.
pub fn dir_events(rx: &Receiver<DirEvent>) -> Subscription<DirEvent> {
    Subscription::run_with(DirEvents(rx.clone()), forward)
}

/// The receiver, hashed by a fixed identity (there is one `DirService` per window).
struct DirEvents(Receiver<DirEvent>);

impl Hash for DirEvents {
    fn hash<H: Hasher>(&self, state: &mut H) {
        "ferry-dir-events".hash(state);
    }
}

fn forward(events: &DirEvents) -> impl Stream<Item = DirEvent> + use<> {
    let rx = events.0.clone();
    iced::stream::channel(64, async move |mut output| {
        std::thread::Builder::new()
            .name("ferry-dir-events".into())
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
