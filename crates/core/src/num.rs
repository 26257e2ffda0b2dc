//! Decimal text to `f64`, as `str::parse::<f64>` reads it, without its table in the web bundle.
//!
//! The standard library's parser (Eisel-Lemire, then a slow path) carries a table of 651
//! 128-bit powers of five: 10,416 bytes in the wasm module's data section that gzip cannot
//! shrink (docs/performance.md, Bundle). In the wasm build [`parse_f64`] is [`exact`] instead:
//! the same grammar and the same correctly rounded result (round half to even), by the exact
//! fast path when the digits and the power of ten are both exact in an `f64`, else by exact
//! integer division. Natively it is the standard parser; the tests check [`exact`] against it.

/// `s` as `s.parse::<f64>().ok()` reads it: [`exact`] in the wasm build.
#[cfg(target_arch = "wasm32")]
pub fn parse_f64(s: &str) -> Option<f64> {
    exact(s)
}

/// `s` as `s.parse::<f64>().ok()` reads it: the standard parser natively.
#[cfg(not(target_arch = "wasm32"))]
pub fn parse_f64(s: &str) -> Option<f64> {
    s.parse().ok()
}

/// Digits kept; with a nonzero digit dropped past them, a `1` is appended (the value lies
/// strictly between the kept digits and the next: enough, as a halfway point between two
/// doubles has at most 767 significant digits).
const MAX_DIGITS: usize = 800;

/// The standard library's grammar (`[+-]`, then `inf`, `infinity`, `nan` in any case, or
/// digits with an optional point and exponent, at least one digit before the exponent) and
/// its correctly rounded value.
pub fn exact(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    let (neg, b) = match b.first() {
        Some(b'-') => (true, &b[1..]),
        Some(b'+') => (false, &b[1..]),
        _ => (false, b),
    };
    let v = if b.eq_ignore_ascii_case(b"inf") || b.eq_ignore_ascii_case(b"infinity") {
        f64::INFINITY
    } else if b.eq_ignore_ascii_case(b"nan") {
        f64::NAN
    } else {
        unsigned(b)?
    };
    Some(if neg { -v } else { v })
}

fn unsigned(b: &[u8]) -> Option<f64> {
    // Significant digits (no leading zeros) and the power of ten of the last one.
    let mut digits: Vec<u8> = Vec::new();
    let mut truncated = false;
    let mut exp10: i64 = 0;
    let mut seen = false;
    let mut i = 0;
    let mut point = false;
    while i < b.len() {
        match b[i] {
            c @ b'0'..=b'9' => {
                seen = true;
                if point {
                    exp10 -= 1;
                }
                if digits.len() < MAX_DIGITS {
                    // (A leading zero is no digit: only its place counts, after the point.)
                    if c != b'0' || !digits.is_empty() {
                        digits.push(c - b'0');
                    }
                } else {
                    truncated |= c != b'0';
                    exp10 += 1;
                }
            }
            b'.' if !point => point = true,
            _ => break,
        }
        i += 1;
    }
    if !seen {
        return None;
    }
    if i < b.len() {
        if b[i] | 0x20 != b'e' {
            return None;
        }
        i += 1;
        let neg = match b.get(i) {
            Some(b'-') => {
                i += 1;
                true
            }
            Some(b'+') => {
                i += 1;
                false
            }
            _ => false,
        };
        if i == b.len() {
            return None;
        }
        let mut e: i64 = 0;
        for &c in &b[i..] {
            if !c.is_ascii_digit() {
                return None;
            }
            e = (e * 10 + i64::from(c - b'0')).min(1 << 40);
        }
        exp10 += if neg { -e } else { e };
    }
    if truncated {
        digits.push(1);
        exp10 -= 1;
    }
    // Trailing zeros into the exponent.
    while digits.last() == Some(&0) {
        digits.pop();
        exp10 += 1;
    }
    if digits.is_empty() {
        return Some(0.0);
    }
    let n = digits.len() as i64;
    // The value lies in [10^(n + exp10 - 1), 10^(n + exp10)): at least 10^309 is infinite.
    if n + exp10 > 309 {
        return Some(f64::INFINITY);
    }
    if n + exp10 <= -324 {
        return Some(0.0);
    }
    // Exact fast path: at most 15 digits (below 2^53) and a power of ten exact in an f64.
    if n <= 15 && exp10.abs() <= 22 {
        let m = digits.iter().fold(0u64, |m, &d| m * 10 + u64::from(d)) as f64;
        let p = POW10[exp10.unsigned_abs() as usize];
        return Some(if exp10 < 0 { m / p } else { m * p });
    }
    // value = num / den exactly.
    let mut num = Big::from_digits(&digits);
    let mut den = Big(vec![1]);
    if exp10 >= 0 {
        num.mul_pow10(exp10 as u32);
    } else {
        den.mul_pow10((-exp10) as u32);
    }
    // Scale so that the quotient has 55 or 56 bits: value = q / 2^shift (plus a remainder).
    let shift = den.bits() as i64 + 55 - num.bits() as i64;
    if shift >= 0 {
        num.shl(shift as u32);
    } else {
        den.shl((-shift) as u32);
    }
    let (q, sticky) = num.div_small_quotient(&den);
    let len = 64 - i64::from(q.leading_zeros());
    // q's top bit is 2^e2 of the value; a double keeps 53 bits, fewer below 2^-1022.
    let e2 = len - 1 - shift;
    let precision = if e2 < -1022 { 53 - (-1022 - e2) } else { 53 };
    if precision < 0 {
        return Some(0.0);
    }
    let drop = (len - precision) as u32;
    let mut m = q >> drop;
    let rest = q & ((1u64 << drop) - 1);
    let half = 1u64 << (drop - 1);
    if rest > half || (rest == half && (sticky || m & 1 == 1)) {
        m += 1;
    }
    // value = m * 2^k, exact in an f64 (or beyond its range: infinity).
    let k = e2 - precision + 1;
    let m = m as f64;
    Some(if k < -1022 { m * pow2(k + 1022) * pow2(-1022) } else { m * pow2(k) })
}

const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// 2^k for k in -1022..=1023.
fn pow2(k: i64) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// A non-negative integer, little-endian 32-bit limbs, no high zero limbs (zero: empty).
struct Big(Vec<u32>);

impl Big {
    fn from_digits(digits: &[u8]) -> Big {
        let mut b = Big(Vec::new());
        for chunk in digits.chunks(9) {
            let v = chunk.iter().fold(0u32, |v, &d| v * 10 + u32::from(d));
            b.mul_add(10u32.pow(chunk.len() as u32), v);
        }
        b
    }

    fn mul_add(&mut self, mul: u32, add: u32) {
        let mut carry = u64::from(add);
        for limb in &mut self.0 {
            let t = u64::from(*limb) * u64::from(mul) + carry;
            *limb = t as u32;
            carry = t >> 32;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
    }

    fn mul_pow10(&mut self, mut e: u32) {
        while e > 0 {
            let step = e.min(9);
            self.mul_add(10u32.pow(step), 0);
            e -= step;
        }
    }

    fn bits(&self) -> u32 {
        self.0.last().map_or(0, |&top| 32 * self.0.len() as u32 - top.leading_zeros())
    }

    fn shl(&mut self, n: u32) {
        let (limbs, bits) = ((n / 32) as usize, n % 32);
        if bits > 0 {
            let mut carry = 0u32;
            for limb in &mut self.0 {
                let next = *limb >> (32 - bits);
                *limb = (*limb << bits) | carry;
                carry = next;
            }
            if carry > 0 {
                self.0.push(carry);
            }
        }
        self.0.splice(0..0, std::iter::repeat_n(0, limbs));
    }

    fn shr1(&mut self) {
        let mut carry = 0u32;
        for limb in self.0.iter_mut().rev() {
            let next = *limb & 1;
            *limb = (*limb >> 1) | (carry << 31);
            carry = next;
        }
        self.trim();
    }

    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    fn ge(&self, other: &Big) -> bool {
        if self.0.len() != other.0.len() {
            return self.0.len() > other.0.len();
        }
        for (a, b) in self.0.iter().rev().zip(other.0.iter().rev()) {
            if a != b {
                return a > b;
            }
        }
        true
    }

    fn sub(&mut self, other: &Big) {
        let mut borrow = 0i64;
        for (i, limb) in self.0.iter_mut().enumerate() {
            let t = i64::from(*limb) - i64::from(other.0.get(i).copied().unwrap_or(0)) - borrow;
            *limb = t as u32;
            borrow = i64::from(t < 0);
        }
        self.trim();
    }

    /// `self / den` when the quotient is below 2^56 (bit by bit), and whether a remainder is left.
    fn div_small_quotient(mut self, den: &Big) -> (u64, bool) {
        let mut d = Big(den.0.clone());
        d.shl(56);
        let mut q = 0u64;
        for bit in (0..=56).rev() {
            if self.ge(&d) {
                self.sub(&d);
                q |= 1 << bit;
            }
            d.shr1();
        }
        (q, !self.0.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn same(s: &str) {
        let want = s.parse::<f64>().ok();
        let got = exact(s);
        match (want, got) {
            (Some(w), Some(g)) if w.is_nan() => assert!(g.is_nan(), "{s}: {g}"),
            (w, g) => assert_eq!(w.map(f64::to_bits), g.map(f64::to_bits), "{s}: {w:?} {g:?}"),
        }
    }

    #[test]
    fn reads_what_the_standard_parser_reads() {
        for s in [
            "", "+", "-", ".", "e5", "1e", "1e+", "1.5e-", "1..5", "1.5.", "0x10", " 1", "1 ",
            "1_000", "inf", "-INF", "Infinity", "+infinity", "infinit", "nan", "NaN", "-nan",
            "0", "-0", "0.0", "-0.0e99999", "00012.500", "1.", ".5", "1.e5", ".5e-3", "1E5",
            "12345678901234567890", "9007199254740992", "9007199254740993",
            "9007199254740993.0000000000000000000001", "9007199254740995", "1e22", "1e23",
            "123456789012345e22", "2.2250738585072011e-308", "2.2250738585072014e-308",
            "4.9406564584124654e-324", "2.4703282292062327e-324", "2.4703282292062328e-324",
            "2.4703282292062327208828439643411068618252990130716238221279284125033775363510437593264991818081799618989828234772285886546332835517796989819938739800539093906315035659515570226392290858392449105184435931802849936536152500319370457678249219365623669863658480757001585769269903706311928279558551332927834338409351978015531246597263579574622766465272827220056374006485499977096599470454020828166226237857393450736339007967761930577506740176324673600968951340535537458516661134223766678604162159680461914467291840300530057530849048765391711386591646239524912623653881879636239373280423891018672348497668235089863388587925628302755995657524455507255189313690836254779186948667994968324049705821028513185451396213837722826145437693412532098591327667236328125e-324",
            "1.7976931348623157e308", "1.7976931348623158e308", "1.7976931348623159e308",
            "1e309", "1e-400", "1e99999999999999999999999", "0.000000000000000000000000001e27",
            "0.1", "0.2", "0.3", "1767225600.123", "1746952042767", "3.14159265358979323846",
        ] {
            same(s);
        }
        // More digits than are kept: the digit that decides lies far past them.
        // (2^53 + 1 is halfway between two doubles: a far nonzero digit rounds it up.)
        same(&format!("9007199254740993.{}1", "0".repeat(900)));
        same(&format!("9007199254740993.{}", "0".repeat(900)));
        same(&format!("9007199254740993{}1e-901", "0".repeat(900)));
        same(&format!("0.{}1e400", "0".repeat(1000)));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        #[test]
        fn digits_and_exponents(digits in "[0-9]{1,40}", frac in "[0-9]{0,30}", exp in -360i32..360) {
            same(&format!("{digits}.{frac}e{exp}"));
            same(&format!("{digits}{frac}"));
        }

        #[test]
        fn every_double_back_and_near_it(bits in any::<u64>(), cut in 1usize..25, bump in 0u8..10) {
            let x = f64::from_bits(bits);
            prop_assume!(x.is_finite());
            let shortest = format!("{x:e}");
            same(&shortest);
            let long = format!("{x:.40e}");
            same(&long);
            // A digit string cut short and its last digit changed: near a halfway point.
            let (m, e) = long.split_once('e').unwrap();
            let keep = &m[..m.len().min(cut + 2)];
            let mut near: Vec<u8> = keep.bytes().collect();
            if let Some(last) = near.last_mut().filter(|c| c.is_ascii_digit()) {
                *last = b'0' + bump;
            }
            same(&format!("{}e{e}", String::from_utf8(near).unwrap()));
        }

        #[test]
        fn integers_above_two_to_the_53(n in (1u64 << 53)..u64::MAX) {
            same(&n.to_string());
            same(&format!("{n}.5"));
        }
    }
}
