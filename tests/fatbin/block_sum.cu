// A larger fatbin sample (scripts/fatbin/regen.sh): shared memory, a device function, loops,
// an atomic.
__device__ float twice(float x) { return 2.0f * x; }

extern "C" __global__ void block_sum(const float *in, float *out, int n) {
    __shared__ float partial[128];
    int t = threadIdx.x;
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += gridDim.x * blockDim.x)
        acc += twice(in[i]);
    partial[t] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) partial[t] += partial[t + s];
        __syncthreads();
    }
    if (t == 0) atomicAdd(out, partial[0]);
}
