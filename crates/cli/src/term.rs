//! Terminal safety and colour for human-readable output. Trace content is untrusted: every
//! control character other than `\n` and `\t` is shown escaped (`\x1b`, `\u{9b}`), so a trace
//! cannot move the cursor, set the title, clear the screen or write the clipboard; so are the
//! bidirectional formatting characters (`\u{202e}`), so a name cannot show reversed or a line
//! reordered. Colour is used only on a terminal and never when `NO_COLOR` is set.

use std::borrow::Cow;
use std::io::{self, IsTerminal as _, Write};

/// True for a character shown escaped: a control character other than newline and tab, or a
/// bidirectional formatting character.
pub fn is_unsafe(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t') || is_bidi(c)
}

/// The bidirectional formatting characters (`views::is_bidi_control`): shown as is, they
/// reorder the text around them.
pub use trajscope_core::views::is_bidi_control as is_bidi;

fn push_escaped(out: &mut String, c: char) {
    if (c as u32) < 0x80 {
        out.push_str(&format!("\\x{:02x}", c as u32));
    } else {
        out.push_str(&format!("\\u{{{:x}}}", c as u32));
    }
}

/// The characters of a name (a trajectory's id, an agent's name) that human output shows; a
/// longer one ends in `…`. A name is not content: one of a megabyte (a generated or pasted id)
/// would bury the output under it. JSON output keeps names whole.
const NAME_SHOWN: usize = 120;

/// A name as human output shows it: on one line (as [`escape_line`]), clipped to
/// [`NAME_SHOWN`] characters.
pub fn name(s: &str) -> String {
    clip(&escape_line(s), NAME_SHOWN)
}

/// `s`'s first `max` characters, and `…` when it had more.
pub fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => s.to_string(),
        Some((at, _)) => s[..at].to_string() + "…",
    }
}

/// A path as a message names it: on one line, its control and bidirectional characters
/// escaped (a file name may hold a line feed, which would start a line of its own).
pub fn shown(path: impl AsRef<std::path::Path>) -> String {
    escape_line(&path.as_ref().display().to_string()).into_owned()
}

/// `s` with every unsafe character escaped (borrowed when there is none).
pub fn escape(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_unsafe) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_unsafe(c) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `s` on one line: also newlines and tabs escaped (`\n`, `\t`), for ids, names and headers.
pub fn escape_line(s: &str) -> Cow<'_, str> {
    if !s.chars().any(|c| c.is_control() || is_bidi(c)) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if is_unsafe(c) => push_escaped(&mut out, c),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// A writer that escapes unsafe characters in everything written through it, byte-wise (a
/// character's UTF-8 bytes may arrive in separate writes: an unfinished one waits for the next
/// write). For human output that does not colour: `view`, `cases`, `brief`, `eval`, error
/// messages.
pub struct Safe<W: Write> {
    inner: W,
    /// The first bytes of a UTF-8 sequence the previous write ended in.
    pending: Vec<u8>,
}

impl<W: Write> Safe<W> {
    pub fn new(inner: W) -> Safe<W> {
        Safe { inner, pending: Vec::new() }
    }
}

impl<W: Write> Write for Safe<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut bytes = std::mem::take(&mut self.pending);
        bytes.extend_from_slice(buf);
        let mut out = Vec::with_capacity(bytes.len() + 8);
        let mut i = 0;
        while i < bytes.len() {
            let len = match bytes[i] {
                0xc2..=0xdf => 2,
                0xe0..=0xef => 3,
                0xf0..=0xf4 => 4,
                _ => 1,
            };
            if i + len > bytes.len() {
                self.pending = bytes[i..].to_vec();
                break;
            }
            let seq = &bytes[i..i + len];
            match std::str::from_utf8(seq).ok().and_then(|s| s.chars().next()) {
                Some(c) if c == '\n' || c == '\t' => out.push(seq[0]),
                Some(c) if is_unsafe(c) => {
                    let mut e = String::new();
                    push_escaped(&mut e, c);
                    out.extend_from_slice(e.as_bytes());
                }
                Some(_) => out.extend_from_slice(seq),
                // Not UTF-8: the byte as it is, and the next ones looked at anew.
                None => {
                    out.push(seq[0]);
                    i += 1;
                    continue;
                }
            }
            i += len;
        }
        self.inner.write_all(&out)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        let pending = std::mem::take(&mut self.pending);
        self.inner.write_all(&pending)?;
        self.inner.flush()
    }
}

impl<W: Write> Drop for Safe<W> {
    fn drop(&mut self) {
        let _ = self.flush();
    }
}

/// Stdout for human output, escaped.
pub fn stdout() -> Safe<io::StdoutLock<'static>> {
    Safe::new(io::stdout().lock())
}

/// Stdout for a command that prints JSON (already escaped by the serialiser, and a contract) or
/// human output (escaped here).
pub fn human_or_json(json: bool) -> Box<dyn Write> {
    if json {
        Box::new(io::stdout().lock())
    } else {
        Box::new(stdout())
    }
}

/// Whether stdout gets colour: a terminal, and `NO_COLOR` unset or empty (no-color.org).
pub fn colour_stdout() -> bool {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    !no_color && io::stdout().is_terminal()
}

/// The styles of the diagnosis; all empty without colour.
#[derive(Clone, Copy, Debug)]
pub struct Paint {
    pub on: bool,
}

impl Paint {
    fn wrap(self, style: anstyle::Style, s: &str) -> String {
        if self.on {
            format!("{}{s}{}", style.render(), style.render_reset())
        } else {
            s.to_string()
        }
    }

    pub fn error(self, s: &str) -> String {
        self.wrap(anstyle::AnsiColor::Red.on_default().bold(), s)
    }

    pub fn note(self, s: &str) -> String {
        self.wrap(anstyle::AnsiColor::Blue.on_default().bold(), s)
    }

    pub fn bold(self, s: &str) -> String {
        self.wrap(anstyle::Style::new().bold(), s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn safe_bytes(input: &[u8], split: usize) -> Vec<u8> {
        let mut w = Safe::new(Vec::new());
        let split = split.min(input.len());
        w.write_all(&input[..split]).unwrap();
        w.write_all(&input[split..]).unwrap();
        w.flush().unwrap();
        std::mem::take(&mut w.inner)
    }

    #[test]
    fn escapes_what_a_terminal_would_obey() {
        assert_eq!(escape("a\u{1b}]0;title\u{7}b"), "a\\x1b]0;title\\x07b");
        assert_eq!(escape("csi\u{9b}2J"), "csi\\u{9b}2J");
        assert_eq!(escape("keep\nnew\tlines"), "keep\nnew\tlines");
        assert_eq!(escape_line("one\nline\r"), "one\\nline\\x0d");
        assert_eq!(safe_bytes("x\u{1b}[2J\u{9b}é".as_bytes(), 6), "x\\x1b[2J\\u{9b}é".as_bytes());
    }

    #[test]
    fn escapes_the_bidirectional_formatting_characters() {
        let name = "bu\u{202e}ild\u{202d}bot \u{2066}x\u{2069} \u{200e}\u{200f}\u{61c}";
        let want = "bu\\u{202e}ild\\u{202d}bot \\u{2066}x\\u{2069} \\u{200e}\\u{200f}\\u{61c}";
        assert_eq!(escape(name), want);
        assert_eq!(escape_line(name), want);
        // Split inside the override's three bytes, and inside U+061C's two.
        for split in [3, 4, 26, 27] {
            assert_eq!(safe_bytes(name.as_bytes(), split), want.as_bytes(), "{split}");
        }
        // Other non-ASCII text is kept.
        assert_eq!(escape("déjà ✓ \u{200d}"), "déjà ✓ \u{200d}");
    }

    proptest! {
        #[test]
        fn escaped_text_has_no_control_character_but_newline_and_tab(s in any::<String>()) {
            prop_assert!(!escape(&s).chars().any(is_unsafe));
            prop_assert!(!escape_line(&s).chars().any(|c| c.is_control() || is_bidi(c)));
        }

        #[test]
        fn the_safe_writer_agrees_with_escape_at_any_split(s in any::<String>(), split in 0usize..64) {
            let bytes = s.as_bytes();
            let out = safe_bytes(bytes, split);
            prop_assert_eq!(String::from_utf8(out).unwrap(), escape(&s).into_owned());
        }
    }
}
