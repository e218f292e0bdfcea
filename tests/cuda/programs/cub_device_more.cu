// CUB device-wide algorithms cub_device does not use: DeviceSegmentedRadixSort (pairs),
// DeviceSegmentedSort (keys, descending), DevicePartition::If, DeviceScan::InclusiveScanByKey
// and ExclusiveSumByKey, DeviceReduce::ReduceByKey, DeviceAdjacentDifference::SubtractLeftCopy,
// DeviceMergeSort::SortPairs with a custom comparator, DeviceSelect::UniqueByKey,
// DeviceRunLengthEncode::NonTrivialRuns and DeviceHistogram::HistogramRange; each against a CPU
// computation of the same thing (std::sort, std::partition, loops).
#include <cub/cub.cuh>
#include <algorithm>
#include <map>
#include <numeric>
#include <vector>
#include "check.h"

template <typename T> T *dev(const std::vector<T> &v) {
  T *d;
  CUDA(cudaMalloc(&d, std::max<size_t>(1, v.size()) * sizeof(T)));
  if (!v.empty()) CUDA(cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}
template <typename T> std::vector<T> host(const T *d, size_t n) {
  std::vector<T> v(n);
  if (n) CUDA(cudaMemcpy(v.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return v;
}
// Runs a CUB call twice: once for the temporary storage size, once for the work.
#define CUB_RUN(call_with_storage)                                                               \
  do {                                                                                           \
    void *d_temp_storage = nullptr;                                                              \
    size_t temp_storage_bytes = 0;                                                               \
    CUDA(call_with_storage);                                                                     \
    CUDA(cudaMalloc(&d_temp_storage, temp_storage_bytes + 1));                                   \
    CUDA(call_with_storage);                                                                     \
    CUDA(cudaFree(d_temp_storage));                                                              \
  } while (0)

struct IsOdd {
  __host__ __device__ bool operator()(int x) const { return x & 1; }
};
struct ByMagnitude {  // |a| < |b|, ties by sign
  __host__ __device__ bool operator()(int a, int b) const {
    int ma = a < 0 ? -a : a, mb = b < 0 ? -b : b;
    return ma < mb || (ma == mb && a < b);
  }
};

int main() {
  unsigned seed = 17;
  const int n = 1500;
  std::vector<int> keys(n);
  std::vector<float> values(n);
  for (int i = 0; i < n; ++i) {
    keys[i] = int(lcg(seed) % 2001) - 1000;
    values[i] = float(i);
  }
  // Segments of irregular lengths (some empty).
  std::vector<int> offsets = {0};
  while (offsets.back() < n) offsets.push_back(std::min(n, offsets.back() + int(lcg(seed) % 300)));
  int segments = int(offsets.size()) - 1;
  int *d_keys = dev(keys), *d_offsets = dev(offsets);
  float *d_values = dev(values);

  {  // segmented radix sort of pairs
    int *d_out = dev(std::vector<int>(n));
    float *d_vout = dev(std::vector<float>(n));
    CUB_RUN(cub::DeviceSegmentedRadixSort::SortPairs(d_temp_storage, temp_storage_bytes, d_keys, d_out, d_values,
                                                     d_vout, n, segments, d_offsets, d_offsets + 1));
    auto k = host(d_out, n);
    auto v = host(d_vout, n);
    int bad = 0;
    for (int s = 0; s < segments; ++s) {
      std::vector<std::pair<int, float>> ref;
      for (int i = offsets[s]; i < offsets[s + 1]; ++i) ref.push_back({keys[i], values[i]});
      std::stable_sort(ref.begin(), ref.end(), [](auto a, auto b) { return a.first < b.first; });
      for (size_t j = 0; j < ref.size(); ++j)
        bad += k[offsets[s] + j] != ref[j].first || v[offsets[s] + j] != ref[j].second;
    }
    CHECK(bad == 0, "segmented radix sort pairs: %d wrong", bad);
  }
  {  // segmented sort of keys, descending
    int *d_out = dev(std::vector<int>(n));
    CUB_RUN(cub::DeviceSegmentedSort::SortKeysDescending(d_temp_storage, temp_storage_bytes, d_keys, d_out, n,
                                                         segments, d_offsets, d_offsets + 1));
    auto k = host(d_out, n);
    int bad = 0;
    for (int s = 0; s < segments; ++s) {
      std::vector<int> ref(keys.begin() + offsets[s], keys.begin() + offsets[s + 1]);
      std::sort(ref.rbegin(), ref.rend());
      for (size_t j = 0; j < ref.size(); ++j) bad += k[offsets[s] + j] != ref[j];
    }
    CHECK(bad == 0, "segmented sort descending: %d wrong", bad);
  }
  {  // partition: odd first (in order), then the rest in reverse order
    int *d_out = dev(std::vector<int>(n)), *d_count = dev(std::vector<int>(1));
    CUB_RUN(cub::DevicePartition::If(d_temp_storage, temp_storage_bytes, d_keys, d_out, d_count, n, IsOdd()));
    int count = host(d_count, 1)[0];
    auto k = host(d_out, n);
    std::vector<int> odd, even;
    for (int x : keys) (x & 1 ? odd : even).push_back(x);
    CHECK(count == int(odd.size()), "partition count %d, want %zu", count, odd.size());
    int bad = 0;
    for (size_t i = 0; i < odd.size(); ++i) bad += k[i] != odd[i];
    for (size_t i = 0; i < even.size(); ++i) bad += k[n - 1 - i] != even[i];
    CHECK(bad == 0, "partition: %d wrong", bad);
  }
  // Runs of equal keys for the by-key algorithms.
  std::vector<int> runs(n);
  for (int i = 0, key = 0; i < n; ++key) {
    int len = 1 + int(lcg(seed) % 9);
    for (int j = 0; j < len && i < n; ++j) runs[i++] = key * 7 % 13;
  }
  std::vector<int> ones(n);
  for (int i = 0; i < n; ++i) ones[i] = int(lcg(seed) % 100);
  int *d_runs = dev(runs), *d_ones = dev(ones);
  {  // inclusive max-scan and exclusive sum by key
    int *d_scan = dev(std::vector<int>(n)), *d_sum = dev(std::vector<int>(n));
    CUB_RUN(cub::DeviceScan::InclusiveScanByKey(d_temp_storage, temp_storage_bytes, d_runs, d_ones, d_scan,
                                                cuda::maximum<>(), n));
    CUB_RUN(cub::DeviceScan::ExclusiveSumByKey(d_temp_storage, temp_storage_bytes, d_runs, d_ones, d_sum, n));
    auto scan = host(d_scan, n), sum = host(d_sum, n);
    int bad = 0, running_max = 0, running_sum = 0;
    for (int i = 0; i < n; ++i) {
      bool start = i == 0 || runs[i] != runs[i - 1];
      running_max = start ? ones[i] : std::max(running_max, ones[i]);
      if (start) running_sum = 0;
      bad += scan[i] != running_max || sum[i] != running_sum;
      running_sum += ones[i];
    }
    CHECK(bad == 0, "scans by key: %d wrong", bad);
  }
  {  // reduce by key, unique by key, non-trivial runs
    int *d_unique = dev(std::vector<int>(n)), *d_agg = dev(std::vector<int>(n)), *d_num = dev(std::vector<int>(1));
    CUB_RUN(cub::DeviceReduce::ReduceByKey(d_temp_storage, temp_storage_bytes, d_runs, d_unique, d_ones, d_agg,
                                           d_num, cuda::std::plus<>(), n));
    int groups = host(d_num, 1)[0];
    auto u = host(d_unique, n), agg = host(d_agg, n);
    std::vector<int> ru, ra, rfirst, rlen;
    for (int i = 0; i < n; ++i) {
      if (i == 0 || runs[i] != runs[i - 1]) { ru.push_back(runs[i]); ra.push_back(0); rfirst.push_back(i); rlen.push_back(0); }
      ra.back() += ones[i];
      rlen.back() += 1;
    }
    CHECK(groups == int(ru.size()), "reduce by key: %d groups, want %zu", groups, ru.size());
    int bad = 0;
    for (int g = 0; g < groups && g < int(ru.size()); ++g) bad += u[g] != ru[g] || agg[g] != ra[g];
    CHECK(bad == 0, "reduce by key: %d wrong", bad);
    int *d_uk = dev(std::vector<int>(n)), *d_uv = dev(std::vector<int>(n));
    CUB_RUN(cub::DeviceSelect::UniqueByKey(d_temp_storage, temp_storage_bytes, d_runs, d_ones, d_uk, d_uv, d_num, n));
    int uniques = host(d_num, 1)[0];
    auto uk = host(d_uk, n), uv = host(d_uv, n);
    bad = uniques != int(ru.size());
    for (int g = 0; g < uniques && g < int(ru.size()); ++g) bad += uk[g] != ru[g] || uv[g] != ones[rfirst[g]];
    CHECK(bad == 0, "unique by key: %d wrong (%d uniques)", bad, uniques);
    int *d_off = dev(std::vector<int>(n)), *d_len = dev(std::vector<int>(n));
    CUB_RUN(cub::DeviceRunLengthEncode::NonTrivialRuns(d_temp_storage, temp_storage_bytes, d_runs, d_off, d_len,
                                                       d_num, n));
    int nontrivial = host(d_num, 1)[0];
    auto off = host(d_off, n), len = host(d_len, n);
    std::vector<int> want_off, want_len;
    for (size_t g = 0; g < ru.size(); ++g)
      if (rlen[g] > 1) { want_off.push_back(rfirst[g]); want_len.push_back(rlen[g]); }
    bad = nontrivial != int(want_off.size());
    for (int g = 0; g < nontrivial && g < int(want_off.size()); ++g) bad += off[g] != want_off[g] || len[g] != want_len[g];
    CHECK(bad == 0, "non-trivial runs: %d wrong (%d runs)", bad, nontrivial);
  }
  {  // adjacent difference and merge sort with a comparator
    int *d_diff = dev(std::vector<int>(n));
    CUB_RUN(cub::DeviceAdjacentDifference::SubtractLeftCopy(d_temp_storage, temp_storage_bytes, d_keys, d_diff, n));
    auto diff = host(d_diff, n);
    int bad = diff[0] != keys[0];
    for (int i = 1; i < n; ++i) bad += diff[i] != keys[i] - keys[i - 1];
    CHECK(bad == 0, "adjacent difference: %d wrong", bad);
    int *d_k = dev(keys);
    float *d_v = dev(values);
    CUB_RUN(cub::DeviceMergeSort::StableSortPairs(d_temp_storage, temp_storage_bytes, d_k, d_v, n, ByMagnitude()));
    auto k = host(d_k, n);
    auto v = host(d_v, n);
    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return ByMagnitude()(keys[a], keys[b]); });
    bad = 0;
    for (int i = 0; i < n; ++i) bad += k[i] != keys[order[i]] || v[i] != values[order[i]];
    CHECK(bad == 0, "merge sort pairs by magnitude: %d wrong", bad);
  }
  {  // histogram over uneven bin boundaries
    std::vector<float> samples(n);
    for (int i = 0; i < n; ++i) samples[i] = float(lcg(seed) % 100000) / 1000.0f;  // [0, 100)
    std::vector<float> levels = {0.0f, 1.0f, 5.0f, 10.0f, 25.0f, 50.0f, 51.0f, 99.0f, 100.0f};
    int bins = int(levels.size()) - 1;
    float *d_samples = dev(samples), *d_levels = dev(levels);
    int *d_hist = dev(std::vector<int>(bins));
    CUB_RUN(cub::DeviceHistogram::HistogramRange(d_temp_storage, temp_storage_bytes, d_samples, d_hist, bins + 1,
                                                 d_levels, n));
    auto hist = host(d_hist, bins);
    std::vector<int> ref(bins, 0);
    for (float x : samples)
      for (int b = 0; b < bins; ++b)
        if (x >= levels[b] && x < levels[b + 1]) ++ref[b];
    CHECK(hist == ref, "histogram range: bin 0 %d want %d, bin 5 %d want %d", hist[0], ref[0], hist[5], ref[5]);
  }
  return report("cub_device_more");
}
