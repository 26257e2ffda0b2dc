//! The page around the review: the mode, the dialogs, the notice, a drag over the page, and
//! whether the worker is up.

/// What the page is for right now: reading a diagnosis, or labelling.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// The diagnosis and the transcript.
    #[default]
    Review,
    /// The queue with its progress, the transcript and the label form beside it.
    Annotate,
    /// Two runs side by side (`view/compare.rs`).
    Compare,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Page {
    pub mode: Mode,
    pub help_open: bool,
    pub paste_open: bool,
    pub drag_over: bool,
    pub notice: Option<String>,
    /// The worker said it is listening (a worker that never started is not restarted).
    pub worker_up: bool,
    /// How often a worker that was up stopped (each time it is restarted).
    pub crashes: u32,
    /// A step's source record, read from the file (the dialog is open while it is `Some`).
    pub source: Option<std::rc::Rc<SourceText>>,
}

/// A step's record as the file holds it, for the source dialog.
#[derive(Clone, Debug, PartialEq)]
pub struct SourceText {
    /// Where it is: `step #3 · line 12 · bytes 4,096–24,100`.
    pub title: String,
    /// The record's text (UTF-8, damaged bytes replaced), or why it cannot be read.
    pub text: String,
    /// Whether `text` is the record (not a reason it cannot be shown).
    pub read: bool,
    /// What was left out, when the record is longer than the dialog shows.
    pub note: Option<String>,
}

pub enum PageAction {
    Notice(String),
    DragOver(bool),
    TogglePaste,
    ToggleHelp,
    /// Closes the help and the source dialog (Esc).
    CloseHelp,
    SetMode(Mode),
    ShowSource(std::rc::Rc<SourceText>),
}

impl Page {
    pub fn reduce(&mut self, action: PageAction) {
        match action {
            PageAction::Notice(n) => self.notice = Some(n),
            PageAction::DragOver(b) => self.drag_over = b,
            PageAction::TogglePaste => self.paste_open = !self.paste_open,
            PageAction::ToggleHelp => self.help_open = !self.help_open,
            PageAction::CloseHelp => {
                self.help_open = false;
                self.source = None;
            }
            PageAction::ShowSource(s) => self.source = Some(s),
            PageAction::SetMode(m) => self.mode = m,
        }
    }

    /// The worker stopped: one that was up is restarted; one that never came up is not (the
    /// notice says why).
    pub fn worker_crashed(&mut self, msg: &str) {
        if self.worker_up {
            self.worker_up = false;
            self.crashes += 1;
        } else {
            self.notice = Some(format!("The ingest worker could not start: {msg}"));
        }
    }
}
