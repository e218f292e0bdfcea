// A CUDA runtime program for the graph features of ptxsim's driver library: graph memory nodes
// (explicit and captured), conditional nodes (IF with an else body, WHILE, SWITCH, handles
// with a default value), and 2D memsets. Built by nvcc the usual way (runtime API, static
// cudart, compute_90 PTX) and run with ptxsim's libcuda.so.1 by
// crates/cuda/tests/cuda_graphs.rs. Every value is checked against what the host computes
// or what the CUDA documentation says the call does; the program prints "PASSED: 0 failed".
#include <cstdio>
#include <cstring>
#include <vector>

static int failures = 0;

static void check(bool ok, const char *what) {
    printf("check %s: %s\n", what, ok ? "ok" : "FAILED");
    if (!ok) failures++;
}

static void check_cuda(cudaError_t e, const char *what) {
    if (e != cudaSuccess) printf("cuda error in %s: %s\n", what, cudaGetErrorString(e));
    check(e == cudaSuccess, what);
}

__global__ void square(const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * in[i];
}

__global__ void negate(const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = -in[i];
}

// Sets the handle to the parity of *value.
__global__ void set_parity(const int *value, cudaGraphConditionalHandle handle) {
    cudaGraphSetConditional(handle, *value & 1);
}

// Sets the handle to *value.
__global__ void set_value(const int *value, cudaGraphConditionalHandle handle) {
    cudaGraphSetConditional(handle, *value);
}

// Records which body ran: log[slot] = mark.
__global__ void mark(int *log, int slot, int value) { log[slot] = value; }

// One iteration of a loop: counts down *counter, adds it to *sum, and ends the loop at 0.
__global__ void count_down(int *counter, int *sum, cudaGraphConditionalHandle handle) {
    *sum += *counter;
    *counter -= 1;
    if (*counter == 0) cudaGraphSetConditional(handle, 0);
}

static size_t graph_memory(int attribute) {
    size_t value = 12345;
    check_cuda(cudaDeviceGetGraphMemAttribute(0, (cudaGraphMemAttributeType)attribute, &value), "graph memory attribute");
    return value;
}

// Explicit allocation and free nodes: in -> square -> negate, each buffer a graph allocation.
static void memory_nodes() {
    const int n = 1000;
    const size_t bytes = n * sizeof(float);
    std::vector<float> input(n), squares(n), negated(n);
    for (int i = 0; i < n; i++) input[i] = 0.25f * (float)(i - 500);

    cudaMemAllocNodeParams alloc;
    memset(&alloc, 0, sizeof(alloc));
    alloc.bytesize = bytes;
    alloc.poolProps.allocType = cudaMemAllocationTypePinned;
    alloc.poolProps.location.type = cudaMemLocationTypeDevice;
    alloc.poolProps.location.id = 0;

    cudaGraph_t graph;
    check_cuda(cudaGraphCreate(&graph, 0), "graph create");
    cudaGraphNode_t allocIn, allocSquare, allocNeg, copyIn, kernelSquare, copySquare, freeIn, kernelNeg, copyNeg,
        freeSquare;
    check_cuda(cudaGraphAddMemAllocNode(&allocIn, graph, NULL, 0, &alloc), "alloc node in");
    float *d_in = (float *)alloc.dptr;
    check(d_in != NULL, "an allocation node's address is set when it is made");
    check_cuda(cudaGraphAddMemAllocNode(&allocSquare, graph, &allocIn, 1, &alloc), "alloc node square");
    float *d_square = (float *)alloc.dptr;
    check(d_square != NULL && d_square != d_in, "two live allocations have distinct addresses");

    cudaMemAllocNodeParams got;
    memset(&got, 0, sizeof(got));
    check_cuda(cudaGraphMemAllocNodeGetParams(allocSquare, &got), "alloc node get params");
    check(got.bytesize == bytes && got.dptr == d_square && got.poolProps.location.id == 0,
          "alloc node params: size, address, device");

    check_cuda(cudaGraphAddMemcpyNode1D(&copyIn, graph, &allocSquare, 1, d_in, input.data(), bytes, cudaMemcpyHostToDevice),
               "copy in");
    cudaKernelNodeParams kernel = {0};
    kernel.gridDim = dim3((n + 127) / 128);
    kernel.blockDim = dim3(128);
    void *squareArgs[] = {&d_in, &d_square, (void *)&n};
    kernel.func = (void *)square;
    kernel.kernelParams = squareArgs;
    check_cuda(cudaGraphAddKernelNode(&kernelSquare, graph, &copyIn, 1, &kernel), "square node");
    check_cuda(cudaGraphAddMemcpyNode1D(&copySquare, graph, &kernelSquare, 1, squares.data(), d_square, bytes,
                                        cudaMemcpyDeviceToHost),
               "copy squares out");
    check_cuda(cudaGraphAddMemFreeNode(&freeIn, graph, &kernelSquare, 1, d_in), "free node in");
    void *freed = NULL;
    check_cuda(cudaGraphMemFreeNodeGetParams(freeIn, &freed), "free node get params");
    check(freed == d_in, "free node params: the address");
    // Freed twice in one graph: CUDA_ERROR_INVALID_VALUE (cuGraphAddMemFreeNode).
    cudaGraphNode_t twice;
    check(cudaGraphAddMemFreeNode(&twice, graph, &freeIn, 1, d_in) == cudaErrorInvalidValue,
          "a second free of one allocation is refused");
    (void)cudaGetLastError();
    check_cuda(cudaGraphAddMemAllocNode(&allocNeg, graph, &freeIn, 1, &alloc), "alloc node negated");
    float *d_neg = (float *)alloc.dptr;
    printf("the allocation after a free reuses its address: %s\n", d_neg == d_in ? "yes" : "no");
    void *negArgs[] = {&d_square, &d_neg, (void *)&n};
    kernel.func = (void *)negate;
    kernel.kernelParams = negArgs;
    check_cuda(cudaGraphAddKernelNode(&kernelNeg, graph, &allocNeg, 1, &kernel), "negate node");
    check_cuda(cudaGraphAddMemcpyNode1D(&copyNeg, graph, &kernelNeg, 1, negated.data(), d_neg, bytes,
                                        cudaMemcpyDeviceToHost),
               "copy negated out");
    cudaGraphNode_t afterBoth[] = {copySquare, kernelNeg};
    check_cuda(cudaGraphAddMemFreeNode(&freeSquare, graph, afterBoth, 2, d_square), "free node square");
    // d_neg is not freed in the graph: it outlives the launch.

    cudaGraphExec_t exec;
    check_cuda(cudaGraphInstantiate(&exec, graph, NULL, NULL, 0), "instantiate");
    size_t before = graph_memory(cudaGraphMemAttrUsedMemCurrent);
    check_cuda(cudaGraphLaunch(exec, 0), "launch");
    check_cuda(cudaStreamSynchronize(0), "synchronize");
    bool right = true;
    for (int i = 0; i < n; i++) right = right && squares[i] == input[i] * input[i] && negated[i] == -squares[i];
    check(right, "squares and negated squares through graph allocations");
    size_t after = graph_memory(cudaGraphMemAttrUsedMemCurrent);
    check(after >= before && after >= bytes, "the graph pool holds the live allocation");
    check(graph_memory(cudaGraphMemAttrUsedMemHigh) >= after, "the high watermark is at least the current amount");

    // The allocation outlives the launch: a kernel outside the graph reads it.
    std::vector<float> again(n);
    check_cuda(cudaMemcpy(again.data(), d_neg, bytes, cudaMemcpyDeviceToHost), "read the live allocation");
    check(memcmp(again.data(), negated.data(), bytes) == 0, "the live allocation keeps its values");

    // Relaunching while it is live fails (cuGraphLaunch: CUDA_ERROR_INVALID_VALUE).
    check(cudaGraphLaunch(exec, 0) == cudaErrorInvalidValue, "relaunch with a live allocation is refused");
    (void)cudaGetLastError();
    check_cuda(cudaFree(d_neg), "cudaFree of a graph allocation");
    check_cuda(cudaDeviceGraphMemTrim(0), "trim");
    check(graph_memory(cudaGraphMemAttrUsedMemCurrent) == 0, "trimmed: no graph memory left");
    check_cuda(cudaGraphLaunch(exec, 0), "relaunch after the free");
    check_cuda(cudaStreamSynchronize(0), "synchronize");
    check_cuda(cudaFreeAsync(d_neg, 0), "cudaFreeAsync of a graph allocation");
    check_cuda(cudaGraphExecDestroy(exec), "exec destroy");

    // CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH: relaunching frees the live allocation.
    check_cuda(cudaGraphInstantiate(&exec, graph, cudaGraphInstantiateFlagAutoFreeOnLaunch), "instantiate auto free");
    check_cuda(cudaGraphLaunch(exec, 0), "auto free launch 1");
    check_cuda(cudaGraphLaunch(exec, 0), "auto free launch 2");
    check_cuda(cudaStreamSynchronize(0), "synchronize");
    check_cuda(cudaFree(d_neg), "free after auto free launches");
    check_cuda(cudaGraphExecDestroy(exec), "exec destroy");
    check_cuda(cudaGraphDestroy(graph), "graph destroy");

    // Only the high watermarks can be set, to 0.
    size_t zero = 0, one = 1;
    check_cuda(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &zero), "reset the high watermark");
    check(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &one) == cudaErrorInvalidValue,
          "a high watermark set to 1 is refused");
    (void)cudaGetLastError();

    // A free node of memory no allocation node returned is refused.
    float *plain;
    check_cuda(cudaMalloc(&plain, 64), "cudaMalloc");
    check_cuda(cudaGraphCreate(&graph, 0), "graph create");
    cudaGraphNode_t bad;
    check(cudaGraphAddMemFreeNode(&bad, graph, NULL, 0, plain) == cudaErrorInvalidValue,
          "a free node of cudaMalloc memory is refused");
    (void)cudaGetLastError();
    check_cuda(cudaGraphDestroy(graph), "graph destroy");
    check_cuda(cudaFree(plain), "cudaFree");
}

// cudaMallocAsync / cudaFreeAsync in a stream capture become allocation and free nodes.
static void captured_memory_nodes() {
    const int n = 300;
    const size_t bytes = n * sizeof(float);
    std::vector<float> input(n), output(n);
    for (int i = 0; i < n; i++) input[i] = 1.5f * (float)i - 7.0f;
    cudaStream_t stream;
    check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
    cudaGraph_t graph;
    check_cuda(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), "begin capture");
    float *d_in = NULL, *d_out = NULL;
    check_cuda(cudaMallocAsync(&d_in, bytes, stream), "captured cudaMallocAsync in");
    check_cuda(cudaMallocAsync(&d_out, bytes, stream), "captured cudaMallocAsync out");
    check(d_in != NULL && d_out != NULL && d_in != d_out, "captured allocations have addresses");
    check_cuda(cudaMemcpyAsync(d_in, input.data(), bytes, cudaMemcpyHostToDevice, stream), "captured copy in");
    square<<<(n + 63) / 64, 64, 0, stream>>>(d_in, d_out, n);
    check_cuda(cudaMemcpyAsync(output.data(), d_out, bytes, cudaMemcpyDeviceToHost, stream), "captured copy out");
    check_cuda(cudaFreeAsync(d_in, stream), "captured cudaFreeAsync in");
    check_cuda(cudaFreeAsync(d_out, stream), "captured cudaFreeAsync out");
    check_cuda(cudaStreamEndCapture(stream, &graph), "end capture");
    size_t count = 0;
    check_cuda(cudaGraphGetNodes(graph, NULL, &count), "node count");
    check(count == 7, "the capture made 7 nodes");
    cudaGraphExec_t exec;
    check_cuda(cudaGraphInstantiate(&exec, graph, NULL, NULL, 0), "instantiate");
    for (int launch = 0; launch < 2; launch++) {
        memset(output.data(), 0, bytes);
        check_cuda(cudaGraphLaunch(exec, stream), "launch");
        check_cuda(cudaStreamSynchronize(stream), "synchronize");
        bool right = true;
        for (int i = 0; i < n; i++) right = right && output[i] == input[i] * input[i];
        check(right, "squares through captured allocations");
    }
    check_cuda(cudaGraphExecDestroy(exec), "exec destroy");
    check_cuda(cudaGraphDestroy(graph), "graph destroy");
    check_cuda(cudaStreamDestroy(stream), "stream destroy");
}

static cudaGraphNode_t add_kernel(cudaGraph_t graph, const cudaGraphNode_t *after, size_t count, void *func,
                                  void **args) {
    cudaGraphNodeParams params = {cudaGraphNodeTypeKernel};
    params.kernel.func = func;
    params.kernel.gridDim = dim3(1);
    params.kernel.blockDim = dim3(1);
    params.kernel.kernelParams = args;
    cudaGraphNode_t node;
    check_cuda(cudaGraphAddNode(&node, graph, after, NULL, count, &params), "cudaGraphAddNode kernel");
    return node;
}

static cudaGraphNode_t add_conditional(cudaGraph_t graph, const cudaGraphNode_t *after, size_t count,
                                       cudaGraphConditionalHandle handle, cudaGraphConditionalNodeType type,
                                       unsigned size, cudaGraph_t *bodies) {
    cudaGraphNodeParams params = {cudaGraphNodeTypeConditional};
    params.conditional.handle = handle;
    params.conditional.type = type;
    params.conditional.size = size;
    cudaGraphNode_t node;
    check_cuda(cudaGraphAddNode(&node, graph, after, NULL, count, &params), "cudaGraphAddNode conditional");
    for (unsigned i = 0; i < size; i++) bodies[i] = params.conditional.phGraph_out[i];
    return node;
}

// IF with an else body; SWITCH; WHILE with ASSIGN_DEFAULT, run twice.
static void conditional_nodes() {
    int *d_value, *d_log, *d_counter, *d_sum;
    check_cuda(cudaMalloc(&d_value, sizeof(int)), "malloc value");
    check_cuda(cudaMalloc(&d_log, 4 * sizeof(int)), "malloc log");
    check_cuda(cudaMalloc(&d_counter, sizeof(int)), "malloc counter");
    check_cuda(cudaMalloc(&d_sum, sizeof(int)), "malloc sum");

    // IF / else: body 0 when the value is not 0, body 1 when it is 0.
    cudaGraph_t graph;
    check_cuda(cudaGraphCreate(&graph, 0), "graph create");
    cudaGraphConditionalHandle handle;
    check_cuda(cudaGraphConditionalHandleCreate(&handle, graph), "handle create");
    void *setArgs[] = {&d_value, &handle};
    cudaGraphNode_t setter = add_kernel(graph, NULL, 0, (void *)set_parity, setArgs);
    cudaGraph_t bodies[3];
    add_conditional(graph, &setter, 1, handle, cudaGraphCondTypeIf, 2, bodies);
    int slot0 = 0, yes = 1, no = 2;
    void *yesArgs[] = {&d_log, &slot0, &yes};
    void *noArgs[] = {&d_log, &slot0, &no};
    add_kernel(bodies[0], NULL, 0, (void *)mark, yesArgs);
    add_kernel(bodies[1], NULL, 0, (void *)mark, noArgs);
    cudaGraphExec_t exec;
    check_cuda(cudaGraphInstantiate(&exec, graph, NULL, NULL, 0), "instantiate if");
    for (int value = 0; value < 4; value++) {
        int log = -1;
        check_cuda(cudaMemcpy(d_value, &value, sizeof(int), cudaMemcpyHostToDevice), "set value");
        check_cuda(cudaMemcpy(d_log, &log, sizeof(int), cudaMemcpyHostToDevice), "clear log");
        check_cuda(cudaGraphLaunch(exec, 0), "launch if");
        check_cuda(cudaMemcpy(&log, d_log, sizeof(int), cudaMemcpyDeviceToHost), "read log");
        check(log == (value & 1 ? yes : no), "IF runs body 0 for odd values, the else body for even ones");
    }
    check_cuda(cudaGraphExecDestroy(exec), "exec destroy");
    check_cuda(cudaGraphDestroy(graph), "graph destroy");

    // SWITCH over 3 bodies: body n for the value n, none for 3 and above.
    check_cuda(cudaGraphCreate(&graph, 0), "graph create");
    check_cuda(cudaGraphConditionalHandleCreate(&handle, graph), "handle create");
    setter = add_kernel(graph, NULL, 0, (void *)set_value, setArgs);
    add_conditional(graph, &setter, 1, handle, cudaGraphCondTypeSwitch, 3, bodies);
    int marks[3] = {10, 20, 30};
    void *switchArgs[3][3] = {{&d_log, &slot0, &marks[0]}, {&d_log, &slot0, &marks[1]}, {&d_log, &slot0, &marks[2]}};
    for (int i = 0; i < 3; i++) add_kernel(bodies[i], NULL, 0, (void *)mark, switchArgs[i]);
    check_cuda(cudaGraphInstantiate(&exec, graph, NULL, NULL, 0), "instantiate switch");
    for (int value = 0; value < 5; value++) {
        int log = -1;
        check_cuda(cudaMemcpy(d_value, &value, sizeof(int), cudaMemcpyHostToDevice), "set value");
        check_cuda(cudaMemcpy(d_log, &log, sizeof(int), cudaMemcpyHostToDevice), "clear log");
        check_cuda(cudaGraphLaunch(exec, 0), "launch switch");
        check_cuda(cudaMemcpy(&log, d_log, sizeof(int), cudaMemcpyDeviceToHost), "read log");
        check(log == (value < 3 ? marks[value] : -1), "SWITCH runs body n for n, none past the last");
    }
    check_cuda(cudaGraphExecDestroy(exec), "exec destroy");
    check_cuda(cudaGraphDestroy(graph), "graph destroy");

    // WHILE, its handle 1 at each launch (cudaGraphCondAssignDefault): a do-while loop whose
    // body counts down from 5 and adds the counter to a sum: 5 + 4 + 3 + 2 + 1 = 15.
    check_cuda(cudaGraphCreate(&graph, 0), "graph create");
    check_cuda(cudaGraphConditionalHandleCreate(&handle, graph, 1, cudaGraphCondAssignDefault), "handle create");
    add_conditional(graph, NULL, 0, handle, cudaGraphCondTypeWhile, 1, bodies);
    cudaStream_t stream;
    check_cuda(cudaStreamCreate(&stream), "stream");
    check_cuda(cudaStreamBeginCaptureToGraph(stream, bodies[0], NULL, NULL, 0, cudaStreamCaptureModeGlobal),
               "capture to the body graph");
    count_down<<<1, 1, 0, stream>>>(d_counter, d_sum, handle);
    check_cuda(cudaStreamEndCapture(stream, NULL), "end capture to graph");
    check_cuda(cudaGraphInstantiate(&exec, graph, NULL, NULL, 0), "instantiate while");
    for (int start = 5; start >= 2; start -= 3) {
        int sum = 0;
        check_cuda(cudaMemcpy(d_counter, &start, sizeof(int), cudaMemcpyHostToDevice), "set counter");
        check_cuda(cudaMemcpy(d_sum, &sum, sizeof(int), cudaMemcpyHostToDevice), "clear sum");
        check_cuda(cudaGraphLaunch(exec, stream), "launch while");
        check_cuda(cudaStreamSynchronize(stream), "synchronize");
        check_cuda(cudaMemcpy(&sum, d_sum, sizeof(int), cudaMemcpyDeviceToHost), "read sum");
        check(sum == start * (start + 1) / 2, "WHILE loops until the body sets 0");
    }
    check_cuda(cudaGraphExecDestroy(exec), "exec destroy");
    check_cuda(cudaGraphDestroy(graph), "graph destroy");
    check_cuda(cudaStreamDestroy(stream), "stream destroy");

    // An IF node whose size is 3 is refused.
    check_cuda(cudaGraphCreate(&graph, 0), "graph create");
    check_cuda(cudaGraphConditionalHandleCreate(&handle, graph), "handle create");
    cudaGraphNodeParams params = {cudaGraphNodeTypeConditional};
    params.conditional.handle = handle;
    params.conditional.type = cudaGraphCondTypeIf;
    params.conditional.size = 3;
    cudaGraphNode_t node;
    check(cudaGraphAddNode(&node, graph, NULL, NULL, 0, &params) == cudaErrorInvalidValue,
          "an IF node of 3 bodies is refused");
    (void)cudaGetLastError();
    check_cuda(cudaGraphDestroy(graph), "graph destroy");

    cudaFree(d_value);
    cudaFree(d_log);
    cudaFree(d_counter);
    cudaFree(d_sum);
}

// cudaMemset2D and a captured cudaMemset2DAsync: the rows' first bytes set, the rest kept.
static void memset_2d() {
    const size_t width = 37, height = 5;
    unsigned char *d;
    size_t pitch;
    check_cuda(cudaMallocPitch(&d, &pitch, width + 20, height), "cudaMallocPitch");
    check(pitch >= width + 20, "the pitch holds a row");
    check_cuda(cudaMemset(d, 0x11, pitch * height), "fill");
    check_cuda(cudaMemset2D(d, pitch, 0xab, width, height - 1), "cudaMemset2D");
    std::vector<unsigned char> host(pitch * height);
    check_cuda(cudaMemcpy(host.data(), d, pitch * height, cudaMemcpyDeviceToHost), "read back");
    bool right = true;
    for (size_t y = 0; y < height; y++)
        for (size_t x = 0; x < pitch; x++)
            right = right && host[y * pitch + x] == (y < height - 1 && x < width ? 0xab : 0x11);
    check(right, "cudaMemset2D sets width bytes of each of height rows");

    cudaStream_t stream;
    check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
    cudaGraph_t graph;
    check_cuda(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), "begin capture");
    check_cuda(cudaMemset2DAsync(d + 3, pitch, 0x5c, 4, height, stream), "captured cudaMemset2DAsync");
    check_cuda(cudaStreamEndCapture(stream, &graph), "end capture");
    cudaGraphExec_t exec;
    check_cuda(cudaGraphInstantiate(&exec, graph, NULL, NULL, 0), "instantiate");
    check_cuda(cudaMemcpy(host.data(), d, pitch * height, cudaMemcpyDeviceToHost), "read back");
    check(host[3] == 0xab, "a captured memset does not run at capture");
    check_cuda(cudaGraphLaunch(exec, stream), "launch");
    check_cuda(cudaStreamSynchronize(stream), "synchronize");
    check_cuda(cudaMemcpy(host.data(), d, pitch * height, cudaMemcpyDeviceToHost), "read back");
    right = true;
    for (size_t y = 0; y < height; y++)
        for (size_t x = 0; x < pitch; x++) {
            unsigned char expected = y < height - 1 && x < width ? 0xab : 0x11;
            if (x >= 3 && x < 7) expected = 0x5c;
            right = right && host[y * pitch + x] == expected;
        }
    check(right, "the memset node sets its rectangle");
    // A pitch smaller than a row is refused when there are several rows.
    check(cudaMemset2D(d, 8, 0, 16, 2) == cudaErrorInvalidValue, "a pitch below the width is refused");
    (void)cudaGetLastError();
    check_cuda(cudaGraphExecDestroy(exec), "exec destroy");
    check_cuda(cudaGraphDestroy(graph), "graph destroy");
    check_cuda(cudaStreamDestroy(stream), "stream destroy");
    check_cuda(cudaFree(d), "free");
}

int main() {
    memory_nodes();
    captured_memory_nodes();
    conditional_nodes();
    memset_2d();
    printf("PASSED: %d failed\n", failures);
    return failures == 0 ? 0 : 1;
}
