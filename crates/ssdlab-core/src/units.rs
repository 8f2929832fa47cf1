//! Layer: cross-cutting. Units as types: simulated time and flash addresses.
//!
//! Simulated time is an integer number of nanoseconds (`SimTime`), so runs are exactly
//! repeatable. Logical and physical page numbers are distinct newtypes so they cannot be mixed.
//! Sizes in configs are `ByteSize`: bytes, written as fio writes them.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Simulated time or a duration, in nanoseconds.
pub type SimTime = u64;
/// A duration in nanoseconds (same representation as `SimTime`, named for intent).
pub type Nanos = u64;

pub const NS_PER_US: u64 = 1_000;
pub const NS_PER_MS: u64 = 1_000_000;
pub const NS_PER_S: u64 = 1_000_000_000;

/// A logical page number in the host's address space (page-size units).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Lpn(pub u32);

/// A physical page number: a flat index over (plane, block, page), see `nand::address`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Ppn(pub u32);

/// A global block index over all planes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct BlockId(pub u32);

/// A global plane index (channel-major: channel, chip, die, plane).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct PlaneId(pub u32);

impl Lpn {
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}
impl Ppn {
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}
impl BlockId {
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}
impl PlaneId {
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// Ask the CPU to bring `value`'s cache line in, without waiting for it: a hint with no effect
/// on results, used to overlap the next request's mapping-table miss with the current one.
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // The crate's only unsafe block. SAFETY: a prefetch reads no memory architecturally and
    // cannot fault; the pointer comes from a live reference. SSE is part of the x86-64 baseline.
    #[allow(unsafe_code)]
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>((value as *const T).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// Nanoseconds needed to move `bytes` over a link of `bytes_per_s`, rounded up.
pub fn transfer_ns(bytes: u64, bytes_per_s: u64) -> Nanos {
    if bytes_per_s == 0 {
        return 0;
    }
    ((bytes as u128 * NS_PER_S as u128).div_ceil(bytes_per_s as u128)) as Nanos
}

/// A size in bytes, written as fio writes it: `4096`, `"4k"`, `"128KiB"`, `"1m"`, `"2g"`.
/// Suffixes are binary (k = 1024), as in fio.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct ByteSize(pub u64);

impl ByteSize {
    pub fn parse(text: &str) -> Result<ByteSize, String> {
        let t = text.trim();
        let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
        let (digits, suffix) = t.split_at(split);
        let n: u64 = digits.parse().map_err(|_| format!("'{text}' is not a size (e.g. 4096, 4k, 1m)"))?;
        let mult: u64 = match suffix.trim().to_ascii_lowercase().as_str() {
            "" | "b" => 1,
            "k" | "kb" | "kib" => 1 << 10,
            "m" | "mb" | "mib" => 1 << 20,
            "g" | "gb" | "gib" => 1 << 30,
            "t" | "tb" | "tib" => 1 << 40,
            other => return Err(format!("unknown size suffix '{other}' in '{text}' (use k, m, g, t)")),
        };
        n.checked_mul(mult).map(ByteSize).ok_or_else(|| format!("size '{text}' overflows"))
    }
}

/// Written as an integer or a fio-style string, so the schema offers both (the pattern is exactly
/// what [`ByteSize::parse`] accepts, overflow aside).
impl schemars::JsonSchema for ByteSize {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ByteSize".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A size in bytes: an integer, or a string with a binary suffix as fio writes it \
                            (k = 1024): \"4k\", \"128KiB\", \"1m\", \"2g\".",
            "anyOf": [
                { "type": "integer", "format": "uint64", "minimum": 0 },
                {
                    "type": "string",
                    "pattern": r"^\s*[0-9]+\s*([bB]|[kKmMgGtT]([iI]?[bB])?)?\s*$",
                    "examples": ["4k", "128KiB", "1m"]
                }
            ]
        })
    }
}

impl Serialize for ByteSize {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(self.0)
    }
}

impl<'de> Deserialize<'de> for ByteSize {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Int(u64),
            Text(String),
        }
        match Raw::deserialize(d)? {
            Raw::Int(n) => Ok(ByteSize(n)),
            Raw::Text(t) => ByteSize::parse(&t).map_err(serde::de::Error::custom),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transfer_rounds_up() {
        // 4 KiB at 400 MB/s = 10.24 us -> 10240 ns exactly.
        assert_eq!(transfer_ns(4096, 400_000_000), 10_240);
        // 1 byte at 3 B/s rounds up to a whole nanosecond count.
        assert_eq!(transfer_ns(1, 3), 333_333_334);
        assert_eq!(transfer_ns(4096, 0), 0);
    }

    #[test]
    fn parses_fio_sizes() {
        assert_eq!(ByteSize::parse("4k"), Ok(ByteSize(4096)));
        assert_eq!(ByteSize::parse("128KiB"), Ok(ByteSize(131072)));
        assert_eq!(ByteSize::parse("4096"), Ok(ByteSize(4096)));
        assert!(ByteSize::parse("4q").is_err());
        assert!(ByteSize::parse("k").is_err());
    }
}
