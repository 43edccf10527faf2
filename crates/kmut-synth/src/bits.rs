//! A fixed-size set of mutant indices: the kill sets of a problem's candidate inputs.

/// Mutants of one problem, by index.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Bits {
    words: Vec<u64>,
    len: usize,
}

impl Bits {
    pub fn new(len: usize) -> Bits {
        Bits { words: vec![0; len.div_ceil(64)], len }
    }

    /// Every index below `len`.
    pub fn full(len: usize) -> Bits {
        let mut b = Bits::new(len);
        (0..len).for_each(|i| b.set(i));
        b
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn set(&mut self, i: usize) {
        self.words[i / 64] |= 1 << (i % 64);
    }

    pub fn get(&self, i: usize) -> bool {
        self.words[i / 64] >> (i % 64) & 1 == 1
    }

    pub fn count(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// `self |= other`.
    pub fn union_with(&mut self, other: &Bits) {
        self.words.iter_mut().zip(&other.words).for_each(|(a, b)| *a |= b);
    }

    /// `|self & mask & !not|`: what `self` adds inside `mask` beyond `not`.
    pub fn count_new(&self, mask: &Bits, not: &Bits) -> usize {
        self.words.iter().zip(&mask.words).zip(&not.words).map(|((a, m), n)| (a & m & !n).count_ones() as usize).sum()
    }

    /// `|self & mask|`.
    pub fn count_in(&self, mask: &Bits) -> usize {
        self.words.iter().zip(&mask.words).map(|(a, m)| (a & m).count_ones() as usize).sum()
    }

    pub fn ones(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.len).filter(|&i| self.get(i))
    }
}

#[cfg(test)]
mod tests {
    use super::Bits;

    #[test]
    fn counts_what_a_set_adds_inside_a_mask() {
        let mut a = Bits::new(130);
        for i in [0, 64, 129] {
            a.set(i);
        }
        let mut covered = Bits::new(130);
        covered.set(64);
        let mut mask = Bits::full(130);
        assert_eq!(a.count_new(&mask, &covered), 2);
        mask = Bits::new(130);
        mask.set(129);
        assert_eq!(a.count_new(&mask, &covered), 1);
        assert_eq!(a.count_in(&mask), 1);
        covered.union_with(&a);
        assert_eq!(covered.count(), 3);
        assert_eq!(a.ones().collect::<Vec<_>>(), [0, 64, 129]);
    }
}
