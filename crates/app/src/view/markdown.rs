//! Markdown in a message rendered as structured text: pulldown-cmark's events become Yew
//! nodes (paragraphs, headings, lists, quotes, code, emphasis), never raw HTML. HTML in the
//! message is shown as the text it is; links show their text and address but are not links
//! (nothing on the page navigates away or loads from elsewhere); images show their alt text.

use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag};
use yew::prelude::*;

use super::list::highlight;

/// Nesting beyond this depth is flattened into its parent (a hostile message of 10,000 `>`
/// must not build a 10,000-deep tree).
const MAX_DEPTH: usize = 24;

/// What an open element becomes when it closes.
enum Open {
    Paragraph,
    Heading(HeadingLevel),
    Quote,
    Code,
    List(Option<u64>),
    Item,
    Emphasis,
    Strong,
    Strike,
    Link(String),
    Image,
    Table,
    Row,
    Cell,
    /// Kept as its children only (footnotes, metadata, anything this renderer does not style).
    Plain,
}

struct Frame {
    open: Open,
    children: Vec<Html>,
}

/// `text` as Markdown, every text run through [`highlight`] (search hits and evidence marked).
pub fn render(text: &str, query: &str, quotes: &[String]) -> Html {
    let quotes = &rendered_quotes(quotes)[..];
    let opts = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut stack: Vec<Frame> = vec![Frame { open: Open::Plain, children: Vec::new() }];
    // Start tags not pushed because of the depth cap: their ends are skipped as well.
    let mut flattened = 0usize;
    for ev in Parser::new_ext(text, opts) {
        match ev {
            Event::Start(tag) => {
                if stack.len() > MAX_DEPTH {
                    flattened += 1;
                    continue;
                }
                let open = match tag {
                    Tag::Paragraph => Open::Paragraph,
                    Tag::Heading { level, .. } => Open::Heading(level),
                    Tag::BlockQuote(_) => Open::Quote,
                    Tag::CodeBlock(_) => Open::Code,
                    Tag::List(start) => Open::List(start),
                    Tag::Item => Open::Item,
                    Tag::Emphasis => Open::Emphasis,
                    Tag::Strong => Open::Strong,
                    Tag::Strikethrough => Open::Strike,
                    Tag::Link { dest_url, .. } => Open::Link(dest_url.to_string()),
                    Tag::Image { .. } => Open::Image,
                    Tag::Table(_) => Open::Table,
                    Tag::TableHead | Tag::TableRow => Open::Row,
                    Tag::TableCell => Open::Cell,
                    _ => Open::Plain,
                };
                stack.push(Frame { open, children: Vec::new() });
            }
            Event::End(_) => {
                if flattened > 0 {
                    flattened -= 1;
                    continue;
                }
                if stack.len() <= 1 {
                    continue;
                }
                let Some(frame) = stack.pop() else { continue };
                let node = close(frame);
                if let Some(parent) = stack.last_mut() {
                    parent.children.push(node);
                }
            }
            Event::Text(t) => push(&mut stack, highlight(&t, query, quotes)),
            Event::Code(t) => {
                push(&mut stack, html! { <code>{ highlight(&t, query, quotes) }</code> })
            }
            // Raw HTML is shown as the text it is.
            Event::Html(t) | Event::InlineHtml(t) => push(
                &mut stack,
                html! { <span class="md-html">{ highlight(&t, query, quotes) }</span> },
            ),
            Event::InlineMath(t) | Event::DisplayMath(t) => {
                push(&mut stack, html! { <code>{ t.to_string() }</code> })
            }
            Event::FootnoteReference(t) => push(&mut stack, html! { { format!("[^{t}]") } }),
            Event::SoftBreak => push(&mut stack, html! { {"\n"} }),
            Event::HardBreak => push(&mut stack, html! { <br /> }),
            Event::Rule => push(&mut stack, html! { <hr /> }),
            Event::TaskListMarker(done) => {
                push(&mut stack, html! { { if done { "[x] " } else { "[ ] " } } })
            }
        }
    }
    // Unclosed frames (cannot happen with pulldown-cmark, but never lose text): fold them in.
    while stack.len() > 1 {
        let Some(frame) = stack.pop() else { break };
        if let Some(parent) = stack.last_mut() {
            parent.children.extend(frame.children);
        }
    }
    let root = stack.pop().map(|f| f.children).unwrap_or_default();
    html! { <div class="md">{ for root }</div> }
}

fn push(stack: &mut [Frame], node: Html) {
    if let Some(top) = stack.last_mut() {
        top.children.push(node);
    }
}

fn close(frame: Frame) -> Html {
    let kids = frame.children;
    match frame.open {
        Open::Paragraph => html! { <p>{ for kids }</p> },
        Open::Heading(level) => {
            let class = match level {
                HeadingLevel::H1 => "md-h md-h1",
                HeadingLevel::H2 => "md-h md-h2",
                _ => "md-h md-h3",
            };
            // Not <h1>…: a message's heading is not a heading of this page.
            html! { <p class={class}><strong>{ for kids }</strong></p> }
        }
        Open::Quote => html! { <blockquote class="md-quote">{ for kids }</blockquote> },
        Open::Code => html! { <pre class="md-code"><code>{ for kids }</code></pre> },
        Open::List(Some(start)) => {
            html! { <ol start={start.to_string()}>{ for kids }</ol> }
        }
        Open::List(None) => html! { <ul>{ for kids }</ul> },
        Open::Item => html! { <li>{ for kids }</li> },
        Open::Emphasis => html! { <em>{ for kids }</em> },
        Open::Strong => html! { <strong>{ for kids }</strong> },
        Open::Strike => html! { <del>{ for kids }</del> },
        Open::Link(url) => html! {
            <span class="md-link" title={url.clone()}>{ for kids }<span class="muted">{ format!(" ({url})") }</span></span>
        },
        Open::Image => html! { <span class="md-img">{"[image: "}{ for kids }{"]"}</span> },
        Open::Table => html! { <div class="md-table">{ for kids }</div> },
        Open::Row => html! { <div class="md-row">{ for kids }</div> },
        Open::Cell => html! { <span class="md-cell">{ for kids }</span> },
        Open::Plain => html! { <>{ for kids }</> },
    }
}

/// The quotes as rendered Markdown shows them: a quote of a whole line loses the block marker
/// it starts with (`# Plan` is shown as the heading `Plan`).
pub fn rendered_quotes(quotes: &[String]) -> Vec<String> {
    quotes
        .iter()
        .map(|q| {
            let t = q.trim_start_matches(['#', '>', ' ']);
            let t = t.strip_prefix("- ").or_else(|| t.strip_prefix("* ")).unwrap_or(t);
            if t.chars().count() >= 3 {
                t.to_string()
            } else {
                q.clone()
            }
        })
        .collect()
}

/// Whether every quote found in `text` lies inside one text run of its Markdown (so rendering
/// it keeps each quote whole and marked); a quote across emphasis or a code span does not.
pub fn keeps_quotes(text: &str, quotes: &[String]) -> bool {
    let shown = rendered_quotes(quotes);
    let inside: Vec<&String> = quotes
        .iter()
        .zip(&shown)
        .filter(|(q, _)| text.contains(q.as_str()))
        .map(|(_, s)| s)
        .collect();
    if inside.is_empty() {
        return true;
    }
    let opts = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let runs: Vec<String> = Parser::new_ext(text, opts)
        .filter_map(|e| match e {
            Event::Text(t) | Event::Code(t) | Event::Html(t) | Event::InlineHtml(t) => {
                Some(t.to_string())
            }
            _ => None,
        })
        .collect();
    inside.iter().all(|q| runs.iter().any(|r| r.contains(q.as_str())))
}

/// Whether `text` looks like Markdown worth rendering (else it is shown as written).
pub fn looks_like_markdown(text: &str) -> bool {
    text.lines().any(|l| {
        let t = l.trim_start();
        t.starts_with('#')
            || t.starts_with("- ")
            || t.starts_with("* ")
            || t.starts_with("> ")
            || t.starts_with("```")
            || t.starts_with("| ")
            || t.split_once(". ")
                .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
    }) || text.contains("**")
        || text.contains('`')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text of `md` as the renderer reads it: its text events, joined.
    fn text_of(md: &str) -> String {
        Parser::new_ext(md, Options::ENABLE_TABLES)
            .filter_map(|e| match e {
                Event::Text(t) => Some(t.to_string()),
                Event::SoftBreak => Some("\n".into()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn entity_references_expand_as_html_says() {
        // The first and last entities of the table, one of a character outside the BMP, two
        // of several characters, a newline, a name known only in another case, an unknown name
        // and numeric references (the packed table, vendor/pulldown-cmark/README.trajscope.md).
        let md =
            "# &AElig; &zwnj;|&Afr; &fjlig; &nvlt; &NewLine;|&aelig; &Amp; &nosuch; &#65;&#x42;";
        assert_eq!(
            text_of(md),
            "\u{C6} \u{200C}|\u{1D504} fj <\u{20D2} \n|\u{E6} &Amp; &nosuch; AB"
        );
        // In code, no expansion.
        assert_eq!(text_of("- `&amp;` &amp;"), " &");
    }
}
