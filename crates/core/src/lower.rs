//! Lowercase for comparing names and searching text, without the standard library's table.
//!
//! `char::to_lowercase` looks a character up in a table of 1,434 pairs of `u32`s: 11.7 KB in
//! the wasm module's data section, 4–5 KB after gzip (docs/performance.md, Bundle). The same
//! mapping is 184 runs of characters that share one offset to their lowercase and lie one or
//! two apart ([`RUNS`], 1.5 KB), plus the one character whose lowercase is two characters
//! (U+0130 → `i̇`). [`lower`] gives exactly what `char::to_lowercase` gives for every
//! character (a test checks all of them, and that [`RUNS`] is what the standard library's
//! table makes; when a new Unicode version changes it, the failing test prints the new table).
//!
//! [`lower_str`] lowers character by character: unlike `str::to_lowercase` it has no
//! final-sigma rule (`Σ` is always `σ`). Every caller compares two texts lowered the same way,
//! so that rule could only make a word end differ from the same word typed mid-text.

/// One run: bits 41.. the first character, 33..41 how many characters, 32 whether they lie two
/// apart (else one), 0..32 the offset from a character to its lowercase (`i32`).
const RUNS: [u64; 184] = include!("lower_runs.in");

/// The Unicode version [`RUNS`] was made from (`char::UNICODE_VERSION` of that standard library).
#[cfg(test)]
const RUNS_UNICODE: (u8, u8, u8) = (17, 0, 0);

/// The one character whose lowercase is two characters.
const DOTTED_CAPITAL_I: char = '\u{130}';

/// `c`'s lowercase, as `char::to_lowercase(c)` yields it.
pub fn lower(c: char) -> Lower {
    if c.is_ascii() {
        return Lower([c.to_ascii_lowercase(), '\0'], 1);
    }
    if c == DOTTED_CAPITAL_I {
        return Lower(['i', '\u{307}'], 2);
    }
    Lower([lower_one(c), '\0'], 1)
}

fn lower_one(c: char) -> char {
    let u = c as u32;
    let i = RUNS.partition_point(|r| (r >> 41) as u32 <= u);
    let Some(&r) = i.checked_sub(1).and_then(|i| RUNS.get(i)) else { return c };
    let (start, count, stride) =
        ((r >> 41) as u32, ((r >> 33) & 0xFF) as u32, 1 + ((r >> 32) & 1) as u32);
    let k = u - start;
    if k % stride != 0 || k / stride >= count {
        return c;
    }
    char::from_u32(u.wrapping_add_signed(r as u32 as i32)).unwrap_or(c)
}

/// The characters of one lowercase (one or two).
#[derive(Clone, Debug)]
pub struct Lower([char; 2], u8);

impl Iterator for Lower {
    type Item = char;

    fn next(&mut self) -> Option<char> {
        let [c, d] = self.0;
        let n = self.1.checked_sub(1)?;
        (self.0, self.1) = ([d, '\0'], n);
        Some(c)
    }
}

/// `s` lowered character by character ([`lower`]): `str::to_lowercase` without its
/// final-sigma rule.
pub fn lower_str(s: &str) -> String {
    if s.is_ascii() {
        return s.to_ascii_lowercase();
    }
    let mut out = String::with_capacity(s.len());
    out.extend(s.chars().flat_map(lower));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The runs the standard library's `char::to_lowercase` makes, as [`RUNS`] encodes them.
    fn runs_from_std() -> Vec<u64> {
        let mut runs: Vec<(u32, u32, u32, i64)> = Vec::new();
        for c in (0..=0x10FFFF).filter_map(char::from_u32).filter(|c| !c.is_ascii()) {
            let mut l = c.to_lowercase();
            let (Some(l), None) = (l.next(), l.next()) else { continue };
            if l == c {
                continue;
            }
            let (u, d) = (c as u32, l as i64 - c as i64);
            if let Some(r) = runs.last_mut() {
                let last = r.0 + (r.1 - 1) * r.2;
                let gap = u - last;
                let fits = if r.1 == 1 { gap <= 2 } else { gap == r.2 };
                if r.3 == d && fits && r.1 < 255 {
                    r.2 = gap;
                    r.1 += 1;
                    continue;
                }
            }
            runs.push((u, 1, 1, d));
        }
        runs.iter()
            .map(|&(s, n, st, d)| {
                (s as u64) << 41
                    | (n as u64) << 33
                    | ((st == 2) as u64) << 32
                    | d as i32 as u32 as u64
            })
            .collect()
    }

    /// Made from the same Unicode version, the table is the standard library's, character for
    /// character. A newer standard library may map characters Unicode added since (the case
    /// pairs of a version stay in every later one): then every run here must still hold, and
    /// the failing message says how to bring the table up to date.
    #[test]
    fn the_table_is_the_standard_librarys() {
        let want = runs_from_std();
        let regenerate = || {
            let text: Vec<String> = want.iter().map(|r| format!("{r:#018x},")).collect();
            format!(
                "replace lower_runs.in with [{}] ({} runs), and RUNS_UNICODE with {:?}",
                text.join(" "),
                want.len(),
                char::UNICODE_VERSION
            )
        };
        if char::UNICODE_VERSION == RUNS_UNICODE {
            assert!(want[..] == RUNS[..], "{}", regenerate());
        }
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            let ours: String = lower(c).collect();
            if ours != c.to_string() || char::UNICODE_VERSION == RUNS_UNICODE {
                assert!(
                    lower(c).eq(c.to_lowercase()),
                    "{:?} (U+{:04X}): {}",
                    c,
                    c as u32,
                    regenerate()
                );
            }
        }
    }

    #[test]
    fn texts_lower_as_the_standard_library_lowers_them_but_for_final_sigma() {
        for s in [
            "",
            "Agent",
            "WebSurfer",
            "ÉCOLE Straße",
            "İstanbul",
            "ΑΓΕΝΤ",
            "Ὀδυσσεύς",
            "ǅemal",
            "Ⅻ ⓐⒶ 𐐀",
        ] {
            assert_eq!(lower_str(s), s.to_lowercase(), "{s}");
        }
        assert_eq!(lower_str("ΟΔΟΣ"), "οδοσ");
        assert_eq!("ΟΔΟΣ".to_lowercase(), "οδος");
    }
}
