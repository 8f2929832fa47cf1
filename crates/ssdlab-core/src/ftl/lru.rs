//! Layer: ftl. A recency order threaded through a table of slots (an intrusive doubly linked
//! list): each slot keeps its own `Links`, so a lookup that reorders a slot touches that slot
//! and its two neighbours, and no separate list is allocated. The write buffer's pages and
//! DFTL's cached mapping entries both keep their LRU order this way.

/// "No slot" in a link, and the head and tail of an empty list.
pub const NONE: u32 = u32::MAX;

/// A slot's place in the order: the next slot towards the head (more recent) and the tail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Links {
    pub newer: u32,
    pub older: u32,
}

impl Links {
    pub const UNLINKED: Links = Links { newer: NONE, older: NONE };
}

/// Put `value` in a free slot of `slots` (one `free` lists) or a new one; returns its index. The
/// slot tables of the write buffer and the mapping caches reuse slots this way.
pub fn place_slot<T>(slots: &mut Vec<T>, free: &mut Vec<u32>, value: T) -> u32 {
    match free.pop() {
        Some(i) => {
            slots[i as usize] = value;
            i
        }
        None => {
            slots.push(value);
            (slots.len() - 1) as u32
        }
    }
}

/// A slot that carries `Links`.
pub trait Linked {
    fn links(&mut self) -> &mut Links;
}

/// The ends of the order over a slot table (most recent at the head).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LruList {
    head: u32,
    tail: u32,
}

impl Default for LruList {
    fn default() -> Self {
        LruList { head: NONE, tail: NONE }
    }
}

impl LruList {
    /// The most recently used slot (NONE if empty).
    #[cfg(test)]
    pub fn head(&self) -> u32 {
        self.head
    }
    /// The least recently used slot (NONE if empty).
    pub fn tail(&self) -> u32 {
        self.tail
    }

    /// Take slot `i` out of the order.
    pub fn unlink<T: Linked>(&mut self, slots: &mut [T], i: u32) {
        let Links { newer, older } = *slots[i as usize].links();
        if newer != NONE {
            slots[newer as usize].links().older = older;
        } else {
            self.head = older;
        }
        if older != NONE {
            slots[older as usize].links().newer = newer;
        } else {
            self.tail = newer;
        }
    }

    /// Put slot `i` (not in the order) at the head.
    pub fn push_head<T: Linked>(&mut self, slots: &mut [T], i: u32) {
        *slots[i as usize].links() = Links { newer: NONE, older: self.head };
        if self.head != NONE {
            slots[self.head as usize].links().newer = i;
        } else {
            self.tail = i;
        }
        self.head = i;
    }

    /// Put slot `i` (not in the order) at the tail: the next to leave (the FSP paper's rewrite
    /// module loads hot data there for regrouping).
    pub fn push_tail<T: Linked>(&mut self, slots: &mut [T], i: u32) {
        *slots[i as usize].links() = Links { newer: self.tail, older: NONE };
        if self.tail != NONE {
            slots[self.tail as usize].links().older = i;
        } else {
            self.head = i;
        }
        self.tail = i;
    }

    /// Make slot `i` (in the order) the most recent.
    pub fn make_most_recent<T: Linked>(&mut self, slots: &mut [T], i: u32) {
        self.unlink(slots, i);
        self.push_head(slots, i);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Linked for Links {
        fn links(&mut self) -> &mut Links {
            self
        }
    }

    /// Slots from the tail up, following `newer`.
    fn order(list: &LruList, slots: &[Links]) -> Vec<u32> {
        let mut out = Vec::new();
        let mut at = list.tail();
        while at != NONE {
            out.push(at);
            at = slots[at as usize].newer;
        }
        out
    }

    #[test]
    fn keeps_recency_order_through_pushes_moves_and_removals() {
        let mut slots = vec![Links::UNLINKED; 4];
        let mut list = LruList::default();
        for i in 0..4 {
            list.push_head(&mut slots, i);
        }
        assert_eq!(order(&list, &slots), [0, 1, 2, 3]);
        list.make_most_recent(&mut slots, 1);
        assert_eq!(order(&list, &slots), [0, 2, 3, 1]);
        list.unlink(&mut slots, 0);
        list.unlink(&mut slots, 1);
        assert_eq!(order(&list, &slots), [2, 3]);
        assert_eq!((list.head(), list.tail()), (3, 2));
        list.unlink(&mut slots, 3);
        list.unlink(&mut slots, 2);
        assert_eq!(list, LruList::default());
        list.push_tail(&mut slots, 1);
        list.push_tail(&mut slots, 0);
        list.push_head(&mut slots, 2);
        assert_eq!(order(&list, &slots), [0, 1, 2], "push_tail puts a slot next to leave");
        assert_eq!((list.head(), list.tail()), (2, 0));
    }
}
