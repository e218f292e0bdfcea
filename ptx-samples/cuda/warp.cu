// Warp-level reductions, votes and scans as CUDA programs write them: __shfl_*_sync, __ballot_sync,
// __match_any_sync and (sm_80+) __reduce_*_sync. Run by crates/exec/tests/suite/warp.rs against host
// computations of the same reductions in the same order.
extern "C" __global__ void warp_sum_down(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? in[i] : 0.0f;
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
    if ((threadIdx.x & 31) == 0) out[i / 32] = v;
}
extern "C" __global__ void warp_max_xor(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? in[i] : -__int_as_float(0x7f800000);
    for (int mask = 16; mask > 0; mask >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, mask));
    if (i < n) out[i] = v;
}
extern "C" __global__ void ballot_count(const int* in, unsigned* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned ballot = __ballot_sync(0xffffffffu, i < n && in[i] > 0);
    if ((threadIdx.x & 31) == 0) out[i / 32] = __popc(ballot);
}
extern "C" __global__ void match_any_groups(const int* in, unsigned* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned group = __match_any_sync(0xffffffffu, i < n ? in[i] & 7 : -1);
    if (i < n) out[i] = group;
}
extern "C" __global__ void segment_scan(const int* in, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    for (int d = 1; d < 8; d <<= 1) { int u = __shfl_up_sync(0xffffffffu, v, d, 8); if ((threadIdx.x & 7) >= d) v += u; }
    if (i < n) out[i] = v;
}
#if __CUDA_ARCH__ >= 800
extern "C" __global__ void redux_sum_min(const unsigned* in, unsigned* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = i < n ? in[i] : 0;
    unsigned s = __reduce_add_sync(0xffffffffu, v);
    unsigned m = __reduce_min_sync(0xffffffffu, v);
    if ((threadIdx.x & 31) == 0) { out[2 * (i / 32)] = s; out[2 * (i / 32) + 1] = m; }
}
#endif
// A block reduction as CUDA programs write it: warp sums with __shfl_down_sync, one partial per
// warp in dynamic shared memory (launch with blockDim.x * sizeof(float) / 32 bytes of it),
// __syncthreads, then warp 0 sums the partials.
extern "C" __global__ void block_sum_dynamic(const float* in, float* out, int n) {
    extern __shared__ float partial[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? in[i] : 0.0f;
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
    if ((threadIdx.x & 31) == 0) partial[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        v = threadIdx.x < blockDim.x / 32 ? partial[threadIdx.x] : 0.0f;
        for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
        if (threadIdx.x == 0) out[blockIdx.x] = v;
    }
}
