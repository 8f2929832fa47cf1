//! Integration tests: one binary, one module per behaviour.

mod common;
mod determinism;
mod timing;
mod trace_replay;
mod verify;
mod waf;
