//! Layer: workload (trace readers). Byte-level field splitting and number parsing shared by the
//! text formats, plus the checks every parsed request must pass.
//!
//! Everything here works on borrowed `&[u8]` slices of the reader's reused line buffer: no
//! allocation per line, no regex, no UTF-8 validation on the hot path. Problems are returned as
//! small [`LineError`] values that borrow the offending field; `text.rs` turns them into a
//! message (quoting the line) only when a line is actually reported.

use crate::workload::{IoOp, TraceRecord};

/// Bytes in one sector, the unit of LBA and size columns in most block traces.
pub(crate) const SECTOR_BYTES: u64 = 512;

/// Largest request size accepted from any trace, in bytes (4 GiB - 1). Real block requests are at
/// most a few MiB; the cap keeps a corrupt size field from turning into a multi-terabyte request
/// and lets the binary format store sizes in 32 bits.
pub(crate) const MAX_REQUEST_BYTES: u64 = u32::MAX as u64;

/// What is wrong with one field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Problem {
    /// The line has fewer fields than the format needs.
    Missing,
    /// The field is present but empty.
    Empty,
    /// Expected an unsigned decimal integer.
    NotUnsigned,
    /// Expected a non-negative decimal number (digits, optional fraction and exponent).
    NotDecimal,
    /// A minus sign on a field that must be non-negative.
    Negative,
    /// The value (after unit conversion) does not fit in 64 bits.
    Overflow,
    /// The value does not fit in the 32-bit device number.
    DeviceTooLarge,
    /// An operation spelling the format does not define; the text lists the accepted ones.
    UnknownOp(&'static str),
    /// A zero-length request.
    ZeroSize,
    /// A request larger than [`MAX_REQUEST_BYTES`].
    TooLarge,
    /// `offset + size` does not fit in 64 bits.
    EndOverflow,
    /// Anything else, described by the text.
    Invalid(&'static str),
    /// The line shows the whole file is being read the wrong way (described by the text): an
    /// error even under `on_bad_line = "skip"`, since skipping would hide it.
    Fatal(&'static str),
}

impl Problem {
    /// The problem as a phrase that follows the field name.
    pub(crate) fn describe(self) -> String {
        match self {
            Problem::Missing => "is missing (the line has too few fields)".into(),
            Problem::Empty => "is empty".into(),
            Problem::NotUnsigned => "is not an unsigned integer".into(),
            Problem::NotDecimal => "is not a non-negative decimal number".into(),
            Problem::Negative => "is negative; it must be >= 0".into(),
            Problem::Overflow => "is too large: in bytes or nanoseconds it does not fit in 64 bits".into(),
            Problem::DeviceTooLarge => "does not fit in a 32-bit device number".into(),
            Problem::UnknownOp(expected) => {
                format!("is not a known operation; expected {expected}")
            }
            Problem::ZeroSize => {
                "is zero: zero-length requests are rejected (on_bad_line = \"skip\" drops them)".into()
            }
            Problem::TooLarge => "exceeds the per-request limit of 4 GiB - 1 bytes".into(),
            Problem::EndOverflow => "puts the request end (offset + size) beyond 2^64 bytes".into(),
            Problem::Invalid(text) | Problem::Fatal(text) => text.into(),
        }
    }

    /// The problem's id in a report's `skipped_by_problem` (docs/traces.md lists them).
    pub(crate) fn id(self) -> &'static str {
        match self {
            Problem::Missing => "missing_field",
            Problem::Empty => "empty_field",
            Problem::NotUnsigned | Problem::NotDecimal => "not_a_number",
            Problem::Negative => "negative",
            Problem::Overflow | Problem::DeviceTooLarge | Problem::EndOverflow => "overflow",
            Problem::UnknownOp(_) => "unknown_op",
            Problem::ZeroSize => "zero_size",
            Problem::TooLarge => "too_large",
            Problem::Invalid(_) | Problem::Fatal(_) => "invalid",
        }
    }

    /// Whether the bad-line policy may skip the line.
    pub(crate) fn is_skippable(self) -> bool {
        !matches!(self, Problem::Fatal(_))
    }
}

/// One field of one line that failed to parse: which field, its text and what is wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LineError<'a> {
    /// Field name as the format's documentation calls it, with its unit, e.g. `"Offset (bytes)"`.
    pub field: &'static str,
    /// The field's text (empty when the field is missing).
    pub value: &'a [u8],
    pub problem: Problem,
}

impl<'a> LineError<'a> {
    pub(crate) fn new(field: &'static str, value: &'a [u8], problem: Problem) -> Self {
        LineError { field, value, problem }
    }

    pub(crate) fn missing(field: &'static str) -> Self {
        LineError { field, value: b"", problem: Problem::Missing }
    }
}

/// Result of parsing one line: a request, `None` for a line that is not a request (a header,
/// or an event kind the format ignores), or an error naming the field.
pub(crate) type LineResult<'a> = Result<Option<TraceRecord>, LineError<'a>>;

/// Splits a line into fields, either at one delimiter byte (each field trimmed of surrounding
/// spaces, tabs and double quotes) or at runs of spaces and tabs.
#[derive(Debug, Clone)]
pub(crate) struct Fields<'a> {
    rest: &'a [u8],
    delimiter: Option<u8>,
    finished: bool,
}

impl<'a> Fields<'a> {
    /// Fields separated by `delimiter` (e.g. `b','`); `a,,b` has an empty middle field.
    #[inline]
    pub(crate) fn delimited(line: &'a [u8], delimiter: u8) -> Self {
        Fields { rest: line, delimiter: Some(delimiter), finished: false }
    }

    /// Fields separated by runs of spaces or tabs; leading and trailing blanks are ignored.
    #[inline]
    pub(crate) fn whitespace(line: &'a [u8]) -> Self {
        Fields { rest: line, delimiter: None, finished: false }
    }

    /// The next field, or a [`Problem::Missing`] error naming `field`.
    #[inline]
    pub(crate) fn need(&mut self, field: &'static str) -> Result<&'a [u8], LineError<'a>> {
        self.next().ok_or(LineError::missing(field))
    }

    /// Skip a field the format does not use, failing with `field` if the line ends first.
    #[inline]
    pub(crate) fn skip_one(&mut self, field: &'static str) -> Result<(), LineError<'a>> {
        self.need(field).map(|_| ())
    }
}

impl<'a> Iterator for Fields<'a> {
    type Item = &'a [u8];

    #[inline]
    fn next(&mut self) -> Option<&'a [u8]> {
        match self.delimiter {
            Some(delimiter) => {
                if self.finished {
                    return None;
                }
                let field = match self.rest.iter().position(|&b| b == delimiter) {
                    Some(end) => {
                        let field = &self.rest[..end];
                        self.rest = &self.rest[end + 1..];
                        field
                    }
                    None => {
                        self.finished = true;
                        self.rest
                    }
                };
                Some(trim_field(field))
            }
            None => {
                let start = self.rest.iter().position(|&b| b != b' ' && b != b'\t')?;
                let rest = &self.rest[start..];
                let end = rest.iter().position(|&b| b == b' ' || b == b'\t').unwrap_or(rest.len());
                self.rest = &rest[end..];
                Some(&rest[..end])
            }
        }
    }
}

/// Trim blanks around a delimited field, then one pair of surrounding double quotes.
#[inline]
fn trim_field(field: &[u8]) -> &[u8] {
    let field = trim_blanks(field);
    match field {
        [b'"', inner @ .., b'"'] => inner,
        _ => field,
    }
}

/// Trim spaces, tabs and carriage returns from both ends.
#[inline]
pub(crate) fn trim_blanks(mut s: &[u8]) -> &[u8] {
    while let [b' ' | b'\t' | b'\r', rest @ ..] = s {
        s = rest;
    }
    while let [rest @ .., b' ' | b'\t' | b'\r'] = s {
        s = rest;
    }
    s
}

/// Parse an unsigned decimal integer (digits only).
#[inline]
pub(crate) fn parse_u64(s: &[u8]) -> Result<u64, Problem> {
    if s.is_empty() {
        return Err(Problem::Empty);
    }
    if s.len() <= 19 {
        // 19 decimal digits cannot overflow u64, so the loop needs no checks.
        let mut value = 0u64;
        for &b in s {
            let digit = b.wrapping_sub(b'0');
            if digit > 9 {
                return Err(classify_non_number(s, Problem::NotUnsigned));
            }
            value = value * 10 + u64::from(digit);
        }
        return Ok(value);
    }
    let mut value = 0u64;
    for &b in s {
        let digit = b.wrapping_sub(b'0');
        if digit > 9 {
            return Err(classify_non_number(s, Problem::NotUnsigned));
        }
        value = value.checked_mul(10).and_then(|v| v.checked_add(u64::from(digit))).ok_or(Problem::Overflow)?;
    }
    Ok(value)
}

/// A field that failed as a number: say "negative" when it is a minus sign followed by a
/// number, else the given problem.
fn classify_non_number(s: &[u8], otherwise: Problem) -> Problem {
    match s {
        [b'-', rest @ ..] if !rest.is_empty() && rest.iter().all(|b| b.is_ascii_digit() || *b == b'.') => {
            Problem::Negative
        }
        _ => otherwise,
    }
}

const POW10: [u64; 20] = [
    1,
    10,
    100,
    1_000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
    1_000_000_000,
    10_000_000_000,
    100_000_000_000,
    1_000_000_000_000,
    10_000_000_000_000,
    100_000_000_000_000,
    1_000_000_000_000_000,
    10_000_000_000_000_000,
    100_000_000_000_000_000,
    1_000_000_000_000_000_000,
    10_000_000_000_000_000_000,
];

/// Parse a non-negative decimal number (`123`, `0.221`, `1456095145.133076000`, `1.5e-3`) and
/// return it multiplied by `10^scale`, rounded half up to an integer. `scale = 6` turns
/// milliseconds into nanoseconds, `scale = 9` seconds into nanoseconds. Exact for values with at
/// most 19 significant digits; further fraction digits are ignored.
#[inline]
pub(crate) fn parse_scaled(s: &[u8], scale: u32) -> Result<u64, Problem> {
    if s.is_empty() {
        return Err(Problem::Empty);
    }
    let mut mantissa = 0u64;
    let mut exponent = scale as i32;
    let mut digits = 0usize;
    let mut dropped_integer_digit = false;
    let mut i = 0usize;
    // Integer part.
    while let Some(&b) = s.get(i) {
        let digit = b.wrapping_sub(b'0');
        if digit > 9 {
            break;
        }
        digits += 1;
        match mantissa.checked_mul(10).and_then(|m| m.checked_add(u64::from(digit))) {
            Some(m) => mantissa = m,
            None => {
                // The digit is dropped; the value keeps its magnitude.
                exponent += 1;
                dropped_integer_digit = true;
            }
        }
        i += 1;
    }
    // Fraction.
    if s.get(i) == Some(&b'.') {
        i += 1;
        while let Some(&b) = s.get(i) {
            let digit = b.wrapping_sub(b'0');
            if digit > 9 {
                break;
            }
            digits += 1;
            if let Some(m) = mantissa.checked_mul(10).and_then(|m| m.checked_add(u64::from(digit))) {
                mantissa = m;
                exponent -= 1;
            }
            i += 1;
        }
    }
    if digits == 0 {
        return Err(classify_non_number(s, Problem::NotDecimal));
    }
    // Exponent.
    if let Some(b'e' | b'E') = s.get(i) {
        i += 1;
        let negative = match s.get(i) {
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
        let start = i;
        let mut value = 0i32;
        while let Some(&b) = s.get(i) {
            let digit = b.wrapping_sub(b'0');
            if digit > 9 {
                break;
            }
            value = (value * 10 + i32::from(digit)).min(10_000);
            i += 1;
        }
        if i == start {
            return Err(Problem::NotDecimal);
        }
        exponent += if negative { -value } else { value };
    }
    if i != s.len() {
        return Err(classify_non_number(s, Problem::NotDecimal));
    }
    if mantissa == 0 {
        return Ok(0);
    }
    if exponent >= 0 {
        let factor = *POW10.get(exponent as usize).ok_or(Problem::Overflow)?;
        let value = mantissa.checked_mul(factor).ok_or(Problem::Overflow)?;
        // Dropped digits could carry the true value past 2^64 - 1: be conservative.
        if dropped_integer_digit && exponent > 0 {
            mantissa.checked_add(1).and_then(|m| m.checked_mul(factor)).ok_or(Problem::Overflow)?;
        }
        Ok(value)
    } else {
        let Some(&divisor) = POW10.get(exponent.unsigned_abs() as usize) else {
            return Ok(0); // below half a unit: rounds to zero
        };
        let (quotient, remainder) = (mantissa / divisor, mantissa % divisor);
        Ok(if remainder >= divisor - remainder { quotient + 1 } else { quotient })
    }
}

/// `value * unit`, or [`Problem::Overflow`].
#[inline]
pub(crate) fn scale_by(value: u64, unit: u64) -> Result<u64, Problem> {
    value.checked_mul(unit).ok_or(Problem::Overflow)
}

/// Parse a device / volume / LUN number.
#[inline]
pub(crate) fn parse_device(s: &[u8]) -> Result<u32, Problem> {
    u32::try_from(parse_u64(s)?).map_err(|_| Problem::DeviceTooLarge)
}

/// Check the request extent and build the record: size must be in `1..=MAX_REQUEST_BYTES` and
/// `offset + size` must fit in 64 bits. `size_field`/`size_text` name the field blamed.
#[inline]
pub(crate) fn request<'a>(
    time_ns: u64,
    op: IoOp,
    offset_bytes: u64,
    size_bytes: u64,
    device: u32,
    size_field: &'static str,
    size_text: &'a [u8],
) -> Result<TraceRecord, LineError<'a>> {
    let problem = if size_bytes == 0 {
        Problem::ZeroSize
    } else if size_bytes > MAX_REQUEST_BYTES {
        Problem::TooLarge
    } else if offset_bytes.checked_add(size_bytes).is_none() {
        Problem::EndOverflow
    } else {
        return Ok(TraceRecord { time_ns, op, offset_bytes, size_bytes, device });
    };
    Err(LineError::new(size_field, size_text, problem))
}

/// Attach a field name and text to a number-parsing problem.
pub(crate) trait Blame<T> {
    fn blame<'a>(self, field: &'static str, value: &'a [u8]) -> Result<T, LineError<'a>>;
}

impl<T> Blame<T> for Result<T, Problem> {
    #[inline]
    fn blame<'a>(self, field: &'static str, value: &'a [u8]) -> Result<T, LineError<'a>> {
        self.map_err(|problem| LineError::new(field, value, problem))
    }
}

/// The `MKDEV(major, minor)` encoding Linux uses inside the kernel (`major << 20 | minor`), so
/// that `8,0` and `8,16` stay distinct devices in one `u32`.
pub(crate) fn linux_device(major: u64, minor: u64) -> Result<u32, Problem> {
    if major >= 1 << 12 || minor >= 1 << 20 {
        return Err(Problem::DeviceTooLarge);
    }
    Ok(((major << 20) | minor) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_delimited_fields_with_trimming_and_empty_fields() {
        let fields: Vec<&[u8]> = Fields::delimited(b" a ,\"b\",,c\r", b',').collect();
        assert_eq!(fields, vec![&b"a"[..], b"b", b"", b"c"]);
        let fields: Vec<&[u8]> = Fields::delimited(b"x,", b',').collect();
        assert_eq!(fields, vec![&b"x"[..], b""]);
    }

    #[test]
    fn splits_whitespace_runs() {
        let fields: Vec<&[u8]> = Fields::whitespace(b"  1 \t 2\t\t3  ").collect();
        assert_eq!(fields, vec![&b"1"[..], b"2", b"3"]);
        assert_eq!(Fields::whitespace(b"   ").next(), None);
    }

    #[test]
    fn parses_unsigned_integers_and_reports_problems() {
        assert_eq!(parse_u64(b"0"), Ok(0));
        assert_eq!(parse_u64(b"18446744073709551615"), Ok(u64::MAX));
        assert_eq!(parse_u64(b"18446744073709551616"), Err(Problem::Overflow));
        assert_eq!(parse_u64(b"00000000000000000000012"), Ok(12));
        assert_eq!(parse_u64(b"-5"), Err(Problem::Negative));
        assert_eq!(parse_u64(b"12x"), Err(Problem::NotUnsigned));
        assert_eq!(parse_u64(b""), Err(Problem::Empty));
        assert_eq!(parse_u64(b"1.5"), Err(Problem::NotUnsigned));
    }

    #[test]
    fn parses_decimals_exactly_in_the_target_unit() {
        assert_eq!(parse_scaled(b"0.221", 6), Ok(221_000));
        assert_eq!(parse_scaled(b"223.412", 6), Ok(223_412_000));
        assert_eq!(parse_scaled(b"1456095145.133076000", 9), Ok(1_456_095_145_133_076_000));
        assert_eq!(parse_scaled(b"938513000", 0), Ok(938_513_000));
        assert_eq!(parse_scaled(b"1.5e-3", 9), Ok(1_500_000));
        assert_eq!(parse_scaled(b"2E+2", 0), Ok(200));
        assert_eq!(parse_scaled(b".5", 0), Ok(1), "half rounds up");
        assert_eq!(parse_scaled(b"0.4999", 0), Ok(0));
        assert_eq!(parse_scaled(b"7.", 3), Ok(7_000));
        assert_eq!(parse_scaled(b"1e30", 0), Err(Problem::Overflow));
        assert_eq!(parse_scaled(b"1e-30", 0), Ok(0));
        assert_eq!(parse_scaled(b"-0.5", 9), Err(Problem::Negative));
        assert_eq!(parse_scaled(b"abc", 9), Err(Problem::NotDecimal));
        assert_eq!(parse_scaled(b"1e", 9), Err(Problem::NotDecimal));
        assert_eq!(parse_scaled(b".", 9), Err(Problem::NotDecimal));
        assert_eq!(parse_scaled(b"18446744073709551615", 0), Ok(u64::MAX));
        assert_eq!(parse_scaled(b"18446744073709551616", 0), Err(Problem::Overflow));
    }

    #[test]
    fn request_checks_the_extent() {
        let ok = request(1, IoOp::Read, 10, 20, 3, "Size", b"20").unwrap();
        assert_eq!(ok, TraceRecord { time_ns: 1, op: IoOp::Read, offset_bytes: 10, size_bytes: 20, device: 3 });
        assert_eq!(request(1, IoOp::Read, 0, 0, 0, "Size", b"0").unwrap_err().problem, Problem::ZeroSize);
        assert_eq!(request(1, IoOp::Read, u64::MAX - 1, 2, 0, "Size", b"2").unwrap_err().problem, Problem::EndOverflow);
        assert_eq!(
            request(1, IoOp::Read, 0, MAX_REQUEST_BYTES + 1, 0, "Size", b"x").unwrap_err().problem,
            Problem::TooLarge
        );
    }

    #[test]
    fn linux_device_numbers() {
        assert_eq!(linux_device(8, 0), Ok(8 << 20));
        assert_eq!(linux_device(8, 16), Ok((8 << 20) | 16));
        assert_eq!(linux_device(4096, 0), Err(Problem::DeviceTooLarge));
    }
}
