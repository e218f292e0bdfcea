// Tensor memory accelerator copies through libcu++'s cuda::ptx wrappers (sm_90a): each CTA
// loads a 32 x 8 box of 32-bit words of `in_map` into shared memory with
// cp.async.bulk.tensor (completing on an mbarrier), doubles every word, and stores the box
// to `out_map` at the same coordinates with a bulk-group tensor store. The words are doubled
// one by one, so the result does not depend on the maps' (equal) swizzle. `in` and `out` are
// the tensors the maps describe (not read by the code). Results are checked
// in crates/exec/tests/suite/tma.rs against a host loop.
#include <cuda.h>
#include <cuda/ptx>
#include <cstdint>

namespace ptx = cuda::ptx;

extern "C" __global__ void tma_double(const __grid_constant__ CUtensorMap in_map,
                                      const __grid_constant__ CUtensorMap out_map,
                                      const uint32_t* in, uint32_t* out, uint32_t box_bytes) {
    __shared__ alignas(1024) uint32_t tile[32 * 8];
    __shared__ uint64_t bar;
    const int32_t coords[2] = {int32_t(blockIdx.x * 32), int32_t(blockIdx.y * 8)};
    if (threadIdx.x == 0) {
        ptx::mbarrier_init(&bar, 1);
        ptx::fence_proxy_async(ptx::space_shared);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar,
                                       box_bytes);
        ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, tile, &in_map, coords,
                                  &bar);
    }
    while (!ptx::mbarrier_try_wait_parity(&bar, 0)) {
    }
    for (unsigned i = threadIdx.x; i < 32 * 8; i += blockDim.x) {
        tile[i] *= 2;
    }
    ptx::fence_proxy_async(ptx::space_shared);
    __syncthreads();
    if (threadIdx.x == 0) {
        ptx::cp_async_bulk_tensor(ptx::space_global, ptx::space_shared, &out_map, coords, tile);
        ptx::cp_async_bulk_commit_group();
        ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>());
    }
}
