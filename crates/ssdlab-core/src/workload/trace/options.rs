//! Layer: workload (trace readers). What a trace reader is asked to do: the format, the column
//! mapping of a `generic` trace and the filters stacked on the reader (`[workload.trace]`).
//! Plain data with its own validation; the readers and the config loader both import it, it
//! imports neither.

use std::fmt;
use std::str::FromStr;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// The largest accepted `reorder_window`, in requests.
pub const MAX_REORDER_WINDOW: usize = 1 << 20;

/// A trace file format. The serde / CLI id is the snake_case name (`disksim_ms`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TraceFormat {
    /// Detect the format from the first lines of content (see docs/traces.md).
    #[default]
    Auto,
    /// MSR Cambridge CSV `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime` (FILETIME
    /// 100 ns ticks, bytes), or its reduced tab-separated form `Timestamp Type Offset Size`.
    Msr,
    /// DiskSim ASCII `time_ms devno lba_sectors size_sectors flags` (flags bit 0: 1 = read).
    DisksimMs,
    /// DiskSim ASCII with integer nanosecond times, as MQSim stores it.
    DisksimNs,
    /// UMass / SPC CSV `ASU,LBA,Size,Opcode,Timestamp` (sectors, bytes, r/w, seconds).
    Spc,
    /// FlashNet / Heimdall `time_ms devno offset_bytes size_bytes type` (1 = read, 0 = write).
    Flashnet,
    /// FIU (SNIA IOTTA) `ts_ns pid process lba size_blocks op major minor md5`.
    Fiu,
    /// SYSTOR '17 CSV `Timestamp,Response,IOType,LUN,Offset,Size` (seconds, bytes).
    Systor,
    /// Alibaba block traces `device_id,opcode,offset,length,timestamp` (bytes, microseconds).
    Alibaba,
    /// Tencent CBS `Timestamp,Offset,Size,IOType,VolumeID` (seconds, sectors, 0 = read).
    Tencent,
    /// CloudPhysics vSCSI CSV `timestamp_us,opcode,size_bytes,lbn_sectors` (SCSI opcodes in hex).
    Cloudphysics,
    /// blkparse default text output (D events, or Q where the trace has none; see
    /// [`BlkparseEvent`]).
    Blkparse,
    /// Any CSV or whitespace-separated layout, described by `[workload.trace.generic]`.
    Generic,
    /// The ssdlab binary trace (`ssdlab trace convert` writes it; see docs/traces.md).
    Binary,
}

impl TraceFormat {
    /// Every format, `Auto` first.
    pub const ALL: [TraceFormat; 14] = [
        TraceFormat::Auto,
        TraceFormat::Msr,
        TraceFormat::DisksimMs,
        TraceFormat::DisksimNs,
        TraceFormat::Spc,
        TraceFormat::Flashnet,
        TraceFormat::Fiu,
        TraceFormat::Systor,
        TraceFormat::Alibaba,
        TraceFormat::Tencent,
        TraceFormat::Cloudphysics,
        TraceFormat::Blkparse,
        TraceFormat::Generic,
        TraceFormat::Binary,
    ];

    /// The id used in configs, on the command line and in messages.
    pub fn id(self) -> &'static str {
        match self {
            TraceFormat::Auto => "auto",
            TraceFormat::Msr => "msr",
            TraceFormat::DisksimMs => "disksim_ms",
            TraceFormat::DisksimNs => "disksim_ns",
            TraceFormat::Spc => "spc",
            TraceFormat::Flashnet => "flashnet",
            TraceFormat::Fiu => "fiu",
            TraceFormat::Systor => "systor",
            TraceFormat::Alibaba => "alibaba",
            TraceFormat::Tencent => "tencent",
            TraceFormat::Cloudphysics => "cloudphysics",
            TraceFormat::Blkparse => "blkparse",
            TraceFormat::Generic => "generic",
            TraceFormat::Binary => "binary",
        }
    }
}

impl fmt::Display for TraceFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

impl FromStr for TraceFormat {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        TraceFormat::ALL.into_iter().find(|format| format.id() == s).ok_or_else(|| {
            let ids: Vec<&str> = TraceFormat::ALL.iter().map(|format| format.id()).collect();
            Error::config("format", format!("unknown trace format {s:?}; expected one of {}", ids.join(", ")))
        })
    }
}

/// Which operations a trace delivers. Trims pass only with `all`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OpFilter {
    /// Reads, writes and trims.
    #[default]
    All,
    /// Reads only.
    Reads,
    /// Writes only.
    Writes,
}

/// What a malformed line does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BadLinePolicy {
    /// Stop with an error naming the file, the line and what is wrong.
    #[default]
    Error,
    /// Skip the line (the reader counts skipped lines).
    Skip,
}

/// What a request older than one already delivered (beyond `reorder_window`) does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OutOfOrderPolicy {
    /// Stop with an error naming the line.
    #[default]
    Error,
    /// Give it the last delivered time (the reader counts clamped requests).
    Clamp,
}

/// Which blkparse events become requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BlkparseEvent {
    /// `D` if the first 64 KiB of the (decompressed) trace hold a D event that carries data,
    /// else `Q`. The device receives dispatches, not queued bios, so D is what an SSD model
    /// should replay; Q is the fallback for traces recorded without D events (e.g.
    /// `blkparse -a queue`). If Q was chosen and a D event turns up later, the reader stops with
    /// an error rather than replay the wrong stream (see docs/traces.md).
    #[default]
    Auto,
    /// `Q`: the request as queued by the application, before the block layer merges or splits it.
    Queue,
    /// `D`: the request as issued to the device driver, after merging and splitting.
    Issue,
}

/// What a trace with several devices (volumes, LUNs, ASUs) does with their address spaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DevicePolicy {
    /// Give every device a disjoint byte range: the file is pre-scanned for each device's extent
    /// and the devices are laid back to back in device-number order, 1 MiB aligned (the
    /// lowest-numbered device keeps its addresses). Distinct volumes never share an address, so
    /// they never overwrite each other's data.
    #[default]
    Separate,
    /// Keep every device's own offsets, so devices overlap (what every reader did before
    /// devices were kept apart); no pre-scan.
    Merge,
}

/// `[workload.trace]`: how a trace is read: its format and the filters stacked on the reader
/// (docs/traces.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct TraceOptions {
    /// The format, or `auto` to detect it from the content.
    pub format: TraceFormat,
    /// The column mapping, required by (and only allowed with) `format = "generic"`; with
    /// `format = "auto"` it selects the generic format.
    pub generic: Option<GenericColumns>,
    /// Keep only requests of this device / volume / LUN / ASU number, at its own offsets
    /// (default: all devices, handled as `devices` says).
    pub device: Option<u32>,
    /// What several devices do (default `separate`: disjoint ranges laid back to back, found by a
    /// pre-scan of the file; `merge`: every device at its own offsets, overlapping). Not allowed
    /// together with `device`, which keeps one device only.
    pub devices: DevicePolicy,
    /// Drop requests earlier than this, in ns after the first request (after the device filter).
    pub start_ns: u64,
    /// Stop at this time, in ns after the first request (exclusive).
    pub end_ns: Option<u64>,
    /// Deliver at most this many requests (after all other filters).
    pub max_requests: Option<u64>,
    /// Deliver all requests, or only reads, or only writes.
    pub ops: OpFilter,
    /// What a malformed line does.
    pub on_bad_line: BadLinePolicy,
    /// How many requests are held back to re-sort slightly out-of-order timestamps (0 = none).
    pub reorder_window: usize,
    /// What a request that arrives later than the window allows does.
    pub on_out_of_order: OutOfOrderPolicy,
    /// Which blkparse events are requests: `auto` (default: D if the first 64 KiB hold one,
    /// else Q), `queue` (Q, as the application issued them) or `issue` (D, as the block layer
    /// sent them to the device, after merging and splitting: what the device saw).
    pub blkparse_event: BlkparseEvent,
}

impl Default for TraceOptions {
    fn default() -> Self {
        TraceOptions {
            format: TraceFormat::Auto,
            generic: None,
            device: None,
            devices: DevicePolicy::Separate,
            start_ns: 0,
            end_ns: None,
            max_requests: None,
            ops: OpFilter::All,
            on_bad_line: BadLinePolicy::Error,
            reorder_window: 256,
            on_out_of_order: OutOfOrderPolicy::Error,
            blkparse_event: BlkparseEvent::Auto,
        }
    }
}

impl TraceOptions {
    /// The options with a given format, others default.
    pub fn with_format(format: TraceFormat) -> Self {
        TraceOptions { format, ..TraceOptions::default() }
    }

    /// Check the options on their own (not against a file).
    pub fn validate(&self) -> Result<()> {
        match (&self.generic, self.format) {
            (None, TraceFormat::Generic) => {
                return Err(Error::config("generic", "format = \"generic\" needs a [generic] column mapping"));
            }
            (Some(columns), TraceFormat::Auto | TraceFormat::Generic) => columns.validate()?,
            (Some(_), format) => {
                return Err(Error::config(
                    "generic",
                    format!(
                        "a generic column mapping was given but format = {:?}; use format = \"generic\"",
                        format.id()
                    ),
                ));
            }
            (None, _) => {}
        }
        if let (Some(device), DevicePolicy::Merge) = (self.device, self.devices) {
            return Err(Error::config(
                "devices",
                format!(
                    "devices = \"merge\" has no effect with device = {device}, which keeps that one device only; \
                     remove one of the two"
                ),
            ));
        }
        if let Some(end_ns) = self.end_ns {
            if end_ns <= self.start_ns {
                return Err(Error::config(
                    "end_ns",
                    format!("end_ns = {end_ns} must be after start_ns = {}", self.start_ns),
                ));
            }
        }
        if self.reorder_window > MAX_REORDER_WINDOW {
            return Err(Error::config(
                "reorder_window",
                format!("reorder_window = {} is above the maximum of {MAX_REORDER_WINDOW}", self.reorder_window),
            ));
        }
        Ok(())
    }

    /// Options from a TOML table (the keys of `[workload.trace]`), every unknown key reported.
    pub fn from_toml(text: &str) -> Result<TraceOptions> {
        let value: toml::Value = toml::from_str(text).map_err(|e| Error::config("trace options", e.message()))?;
        let mut unknown = Vec::new();
        let options: TraceOptions = serde_ignored::deserialize(value, |path| unknown.push(path.to_string()))
            .map_err(|e| Error::config("trace options", e.message()))?;
        if !unknown.is_empty() {
            return Err(Error::Config {
                path: None,
                problems: unknown
                    .into_iter()
                    .map(|key| crate::error::ConfigProblem { key, reason: "unknown trace option".into() })
                    .collect(),
            });
        }
        options.validate()?;
        Ok(options)
    }

    /// The format to read with: `generic` when a mapping is given with `auto`.
    pub(crate) fn requested_format(&self) -> TraceFormat {
        match (self.format, &self.generic) {
            (TraceFormat::Auto, Some(_)) => TraceFormat::Generic,
            (format, _) => format,
        }
    }
}

/// Unit of the time column. Every unit accepts a decimal fraction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TimeUnit {
    /// Seconds.
    S,
    /// Milliseconds.
    Ms,
    /// Microseconds.
    Us,
    /// Nanoseconds.
    Ns,
    /// Windows FILETIME: 100 ns ticks (since 1601-01-01; not rebased).
    Filetime,
}

impl TimeUnit {
    /// Power of ten from this unit to nanoseconds.
    pub(crate) fn scale_to_ns(self) -> u32 {
        match self {
            TimeUnit::S => 9,
            TimeUnit::Ms => 6,
            TimeUnit::Us => 3,
            TimeUnit::Ns => 0,
            TimeUnit::Filetime => 2,
        }
    }
}

/// Unit of the offset and size columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AddressUnit {
    /// Bytes.
    Bytes,
    /// 512-byte sectors.
    Sectors,
    /// Pages of `page_bytes` bytes (the mapping's own `page_bytes`, not the device's).
    Pages,
}

/// `[workload.trace.generic]`: the column mapping of a `generic` trace. Columns are numbered
/// from 0.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct GenericColumns {
    /// One ASCII character (`","`, `";"`, `"\t"`, `"|"`, ...) or `"whitespace"` (runs of spaces
    /// and tabs).
    #[serde(default = "default_delimiter")]
    pub delimiter: String,
    /// Lines at the top of the file to skip (headers), counted before blank lines are dropped.
    #[serde(default)]
    pub header_lines: u64,
    /// The column of the request time.
    pub time_column: usize,
    /// The unit of the time column.
    pub time_unit: TimeUnit,
    /// The column of the request offset.
    pub offset_column: usize,
    /// The unit of the offset column.
    pub offset_unit: AddressUnit,
    /// The column of the request size.
    pub size_column: usize,
    /// The unit of the size column.
    pub size_unit: AddressUnit,
    /// The column of the operation (read, write or trim; see `read`, `write`, `trim`).
    pub op_column: usize,
    /// Spellings of a read in the op column.
    #[serde(default = "default_read")]
    pub read: Vec<String>,
    /// Spellings of a write in the op column.
    #[serde(default = "default_write")]
    pub write: Vec<String>,
    /// Spellings of a trim / discard in the op column (none by default).
    #[serde(default)]
    pub trim: Vec<String>,
    /// The column holding the device / volume number, if any (else device 0).
    #[serde(default)]
    pub device_column: Option<usize>,
    /// Bytes per page when a unit is `pages`.
    #[serde(default = "default_page_bytes")]
    pub page_bytes: u64,
}

fn default_delimiter() -> String {
    ",".to_string()
}
fn default_read() -> Vec<String> {
    vec!["r".to_string(), "read".to_string()]
}
fn default_write() -> Vec<String> {
    vec!["w".to_string(), "write".to_string()]
}
fn default_page_bytes() -> u64 {
    4096
}

impl GenericColumns {
    /// A comma-separated mapping with default spellings and no device column.
    pub fn csv(
        time_column: usize,
        time_unit: TimeUnit,
        offset_column: usize,
        offset_unit: AddressUnit,
        size_column: usize,
        size_unit: AddressUnit,
        op_column: usize,
    ) -> Self {
        GenericColumns {
            delimiter: default_delimiter(),
            header_lines: 0,
            time_column,
            time_unit,
            offset_column,
            offset_unit,
            size_column,
            size_unit,
            op_column,
            read: default_read(),
            write: default_write(),
            trim: Vec::new(),
            device_column: None,
            page_bytes: default_page_bytes(),
        }
    }

    /// Check the mapping on its own.
    pub fn validate(&self) -> Result<()> {
        delimiter_byte(&self.delimiter)?;
        if self.page_bytes == 0 {
            return Err(Error::config("generic.page_bytes", "must be at least 1"));
        }
        let spellings = [("read", &self.read), ("write", &self.write), ("trim", &self.trim)];
        for (key, list) in spellings {
            if let Some(bad) = list.iter().find(|s| s.trim().is_empty()) {
                return Err(Error::config(format!("generic.{key}"), format!("empty operation spelling {bad:?}")));
            }
        }
        if self.read.is_empty() && self.write.is_empty() {
            return Err(Error::config("generic.read", "give at least one spelling for reads or for writes"));
        }
        for (i, (key_a, list_a)) in spellings.iter().enumerate() {
            for (key_b, list_b) in &spellings[i + 1..] {
                if let Some(both) =
                    list_a.iter().find(|a| list_b.iter().any(|b| a.trim().eq_ignore_ascii_case(b.trim())))
                {
                    return Err(Error::config(
                        format!("generic.{key_b}"),
                        format!("{both:?} is listed both as {key_a} and as {key_b}"),
                    ));
                }
            }
        }
        Ok(())
    }
}

/// `None` for whitespace, else the delimiter byte.
pub(crate) fn delimiter_byte(delimiter: &str) -> Result<Option<u8>> {
    match delimiter.as_bytes() {
        b"whitespace" => Ok(None),
        [byte] if byte.is_ascii() && !byte.is_ascii_alphanumeric() && !matches!(byte, b'.' | b'-' | b'+' | b'\n' | b'\r') => {
            Ok(Some(*byte))
        }
        _ => Err(Error::config(
            "generic.delimiter",
            format!("{delimiter:?} is not a delimiter: use one ASCII punctuation character, \"\\t\", \" \" or \"whitespace\""),
        )),
    }
}
