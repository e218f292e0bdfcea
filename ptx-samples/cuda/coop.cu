#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void coop_two_phase(unsigned* scratch, unsigned* out, unsigned n) {
    cg::grid_group grid = cg::this_grid();
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned total = gridDim.x * blockDim.x;
    if (i < n) scratch[i] = i * 2654435761u + 12345u;
    grid.sync();
    unsigned j = (i + blockDim.x) % total;
    if (i < n && j < n) out[i] = scratch[j] ^ i;
}

extern "C" __global__ void coop_reduce(const unsigned* in, unsigned* partial, unsigned* out, unsigned n) {
    cg::grid_group grid = cg::this_grid();
    __shared__ unsigned sums[256];
    unsigned sum = 0;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        sum += in[i] * in[i];
    sums[threadIdx.x] = sum;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
        if (threadIdx.x < s) sums[threadIdx.x] += sums[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = sums[0];
    for (unsigned s = 1; s < gridDim.x; s *= 2) {
        grid.sync();
        if (threadIdx.x == 0 && blockIdx.x % (2 * s) == 0 && blockIdx.x + s < gridDim.x)
            partial[blockIdx.x] += partial[blockIdx.x + s];
    }
    grid.sync();
    if (grid.thread_rank() == 0) out[0] = partial[0];
}

extern "C" __global__ void coop_ranks(unsigned long long* out) {
    cg::grid_group grid = cg::this_grid();
    unsigned long long r = grid.thread_rank();
    out[4 * r + 0] = grid.size();
    out[4 * r + 1] = grid.block_rank();
    out[4 * r + 2] = grid.num_blocks();
    out[4 * r + 3] = grid.is_valid();
}

extern "C" __global__ void coop_deadlock(unsigned* out) {
    if (blockIdx.x == 0) return;
    cg::this_grid().sync();
    out[blockIdx.x] = 1;
}
