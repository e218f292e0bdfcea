// Thrust's other algorithms: reduce, inclusive/exclusive scan, transform_reduce, unique,
// copy_if, sequence, counting and zip iterators, transform, count_if, min/max_element,
// reduce_by_key, inner_product, fill and host_vector/device_vector copies.
#include <algorithm>
#include <numeric>
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/device_vector.h>
#include <thrust/extrema.h>
#include <thrust/fill.h>
#include <thrust/functional.h>
#include <thrust/host_vector.h>
#include <thrust/inner_product.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>
#include <thrust/tuple.h>
#include <thrust/unique.h>
#include <vector>
#include "check.h"

struct square {
  __host__ __device__ long long operator()(int x) const { return (long long)x * x; }
};
struct is_odd {
  __host__ __device__ bool operator()(int x) const { return x & 1; }
};
struct saxpy_zip {
  float a;
  __host__ __device__ float operator()(const thrust::tuple<float, float> &t) const {
    return a * thrust::get<0>(t) + thrust::get<1>(t);
  }
};

int main() {
  const int n = 10007;
  unsigned seed = 11;
  std::vector<int> h(n);
  for (int i = 0; i < n; ++i) h[i] = int(lcg(seed) % 1000) - 500;
  thrust::host_vector<int> hv(h.begin(), h.end());
  thrust::device_vector<int> d = hv;

  long long sum = thrust::reduce(d.begin(), d.end(), 0LL);
  CHECK(sum == std::accumulate(h.begin(), h.end(), 0LL), "reduce %lld", sum);
  int mx = thrust::reduce(d.begin(), d.end(), -1000000, thrust::maximum<int>());
  CHECK(mx == *std::max_element(h.begin(), h.end()), "reduce max %d", mx);

  {
    thrust::device_vector<int> out(n);
    thrust::inclusive_scan(d.begin(), d.end(), out.begin());
    std::vector<int> want(n);
    std::partial_sum(h.begin(), h.end(), want.begin());
    thrust::host_vector<int> got = out;
    for (int i = 0; i < n; ++i) CHECK(got[i] == want[i], "inclusive_scan[%d]", i);
    thrust::exclusive_scan(d.begin(), d.end(), out.begin(), 5);
    got = out;
    int acc = 5;
    for (int i = 0; i < n; ++i) {
      CHECK(got[i] == acc, "exclusive_scan[%d] %d vs %d", i, got[i], acc);
      acc += h[i];
    }
  }
  {
    long long ss = thrust::transform_reduce(d.begin(), d.end(), square(), 0LL,
                                            thrust::plus<long long>());
    long long want = 0;
    for (int x : h) want += (long long)x * x;
    CHECK(ss == want, "transform_reduce %lld vs %lld", ss, want);
  }
  {
    thrust::device_vector<int> s = d;
    thrust::sort(s.begin(), s.end());
    auto end = thrust::unique(s.begin(), s.end());
    std::vector<int> want = h;
    std::sort(want.begin(), want.end());
    want.erase(std::unique(want.begin(), want.end()), want.end());
    CHECK(int(end - s.begin()) == int(want.size()), "unique size %d vs %zu",
          int(end - s.begin()), want.size());
    thrust::host_vector<int> got(s.begin(), end);
    for (size_t i = 0; i < want.size() && i < got.size(); ++i) CHECK(got[i] == want[i], "unique[%zu]", i);
  }
  {
    thrust::device_vector<int> out(n);
    auto end = thrust::copy_if(d.begin(), d.end(), out.begin(), is_odd());
    std::vector<int> want;
    std::copy_if(h.begin(), h.end(), std::back_inserter(want), [](int x) { return x & 1; });
    CHECK(size_t(end - out.begin()) == want.size(), "copy_if size");
    thrust::host_vector<int> got(out.begin(), end);
    for (size_t i = 0; i < want.size() && i < got.size(); ++i) CHECK(got[i] == want[i], "copy_if[%zu]", i);
    int c = thrust::count_if(d.begin(), d.end(), is_odd());
    CHECK(size_t(c) == want.size(), "count_if %d", c);
  }
  {
    thrust::device_vector<float> x(n), y(n), r(n);
    thrust::sequence(x.begin(), x.end(), 1.0f, 0.5f);
    thrust::sequence(y.begin(), y.end());
    auto zip = thrust::make_zip_iterator(thrust::make_tuple(x.begin(), y.begin()));
    thrust::transform(zip, zip + n, r.begin(), saxpy_zip{2.0f});
    thrust::host_vector<float> got = r;
    for (int i = 0; i < n; ++i) {
      float want = 2.0f * (1.0f + 0.5f * i) + float(i);
      CHECK(got[i] == want, "saxpy[%d] %g vs %g", i, got[i], want);
    }
  }
  {
    // sum of i*i over a counting iterator
    auto first = thrust::make_transform_iterator(thrust::counting_iterator<int>(0), square());
    long long s = thrust::reduce(first, first + 1000, 0LL);
    CHECK(s == 999LL * 1000 * 1999 / 6, "counting %lld", s);
  }
  {
    auto mm = thrust::minmax_element(d.begin(), d.end());
    int lo = *mm.first, hi = *mm.second;
    CHECK(lo == *std::min_element(h.begin(), h.end()) && hi == *std::max_element(h.begin(), h.end()),
          "minmax %d %d", lo, hi);
    int pos = int(thrust::max_element(d.begin(), d.end()) - d.begin());
    CHECK(pos == int(std::max_element(h.begin(), h.end()) - h.begin()), "max_element pos %d", pos);
  }
  {
    // reduce_by_key: runs of equal keys
    std::vector<int> keys(n);
    for (int i = 0; i < n; ++i) keys[i] = i / 7;
    thrust::device_vector<int> dk(keys.begin(), keys.end()), ok(n), ov(n);
    auto ends = thrust::reduce_by_key(dk.begin(), dk.end(), d.begin(), ok.begin(), ov.begin());
    int runs = int(ends.first - ok.begin());
    CHECK(runs == (n + 6) / 7, "runs %d", runs);
    thrust::host_vector<int> gk = ok, gv = ov;
    for (int r = 0; r < runs; ++r) {
      int want = 0;
      for (int i = r * 7; i < std::min(n, r * 7 + 7); ++i) want += h[i];
      CHECK(gk[r] == r && gv[r] == want, "reduce_by_key[%d]", r);
    }
  }
  {
    thrust::device_vector<double> a(n), b(n);
    thrust::sequence(a.begin(), a.end(), 0.0, 0.25);
    thrust::fill(b.begin(), b.end(), 2.0);
    double dot = thrust::inner_product(a.begin(), a.end(), b.begin(), 0.0);
    double want = 0;
    for (int i = 0; i < n; ++i) want += 0.25 * i * 2.0;
    CHECK(close_to(dot, want, 1e-12), "inner_product %.17g vs %.17g", dot, want);
  }
  return report("thrust_algorithms");
}
