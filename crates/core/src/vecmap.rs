//! Small ordered maps as vectors sorted by key, for the few places that want a `BTreeMap`'s
//! order over a handful of keys (annotators, votes, answers): the same answers, iteration in key
//! order included, without a copy of the ordered map's node code per key and value type in the
//! web bundle (2 to 5 KB of wasm each; `docs/performance.md`, Bundle). A lookup is a binary
//! search; an insert of a new key shifts the keys after it (or before it: the vector is a
//! `VecDeque`, so keys added at either end and removed from either end move nothing, as the
//! worker's trajectories waiting by position are), and a map built from many keys in no order
//! is built with [`VecMap::grouped`] (one stable sort) instead.

use std::borrow::Borrow;
use std::collections::VecDeque;

/// A map kept as a vector sorted by key.
#[derive(Debug, Clone, PartialEq)]
pub struct VecMap<K, V> {
    items: VecDeque<(K, V)>,
}

impl<K, V> Default for VecMap<K, V> {
    fn default() -> Self {
        VecMap { items: VecDeque::new() }
    }
}

impl<K: Ord, V> VecMap<K, V> {
    pub fn new() -> Self {
        Self::default()
    }

    fn find<Q: Ord + ?Sized>(&self, key: &Q) -> Result<usize, usize>
    where
        K: Borrow<Q>,
    {
        self.items.binary_search_by(|(k, _)| k.borrow().cmp(key))
    }

    pub fn get<Q: Ord + ?Sized>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
    {
        self.find(key).ok().map(|i| &self.items[i].1)
    }

    pub fn contains_key<Q: Ord + ?Sized>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        self.find(key).is_ok()
    }

    /// Takes the value of `key` out.
    pub fn remove<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
    {
        let i = self.find(key).ok()?;
        self.items.remove(i).map(|(_, v)| v)
    }

    /// Sets the value of `key`, replacing any (the key first inserted is kept, as
    /// `BTreeMap::insert` keeps it).
    pub fn insert(&mut self, key: K, value: V) {
        match self.find(&key) {
            Ok(i) => self.items[i].1 = value,
            Err(i) => self.items.insert(i, (key, value)),
        }
    }

    /// The value of `key`, its default first if it has none (`entry(key).or_default()`).
    pub fn or_default(&mut self, key: K) -> &mut V
    where
        V: Default,
    {
        let i = match self.find(&key) {
            Ok(i) => i,
            Err(i) => {
                self.items.insert(i, (key, V::default()));
                i
            }
        };
        &mut self.items[i].1
    }

    /// The values of `pairs` by key, each key's in the order given: what inserting each pair
    /// with `or_default().push(v)` gives, with one stable sort instead of a shift per new key.
    pub fn grouped(mut pairs: Vec<(K, V)>) -> VecMap<K, Vec<V>> {
        crate::sort::sort_by(&mut pairs, |a, b| a.0.cmp(&b.0));
        let mut items: Vec<(K, Vec<V>)> = Vec::new();
        for (k, v) in pairs {
            match items.last_mut() {
                Some((last, values)) if *last == k => values.push(v),
                _ => items.push((k, vec![v])),
            }
        }
        VecMap { items: items.into() }
    }
}

impl<K: Ord, V> Extend<(K, V)> for VecMap<K, V> {
    fn extend<I: IntoIterator<Item = (K, V)>>(&mut self, iter: I) {
        for (k, v) in iter {
            self.insert(k, v);
        }
    }
}

impl<K, V> VecMap<K, V> {
    /// The same keys, each value through `f`.
    pub fn map_values<W>(self, mut f: impl FnMut(V) -> W) -> VecMap<K, W> {
        VecMap { items: self.items.into_iter().map(|(k, v)| (k, f(v))).collect() }
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The entries in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.items.iter().map(|(k, v)| (k, v))
    }

    pub fn keys(&self) -> impl Iterator<Item = &K> {
        self.items.iter().map(|(k, _)| k)
    }

    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.items.iter().map(|(_, v)| v)
    }
}

impl<K, V> IntoIterator for VecMap<K, V> {
    type Item = (K, V);
    type IntoIter = std::collections::vec_deque::IntoIter<(K, V)>;

    /// The entries in key order.
    fn into_iter(self) -> Self::IntoIter {
        self.items.into_iter()
    }
}

impl<'a, K, V> IntoIterator for &'a VecMap<K, V> {
    type Item = (&'a K, &'a V);
    type IntoIter = std::iter::Map<
        std::collections::vec_deque::Iter<'a, (K, V)>,
        fn(&'a (K, V)) -> (&'a K, &'a V),
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.items.iter().map(|(k, v)| (k, v))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn numbers(seed: u32, n: usize, range: u32) -> Vec<u32> {
        let mut s = seed;
        (0..n)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 17;
                s ^= s << 5;
                s % range
            })
            .collect()
    }

    #[test]
    fn answers_as_a_btreemap_would() {
        for seed in 1..100 {
            let keys = numbers(seed, 60, 25);
            let (mut v, mut b) = (VecMap::new(), BTreeMap::new());
            for (i, k) in keys.iter().enumerate() {
                match i % 3 {
                    0 => {
                        v.insert(k.to_string(), i);
                        b.insert(k.to_string(), i);
                    }
                    _ => {
                        *v.or_default(k.to_string()) += i;
                        *b.entry(k.to_string()).or_default() += i;
                    }
                }
                assert_eq!(v.get("7"), b.get("7"));
                assert_eq!(v.get(&k.to_string()), b.get(&k.to_string()));
            }
            assert_eq!((v.len(), v.is_empty()), (b.len(), b.is_empty()));
            assert!(v.keys().eq(b.keys()) && v.values().eq(b.values()) && v.iter().eq(b.iter()));
            assert!((&v).into_iter().eq(&b));
            assert!(v.into_iter().eq(b));
        }
        assert!(VecMap::<u8, u8>::new().is_empty());
    }

    #[test]
    fn grouped_is_or_default_push_in_order() {
        for seed in 1..100 {
            let keys = numbers(seed, 80, 12);
            let pairs: Vec<(u32, usize)> = keys.iter().copied().zip(0..).collect();
            let mut b: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
            for &(k, i) in &pairs {
                b.entry(k).or_default().push(i);
            }
            assert!(VecMap::grouped(pairs).into_iter().eq(b));
        }
        assert!(VecMap::<u8, u8>::grouped(Vec::new()).is_empty());
    }

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
            let (mut w, mut m) = (VecMap::new(), BTreeMap::new());
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
        let mut w = VecMap::new();
        w.extend((1..5000).rev().map(|p| (p, p * 2)));
        assert!(!w.contains_key(&0));
        w.insert(0, 0);
        for p in 0..5000 {
            assert_eq!(w.remove(&p), Some(p * 2));
        }
        assert_eq!(w.into_iter().count(), 0);
    }
}
