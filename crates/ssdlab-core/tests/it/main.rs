//! Integration tests: one binary, one module per behaviour.

mod catalog_verify;
mod common;
mod decisions;
mod determinism;
mod fio_jobs;
mod fsp;
mod golden;
mod idle;
mod learned_accounting;
mod learning;
mod mqsim_preset;
mod partial_gc_verify;
mod report;
mod rlgc;
mod slc;
mod spec_presets;
mod spec_workloads;
mod timeline;
mod timing;
mod trace_fit;
mod trace_replay;
mod trim;
mod verify;
mod verify_matrix;
mod waf;
mod warm_drive;
