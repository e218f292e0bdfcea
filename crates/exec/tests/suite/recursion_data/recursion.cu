// Recursive device functions, as nvcc compiles them (PTX allows recursion in .func):
// Fibonacci (two recursive calls per invocation), mutual recursion (is_even/is_odd), and a
// recursion whose invocations each keep a .local array indexed at run time (so it lives in
// local memory, not registers) across the recursive call.
__device__ __noinline__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

__device__ __noinline__ bool is_odd(int n);
__device__ __noinline__ bool is_even(int n) { return n == 0 ? true : is_odd(n - 1); }
__device__ __noinline__ bool is_odd(int n) { return n == 0 ? false : is_even(n - 1); }

// sum over k = 1..n of (k * k + k) % 7, each term read back from the invocation's own array
// after the deeper invocations have written theirs.
__device__ __noinline__ int local_sum(int n, int pick) {
    if (n == 0) return 0;
    int a[8];
    for (int i = 0; i < 8; ++i) a[i] = (n * n + n * i) % 7;
    int inner = local_sum(n - 1, pick);
    return inner + a[pick & 7];
}

extern "C" __global__ void recursion(int *out) {
    int t = threadIdx.x;
    out[3 * t + 0] = fib(t);
    out[3 * t + 1] = is_even(t);
    out[3 * t + 2] = local_sum(t, t);
}
