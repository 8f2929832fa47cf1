//! Layer: config. Sizes written as fio writes them: `4096`, `"4k"`, `"128KiB"`, `"1m"`, `"2g"`.
//! Suffixes are binary (k = 1024), as in fio.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

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
    fn parses_fio_sizes() {
        assert_eq!(ByteSize::parse("4k"), Ok(ByteSize(4096)));
        assert_eq!(ByteSize::parse("128KiB"), Ok(ByteSize(131072)));
        assert_eq!(ByteSize::parse("4096"), Ok(ByteSize(4096)));
        assert!(ByteSize::parse("4q").is_err());
        assert!(ByteSize::parse("k").is_err());
    }
}
