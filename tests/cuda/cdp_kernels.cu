// The child kernels of tests/cuda/cdp_main.cu, in a translation unit of their own (-rdc=true):
// the parent takes their addresses across units.
__global__ void times(int *data, int factor) { data[threadIdx.x] *= factor; }
__global__ void plus(int *data, int term) { data[threadIdx.x] += term; }
