// kmut CPU prelude: what a CUDA kernel source needs to compile as C++17 with g++ on x86-64 and
// run on one OS thread. Written for kmut; see docs/cpu-backend.md for what it emulates and where
// it differs from a GPU.
//
// Model: a launch runs its blocks one after another on the calling OS thread. Within a block,
// a kernel without barriers or warp operations runs thread after thread as plain calls; any
// other kernel runs one fiber per thread, and every barrier, __syncwarp and shuffle switches
// fibers cooperatively. So shared memory is static storage of the OS thread, atomics are plain
// read-modify-writes, and fences are compiler barriers.

#include <cassert>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <limits>
#include <math.h>  // libstdc++'s wrapper: the float overloads of exp, log, ... in the global namespace
#include <sys/mman.h>
#include <tuple>
#include <type_traits>
#include <unistd.h>
#include <utility>

#define KMUT_CPU 1
#define KMUT_HIDDEN __attribute__((visibility("hidden")))
#define KMUT_EXPORT extern "C" __attribute__((visibility("default")))

// ---------------------------------------------------------------- qualifiers
#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __grid_constant__
#define __forceinline__ __attribute__((unused))
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
// Shared memory is per OS thread: correct while the blocks of a launch run one after another on
// it. `extern __shared__` arrays are rewritten by the translator (they have no size here).
#define __shared__ static thread_local
#define KMUT_DYNAMIC_SHARED_BYTES 49152
// The translator puts this after every __shared__ declaration inside a function.
#define KMUT_NOTE_SHARED(name) ::kmut::rt::note_shared((void*)&(name), sizeof(name))

// ---------------------------------------------------------------- types
struct uint3 {
    unsigned int x, y, z;
};
struct dim3 {
    unsigned int x, y, z;
    constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    constexpr operator uint3() const { return uint3{x, y, z}; }
};

#define KMUT_VEC2(T, N, A)                                                                        \
    struct __attribute__((aligned(A))) N {                                                        \
        T x, y;                                                                                   \
    };                                                                                            \
    static inline N make_##N(T x, T y) { return N{x, y}; }
#define KMUT_VEC3(T, N)                                                                           \
    struct N {                                                                                    \
        T x, y, z;                                                                                \
    };                                                                                            \
    static inline N make_##N(T x, T y, T z) { return N{x, y, z}; }
#define KMUT_VEC4(T, N, A)                                                                        \
    struct __attribute__((aligned(A))) N {                                                        \
        T x, y, z, w;                                                                             \
    };                                                                                            \
    static inline N make_##N(T x, T y, T z, T w) { return N{x, y, z, w}; }
KMUT_VEC2(float, float2, 8)
KMUT_VEC3(float, float3)
KMUT_VEC4(float, float4, 16)
KMUT_VEC2(int, int2, 8)
KMUT_VEC3(int, int3)
KMUT_VEC4(int, int4, 16)
KMUT_VEC2(unsigned int, uint2, 8)
KMUT_VEC4(unsigned int, uint4, 16)
KMUT_VEC2(double, double2, 16)
KMUT_VEC2(long long, longlong2, 16)
static inline uint3 make_uint3(unsigned int x, unsigned int y, unsigned int z) { return uint3{x, y, z}; }

// fp16 is the compiler's _Float16 (IEEE binary16, round-to-nearest-even conversions, as
// __float2half). bf16 has no arithmetic type in g++ 12's C++, so it is a 16-bit storage type
// converting through float with round-to-nearest-even, as __float2bfloat16.
typedef _Float16 __half;
typedef __half half;

namespace kmut {
template <class T>
struct identity {
    using type = T;
};
template <class To, class From>
static inline To bit_cast(From v) {
    static_assert(sizeof(To) == sizeof(From), "bit_cast between types of different sizes");
    To out;
    std::memcpy(&out, &v, sizeof(To));
    return out;
}
static inline unsigned short float_to_bf16_bits(float f) {
    unsigned int u = bit_cast<unsigned int>(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((u >> 16) | 0x40u);  // quiet NaN
    u += 0x7fffu + ((u >> 16) & 1u);
    return (unsigned short)(u >> 16);
}
static inline float bf16_bits_to_float(unsigned short b) { return bit_cast<float>((unsigned int)b << 16); }
}  // namespace kmut

struct __nv_bfloat16 {
    unsigned short bits;
    __nv_bfloat16() = default;
    template <class T, class = std::enable_if_t<std::is_arithmetic<T>::value || std::is_same<T, _Float16>::value>>
    __nv_bfloat16(T v) : bits(kmut::float_to_bf16_bits((float)v)) {}
    operator float() const { return kmut::bf16_bits_to_float(bits); }
};
typedef __nv_bfloat16 nv_bfloat16;

static inline __half __float2half(float f) { return (__half)f; }
static inline __half __float2half_rn(float f) { return (__half)f; }
static inline __half __double2half(double d) { return (__half)d; }
static inline float __half2float(__half h) { return (float)h; }
static inline __half __int2half_rn(int i) { return (__half)i; }
static inline int __half2int_rz(__half h) { return (int)(float)h; }
static inline unsigned short __half_as_ushort(__half h) { return kmut::bit_cast<unsigned short>(h); }
static inline __half __ushort_as_half(unsigned short u) { return kmut::bit_cast<__half>(u); }
static inline __half __hadd(__half a, __half b) { return (__half)((float)a + (float)b); }
static inline __half __hsub(__half a, __half b) { return (__half)((float)a - (float)b); }
static inline __half __hmul(__half a, __half b) { return (__half)((float)a * (float)b); }
static inline __half __hdiv(__half a, __half b) { return (__half)((float)a / (float)b); }
static inline __half __hfma(__half a, __half b, __half c) { return (__half)std::fma((float)a, (float)b, (float)c); }
static inline __half __hneg(__half a) { return (__half)(-(float)a); }
static inline __half __habs(__half a) { return (__half)std::fabs((float)a); }
static inline __half __hmax(__half a, __half b) { return (__half)std::fmax((float)a, (float)b); }
static inline __half __hmin(__half a, __half b) { return (__half)std::fmin((float)a, (float)b); }
static inline bool __heq(__half a, __half b) { return (float)a == (float)b; }
static inline bool __hne(__half a, __half b) { return (float)a != (float)b; }
static inline bool __hlt(__half a, __half b) { return (float)a < (float)b; }
static inline bool __hle(__half a, __half b) { return (float)a <= (float)b; }
static inline bool __hgt(__half a, __half b) { return (float)a > (float)b; }
static inline bool __hge(__half a, __half b) { return (float)a >= (float)b; }
static inline bool __hisnan(__half a) { return std::isnan((float)a); }
static inline __half hexp(__half a) { return (__half)std::exp((float)a); }
static inline __half hlog(__half a) { return (__half)std::log((float)a); }
static inline __half hsqrt(__half a) { return (__half)std::sqrt((float)a); }
static inline __half hrsqrt(__half a) { return (__half)(1.0f / std::sqrt((float)a)); }
static inline __nv_bfloat16 __float2bfloat16(float f) { return __nv_bfloat16(f); }
static inline __nv_bfloat16 __float2bfloat16_rn(float f) { return __nv_bfloat16(f); }
static inline float __bfloat162float(__nv_bfloat16 b) { return (float)b; }

// ---------------------------------------------------------------- index variables
// thread_local so that OS threads running launches concurrently do not share them; the fiber
// scheduler rewrites threadIdx at every switch. Hidden, not static: the compiler must assume
// that the (external) context switch changes them.
KMUT_HIDDEN thread_local uint3 threadIdx;
KMUT_HIDDEN thread_local uint3 blockIdx;
KMUT_HIDDEN thread_local dim3 blockDim;
KMUT_HIDDEN thread_local dim3 gridDim;
constexpr int warpSize = 32;

// ---------------------------------------------------------------- fibers
// The context switch: push the callee-saved registers of the System V x86-64 ABI on the current
// stack, store the stack pointer, load the other one and pop its registers. Caller-saved
// registers are already saved by the compiler around the call. A new fiber's stack is prepared
// so that the first switch "returns" into kmut_fiber_entry with the fiber in r12 and its body in
// r13. (ucontext would also save the signal mask with a system call at every switch.)
extern "C" KMUT_HIDDEN void kmut_switch(void** save_sp, void* next_sp);
extern "C" KMUT_HIDDEN void kmut_fiber_entry();
asm(R"(
    .text
    .p2align 4
    .globl kmut_switch
    .hidden kmut_switch
    .type kmut_switch, @function
kmut_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size kmut_switch, .-kmut_switch

    .p2align 4
    .globl kmut_fiber_entry
    .hidden kmut_fiber_entry
    .type kmut_fiber_entry, @function
kmut_fiber_entry:
    movq %r12, %rdi
    callq *%r13
    ud2
    .size kmut_fiber_entry, .-kmut_fiber_entry
)");

namespace kmut {
namespace rt {

constexpr unsigned kMaxThreads = 1024;
constexpr size_t kStackBytes = 256 * 1024;
constexpr unsigned kMaxShared = 64;

// What a launcher returns.
enum Status : int {
    kOk = 0,
    kNoStacks = 1,         // mmap of the fiber stacks failed
    kBarrierOnFastPath = 2,  // a kernel classified barrier-free reached a barrier or warp operation
    kBadBlock = 3,         // more than 1024 threads, or a zero dimension
};

enum class State : unsigned char { Ready, WarpWait, BlockWait, Done };

struct Fiber {
    void* sp;
    uint3 tid;
    State state;
    int vote;  // __syncthreads_count/_and/_or
};

// No member initialisers: a zero-initialised thread_local needs no guard on every access.
struct Scheduler {
    char* stacks;  // kMaxThreads slots of [guard page | stack]
    size_t slot_bytes;
    void* home_sp;  // the scheduler's own stack while a fiber runs
    unsigned current;
    unsigned nthreads;
    unsigned warp_waiting;   // lanes of the running warp parked at a warp operation
    unsigned block_waiting;  // threads parked at the block barrier
    bool fibers;
    bool misuse;
    void (*body)(void*);
    void* ctx;
    Fiber fiber[kMaxThreads];
    unsigned long long slot[kMaxThreads];  // warp exchange: one slot per thread, 32 per warp
    unsigned order_buf[kMaxThreads];
    void* shared[kMaxShared];  // __shared__ variables poisoned in this launch
    unsigned nshared;
};
KMUT_HIDDEN thread_local Scheduler sched;

// splitmix64: the random thread and block orders (race witnesses), reproducible per seed.
struct Rng {
    unsigned long long s;
    unsigned long long next() {
        unsigned long long z = (s += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    unsigned long long below(unsigned long long n) { return next() % n; }
};

template <class T>
static inline void shuffle(T* v, unsigned long long n, Rng& rng) {
    for (unsigned long long i = n; i > 1; --i) {
        unsigned long long j = rng.below(i);
        T t = v[i - 1];
        v[i - 1] = v[j];
        v[j] = t;
    }
}

// 0..n-1 in the launch's order: forward, reverse or shuffled.
static inline void order_list(unsigned* o, unsigned n, int order, Rng& rng) {
    for (unsigned i = 0; i < n; ++i) o[i] = order == 1 ? n - 1 - i : i;
    if (order >= 2) shuffle(o, n, rng);
}

static inline uint3 decompose(unsigned long long t, dim3 d) {
    return uint3{(unsigned)(t % d.x), (unsigned)((t / d.x) % d.y), (unsigned)(t / ((unsigned long long)d.x * d.y))};
}

static inline bool ensure_stacks() {
    Scheduler& s = sched;
    if (s.stacks) return true;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    s.slot_bytes = kStackBytes + page;
    void* m = mmap(nullptr, s.slot_bytes * kMaxThreads, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (m == MAP_FAILED) return false;
    s.stacks = static_cast<char*>(m);
    // A guard page below every stack turns an overflow into a fault instead of a silent write
    // into the neighbouring fiber's stack.
    for (unsigned i = 0; i < kMaxThreads; ++i) mprotect(s.stacks + i * s.slot_bytes, page, PROT_NONE);
    return true;
}

static void fiber_main(void* self) {
    Fiber* f = static_cast<Fiber*>(self);
    sched.body(sched.ctx);
    f->state = State::Done;
    f->vote = 0;
    kmut_switch(&f->sp, sched.home_sp);
    __builtin_trap();  // a finished fiber is never resumed
}

static inline void start_fiber(unsigned t, dim3 block) {
    Scheduler& s = sched;
    Fiber& f = s.fiber[t];
    // Stack tops one page-multiple apart would all map to the same L1 cache sets; a different
    // cache-line offset per fiber spreads the hot top frames over the cache.
    uintptr_t top = reinterpret_cast<uintptr_t>(s.stacks + (size_t)(t + 1) * s.slot_bytes) - (t % 61) * 64;
    uintptr_t aligned = (top & ~(uintptr_t)15) - 16;
    // After the six pops and the ret of kmut_switch, rsp == aligned (16-byte aligned), so the
    // call in kmut_fiber_entry enters fiber_main with the alignment the ABI requires.
    void** sp = reinterpret_cast<void**>(aligned - 7 * sizeof(void*));
    sp[0] = nullptr;                                   // r15
    sp[1] = nullptr;                                   // r14
    sp[2] = reinterpret_cast<void*>(&fiber_main);      // r13: the body
    sp[3] = &f;                                        // r12: its argument
    sp[4] = nullptr;                                   // rbx
    sp[5] = nullptr;                                   // rbp
    sp[6] = reinterpret_cast<void*>(&kmut_fiber_entry);  // return address
    f.sp = sp;
    f.tid = decompose(t, block);
    f.state = State::Ready;
    f.vote = 0;
    s.slot[t] = 0;
}

// Called by the running fiber: park in `state` and switch back to the scheduler.
static inline void park(State state) {
    Scheduler& s = sched;
    Fiber& f = s.fiber[s.current];
    f.state = state;
    ++(state == State::WarpWait ? s.warp_waiting : s.block_waiting);
    kmut_switch(&f.sp, s.home_sp);
}

// Run one block of fibers to completion, warp by warp (in the launch's warp order): a warp's
// lanes run (in the launch's lane order) until each parks or finishes; lanes parked at a warp
// operation resume as soon as no lane of their warp can still run, so a warp runs ahead to the
// next block barrier before the next warp starts, as independent warps may on a GPU. When every
// warp waits at the barrier (or has finished), the barrier opens. Threads that exited count as
// arrived, as on current GPUs.
static inline void run_block_fibers(unsigned n, dim3 block, int order, Rng& rng) {
    Scheduler& s = sched;
    for (unsigned t = 0; t < n; ++t) start_fiber(t, block);
    s.warp_waiting = s.block_waiting = 0;
    unsigned warps = (n + 31) / 32;
    unsigned warp_order[kMaxThreads / 32], lanes[32];
    for (;;) {
        order_list(warp_order, warps, order, rng);
        for (unsigned wi = 0; wi < warps; ++wi) {
            unsigned lo = warp_order[wi] * 32, width = n - lo < 32 ? n - lo : 32;
            for (bool again = true; again;) {
                if (order >= 2) order_list(lanes, width, order, rng);
                for (unsigned i = 0; i < width; ++i) {
                    unsigned t = lo + (order == 0 ? i : order == 1 ? width - 1 - i : lanes[i]);
                    Fiber& f = s.fiber[t];
                    if (f.state != State::Ready) continue;
                    s.current = t;
                    threadIdx = f.tid;
                    kmut_switch(&s.home_sp, f.sp);
                }
                again = s.warp_waiting != 0;
                if (!again) continue;
                s.warp_waiting = 0;
                for (unsigned t = lo; t < lo + width; ++t)
                    if (s.fiber[t].state == State::WarpWait) s.fiber[t].state = State::Ready;
            }
        }
        if (!s.block_waiting) return;
        s.block_waiting = 0;
        for (unsigned t = 0; t < n; ++t)
            if (s.fiber[t].state == State::BlockWait) s.fiber[t].state = State::Ready;
    }
}

// Shared memory holds garbage when a GPU kernel starts. Here each __shared__ variable is filled
// with 0xff bytes (NaN as float, -1 as int) when the first thread of a launch declares it, so a
// read before any write (a race) shows instead of reading the previous launch's values.
static inline void note_shared(void* p, size_t bytes) {
    Scheduler& s = sched;
    for (unsigned i = 0; i < s.nshared; ++i)
        if (s.shared[i] == p) return;
    if (s.nshared == kMaxShared) return;
    s.shared[s.nshared++] = p;
    std::memset(p, 0xff, bytes);
}
}  // namespace rt

// A parameter from its bytes (cuLaunchKernel style: args[i] points at the value).
template <class P>
static inline P load_arg(const void* bytes) {
    typename std::remove_cv<P>::type v;
    std::memcpy(static_cast<void*>(&v), bytes, sizeof(v));
    return v;
}

template <class F>
struct KernelTraits;
template <class... P>
struct KernelTraits<void (*)(P...)> {
    using Args = std::tuple<typename std::remove_cv<P>::type...>;
    template <size_t... I>
    static Args unpack(void** args, std::index_sequence<I...>) {
        return Args(load_arg<P>(args[I])...);
    }
    static Args unpack(void** args) { return unpack(args, std::index_sequence_for<P...>{}); }
    static int sizes(long long* out, int cap) {
        long long all[] = {(long long)sizeof(P)..., 0};
        int n = (int)sizeof...(P);
        for (int i = 0; i < n && i < cap; ++i) out[i] = all[i];
        return n;
    }
};

// Every block of a launch, one after another, in the launch's block order: forward (0),
// reverse (1), or shuffled with seed `order` (2 and above), and within each block the threads
// in the same kind of order.
template <auto Kernel, bool Fibers>
static int launch(unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, void** args, int order) {
    using Traits = KernelTraits<decltype(Kernel)>;
    using namespace rt;
    if (!gx || !gy || !gz || !bx || !by || !bz) return kBadBlock;
    unsigned long long n = (unsigned long long)bx * by * bz;
    if (n > kMaxThreads) return kBadBlock;
    if (Fibers && !ensure_stacks()) return kNoStacks;
    typename Traits::Args call = Traits::unpack(args);
    dim3 grid(gx, gy, gz), block(bx, by, bz);
    gridDim = grid;
    blockDim = block;
    Scheduler& s = sched;
    s.fibers = Fibers;
    s.misuse = false;
    s.nshared = 0;
    s.nthreads = (unsigned)n;
    s.body = [](void* c) { std::apply(Kernel, *static_cast<typename Traits::Args*>(c)); };
    s.ctx = &call;
    Rng rng{0x6b6d7574ull ^ ((unsigned long long)order * 0x9e3779b97f4a7c15ull)};
    unsigned long long blocks = (unsigned long long)gx * gy * gz;
    unsigned long long* perm = nullptr;
    if (order >= 2) {
        perm = static_cast<unsigned long long*>(std::malloc(blocks * sizeof(unsigned long long)));
        if (!perm) return kNoStacks;
        for (unsigned long long b = 0; b < blocks; ++b) perm[b] = b;
        shuffle(perm, blocks, rng);
    }
    for (unsigned long long k = 0; k < blocks; ++k) {
        unsigned long long b = order == 0 ? k : order == 1 ? blocks - 1 - k : perm[k];
        blockIdx = decompose(b, grid);
        if constexpr (Fibers) {
            run_block_fibers((unsigned)n, block, order, rng);
        } else if (order == 0) {
            for (unsigned z = 0; z < bz; ++z)
                for (unsigned y = 0; y < by; ++y)
                    for (unsigned x = 0; x < bx; ++x) {
                        threadIdx = uint3{x, y, z};
                        std::apply(Kernel, call);
                    }
        } else {
            order_list(s.order_buf, (unsigned)n, order, rng);
            for (unsigned i = 0; i < n; ++i) {
                threadIdx = decompose(s.order_buf[i], block);
                std::apply(Kernel, call);
            }
        }
    }
    std::free(perm);
    s.fibers = false;
    return s.misuse ? kBarrierOnFastPath : kOk;
}

template <auto Kernel>
static int param_sizes(long long* out, int cap) {
    return KernelTraits<decltype(Kernel)>::sizes(out, cap);
}

namespace rt {
// The running fiber's lane and warp, or a misuse on the fast path.
static inline bool in_fiber() {
    if (sched.fibers) return true;
    sched.misuse = true;
    return false;
}

// A warp exchange: publish `bits`, wait for the warp, read the source lane's slot (or keep
// one's own value when `src` is negative or names no thread), wait again so no lane overwrites
// a slot before every lane has read it.
static inline unsigned long long exchange(unsigned long long bits, int src) {
    if (!in_fiber()) return bits;
    Scheduler& s = sched;
    unsigned me = s.current;
    s.slot[me] = bits;
    park(State::WarpWait);
    unsigned long long out = bits;
    unsigned from = (me & ~31u) + (unsigned)src;
    if (src >= 0 && from < s.nthreads) out = s.slot[from];
    park(State::WarpWait);
    return out;
}

template <class T>
static inline T shfl(T var, int src) {
    static_assert(sizeof(T) <= 8, "shuffles move at most 8 bytes");
    unsigned long long bits = 0;
    std::memcpy(&bits, &var, sizeof(T));
    bits = exchange(bits, src);
    T out;
    std::memcpy(&out, &bits, sizeof(T));
    return out;
}

static inline unsigned lane() { return sched.current & 31u; }

// Ballot over the warp's live lanes: bit i set when lane i voted true.
static inline unsigned ballot(bool pred, unsigned* live) {
    Scheduler& s = sched;
    if (!in_fiber()) {
        *live = 1;
        return pred;
    }
    unsigned me = s.current, base = me & ~31u;
    s.slot[me] = pred ? 1 : 0;
    park(State::WarpWait);
    unsigned bits = 0, alive = 0;
    for (unsigned l = 0; l < 32 && base + l < s.nthreads; ++l) {
        if (s.fiber[base + l].state == State::Done) continue;
        alive |= 1u << l;
        if (s.slot[base + l]) bits |= 1u << l;
    }
    park(State::WarpWait);
    *live = alive;
    return bits;
}

// __syncthreads_count/_and/_or: the votes of the block's live threads.
static inline int block_vote(int pred, int mode) {
    Scheduler& s = sched;
    if (!in_fiber()) return pred;
    s.fiber[s.current].vote = pred ? 1 : 0;
    park(State::BlockWait);
    int count = 0, live = 0;
    for (unsigned t = 0; t < s.nthreads; ++t) {
        if (s.fiber[t].state == State::Done) continue;
        ++live;
        count += s.fiber[t].vote;
    }
    park(State::BlockWait);
    return mode == 0 ? count : mode == 1 ? (count == live) : (count > 0);
}
}  // namespace rt
}  // namespace kmut

// ---------------------------------------------------------------- synchronisation
static inline void __syncthreads() {
    if (kmut::rt::in_fiber()) kmut::rt::park(kmut::rt::State::BlockWait);
}
static inline int __syncthreads_count(int p) { return kmut::rt::block_vote(p, 0); }
static inline int __syncthreads_and(int p) { return kmut::rt::block_vote(p, 1); }
static inline int __syncthreads_or(int p) { return kmut::rt::block_vote(p, 2); }
// The mask is not modelled: every live lane of the warp takes part.
static inline void __syncwarp(unsigned = 0xffffffffu) {
    if (kmut::rt::in_fiber()) kmut::rt::park(kmut::rt::State::WarpWait);
}
// Fences order memory between threads that run concurrently; fibers never do.
static inline void __threadfence() { asm volatile("" ::: "memory"); }
static inline void __threadfence_block() { asm volatile("" ::: "memory"); }
static inline void __threadfence_system() { asm volatile("" ::: "memory"); }

// ---------------------------------------------------------------- warp operations
template <class T>
static inline T __shfl_sync(unsigned, T var, int src, int width = 32) {
    int lane = (int)kmut::rt::lane();
    return kmut::rt::shfl(var, (lane & ~(width - 1)) + (src & (width - 1)));
}
template <class T>
static inline T __shfl_up_sync(unsigned, T var, unsigned delta, int width = 32) {
    int lane = (int)kmut::rt::lane();
    bool inside = (unsigned)(lane & (width - 1)) >= delta;
    return kmut::rt::shfl(var, inside ? lane - (int)delta : -1);
}
template <class T>
static inline T __shfl_down_sync(unsigned, T var, unsigned delta, int width = 32) {
    int lane = (int)kmut::rt::lane();
    bool inside = (unsigned)(lane & (width - 1)) + delta < (unsigned)width;
    return kmut::rt::shfl(var, inside ? lane + (int)delta : -1);
}
template <class T>
static inline T __shfl_xor_sync(unsigned, T var, int mask, int width = 32) {
    int lane = (int)kmut::rt::lane();
    int src = (lane ^ mask) & 31;
    // Lanes may read earlier groups of `width`, never later ones (their own value instead).
    bool inside = (src & ~(width - 1)) <= (lane & ~(width - 1));
    return kmut::rt::shfl(var, inside ? src : -1);
}
template <class T>
static inline T __shfl(T var, int src, int width = 32) { return __shfl_sync(0xffffffffu, var, src, width); }
template <class T>
static inline T __shfl_up(T var, unsigned d, int width = 32) { return __shfl_up_sync(0xffffffffu, var, d, width); }
template <class T>
static inline T __shfl_down(T var, unsigned d, int width = 32) { return __shfl_down_sync(0xffffffffu, var, d, width); }
template <class T>
static inline T __shfl_xor(T var, int m, int width = 32) { return __shfl_xor_sync(0xffffffffu, var, m, width); }
static inline unsigned __ballot_sync(unsigned, int pred) {
    unsigned live;
    return kmut::rt::ballot(pred != 0, &live);
}
static inline int __any_sync(unsigned, int pred) {
    unsigned live;
    return kmut::rt::ballot(pred != 0, &live) != 0;
}
static inline int __all_sync(unsigned, int pred) {
    unsigned live;
    unsigned bits = kmut::rt::ballot(pred != 0, &live);
    return bits == live;
}
static inline unsigned __activemask() {
    using namespace kmut::rt;
    if (!sched.fibers) return 1u;
    unsigned base = sched.current & ~31u, mask = 0;
    for (unsigned l = 0; l < 32 && base + l < sched.nthreads; ++l)
        if (sched.fiber[base + l].state != State::Done) mask |= 1u << l;
    return mask;
}
static inline unsigned __reduce_add_sync(unsigned, unsigned v) {
    unsigned sum = 0;
    for (int l = 0; l < 32; ++l) sum += kmut::rt::shfl(v, l);
    return sum;
}

// ---------------------------------------------------------------- atomics
// Fibers switch only at barriers and warp operations, so a read-modify-write cannot be
// interleaved: plain code is atomic here.
namespace kmut {
// One read-modify-write: store f(old), return old.
template <class T, class F>
static inline T rmw(T* p, F f) {
    T old = *p;
    *p = f(old);
    return old;
}
}  // namespace kmut
#define KMUT_ATOMIC(name, expr) \
    template <class T>          \
    static inline T name(T* p, typename kmut::identity<T>::type v) { return kmut::rmw(p, [&](T old) -> T { return expr; }); }
KMUT_ATOMIC(atomicAdd, old + v)
KMUT_ATOMIC(atomicSub, old - v)
KMUT_ATOMIC(atomicExch, v)
KMUT_ATOMIC(atomicMax, old < v ? v : old)
KMUT_ATOMIC(atomicMin, v < old ? v : old)
KMUT_ATOMIC(atomicAnd, old & v)
KMUT_ATOMIC(atomicOr, old | v)
KMUT_ATOMIC(atomicXor, old ^ v)
#undef KMUT_ATOMIC
template <class T>
static inline T atomicCAS(T* p, typename kmut::identity<T>::type compare, typename kmut::identity<T>::type v) {
    T old = *p;
    if (old == compare) *p = v;
    return old;
}
static inline unsigned atomicInc(unsigned* p, unsigned v) {
    unsigned old = *p;
    *p = old >= v ? 0u : old + 1u;
    return old;
}
static inline unsigned atomicDec(unsigned* p, unsigned v) {
    unsigned old = *p;
    *p = (old == 0u || old > v) ? v : old - 1u;
    return old;
}
#define atomicAdd_block atomicAdd
#define atomicAdd_system atomicAdd
#define atomicSub_block atomicSub
#define atomicExch_block atomicExch
#define atomicMax_block atomicMax
#define atomicMin_block atomicMin
#define atomicCAS_block atomicCAS

// ---------------------------------------------------------------- loads and stores
template <class T>
static inline T __ldg(const T* p) { return *p; }
template <class T>
static inline T __ldcg(const T* p) { return *p; }
template <class T>
static inline T __ldca(const T* p) { return *p; }
template <class T>
static inline T __ldcs(const T* p) { return *p; }
template <class T>
static inline T __ldlu(const T* p) { return *p; }
template <class T>
static inline T __ldcv(const T* p) { return *p; }
template <class T>
static inline void __stcg(T* p, T v) { *p = v; }
template <class T>
static inline void __stcs(T* p, T v) { *p = v; }
template <class T>
static inline void __stwb(T* p, T v) { *p = v; }
template <class T>
static inline void __stwt(T* p, T v) { *p = v; }

// ---------------------------------------------------------------- math
// min/max as CUDA overloads them: the common type of the operands, fmax/fmin semantics (a NaN
// operand loses) for floating types.
template <class A, class B>
static inline std::common_type_t<A, B> max(A a, B b) {
    using C = std::common_type_t<A, B>;
    if constexpr (std::is_floating_point<C>::value) {
        return std::fmax((C)a, (C)b);
    } else {
        return (C)a < (C)b ? (C)b : (C)a;
    }
}
template <class A, class B>
static inline std::common_type_t<A, B> min(A a, B b) {
    using C = std::common_type_t<A, B>;
    if constexpr (std::is_floating_point<C>::value) {
        return std::fmin((C)a, (C)b);
    } else {
        return (C)b < (C)a ? (C)b : (C)a;
    }
}
static inline unsigned umin(unsigned a, unsigned b) { return a < b ? a : b; }
static inline unsigned umax(unsigned a, unsigned b) { return a < b ? b : a; }
static inline long long llmin(long long a, long long b) { return a < b ? a : b; }
static inline long long llmax(long long a, long long b) { return a < b ? b : a; }
static inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
static inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a < b ? b : a; }

static inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
static inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
static inline float rcbrtf(float x) { return 1.0f / std::cbrt(x); }
static inline float fdividef(float a, float b) { return a / b; }
static inline float sinpif(float x) { return std::sin((float)M_PI * x); }
static inline float cospif(float x) { return std::cos((float)M_PI * x); }
static inline float normcdff(float x) { return 0.5f * std::erfc(-x * (float)M_SQRT1_2); }
static inline double normcdf(double x) { return 0.5 * std::erfc(-x * M_SQRT1_2); }
static inline float __saturatef(float x) { return x >= 1.0f ? 1.0f : x > 0.0f ? x : 0.0f; }  // NaN -> 0

// Rounding-mode variants compute in the default mode (round to nearest): _rz/_ru/_rd differ
// from the GPU in the last bit.
static inline float __fadd_rn(float a, float b) { return a + b; }
static inline float __fadd_rz(float a, float b) { return a + b; }
static inline float __fsub_rn(float a, float b) { return a - b; }
static inline float __fmul_rn(float a, float b) { return a * b; }
static inline float __fmul_rz(float a, float b) { return a * b; }
static inline float __fdiv_rn(float a, float b) { return a / b; }
static inline float __frcp_rn(float a) { return 1.0f / a; }
static inline float __fsqrt_rn(float a) { return std::sqrt(a); }
static inline float __frsqrt_rn(float a) { return 1.0f / std::sqrt(a); }
static inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }
static inline double __dadd_rn(double a, double b) { return a + b; }
static inline double __dmul_rn(double a, double b) { return a * b; }
static inline double __ddiv_rn(double a, double b) { return a / b; }
static inline double __fma_rn(double a, double b, double c) { return std::fma(a, b, c); }

// Fast-math intrinsics are the accurate functions here: the GPU's hardware approximations are
// less precise (e.g. __expf 2 + 1.5|x| ulp, __fdividef returns 0 for 2^126 < |b| < 2^128), so
// a mutant that swaps expf for __expf is equivalent on the CPU.
// glibc declares its own __expf, __logf, ... (the accurate functions under reserved names, not
// always exported), so the CUDA names are macros for kmut's.
static inline float kmut_expf(float x) { return std::exp(x); }
static inline float kmut_exp10f(float x) { return std::pow(10.0f, x); }
static inline float kmut_logf(float x) { return std::log(x); }
static inline float kmut_log2f(float x) { return std::log2(x); }
static inline float kmut_log10f(float x) { return std::log10(x); }
static inline float kmut_powf(float a, float b) { return std::pow(a, b); }
static inline float kmut_sinf(float x) { return std::sin(x); }
static inline float kmut_cosf(float x) { return std::cos(x); }
static inline float kmut_tanf(float x) { return std::tan(x); }
static inline float kmut_tanhf(float x) { return std::tanh(x); }
static inline void kmut_sincosf(float x, float* s, float* c) {
    *s = std::sin(x);
    *c = std::cos(x);
}
#define __expf kmut_expf
#define __exp10f kmut_exp10f
#define __logf kmut_logf
#define __log2f kmut_log2f
#define __log10f kmut_log10f
#define __powf kmut_powf
#define __sinf kmut_sinf
#define __cosf kmut_cosf
#define __tanf kmut_tanf
#define __tanhf kmut_tanhf
#define __sincosf kmut_sincosf
static inline float __fdividef(float a, float b) { return a / b; }

// Bit casts and conversions. Float-to-integer conversions saturate and map NaN to 0, as the
// GPU's cvt instructions do.
static inline float __int_as_float(int i) { return kmut::bit_cast<float>(i); }
static inline int __float_as_int(float f) { return kmut::bit_cast<int>(f); }
static inline float __uint_as_float(unsigned u) { return kmut::bit_cast<float>(u); }
static inline unsigned __float_as_uint(float f) { return kmut::bit_cast<unsigned>(f); }
static inline double __longlong_as_double(long long i) { return kmut::bit_cast<double>(i); }
static inline long long __double_as_longlong(double d) { return kmut::bit_cast<long long>(d); }
namespace kmut {
template <class I>
static inline I saturate_to(double v) {
    if (std::isnan(v)) return 0;
    if (v <= (double)std::numeric_limits<I>::min()) return std::numeric_limits<I>::min();
    if (v >= (double)std::numeric_limits<I>::max()) return std::numeric_limits<I>::max();
    return (I)v;
}
}  // namespace kmut
static inline int __float2int_rn(float x) { return kmut::saturate_to<int>(std::nearbyint((double)x)); }
static inline int __float2int_rz(float x) { return kmut::saturate_to<int>(std::trunc((double)x)); }
static inline int __float2int_rd(float x) { return kmut::saturate_to<int>(std::floor((double)x)); }
static inline int __float2int_ru(float x) { return kmut::saturate_to<int>(std::ceil((double)x)); }
static inline unsigned __float2uint_rn(float x) { return kmut::saturate_to<unsigned>(std::nearbyint((double)x)); }
static inline unsigned __float2uint_rz(float x) { return kmut::saturate_to<unsigned>(std::trunc((double)x)); }
static inline long long __float2ll_rn(float x) { return kmut::saturate_to<long long>(std::nearbyint((double)x)); }
static inline long long __float2ll_rz(float x) { return kmut::saturate_to<long long>(std::trunc((double)x)); }
static inline int __double2int_rn(double x) { return kmut::saturate_to<int>(std::nearbyint(x)); }
static inline int __double2int_rz(double x) { return kmut::saturate_to<int>(std::trunc(x)); }
static inline float __int2float_rn(int i) { return (float)i; }
static inline float __uint2float_rn(unsigned u) { return (float)u; }
static inline float __ll2float_rn(long long i) { return (float)i; }
static inline float __double2float_rn(double d) { return (float)d; }
static inline double __int2double_rn(int i) { return (double)i; }

// Integer intrinsics.
static inline int __popc(unsigned x) { return __builtin_popcount(x); }
static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static inline int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
static inline int __clzll(long long x) { return x ? __builtin_clzll((unsigned long long)x) : 64; }
static inline int __ffs(int x) { return __builtin_ffs(x); }
static inline int __ffsll(long long x) { return __builtin_ffsll(x); }
static inline unsigned __brev(unsigned x) {
    unsigned r = 0;
    for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
    return r;
}
static inline int __mul24(int a, int b) { return (int)(((long long)(a << 8 >> 8)) * (long long)(b << 8 >> 8)); }
static inline unsigned __umul24(unsigned a, unsigned b) { return (a & 0xffffffu) * (b & 0xffffffu); }
static inline int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
static inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
static inline long long __mul64hi(long long a, long long b) { return (long long)(((__int128)a * b) >> 64); }
static inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
    return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}

// ---------------------------------------------------------------- miscellany
static inline long long clock64() { return (long long)__builtin_ia32_rdtsc(); }
static inline void __nanosleep(unsigned) {}
[[noreturn]] static inline void __trap() { std::abort(); }
static inline void __brkpt() { std::abort(); }
