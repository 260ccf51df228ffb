//! The window's messages: what the screens, dialogs, services and the system tell the window.
//! [`Ferry::update`](super::Ferry::update) routes each to its owner.

use super::*;

/// The window's messages.
#[derive(Debug, Clone)]
pub enum Message {
    /// Something for the tabs and their panes.
    Tabs(tabs::Message),
    /// Something for the places sidebar.
    Sidebar(sidebar::Message),
    /// Something for the interrupted-jobs banner.
    Recovery(recovery::Message),
    /// Something for the jobs panel.
    JobsPanel(jobs_panel::Message),
    /// A toolbar button.
    Toolbar(toolbar::Message),
    /// A menu entry (or another request for the window).
    Command(Command),
    /// The open menu was dismissed.
    MenuDismissed,
    /// Something for the Keyboard Shortcuts dialog.
    Shortcuts(modal::shortcuts::Message),
    /// A toast was closed.
    ToastClosed(u64),
    /// A toast's button was pressed.
    ToastAction(u64, Command),
    /// An event of the listing service.
    Dir(DirEvent),
    /// An event of the window's job engine.
    Job(ferry_core::jobs::Event),
    /// A resume or roll back was submitted, holding the journal's writer lock, or not.
    RecoveryStarted(Result<(ferry_core::jobs::JobId, jobs::Held), Arc<Error>>),
    /// A job the window started was journaled and submitted, or could not be.
    JobStarted(Result<Started, Arc<Error>>),
    /// An undo (or, `true`, a redo) was submitted, or there was nothing to do.
    Undid(bool, Result<Undoing, Arc<Error>>),
    /// A job's end was recorded in the journal.
    JobRecorded(ferry_core::jobs::JobId),
    /// What Undo and Redo would do now.
    LabelsRead(Labels),
    /// A folder was picked for Copy to… or Move to… (or the dialog closed).
    /// A message of the Trash view.
    Trash(screen::trash::Message),
    /// A message of a job's conflict dialog.
    Conflict(ferry_core::jobs::JobId, modal::conflict::Message),
    /// A message of the confirmation shown.
    Confirm(modal::confirm::Message),
    /// A message of the item error dialog.
    ItemError(modal::item_error::Message),
    /// What the items of a permanent delete hold was counted.
    DeleteMeasured(Vec<PathBuf>, dialogs::Measured),
    /// What a delete question's items were when it was shown.
    DeleteSeen(Vec<PathBuf>, dialogs::Identities),
    /// A confirmed delete's items looked at again: those replaced since they were counted.
    DeleteChecked(Vec<PathBuf>, dialogs::Checked),
    /// The sources of a move were checked for what deserves a question.
    MoveChecked(moves::Move, moves::Cautions, Vec<std::path::PathBuf>),
    /// The desktop's clipboard connected (or cannot be).
    ClipboardStarted(copy_paste::Started),
    /// Something happened to the desktop's clipboard.
    Clipboard(clipboard::ClipboardEvent),
    /// The clipboard was read for a menu: whether it holds files.
    ClipboardPeeked(bool),
    /// The clipboard was read, for a paste into this folder.
    ClipboardRead(PathBuf, Result<clipboard::Contents, Arc<ferry_core::Error>>),
    FolderPicked(Vec<PathBuf>, PickedFor, picker::Picked),
    /// A message of the folder prompt.
    FolderPrompt(modal::folder_prompt::Message),
    /// A message of the New Folder name prompt.
    NamePrompt(modal::name_prompt::Message),
    /// The pointer moved in the window (listened to during a drag).
    PointerMoved(Point),
    /// The left button was released (listened to during a drag).
    PointerReleased,
    /// Time passed during a drag (spring-loaded folders and tabs).
    DragTick,
    /// A file dropped from another application.
    FileDropped(PathBuf),
    /// Time passed since the last file dropped from another application.
    DropTick,
    /// Time passed while quitting waits for its cancelled jobs to end.
    QuitTick,
    /// A key was pressed; `captured` when a widget (a text field) took it.
    Key {
        /// The key.
        key: Key,
        /// The text it types.
        text: Option<String>,
        /// The modifiers held.
        modifiers: Modifiers,
        /// A widget handled it already.
        captured: bool,
    },
    /// The keyboard modifiers changed (for Ctrl/Shift-click).
    ModifiersChanged(Modifiers),
    /// The mouse's back or forward button.
    MouseButton(mouse::Button),
    /// A frame was drawn (only listened to while a timing log line waits for one).
    Frame,
    /// Time for the rubber band to scroll on.
    AutoScroll,
    /// Time to expire toasts and save what changed.
    Tick,
    /// Time to read the places again.
    PlacesTick,
    /// The window changed size.
    WindowResized(Size),
    /// The window's close button was pressed.
    CloseRequested(window::Id),
    /// The system switched between light and dark.
    ModeChanged(Mode),
    /// Files that could not be opened with their default applications, and why.
    OpenFailed(Vec<(PathBuf, Arc<launch::OpenFailure>)>),
    /// A bookmark was added, or was there already, or could not be.
    BookmarkAdded(PathBuf, Result<bool, Arc<Error>>),
    /// A bookmark was removed or renamed (`verb`, "remove" or "rename"), or could not be;
    /// `Ok(false)`: it was no longer in the bookmarks file.
    BookmarkEdited(&'static str, Result<bool, Arc<Error>>),
    /// Settings and session were written, or could not be.
    Saved(Option<Arc<Error>>),
    /// The places were read (on a worker thread), with the mount table.
    PlacesLoaded(Result<Box<(Places, MountTable)>, Arc<Error>>),
    /// Something went wrong that the user should hear of.
    Problem(String),
}
