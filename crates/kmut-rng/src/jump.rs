//! Jumping the generator ahead without producing the words in between.
//!
//! MT19937's step is linear over GF(2): the window of the last 624 words moves one word on by
//! `x[k + 624] = x[k + 397] ^ mix(x[k], x[k + 1])`, and a twist is 624 such steps. Of the
//! window's 19,968 bits, 19,937 decide the future (the first word's low 31 bits never do), and
//! the step restricted to them has the characteristic polynomial `phi` of degree 19,937. So
//! `A^k s` for a window `s` is `A · g(A) s` with `g = x^(k-1) mod phi`: the polynomial is a few
//! dozen squarings modulo `phi`, and evaluating it at `A` is 19,937 steps, whatever `k` is.
//! (The extra step is what makes the result exact: `g(A) s` agrees with `A^(k-1) s` on the
//! 19,937 bits that matter, and one step reads only those.) [`crate::fill_uniform_f32`] uses it
//! to start every thread at its own block of a long draw, so the twist is no longer serial.
//!
//! `phi` is not written down here: [`char_poly`] finds it from the generator's own output with
//! the Berlekamp-Massey algorithm, once per process.

use crate::{mix, twist, Mt, M, N};
use std::sync::OnceLock;

/// The degree of `phi`: the state bits that decide the future.
const DEGREE: usize = 19937;
/// Words of a polynomial of degree below `DEGREE`.
const POLY_WORDS: usize = DEGREE.div_ceil(64);

/// `phi`, kept shifted left by every bit offset 0..64 (`POLY_WORDS + 1` words each), so that
/// reducing by `phi · x^k` is a word-aligned XOR.
pub(crate) struct CharPoly {
    shifted: Vec<Vec<u64>>,
}

/// The characteristic polynomial of the generator's step, computed on first use (tens of
/// milliseconds in a release build).
pub(crate) fn char_poly() -> &'static CharPoly {
    static PHI: OnceLock<CharPoly> = OnceLock::new();
    PHI.get_or_init(|| {
        let phi = minimal_polynomial(&raw_bits(2 * DEGREE));
        // A primitive polynomial's sequences all have it as their minimal polynomial; a shorter
        // one would mean the bits read were not the generator's.
        assert_eq!(degree(&phi), Some(DEGREE), "MT19937's recurrence has degree 19937");
        CharPoly { shifted: (0..64).map(|r| shift_left(&phi, r, POLY_WORDS + 1)).collect() }
    })
}

/// Bit 0 of `n` successive raw (untempered) words of the generator seeded with 5489.
fn raw_bits(n: usize) -> Vec<bool> {
    let mut block = Mt::seeded(5489).words;
    let mut bits = Vec::with_capacity(n);
    while bits.len() < n {
        twist(&mut block);
        bits.extend(block.iter().take(n - bits.len()).map(|w| w & 1 == 1));
    }
    bits
}

/// The minimal polynomial of a bit sequence (Berlekamp-Massey over GF(2)), as the
/// characteristic polynomial `x^L c(1/x)` of the connection polynomial `c` it finds: bit `i`
/// is the coefficient of `x^i`.
fn minimal_polynomial(seq: &[bool]) -> Vec<u64> {
    let len = seq.len();
    let words = len.div_ceil(64) + 2;
    // The sequence reversed, so that seq[k - i] for i = 0..=L is a forward run of bits.
    let mut rev = vec![0u64; words + 1];
    for (k, &set) in seq.iter().enumerate() {
        if set {
            set_bit(&mut rev, len - 1 - k);
        }
    }
    // The connection polynomial, the one before its last change of length, the length, and the
    // steps since that change.
    let (mut conn, mut prev) = (vec![0u64; words], vec![0u64; words]);
    conn[0] = 1;
    prev[0] = 1;
    let (mut length, mut since) = (0usize, 1usize);
    for k in 0..len {
        // The discrepancy: the sum over i in 0..=L of conn_i seq[k - i], from `rev` at len - 1 - k.
        let mut parity = 0u64;
        for (j, word) in conn.iter().enumerate().take(length / 64 + 1) {
            parity ^= word & bits_at(&rev, len - 1 - k + 64 * j);
        }
        if parity.count_ones() & 1 == 0 {
            since += 1;
            continue;
        }
        let before = conn.clone();
        xor_shifted(&mut conn, &prev, since);
        if 2 * length <= k {
            length = k + 1 - length;
            prev = before;
            since = 1;
        } else {
            since += 1;
        }
    }
    // The characteristic polynomial is the connection polynomial's coefficients reversed.
    let mut phi = vec![0u64; (length + 1).div_ceil(64)];
    for i in 0..=length {
        if bit(&conn, i) {
            set_bit(&mut phi, length - i);
        }
    }
    phi
}

/// The `x^(k-1) mod phi` of a jump by `k >= 1` words.
fn jump_polynomial(phi: &CharPoly, k: u64) -> Vec<u64> {
    let e = k - 1;
    let mut g = vec![0u64; POLY_WORDS];
    g[0] = 1;
    for i in (0..u64::BITS - e.leading_zeros()).rev() {
        g = square_mod(phi, &g);
        if e >> i & 1 == 1 {
            times_x_mod(phi, &mut g);
        }
    }
    g
}

/// The window `k >= 1` word steps after `s`: `twist` applied `k / 624` times when `k` is a
/// multiple of 624.
pub(crate) fn jump(s: &[u32; N], k: u64) -> [u32; N] {
    let g = jump_polynomial(char_poly(), k);
    // Horner: r = sum of g_i A^i s, stepping r once per coefficient from the highest down.
    let mut r = Ring { words: [0; N], at: 0 };
    for i in (0..=degree(&g).unwrap_or(0)).rev() {
        r.step();
        if bit(&g, i) {
            r.xor(s);
        }
    }
    r.step();
    r.window()
}

/// A window of 624 words kept as a ring: `at` is where its first (oldest) word is.
struct Ring {
    words: [u32; N],
    at: usize,
}

impl Ring {
    /// One word on: the oldest word's place takes the new one.
    fn step(&mut self) {
        let w = &mut self.words;
        let a = self.at;
        w[a] = w[(a + M) % N] ^ mix(w[a], w[(a + 1) % N]);
        self.at = (a + 1) % N;
    }

    /// XOR a window given in order into this one.
    fn xor(&mut self, s: &[u32; N]) {
        let (front, back) = self.words.split_at_mut(self.at);
        for (w, x) in back.iter_mut().chain(front.iter_mut()).zip(s) {
            *w ^= x;
        }
    }

    fn window(&self) -> [u32; N] {
        let mut out = self.words;
        out.rotate_left(self.at);
        out
    }
}

/// `a^2 mod phi` (squaring over GF(2) spreads the bits: no cross terms).
fn square_mod(phi: &CharPoly, a: &[u64]) -> Vec<u64> {
    let mut p = vec![0u64; 2 * POLY_WORDS];
    for (i, w) in a.iter().enumerate() {
        p[2 * i] = spread(*w as u32);
        p[2 * i + 1] = spread((w >> 32) as u32);
    }
    reduce(phi, &mut p);
    p.truncate(POLY_WORDS);
    p
}

/// `a · x mod phi`, in place.
fn times_x_mod(phi: &CharPoly, a: &mut Vec<u64>) {
    a.push(0);
    let mut carry = 0;
    for w in a.iter_mut() {
        let next = *w >> 63;
        *w = *w << 1 | carry;
        carry = next;
    }
    reduce(phi, a);
    a.truncate(POLY_WORDS);
}

/// Reduce `p` modulo `phi`, from its highest bit down: each set bit at `DEGREE + k` is cleared
/// by adding (XOR) `phi · x^k`.
fn reduce(phi: &CharPoly, p: &mut [u64]) {
    for i in (DEGREE..p.len() * 64).rev() {
        if bit(p, i) {
            let k = i - DEGREE;
            for (dst, src) in p[k / 64..].iter_mut().zip(&phi.shifted[k % 64]) {
                *dst ^= src;
            }
        }
    }
}

/// The 32 bits of `x` at the even positions of a word (bit i to bit 2i).
fn spread(x: u32) -> u64 {
    let mut v = u64::from(x);
    v = (v | v << 16) & 0x0000_ffff_0000_ffff;
    v = (v | v << 8) & 0x00ff_00ff_00ff_00ff;
    v = (v | v << 4) & 0x0f0f_0f0f_0f0f_0f0f;
    v = (v | v << 2) & 0x3333_3333_3333_3333;
    (v | v << 1) & 0x5555_5555_5555_5555
}

fn bit(p: &[u64], i: usize) -> bool {
    p.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1)
}

fn set_bit(p: &mut [u64], i: usize) {
    p[i / 64] |= 1 << (i % 64);
}

/// The 64 bits of `p` from bit `at` on (zeros past its end).
fn bits_at(p: &[u64], at: usize) -> u64 {
    let (q, r) = (at / 64, at % 64);
    let lo = p.get(q).copied().unwrap_or(0) >> r;
    if r == 0 {
        lo
    } else {
        lo | p.get(q + 1).copied().unwrap_or(0) << (64 - r)
    }
}

/// `dst ^= src · x^shift`, within `dst`'s words.
fn xor_shifted(dst: &mut [u64], src: &[u64], shift: usize) {
    let (words, bits) = (shift / 64, shift % 64);
    for (i, word) in dst.iter_mut().enumerate().skip(words) {
        let from = i - words;
        let high = src.get(from).copied().unwrap_or(0) << bits;
        let low = if bits == 0 || from == 0 { 0 } else { src.get(from - 1).copied().unwrap_or(0) >> (64 - bits) };
        *word ^= high | low;
    }
}

/// `p · x^r` in `words` words.
fn shift_left(p: &[u64], r: usize, words: usize) -> Vec<u64> {
    let mut out = vec![0u64; words];
    xor_shifted(&mut out, p, r);
    out
}

fn degree(p: &[u64]) -> Option<usize> {
    p.iter().rposition(|w| *w != 0).map(|j| 64 * j + 63 - p[j].leading_zeros() as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `k` single steps of the ring, the definition `jump` must agree with.
    fn stepped(s: &[u32; N], k: u64) -> [u32; N] {
        let mut r = Ring { words: *s, at: 0 };
        for _ in 0..k {
            r.step();
        }
        r.window()
    }

    #[test]
    fn a_twist_is_624_steps_of_the_ring() {
        let s = Mt::seeded(1).words;
        let mut t = s;
        twist(&mut t);
        assert_eq!(stepped(&s, 624), t);
    }

    #[test]
    fn the_recurrence_found_has_degree_19937_and_a_constant_term() {
        let phi = &char_poly().shifted[0];
        assert_eq!(degree(phi), Some(DEGREE));
        assert!(bit(phi, 0), "a primitive polynomial's constant term is 1");
    }

    #[test]
    fn a_jump_equals_stepping_word_by_word() {
        let mut s = Mt::seeded(20_261_207).words;
        twist(&mut s);
        for k in [1, 2, 396, 623, 624, 625, 1000, 624 * 5, 19_937, 40_000, 624 * 70 + 3] {
            assert_eq!(jump(&s, k), stepped(&s, k), "a jump by {k}");
        }
    }

    #[test]
    fn the_minimal_polynomial_of_a_short_recurrence_is_found() {
        // s[k + 4] = s[k + 1] ^ s[k]: x^4 + x + 1.
        let mut s = vec![true, false, false, false];
        for k in 0..20 {
            let next = s[k + 1] ^ s[k];
            s.push(next);
        }
        assert_eq!(minimal_polynomial(&s), vec![0b1_0011]);
    }
}
