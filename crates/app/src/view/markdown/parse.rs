//! The Markdown the transcript renders, parsed into events: the subset agents write (ATX and
//! setext headings, paragraphs, fenced and indented code, block quotes, bullet, ordered and
//! task lists, GFM tables, thematic breaks; code spans, emphasis, strong, strikethrough, links,
//! images, autolinks, backslash escapes, the common character references) with CommonMark's
//! rules for each, simplified where agents' text does not go (no link reference definitions,
//! no HTML block kinds: a line starting with a tag starts a block of raw HTML up to a blank
//! line). Raw HTML becomes [`Ev::Html`] text: nothing here is ever markup. It replaces
//! pulldown-cmark for the bundle's size (`docs/performance.md`, Bundle); its tests check it
//! against pulldown-cmark's events. Known differences: no link reference definitions (`[a]: url`
//! stays text), only the common named character references (`&amp;`, `&lt;`, `&copy;`, … and
//! every numeric one; another name stays as written), and a code or HTML block left open at the
//! end of a text keeps a final newline.

/// An element that holds other events, up to its [`Ev::End`].
#[derive(Clone, Debug, PartialEq)]
pub enum Tag {
    Paragraph,
    Heading(u8),
    Quote,
    CodeBlock,
    /// An ordered list's first number, or a bullet list.
    List(Option<u64>),
    Item,
    Emphasis,
    Strong,
    Strike,
    /// A link to the address.
    Link(String),
    Image,
    Table,
    /// The header row or a body row of a table.
    Row,
    Cell,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Ev {
    Start(Tag),
    End,
    Text(String),
    Code(String),
    /// Raw HTML, shown as the text it is.
    Html(String),
    SoftBreak,
    HardBreak,
    Rule,
    /// A task list item's box: checked or not.
    Task(bool),
}

/// Containers (quotes, list items) nested deeper than this are read as plain paragraphs: a
/// hostile message of 10,000 `>` must not recurse 10,000 deep.
const MAX_NEST: usize = 32;
/// Links inside link text deeper than this stay text.
const MAX_INLINE_NEST: usize = 8;
/// A link's text, and its address, longer than this many bytes is not looked for (so a
/// message of many unclosed `[` stays linear).
const MAX_LINK: usize = 1000;
/// A paragraph with more emphasis delimiter runs than this shows them all as written
/// (matching them costs the square of their number at worst).
const MAX_DELIMS: usize = 5000;

/// The events of `text`.
pub fn parse(text: &str) -> Vec<Ev> {
    let lines: Vec<String> = text.lines().map(expand_tabs).collect();
    let mut out = Vec::new();
    blocks(&lines, 0, false, &mut out);
    out
}

/// Leading tabs to spaces (to the next multiple of 4), the rest of the line as it is.
fn expand_tabs(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    for (i, c) in line.char_indices() {
        match c {
            '\t' => out.extend(std::iter::repeat_n(' ', 4 - out.len() % 4)),
            ' ' => out.push(' '),
            _ => {
                out.push_str(&line[i..]);
                break;
            }
        }
    }
    out
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

fn blank(line: &str) -> bool {
    line.trim().is_empty()
}

/// A fence's character and length, when `line` opens (or closes) fenced code.
fn fence(line: &str) -> Option<(u8, usize)> {
    if indent(line) > 3 {
        return None;
    }
    let t = line.trim_start();
    let c = *t.as_bytes().first()?;
    let n = t.bytes().take_while(|&b| b == c).count();
    ((c == b'`' || c == b'~') && n >= 3 && !(c == b'`' && t[n..].contains('`'))).then_some((c, n))
}

fn atx(line: &str) -> Option<(u8, &str)> {
    if indent(line) > 3 {
        return None;
    }
    let t = line.trim_start();
    let n = t.bytes().take_while(|&b| b == b'#').count();
    let rest = &t[n..];
    if !(1..=6).contains(&n) || !(rest.is_empty() || rest.starts_with(' ')) {
        return None;
    }
    let body = rest.trim();
    // A closing run of `#` (after a space) is not content.
    let stripped = body.trim_end_matches('#');
    let body =
        if stripped.is_empty() || stripped.ends_with(' ') { stripped.trim_end() } else { body };
    Some((n as u8, body))
}

fn rule(line: &str) -> bool {
    if indent(line) > 3 {
        return false;
    }
    let t: String = line.chars().filter(|c| !c.is_whitespace()).collect();
    let Some(c) = t.chars().next() else { return false };
    matches!(c, '*' | '-' | '_') && t.len() >= 3 && t.chars().all(|x| x == c)
}

fn quote(line: &str) -> Option<&str> {
    if indent(line) > 3 {
        return None;
    }
    let rest = line.trim_start().strip_prefix('>')?;
    Some(rest.strip_prefix(' ').unwrap_or(rest))
}

/// Whether `line` starts a block of raw HTML: a comment, a declaration or processing
/// instruction, a tag of a block element (CommonMark's kinds 1 to 6), or (`alone`, kind 7,
/// which cannot interrupt a paragraph) any whole tag alone on its line.
fn html_start(line: &str, alone: bool) -> bool {
    let t = line.trim_start();
    if indent(line) > 3 || !t.starts_with('<') {
        return false;
    }
    if t.starts_with("<!--") || t.starts_with("<?") || t.starts_with("<![CDATA[") {
        return true;
    }
    if t[1..].starts_with('!') {
        return t[2..].starts_with(|c: char| c.is_ascii_alphabetic());
    }
    let rest = t[1..].strip_prefix('/').unwrap_or(&t[1..]);
    let name_len = rest.bytes().take_while(u8::is_ascii_alphanumeric).count();
    let after = &rest[name_len..];
    if name_len == 0 || !rest.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return false;
    }
    let name = rest[..name_len].to_ascii_lowercase();
    let ends = after.is_empty() || after.starts_with([' ', '>']) || after.starts_with("/>");
    if ends && BLOCK_TAGS.contains(&name.as_str()) {
        return true;
    }
    alone && ends && inline_html(t).is_some_and(|end| t[end..].trim().is_empty())
}

const BLOCK_TAGS: [&str; 62] = [
    "address",
    "article",
    "aside",
    "base",
    "basefont",
    "blockquote",
    "body",
    "caption",
    "center",
    "col",
    "colgroup",
    "dd",
    "details",
    "dialog",
    "dir",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "frame",
    "frameset",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "head",
    "header",
    "hr",
    "html",
    "iframe",
    "legend",
    "li",
    "link",
    "main",
    "menu",
    "menuitem",
    "nav",
    "noframes",
    "ol",
    "optgroup",
    "option",
    "p",
    "param",
    "search",
    "section",
    "summary",
    "table",
    "tbody",
    "td",
    "tfoot",
    "th",
    "thead",
    "title",
    "tr",
    "track",
    "ul",
];

/// A list item's marker: bullet character or ordered delimiter, start number, and the
/// column its content starts at.
#[derive(Clone, Copy, PartialEq)]
struct Marker {
    kind: u8,
    start: Option<u64>,
    width: usize,
}

fn marker(line: &str) -> Option<Marker> {
    let ind = indent(line);
    if ind > 3 {
        return None;
    }
    let t = &line[ind..];
    let b = t.as_bytes();
    let (kind, start, len) = match b.first()? {
        c @ (b'-' | b'*' | b'+') => (*c, None, 1),
        _ => {
            let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
            let delim = *b.get(digits)?;
            if digits == 0 || digits > 9 || !(delim == b'.' || delim == b')') {
                return None;
            }
            (delim, t[..digits].parse().ok(), digits + 1)
        }
    };
    let rest = &t[len..];
    let spaces = indent(rest);
    if !rest.is_empty() && spaces == 0 {
        return None;
    }
    // Content indented 5 or more after the marker: the marker and one space, then indented code.
    let pad = if rest.trim().is_empty() || spaces > 4 { 1 } else { spaces };
    Some(Marker { kind, start, width: ind + len + pad })
}

/// The cells of a table row (outer pipes dropped, `\|` kept as a pipe).
fn cells(line: &str) -> Vec<String> {
    let t = line.trim();
    let t = t.strip_prefix('|').unwrap_or(t);
    let t = if t.ends_with('|') && !t.ends_with("\\|") { &t[..t.len() - 1] } else { t };
    let mut out = Vec::new();
    let mut cell = String::new();
    let mut chars = t.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                cell.push('|');
                chars.next();
            }
            '|' => out.push(std::mem::take(&mut cell).trim().to_string()),
            _ => cell.push(c),
        }
    }
    out.push(cell.trim().to_string());
    out
}

fn delimiter_row(line: &str) -> Option<usize> {
    if !line.contains('-') || indent(line) > 3 {
        return None;
    }
    let cs = cells(line);
    let ok = cs.iter().all(|c| {
        let c = c.strip_prefix(':').unwrap_or(c);
        let c = c.strip_suffix(':').unwrap_or(c);
        !c.is_empty() && c.bytes().all(|b| b == b'-')
    });
    (ok && (line.contains('|') || cs.len() > 1)).then_some(cs.len())
}

/// Whether `lines[i]` starts a table (its header row, then the delimiter row).
fn table_at(lines: &[String], i: usize) -> bool {
    let Some(next) = lines.get(i + 1) else { return false };
    lines[i].contains('|')
        && indent(&lines[i]) <= 3
        && delimiter_row(next).is_some_and(|n| n == cells(&lines[i]).len())
}

/// Whether `line` (inside its containers' markers) is a line of paragraph text, which a lazy
/// line may continue.
fn paragraph_line(line: &str) -> bool {
    let mut l = line;
    loop {
        if let Some(rest) = quote(l) {
            l = rest;
        } else if let Some(m) = marker(l) {
            l = l.get(m.width..).unwrap_or("");
        } else {
            break;
        }
    }
    !blank(l)
        && indent(l) < 4
        && fence(l).is_none()
        && atx(l).is_none()
        && !rule(l)
        && !html_start(l, true)
}

/// Whether `line` may continue a paragraph of a container without the container's marker
/// (CommonMark's lazy continuation lines): plain text only, never a setext underline.
fn lazy(line: &str) -> bool {
    let t = line.trim();
    !interrupts(line)
        && marker(line).is_none()
        && !(t.bytes().all(|b| b == b'-') || t.bytes().all(|b| b == b'='))
}

/// Whether `line` starts a block that ends a paragraph.
fn interrupts(line: &str) -> bool {
    blank(line)
        || fence(line).is_some()
        || atx(line).is_some()
        || rule(line)
        || quote(line).is_some()
        || html_start(line, false)
        || marker(line).is_some_and(|m| {
            m.start.is_none_or(|s| s == 1) && !blank(line.get(m.width..).unwrap_or(""))
        })
}

/// Parses `lines` (their containers' markers already removed) as blocks at nesting `depth`;
/// in a tight list item (`tight`) paragraphs are bare text.
fn blocks(lines: &[String], depth: usize, tight: bool, out: &mut Vec<Ev>) {
    let mut i = 0;
    while i < lines.len() {
        let line = &lines[i];
        if blank(line) {
            i += 1;
            continue;
        }
        if let Some((c, n)) = fence(line) {
            let ind = indent(line);
            let mut body = String::new();
            i += 1;
            while i < lines.len() {
                let l = &lines[i];
                if fence(l).is_some_and(|(c2, n2)| c2 == c && n2 >= n)
                    && l.trim().bytes().all(|b| b == c)
                {
                    i += 1;
                    break;
                }
                body.push_str(&l[indent(l).min(ind)..]);
                body.push('\n');
                i += 1;
            }
            code_block(body, out);
            continue;
        }
        if indent(line) >= 4 {
            let mut body = String::new();
            let mut end = i;
            while end < lines.len() && (blank(&lines[end]) || indent(&lines[end]) >= 4) {
                end += 1;
            }
            while end > i && blank(&lines[end - 1]) {
                end -= 1;
            }
            for l in &lines[i..end] {
                body.push_str(l.get(4..).unwrap_or(""));
                body.push('\n');
            }
            code_block(body, out);
            i = end;
            continue;
        }
        if let Some((level, body)) = atx(line) {
            out.push(Ev::Start(Tag::Heading(level)));
            inline(body, 0, out);
            out.push(Ev::End);
            i += 1;
            continue;
        }
        if rule(line) {
            out.push(Ev::Rule);
            i += 1;
            continue;
        }
        if depth < MAX_NEST && quote(line).is_some() {
            let mut inner = Vec::new();
            while i < lines.len() {
                if let Some(rest) = quote(&lines[i]) {
                    inner.push(rest.to_string());
                } else if lazy(&lines[i])
                    && !table_at(lines, i)
                    && inner.last().is_some_and(|l: &String| paragraph_line(l))
                {
                    // A lazy continuation of the quoted paragraph.
                    inner.push(lines[i].clone());
                } else {
                    break;
                }
                i += 1;
            }
            out.push(Ev::Start(Tag::Quote));
            blocks(&inner, depth + 1, false, out);
            out.push(Ev::End);
            continue;
        }
        if depth < MAX_NEST {
            if let Some(first) = marker(line) {
                i = list(lines, i, first, depth, out);
                continue;
            }
        }
        if html_start(line, true) {
            let mut text = String::new();
            while i < lines.len() && !blank(&lines[i]) {
                text.push_str(&lines[i]);
                text.push('\n');
                i += 1;
            }
            out.push(Ev::Html(text));
            continue;
        }
        if table_at(lines, i) {
            i = table(lines, i, out);
            continue;
        }
        // A paragraph, up to a line that interrupts it; a setext underline makes it a heading.
        let start = i;
        let mut level = None;
        i += 1;
        while i < lines.len() {
            let l = &lines[i];
            let t = l.trim();
            if indent(l) <= 3 && !t.is_empty() && (t.bytes().all(|b| b == b'=')) {
                level = Some(1);
                break;
            }
            if indent(l) <= 3 && !t.is_empty() && t.bytes().all(|b| b == b'-') {
                level = Some(2);
                break;
            }
            if interrupts(l) || table_at(lines, i) {
                break;
            }
            i += 1;
        }
        let text = lines[start..i].iter().map(|l| l.trim_start()).collect::<Vec<_>>().join("\n");
        let text = text.trim_end_matches(' ');
        match level {
            Some(level) => {
                i += 1;
                out.push(Ev::Start(Tag::Heading(level)));
                inline(text, 0, out);
                out.push(Ev::End);
            }
            None if tight => inline(text, 0, out),
            None => {
                out.push(Ev::Start(Tag::Paragraph));
                inline(text, 0, out);
                out.push(Ev::End);
            }
        }
    }
}

fn code_block(body: String, out: &mut Vec<Ev>) {
    out.push(Ev::Start(Tag::CodeBlock));
    if !body.is_empty() {
        out.push(Ev::Text(body));
    }
    out.push(Ev::End);
}

/// A list from `lines[i]` (its first item's marker `first`); returns the line after it.
fn list(lines: &[String], mut i: usize, first: Marker, depth: usize, out: &mut Vec<Ev>) -> usize {
    let mut items: Vec<Vec<String>> = Vec::new();
    let mut loose = false;
    while i < lines.len() {
        let Some(m) = marker(&lines[i]) else { break };
        if m.kind != first.kind {
            break;
        }
        let mut item = vec![lines[i].get(m.width..).unwrap_or("").to_string()];
        i += 1;
        while i < lines.len() {
            let l = &lines[i];
            if blank(l) {
                item.push(String::new());
            } else if indent(l) >= m.width {
                item.push(l[m.width..].to_string());
            } else if lazy(l)
                && !table_at(lines, i)
                && item.last().is_some_and(|p| paragraph_line(p))
            {
                item.push(l.trim_start().to_string());
            } else {
                break;
            }
            i += 1;
        }
        // Blank lines at the item's end separate it from the next: a loose list, if one follows.
        let mut trailing = 0;
        while item.len() > 1 && item.last().is_some_and(|l| blank(l)) {
            item.pop();
            trailing += 1;
        }
        if trailing > 0 && i < lines.len() && marker(&lines[i]).is_some_and(|n| n.kind == m.kind) {
            loose = true;
        }
        if item.iter().skip(1).any(|l| blank(l)) {
            loose = true;
        }
        items.push(item);
    }
    out.push(Ev::Start(Tag::List(first.start)));
    for mut item in items {
        out.push(Ev::Start(Tag::Item));
        let head = &item[0];
        let task = ["[ ] ", "[x] ", "[X] "].iter().position(|p| head.starts_with(p));
        if let Some(t) = task {
            out.push(Ev::Task(t > 0));
            item[0] = item[0][4..].to_string();
        }
        blocks(&item, depth + 1, !loose, out);
        out.push(Ev::End);
    }
    out.push(Ev::End);
    i
}

/// A table from its header row `lines[i]`; returns the line after it.
fn table(lines: &[String], mut i: usize, out: &mut Vec<Ev>) -> usize {
    let columns = cells(&lines[i]).len();
    out.push(Ev::Start(Tag::Table));
    let row = |line: &str, out: &mut Vec<Ev>| {
        let mut cs = cells(line);
        cs.resize(columns, String::new());
        out.push(Ev::Start(Tag::Row));
        for c in cs {
            out.push(Ev::Start(Tag::Cell));
            inline(&c, 0, out);
            out.push(Ev::End);
        }
        out.push(Ev::End);
    };
    row(&lines[i], out);
    i += 2;
    while i < lines.len() && !interrupts(&lines[i]) && marker(&lines[i]).is_none() {
        row(&lines[i], out);
        i += 1;
    }
    out.push(Ev::End);
    i
}

/// An inline piece before emphasis is matched.
enum Node {
    Ev(Ev),
    /// A run of `*`, `_` or `~`: its character, how many are left, whether it may open and
    /// close emphasis.
    Delim {
        ch: u8,
        n: usize,
        open: bool,
        close: bool,
    },
    /// A matched element and its content.
    Elem(Tag, Vec<Node>),
}

fn is_punct(c: Option<char>) -> bool {
    c.is_some_and(|c| {
        c.is_ascii_punctuation() || (!c.is_ascii() && !c.is_alphanumeric() && !c.is_whitespace())
    })
}

fn is_space(c: Option<char>) -> bool {
    c.is_none_or(char::is_whitespace)
}

/// The inline events of `text` (a paragraph's lines joined by `\n`) appended to `out`.
fn inline(text: &str, nest: usize, out: &mut Vec<Ev>) {
    let mut nodes = Vec::new();
    let mut buf = String::new();
    let flush = |buf: &mut String, nodes: &mut Vec<Node>| {
        if !buf.is_empty() {
            nodes.push(Node::Ev(Ev::Text(std::mem::take(buf))));
        }
    };
    let b = text.as_bytes();
    // Per run length (up to 64 backticks): from where on no code span of it closes.
    let mut spans_without_end = [usize::MAX; 65];
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b'\\' if b.get(i + 1).is_some_and(u8::is_ascii_punctuation) => {
                buf.push(b[i + 1] as char);
                i += 2;
            }
            b'\\' if b.get(i + 1) == Some(&b'\n') => {
                flush(&mut buf, &mut nodes);
                nodes.push(Node::Ev(Ev::HardBreak));
                i += 2;
            }
            b'\n' => {
                let hard = buf.ends_with("  ");
                let kept = buf.trim_end_matches(' ').len();
                buf.truncate(kept);
                flush(&mut buf, &mut nodes);
                nodes.push(Node::Ev(if hard { Ev::HardBreak } else { Ev::SoftBreak }));
                i += 1;
                while b.get(i) == Some(&b' ') {
                    i += 1;
                }
            }
            b'`' => {
                let n = b[i..].iter().take_while(|&&x| x == b'`').count();
                let known_open = spans_without_end.get(n).is_some_and(|&f| i + n >= f);
                match (!known_open).then(|| code_span_end(b, i + n, n)).flatten() {
                    Some(end) => {
                        flush(&mut buf, &mut nodes);
                        let raw = text[i + n..end].replace('\n', " ");
                        let inner = if raw.len() >= 2
                            && raw.starts_with(' ')
                            && raw.ends_with(' ')
                            && !raw.trim().is_empty()
                        {
                            raw[1..raw.len() - 1].to_string()
                        } else {
                            raw
                        };
                        nodes.push(Node::Ev(Ev::Code(inner)));
                        i = end + n;
                    }
                    None => {
                        // No closer of this length from here on: none from any later point.
                        if let Some(f) = spans_without_end.get_mut(n) {
                            *f = (*f).min(i + n);
                        }
                        buf.push_str(&text[i..i + n]);
                        i += n;
                    }
                }
            }
            b'*' | b'_' | b'~' => {
                let n = b[i..].iter().take_while(|&&x| x == c).count();
                let before = text[..i].chars().next_back();
                let after = text[i + n..].chars().next();
                let left =
                    !is_space(after) && (!is_punct(after) || is_space(before) || is_punct(before));
                let right =
                    !is_space(before) && (!is_punct(before) || is_space(after) || is_punct(after));
                let (open, close) = if c == b'_' {
                    (left && (!right || is_punct(before)), right && (!left || is_punct(after)))
                } else {
                    (left, right)
                };
                flush(&mut buf, &mut nodes);
                if c == b'~' && n > 2 {
                    buf.push_str(&text[i..i + n]);
                } else {
                    nodes.push(Node::Delim { ch: c, n, open, close });
                }
                i += n;
            }
            b'!' | b'[' if nest < MAX_INLINE_NEST => {
                let image = c == b'!';
                let open = i + usize::from(image);
                match (b.get(open) == Some(&b'[')).then(|| link_at(text, open)).flatten() {
                    Some((label, dest, end)) => {
                        flush(&mut buf, &mut nodes);
                        let mut inner = Vec::new();
                        inline(label, nest + 1, &mut inner);
                        let tag = if image { Tag::Image } else { Tag::Link(dest) };
                        nodes.push(Node::Elem(tag, inner.into_iter().map(Node::Ev).collect()));
                        i = end;
                    }
                    None => {
                        buf.push(c as char);
                        i += 1;
                    }
                }
            }
            b'<' => {
                if let Some((end, url)) = autolink(&text[i..]) {
                    flush(&mut buf, &mut nodes);
                    let shown = vec![Node::Ev(Ev::Text(url.to_string()))];
                    nodes.push(Node::Elem(Tag::Link(url.to_string()), shown));
                    i += end;
                } else if let Some(end) = inline_html(&text[i..]) {
                    flush(&mut buf, &mut nodes);
                    nodes.push(Node::Ev(Ev::Html(text[i..i + end].to_string())));
                    i += end;
                } else {
                    buf.push('<');
                    i += 1;
                }
            }
            b'&' => match entity(&text[i..]) {
                Some((s, len)) => {
                    buf.push_str(&s);
                    i += len;
                }
                None => {
                    buf.push('&');
                    i += 1;
                }
            },
            _ => {
                let ch = text[i..].chars().next().unwrap_or(' ');
                buf.push(ch);
                i += ch.len_utf8();
            }
        }
    }
    flush(&mut buf, &mut nodes);
    if nodes.iter().filter(|n| matches!(n, Node::Delim { .. })).count() <= MAX_DELIMS {
        emphasis(&mut nodes);
    }
    flatten(nodes, out);
}

/// Where a code span opened by `n` backticks (its content from `from`) closes.
fn code_span_end(b: &[u8], from: usize, n: usize) -> Option<usize> {
    let mut j = from;
    while j < b.len() {
        if b[j] == b'`' {
            let m = b[j..].iter().take_while(|&&x| x == b'`').count();
            if m == n {
                return Some(j);
            }
            j += m;
        } else {
            j += 1;
        }
    }
    None
}

/// A link's text, address and end, at the `[` at `open`: `[text](address "title")`.
fn link_at(text: &str, open: usize) -> Option<(&str, String, usize)> {
    let b = text.as_bytes();
    let mut depth = 0usize;
    let mut j = open;
    let close = loop {
        if j - open > MAX_LINK {
            return None;
        }
        match b.get(j)? {
            b'\\' => j += 1,
            b'`' => {
                let n = b[j..].iter().take_while(|&&x| x == b'`').count();
                let near = &b[..b.len().min(open + MAX_LINK)];
                j = code_span_end(near, j + n, n).map_or(j + n - 1, |e| e + n - 1);
            }
            b'[' => depth += 1,
            b']' => {
                depth -= 1;
                if depth == 0 {
                    break j;
                }
            }
            _ => {}
        }
        j += 1;
    };
    if b.get(close + 1) != Some(&b'(') {
        return None;
    }
    let mut k = close + 2;
    let mut parens = 0usize;
    loop {
        if k - close > MAX_LINK {
            return None;
        }
        match b.get(k)? {
            b'\\' => k += 1,
            b'(' => parens += 1,
            b')' if parens == 0 => break,
            b')' => parens -= 1,
            _ => {}
        }
        k += 1;
    }
    let inside = text[close + 2..k].trim();
    let dest = match inside.strip_prefix('<') {
        Some(rest) => rest.split_once('>').map_or(rest, |(d, _)| d),
        None => inside.split_whitespace().next().unwrap_or(""),
    };
    Some((&text[open + 1..close], dest.to_string(), k + 1))
}

/// `<scheme:address>` or `<user@host>`: its length and the address.
fn autolink(s: &str) -> Option<(usize, &str)> {
    let end = s.find('>')?;
    let inner = &s[1..end];
    if inner.is_empty() || inner.contains(|c: char| c.is_whitespace() || c == '<') {
        return None;
    }
    let scheme = inner.split_once(':').map(|(sc, _)| sc);
    let uri = scheme.is_some_and(|sc| {
        (2..=32).contains(&sc.len())
            && sc.starts_with(|c: char| c.is_ascii_alphabetic())
            && sc.bytes().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'.' | b'-'))
    });
    let email =
        !uri && inner.split_once('@').is_some_and(|(u, h)| !u.is_empty() && h.contains('.'));
    (uri || email).then_some((end + 1, inner))
}

/// An inline HTML tag, comment or declaration at the start of `s`: its length.
fn inline_html(s: &str) -> Option<usize> {
    let rest = &s[1..];
    if rest.starts_with("!--") {
        return s.find("-->").map(|e| e + 3);
    }
    let first = rest.chars().next()?;
    if !(first.is_ascii_alphabetic() || matches!(first, '/' | '!' | '?')) {
        return None;
    }
    let end = s.find('>')?;
    let body = &s[1..end];
    let name_ok =
        body.trim_start_matches(['/', '!', '?']).starts_with(|c: char| c.is_ascii_alphabetic());
    (name_ok && !body.contains('<')).then_some(end + 1)
}

/// A character reference at the start of `s`: its text and length. Numeric ones, and the
/// named ones agents write; any other name stays as written.
fn entity(s: &str) -> Option<(String, usize)> {
    let end = s.bytes().take(40).position(|b| b == b';')?;
    let name = &s[1..end];
    let ch = if let Some(num) = name.strip_prefix('#') {
        let (digits, radix) = match num.strip_prefix(['x', 'X']) {
            Some(h) => (h, 16),
            None => (num, 10),
        };
        if digits.is_empty() || digits.len() > if radix == 16 { 6 } else { 7 } {
            return None;
        }
        let n = u32::from_str_radix(digits, radix).ok()?;
        if n == 0 {
            '\u{FFFD}'
        } else {
            char::from_u32(n).unwrap_or('\u{FFFD}')
        }
    } else {
        let i = NAMES.iter().position(|&n| n == name)?;
        CHARS.chars().nth(i)?
    };
    Some((ch.to_string(), end + 1))
}

const NAMES: [&str; 24] = [
    "amp", "lt", "gt", "quot", "apos", "nbsp", "copy", "reg", "trade", "hellip", "mdash", "ndash",
    "lsquo", "rsquo", "ldquo", "rdquo", "laquo", "raquo", "times", "divide", "deg", "larr", "rarr",
    "middot",
];
const CHARS: &str = "&<>\"'\u{A0}©®™…—–‘’“”«»×÷°←→·";

/// Matches emphasis delimiters as CommonMark's "process emphasis" does (the rule of 3
/// included): each closer with the nearest opener of its character before it.
fn emphasis(nodes: &mut Vec<Node>) {
    // Per character, closer parity and whether it opens too: below this index no opener
    // matched such a closer (so the search stays linear on hostile runs of delimiters).
    let mut bottom = [[[0usize; 2]; 3]; 3];
    let slot = |ch: u8| match ch {
        b'*' => 0,
        b'_' => 1,
        _ => 2,
    };
    let mut i = 0;
    while i < nodes.len() {
        let Node::Delim { ch, n: cn, open: co, close: true } = nodes[i] else {
            i += 1;
            continue;
        };
        let key = (slot(ch), cn % 3, usize::from(co));
        let floor = bottom[key.0][key.1][key.2];
        let mut found = None;
        for j in (floor..i).rev() {
            if let Node::Delim { ch: oc, n, open: true, close: oclose } = nodes[j] {
                let three = (oclose || co) && (n + cn) % 3 == 0 && !(n % 3 == 0 && cn % 3 == 0);
                if oc == ch && n > 0 && !three && (ch != b'~' || n == cn) {
                    found = Some((j, n));
                    break;
                }
            }
        }
        let Some((j, on)) = found else {
            bottom[key.0][key.1][key.2] = i;
            if !co {
                // Neither a closer nor an opener any more: plain text.
                nodes[i] = Node::Ev(Ev::Text((ch as char).to_string().repeat(cn)));
            }
            i += 1;
            continue;
        };
        let used = if ch == b'~' {
            cn
        } else if on >= 2 && cn >= 2 {
            2
        } else {
            1
        };
        let tag = match (ch, used) {
            (b'~', _) => Tag::Strike,
            (_, 2) => Tag::Strong,
            _ => Tag::Emphasis,
        };
        let inner: Vec<Node> = nodes.drain(j + 1..i).collect();
        for b in bottom.iter_mut().flatten().flatten() {
            *b = (*b).min(j + 1);
        }
        nodes.insert(j + 1, Node::Elem(tag, inner));
        // Opener at j, element at j + 1, closer at j + 2.
        let mut closer = j + 2;
        if let Node::Delim { n, .. } = &mut nodes[closer] {
            *n -= used;
        }
        if let Node::Delim { n, .. } = &mut nodes[j] {
            *n -= used;
            if *n == 0 {
                nodes.remove(j);
                closer -= 1;
            }
        }
        let spent = matches!(nodes[closer], Node::Delim { n: 0, .. });
        if spent {
            nodes.remove(closer);
        }
        i = closer;
    }
}

/// The nodes as events; delimiters left unmatched are their characters. Iterative: emphasis
/// nests as deep as a hostile message makes it.
fn flatten(nodes: Vec<Node>, out: &mut Vec<Ev>) {
    let mut stack = vec![nodes.into_iter()];
    while let Some(top) = stack.last_mut() {
        match top.next() {
            None => {
                stack.pop();
                if !stack.is_empty() {
                    out.push(Ev::End);
                }
            }
            Some(Node::Ev(Ev::Text(t))) => text(t, out),
            Some(Node::Ev(Ev::Html(h))) => match out.last_mut() {
                Some(Ev::Html(prev)) => prev.push_str(&h),
                _ => out.push(Ev::Html(h)),
            },
            Some(Node::Ev(e)) => out.push(e),
            Some(Node::Delim { ch, n, .. }) => text((ch as char).to_string().repeat(n), out),
            Some(Node::Elem(tag, inner)) => {
                out.push(Ev::Start(tag));
                stack.push(inner.into_iter());
            }
        }
    }
}

/// Appends text, joined to the text before it.
fn text(t: String, out: &mut Vec<Ev>) {
    if t.is_empty() {
        return;
    }
    if let Some(Ev::Text(prev)) = out.last_mut() {
        prev.push_str(&t);
    } else {
        out.push(Ev::Text(t));
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag as PTag, TagEnd};

    /// pulldown-cmark's events for `md` in this parser's terms (adjacent text joined, the
    /// header row a row, a code block's lines one text).
    fn reference(md: &str) -> Vec<Ev> {
        let opts =
            Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
        let mut out = Vec::new();
        for e in Parser::new_ext(md, opts) {
            let ev = match e {
                Event::Start(PTag::HtmlBlock) | Event::End(TagEnd::HtmlBlock) => continue,
                Event::Start(t) => Ev::Start(match t {
                    PTag::Paragraph => Tag::Paragraph,
                    PTag::Heading { level, .. } => Tag::Heading(match level {
                        HeadingLevel::H1 => 1,
                        HeadingLevel::H2 => 2,
                        HeadingLevel::H3 => 3,
                        HeadingLevel::H4 => 4,
                        HeadingLevel::H5 => 5,
                        HeadingLevel::H6 => 6,
                    }),
                    PTag::BlockQuote(_) => Tag::Quote,
                    PTag::CodeBlock(_) => Tag::CodeBlock,
                    PTag::List(start) => Tag::List(start),
                    PTag::Item => Tag::Item,
                    PTag::Emphasis => Tag::Emphasis,
                    PTag::Strong => Tag::Strong,
                    PTag::Strikethrough => Tag::Strike,
                    PTag::Link { dest_url, .. } => Tag::Link(dest_url.to_string()),
                    PTag::Image { .. } => Tag::Image,
                    PTag::Table(_) => Tag::Table,
                    PTag::TableHead | PTag::TableRow => Tag::Row,
                    PTag::TableCell => Tag::Cell,
                    other => panic!("not in the subset: {other:?}"),
                }),
                Event::End(_) => Ev::End,
                Event::Text(t) => {
                    text(t.to_string(), &mut out);
                    continue;
                }
                Event::Code(t) => Ev::Code(t.to_string()),
                Event::Html(t) | Event::InlineHtml(t) => {
                    if let Some(Ev::Html(prev)) = out.last_mut() {
                        prev.push_str(&t);
                        continue;
                    }
                    Ev::Html(t.to_string())
                }
                Event::SoftBreak => Ev::SoftBreak,
                Event::HardBreak => Ev::HardBreak,
                Event::Rule => Ev::Rule,
                Event::TaskListMarker(done) => Ev::Task(done),
                other => panic!("not in the subset: {other:?}"),
            };
            out.push(ev);
        }
        out
    }

    /// Markdown as agents write it: each piece parses as pulldown-cmark parses it.
    const SAME: &[&str] = &[
        "plain text",
        "two\nlines",
        "hard  \nbreak and\\\nanother",
        "# Plan\n\nSome *emphasis*, **strong**, ***both***, ~~gone~~ and `code`.",
        "## Heading ##\n### Third\n#### Fourth\n####### not a heading",
        "Title\n=====\n\nSub\n---\ntext",
        "```rust\nfn main() {\n    println!(\"hi\");\n}\n```\nafter",
        "~~~\nraw <b>html</b> & stuff\n~~~",
        "```\nunclosed fence\nstill code\n",
        "    indented code\n    more\n\ntext",
        "> quoted\n> lines\n\n> > nested\n> back",
        "> lazy\ncontinuation",
        "- one\n- two\n- three",
        "* star\n* list\n\n+ plus",
        "1. first\n2. second\n3. third",
        "3) three\n4) four",
        "- tight\n- list\n\n- now\n- loose",
        "- item\n  continued\n- next\n  - nested\n  - more\n- back",
        "1. step\n   ```\n   code in item\n   ```\n2. next",
        "- [ ] todo\n- [x] done\n- [X] done too",
        "| a | b |\n|---|:-:|\n| 1 | 2 |\n| 3 |\n\nafter",
        "a | b\n--|--\nc | d",
        "text\n\n---\n\n***\n___",
        "a [link](https://example.com) and ![alt text](img.png \"title\")",
        "[text with `code` and *em*](<url with spaces>)",
        "[not a link] and [also](",
        "<https://example.com/x> and <me@example.com> and <not a link>",
        "inline <span class=\"x\">html</span> here",
        "<div>\nblock html\n</div>\n\nafter",
        "<!-- comment --> text\n",
        "escapes: \\*not em\\* \\# \\[x\\] \\\\",
        "entities: &amp; &lt; &gt; &quot; &#65; &#x42; &copy; &nbsp;x &nosuch; & alone",
        "snake_case_name and __init__ and 2*3*4",
        "*a **b** c*",
        "**a *b* c**",
        "_under_ and __strong__ and _a_b_",
        "*unclosed and **also",
        "``code with ` inside`` and ` spaced `",
        "`unclosed code and *em*",
        "~single~ and ~~double~~",
        "1. one\n\n   para in item\n2. two",
        "- a\n\n\n- b",
        "Line with trailing spaces   ",
        "Some text\n# heading right after",
        "Some text\n- list right after",
        "Some text\n1. ordered after",
        "Some text\n2. not a list",
        "> quote\n- list",
        "* * *",
        "- \n- empty items",
        "**Bold:** value\n**Other:** value",
        "Path: /usr/local/bin and C:\\Windows\\path",
        "naïve café — “quotes” *émphasis*",
        "<b><b> text",
        "| x | y |\n|---|---|\n| 1 | 2 |\n- list after the table",
        "> quote\n- list after",
        "- item\n---\nafter",
        "Here is the fix:\n\n```diff\n- old line\n+ new line\n```\n\nThen run `cargo test`.",
        "**Summary**\n\n1. Read `src/main.rs`\n2. Found the bug in *parse*\n   - off by one\n   - fixed\n3. Ran tests: all pass",
    ];

    #[test]
    fn parses_markdown_as_pulldown_cmark_does() {
        let wrong: Vec<String> = SAME
            .iter()
            .filter(|md| parse(md) != reference(md))
            .map(|md| format!("{md:?}\n  ours: {:?}\n  theirs: {:?}", parse(md), reference(md)))
            .collect();
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    #[test]
    fn the_common_character_references_expand() {
        for (i, name) in NAMES.iter().enumerate() {
            let md = format!("&{name};");
            assert_eq!(parse(&md), reference(&md), "{md}");
            assert_eq!(
                parse(&md),
                [
                    Ev::Start(Tag::Paragraph),
                    Ev::Text(CHARS.chars().nth(i).unwrap().to_string()),
                    Ev::End
                ]
            );
        }
    }

    #[test]
    fn hostile_input_stays_shallow_and_quick() {
        for md in [
            ">".repeat(10_000),
            "- ".repeat(10_000) + "x",
            "[".repeat(20_000),
            "*a ".repeat(10_000) + &" b*".repeat(10_000),
            "`` ` ".repeat(10_000),
            "_a ".repeat(20_000),
            "&".repeat(10_000) + "#",
        ] {
            let t = std::time::Instant::now();
            let evs = parse(&md);
            assert!(t.elapsed().as_secs_f64() < 2.0, "{}", &md[..20]);
            let (mut depth, mut max) = (0i64, 0);
            for e in &evs {
                match e {
                    Ev::Start(_) => depth += 1,
                    Ev::End => depth -= 1,
                    _ => {}
                }
                max = max.max(depth);
            }
            assert_eq!(depth, 0, "balanced");
            let text: usize = evs
                .iter()
                .map(|e| match e {
                    Ev::Text(t) | Ev::Code(t) => t.len(),
                    _ => 0,
                })
                .sum();
            assert!(text > 0, "the text is kept: {}", &md[..20]);
            let _ = max;
        }
    }
}
