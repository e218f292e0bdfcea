// CUTLASS sm_100a GEMMs (TMA loads, tcgen05.mma into tensor memory, an mbarrier pipeline, a
// warp-specialized persistent kernel scheduled by cluster launch control, a TMA epilogue), for
// ptxsim's tests.
//
//   D (M x N, f32, row-major) = A (M x K, row-major) * B (K x N, column-major) + C
//
// Every input is a small integer (and every scale factor a power of two), so every product and
// sum is exact in f32 and the result does not depend on the order of the additions: a host loop
// gives it bit for bit.
//
// Built by scripts/blackwell/cutlass-sm100.sh with nvcc -gencode arch=compute_100a,code=compute_100a
// (PTX only), which also keeps the kernel's PTX. The nvcc flag picks the kernel:
//
//   (none)        1SM: f16 x f16, 128 x 128 x 64 tiles, no cluster (KernelScheduleAuto picks
//                 the 1SM tcgen05 schedule)
//   -DTWO_SM      2SM: f16 x f16, 256 x 128 x 64 tiles over a 2 x 1 cluster, tcgen05.mma
//                 .cta_group::2 (KernelScheduleAuto picks the 2SM schedule)
//   -DMXFP8       block-scaled: MXFP8 (e4m3 elements, a ue8m0 factor per 32 of K) x MXFP8,
//                 128 x 128 x 128 tiles, no cluster (OpClassBlockScaledTensorOp)
//   -DMXFP8 -DTWO_SM  block-scaled 2SM: 256 x 128 x 128 tiles over a 2 x 1 cluster
//
// Two uses, as scripts/hopper/cutlass_gemm.cu:
//
//   cutlass_sm100                run the GEMM through CUTLASS's device adapter (on a GPU, or on
//                                ptxsim's libcuda.so.1), compare with the host loop, print
//                                "Disposition: Passed" or "Failed"
//   cutlass_sm100 params FILE    write the kernel's launch and parameter block as JSON (device
//                                pointers at placeholder addresses, each tensor map replaced by
//                                the arguments of its cuTensorMapEncodeTiled call); needs no
//                                device.
//
// The placeholder addresses: tensor i (0 A, 1 B, 2 C, 3 D, 4 SFA, 5 SFB) lies at
// PLACEHOLDER + i << 32.

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
#if defined(MXFP8)
#include "cutlass/detail/sm100_blockscaled_layout.hpp"
#endif

#include "launch_dump.h"

using namespace cute;

#if defined(MXFP8) && defined(TWO_SM)
constexpr int M = 512, N = 256, K = 256;
using MmaTileShape = Shape<_256, _128, _128>;
using ClusterShape = Shape<_2, _1, _1>;
#elif defined(MXFP8)
constexpr int M = 256, N = 128, K = 512;
using MmaTileShape = Shape<_128, _128, _128>;
using ClusterShape = Shape<_1, _1, _1>;
#endif
#if defined(MXFP8)
using ElementA = cutlass::mx_float8_t<cutlass::float_e4m3_t>;
using ElementB = cutlass::mx_float8_t<cutlass::float_e4m3_t>;
using OperatorClass = cutlass::arch::OpClassBlockScaledTensorOp;
constexpr int AlignmentA = 16, AlignmentB = 16;
#else
using ElementA = cutlass::half_t;
using ElementB = cutlass::half_t;
using OperatorClass = cutlass::arch::OpClassTensorOp;
constexpr int AlignmentA = 8, AlignmentB = 8;
#if defined(TWO_SM)
constexpr int M = 512, N = 256, K = 256;
using MmaTileShape = Shape<_256, _128, _64>;
using ClusterShape = Shape<_2, _1, _1>;
#else
constexpr int M = 256, N = 128, K = 512;
using MmaTileShape = Shape<_128, _128, _64>;
using ClusterShape = Shape<_1, _1, _1>;
#endif
#endif

using LayoutA = cutlass::layout::RowMajor;
using LayoutB = cutlass::layout::ColumnMajor;
using ElementC = float;
using LayoutC = cutlass::layout::RowMajor;
using ElementAccumulator = float;

using CollectiveEpilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
    cutlass::arch::Sm100, OperatorClass, MmaTileShape, ClusterShape,
    cutlass::epilogue::collective::EpilogueTileAuto, ElementAccumulator, ElementAccumulator,
    ElementC, LayoutC, 4, ElementC, LayoutC, 4,
    cutlass::epilogue::collective::EpilogueScheduleAuto>::CollectiveOp;

using CollectiveMainloop = typename cutlass::gemm::collective::CollectiveBuilder<
    cutlass::arch::Sm100, OperatorClass, ElementA, LayoutA, AlignmentA, ElementB, LayoutB,
    AlignmentB, ElementAccumulator, MmaTileShape, ClusterShape,
    cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(
        sizeof(typename CollectiveEpilogue::SharedStorage))>,
    cutlass::gemm::collective::KernelScheduleAuto>::CollectiveOp;

using GemmKernel = cutlass::gemm::kernel::GemmUniversal<Shape<int, int, int, int>,
                                                        CollectiveMainloop, CollectiveEpilogue>;
using Gemm = cutlass::gemm::device::GemmUniversalAdapter<GemmKernel>;

// The inputs; crates/exec/tests/suite/cutlass.rs computes the same.
static float a_at(int m, int k) { return float((m * 7 + k * 3) % 9 - 4); }
static float b_at(int k, int n) { return float((k * 5 + n * 11) % 7 - 3); }
static float c_at(int m, int n) { return float((m + 2 * n) % 5 - 2); }
#if defined(MXFP8)
// The scale factors: 2^e, one per row (of A) or column (of B) and block of 32 along K.
constexpr int SF_VECTOR = 32;
static int sfa_exponent(int m, int block) { return (m + 3 * block) % 4 - 1; }
static int sfb_exponent(int n, int block) { return (2 * n + block) % 3 - 1; }
using Sm1xxBlkScaledConfig = typename CollectiveMainloop::Sm1xxBlkScaledConfig;
#endif

static typename Gemm::Arguments arguments(void* const* at) {
  auto stride_a = cutlass::make_cute_packed_stride(typename GemmKernel::StrideA{}, {M, K, 1});
  auto stride_b = cutlass::make_cute_packed_stride(typename GemmKernel::StrideB{}, {N, K, 1});
  auto stride_c = cutlass::make_cute_packed_stride(typename GemmKernel::StrideC{}, {M, N, 1});
  auto stride_d = cutlass::make_cute_packed_stride(typename GemmKernel::StrideD{}, {M, N, 1});
  cutlass::KernelHardwareInfo hw_info;
  hw_info.device_id = 0;
  hw_info.sm_count = 0;  // the sm100 scheduler launches every tile and takes no SM count
  return typename Gemm::Arguments{
      cutlass::gemm::GemmUniversalMode::kGemm,
      {M, N, K, 1},
#if defined(MXFP8)
      {(typename ElementA::DataType*)at[0], stride_a, (typename ElementB::DataType*)at[1],
       stride_b, (typename ElementA::ScaleFactorType*)at[4],
       Sm1xxBlkScaledConfig::tile_atom_to_shape_SFA(make_shape(M, N, K, 1)),
       (typename ElementB::ScaleFactorType*)at[5],
       Sm1xxBlkScaledConfig::tile_atom_to_shape_SFB(make_shape(M, N, K, 1))},
#else
      {(ElementA*)at[0], stride_a, (ElementB*)at[1], stride_b},
#endif
      {{1.0f, 1.0f}, (ElementC*)at[2], stride_c, (ElementC*)at[3], stride_d},
      hw_info};
}

#if defined(MXFP8)
// The ue8m0 byte of 2^e (bias 127).
static uint8_t ue8m0(int e) { return uint8_t(127 + e); }
#endif

static int run_gemm() {
#if defined(MXFP8)
  using DataA = typename ElementA::DataType;
  using DataB = typename ElementB::DataType;
  auto layout_sfa = Sm1xxBlkScaledConfig::tile_atom_to_shape_SFA(make_shape(M, N, K, 1));
  auto layout_sfb = Sm1xxBlkScaledConfig::tile_atom_to_shape_SFB(make_shape(M, N, K, 1));
  std::vector<uint8_t> sfa(size(filter_zeros(layout_sfa))), sfb(size(filter_zeros(layout_sfb)));
  // (m, k, l) -> offset: every k of a block of 32 maps to the same byte.
  for (int m = 0; m < M; ++m)
    for (int k = 0; k < K; k += SF_VECTOR) sfa[layout_sfa(m, k, 0)] = ue8m0(sfa_exponent(m, k / SF_VECTOR));
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; k += SF_VECTOR) sfb[layout_sfb(n, k, 0)] = ue8m0(sfb_exponent(n, k / SF_VECTOR));
  auto scale_a = [](int m, int k) { return double(1 << (sfa_exponent(m, k / SF_VECTOR) + 1)) / 2; };
  auto scale_b = [](int n, int k) { return double(1 << (sfb_exponent(n, k / SF_VECTOR) + 1)) / 2; };
#else
  using DataA = ElementA;
  using DataB = ElementB;
  auto scale_a = [](int, int) { return 1.0; };
  auto scale_b = [](int, int) { return 1.0; };
#endif
  std::vector<DataA> a(M * K);
  std::vector<DataB> b(K * N);
  std::vector<float> c(M * N), d(M * N), want(M * N);
  for (int m = 0; m < M; ++m)
    for (int k = 0; k < K; ++k) a[m * K + k] = DataA(a_at(m, k));
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k) b[n * K + k] = DataB(b_at(k, n));
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      c[m * N + n] = c_at(m, n);
      double sum = c_at(m, n);
      for (int k = 0; k < K; ++k)
        sum += double(a_at(m, k)) * scale_a(m, k) * double(b_at(k, n)) * scale_b(n, k);
      want[m * N + n] = float(sum);
    }
  void* at[6] = {};
  CHECK(cudaMalloc(&at[0], a.size() * sizeof(DataA)));
  CHECK(cudaMalloc(&at[1], b.size() * sizeof(DataB)));
  CHECK(cudaMalloc(&at[2], c.size() * 4));
  CHECK(cudaMalloc(&at[3], d.size() * 4));
  CHECK(cudaMemcpy(at[0], a.data(), a.size() * sizeof(DataA), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(at[1], b.data(), b.size() * sizeof(DataB), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(at[2], c.data(), c.size() * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(at[3], 0, d.size() * 4));
#if defined(MXFP8)
  CHECK(cudaMalloc(&at[4], sfa.size()));
  CHECK(cudaMalloc(&at[5], sfb.size()));
  CHECK(cudaMemcpy(at[4], sfa.data(), sfa.size(), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(at[5], sfb.data(), sfb.size(), cudaMemcpyHostToDevice));
#endif
  if (run_adapter<Gemm>(arguments(at))) return 1;
  CHECK(cudaMemcpy(d.data(), at[3], d.size() * 4, cudaMemcpyDeviceToHost));
  return report(M, N, K, d.data(), want.data());
}

int main(int argc, char** argv) {
  if (argc == 3 && strcmp(argv[1], "params") == 0)
    return dump_launch<Gemm, ClusterShape, arguments>(argv[2], M, N, K, 6);
  if (argc != 1) {
    fprintf(stderr, "usage: %s [params FILE]\n", argv[0]);
    return 2;
  }
  return run_gemm();
}
