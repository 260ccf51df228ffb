//! What the window listens to, and when: listing and job events, keys, the mouse, window
//! events, and the ticks of whatever is due (a drag, a drop, toasts, a save, the Trash view).

use super::*;

impl Ferry {
    /// Listing and job events, keys, the mouse's thumb buttons, frames while a timing log line
    /// waits, ticks while something is due, window size and the system colour scheme.
    pub fn subscription(&self) -> Subscription<Message> {
        let mut subscriptions = vec![
            bridge::dir_events(&self.dir_events).map(Message::Dir),
            bridge::job_events(self.jobs.events()).map(Message::Job),
            event::listen_with(keys::listen),
            window::resize_events().map(|(_, size)| Message::WindowResized(size)),
            window::close_requests().map(Message::CloseRequested),
            system::theme_changes().map(Message::ModeChanged),
            iced::time::every(PLACES_EVERY).map(|_| Message::PlacesTick),
        ];
        if self.first_frame || self.tabs.panes().any(Browser::awaits_frame) {
            subscriptions.push(window::frames().map(|_| Message::Frame));
        }
        if self.tabs.panes().any(Browser::is_banding) {
            subscriptions
                .push(iced::time::every(Duration::from_millis(30)).map(|_| Message::AutoScroll));
        }
        if let Some(events) = &self.clipboard_events {
            subscriptions.push(bridge::clipboard_events(events).map(Message::Clipboard));
        }
        // Always: a drag starts, and files from elsewhere land, where the pointer is.
        subscriptions.push(event::listen_with(drag::listen));
        if self.drag.is_some() {
            subscriptions
                .push(iced::time::every(Duration::from_millis(100)).map(|_| Message::DragTick));
        }
        if self.trash.is_some() {
            subscriptions.push(
                iced::time::every(TRASH_LOOK_EVERY)
                    .map(|_| Message::Trash(screen::trash::Message::Tick)),
            );
        }
        if !self.incoming.is_empty() {
            subscriptions
                .push(iced::time::every(Duration::from_millis(50)).map(|_| Message::DropTick));
        }
        if self.quit_asked.is_some() {
            subscriptions
                .push(iced::time::every(Duration::from_millis(500)).map(|_| Message::QuitTick));
        }
        subscriptions.push(window::events().filter_map(|(_, event)| match event {
            window::Event::FileDropped(path) => Some(Message::FileDropped(path)),
            _ => None,
        }));
        if !self.toasts.is_empty()
            || self.settings_dirty
            || self.session_dirty
            || self.jobs_panel.line_lingers()
        {
            subscriptions
                .push(iced::time::every(Duration::from_millis(500)).map(|_| Message::Tick));
        }
        Subscription::batch(subscriptions)
    }
}
