//! What a job says when a defect (a panic) stops it ([`Error::Defect`]).
//!
//! A panic on a copy's worker reaches the job's thread as the scope's own "a scoped thread
//! panicked", and the worker's words and place are only on stderr, which the window's user
//! never sees. So the engine, once per process, wraps the panic hook to keep the last
//! panic's words and place (then prints as before), and the job that catches a panic takes
//! them. Two jobs panicking at once may swap messages; each still ends.
//!
//! [`Error::Defect`]: crate::Error::Defect

use std::any::Any;
use std::sync::{Mutex, Once, PoisonError};

/// What `std::thread::scope` panics with when one of its threads panicked.
const SCOPE_PASSING_ON: &str = "a scoped thread panicked";

/// The last panic's words and place, until a job takes them.
static LAST: Mutex<Option<String>> = Mutex::new(None);

/// Keeps every later panic's words for [`message`] (the hook before it still runs).
pub(crate) fn remember_panics() {
    static WRAPPED: Once = Once::new();
    WRAPPED.call_once(|| {
        let before = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let words = words_of(info.payload());
            // A scope passing on its thread's panic says nothing of its own.
            if words != SCOPE_PASSING_ON {
                let said = match info.location() {
                    Some(at) => format!("{words}, at {}:{}", at.file(), at.line()),
                    None => words,
                };
                *LAST.lock().unwrap_or_else(PoisonError::into_inner) = Some(said);
            }
            before(info);
        }));
    });
}

/// What a job caught as `payload` says: the panic's words and place when the hook kept them,
/// else the payload's words.
pub(crate) fn message(payload: &(dyn Any + Send)) -> String {
    let kept = LAST.lock().unwrap_or_else(PoisonError::into_inner).take();
    kept.unwrap_or_else(|| words_of(payload))
}

fn words_of(payload: &(dyn Any + Send)) -> String {
    (payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_on_another_thread_is_said_in_its_own_words() {
        remember_panics();
        let caught = std::panic::catch_unwind(|| {
            std::thread::scope(|s| {
                s.spawn(|| panic!("index 7 out of range"));
            });
        });
        let payload = caught.unwrap_err();
        assert_eq!(words_of(payload.as_ref()), SCOPE_PASSING_ON);
        let said = message(payload.as_ref());
        assert!(
            said.starts_with("index 7 out of range, at core/src/jobs/defect.rs:"),
            "{said}"
        );
    }
}
