//! Layer: workload. The distinct pages a replayed workload addresses (its footprint), counted
//! under modulo folding, so that a run whose addresses were folded can say whether compact
//! folding (which needs room for the footprint only, not for the address span) would have fit.
//! Compact folding counts its own (`Host`'s slots).
//!
//! A bitmap in chunks of 2^15 pages (4 KiB of bits each, 128 MiB of 4 KiB pages), allocated as
//! addresses reach them: memory follows the regions a trace touches, not its address span (a
//! 4.6 TiB LUN touched in 38 MiB takes a few chunks and a 300 KiB directory). Pages from 2^35
//! on (128 TiB of 4 KiB pages) go to a map of chunks.

use hashbrown::HashMap;
use rustc_hash::FxBuildHasher;

const CHUNK_BITS: u32 = 15;
const WORDS: usize = (1 << CHUNK_BITS) / 64;
/// Chunks held in the directory (pages below 2^35); the map holds those above.
const DIRECTORY_CHUNKS: u64 = 1 << 20;

type Chunk = Box<[u64; WORDS]>;

#[derive(Default)]
pub struct PageSet {
    directory: Vec<Option<Chunk>>,
    far: HashMap<u64, Chunk, FxBuildHasher>,
    len: u64,
}

impl PageSet {
    /// Distinct pages inserted.
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Insert `pages` consecutive pages from `first`.
    pub fn insert_run(&mut self, first: u64, pages: u64) {
        let mut page = first;
        let end = first.saturating_add(pages);
        while page < end {
            let chunk = page >> CHUNK_BITS;
            // u128: the chunk after the last one ends past u64::MAX.
            let chunk_end = (((chunk as u128 + 1) << CHUNK_BITS).min(end as u128)) as u64;
            let bits = self.chunk(chunk);
            let mut added = 0;
            for p in page..chunk_end {
                let bit = p & ((1 << CHUNK_BITS) - 1);
                let (word, mask) = (&mut bits[(bit >> 6) as usize], 1u64 << (bit & 63));
                added += (*word & mask == 0) as u64;
                *word |= mask;
            }
            self.len += added;
            page = chunk_end;
        }
    }

    fn chunk(&mut self, chunk: u64) -> &mut [u64; WORDS] {
        let new = || Box::new([0u64; WORDS]);
        if chunk < DIRECTORY_CHUNKS {
            let i = chunk as usize;
            if i >= self.directory.len() {
                self.directory.resize_with(i + 1, || None);
            }
            self.directory[i].get_or_insert_with(new)
        } else {
            self.far.entry(chunk).or_insert_with(new)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_distinct_pages_across_chunks_and_far_addresses() {
        let mut set = PageSet::default();
        set.insert_run(0, 10);
        set.insert_run(5, 10); // 5..15: 5 new
        assert_eq!(set.len(), 15);
        // A run across a chunk boundary.
        set.insert_run((1 << CHUNK_BITS) - 2, 4);
        assert_eq!(set.len(), 19);
        let far = DIRECTORY_CHUNKS << CHUNK_BITS;
        set.insert_run(far + 7, 3);
        set.insert_run(far + 8, 3);
        assert_eq!(set.len(), 23);
        set.insert_run(u64::MAX - 1, 5); // saturates at the end of the address space
        assert_eq!(set.len(), 24);
        assert_eq!(set.directory.len(), 2, "the directory reaches only the chunks touched");
    }
}
