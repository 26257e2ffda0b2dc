//! Markdown in a message rendered as structured text: the events of [`parse`] become Yew
//! nodes (paragraphs, headings, lists, quotes, code, emphasis), never raw HTML. HTML in the
//! message is shown as the text it is; links show their text and address but are not links
//! (nothing on the page navigates away or loads from elsewhere); images show their alt text.

mod parse;

use parse::{Ev, Tag};
use yew::prelude::*;

use super::list::highlight;

/// Nesting beyond this depth is flattened into its parent (a hostile message of 10,000 `>`
/// must not build a 10,000-deep tree).
const MAX_DEPTH: usize = 24;

struct Frame {
    /// The element open here; `None` at the root (kept as its children only).
    open: Option<Tag>,
    children: Vec<Html>,
}

/// `text` as Markdown, every text run through [`highlight`] (search hits and evidence marked).
pub fn render(text: &str, query: &str, quotes: &[String]) -> Html {
    let quotes = &rendered_quotes(quotes)[..];
    let mut stack: Vec<Frame> = vec![Frame { open: None, children: Vec::new() }];
    // Start tags not pushed because of the depth cap: their ends are skipped as well.
    let mut flattened = 0usize;
    for ev in parse::parse(text) {
        match ev {
            Ev::Start(tag) => {
                if stack.len() > MAX_DEPTH {
                    flattened += 1;
                    continue;
                }
                stack.push(Frame { open: Some(tag), children: Vec::new() });
            }
            Ev::End => {
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
            Ev::Text(t) => push(&mut stack, highlight(&t, query, quotes)),
            Ev::Code(t) => {
                push(&mut stack, html! { <code>{ highlight(&t, query, quotes) }</code> })
            }
            // Raw HTML is shown as the text it is.
            Ev::Html(t) => push(
                &mut stack,
                html! { <span class="md-html">{ highlight(&t, query, quotes) }</span> },
            ),
            Ev::SoftBreak => push(&mut stack, html! { {"\n"} }),
            Ev::HardBreak => push(&mut stack, html! { <br /> }),
            Ev::Rule => push(&mut stack, html! { <hr /> }),
            Ev::Task(done) => push(&mut stack, html! { { if done { "[x] " } else { "[ ] " } } }),
        }
    }
    // Unclosed frames (the parser closes every element, but never lose text): fold them in.
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
        Some(Tag::Paragraph) => html! { <p>{ for kids }</p> },
        Some(Tag::Heading(level)) => {
            let class = match level {
                1 => "md-h md-h1",
                2 => "md-h md-h2",
                _ => "md-h md-h3",
            };
            // Not <h1>…: a message's heading is not a heading of this page.
            html! { <p class={class}><strong>{ for kids }</strong></p> }
        }
        Some(Tag::Quote) => html! { <blockquote class="md-quote">{ for kids }</blockquote> },
        Some(Tag::CodeBlock) => html! { <pre class="md-code"><code>{ for kids }</code></pre> },
        Some(Tag::List(Some(start))) => {
            html! { <ol start={start.to_string()}>{ for kids }</ol> }
        }
        Some(Tag::List(None)) => html! { <ul>{ for kids }</ul> },
        Some(Tag::Item) => html! { <li>{ for kids }</li> },
        Some(Tag::Emphasis) => html! { <em>{ for kids }</em> },
        Some(Tag::Strong) => html! { <strong>{ for kids }</strong> },
        Some(Tag::Strike) => html! { <del>{ for kids }</del> },
        Some(Tag::Link(url)) => html! {
            <span class="md-link" title={super::bidi::visible(&url)}>{ for kids }<span class="muted">{ super::bidi::text(&format!(" ({url})")) }</span></span>
        },
        Some(Tag::Image) => html! { <span class="md-img">{"[image: "}{ for kids }{"]"}</span> },
        Some(Tag::Table) => html! { <div class="md-table">{ for kids }</div> },
        Some(Tag::Row) => html! { <div class="md-row">{ for kids }</div> },
        Some(Tag::Cell) => html! { <span class="md-cell">{ for kids }</span> },
        None => html! { <>{ for kids }</> },
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
    let runs: Vec<String> = parse::parse(text)
        .into_iter()
        .filter_map(|e| match e {
            Ev::Text(t) | Ev::Code(t) | Ev::Html(t) => Some(t),
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
