// The host side that the CUTLASS test programs share (scripts/blackwell/cutlass_sm100.cu,
// scripts/hopper/cutlass_gemm.cu; included after CUTLASS's headers): recording CUTLASS's tensor
// maps, writing a kernel's launch and parameter block as JSON with placeholder device pointers,
// running the device adapter, and comparing D with the host reference.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <new>
#include <vector>

#define CHECK(call)                                                              \
  do {                                                                           \
    cudaError_t e = (call);                                                      \
    if (e != cudaSuccess) {                                                      \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,              \
              cudaGetErrorString(e));                                            \
      return 1;                                                                  \
    }                                                                            \
  } while (0)

// Every cuTensorMapEncodeTiled call CUTLASS makes (it calls the driver directly:
// CUTLASS_ENABLE_DIRECT_CUDA_DRIVER_CALL), recorded; forwarded to the driver library when one
// is loaded, else the map's bytes are a marker the parameter dump finds again.
struct Encoded {
  unsigned data_type, rank, interleave, swizzle, l2_promotion, oob_fill;
  unsigned long long address, dim[5], strides[4];
  unsigned box[5], element_strides[5];
};
static std::vector<Encoded> encoded;
static bool record_only = false;
static const char marker[] = "ptxsim-map#";
static const unsigned long long placeholder = 0x7a0000000000ull;
static const size_t marker_at = 32;

// Writes `n` in decimal, byte by byte.
static void write_decimal(unsigned char* out, size_t n) {
  unsigned char digits[20];
  size_t count = 0;
  do digits[count++] = (unsigned char)('0' + n % 10); while (n /= 10);
  while (count) *out++ = digits[--count];
}

extern "C" CUresult CUDAAPI cuTensorMapEncodeTiled(
    CUtensorMap* map, CUtensorMapDataType data_type, cuuint32_t rank, void* address,
    const cuuint64_t* dim, const cuuint64_t* strides, const cuuint32_t* box,
    const cuuint32_t* element_strides, CUtensorMapInterleave interleave,
    CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2_promotion,
    CUtensorMapFloatOOBfill oob_fill) {
  Encoded e{};
  e.data_type = data_type;
  e.rank = rank;
  e.interleave = interleave;
  e.swizzle = swizzle;
  e.l2_promotion = l2_promotion;
  e.oob_fill = oob_fill;
  e.address = (unsigned long long)address;
  for (unsigned i = 0; i < rank; ++i) {
    e.dim[i] = dim[i];
    e.box[i] = box[i];
    e.element_strides[i] = element_strides[i];
    if (i + 1 < rank) e.strides[i] = strides[i];
  }
  encoded.push_back(e);
  if (record_only) {
    // Written byte by byte: a library call here would leave the marker on the stack, where
    // the parameter dump would find it in the parameters' uncovered bytes.
    // The marker starts at byte 32: CUTLASS clears bit 21 of the map's second 64-bit word
    // after encoding it (for drivers up to 13.1, and no driver is loaded here).
    unsigned char* bytes = (unsigned char*)map;
    for (size_t i = 0; i < sizeof(*map); ++i) bytes[i] = 0;
    for (size_t i = 0; marker[i]; ++i) bytes[marker_at + i] = marker[i];
    write_decimal(bytes + marker_at + sizeof(marker) - 1, encoded.size() - 1);
    return CUDA_SUCCESS;
  }
  using Encode = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*,
                              const cuuint64_t*, const cuuint64_t*, const cuuint32_t*,
                              const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                              CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
  void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
  Encode real = driver ? (Encode)dlsym(driver, "cuTensorMapEncodeTiled") : nullptr;
  if (!real) return CUDA_ERROR_NOT_INITIALIZED;
  return real(map, data_type, rank, address, dim, strides, box, element_strides, interleave,
              swizzle, l2_promotion, oob_fill);
}

// Tensor i at placeholder + i << 32; from here on tensor maps are only recorded.
static void placeholders(void** at, int count) {
  record_only = true;
  for (int i = 0; i < count; ++i) at[i] = (void*)(placeholder + ((unsigned long long)i << 32));
}

// Fills 64 KiB of the stack below the caller with `fill`.
__attribute__((noinline)) static void dirty_stack(int fill) {
  volatile unsigned char stack[1 << 16];
  for (size_t i = 0; i < sizeof(stack); ++i) stack[i] = (unsigned char)fill;
}

// The parameters have bytes that no member covers (padding, unused union members): `build`
// makes them once over zeros and once over ones (memory and stack), and the bytes that differ
// are left zero in `over_zeros`; `over_ones` is scratch. The tensor maps recorded are those of
// the second build.
static void covered_bytes(unsigned char* over_zeros, unsigned char* over_ones, size_t size,
                          void (*build)(unsigned char*, int, void* const*), void* const* at) {
  dirty_stack(0x00);
  build(over_zeros, 0x00, at);
  encoded.clear();
  dirty_stack(0xff);
  build(over_ones, 0xff, at);
  for (size_t o = 0; o < size; ++o)
    if (over_zeros[o] != over_ones[o]) over_zeros[o] = 0;
}

static void write_launch(FILE* out, dim3 grid, dim3 block, dim3 cluster, int shared_bytes) {
  fprintf(out, "  \"grid\": [%u, %u, %u], \"block\": [%u, %u, %u],\n", grid.x, grid.y, grid.z,
          block.x, block.y, block.z);
  fprintf(out, "  \"cluster\": [%u, %u, %u], \"shared_bytes\": %d,\n", cluster.x, cluster.y,
          cluster.z, shared_bytes);
}

// The placeholder, the recorded maps (with where in `bytes` each one's marker lies) and the
// parameter bytes, closing the JSON object.
static void write_maps_and_params(FILE* out, const unsigned char* bytes, size_t size) {
  fprintf(out, "  \"placeholder\": %llu,\n  \"maps\": [\n", placeholder);
  for (size_t i = 0; i < encoded.size(); ++i) {
    const Encoded& e = encoded[i];
    char want[32];
    snprintf(want, sizeof want, "%s%zu", marker, i);
    long offset = -1;
    for (size_t o = 0; o + 128 <= size; o += 64)
      if (memcmp(bytes + o + marker_at, want, strlen(want) + 1) == 0) offset = long(o);
    fprintf(out, "    {\"offset\": %ld, \"data_type\": %u, \"rank\": %u, \"address\": %llu,", offset,
            e.data_type, e.rank, e.address);
    fprintf(out, " \"dim\": [");
    for (unsigned j = 0; j < e.rank; ++j) fprintf(out, "%s%llu", j ? ", " : "", e.dim[j]);
    fprintf(out, "], \"strides\": [");
    for (unsigned j = 0; j + 1 < e.rank; ++j) fprintf(out, "%s%llu", j ? ", " : "", e.strides[j]);
    fprintf(out, "], \"box\": [");
    for (unsigned j = 0; j < e.rank; ++j) fprintf(out, "%s%u", j ? ", " : "", e.box[j]);
    fprintf(out, "], \"element_strides\": [");
    for (unsigned j = 0; j < e.rank; ++j)
      fprintf(out, "%s%u", j ? ", " : "", e.element_strides[j]);
    fprintf(out, "], \"interleave\": %u, \"swizzle\": %u, \"l2_promotion\": %u, \"oob_fill\": %u}%s\n",
            e.interleave, e.swizzle, e.l2_promotion, e.oob_fill,
            i + 1 < encoded.size() ? "," : "");
  }
  fprintf(out, "  ],\n  \"params\": \"");
  for (size_t o = 0; o < size; ++o) fprintf(out, "%02x", bytes[o]);
  fprintf(out, "\"\n}\n");
}

// Compares D (M x N, row-major) with the host's bit for bit and prints CUTLASS's disposition.
static int report(int m, int n, int k, const float* d, const float* want) {
  int wrong = 0;
  for (int i = 0; i < m * n; ++i)
    if (memcmp(&d[i], &want[i], 4) != 0 && wrong++ < 8)
      fprintf(stderr, "D[%d][%d] = %g, want %g\n", i / n, i % n, d[i], want[i]);
  printf("%dx%dx%d GEMM, %d of %d elements differ\n", m, n, k, wrong, m * n);
  printf("  Disposition: %s\n", wrong ? "Failed" : "Passed");
  return wrong ? 1 : 0;
}

// Makes the arguments (`make`) for the tensors at `at` and from them the kernel's parameters in
// `storage`, first filled with `fill`.
template <class GemmKernel, class Arguments, Arguments (*make)(void* const*)>
__attribute__((noinline)) static void build_params(unsigned char* storage, int fill,
                                                   void* const* at) {
  memset(storage, fill, sizeof(typename GemmKernel::Params));
  auto args = make(at);
  new (storage) typename GemmKernel::Params(GemmKernel::to_underlying_arguments(args, nullptr));
}

// Writes the launch of CUTLASS's `Gemm` for an M x N x K problem to `path` as JSON: the grid,
// block, cluster and shared memory, and the parameters (as `make` and to_underlying_arguments
// make them) with `tensors` tensors at placeholder addresses.
template <class Gemm, class ClusterShape, typename Gemm::Arguments (*make)(void* const*)>
static int dump_launch(const char* path, int m, int n, int k, int tensors) {
  using GemmKernel = typename Gemm::GemmKernel;
  using Params = typename GemmKernel::Params;
  void* at[8];
  placeholders(at, tensors);
  if (Gemm::get_workspace_size(make(at)) != 0) {
    fprintf(stderr, "the kernel wants a workspace; the dump has no place for it\n");
    return 1;
  }
  alignas(Params) static unsigned char over_zeros[sizeof(Params)], over_ones[sizeof(Params)];
  covered_bytes(over_zeros, over_ones, sizeof(Params),
                build_params<GemmKernel, typename Gemm::Arguments, make>, at);
  Params const& params = *(Params const*)over_zeros;
  dim3 grid = GemmKernel::get_grid_shape(params), block = GemmKernel::get_block_shape();
  FILE* out = fopen(path, "w");
  if (!out) return 1;
  fprintf(out, "{\n  \"m\": %d, \"n\": %d, \"k\": %d,\n", m, n, k);
  write_launch(out, grid, block,
               dim3(cute::size<0>(ClusterShape{}), cute::size<1>(ClusterShape{}),
                    cute::size<2>(ClusterShape{})),
               GemmKernel::SharedStorageSize);
  write_maps_and_params(out, over_zeros, sizeof(Params));
  fclose(out);
  return 0;
}

// Runs CUTLASS's device adapter `Gemm` on `args` (with the workspace it asks for) and waits
// for it.
template <class Gemm>
static int run_adapter(typename Gemm::Arguments const& args) {
  Gemm gemm;
  if (gemm.can_implement(args) != cutlass::Status::kSuccess) {
    fprintf(stderr, "can_implement refused the problem\n");
    return 1;
  }
  void* workspace = nullptr;
  size_t workspace_size = Gemm::get_workspace_size(args);
  if (workspace_size) CHECK(cudaMalloc(&workspace, workspace_size));
  if (gemm.initialize(args, workspace) != cutlass::Status::kSuccess ||
      gemm.run() != cutlass::Status::kSuccess) {
    fprintf(stderr, "the GEMM did not launch: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 1;
  }
  CHECK(cudaDeviceSynchronize());
  return 0;
}
