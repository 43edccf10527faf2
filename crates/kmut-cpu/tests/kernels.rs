//! Kernels compiled with g++ over the prelude and run on the CPU: barriers, warp shuffles,
//! atomics, thread orders, the intrinsics mutants introduce, compile-error attribution and the
//! cache.

use std::ffi::c_void;
use std::path::PathBuf;
use std::sync::OnceLock;

use kmut_cpu::{build, BuildOptions, Compiler, Library, Order, Variant};

const KERNELS: &str = r#"
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#define BLOCK 256

// A tree reduction through shared memory: eight barriers per block.
extern "C" __global__ void block_sum(const float* __restrict__ x, float* __restrict__ out, int n) {
    __shared__ float buf[BLOCK];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    buf[t] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) buf[t] += buf[t + s];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = buf[0];
}

__device__ __forceinline__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
    return v;
}

// Shuffles within each warp, then one partial per warp through shared memory.
extern "C" __global__ void shuffle_sum(const float* x, float* out, int n) {
    __shared__ float partial[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = warp_sum(i < n ? x[i] : 0.0f);
    int lane = threadIdx.x & 31, warp = threadIdx.x / 32;
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < (int)(blockDim.x / 32) ? partial[lane] : 0.0f;
        v = warp_sum(v);
        if (lane == 0) out[blockIdx.x] = v;
    }
}

// Every other lane's value by index, by xor and from below.
extern "C" __global__ void shuffle_kinds(int* out) {
    int lane = threadIdx.x & 31;
    int base = threadIdx.x * 4;
    out[base + 0] = __shfl_sync(0xffffffff, lane * 10, 31 - lane);
    out[base + 1] = __shfl_xor_sync(0xffffffff, lane, 1);
    out[base + 2] = __shfl_up_sync(0xffffffff, lane, 3);
    out[base + 3] = (int)__ballot_sync(0xffffffff, lane % 2 == 0);
}

// A counter shared by every thread of the grid, and the last block's ticket.
extern "C" __global__ void count(int* counter, unsigned long long* big, float* total, int* last) {
    int ticket = atomicAdd(counter, 1);
    atomicAdd(big, 3ull);
    atomicAdd(total, 0.5f);
    atomicMax(last, ticket);
}

// Reads a neighbour's shared slot without a barrier: the result depends on the thread order.
extern "C" __global__ void racy_reverse(const float* x, float* out) {
    __shared__ float buf[BLOCK];
    buf[threadIdx.x] = x[threadIdx.x];
    __syncwarp();
    out[threadIdx.x] = buf[blockDim.x - 1 - threadIdx.x];
}

// The same with the barrier: every order gives the same result.
extern "C" __global__ void safe_reverse(const float* x, float* out) {
    __shared__ float buf[BLOCK];
    buf[threadIdx.x] = x[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = buf[blockDim.x - 1 - threadIdx.x];
}

// No barrier: the fast path. Uses what fast-math and precision mutants introduce.
extern "C" __global__ void intrinsics(const float* x, float* out, int n, long long stride) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = __ldg(&x[i]);
    float a = __expf(v) + __logf(fabsf(v) + 1.0f) + __fdividef(v, 3.0f) + __powf(fabsf(v), 1.5f);
    float b = __half2float(__float2half(v)) + __bfloat162float(__float2bfloat16(v)) + rsqrtf(v * v + 1.0f);
    float c = __saturatef(v) + max(v, 0.0f) + min(v, 1) + fmaxf(v, -1.0f) + __int_as_float(__float_as_int(v));
    float d = __sinf(v) + __cosf(v) + tanhf(v) + erff(v) + __frcp_rn(2.0f) + __fmul_rn(v, 2.0f) + fmaf(v, v, 1.0f);
    __threadfence();
    out[i * stride] = a + b + c + d;
}
"#;

fn options(dir: &std::path::Path) -> BuildOptions {
    BuildOptions { cache_dir: dir.to_path_buf(), jobs: 2, max_per_unit: 64 }
}

fn library() -> &'static Library {
    static LIB: OnceLock<(tempfile::TempDir, Library)> = OnceLock::new();
    &LIB.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let kernels = ["block_sum", "shuffle_sum", "shuffle_kinds", "count", "racy_reverse", "safe_reverse", "intrinsics"];
        let out = build(&Compiler::find().unwrap(), &[Variant::new("k", KERNELS, &kernels)], &options(dir.path())).unwrap();
        assert!(out.failed.is_empty(), "{:?}", out.failed);
        let lib = Library::open(&out.libraries["k"]).unwrap();
        (dir, lib)
    })
    .1
}

fn arg<T>(v: &mut T) -> *mut c_void {
    std::ptr::from_mut(v).cast()
}

fn run(kernel: &str, grid: u32, block: u32, args: &mut [*mut c_void], order: Order) {
    // SAFETY: every test passes one pointer per parameter, to values of the parameter's type,
    // and buffers as large as the kernel indexes.
    unsafe { library().launch("k", kernel, [grid, 1, 1], [block, 1, 1], args, order) }.unwrap();
}

#[test]
fn a_barrier_heavy_reduction_sums_every_block() {
    let n = 1000;
    let x: Vec<f32> = (0..n).map(|i| (i % 7) as f32).collect();
    let mut out = vec![0f32; 4];
    let (mut px, mut po, mut pn) = (x.as_ptr(), out.as_mut_ptr(), n);
    run("block_sum", 4, 256, &mut [arg(&mut px), arg(&mut po), arg(&mut pn)], Order::Forward);
    for (b, got) in out.iter().enumerate() {
        let want: f32 = x.iter().skip(b * 256).take(256).sum();
        assert!((got - want).abs() < 1e-3, "block {b}: {got} != {want}");
    }
}

#[test]
fn a_warp_shuffle_reduction_sums_every_block_in_every_order() {
    let n: i32 = 3 * 256 - 5;
    let x: Vec<f32> = (0..n).map(|i| ((i * 13) % 11) as f32 - 5.0).collect();
    for order in [Order::Forward, Order::Reverse, Order::Random(7)] {
        let mut out = vec![0f32; 3];
        let (mut px, mut po, mut pn) = (x.as_ptr(), out.as_mut_ptr(), n);
        run("shuffle_sum", 3, 256, &mut [arg(&mut px), arg(&mut po), arg(&mut pn)], order);
        for (b, got) in out.iter().enumerate() {
            let want: f32 = x.iter().skip(b * 256).take(256).sum();
            assert!((got - want).abs() < 1e-3, "{order:?} block {b}: {got} != {want}");
        }
    }
}

#[test]
fn shuffle_variants_follow_cuda_lane_rules() {
    let mut out = vec![0i32; 64 * 4];
    let mut po = out.as_mut_ptr();
    run("shuffle_kinds", 1, 64, &mut [arg(&mut po)], Order::Reverse);
    for t in 0..64usize {
        let lane = (t % 32) as i32;
        let r = &out[t * 4..t * 4 + 4];
        assert_eq!(r[0], (31 - lane) * 10, "shfl thread {t}");
        assert_eq!(r[1], lane ^ 1, "xor thread {t}");
        assert_eq!(r[2], if lane >= 3 { lane - 3 } else { lane }, "up thread {t}");
        assert_eq!(r[3] as u32, 0x5555_5555, "ballot thread {t}");
    }
}

#[test]
fn atomics_count_every_thread() {
    let (mut counter, mut big, mut total, mut last) = (0i32, 0u64, 0f32, -1i32);
    let (mut a, mut b, mut c, mut d) = (&raw mut counter, &raw mut big, &raw mut total, &raw mut last);
    run("count", 10, 100, &mut [arg(&mut a), arg(&mut b), arg(&mut c), arg(&mut d)], Order::Random(3));
    assert_eq!((counter, big, total, last), (1000, 3000, 500.0, 999));
}

#[test]
fn thread_orders_differ_only_for_a_racy_kernel() {
    let x: Vec<f32> = (0..256).map(|i| i as f32).collect();
    // Bits, so that NaN (never-written shared memory) compares equal to itself.
    let outputs = |kernel: &str| -> Vec<Vec<u32>> {
        [Order::Forward, Order::Reverse, Order::Random(2), Order::Random(9)]
            .into_iter()
            .map(|order| {
                let mut out = vec![f32::NAN; 256];
                let (mut px, mut po) = (x.as_ptr(), out.as_mut_ptr());
                run(kernel, 1, 256, &mut [arg(&mut px), arg(&mut po)], order);
                out.iter().map(|v| v.to_bits()).collect()
            })
            .collect()
    };
    let safe = outputs("safe_reverse");
    let want: Vec<u32> = x.iter().rev().map(|v| v.to_bits()).collect();
    assert!(safe.iter().all(|o| *o == want), "the barrier makes every order agree");
    let racy = outputs("racy_reverse");
    assert!(racy.windows(2).all(|w| w[0] != w[1]), "the missing barrier shows as orders that disagree: {racy:?}");
    // The same order twice gives the same result: the random order is seeded, and shared memory
    // is poisoned afresh at each launch rather than keeping the previous launch's values.
    assert_eq!(outputs("racy_reverse"), racy);
}

#[test]
#[expect(clippy::many_single_char_names, reason = "the formula's own names")]
fn fast_math_and_precision_intrinsics_compute_their_plain_functions() {
    let n = 100;
    let x: Vec<f32> = (0..n).map(|i| (i as f32 - 50.0) / 10.0).collect();
    let mut out = vec![0f32; n * 2];
    let (mut px, mut po, mut pn, mut ps) = (x.as_ptr(), out.as_mut_ptr(), n as i32, 2i64);
    run("intrinsics", 1, 128, &mut [arg(&mut px), arg(&mut po), arg(&mut pn), arg(&mut ps)], Order::Forward);
    for (i, &v) in x.iter().enumerate() {
        let half = half_round(v);
        let bf = f32::from_bits((v.to_bits() + 0x7fff + ((v.to_bits() >> 16) & 1)) & 0xffff_0000);
        let a = v.exp() + (v.abs() + 1.0).ln() + v / 3.0 + v.abs().powf(1.5);
        let b = half + bf + 1.0 / (v * v + 1.0).sqrt();
        let c = v.clamp(0.0, 1.0) + v.max(0.0) + v.min(1.0) + v.max(-1.0) + v;
        let d = v.sin() + v.cos() + v.tanh() + erf(v) + 0.5 + v * 2.0 + v.mul_add(v, 1.0);
        let want = a + b + c + d;
        let got = out[i * 2];
        assert!((got - want).abs() <= 1e-3 * (1.0 + want.abs()), "x = {v}: {got} != {want}");
    }
}

/// fp32 to the nearest fp16 and back (normal range only, which the test's values stay in).
fn half_round(v: f32) -> f32 {
    let bits = v.to_bits();
    let mantissa_drop = 13;
    let round = (1u32 << (mantissa_drop - 1)) - 1 + ((bits >> mantissa_drop) & 1);
    f32::from_bits((bits + round) & !((1u32 << mantissa_drop) - 1))
}

fn erf(x: f32) -> f32 {
    // Abramowitz and Stegun 7.1.26 (|error| < 1.5e-7), enough for a 1e-3 comparison.
    let t = 1.0 / (1.0 + 0.327_591_1 * f64::from(x.abs()));
    let y = 1.0
        - (((((1.061_405_429 * t - 1.453_152_027) * t) + 1.421_413_741) * t - 0.284_496_736) * t + 0.254_829_592) * t * (-f64::from(x) * f64::from(x)).exp();
    (y as f32).copysign(x)
}

#[test]
fn parameter_sizes_come_from_the_kernel_signature() {
    assert_eq!(library().param_sizes("k", "intrinsics").unwrap(), [8, 8, 4, 8]);
    assert_eq!(library().param_sizes("k", "count").unwrap(), [8, 8, 8, 8]);
}

#[test]
fn bad_launches_are_reported_not_run() {
    let mut po = std::ptr::null_mut::<i32>();
    // SAFETY: the launcher rejects the block before touching any argument.
    let err = unsafe { library().launch("k", "shuffle_kinds", [1, 1, 1], [2048, 1, 1], &mut [arg(&mut po)], Order::Forward) }.unwrap_err();
    assert!(err.to_string().contains("1024 threads"), "{err}");
}

#[test]
fn a_variant_that_fails_to_compile_is_set_aside_and_the_rest_still_build() {
    let dir = tempfile::tempdir().unwrap();
    let good = "__global__ void k(float* o) { o[threadIdx.x] = 1.0f; }\n";
    let bad = "__global__ void k(float* o) {\n    o[threadIdx.x] = undeclared;\n}\n";
    let variants = [Variant::new("good", good, &["k"]), Variant::new("bad", bad, &["k"]), Variant::new("also_good", good, &["k"])];
    let opts = BuildOptions { jobs: 1, ..options(dir.path()) };
    let compiler = Compiler::find().unwrap();
    let out = build(&compiler, &variants, &opts).unwrap();
    assert_eq!(out.libraries.keys().collect::<Vec<_>>(), ["also_good", "good"]);
    let log = &out.failed["bad"];
    assert!(log.contains("variant/bad.cu:2:") && log.contains("undeclared"), "{log}");
    assert_eq!(out.units[0].attempts, 2);
    // The same build again comes from the cache.
    let again = build(&compiler, &variants, &opts).unwrap();
    assert!(again.units[0].cached);
    assert_eq!(again.libraries, out.libraries);
}

#[test]
fn many_variants_share_one_library_and_keep_their_own_macros() {
    let dir = tempfile::tempdir().unwrap();
    let source = |scale: f32| format!("#define SCALE {scale:?}f\nextern \"C\" __global__ void k(float* o) {{ o[threadIdx.x] = SCALE; }}\n");
    let variants: Vec<Variant> = (0..4).map(|i| Variant::new(format!("m{i}"), source(i as f32), &["k"])).collect();
    let out = build(&Compiler::find().unwrap(), &variants, &BuildOptions { jobs: 1, ..options(dir.path()) }).unwrap();
    let paths: std::collections::BTreeSet<&PathBuf> = out.libraries.values().collect();
    assert_eq!(paths.len(), 1, "one translation unit");
    let lib = Library::open(paths.into_iter().next().unwrap()).unwrap();
    for i in 0..4u8 {
        let mut o = [0f32; 2];
        let mut po = o.as_mut_ptr();
        // SAFETY: one pointer parameter, two threads writing o[0] and o[1].
        unsafe { lib.launch(&format!("m{i}"), "k", [1, 1, 1], [2, 1, 1], &mut [arg(&mut po)], Order::Forward) }.unwrap();
        assert_eq!(o.map(f32::to_bits), [f32::from(i).to_bits(); 2]);
    }
}
