//! Trace text with its bidirectional controls shown, not obeyed. Every element of the page is a
//! bidi isolate (`style.css`), so a control reorders nothing outside its element; inside it, an
//! override (U+202E) would still turn the rest of that element's text around (`abc\u{202e}def`
//! shows as `abcfed`). So each control (`views::is_bidi_control`) is left out of the text and a
//! small mark takes its place, `⟨U+202E⟩`, named in its tooltip: the text around it reads in its
//! stored order. Text nodes only; the copy buttons copy the stored text, controls included.

use trajscope_core::views::{bidi_control_name, is_bidi_control};
use yew::prelude::*;

/// A piece of a text: a run without controls, or one control.
#[derive(Debug, PartialEq)]
pub enum Run<'a> {
    Text(&'a str),
    Control(char),
}

/// `s` cut at its bidirectional controls (none for text without them: one run).
pub fn runs(s: &str) -> Vec<Run<'_>> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in s.char_indices() {
        if is_bidi_control(c) {
            if start < i {
                out.push(Run::Text(&s[start..i]));
            }
            out.push(Run::Control(c));
            start = i + c.len_utf8();
        }
    }
    if start < s.len() {
        out.push(Run::Text(&s[start..]));
    }
    out
}

/// Whether `s` holds a bidirectional control (ASCII text never does: checked first).
pub fn has_controls(s: &str) -> bool {
    !s.is_ascii() && s.chars().any(is_bidi_control)
}

/// The visible stand-in for a control: `⟨U+202E⟩`.
pub fn mark_text(c: char) -> String {
    format!("⟨U+{:04X}⟩", c as u32)
}

/// `s` for an attribute (a tooltip, an option's label), where no element can stand in: each
/// control written as its mark text.
pub fn visible(s: &str) -> String {
    if !has_controls(s) {
        return s.to_string();
    }
    runs(s)
        .into_iter()
        .map(|r| match r {
            Run::Text(t) => t.to_string(),
            Run::Control(c) => mark_text(c),
        })
        .collect()
}

/// `s` as text nodes, each control replaced by a mark element (never parsed as HTML).
pub fn text(s: &str) -> Html {
    if !has_controls(s) {
        return html! { { s.to_string() } };
    }
    runs(s)
        .into_iter()
        .map(|r| match r {
            Run::Text(t) => html! { { t.to_string() } },
            Run::Control(c) => {
                let name = bidi_control_name(c).unwrap_or("BIDIRECTIONAL CONTROL");
                let title = format!("U+{:04X} {name}: a bidirectional control, shown and not applied", c as u32);
                html! {
                    <span class="bidi-mark" data-testid="bidi-mark" title={title}>{ mark_text(c) }</span>
                }
            }
        })
        .collect::<Html>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_cut_out_and_every_other_char_kept_in_order() {
        assert_eq!(
            runs("abc\u{202e}def\u{202c}"),
            [
                Run::Text("abc"),
                Run::Control('\u{202e}'),
                Run::Text("def"),
                Run::Control('\u{202c}')
            ]
        );
        assert_eq!(runs("\u{2067}x"), [Run::Control('\u{2067}'), Run::Text("x")]);
        assert_eq!(runs("plain é"), [Run::Text("plain é")]);
        assert!(runs("").is_empty());
        // Joined back, the runs are the text.
        let s = "a\u{200f}b\u{61c}\u{2066}c";
        let back: String = runs(s)
            .into_iter()
            .map(|r| match r {
                Run::Text(t) => t.to_string(),
                Run::Control(c) => c.to_string(),
            })
            .collect();
        assert_eq!(back, s);
    }

    #[test]
    fn an_attribute_shows_the_mark_text() {
        assert_eq!(visible("report\u{202e}gnp.exe"), "report⟨U+202E⟩gnp.exe");
        assert_eq!(visible("\u{61c}"), "⟨U+061C⟩");
        assert_eq!(visible("no controls \u{202e}"), "no controls ⟨U+202E⟩");
        assert_eq!(visible("ascii"), "ascii");
        assert!(!has_controls("ünïcode without controls"));
    }
}
