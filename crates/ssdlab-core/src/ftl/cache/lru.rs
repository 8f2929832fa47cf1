//! Layer: ftl. Write-back LRU eviction: a program unit is the `unit_pages` least recently used
//! dirty pages, in LRU order (the oldest first). Clean pages are skipped (the buffer drops them
//! when it needs room). With wordline placement this is the FSP paper's "Baseline": the four
//! LRU-tail pages programmed one-shot in order (Li et al., TCAD 2024, Sec. IV).

use crate::ftl::cache::{BufferView, EvictionPolicy};
use crate::units::Lpn;

#[derive(Clone)]
pub struct LruEviction;

impl EvictionPolicy for LruEviction {
    fn next_unit(&mut self, view: &BufferView, unit_pages: u32, out: &mut Vec<Lpn>) {
        view.oldest_dirty(unit_pages, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ftl::cache::WriteBuffer;

    #[test]
    fn takes_the_oldest_dirty_pages_in_order() {
        let mut b = WriteBuffer::new(8, 1.0, 1.0, Box::new(LruEviction));
        for (l, dirty) in [(5, true), (6, false), (7, true), (8, true), (9, true), (10, true)] {
            b.insert(Lpn(l), dirty, crate::ftl::cache::PageWrite { request_pages: 1, partial: false }, 1);
        }
        let mut out = Vec::new();
        b.next_unit(4, &mut out);
        assert_eq!(out, [Lpn(5), Lpn(7), Lpn(8), Lpn(9)], "clean page 6 skipped");
        b.next_unit(1, &mut out);
        assert_eq!(out, [Lpn(5)]);
    }
}
