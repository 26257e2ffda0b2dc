//! The core's multi-needle searches, all on one kind of Aho-Corasick automaton: its DFA.
//!
//! `aho_corasick::AhoCorasick` picks one of three automata at run time (a DFA for up to 100
//! needles, else a contiguous NFA), so every kind's build and search loops are compiled into
//! the wasm bundle behind its `dyn` automaton. Every needle list of the core has at most 100
//! needles, so `AhoCorasick` already chose the DFA for each: building the DFA directly gives
//! the same automaton, the same matches and the same speed, and leaves the other kinds out of
//! the bundle (`docs/performance.md`, Bundle). A needle list built at run time (a final
//! answer's words, `attribution::triggers`) with more than 100 needles gets a DFA too where
//! `AhoCorasick` would have chosen an NFA: the same matches, more memory.

//!
//! The web build goes further: its automaton is [`small::Dfa`], a plain Aho-Corasick DFA of
//! its own (about 3 KB of wasm where the crate's builders and searchers were 23 KB), giving
//! the same matches as the crate for every search the core makes (tested against it below and
//! in `small`'s tests); `aho_corasick` then only lends its `Input`, `Match` and `MatchKind`.

#[cfg(not(target_arch = "wasm32"))]
use aho_corasick::automaton::{Automaton, FindIter, FindOverlappingIter};
#[cfg(not(target_arch = "wasm32"))]
use aho_corasick::dfa::{Builder, DFA};
#[cfg(not(target_arch = "wasm32"))]
use aho_corasick::BuildError;
use aho_corasick::{Input, Match, MatchKind};

#[cfg(any(test, target_arch = "wasm32"))]
pub mod small;

/// An Aho-Corasick DFA, searched without an anchored start (the searches of `AhoCorasick`'s
/// `is_match`, `find`, `find_iter` and `find_overlapping_iter`, which cannot fail on it).
#[cfg(not(target_arch = "wasm32"))]
#[derive(Clone, Debug)]
pub(crate) struct Ac(DFA);

/// The web build's automaton (see the module's note).
#[cfg(target_arch = "wasm32")]
#[derive(Clone, Debug)]
pub(crate) struct Ac(small::Dfa);

/// How an [`Ac`] is built: `AhoCorasickBuilder`'s options the core uses, with its defaults
/// (standard match semantics, ASCII case kept, a prefilter where one helps).
#[derive(Clone, Copy, Debug)]
pub(crate) struct AcOptions {
    pub match_kind: MatchKind,
    pub ascii_case_insensitive: bool,
    /// Native builds only: the web build's automaton has no prefilter.
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    pub prefilter: bool,
}

impl Default for AcOptions {
    fn default() -> AcOptions {
        AcOptions {
            match_kind: MatchKind::Standard,
            ascii_case_insensitive: false,
            prefilter: true,
        }
    }
}

impl AcOptions {
    /// The default options, ASCII case ignored.
    pub fn ascii_case_insensitive() -> AcOptions {
        AcOptions { ascii_case_insensitive: true, ..AcOptions::default() }
    }

    #[cfg(not(target_arch = "wasm32"))]
    pub fn build<P: AsRef<[u8]>>(self, needles: &[P]) -> Result<Ac, BuildError> {
        Builder::new()
            .match_kind(self.match_kind)
            .ascii_case_insensitive(self.ascii_case_insensitive)
            .prefilter(self.prefilter)
            .build(needles)
            .map(Ac)
    }

    /// The web build's: an empty needle is refused (the core has none).
    #[cfg(target_arch = "wasm32")]
    pub fn build<P: AsRef<[u8]>>(self, needles: &[P]) -> Result<Ac, small::EmptyNeedle> {
        small::Dfa::new(needles, self.match_kind, self.ascii_case_insensitive).map(Ac)
    }
}

#[cfg(target_arch = "wasm32")]
impl Ac {
    pub fn is_match<'h>(&self, hay: impl Into<Input<'h>>) -> bool {
        self.0.find(&hay.into()).is_some()
    }

    pub fn find<'h>(&self, input: impl Into<Input<'h>>) -> Option<Match> {
        self.0.find(&input.into())
    }

    pub fn find_iter<'a, 'h: 'a>(
        &'a self,
        hay: impl Into<Input<'h>>,
    ) -> impl Iterator<Item = Match> + 'a {
        self.0.find_iter(hay.into())
    }

    pub fn find_overlapping_iter<'a, 'h: 'a>(
        &'a self,
        hay: impl Into<Input<'h>>,
    ) -> impl Iterator<Item = Match> + 'a {
        self.0.overlapping(hay.into())
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl Ac {
    /// Whether any needle occurs in `hay` (the search stops at the first match it sees).
    pub fn is_match<'h>(&self, hay: impl Into<Input<'h>>) -> bool {
        self.find(hay.into().earliest(true)).is_some()
    }

    /// The first match in `input` by the automaton's match semantics.
    pub fn find<'h>(&self, input: impl Into<Input<'h>>) -> Option<Match> {
        // An unanchored search on an automaton built for unanchored searches cannot fail.
        self.0.try_find(&input.into()).ok().flatten()
    }

    /// The non-overlapping matches in `hay`, left to right.
    pub fn find_iter<'a, 'h>(&'a self, hay: impl Into<Input<'h>>) -> FindIter<'a, 'h, DFA> {
        self.0.try_find_iter(hay.into()).expect("an unanchored search cannot fail")
    }

    /// Every match in `hay`, overlapping ones too (standard match semantics only).
    pub fn find_overlapping_iter<'a, 'h>(
        &'a self,
        hay: impl Into<Input<'h>>,
    ) -> FindOverlappingIter<'a, 'h, DFA> {
        self.0
            .try_find_overlapping_iter(hay.into())
            .expect("an unanchored overlapping search with standard semantics cannot fail")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same matches as `AhoCorasick` on the same needles and options, for each search.
    #[test]
    fn same_matches_as_aho_corasick() {
        let needles = ["error", "err", "fail", "Failed", "a", "rror:"];
        let hays = ["", "no", "ERROR: it failed", "an error; err; Failed err", "aaa rror:"];
        for kind in [MatchKind::Standard, MatchKind::LeftmostFirst, MatchKind::LeftmostLongest] {
            for ci in [false, true] {
                for prefilter in [false, true] {
                    let opts =
                        AcOptions { match_kind: kind, ascii_case_insensitive: ci, prefilter };
                    let ours = opts.build(&needles).unwrap();
                    let theirs = aho_corasick::AhoCorasick::builder()
                        .match_kind(kind)
                        .ascii_case_insensitive(ci)
                        .prefilter(prefilter)
                        .build(needles)
                        .unwrap();
                    for hay in hays {
                        assert_eq!(ours.is_match(hay), theirs.is_match(hay), "{hay:?}");
                        assert_eq!(ours.find(hay), theirs.find(hay), "{hay:?}");
                        for at in 0..hay.len() {
                            let input = || Input::new(hay).range(at..);
                            assert_eq!(ours.find(input()), theirs.find(input()), "{hay:?} {at}");
                        }
                        let a: Vec<Match> = ours.find_iter(hay).collect();
                        let b: Vec<Match> = theirs.find_iter(hay).collect();
                        assert_eq!(a, b, "{hay:?}");
                        if kind == MatchKind::Standard {
                            let a: Vec<Match> = ours.find_overlapping_iter(hay).collect();
                            let b: Vec<Match> = theirs.find_overlapping_iter(hay).collect();
                            assert_eq!(a, b, "{hay:?}");
                        }
                    }
                }
            }
        }
    }
}
