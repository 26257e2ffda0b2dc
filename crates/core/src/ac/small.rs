//! A plain Aho-Corasick DFA: a trie of the needles, its failure links, every transition
//! resolved (over classes of bytes: each byte of a needle its own class, every other byte one
//! class), and each state's matches (its own needle, then those of its failure state). The web
//! build's [`super::Ac`]; its searches give the `aho_corasick` crate's matches:
//!
//! - standard semantics: a match is reported where it ends, the earliest end first; the needle
//!   reported at one end is the state's first (the longest ending there, then shorter ones);
//! - leftmost-first and leftmost-longest: of the matches starting leftmost, the first needle
//!   given (the longest); found from the overlapping matches, read until no match can start
//!   before the best one;
//! - ASCII case ignored by folding the needles and each haystack byte.

use aho_corasick::{Input, Match, MatchKind};

/// An empty needle: the core has none, and this automaton does not take one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EmptyNeedle;

#[derive(Clone, Debug)]
pub struct Dfa {
    /// Byte (folded when case is ignored) to its class.
    class: [u8; 256],
    classes: usize,
    /// `next[state * classes + class]`.
    next: Vec<u32>,
    /// Each state's matches, as needle ids.
    matches: Vec<Vec<u32>>,
    lens: Vec<usize>,
    max_len: usize,
    kind: MatchKind,
    fold: bool,
}

const NONE: u32 = u32::MAX;

impl Dfa {
    pub fn new<P: AsRef<[u8]>>(
        needles: &[P],
        kind: MatchKind,
        fold: bool,
    ) -> Result<Dfa, EmptyNeedle> {
        let fold_byte = |b: u8| if fold { b.to_ascii_lowercase() } else { b };
        let mut class = [0u8; 256];
        let mut classes = 1usize;
        for n in needles {
            for &b in n.as_ref() {
                let b = fold_byte(b);
                if class[usize::from(b)] == 0 && classes < 256 {
                    class[usize::from(b)] = classes as u8;
                    classes += 1;
                }
            }
        }
        if fold {
            for b in b'A'..=b'Z' {
                class[usize::from(b)] = class[usize::from(b.to_ascii_lowercase())];
            }
        }
        let mut next = vec![NONE; classes];
        let mut matches: Vec<Vec<u32>> = vec![Vec::new()];
        let mut lens = Vec::with_capacity(needles.len());
        for (id, n) in needles.iter().enumerate() {
            let n = n.as_ref();
            if n.is_empty() {
                return Err(EmptyNeedle);
            }
            let mut s = 0usize;
            for &b in n {
                let slot = s * classes + usize::from(class[usize::from(fold_byte(b))]);
                s = match next[slot] {
                    NONE => {
                        let t = matches.len();
                        next[slot] = t as u32;
                        next.extend(std::iter::repeat_n(NONE, classes));
                        matches.push(Vec::new());
                        t
                    }
                    t => t as usize,
                };
            }
            matches[s].push(id as u32);
            lens.push(n.len());
        }
        // Failure links breadth first; a missing transition takes its failure state's.
        let mut fail = vec![0u32; matches.len()];
        let mut queue = std::collections::VecDeque::new();
        for t in next.iter_mut().take(classes) {
            match *t {
                NONE => *t = 0,
                child => queue.push_back(child),
            }
        }
        while let Some(s) = queue.pop_front() {
            let s = s as usize;
            for c in 0..classes {
                let slot = s * classes + c;
                let f = fail[s] as usize;
                match next[slot] {
                    NONE => next[slot] = next[f * classes + c],
                    t => {
                        let tf = next[f * classes + c];
                        fail[t as usize] = tf;
                        let inherited = matches[tf as usize].clone();
                        matches[t as usize].extend(inherited);
                        queue.push_back(t);
                    }
                }
            }
        }
        let max_len = lens.iter().copied().max().unwrap_or(0);
        Ok(Dfa { class, classes, next, matches, lens, max_len, kind, fold })
    }

    fn step(&self, s: usize, b: u8) -> usize {
        let b = if self.fold { b.to_ascii_lowercase() } else { b };
        self.next[s * self.classes + usize::from(self.class[usize::from(b)])] as usize
    }

    fn at(&self, id: u32, end: usize) -> Match {
        Match::must(id as usize, end - self.lens[id as usize]..end)
    }

    /// Every match in the input's span, by where it ends, in each state's order.
    pub fn overlapping<'a>(&'a self, input: Input<'a>) -> impl Iterator<Item = Match> + 'a {
        let mut s = 0usize;
        (input.start()..input.end()).flat_map(move |i| {
            s = self.step(s, input.haystack()[i]);
            self.matches[s].iter().map(move |&id| self.at(id, i + 1))
        })
    }

    /// How a leftmost search ranks two matches: leftmost start, then (leftmost-longest) the
    /// longer, then the needle given first.
    fn rank(&self, m: &Match) -> (usize, usize, usize) {
        let len = if self.kind == MatchKind::LeftmostLongest { m.len() } else { 0 };
        (m.start(), usize::MAX - len, m.pattern().as_usize())
    }

    /// The match `find` of the crate gives, in the input's span.
    pub fn find(&self, input: &Input<'_>) -> Option<Match> {
        let hay = input.haystack();
        let mut s = 0usize;
        let mut best: Option<Match> = None;
        for (i, &byte) in hay.iter().enumerate().take(input.end()).skip(input.start()) {
            // No match ending past here can start at or before the best one.
            if best.is_some_and(|b| i + 1 > b.start() + self.max_len) {
                break;
            }
            s = self.step(s, byte);
            for &id in &self.matches[s] {
                let m = self.at(id, i + 1);
                if self.kind == MatchKind::Standard {
                    return Some(m);
                }
                if best.is_none_or(|b| self.rank(&m) < self.rank(&b)) {
                    best = Some(m);
                }
            }
        }
        best
    }

    /// The non-overlapping matches, left to right: each search starts where the last match
    /// ended.
    pub fn find_iter<'a>(&'a self, input: Input<'a>) -> impl Iterator<Item = Match> + 'a {
        let mut at = input.start();
        std::iter::from_fn(move || {
            let m = self.find(&input.clone().span(at..input.end()))?;
            at = m.end();
            Some(m)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn needles() -> impl Strategy<Value = Vec<Vec<u8>>> {
        prop::collection::vec(
            prop::collection::vec(prop::sample::select(b"abAB-".to_vec()), 1..5),
            1..8,
        )
    }

    proptest! {
        /// Every search gives the crate's matches, for every kind, case kept or ignored, over
        /// every start of the haystack.
        #[test]
        fn the_same_matches_as_the_crate(
            needles in needles(),
            hay in prop::collection::vec(prop::sample::select(b"abAB-x".to_vec()), 0..40),
            fold in any::<bool>(),
        ) {
            for kind in [MatchKind::Standard, MatchKind::LeftmostFirst, MatchKind::LeftmostLongest] {
                let ours = Dfa::new(&needles, kind, fold).unwrap();
                let theirs = aho_corasick::AhoCorasick::builder()
                    .match_kind(kind)
                    .ascii_case_insensitive(fold)
                    .build(&needles)
                    .unwrap();
                for at in 0..=hay.len() {
                    let input = Input::new(&hay).span(at..hay.len());
                    prop_assert_eq!(ours.find(&input), theirs.find(input.clone()), "{:?}", kind);
                    let a: Vec<Match> = ours.find_iter(input.clone()).collect();
                    let b: Vec<Match> = theirs.find_iter(input.clone()).collect();
                    prop_assert_eq!(a, b, "{:?} at {}", kind, at);
                    if kind == MatchKind::Standard {
                        let a: Vec<Match> = ours.overlapping(input.clone()).collect();
                        let b: Vec<Match> = theirs.find_overlapping_iter(input.clone()).collect();
                        prop_assert_eq!(a, b);
                    }
                }
            }
        }
    }

    #[test]
    fn an_empty_needle_is_refused() {
        assert_eq!(Dfa::new(&["a", ""], MatchKind::Standard, false).err(), Some(EmptyNeedle));
    }
}
