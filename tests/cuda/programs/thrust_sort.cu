// Thrust sorting: ints, floats, sort_by_key, pairs through a zip iterator, a custom comparator,
// stable_sort, and thrust::sort on a raw device pointer with thrust::device.
#include <algorithm>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/host_vector.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/sort.h>
#include <thrust/tuple.h>
#include <utility>
#include <vector>
#include "check.h"

int main() {
  const int n = 5000;
  unsigned seed = 7;
  std::vector<int> ints(n);
  std::vector<float> floats(n);
  for (int i = 0; i < n; ++i) {
    ints[i] = int(lcg(seed) % 20001) - 10000;
    floats[i] = float(int(lcg(seed) % 100000) - 50000) / 128.0f;
  }
  // ints ascending
  {
    thrust::device_vector<int> d(ints.begin(), ints.end());
    thrust::sort(d.begin(), d.end());
    std::vector<int> want = ints;
    std::sort(want.begin(), want.end());
    thrust::host_vector<int> got = d;
    for (int i = 0; i < n; ++i) CHECK(got[i] == want[i], "ints[%d] %d vs %d", i, got[i], want[i]);
  }
  // floats descending
  {
    thrust::device_vector<float> d(floats.begin(), floats.end());
    thrust::sort(d.begin(), d.end(), thrust::greater<float>());
    std::vector<float> want = floats;
    std::sort(want.begin(), want.end(), std::greater<float>());
    thrust::host_vector<float> got = d;
    for (int i = 0; i < n; ++i) CHECK(got[i] == want[i], "floats[%d] %g vs %g", i, got[i], want[i]);
  }
  // sort_by_key (stable for equal keys: keys in a small range)
  {
    std::vector<int> keys(n), vals(n);
    for (int i = 0; i < n; ++i) {
      keys[i] = int(lcg(seed) % 50);
      vals[i] = i;
    }
    thrust::device_vector<int> dk(keys.begin(), keys.end()), dv(vals.begin(), vals.end());
    thrust::stable_sort_by_key(dk.begin(), dk.end(), dv.begin());
    std::vector<std::pair<int, int>> want(n);
    for (int i = 0; i < n; ++i) want[i] = {keys[i], vals[i]};
    std::stable_sort(want.begin(), want.end(),
                     [](auto a, auto b) { return a.first < b.first; });
    thrust::host_vector<int> gk = dk, gv = dv;
    for (int i = 0; i < n; ++i)
      CHECK(gk[i] == want[i].first && gv[i] == want[i].second, "by_key[%d] (%d,%d) vs (%d,%d)",
            i, gk[i], gv[i], want[i].first, want[i].second);
  }
  // pairs (a, b) sorted lexicographically through a zip iterator
  {
    std::vector<int> a(n), b(n);
    for (int i = 0; i < n; ++i) {
      a[i] = int(lcg(seed) % 10);
      b[i] = int(lcg(seed) % 1000);
    }
    thrust::device_vector<int> da(a.begin(), a.end()), db(b.begin(), b.end());
    auto first = thrust::make_zip_iterator(thrust::make_tuple(da.begin(), db.begin()));
    thrust::sort(first, first + n);
    std::vector<std::pair<int, int>> want(n);
    for (int i = 0; i < n; ++i) want[i] = {a[i], b[i]};
    std::sort(want.begin(), want.end());
    thrust::host_vector<int> ga = da, gb = db;
    for (int i = 0; i < n; ++i)
      CHECK(ga[i] == want[i].first && gb[i] == want[i].second, "pairs[%d]", i);
  }
  // a user comparator on a raw device pointer (merge sort path)
  {
    int *raw;
    CUDA(cudaMalloc(&raw, n * sizeof(int)));
    CUDA(cudaMemcpy(raw, ints.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    auto by_abs = [] __host__ __device__(int x, int y) {
      return (x < 0 ? -x : x) < (y < 0 ? -y : y);
    };
    thrust::stable_sort(thrust::device, raw, raw + n, by_abs);
    std::vector<int> got(n), want = ints;
    CUDA(cudaMemcpy(got.data(), raw, n * sizeof(int), cudaMemcpyDeviceToHost));
    std::stable_sort(want.begin(), want.end(), by_abs);
    for (int i = 0; i < n; ++i) CHECK(got[i] == want[i], "by_abs[%d] %d vs %d", i, got[i], want[i]);
    CUDA(cudaFree(raw));
  }
  // 64-bit keys and doubles
  {
    std::vector<unsigned long long> k(n);
    std::vector<double> v(n);
    for (int i = 0; i < n; ++i) {
      k[i] = (unsigned long long)lcg(seed) << 32 | lcg(seed);
      v[i] = double(i) * 0.5;
    }
    thrust::device_vector<unsigned long long> dk(k.begin(), k.end());
    thrust::device_vector<double> dv(v.begin(), v.end());
    thrust::sort_by_key(dk.begin(), dk.end(), dv.begin());
    std::vector<std::pair<unsigned long long, double>> want(n);
    for (int i = 0; i < n; ++i) want[i] = {k[i], v[i]};
    std::sort(want.begin(), want.end());
    thrust::host_vector<unsigned long long> gk = dk;
    thrust::host_vector<double> gv = dv;
    for (int i = 0; i < n; ++i)
      CHECK(gk[i] == want[i].first && gv[i] == want[i].second, "u64[%d]", i);
  }
  return report("thrust_sort");
}
