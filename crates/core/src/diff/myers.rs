//! Myers' O(ND) difference algorithm in linear space (E. Myers, "An O(ND) Difference Algorithm
//! and Its Variations", 1986): the middle snake of the forward and backward searches splits the
//! problem in two, each half solved the same way. The web build aligns runs with it (`super`):
//! about 2 KB of wasm where `similar`'s Myers, with its heuristics and hooks, was 24 KB of code
//! (`docs/performance.md`, Bundle). Native builds keep `similar`.

/// The matched index pairs `(i, j)` (`a[i] == b[j]`) of a longest common subsequence of `a` and
/// `b`, in order: every step not matched is an insertion or a deletion, so the edit script is
/// a shortest one. The work grows with the length times the differences (the caller bounds the
/// length, `super::align_keys`); the memory with the length.
pub fn matches(a: &[u32], b: &[u32]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut v = Vec::new();
    conquer(a, b, 0, 0, &mut v, &mut out);
    out
}

fn conquer(
    a: &[u32],
    b: &[u32],
    ao: usize,
    bo: usize,
    v: &mut Vec<isize>,
    out: &mut Vec<(usize, usize)>,
) {
    let pre = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    out.extend((0..pre).map(|k| (ao + k, bo + k)));
    let (a, b, ao, bo) = (&a[pre..], &b[pre..], ao + pre, bo + pre);
    let suf = a.iter().rev().zip(b.iter().rev()).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[..a.len() - suf], &b[..b.len() - suf]);
    if !a.is_empty() && !b.is_empty() {
        let (x, y) = middle(a, b, v);
        // A split at a corner would not shrink the problem (it cannot happen: both ends
        // differ here, so the edit distance is at least 2 and the split interior).
        if (x, y) != (0, 0) && (x, y) != (a.len(), b.len()) {
            conquer(&a[..x], &b[..y], ao, bo, v, out);
            conquer(&a[x..], &b[y..], ao + x, bo + y, v, out);
        }
    }
    out.extend((0..suf).map(|k| (ao + a.len() + k, bo + b.len() + k)));
}

/// Where a shortest edit script of `a` into `b` can be cut in two (both non-empty, their first
/// and last elements differ): the start of the middle snake, as in `similar`'s Myers.
fn middle(a: &[u32], b: &[u32], v: &mut Vec<isize>) -> (usize, usize) {
    let (n, m) = (a.len() as isize, b.len() as isize);
    let delta = n - m;
    let odd = delta & 1 != 0;
    let d_max = (n + m + 1) / 2 + 1;
    // Forward furthest x on diagonal k at `off + k`, backward at `2 * off + 1 + off + k`.
    let off = d_max + 1;
    let width = 2 * off + 1;
    v.clear();
    v.resize(2 * width as usize, 0);
    let (f, bk) = v.split_at_mut(width as usize);
    let at = |k: isize| (off + k) as usize;
    for d in 0..d_max {
        let mut k = d;
        while k >= -d {
            let mut x = if k == -d || (k != d && f[at(k - 1)] < f[at(k + 1)]) {
                f[at(k + 1)]
            } else {
                f[at(k - 1)] + 1
            };
            let (x0, y0) = (x, x - k);
            let mut y = y0;
            while x >= 0 && y >= 0 && x < n && y < m && a[x as usize] == b[y as usize] {
                x += 1;
                y += 1;
            }
            f[at(k)] = x;
            if odd && (k - delta).abs() < d && x + bk[at(delta - k)] >= n {
                return clamp(x0, y0, a, b);
            }
            k -= 2;
        }
        let mut k = d;
        while k >= -d {
            let mut x = if k == -d || (k != d && bk[at(k - 1)] < bk[at(k + 1)]) {
                bk[at(k + 1)]
            } else {
                bk[at(k - 1)] + 1
            };
            let mut y = x - k;
            while x >= 0
                && y >= 0
                && x < n
                && y < m
                && a[(n - x - 1) as usize] == b[(m - y - 1) as usize]
            {
                x += 1;
                y += 1;
            }
            bk[at(k)] = x;
            if !odd && (k - delta).abs() <= d && x + f[at(delta - k)] >= n {
                return clamp(n - x, m - y, a, b);
            }
            k -= 2;
        }
    }
    (0, 0)
}

fn clamp(x: isize, y: isize, a: &[u32], b: &[u32]) -> (usize, usize) {
    let c = |v: isize, len: usize| usize::try_from(v).unwrap_or(0).min(len);
    (c(x, a.len()), c(y, b.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_longest_common_subsequence_in_order() {
        assert_eq!(matches(&[1, 2, 3], &[1, 2, 3]), [(0, 0), (1, 1), (2, 2)]);
        assert_eq!(matches(&[], &[1]), []);
        assert_eq!(matches(&[1, 2, 3, 4, 5], &[9, 2, 8, 4, 7]), [(1, 1), (3, 3)]);
        assert_eq!(matches(&[1, 2, 3, 1, 2, 2, 1], &[3, 2, 1, 2, 1, 3]).len(), 4);
    }
}
