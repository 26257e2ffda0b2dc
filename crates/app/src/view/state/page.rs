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
}

pub enum PageAction {
    Notice(String),
    DragOver(bool),
    TogglePaste,
    ToggleHelp,
    CloseHelp,
    SetMode(Mode),
}

impl Page {
    pub fn reduce(&mut self, action: PageAction) {
        match action {
            PageAction::Notice(n) => self.notice = Some(n),
            PageAction::DragOver(b) => self.drag_over = b,
            PageAction::TogglePaste => self.paste_open = !self.paste_open,
            PageAction::ToggleHelp => self.help_open = !self.help_open,
            PageAction::CloseHelp => self.help_open = false,
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
