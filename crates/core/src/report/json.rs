//! Compact JSON into a byte buffer, byte for byte what `serde_json::to_vec` writes, faster on
//! the report's text.
//!
//! Why: on a file of many small trajectories the `analyze --json` report is larger than the input
//! (about a kilobyte per trajectory), and serde_json escapes strings (keys included) one byte at
//! a time. Here a string is first checked eight bytes at a time for the bytes JSON must escape
//! (`"`, `\` and controls) and copied whole when it has none. Numbers are formatted by
//! serde_json's own formatter, so they cannot differ. Equality with serde_json is tested on
//! every fixture's report and on random values (`tests/report_json.rs`).

mod overview;

pub use overview::{write_analysed, write_analysed_with, write_overview, OverviewHead};

use serde::ser::{self, Serialize};
use serde_json::ser::Formatter as _;

/// Serialises `value` as compact JSON onto the end of `out`.
pub fn write<T: Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) -> Result<(), Error> {
    value.serialize(&mut Writer { out })
}

/// Serialises `value` as compact JSON.
pub fn to_vec<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, Error> {
    let mut out = Vec::with_capacity(128);
    write(&mut out, value)?;
    Ok(out)
}

/// A value serde_json would refuse too (a map key that is not a string, a number or a unit
/// variant; a `Serialize` implementation's own error).
#[derive(Debug)]
pub struct Error(String);

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<M: std::fmt::Display>(msg: M) -> Self {
        Error(msg.to_string())
    }
}

fn key_error() -> Error {
    Error("key must be a string".into())
}

struct Writer<'o> {
    out: &'o mut Vec<u8>,
}

/// How serde_json escapes each byte: 0 not at all, `u` as `\u00XX`, else `\` and this byte.
static ESCAPE: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = b'u';
        i += 1;
    }
    t[0x08] = b'b';
    t[0x09] = b't';
    t[0x0a] = b'n';
    t[0x0c] = b'f';
    t[0x0d] = b'r';
    t[b'"' as usize] = b'"';
    t[b'\\' as usize] = b'\\';
    t
};

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// Whether the eight bytes of `x` hold one that needs an escape (a control character, `"` or
/// `\\`): the "has a byte less than n" and "has a zero byte" tricks, exact as yes/no answers.
#[inline(always)]
fn word_bad(x: u64) -> u64 {
    let q = x ^ (ONES * b'"' as u64);
    let b = x ^ (ONES * b'\\' as u64);
    ((x.wrapping_sub(ONES * 0x20) & !x) | (q.wrapping_sub(ONES) & !q) | (b.wrapping_sub(ONES) & !b))
        & HIGHS
}

#[inline(always)]
fn word_at(bytes: &[u8], i: usize) -> u64 {
    let w = &bytes[i..i + 8];
    u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]])
}

/// Whether no byte of `bytes` needs an escape, eight bytes at a time: a text shorter than eight
/// is padded with a harmless byte, a longer one ends with a word that overlaps the one before
/// (most of the report's strings are keys and short names: no byte-by-byte tail).
#[inline]
fn clean(bytes: &[u8]) -> bool {
    let n = bytes.len();
    if n < 8 {
        // Byte by byte: padding a word would copy the bytes first (a call to `memcpy`).
        return bytes.iter().all(|&b| ESCAPE[b as usize] == 0);
    }
    let mut bad = word_bad(word_at(bytes, n - 8));
    let mut i = 0;
    while i + 8 <= n {
        bad |= word_bad(word_at(bytes, i));
        i += 8;
    }
    bad == 0
}

/// `s` as a JSON string literal, escaped exactly as serde_json escapes it.
pub fn write_str(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    if clean(bytes) {
        out.extend_from_slice(bytes);
    } else {
        escape(out, bytes);
    }
    out.push(b'"');
}

/// The escaping proper: runs without escapes copied whole, each escaped byte as serde_json
/// writes it (`\\n`, `\\"`, `\\u001f`, ...).
#[cold]
fn escape(out: &mut Vec<u8>, bytes: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut start = 0;
    for (i, &byte) in bytes.iter().enumerate() {
        let e = ESCAPE[byte as usize];
        if e == 0 {
            continue;
        }
        out.extend_from_slice(&bytes[start..i]);
        start = i + 1;
        if e == b'u' {
            out.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[(byte >> 4) as usize],
                HEX[(byte & 0xf) as usize],
            ]);
        } else {
            out.extend_from_slice(&[b'\\', e]);
        }
    }
    out.extend_from_slice(&bytes[start..]);
}

macro_rules! numbers {
    ($($method:ident => $write:ident: $ty:ty,)*) => {
        $(fn $method(self, v: $ty) -> Result<(), Error> {
            // Writing into a Vec cannot fail.
            let _ = serde_json::ser::CompactFormatter.$write(self.out, v);
            Ok(())
        })*
    };
}

impl<'a, 'o> ser::Serializer for &'a mut Writer<'o> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'a, 'o>;
    type SerializeTuple = Compound<'a, 'o>;
    type SerializeTupleStruct = Compound<'a, 'o>;
    type SerializeTupleVariant = Compound<'a, 'o>;
    type SerializeMap = Compound<'a, 'o>;
    type SerializeStruct = Compound<'a, 'o>;
    type SerializeStructVariant = Compound<'a, 'o>;

    numbers! {
        serialize_i8 => write_i8: i8,
        serialize_i16 => write_i16: i16,
        serialize_i32 => write_i32: i32,
        serialize_i64 => write_i64: i64,
        serialize_i128 => write_i128: i128,
        serialize_u8 => write_u8: u8,
        serialize_u16 => write_u16: u16,
        serialize_u32 => write_u32: u32,
        serialize_u64 => write_u64: u64,
        serialize_u128 => write_u128: u128,
    }

    fn serialize_bool(self, v: bool) -> Result<(), Error> {
        self.out.extend_from_slice(if v { b"true" } else { b"false" });
        Ok(())
    }

    fn serialize_f32(self, v: f32) -> Result<(), Error> {
        if v.is_finite() {
            let _ = serde_json::ser::CompactFormatter.write_f32(self.out, v);
        } else {
            self.out.extend_from_slice(b"null");
        }
        Ok(())
    }

    fn serialize_f64(self, v: f64) -> Result<(), Error> {
        if v.is_finite() {
            let _ = serde_json::ser::CompactFormatter.write_f64(self.out, v);
        } else {
            self.out.extend_from_slice(b"null");
        }
        Ok(())
    }

    fn serialize_char(self, v: char) -> Result<(), Error> {
        write_str(self.out, v.encode_utf8(&mut [0; 4]));
        Ok(())
    }

    fn serialize_str(self, v: &str) -> Result<(), Error> {
        write_str(self.out, v);
        Ok(())
    }

    fn serialize_bytes(self, v: &[u8]) -> Result<(), Error> {
        use ser::SerializeSeq as _;
        let mut seq = self.serialize_seq(Some(v.len()))?;
        for b in v {
            seq.serialize_element(b)?;
        }
        seq.end()
    }

    fn serialize_none(self) -> Result<(), Error> {
        self.serialize_unit()
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<(), Error> {
        self.out.extend_from_slice(b"null");
        Ok(())
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Error> {
        self.serialize_unit()
    }

    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), Error> {
        self.serialize_str(variant)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.out.push(b'{');
        write_str(self.out, variant);
        self.out.push(b':');
        value.serialize(&mut *self)?;
        self.out.push(b'}');
        Ok(())
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<Compound<'a, 'o>, Error> {
        self.out.push(b'[');
        Ok(Compound { w: self, first: true, close: b"]" })
    }

    fn serialize_tuple(self, len: usize) -> Result<Compound<'a, 'o>, Error> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> Result<Compound<'a, 'o>, Error> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a, 'o>, Error> {
        self.out.push(b'{');
        write_str(self.out, variant);
        self.out.extend_from_slice(b":[");
        Ok(Compound { w: self, first: true, close: b"]}" })
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Compound<'a, 'o>, Error> {
        self.out.push(b'{');
        Ok(Compound { w: self, first: true, close: b"}" })
    }

    fn serialize_struct(self, _name: &'static str, len: usize) -> Result<Compound<'a, 'o>, Error> {
        self.serialize_map(Some(len))
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a, 'o>, Error> {
        self.out.push(b'{');
        write_str(self.out, variant);
        self.out.extend_from_slice(b":{");
        Ok(Compound { w: self, first: true, close: b"}}" })
    }
}

/// An array or object being written: a comma before every item but the first, and the closing
/// bracket(s) at the end.
pub struct Compound<'a, 'o> {
    w: &'a mut Writer<'o>,
    first: bool,
    close: &'static [u8],
}

impl Compound<'_, '_> {
    fn comma(&mut self) {
        if !std::mem::take(&mut self.first) {
            self.w.out.push(b',');
        }
    }

    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.comma();
        value.serialize(&mut *self.w)
    }

    fn field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Error> {
        self.comma();
        write_str(self.w.out, key);
        self.w.out.push(b':');
        value.serialize(&mut *self.w)
    }

    fn close(self) -> Result<(), Error> {
        self.w.out.extend_from_slice(self.close);
        Ok(())
    }
}

/// The sequence-like compounds (a sequence, a tuple, a tuple struct, a tuple variant): each
/// element after a comma, then the closing bracket.
macro_rules! seq_like {
    ($($trait:ident :: $method:ident),*) => {$(
        impl ser::$trait for Compound<'_, '_> {
            type Ok = ();
            type Error = Error;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
                self.element(value)
            }
            fn end(self) -> Result<(), Error> {
                self.close()
            }
        }
    )*};
}

seq_like!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl ser::SerializeMap for Compound<'_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.comma();
        key.serialize(KeyWriter { out: self.w.out })?;
        self.w.out.push(b':');
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        value.serialize(&mut *self.w)
    }
    fn end(self) -> Result<(), Error> {
        self.close()
    }
}

/// The struct-like compounds (a struct, a struct variant): each field as `"key":value` after a
/// comma, then the closing brace.
macro_rules! struct_like {
    ($($trait:ident),*) => {$(
        impl ser::$trait for Compound<'_, '_> {
            type Ok = ();
            type Error = Error;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result<(), Error> {
                self.field(key, value)
            }
            fn end(self) -> Result<(), Error> {
                self.close()
            }
        }
    )*};
}

struct_like!(SerializeStruct, SerializeStructVariant);

/// A map key as serde_json writes it: a string as it is, a number or a bool quoted, a unit
/// variant by its name; anything else is refused.
struct KeyWriter<'o> {
    out: &'o mut Vec<u8>,
}

macro_rules! quoted_keys {
    ($($method:ident => $write:ident: $ty:ty,)*) => {
        $(fn $method(self, v: $ty) -> Result<(), Error> {
            self.out.push(b'"');
            let _ = serde_json::ser::CompactFormatter.$write(self.out, v);
            self.out.push(b'"');
            Ok(())
        })*
    };
}

impl ser::Serializer for KeyWriter<'_> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = ser::Impossible<(), Error>;
    type SerializeTuple = ser::Impossible<(), Error>;
    type SerializeTupleStruct = ser::Impossible<(), Error>;
    type SerializeTupleVariant = ser::Impossible<(), Error>;
    type SerializeMap = ser::Impossible<(), Error>;
    type SerializeStruct = ser::Impossible<(), Error>;
    type SerializeStructVariant = ser::Impossible<(), Error>;

    quoted_keys! {
        serialize_bool => write_bool: bool,
        serialize_i8 => write_i8: i8,
        serialize_i16 => write_i16: i16,
        serialize_i32 => write_i32: i32,
        serialize_i64 => write_i64: i64,
        serialize_i128 => write_i128: i128,
        serialize_u8 => write_u8: u8,
        serialize_u16 => write_u16: u16,
        serialize_u32 => write_u32: u32,
        serialize_u64 => write_u64: u64,
        serialize_u128 => write_u128: u128,
    }

    fn serialize_f32(self, v: f32) -> Result<(), Error> {
        if !v.is_finite() {
            return Err(Error("float key must be finite (got NaN or +/-inf)".into()));
        }
        self.out.push(b'"');
        let _ = serde_json::ser::CompactFormatter.write_f32(self.out, v);
        self.out.push(b'"');
        Ok(())
    }

    fn serialize_f64(self, v: f64) -> Result<(), Error> {
        if !v.is_finite() {
            return Err(Error("float key must be finite (got NaN or +/-inf)".into()));
        }
        self.out.push(b'"');
        let _ = serde_json::ser::CompactFormatter.write_f64(self.out, v);
        self.out.push(b'"');
        Ok(())
    }

    fn serialize_char(self, v: char) -> Result<(), Error> {
        write_str(self.out, v.encode_utf8(&mut [0; 4]));
        Ok(())
    }

    fn serialize_str(self, v: &str) -> Result<(), Error> {
        write_str(self.out, v);
        Ok(())
    }

    fn serialize_bytes(self, _v: &[u8]) -> Result<(), Error> {
        Err(key_error())
    }

    fn serialize_none(self) -> Result<(), Error> {
        Err(key_error())
    }

    fn serialize_some<T: Serialize + ?Sized>(self, _value: &T) -> Result<(), Error> {
        Err(key_error())
    }

    fn serialize_unit(self) -> Result<(), Error> {
        Err(key_error())
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Error> {
        Err(key_error())
    }

    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), Error> {
        write_str(self.out, variant);
        Ok(())
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<(), Error> {
        Err(key_error())
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        Err(key_error())
    }

    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, Error> {
        Err(key_error())
    }

    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct, Error> {
        Err(key_error())
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Err(key_error())
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, Error> {
        Err(key_error())
    }

    fn serialize_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStruct, Error> {
        Err(key_error())
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        Err(key_error())
    }
}
