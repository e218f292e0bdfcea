// The kernel of the fatbin samples (scripts/fatbin/regen.sh): small, so that each sample is a
// few hundred bytes to a few KiB.
extern "C" __global__ void add(float *a, const float *b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] += b[i];
}
