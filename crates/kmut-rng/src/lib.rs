//! torch's CPU generator (`torch.default_generator`): an MT19937 whose state `get_state()`
//! exposes, and whose `torch.rand` on a float32 tensor takes one 32-bit output per element,
//! keeps its low 24 bits and scales them by 2^-24.
//!
//! `KernelBench` draws its official inputs that way, on one core: up to 2^31 elements, about
//! 0.29 G elements/s on the H200 host, the largest phase of a column's preparation on a fresh
//! machine (`docs/performance.md`). The stream is sequential (each state block is the twist of
//! the one before), but the twist is linear, so the generator can be jumped ahead (`jump`):
//! [`fill_uniform_f32`] gives each thread of a long draw its own run of blocks, started by a
//! jump, and each thread twists, tempers and converts its run; a short draw twists on one thread,
//! writing the raw words into the output, then tempers and converts them in place on several.
//! The values and the state left behind are torch's to the bit (`tests/python/test_fastrand.py`
//! checks both against torch itself).

/// Words of state, and the middle offset of the recurrence.
const N: usize = 624;
const M: usize = 397;

mod jump;
/// float32 values per 4 KiB page.
const PAGE_F32: usize = 1024;

/// The generator as torch keeps it (`at::mt19937_data_pod`): the block of words, the index of
/// the next word to output, and `left`, one more than the words left in the block (1: the
/// block is used up, the next output twists first; a freshly seeded state is so).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mt {
    pub words: [u32; N],
    pub next: usize,
    pub left: usize,
}

/// The byte layout of `torch.default_generator.get_state()` (`CPUGeneratorImplState`): the
/// legacy POD's seed, `left`, `seeded`, `next`, the 624 words (each in a `uint64_t`), the
/// normal-sample cache, then the float normal cache; 5056 bytes on 64-bit Linux.
pub const STATE_BYTES: usize = 5056;
const LEFT_AT: usize = 8;
const NEXT_AT: usize = 16;
const WORDS_AT: usize = 24;

impl Mt {
    /// The generator of a torch state tensor's bytes.
    pub fn from_torch_state(bytes: &[u8]) -> Result<Mt, String> {
        if bytes.len() != STATE_BYTES {
            return Err(format!("a CPU generator state has {STATE_BYTES} bytes, not {}", bytes.len()));
        }
        let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap_or_default());
        let left = i32::from_le_bytes(bytes[LEFT_AT..LEFT_AT + 4].try_into().unwrap_or_default());
        let next = u64_at(NEXT_AT);
        let mut words = [0u32; N];
        for (i, w) in words.iter_mut().enumerate() {
            // The words are 32-bit; torch stores each in a uint64_t.
            *w = u64_at(WORDS_AT + 8 * i) as u32;
        }
        let (Ok(left), Ok(next)) = (usize::try_from(left), usize::try_from(next)) else {
            return Err(format!("a CPU generator state with left {left} and next {next}"));
        };
        if !(1..=N).contains(&left) || next > N {
            return Err(format!("a CPU generator state with left {left} and next {next}"));
        }
        Ok(Mt { words, next, left })
    }

    /// `bytes` (a torch state) with this generator's words, `left` and `next` written in; every
    /// other field (the seed, the normal-sample caches) is kept.
    pub fn write_torch_state(&self, bytes: &mut [u8]) -> Result<(), String> {
        if bytes.len() != STATE_BYTES {
            return Err(format!("a CPU generator state has {STATE_BYTES} bytes, not {}", bytes.len()));
        }
        let left = i32::try_from(self.left).map_err(|e| e.to_string())?;
        bytes[LEFT_AT..LEFT_AT + 4].copy_from_slice(&left.to_le_bytes());
        bytes[NEXT_AT..NEXT_AT + 8].copy_from_slice(&(self.next as u64).to_le_bytes());
        for (i, w) in self.words.iter().enumerate() {
            bytes[WORDS_AT + 8 * i..WORDS_AT + 8 * i + 8].copy_from_slice(&u64::from(*w).to_le_bytes());
        }
        Ok(())
    }

    /// The state `init_genrand(seed)` gives (torch's `manual_seed` keeps the low 32 bits).
    #[must_use]
    pub fn seeded(seed: u32) -> Mt {
        let mut words = [0u32; N];
        words[0] = seed;
        for i in 1..N {
            let p = words[i - 1];
            words[i] = 1_812_433_253u32.wrapping_mul(p ^ (p >> 30)).wrapping_add(i as u32);
        }
        Mt { words, next: 0, left: 1 }
    }

    /// One 32-bit output, as torch's `mt19937::operator()` gives it.
    pub fn next_u32(&mut self) -> u32 {
        self.left -= 1;
        if self.left == 0 {
            twist(&mut self.words);
            self.left = N;
            self.next = 0;
        }
        let y = self.words[self.next];
        self.next += 1;
        temper(y)
    }
}

/// The recurrence's mix of two consecutive words: the first's top bit, the second's low 31,
/// shifted and multiplied by the twist matrix (linear over GF(2), as `jump` needs).
fn mix(u: u32, v: u32) -> u32 {
    (((u & 0x8000_0000) | (v & 0x7fff_ffff)) >> 1) ^ if v & 1 == 1 { 0x9908_b0df } else { 0 }
}

/// The next block of state, in place (torch's `next_state`).
fn twist(p: &mut [u32; N]) {
    for j in 0..N - M {
        p[j] = p[j + M] ^ mix(p[j], p[j + 1]);
    }
    for j in N - M..N - 1 {
        p[j] = p[j + M - N] ^ mix(p[j], p[j + 1]);
    }
    p[N - 1] = p[M - 1] ^ mix(p[N - 1], p[0]);
}

fn temper(mut y: u32) -> u32 {
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c_5680;
    y ^= (y << 15) & 0xefc6_0000;
    y ^ (y >> 18)
}

/// torch's float32 uniform of one output: its low 24 bits over 2^24 (exact in float32).
fn uniform_f32(x: u32) -> f32 {
    ((f64::from(x & 0x00ff_ffff)) * (1.0 / f64::from(1u32 << 24))) as f32
}

/// Below this many blocks a draw twists on one thread: starting a thread at its own block
/// costs a jump (7 to 20 ms on a 2-core VM for the jumps a draw of up to 2^31 elements makes:
/// squarings modulo a polynomial of degree 19,937, then 19,937 steps), which the twist of about
/// 40 M words pays for. The polynomial itself is found once per process (about 50 ms).
pub const JUMP_MIN_BLOCKS: usize = 1 << 16;

/// `out.len()` values of `torch.rand` from `mt`, which is left where torch would leave it, on up
/// to `threads` threads. A draw of at least [`JUMP_MIN_BLOCKS`] blocks gives each thread its own
/// run of blocks, started by a jump ahead (`jump`); a shorter one twists on this thread and
/// tempers and converts on the others.
pub fn fill_uniform_f32(mt: &mut Mt, out: &mut [f32], threads: usize) {
    fill_uniform_f32_from(mt, out, threads, JUMP_MIN_BLOCKS);
}

/// [`fill_uniform_f32`] with the jump threshold given: `usize::MAX` always twists on one thread
/// (`kmut bench draw` times both paths), 1 jumps whenever there are several threads.
pub fn fill_uniform_f32_from(mt: &mut Mt, out: &mut [f32], threads: usize, jump_min_blocks: usize) {
    // The words left in the current block come first.
    let head = (mt.left - 1).min(out.len());
    let (first, rest) = out.split_at_mut(head);
    for v in first.iter_mut() {
        *v = uniform_f32(mt.next_u32());
    }
    if rest.is_empty() {
        return;
    }
    let threads = threads.clamp(1, 64);
    let (block, last) =
        if threads > 1 && rest.len().div_ceil(N) >= jump_min_blocks { fill_jumped(&mt.words, rest, threads) } else { fill_twisted(&mt.words, rest, threads) };
    // The generator rests in the last block, `last` words into it.
    mt.words = block;
    mt.next = last;
    mt.left = N + 1 - last;
}

/// Every thread twists its own run of whole blocks from a state jumped to its start, and
/// tempers and converts as it goes (its pages are faulted in on its own thread too). Returns
/// the last block and the words used of it.
fn fill_jumped(start: &[u32; N], rest: &mut [f32], threads: usize) -> ([u32; N], usize) {
    let blocks = rest.len().div_ceil(N);
    let per = blocks.div_ceil(threads);
    let last_block = std::thread::scope(|s| {
        let runs: Vec<_> = rest
            .chunks_mut(per * N)
            .enumerate()
            .map(|(t, run)| {
                s.spawn(move || {
                    let mut block = if t == 0 { *start } else { jump::jump(start, (t * per * N) as u64) };
                    for part in run.chunks_mut(N) {
                        twist(&mut block);
                        for (v, w) in part.iter_mut().zip(&block) {
                            *v = uniform_f32(temper(*w));
                        }
                    }
                    block
                })
            })
            .collect();
        runs.into_iter().map(|h| h.join().expect("a draw thread panicked")).last()
    });
    (last_block.unwrap_or(*start), rest.len() - (blocks - 1) * N)
}

/// The twist on this thread, block by block, the raw words copied out; tempering and
/// converting on `threads` threads. Returns the last block and the words used of it.
fn fill_twisted(start: &[u32; N], rest: &mut [f32], threads: usize) -> ([u32; N], usize) {
    let chunk = rest.len().div_ceil(threads).max(1 << 16);
    // A fresh tensor's pages are not mapped yet: the first write to each faults, which on one
    // thread costs more than the twist itself (0.19 against 0.94 G elements/s on a 2-core VM).
    // Touching one element per page on every thread first maps them in parallel.
    std::thread::scope(|s| {
        for part in rest.chunks_mut(chunk) {
            s.spawn(move || {
                for v in part.iter_mut().step_by(PAGE_F32) {
                    *v = 0.0;
                }
            });
        }
    });
    // Each block twisted from the one before, its raw words copied out; the output's f32 slots
    // hold them as bits until the parallel pass converts them.
    let mut block = *start;
    let mut written = 0;
    let mut last = 0;
    while written < rest.len() {
        twist(&mut block);
        last = (rest.len() - written).min(N);
        for (slot, w) in rest[written..written + last].iter_mut().zip(&block[..last]) {
            *slot = f32::from_bits(*w);
        }
        written += last;
    }
    std::thread::scope(|s| {
        for part in rest.chunks_mut(chunk) {
            s.spawn(move || {
                for v in part.iter_mut() {
                    *v = uniform_f32(temper(v.to_bits()));
                }
            });
        }
    });
    (block, last)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first outputs of `init_genrand(5489)`, the reference implementation's test vector.
    #[test]
    fn the_stream_is_mt19937s() {
        let mut mt = Mt::seeded(5489);
        let first: Vec<u32> = (0..3).map(|_| mt.next_u32()).collect();
        assert_eq!(first, [3_499_211_612, 581_869_302, 3_890_346_734]);
    }

    #[test]
    fn filling_equals_drawing_one_at_a_time_from_any_position_and_leaves_the_same_state() {
        for (skip, n, threads) in
            [(0, 10, 1), (0, 624, 2), (1, 5000, 3), (623, 1, 4), (100, 624 * 3 + 17, 8), (624, 70_000, 5), (3, 624 * 16, 16), (0, 624 * 7 + 1, 3)]
        {
            let mut a = Mt::seeded(42);
            for _ in 0..skip {
                a.next_u32();
            }
            let b = a.clone();
            let one: Vec<f32> = (0..n).map(|_| uniform_f32(a.next_u32())).collect();
            // Both paths: the twist on one thread, and every thread jumped to its own blocks.
            for jump_min_blocks in [usize::MAX, 1] {
                let mut c = b.clone();
                let mut filled = vec![0f32; n];
                fill_uniform_f32_from(&mut c, &mut filled, threads, jump_min_blocks);
                assert!(one.iter().zip(&filled).all(|(x, y)| x.to_bits() == y.to_bits()), "skip {skip}, n {n}, jump from {jump_min_blocks}");
                assert_eq!(a, c, "the state after skip {skip}, n {n}, jump from {jump_min_blocks}");
            }
        }
    }

    #[test]
    fn a_torch_state_round_trips_and_a_malformed_one_is_refused() {
        let mut bytes = vec![0u8; STATE_BYTES];
        let mut mt = Mt::seeded(7);
        mt.next_u32();
        mt.write_torch_state(&mut bytes).unwrap();
        assert_eq!(Mt::from_torch_state(&bytes).unwrap(), mt);
        assert!(Mt::from_torch_state(&bytes[..100]).unwrap_err().contains("5056 bytes"));
        bytes[LEFT_AT..LEFT_AT + 4].copy_from_slice(&0i32.to_le_bytes());
        assert!(Mt::from_torch_state(&bytes).is_err());
    }
}
