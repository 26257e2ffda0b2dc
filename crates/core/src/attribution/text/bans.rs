//! What a task forbids changing: "do not change the tests", "without modifying
//! `config/settings.py`", "you must not edit the migrations". Read from the task's own words, as
//! key words a written path must hold (see [`Ban::covers`]).

use std::ops::Range;

/// Words that open a prohibition (lower case, with the space that follows).
const NEGATORS: [&str; 8] =
    ["do not ", "don't ", "dont ", "must not ", "should not ", "never ", "without ", "not to "];

/// Verb stems of changing something (`change`, `changing`, `modify`, `modified`, ...).
const VERBS: [&str; 11] = [
    "chang", "modif", "edit", "touch", "alter", "delet", "remov", "rewrit", "overwrit", "updat",
    "mutat",
];

/// Words a prohibition's object may hold that name nothing in particular.
const STOP: [&str; 32] = [
    "the",
    "any",
    "all",
    "other",
    "existing",
    "original",
    "current",
    "file",
    "files",
    "code",
    "this",
    "that",
    "these",
    "those",
    "its",
    "your",
    "our",
    "their",
    "them",
    "anything",
    "else",
    "way",
    "rest",
    "behavior",
    "behaviour",
    "content",
    "contents",
    "logic",
    "line",
    "lines",
    "one",
    "with",
];

/// Words that end a prohibition's object.
const ENDS: [&str; 12] =
    ["and", "or", "but", "so", "unless", "because", "when", "while", "if", "then", "since", "as"];

/// File name extensions: too common to name what is forbidden.
const EXTENSIONS: [&str; 12] =
    ["py", "js", "ts", "rs", "txt", "json", "md", "yaml", "yml", "toml", "cfg", "ini"];

/// One prohibition of the task: the clause that states it and the key words of its object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ban {
    /// The clause, a byte range of the task's text (from the negation to the object's end).
    pub clause: Range<usize>,
    /// The object's key words, lower case and singular (`tests` → `test`).
    pub keys: Vec<String>,
}

impl Ban {
    /// Whether writing `path` does what the ban forbids: every key word is a word of the path
    /// (its segments split at `/`, `.`, `_`, `-`; singular, case ignored).
    pub fn covers(&self, path: &str) -> bool {
        let words: Vec<String> = path
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(|w| singular(&w.to_ascii_lowercase()))
            .collect();
        self.keys.iter().all(|k| words.contains(k))
    }
}

/// The prohibitions stated in the first 4,096 bytes of a task.
pub fn bans(task: &str) -> Vec<Ban> {
    let mut end = task.len().min(4096);
    while !task.is_char_boundary(end) {
        end -= 1;
    }
    let head = &task[..end];
    // ASCII lower case keeps every byte offset.
    let lower = head.to_ascii_lowercase();
    let mut out: Vec<Ban> = Vec::new();
    for neg in NEGATORS {
        for (at, _) in lower.match_indices(neg) {
            if at > 0 && lower.as_bytes()[at - 1].is_ascii_alphanumeric() {
                continue;
            }
            if let Some(ban) = ban_at(&lower, at, at + neg.len()) {
                if !out.iter().any(|b| b.keys == ban.keys) {
                    out.push(ban);
                }
            }
        }
    }
    out.sort_by_key(|b| b.clause.start);
    out
}

/// The prohibition whose negation starts at `at` and whose words start at `from`: a change verb
/// within its first two words, then the object up to a punctuation mark, a conjunction or six
/// words.
fn ban_at(lower: &str, at: usize, from: usize) -> Option<Ban> {
    let mut words = words_from(lower, from);
    let verb = words.by_ref().take(2).find(|(_, w)| VERBS.iter().any(|v| w.starts_with(v)))?;
    let mut keys: Vec<String> = Vec::new();
    let mut end = verb.0.end;
    for (range, word) in words.take(6) {
        let bare = word.trim_matches(|c: char| !c.is_ascii_alphanumeric() && c != '/' && c != '_');
        if ENDS.contains(&bare) {
            break;
        }
        end = range.end;
        for part in bare.split(|c: char| !c.is_ascii_alphanumeric()) {
            let part = singular(part);
            if part.len() >= 3
                && !STOP.contains(&part.as_str())
                && !EXTENSIONS.contains(&part.as_str())
                && !keys.contains(&part)
            {
                keys.push(part);
            }
        }
        if word.ends_with(['.', ',', ';', ':', '!', '?', ')']) {
            end = range.end - 1;
            break;
        }
    }
    (!keys.is_empty()).then_some(Ban { clause: at..end, keys })
}

/// The words of `text` from byte `from`, each with its byte range, split at whitespace, at most
/// up to the end of the line.
fn words_from(text: &str, from: usize) -> impl Iterator<Item = (Range<usize>, &str)> {
    let line_end = text[from..].find('\n').map_or(text.len(), |i| from + i);
    let line = &text[from..line_end];
    line.split(' ')
        .scan(from, |pos, w| {
            let start = *pos;
            *pos += w.len() + 1;
            Some((start..start + w.len(), w))
        })
        .filter(|(_, w)| !w.is_empty())
        .map(|(r, w)| (r, w.trim_matches(['`', '"', '\''])))
        .filter(|(_, w)| !w.is_empty())
}

/// A word in the singular, roughly: `tests` → `test`, `migrations` → `migration` (not `class`).
fn singular(word: &str) -> String {
    match word.strip_suffix('s') {
        Some(stem) if stem.len() >= 3 && !stem.ends_with('s') => stem.to_string(),
        _ => word.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(task: &str) -> Vec<Vec<String>> {
        bans(task).into_iter().map(|b| b.keys).collect()
    }

    #[test]
    fn prohibitions_and_their_objects() {
        let task = "Fix `round_price` so that 2.675 rounds to 2.68. Do not change the tests.";
        let b = bans(task);
        assert_eq!(b.len(), 1);
        assert_eq!(&task[b[0].clause.clone()], "Do not change the tests");
        assert_eq!(b[0].keys, ["test"]);
        assert_eq!(
            keys("Rename it without modifying `config/settings.py`, then run it."),
            [["config", "setting"]]
        );
        assert_eq!(
            keys("You must not edit the database migrations and must not push."),
            [["database", "migration"]]
        );
        // No change verb, or no object of its own: nothing forbidden.
        assert!(bans("Do not stop until the tests pass.").is_empty());
        assert!(bans("Never delete files.").is_empty());
        assert!(bans("Keep userId as an alias; the API must not break.").is_empty());
        assert!(bans("").is_empty());
    }

    #[test]
    fn a_path_is_covered_when_it_holds_every_key() {
        let b = &bans("Do not modify the tests")[0];
        assert!(b.covers("tests/test_price.py"));
        assert!(b.covers("src/Test.java"));
        assert!(!b.covers("src/price.py"));
        assert!(!b.covers("src/latest.py"), "a key is a whole word of the path");
        let b = &bans("without touching config/settings.py")[0];
        assert!(b.covers("./config/settings.py"));
        assert!(!b.covers("config/urls.py"));
    }

    #[test]
    fn never_panics_on_any_text() {
        for t in [
            "do not ",
            "don't change",
            "without chang\u{e9}",
            "never edit `",
            "do not edit é.",
            "not to alter\n\nx",
        ] {
            for b in bans(t) {
                assert!(t.get(b.clause.clone()).is_some(), "{t:?}: {b:?}");
            }
        }
        let long = "do not change the tests ".repeat(400) + "é";
        assert_eq!(bans(&long).len(), 1);
    }
}
