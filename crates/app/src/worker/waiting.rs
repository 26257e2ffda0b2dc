//! A file's settled trajectories whose predecessors have not settled yet, by position
//! ([`super::store`]'s `Reading`). A list kept sorted by position, not a `BTreeMap`: the same
//! answers (iteration in position order included) without a copy of the ordered map's node
//! code for `Trajectory` in the bundle (about 4.7 KB of wasm; `docs/performance.md`, Bundle).
//! Positions settle mostly in order and leave from the front (each removal is of the next
//! position), so inserts go to the back and removals come off the front, each after a binary
//! search: no scan of a list that can hold thousands.

use std::collections::VecDeque;

/// Values by position, in position order.
pub struct Waiting<T> {
    items: VecDeque<(usize, T)>,
}

impl<T> Default for Waiting<T> {
    fn default() -> Self {
        Waiting { items: VecDeque::new() }
    }
}

impl<T> Waiting<T> {
    fn find(&self, position: usize) -> Result<usize, usize> {
        self.items.binary_search_by(|(p, _)| p.cmp(&position))
    }

    /// Sets the value at `position`, replacing any.
    pub fn insert(&mut self, position: usize, value: T) {
        match self.find(position) {
            Ok(i) => self.items[i].1 = value,
            Err(i) => self.items.insert(i, (position, value)),
        }
    }

    pub fn contains_key(&self, position: &usize) -> bool {
        self.find(*position).is_ok()
    }

    pub fn remove(&mut self, position: &usize) -> Option<T> {
        let i = self.find(*position).ok()?;
        self.items.remove(i).map(|(_, v)| v)
    }
}

impl<T> Extend<(usize, T)> for Waiting<T> {
    fn extend<I: IntoIterator<Item = (usize, T)>>(&mut self, iter: I) {
        for (position, value) in iter {
            self.insert(position, value);
        }
    }
}

impl<T> IntoIterator for Waiting<T> {
    type Item = (usize, T);
    type IntoIter = std::collections::vec_deque::IntoIter<(usize, T)>;

    /// The values in position order.
    fn into_iter(self) -> Self::IntoIter {
        self.items.into_iter()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    /// The store's use: positions extended in any order (a few repeated), the next one taken
    /// off while there, the rest drained in order; the same answers as a `BTreeMap`.
    #[test]
    fn answers_as_an_ordered_map_would() {
        let mut state = 0x2545_f491_u32;
        let mut next = move |n: u32| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state % n
        };
        for round in 0..200 {
            let (mut w, mut m) = (Waiting::default(), BTreeMap::new());
            let mut taken = 0;
            for step in 0..30 {
                let batch: Vec<(usize, u32)> = (0..next(8))
                    .map(|_| ((taken + next(12) as usize).saturating_sub(1), step * 100 + round))
                    .collect();
                w.extend(batch.iter().copied());
                m.extend(batch.iter().copied());
                assert_eq!(w.contains_key(&0), m.contains_key(&0));
                assert_eq!(w.contains_key(&taken), m.contains_key(&taken));
                if next(5) == 0 {
                    assert_eq!(w.remove(&0), m.remove(&0));
                }
                while let Some(v) = m.remove(&taken) {
                    assert_eq!(w.remove(&taken), Some(v));
                    taken += 1;
                }
                assert_eq!(w.remove(&taken), None);
                assert_eq!(w.remove(&(taken + 1000)), None);
            }
            assert_eq!(w.into_iter().collect::<Vec<_>>(), m.into_iter().collect::<Vec<_>>());
        }
    }

    #[test]
    fn thousands_in_order_leave_from_the_front() {
        let mut w = Waiting::default();
        w.extend((1..5000).rev().map(|p| (p, p * 2)));
        assert!(!w.contains_key(&0));
        w.insert(0, 0);
        for p in 0..5000 {
            assert_eq!(w.remove(&p), Some(p * 2));
        }
        assert_eq!(w.into_iter().count(), 0);
    }
}
