//! Ferry's first connection to the X server, against a bare Xvfb that resets whenever its
//! last client leaves (as when a script polls it with `xdotool` while Ferry starts).

use std::sync::atomic::{AtomicBool, Ordering};

use ferry_app::gui::display::connect_x11;

use crate::window_support::{resetting_xvfb, tools_present};

#[test]
fn the_first_connection_survives_a_server_resetting_as_others_leave() {
    if !tools_present(&["Xvfb"]) {
        return;
    }
    let x = resetting_xvfb();
    let done = AtomicBool::new(false);
    let failures: Vec<String> = std::thread::scope(|scope| {
        // Another client comes and goes, so the server resets again and again.
        scope.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                drop(connect_x11(Some(x.display())));
            }
        });
        let failures = (0..300)
            .filter_map(|_| connect_x11(Some(x.display())).err())
            .map(|e| e.to_string())
            .collect();
        done.store(true, Ordering::Relaxed);
        failures
    });
    assert!(
        failures.is_empty(),
        "{} of 300 failed: {failures:?}",
        failures.len()
    );
}
