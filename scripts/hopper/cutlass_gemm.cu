// A CUTLASS 3 sm_90a GEMM (TMA loads, wgmma, an mbarrier pipeline, a warp-specialized
// kernel on a cluster of two CTAs, a TMA epilogue), for ptxsim's tests.
//
//   D (M x N, f32, row-major) = A (M x K, f16, row-major) * B (K x N, f16, column-major) + C
//
// Every input is a small integer, so every product and sum is exact in f32 and the result
// does not depend on the order of the additions: a host loop gives it bit for bit.
//
// Built by scripts/hopper/cutlass-gemm.sh with nvcc -gencode arch=compute_90a,code=compute_90a
// (PTX only), which also keeps the kernel's PTX. Two uses:
//
//   cutlass_gemm                run the GEMM through CUTLASS's device adapter (on a GPU, or on
//                               ptxsim's libcuda.so.1), compare with the host loop, print
//                               "Disposition: Passed" or "Failed"
//   cutlass_gemm params FILE    write the kernel's launch (grid, block, cluster, shared bytes)
//                               and its parameter block (`Params`, as to_underlying_arguments
//                               makes it) as JSON, with the device pointers at placeholder
//                               addresses and each tensor map replaced by the arguments of its
//                               cuTensorMapEncodeTiled call; needs no device.
//
// The placeholder addresses: tensor i (0 A, 1 B, 2 C, 3 D) lies at PLACEHOLDER + i << 32.

#include <cuda.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cutlass/cutlass.h"
#include "cute/tensor.hpp"
#include "cutlass/epilogue/collective/collective_builder.hpp"
#include "cutlass/gemm/collective/collective_builder.hpp"
#include "cutlass/gemm/device/gemm_universal_adapter.h"
#include "cutlass/gemm/dispatch_policy.hpp"
#include "cutlass/gemm/kernel/gemm_universal.hpp"
#include "cutlass/util/packed_stride.hpp"

#include "launch_dump.h"

using namespace cute;

// Two of CUTLASS's warp-specialized schedules (nvcc -DPINGPONG picks the second):
// * cooperative: 128 x 128 x 64 tiles, a 2 x 1 x 1 cluster (the two CTAs share B's tile: a
//   multicast load), two consumer warpgroups on each tile, 256 x 128 x 512 (8 K tiles over 4
//   stages);
// * pingpong: 64 x 128 x 64 tiles, a 1 x 2 x 1 cluster (A multicast), the two consumer
//   warpgroups on alternate tiles, ordered by barriers, over 256 x 256 x 256 (16 tiles) with a
//   persistent grid of 2 CTAs (an SM count of 2), so that each CTA walks 8 tiles.
#if defined(PINGPONG)
constexpr int M = 256, N = 256, K = 256, SM_COUNT = 2;
using TileShape = cute::Shape<cute::_64, cute::_128, cute::_64>;
using ClusterShape = cute::Shape<cute::_1, cute::_2, cute::_1>;
using MainloopSchedule = cutlass::gemm::KernelTmaWarpSpecializedPingpong;
using EpilogueSchedule = cutlass::epilogue::TmaWarpSpecialized;
#else
constexpr int M = 256, N = 128, K = 512, SM_COUNT = 16;
using TileShape = cute::Shape<cute::_128, cute::_128, cute::_64>;
using ClusterShape = cute::Shape<cute::_2, cute::_1, cute::_1>;
using MainloopSchedule = cutlass::gemm::KernelTmaWarpSpecializedCooperative;
using EpilogueSchedule = cutlass::epilogue::TmaWarpSpecializedCooperative;
#endif

using ElementA = cutlass::half_t;
using LayoutA = cutlass::layout::RowMajor;
using ElementB = cutlass::half_t;
using LayoutB = cutlass::layout::ColumnMajor;
using ElementC = float;
using LayoutC = cutlass::layout::RowMajor;
using ElementAccumulator = float;

using CollectiveEpilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,
    cutlass::epilogue::collective::EpilogueTileAuto, ElementAccumulator, ElementAccumulator,
    ElementC, LayoutC, 4, ElementC, LayoutC, 4, EpilogueSchedule>::CollectiveOp;

using CollectiveMainloop = typename cutlass::gemm::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, ElementA, LayoutA, 8, ElementB, LayoutB,
    8, ElementAccumulator, TileShape, ClusterShape, cutlass::gemm::collective::StageCount<4>,
    MainloopSchedule>::CollectiveOp;

using GemmKernel = cutlass::gemm::kernel::GemmUniversal<Shape<int, int, int>, CollectiveMainloop,
                                                        CollectiveEpilogue>;
using Gemm = cutlass::gemm::device::GemmUniversalAdapter<GemmKernel>;

// The inputs; crates/exec/tests/suite/cutlass.rs computes the same.
static float a_at(int m, int k) { return float((m * 7 + k * 3) % 9 - 4); }
static float b_at(int k, int n) { return float((k * 5 + n * 11) % 7 - 3); }
static float c_at(int m, int n) { return float((m + 2 * n) % 5 - 2); }

static typename Gemm::Arguments arguments(void* const* at) {
  auto stride_a = cutlass::make_cute_packed_stride(typename GemmKernel::StrideA{}, {M, K, 1});
  auto stride_b = cutlass::make_cute_packed_stride(typename GemmKernel::StrideB{}, {N, K, 1});
  auto stride_c = cutlass::make_cute_packed_stride(typename GemmKernel::StrideC{}, {M, N, 1});
  auto stride_d = cutlass::make_cute_packed_stride(typename GemmKernel::StrideD{}, {M, N, 1});
  cutlass::KernelHardwareInfo hw_info;
  hw_info.device_id = 0;
  hw_info.sm_count = SM_COUNT;  // the persistent grid's size, at most
  return typename Gemm::Arguments{
      cutlass::gemm::GemmUniversalMode::kGemm,
      {M, N, K},
      {(ElementA*)at[0], stride_a, (ElementB*)at[1], stride_b},
      {{1.0f, 1.0f}, (ElementC*)at[2], stride_c, (ElementC*)at[3], stride_d},
      hw_info};
}

static int run_gemm() {
  std::vector<cutlass::half_t> a(M * K), b(K * N);
  std::vector<float> c(M * N), d(M * N), want(M * N);
  for (int m = 0; m < M; ++m)
    for (int k = 0; k < K; ++k) a[m * K + k] = cutlass::half_t(a_at(m, k));
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k) b[n * K + k] = cutlass::half_t(b_at(k, n));
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      c[m * N + n] = c_at(m, n);
      double sum = c_at(m, n);
      for (int k = 0; k < K; ++k) sum += double(a_at(m, k)) * double(b_at(k, n));
      want[m * N + n] = float(sum);
    }
  void* at[4];
  CHECK(cudaMalloc(&at[0], a.size() * 2));
  CHECK(cudaMalloc(&at[1], b.size() * 2));
  CHECK(cudaMalloc(&at[2], c.size() * 4));
  CHECK(cudaMalloc(&at[3], d.size() * 4));
  CHECK(cudaMemcpy(at[0], a.data(), a.size() * 2, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(at[1], b.data(), b.size() * 2, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(at[2], c.data(), c.size() * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(at[3], 0, d.size() * 4));
  if (run_adapter<Gemm>(arguments(at))) return 1;
  CHECK(cudaMemcpy(d.data(), at[3], d.size() * 4, cudaMemcpyDeviceToHost));
  return report(M, N, K, d.data(), want.data());
}

int main(int argc, char** argv) {
  if (argc == 3 && strcmp(argv[1], "params") == 0)
    return dump_launch<Gemm, ClusterShape, arguments>(argv[2], M, N, K, 4);
  if (argc != 1) {
    fprintf(stderr, "usage: %s [params FILE]\n", argv[0]);
    return 2;
  }
  return run_gemm();
}
