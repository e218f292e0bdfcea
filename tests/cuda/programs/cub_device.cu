// CUB's device-wide algorithms with their two-phase temporary storage: DeviceReduce (Sum, Max,
// ArgMin), DeviceScan (ExclusiveSum, InclusiveScan), DeviceRadixSort (SortKeys, SortPairs,
// descending), DeviceHistogram::HistogramEven, DeviceSelect (If, Flagged, Unique),
// DeviceSegmentedReduce and DeviceRunLengthEncode.
#include <algorithm>
#include <cub/cub.cuh>
#include <cuda/functional>
#include <numeric>
#include <vector>
#include "check.h"

struct less_than {
  int bound;
  __host__ __device__ bool operator()(const int &x) const { return x < bound; }
};

template <typename T>
T *upload(const std::vector<T> &h) {
  T *d;
  CUDA(cudaMalloc(&d, h.size() * sizeof(T)));
  CUDA(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}
template <typename T>
std::vector<T> download(const T *d, size_t n) {
  std::vector<T> h(n);
  CUDA(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

// Runs a CUB call twice: first for the temporary storage size, then for real.
#define CUB_CALL(...)                                  \
  do {                                                 \
    void *temp = nullptr;                              \
    size_t temp_bytes = 0;                             \
    CUDA(__VA_ARGS__);                                 \
    CUDA(cudaMalloc(&temp, temp_bytes));               \
    CUDA(__VA_ARGS__);                                 \
    CUDA(cudaFree(temp));                              \
  } while (0)

int main() {
  const int n = 20000;
  unsigned seed = 3;
  std::vector<int> h(n);
  for (int i = 0; i < n; ++i) h[i] = int(lcg(seed) % 2001) - 1000;
  int *d_in = upload(h);
  int *d_out;
  CUDA(cudaMalloc(&d_out, n * sizeof(int)));
  int *d_one;
  CUDA(cudaMalloc(&d_one, 2 * sizeof(int)));

  CUB_CALL(cub::DeviceReduce::Sum(temp, temp_bytes, d_in, d_one, n));
  int sum = download(d_one, 1)[0];
  CHECK(sum == std::accumulate(h.begin(), h.end(), 0), "Sum %d", sum);
  CUB_CALL(cub::DeviceReduce::Max(temp, temp_bytes, d_in, d_one, n));
  int mx = download(d_one, 1)[0];
  CHECK(mx == *std::max_element(h.begin(), h.end()), "Max %d", mx);
  {
    cub::KeyValuePair<int, int> *d_kv;
    CUDA(cudaMalloc(&d_kv, sizeof(*d_kv)));
    CUB_CALL(cub::DeviceReduce::ArgMin(temp, temp_bytes, d_in, d_kv, n));
    auto kv = download(d_kv, 1)[0];
    int want = int(std::min_element(h.begin(), h.end()) - h.begin());
    CHECK(kv.key == want && kv.value == h[want], "ArgMin (%d,%d) vs %d", kv.key, kv.value, want);
    CUDA(cudaFree(d_kv));
  }
  {
    CUB_CALL(cub::DeviceScan::ExclusiveSum(temp, temp_bytes, d_in, d_out, n));
    auto got = download(d_out, n);
    int acc = 0;
    for (int i = 0; i < n; ++i) {
      CHECK(got[i] == acc, "ExclusiveSum[%d] %d vs %d", i, got[i], acc);
      acc += h[i];
    }
    CUB_CALL(cub::DeviceScan::InclusiveScan(temp, temp_bytes, d_in, d_out, cuda::maximum<>{}, n));
    got = download(d_out, n);
    int m = h[0];
    for (int i = 0; i < n; ++i) {
      m = std::max(m, h[i]);
      CHECK(got[i] == m, "InclusiveScan max[%d]", i);
    }
  }
  {
    std::vector<unsigned> keys(n);
    std::vector<int> vals(n);
    for (int i = 0; i < n; ++i) {
      keys[i] = lcg(seed);
      vals[i] = i;
    }
    unsigned *dk = upload(keys), *dk_out;
    int *dv = upload(vals), *dv_out;
    CUDA(cudaMalloc(&dk_out, n * sizeof(unsigned)));
    CUDA(cudaMalloc(&dv_out, n * sizeof(int)));
    CUB_CALL(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, dk, dk_out, dv, dv_out, n));
    auto gk = download(dk_out, n);
    auto gv = download(dv_out, n);
    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return keys[a] < keys[b]; });
    for (int i = 0; i < n; ++i)
      CHECK(gk[i] == keys[order[i]] && gv[i] == order[i], "SortPairs[%d]", i);
    // descending float keys
    std::vector<float> fk(n);
    for (int i = 0; i < n; ++i) fk[i] = float(int(lcg(seed) % 100000) - 50000) * 0.125f;
    float *dfk = upload(fk), *dfk_out;
    CUDA(cudaMalloc(&dfk_out, n * sizeof(float)));
    CUB_CALL(cub::DeviceRadixSort::SortKeysDescending(temp, temp_bytes, dfk, dfk_out, n));
    auto gf = download(dfk_out, n);
    std::sort(fk.begin(), fk.end(), std::greater<float>());
    for (int i = 0; i < n; ++i) CHECK(gf[i] == fk[i], "SortKeysDescending[%d] %g vs %g", i, gf[i], fk[i]);
    // a double-buffer sort of 64-bit keys on a bit range
    std::vector<unsigned long long> k64(n);
    for (int i = 0; i < n; ++i) k64[i] = ((unsigned long long)lcg(seed) << 20) ^ lcg(seed);
    unsigned long long *a = upload(k64), *b;
    CUDA(cudaMalloc(&b, n * sizeof(unsigned long long)));
    cub::DoubleBuffer<unsigned long long> buf(a, b);
    CUB_CALL(cub::DeviceRadixSort::SortKeys(temp, temp_bytes, buf, n));
    auto g64 = download(buf.Current(), n);
    std::sort(k64.begin(), k64.end());
    for (int i = 0; i < n; ++i) CHECK(g64[i] == k64[i], "SortKeys u64[%d]", i);
    cudaFree(dk); cudaFree(dk_out); cudaFree(dv); cudaFree(dv_out); cudaFree(dfk); cudaFree(dfk_out);
    cudaFree(a); cudaFree(b);
  }
  {
    const int bins = 16;
    std::vector<float> samples(n);
    for (int i = 0; i < n; ++i) samples[i] = float(lcg(seed) % 10000) / 100.0f;  // [0, 100)
    float *ds = upload(samples);
    int *dh;
    CUDA(cudaMalloc(&dh, bins * sizeof(int)));
    CUB_CALL(cub::DeviceHistogram::HistogramEven(temp, temp_bytes, ds, dh, bins + 1, 0.0f, 100.0f, n));
    auto got = download(dh, bins);
    std::vector<int> want(bins, 0);
    for (float s : samples) want[int(s / (100.0f / bins))]++;
    // CUB bins by (sample - lower) * bins / (upper - lower): recompute the same way
    std::fill(want.begin(), want.end(), 0);
    for (float s : samples) {
      int bin = int((s - 0.0f) * (float(bins) / 100.0f));
      want[std::min(bin, bins - 1)]++;
    }
    int total = 0;
    for (int i = 0; i < bins; ++i) total += got[i];
    CHECK(total == n, "histogram total %d", total);
    for (int i = 0; i < bins; ++i) CHECK(std::abs(got[i] - want[i]) <= 2, "bin %d: %d vs %d", i, got[i], want[i]);
    cudaFree(ds); cudaFree(dh);
  }
  {
    int *d_count;
    CUDA(cudaMalloc(&d_count, sizeof(int)));
    CUB_CALL(cub::DeviceSelect::If(temp, temp_bytes, d_in, d_out, d_count, n, less_than{-300}));
    auto cnt = download(d_count, 1)[0];
    std::vector<int> want;
    for (int x : h) if (x < -300) want.push_back(x);
    CHECK(cnt == int(want.size()), "Select::If count %d vs %zu", cnt, want.size());
    auto got = download(d_out, want.size());
    for (size_t i = 0; i < want.size(); ++i) CHECK(got[i] == want[i], "Select::If[%zu]", i);

    std::vector<char> flags(n);
    for (int i = 0; i < n; ++i) flags[i] = (i % 3 == 0);
    char *dflags = upload(flags);
    CUB_CALL(cub::DeviceSelect::Flagged(temp, temp_bytes, d_in, dflags, d_out, d_count, n));
    cnt = download(d_count, 1)[0];
    CHECK(cnt == (n + 2) / 3, "Flagged count %d", cnt);
    got = download(d_out, cnt);
    for (int i = 0; i < cnt; ++i) CHECK(got[i] == h[3 * i], "Flagged[%d]", i);

    std::vector<int> runs(n);
    for (int i = 0; i < n; ++i) runs[i] = i / 5 + (i % 5 == 4);
    int *druns = upload(runs);
    CUB_CALL(cub::DeviceSelect::Unique(temp, temp_bytes, druns, d_out, d_count, n));
    cnt = download(d_count, 1)[0];
    std::vector<int> u = runs;
    u.erase(std::unique(u.begin(), u.end()), u.end());
    CHECK(cnt == int(u.size()), "Unique count %d vs %zu", cnt, u.size());
    got = download(d_out, u.size());
    for (size_t i = 0; i < u.size(); ++i) CHECK(got[i] == u[i], "Unique[%zu]", i);

    // run-length encoding of the same runs
    int *d_lengths;
    CUDA(cudaMalloc(&d_lengths, n * sizeof(int)));
    CUB_CALL(cub::DeviceRunLengthEncode::Encode(temp, temp_bytes, druns, d_out, d_lengths, d_count, n));
    cnt = download(d_count, 1)[0];
    CHECK(cnt == int(u.size()), "RLE count %d", cnt);
    auto lens = download(d_lengths, cnt);
    int pos = 0;
    for (int r = 0; r < cnt; ++r) {
      int len = 0;
      while (pos + len < n && runs[pos + len] == runs[pos]) ++len;
      CHECK(lens[r] == len, "RLE length[%d] %d vs %d", r, lens[r], len);
      pos += len;
    }
    cudaFree(d_count); cudaFree(dflags); cudaFree(druns); cudaFree(d_lengths);
  }
  {
    // segmented sums over 100 segments of varying length
    const int segs = 100;
    std::vector<int> offsets(segs + 1);
    offsets[0] = 0;
    for (int s = 1; s <= segs; ++s) offsets[s] = std::min(n, offsets[s - 1] + int(lcg(seed) % 400));
    offsets[segs] = n;
    int *doff = upload(offsets);
    CUB_CALL(cub::DeviceSegmentedReduce::Sum(temp, temp_bytes, d_in, d_out, segs, doff, doff + 1));
    auto got = download(d_out, segs);
    for (int s = 0; s < segs; ++s) {
      int want = 0;
      for (int i = offsets[s]; i < offsets[s + 1]; ++i) want += h[i];
      CHECK(got[s] == want, "segment %d: %d vs %d", s, got[s], want);
    }
    cudaFree(doff);
  }
  cudaFree(d_in); cudaFree(d_out); cudaFree(d_one);
  return report("cub_device");
}
