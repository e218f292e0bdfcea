// Block-level kernels as CUDA programs write them: a row-wise absmax FP8 (e4m3) quantizer (one
// warp per row of 64 floats: __shfl_xor_sync max, then cvt.rn.satfinite.e4m3x2.f32), a shared-
// memory histogram with atomics, __syncthreads_count/_and/_or (bar.red), a producer/consumer
// pair on a named barrier (bar.arrive / bar.sync with a count), and a double-buffered copy
// through shared memory with cp.async (sm_80+); also an MXFP8 quantizer whose block maximum
// comes from a warp butterfly. Run by tests/kernels against host references.
#include <cuda_fp8.h>

extern "C" __global__ void absmax_quant_e4m3(const float* in, unsigned short* out, float* scales, int rows) {
    int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x & 31;
    if (row >= rows) return;
    float2 v = reinterpret_cast<const float2*>(in)[row * 32 + lane];
    float amax = fmaxf(fabsf(v.x), fabsf(v.y));
    for (int mask = 16; mask > 0; mask >>= 1) amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, mask));
    float scale = amax > 0.0f ? amax / 448.0f : 1.0f;
    float2 q = make_float2(v.x / scale, v.y / scale);
    out[row * 32 + lane] = __nv_cvt_float2_to_fp8x2(q, __NV_SATFINITE, __NV_E4M3);
    if (lane == 0) scales[row] = scale;
}

// MXFP8 (e4m3 with a ue8m0 scale per 32 elements), the block maximum from a warp butterfly
// (__shfl_xor_sync) instead of shared memory: one warp per block of 32 inputs, any blockDim.
extern "C" __global__ void mx_quant_e4m3_warp(const float* in, __nv_fp8_storage_t* out,
                                              __nv_fp8_storage_t* scales, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = i < n ? in[i] : 0.0f;
    float amax = fabsf(x);
    for (int mask = 16; mask > 0; mask >>= 1) amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, mask));
    __nv_fp8_storage_t e = __nv_cvt_float_to_e8m0(amax / 448.0f, __NV_SATFINITE, cudaRoundPosInf);
    __nv_bfloat16_raw sb = __nv_cvt_e8m0_to_bf16raw(e);
    __nv_bfloat16 sv = sb;
    float scale = __bfloat162float(sv);
    if (i < n) out[i] = __nv_cvt_float_to_fp8(x / scale, __NV_SATFINITE, __NV_E4M3);
    if ((threadIdx.x & 31) == 0 && i < n) scales[i / 32] = e;
}

extern "C" __global__ void histogram256(const unsigned* in, unsigned* bins, int n) {
    __shared__ unsigned local[256];
    for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[in[i] & 255], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += blockDim.x) atomicAdd(&bins[b], local[b]);
}

extern "C" __global__ void block_votes(const int* in, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int positive = i < n && in[i] > 0;
    int count = __syncthreads_count(positive);
    int all = __syncthreads_and(i < n && in[i] > -20);
    int any = __syncthreads_or(i < n && in[i] == 7);
    if (threadIdx.x == 0) { out[3 * blockIdx.x] = count; out[3 * blockIdx.x + 1] = all; out[3 * blockIdx.x + 2] = any; }
}

// Warps 0-3 produce into shared memory and arrive at barrier 1; warps 4-7 wait there and
// consume: out[i] = 2 * in[i - 128] + in[i] for the consumers, in[i] for the producers.
extern "C" __global__ void named_barrier_pipe(const int* in, int* out, int n) {
    __shared__ int stage[128];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    if (threadIdx.x < 128) {
        stage[threadIdx.x] = v;
        asm volatile("bar.arrive 1, 256;" ::: "memory");
        if (i < n) out[i] = v;
    } else {
        asm volatile("bar.sync 1, 256;" ::: "memory");
        if (i < n) out[i] = 2 * stage[threadIdx.x - 128] + v;
    }
}

#if __CUDA_ARCH__ >= 800
// Each block copies its tiles of 256 float4 through two shared buffers with cp.async: tile t+1
// is in flight while tile t is scaled and stored. out[i] = 3 * in[i].
extern "C" __global__ void cp_async_double_buffer(const float4* in, float4* out, int tiles) {
    __shared__ float4 buffer[2][256];
    int t0 = blockIdx.x * 4;
    auto load = [&](int tile, int slot) {
        unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(&buffer[slot][threadIdx.x]));
        const float4* src = in + tile * 256 + threadIdx.x;
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(dst), "l"(src) : "memory");
        asm volatile("cp.async.commit_group;" ::: "memory");
    };
    if (t0 < tiles) load(t0, 0);
    for (int k = 0; k < 4 && t0 + k < tiles; k++) {
        if (k + 1 < 4 && t0 + k + 1 < tiles) {
            load(t0 + k + 1, (k + 1) & 1);
            asm volatile("cp.async.wait_group 1;" ::: "memory");
        } else {
            asm volatile("cp.async.wait_group 0;" ::: "memory");
        }
        __syncthreads();
        float4 x = buffer[k & 1][threadIdx.x];
        out[(t0 + k) * 256 + threadIdx.x] = make_float4(3.0f * x.x, 3.0f * x.y, 3.0f * x.z, 3.0f * x.w);
        __syncthreads();
    }
}
#endif
