//! Terminal safety and colour for human-readable output. Trace content is untrusted: every
//! control character other than `\n` and `\t` is shown escaped (`\x1b`, `\u{9b}`), so a trace
//! cannot move the cursor, set the title, clear the screen or write the clipboard. Colour is
//! used only on a terminal and never when `NO_COLOR` is set.

use std::borrow::Cow;
use std::io::{self, IsTerminal as _, Write};

/// True for a character shown escaped: a control character other than newline and tab.
pub fn is_unsafe(c: char) -> bool {
    c.is_control() && c != '\n' && c != '\t'
}

fn push_escaped(out: &mut String, c: char) {
    if (c as u32) < 0x80 {
        out.push_str(&format!("\\x{:02x}", c as u32));
    } else {
        out.push_str(&format!("\\u{{{:x}}}", c as u32));
    }
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
    if !s.chars().any(|c| c.is_control()) {
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
/// C1 control character's two UTF-8 bytes may arrive in separate writes). For human output
/// that does not colour: `view`, `cases`, `brief`, `eval`, error messages.
pub struct Safe<W: Write> {
    inner: W,
    /// The previous write ended with 0xC2, the first byte of a C1 control's UTF-8 form.
    pending_c2: bool,
}

impl<W: Write> Safe<W> {
    pub fn new(inner: W) -> Safe<W> {
        Safe { inner, pending_c2: false }
    }
}

impl<W: Write> Write for Safe<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut out = Vec::with_capacity(buf.len() + 8);
        for &b in buf {
            if std::mem::take(&mut self.pending_c2) {
                if (0x80..=0x9f).contains(&b) {
                    out.extend_from_slice(format!("\\u{{{b:x}}}").as_bytes());
                    continue;
                }
                out.push(0xC2);
            }
            match b {
                b'\n' | b'\t' => out.push(b),
                0x00..=0x1f | 0x7f => out.extend_from_slice(format!("\\x{b:02x}").as_bytes()),
                0xC2 => self.pending_c2 = true,
                _ => out.push(b),
            }
        }
        self.inner.write_all(&out)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if std::mem::take(&mut self.pending_c2) {
            self.inner.write_all(&[0xC2])?;
        }
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

    proptest! {
        #[test]
        fn escaped_text_has_no_control_character_but_newline_and_tab(s in any::<String>()) {
            prop_assert!(!escape(&s).chars().any(is_unsafe));
            prop_assert!(!escape_line(&s).chars().any(char::is_control));
        }

        #[test]
        fn the_safe_writer_agrees_with_escape_at_any_split(s in any::<String>(), split in 0usize..64) {
            let bytes = s.as_bytes();
            let out = safe_bytes(bytes, split);
            prop_assert_eq!(String::from_utf8(out).unwrap(), escape(&s).into_owned());
        }
    }
}
