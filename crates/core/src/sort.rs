//! Stable sorting with one copy of the sort in the web bundle.
//!
//! Every `slice::sort_by` call compiles its own copy of the standard library's stable sort
//! (about 4 KB of wasm each, twenty-odd copies: docs/performance.md, Bundle). In the wasm build
//! these functions sort a list of indices with one sort behind a `dyn` comparison and then move
//! the elements into that order; natively they are the standard sort. Both give the order a
//! stable sort gives: equal elements keep their order ([`by_indices`] is tested against
//! `sort_by`).

use std::cmp::Ordering;

/// Sorts `v` stably by `cmp`, as `v.sort_by(cmp)` does.
pub fn sort_by<T>(v: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    #[cfg(target_arch = "wasm32")]
    by_indices(v, &mut cmp);
    #[cfg(not(target_arch = "wasm32"))]
    v.sort_by(&mut cmp);
}

/// Sorts `v` stably by `key`, as `v.sort_by_key(key)` does.
pub fn sort_by_key<T, K: Ord>(v: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)));
}

/// Sorts `v` stably, as `v.sort()` does.
pub fn sort<T: Ord>(v: &mut [T]) {
    sort_by(v, T::cmp);
}

/// The wasm build's stable sort: the indices of `v` sorted stably by `cmp` of their elements
/// (one sort for every element type), then the elements moved along the permutation's cycles.
pub fn by_indices<T>(v: &mut [T], cmp: &mut dyn FnMut(&T, &T) -> Ordering) {
    let mut order: Vec<usize> = (0..v.len()).collect();
    sort_indices(&mut order, &mut |a, b| cmp(&v[a], &v[b]));
    // `order[k]` is the index of the element that goes to `k`. Follow each cycle once,
    // marking a placed position with its own index.
    for start in 0..order.len() {
        let mut at = start;
        loop {
            let from = order[at];
            order[at] = at;
            if from == start {
                break;
            }
            v.swap(at, from);
            at = from;
        }
    }
}

/// The indices `0..n` in the order a stable sort by `cmp` of what they index gives, the
/// elements themselves left where they are (for large ones, whose moves cost more than the
/// sort's comparisons).
pub fn order_by(n: usize, mut cmp: impl FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    sort_indices(&mut order, &mut cmp);
    order
}

fn sort_indices(order: &mut [usize], cmp: &mut dyn FnMut(usize, usize) -> Ordering) {
    order.sort_by(|&a, &b| cmp(a, b));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (no clock, no dependency).
    fn numbers(seed: u64, n: usize, range: u64) -> Vec<(u64, usize)> {
        let mut x = seed | 1;
        (0..n)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x % range, i)
            })
            .collect()
    }

    #[test]
    fn sorting_by_indices_gives_the_stable_sort() {
        for seed in 0..200u64 {
            let n = (seed as usize * 7) % 97;
            let range = 1 + seed % 9;
            let mut want = numbers(seed, n, range);
            let mut got = want.clone();
            // By the first field only: equal keys must keep their order (the second field).
            want.sort_by_key(|p| p.0);
            by_indices(&mut got, &mut |a, b| a.0.cmp(&b.0));
            assert_eq!(got, want, "seed {seed}");
            let mut desc = numbers(seed, n, range);
            let mut want = desc.clone();
            want.sort_by_key(|p| std::cmp::Reverse(p.0));
            by_indices(&mut desc, &mut |a, b| b.0.cmp(&a.0));
            assert_eq!(desc, want, "seed {seed}, descending");
        }
    }

    #[test]
    fn the_helpers_sort_like_the_standard_sort() {
        let mut v = vec!["b", "a", "c", "a"];
        sort(&mut v);
        assert_eq!(v, ["a", "a", "b", "c"]);
        let mut w = vec![(2, 'x'), (1, 'y'), (2, 'a'), (1, 'b')];
        sort_by_key(&mut w, |p| p.0);
        assert_eq!(w, [(1, 'y'), (1, 'b'), (2, 'x'), (2, 'a')]);
        let mut e: Vec<u8> = Vec::new();
        sort(&mut e);
        assert!(e.is_empty());
        let names = ["b", "a", "c", "a"];
        assert_eq!(order_by(names.len(), |i, j| names[i].cmp(names[j])), [1, 3, 0, 2]);
        assert!(order_by(0, |_, _| Ordering::Equal).is_empty());
    }
}
