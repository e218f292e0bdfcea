// Device printf with many formats: integers of every width and base, %c, %s, floats and doubles in
// %f/%e/%g/%a with widths, precisions and flags, %p, %%, long long, and one line per thread in a
// block. The program captures its own stdout (dup2 into a temporary file) and compares it with
// what the host's printf makes of the same calls.
#include <string>
#include <unistd.h>
#include "check.h"

__global__ void print_formats(int i, long long ll, unsigned u, float f, double d, const char *s) {
  printf("int %d %i %5d|%-5d|%05d %+d\n", i, -i, i, i, i, i);
  printf("unsigned %u %x %X %o %#x %#o\n", u, u, u, u, u, u);
  printf("long %lld %llx %llu %ld\n", ll, ll, (unsigned long long)ll, (long)ll);
  printf("char %c%c%c string %s|%10s|%-10s|%.3s\n", 'a', 'B', '!', s, s, s, s);
  printf("float %f %.2f %10.3f %-10.1f| %e %.3E %g %G\n", f, f, f, f, f, f, f, f);
  printf("double %.15g %.17e %a %.0f %g %g\n", d, d, d, d, 1e-5, 123456789.0);
  printf("special %f %f %g %%\n", 1.0 / 0.0, -1.0 / 0.0, 0.0 / 0.0 * 0.0);
  printf("short %hd %hhu %hx\n", (short)-3, (unsigned char)200, (unsigned short)0xbeef);
}
__global__ void per_thread() { printf("thread %d of block %d\n", threadIdx.x, blockIdx.x); }

int main() {
  fflush(stdout);
  char path[] = "/tmp/printf_formatsXXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) {
    std::printf("mkstemp failed\nFAIL\n");
    return 1;
  }
  int saved = dup(1);
  dup2(fd, 1);
  const char *hs = "hello";
  char *ds;
  CUDA(cudaMalloc(&ds, 6));
  CUDA(cudaMemcpy(ds, hs, 6, cudaMemcpyHostToDevice));
  int i = 42;
  long long ll = -1234567890123LL;
  unsigned u = 0xdeadbeef;
  float f = 3.14159265f;
  double d = 2.718281828459045;
  print_formats<<<1, 1>>>(i, ll, u, f, d, ds);
  CUDA(cudaDeviceSynchronize());
  per_thread<<<1, 4>>>();
  CUDA(cudaDeviceSynchronize());
  fflush(stdout);
  dup2(saved, 1);
  close(saved);
  FILE *in = fopen(path, "r");
  std::string got;
  char buf[4096];
  size_t k;
  while ((k = fread(buf, 1, sizeof buf, in)) > 0) got.append(buf, k);
  fclose(in);
  unlink(path);

  std::string want;
  auto add = [&](const char *fmt, auto... args) {
    char line[1024];
    std::snprintf(line, sizeof line, fmt, args...);
    want += line;
  };
  add("int %d %i %5d|%-5d|%05d %+d\n", i, -i, i, i, i, i);
  add("unsigned %u %x %X %o %#x %#o\n", u, u, u, u, u, u);
  add("long %lld %llx %llu %ld\n", ll, ll, (unsigned long long)ll, (long)ll);
  add("char %c%c%c string %s|%10s|%-10s|%.3s\n", 'a', 'B', '!', hs, hs, hs, hs);
  add("float %f %.2f %10.3f %-10.1f| %e %.3E %g %G\n", (double)f, (double)f, (double)f, (double)f, (double)f,
      (double)f, (double)f, (double)f);
  add("double %.15g %.17e %a %.0f %g %g\n", d, d, d, d, 1e-5, 123456789.0);
  double inf = 1.0 / 0.0;
  add("special %f %f %g %%\n", inf, -inf, std::nan(""));
  add("short %hd %hhu %hx\n", (short)-3, (unsigned char)200, (unsigned short)0xbeef);
  for (int t = 0; t < 4; ++t) add("thread %d of block %d\n", t, 0);
  // NaN's sign is not specified: accept "-nan" for "nan"
  std::string got_n = got;
  size_t pos;
  while ((pos = got_n.find("-nan")) != std::string::npos) got_n.replace(pos, 4, "nan");
  std::string want_n = want;
  while ((pos = want_n.find("-nan")) != std::string::npos) want_n.replace(pos, 4, "nan");
  CHECK(got_n == want_n, "printf output differs:\n--- device ---\n%s--- host ---\n%s", got.c_str(), want.c_str());
  return report("printf_formats");
}
