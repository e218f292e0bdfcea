// Small kernel compiled with -G so the PTX carries .file/.loc and .section debug data.
struct Pair { int a; float b; };
__device__ __noinline__ float scale(Pair p, float k) { return p.a * k + p.b; }
__device__ int counter;
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float local[4];
  for (int j = 0; j < 4; ++j) local[j] = j * a;
  if (i < n) {
    Pair p{i, x[i]};
    y[i] = scale(p, a) + local[i & 3];
    atomicAdd(&counter, 1);
  }
}
