// Warp-synchronous and atomic behaviour probes, for comparing ptxsim with an sm_90 GPU.
// Compiled to PTX by gen.sh (tests/hardware/warp/probe.ptx), launched by run.sh on the GPU
// (plan.tsv) and by compare.py in ptxsim. Written for this project; no NVIDIA sample code.
//
// Every kernel takes `out` (a buffer poisoned with 0xA5 bytes by the launcher: a slot the kernel
// does not write keeps 0xa5a5a5a5) and, where it uses global atomics, `g` (zeroed). Results are
// u32 slots laid out slot-major: out[slot * NTHREADS + thread], NTHREADS = all threads of the
// launch. Inputs are computed from the thread index with integer operations only, so no input
// files and no floating-point library code (whose approximations are not what is probed here).
//
// "MAY VARY" marks results the hardware does not promise to repeat run to run (the order in
// which different warps or CTAs reach one address). The GPU run repeats the plan 3 times and
// records whether the runs agree. Everything else is expected to repeat on one device.

#include <cstdint>

__device__ __forceinline__ unsigned lane_id() {
    unsigned r;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(r));
    return r;
}

// shfl.sync with the predicate output, b and c as registers (the c operand is what `width`
// becomes in __shfl_sync: ((32 - width) << 8) | clamp).
#define SHFL_P(MODE)                                                                         \
    __device__ __forceinline__ unsigned shfl_##MODE##_p(unsigned mask, unsigned v, unsigned b, \
                                                       unsigned c, unsigned* pred) {         \
        unsigned r, p;                                                                       \
        asm volatile(                                                                        \
            "{\n\t.reg .pred q;\n\t"                                                         \
            "shfl.sync." #MODE ".b32 %0|q, %2, %3, %4, %5;\n\t"                              \
            "selp.u32 %1, 1, 0, q;\n\t}"                                                     \
            : "=r"(r), "=r"(p)                                                               \
            : "r"(v), "r"(b), "r"(c), "r"(mask));                                            \
        *pred = p;                                                                           \
        return r;                                                                            \
    }
SHFL_P(idx)
SHFL_P(up)
SHFL_P(down)
SHFL_P(bfly)

__device__ __forceinline__ unsigned elect(unsigned mask, unsigned* is_leader) {
    unsigned r, p;
    asm volatile(
        "{\n\t.reg .pred q;\n\t"
        "elect.sync %0|q, %2;\n\t"
        "selp.u32 %1, 1, 0, q;\n\t}"
        : "=r"(r), "=r"(p)
        : "r"(mask));
    *is_leader = p;
    return r;
}

// A distinct, recognisable value per lane.
__device__ __forceinline__ unsigned lane_value(unsigned lane) { return 0x5a000000u | (lane * 0x010101u); }

// ---------------------------------------------------------------------------------------------
// shfl_c: every mode with chosen b and c operands (width < 32, clamp values other than CUDA's,
// b above 31, non-contiguous segment masks). Full warp, all lanes take part: fully defined by
// the ISA's formula. 1 CTA x 32 threads; slots 2k = value, 2k + 1 = predicate of config k.
struct ShflConfig {
    unsigned mode, b, c;
};
__constant__ ShflConfig shfl_configs[] = {
    {0, 5, 0x1f},   {0, 37, 0x1f},   {0, 9, 0x181f},  {0, 3, 0x1803},  {0, 6, 0x1803},
    {0, 5, 0x0a1f}, {0, 31, 0x101f}, {1, 1, 0x0},     {1, 3, 0x1800},  {1, 9, 0x1800},
    {1, 1, 0x1805}, {1, 33, 0x0},    {1, 0, 0x0},     {2, 1, 0x1f},    {2, 3, 0x181f},
    {2, 9, 0x181f}, {2, 2, 0x1803},  {2, 17, 0x1f},   {3, 1, 0x1f},    {3, 9, 0x181f},
    {3, 16, 0x1f},  {3, 3, 0x1c03},  {3, 4, 0x051f},  {3, 40, 0x1f},
};
constexpr int SHFL_CONFIGS = sizeof(shfl_configs) / sizeof(shfl_configs[0]);  // 24 -> 48 slots

extern "C" __global__ void shfl_c(unsigned* out) {
    unsigned lane = lane_id();
    unsigned v = lane_value(lane);
    for (int k = 0; k < SHFL_CONFIGS; k++) {
        ShflConfig cfg = shfl_configs[k];
        unsigned p = 0, r = 0;
        switch (cfg.mode) {
            case 0: r = shfl_idx_p(0xffffffffu, v, cfg.b, cfg.c, &p); break;
            case 1: r = shfl_up_p(0xffffffffu, v, cfg.b, cfg.c, &p); break;
            case 2: r = shfl_down_p(0xffffffffu, v, cfg.b, cfg.c, &p); break;
            default: r = shfl_bfly_p(0xffffffffu, v, cfg.b, cfg.c, &p); break;
        }
        out[(2 * k) * 32 + lane] = r;
        out[(2 * k + 1) * 32 + lane] = p;
    }
}

// shfl_width: the CUDA intrinsics with width 4, 8, 16 (c = ((32 - w) << 8) | 0x1f, up: | 0).
// 1 x 32; 8 slots. Fully defined.
extern "C" __global__ void shfl_width(unsigned* out) {
    unsigned lane = lane_id();
    unsigned v = lane_value(lane);
    out[0 * 32 + lane] = __shfl_sync(0xffffffffu, v, lane * 3, 16);
    out[1 * 32 + lane] = __shfl_sync(0xffffffffu, v, 9, 8);
    out[2 * 32 + lane] = __shfl_up_sync(0xffffffffu, v, 3, 8);
    out[3 * 32 + lane] = __shfl_up_sync(0xffffffffu, v, 9, 8);
    out[4 * 32 + lane] = __shfl_down_sync(0xffffffffu, v, 5, 8);
    out[5 * 32 + lane] = __shfl_down_sync(0xffffffffu, v, 1, 4);
    out[6 * 32 + lane] = __shfl_xor_sync(0xffffffffu, v, 9, 8);
    out[7 * 32 + lane] = __shfl_xor_sync(0xffffffffu, v, 2, 4);
}

// shfl_partial: source lanes outside the membermask (undefined value in the ISA).
// Slots 0-1: if/else halves, each calling shfl with its own half mask; some sources are in the
// other half (at another instruction). Slots 2-3: converged warp, only the lanes of 0x0f0f0f0f
// take part and read lanes (lane + 4) & 31, which do not. Slot 4-5: the same with the predicate
// (in range, so 1) and the value. 1 x 32.
extern "C" __global__ void shfl_partial(unsigned* out) {
    unsigned lane = lane_id();
    unsigned v = lane_value(lane);
    unsigned r0, r1;
    if (lane < 16) {
        r0 = __shfl_sync(0x0000ffffu, v, (lane * 7 + 3) & 31);
        r1 = __shfl_down_sync(0x0000ffffu, v, 4);
    } else {
        r0 = __shfl_sync(0xffff0000u, v, (lane * 5 + 1) & 31);
        r1 = __shfl_xor_sync(0xffff0000u, v, 20);
    }
    out[0 * 32 + lane] = r0;
    out[1 * 32 + lane] = r1;
    const unsigned m = 0x0f0f0f0fu;
    if ((m >> lane) & 1) {
        out[2 * 32 + lane] = __shfl_sync(m, v, (lane + 4) & 31);
        out[3 * 32 + lane] = __shfl_sync(m, v, (lane + 8) & 31);
        unsigned p;
        out[4 * 32 + lane] = shfl_down_p(m, v ^ 0xffu, 4, 0x1f, &p);
        out[5 * 32 + lane] = p;
    }
}

// shfl_exited: lanes 24..31 exit after writing slot 0; the rest shuffle with the full mask
// (allowed: exited lanes are not waited for) and read some exited lanes (undefined value).
// Slots: 0 v (all lanes), 1 idx lane+8, 2 down 5, 3 xor 16, 4 idx with __activemask(),
// 5 __activemask(). 1 x 32.
extern "C" __global__ void shfl_exited(unsigned* out) {
    unsigned lane = lane_id();
    unsigned v = lane_value(lane);
    out[0 * 32 + lane] = v;
    if (lane >= 24) return;
    out[1 * 32 + lane] = __shfl_sync(0xffffffffu, v, lane + 8);
    out[2 * 32 + lane] = __shfl_down_sync(0xffffffffu, v, 5);
    out[3 * 32 + lane] = __shfl_xor_sync(0xffffffffu, v, 16);
    unsigned act = __activemask();
    out[4 * 32 + lane] = __shfl_sync(act, v, 31 - lane);
    out[5 * 32 + lane] = act;
}

// vote_div: vote.sync, activemask and elect.sync in divergent branches and after lanes exited.
// 1 x 48: warp 1 is a partial warp of 16 lanes (the missing lanes count as exited). 18 slots.
extern "C" __global__ void vote_div(unsigned* out) {
    const unsigned n = 48;
    unsigned t = threadIdx.x;
    unsigned lane = lane_id();
    out[0 * n + t] = __activemask();
    out[1 * n + t] = __ballot_sync(0xffffffffu, lane & 1);
    if (lane % 3 == 0) {
        unsigned act = __activemask();
        out[2 * n + t] = act;
        out[3 * n + t] = __ballot_sync(act, lane & 2);
        unsigned leader;
        out[16 * n + t] = elect(act, &leader);
        out[17 * n + t] = leader;
    } else {
        out[4 * n + t] = __activemask();
    }
    if (lane < 16) {
        out[5 * n + t] = __ballot_sync(0x0000ffffu, lane & 4);
        out[6 * n + t] = __any_sync(0x0000ffffu, lane == 5);
        out[7 * n + t] = __all_sync(0x0000ffffu, lane < 20);
        out[8 * n + t] = __uni_sync(0x0000ffffu, lane < 8);
    } else {
        out[5 * n + t] = __ballot_sync(0xffff0000u, lane & 4);
        out[6 * n + t] = __any_sync(0xffff0000u, lane == 5);
        out[7 * n + t] = __all_sync(0xffff0000u, lane < 20);
        out[8 * n + t] = __uni_sync(0xffff0000u, lane < 100);
    }
    if (lane >= 20) return;
    out[9 * n + t] = __activemask();
    out[10 * n + t] = __ballot_sync(0xffffffffu, 1);
    out[11 * n + t] = __any_sync(0xffffffffu, lane == 3);
    out[12 * n + t] = __all_sync(0xffffffffu, lane < 19);
    out[13 * n + t] = __all_sync(0xffffffffu, lane < 20);
    unsigned leader;
    out[14 * n + t] = elect(0xffffffffu, &leader);
    out[15 * n + t] = leader;
}

// syncwarp: __syncwarp(mask) exchange through shared memory and reconvergence after divergence.
// 1 x 32; 8 slots.
extern "C" __global__ void syncwarp(unsigned* out) {
    __shared__ unsigned s[64];
    unsigned lane = lane_id();
    s[lane] = lane * 3 + 1;
    __syncwarp();
    out[0 * 32 + lane] = s[(lane + 1) & 31];
    if ((lane & 1) == 0) {
        s[32 + lane] = lane + 1000;
        __syncwarp(0x55555555u);
        out[1 * 32 + lane] = s[32 + ((lane + 2) & 31)];
        out[2 * 32 + lane] = __activemask();
    } else {
        out[2 * 32 + lane] = __activemask();
        __syncwarp(0xaaaaaaaau);
        out[1 * 32 + lane] = 0;
    }
    out[3 * 32 + lane] = __activemask();  // after the if/else: reconverged?
    unsigned acc = 0;
    for (unsigned i = 0; i < lane % 4; i++) {
        acc += __activemask() >> i;  // the lanes still in the loop at iteration i
    }
    out[4 * 32 + lane] = acc;
    out[5 * 32 + lane] = __activemask();  // after a data-dependent loop
    if (lane < 8) {
        __syncwarp(0xffu);
        out[6 * 32 + lane] = __activemask();
    }
    __syncwarp();
    out[7 * 32 + lane] = __activemask();
}

// match_redux: match.any / match.all and redux.sync with partial masks, halves, exited lanes.
// 1 x 32; 19 slots.
extern "C" __global__ void match_redux(unsigned* out) {
    unsigned lane = lane_id();
    const unsigned m = 0x0f0f0f0fu;
    out[0 * 32 + lane] = __match_any_sync(0xffffffffu, lane / 4);
    out[1 * 32 + lane] =
        __match_any_sync(0xffffffffu, (unsigned long long)(lane & 3) << 32 | (lane & 4));
    if ((m >> lane) & 1) {
        out[2 * 32 + lane] = __match_any_sync(m, (lane * 7) % 5);
        int pred;
        out[3 * 32 + lane] = __match_all_sync(m, 7u, &pred);
        out[4 * 32 + lane] = pred;
        out[5 * 32 + lane] = __reduce_add_sync(m, lane * 1000 + 7);
        out[6 * 32 + lane] = (unsigned)__reduce_min_sync(m, (int)(lane * 0x10000000u));
        out[7 * 32 + lane] = __reduce_max_sync(m, lane * 0x10000000u);
        out[8 * 32 + lane] = __reduce_and_sync(m, ~(1u << lane));
        out[9 * 32 + lane] = __reduce_or_sync(m, 1u << lane);
        out[10 * 32 + lane] = __reduce_xor_sync(m, lane * 0x11u);
    }
    if (lane < 16) {
        int pred;
        out[11 * 32 + lane] = __match_all_sync(0x0000ffffu, lane >> 3, &pred);
        out[12 * 32 + lane] = pred;
        out[13 * 32 + lane] = __reduce_add_sync(0x0000ffffu, 0xf0000000u + lane);
    } else {
        int pred;
        out[11 * 32 + lane] = __match_all_sync(0xffff0000u, 5u, &pred);
        out[12 * 32 + lane] = pred;
        out[13 * 32 + lane] = (unsigned)__reduce_max_sync(0xffff0000u, (int)lane - 24);
    }
    if (lane >= 28) return;
    out[14 * 32 + lane] = __reduce_add_sync(0xffffffffu, lane);
    out[15 * 32 + lane] = __match_any_sync(0xffffffffu, lane & 1);
    int pred;
    out[16 * 32 + lane] = __match_all_sync(0xffffffffu, 1u, &pred);
    out[17 * 32 + lane] = pred;
    out[18 * 32 + lane] = (unsigned)__reduce_min_sync(0xffffffffu, 100 - (int)lane);
}

// atom_warp: one warp, many lanes, one address. The old values show the order in which the
// lanes' operations were applied (ptxsim: lane order). Expected to repeat run to run.
// 1 x 32; out has 14 slots, then 16 words of shared-memory final values; g (zeros:64) holds the
// global final values.
extern "C" __global__ void atom_warp(unsigned* out, unsigned* g) {
    __shared__ unsigned s[8];
    unsigned lane = lane_id();
    if (lane < 8) s[lane] = lane == 3 ? 5u : 0u;
    __syncwarp();
    out[0 * 32 + lane] = atomicAdd(&g[0], 1u);
    out[1 * 32 + lane] = atomicAdd(&s[0], 1u);
    out[2 * 32 + lane] = atomicAdd(&g[1], lane + 1);
    out[3 * 32 + lane] = atomicExch(&g[2], lane + 100);
    out[4 * 32 + lane] = atomicCAS(&g[3], 0u, lane + 1);
    out[5 * 32 + lane] = atomicCAS(&g[4], lane, lane + 1);  // a chain: all succeed in lane order
    out[6 * 32 + lane] = atomicInc(&g[5], 5u);
    out[7 * 32 + lane] = atomicDec(&g[6], 5u);
    out[8 * 32 + lane] = atomicMax(&g[7], (lane * 37) % 32);
    out[9 * 32 + lane] = atomicXor(&g[8], 1u << lane);
    out[10 * 32 + lane] = atomicExch(&s[1], lane + 200);
    out[11 * 32 + lane] = atomicCAS(&s[2], 0u, lane + 1);
    out[12 * 32 + lane] = atomicInc(&s[3], 7u);  // starts at 5
    if (lane & 1) out[13 * 32 + lane] = atomicAdd(&g[9], 1u);
    __syncwarp();
    if (lane < 8) out[14 * 32 + lane] = s[lane];
}

// The float a lane adds: sign, exponent and mantissa from integer operations, so the sum
// depends on the order of the additions.
__device__ __forceinline__ float mixed_float(unsigned i) {
    unsigned bits = ((i & 1) << 31) | ((115u + (i * 5) % 24) << 23) | ((i * 0x2c5a3u) & 0x7fffffu);
    return __uint_as_float(bits);
}

// atom_f32_warp: 32 lanes atomicAdd(float) to one global and one shared address; the old values
// show the order, the final bits the rounding. g[1]: 1.0 from lane 0 and 2^-24 from the others
// (1.0 first: every addition rounds back to 1.0; last: 1 + 2^-19).
// 1 x 32; out slots 0 (global olds), 1 (shared olds), 2 (g[1] olds), then 2 words: shared final
// twice; g (zeros:16) holds the global finals.
extern "C" __global__ void atom_f32_warp(unsigned* out, float* g) {
    __shared__ float s[1];
    unsigned lane = lane_id();
    if (lane == 0) s[0] = 0.0f;
    __syncwarp();
    float x = mixed_float(lane);
    out[0 * 32 + lane] = __float_as_uint(atomicAdd(&g[0], x));
    out[1 * 32 + lane] = __float_as_uint(atomicAdd(&s[0], x));
    out[2 * 32 + lane] = __float_as_uint(atomicAdd(&g[1], lane == 0 ? 1.0f : 0x1p-24f));
    __syncwarp();
    if (lane < 2) out[3 * 32 + lane] = __float_as_uint(s[0]);
}

// atom_grid: 4 CTAs x 128 threads on one global address: atomicAdd(u32, 1) olds (MAY VARY: the
// order of warps and CTAs) and atomicAdd(float) olds and final (MAY VARY). Also a per-CTA
// shared counter (4 warps of one CTA: MAY VARY between warps; within a warp expected stable).
// out: 3 slots x 512 threads; g (zeros:16): g[0] u32 count, g[1] float sum.
extern "C" __global__ void atom_grid(unsigned* out, unsigned* g) {
    __shared__ unsigned s;
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned n = 512;
    if (threadIdx.x == 0) s = 0;
    __syncthreads();
    out[0 * n + t] = atomicAdd(&g[0], 1u);
    out[1 * n + t] = __float_as_uint(atomicAdd(reinterpret_cast<float*>(&g[1]), mixed_float(t)));
    out[2 * n + t] = atomicAdd(&s, 1u);
}

// block_reduce: a common kernel shape. 4 CTAs x 256 threads, each thread one float; a shared
// tree per CTA (deterministic), then thread 0 adds the CTA's sum to g[0] with atomicAdd (4 adds:
// final bits MAY VARY with the CTA order); each warp's __shfl_down_sync sum is added to g[1]
// by lane 0 (32 adds from 4 CTAs: MAY VARY). out: 4 CTA sums, then 32 warp sums (all
// deterministic); g (zeros:8): the two atomic totals.
extern "C" __global__ void block_reduce(unsigned* out, float* g) {
    __shared__ float s[256];
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    float x = mixed_float(t * 7 + 3);
    s[threadIdx.x] = x;
    __syncthreads();
    for (unsigned stride = 128; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        out[blockIdx.x] = __float_as_uint(s[0]);
        atomicAdd(&g[0], s[0]);
    }
    float w = x;
    for (int d = 16; d > 0; d >>= 1) w += __shfl_down_sync(0xffffffffu, w, d);
    if (lane_id() == 0) {
        out[4 + t / 32] = __float_as_uint(w);
        atomicAdd(&g[1], w);
    }
}
