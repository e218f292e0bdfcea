/* gpuocelot's ptx_run through libptxsim_ocelot.so, as a C program loads it: dlopen by path
 * (argv[1]), host buffers from malloc, arguments widened to pointers. Built and run by
 * crates/ocelot/tests/c_abi.rs; prints "ok" and exits 0 when every check holds. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*ptx_run_fn)(const char *, int, void *[], int, int, int, int, int, int, int);
typedef const char *(*ptx_last_error_fn)(void);

static ptx_run_fn ptx_run;
static ptx_last_error_fn ptx_last_error;
#include "check.h"

/* c[i] = a[i] * s + b[i] for i < n, over several CTAs. */
static const char *saxpy =
    ".version 7.8\n"
    ".target sm_80\n"
    ".address_size 64\n"
    ".visible .entry saxpy(.param .u64 c, .param .u64 a, .param .u64 b, .param .f32 s,\n"
    "                      .param .s32 n)\n"
    "{\n"
    "    .reg .pred %p;\n"
    "    .reg .b32 %r<6>;\n"
    "    .reg .f32 %f<5>;\n"
    "    .reg .b64 %rd<8>;\n"
    "    ld.param.u64 %rd1, [c];\n"
    "    ld.param.u64 %rd2, [a];\n"
    "    ld.param.u64 %rd3, [b];\n"
    "    ld.param.f32 %f1, [s];\n"
    "    ld.param.s32 %r1, [n];\n"
    "    mov.u32 %r2, %ctaid.x;\n"
    "    mov.u32 %r3, %ntid.x;\n"
    "    mov.u32 %r4, %tid.x;\n"
    "    mad.lo.s32 %r5, %r2, %r3, %r4;\n"
    "    setp.ge.s32 %p, %r5, %r1;\n"
    "    @%p ret;\n"
    "    mul.wide.s32 %rd4, %r5, 4;\n"
    "    add.s64 %rd5, %rd2, %rd4;\n"
    "    add.s64 %rd6, %rd3, %rd4;\n"
    "    add.s64 %rd7, %rd1, %rd4;\n"
    "    ld.global.f32 %f2, [%rd5];\n"
    "    ld.global.f32 %f3, [%rd6];\n"
    "    fma.rn.f32 %f4, %f2, %f1, %f3;\n"
    "    st.global.f32 [%rd7], %f4;\n"
    "    ret;\n"
    "}\n";

/* Stores 1 at p + off (one thread): for the out-of-bounds and null paths. */
static const char *poke =
    ".version 7.8\n"
    ".target sm_80\n"
    ".address_size 64\n"
    ".visible .entry poke(.param .u64 p, .param .u64 off)\n"
    "{\n"
    "    .reg .b32 %r;\n"
    "    .reg .b64 %rd<4>;\n"
    "    ld.param.u64 %rd1, [p];\n"
    "    ld.param.u64 %rd2, [off];\n"
    "    add.s64 %rd3, %rd1, %rd2;\n"
    "    mov.u32 %r, 1;\n"
    "    st.global.u32 [%rd3], %r;\n"
    "    ret;\n"
    "}\n";

static const char *trap =
    ".version 7.8\n.target sm_80\n.address_size 64\n"
    ".visible .entry t()\n{\n    trap;\n}\n";

static const char *invalid =
    ".version 7.8\n.target sm_80\n.address_size 64\n"
    ".visible .entry bad()\n{\n    .reg .b32 %r;\n    frobnicate.u32 %r, %r;\n    ret;\n}\n";

static void expect_error(const char *what, const char *needle) {
    const char *error = ptx_last_error();
    CHECK(error != NULL, "%s: ptx_last_error() is NULL", what);
    if (error != NULL) {
        CHECK(strstr(error, needle) != NULL, "%s: `%s` not in `%s`", what, needle, error);
    }
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s PATH/libptxsim_ocelot.so\n", argv[0]);
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 2;
    }
    ptx_run = (ptx_run_fn)dlsym(lib, "ptx_run");
    ptx_last_error = (ptx_last_error_fn)dlsym(lib, "ptx_last_error");
    if (ptx_run == NULL || ptx_last_error == NULL) {
        fprintf(stderr, "dlsym: %s\n", dlerror());
        return 2;
    }

    /* saxpy on 1000 elements, 4 CTAs of 256 threads. The output is the middle of a larger
     * array: its neighbours (sharing host pages with it) must be left as they are. */
    enum { N = 1000, PAD = 16 };
    float *a = malloc(N * sizeof(float)), *b = malloc(N * sizeof(float));
    float *c_all = malloc((N + 2 * PAD) * sizeof(float));
    float *c = c_all + PAD;
    for (int i = 0; i < N; i++) {
        a[i] = (float)i;
        b[i] = 0.25f * (float)i;
    }
    for (int i = 0; i < N + 2 * PAD; i++) c_all[i] = -7.0f;
    float s = 2.0f;
    uint32_t s_bits;
    memcpy(&s_bits, &s, 4);
    void *args[] = {c, a, b, (void *)(uintptr_t)s_bits, (void *)(intptr_t)N};
    ptx_run(saxpy, 5, args, 256, 1, 1, 4, 1, 1, 0);
    CHECK(ptx_last_error() == NULL, "saxpy failed: %s", ptx_last_error());
    for (int i = 0; i < N; i++) {
        float expected = (float)i * 2.0f + 0.25f * (float)i;
        CHECK(c[i] == expected, "c[%d] = %g, expected %g", i, c[i], expected);
        if (c[i] != expected) break;
    }
    for (int i = 0; i < PAD; i++) {
        CHECK(c_all[i] == -7.0f && c_all[PAD + N + i] == -7.0f, "neighbour %d changed", i);
    }
    /* The same text again (from the module cache), with n = 10 and a new factor. */
    for (int i = 0; i < N; i++) c[i] = 0.0f;
    s = -1.0f;
    memcpy(&s_bits, &s, 4);
    args[3] = (void *)(uintptr_t)s_bits;
    args[4] = (void *)(intptr_t)10;
    ptx_run(saxpy, 5, args, 256, 1, 1, 4, 1, 1, 0);
    CHECK(ptx_last_error() == NULL, "second saxpy failed: %s", ptx_last_error());
    CHECK(c[9] == -9.0f + 2.25f && c[10] == 0.0f, "second saxpy: c[9] = %g, c[10] = %g", c[9],
          c[10]);

#if defined(__x86_64__)
    /* A caller whose SSE control register flushes subnormals (FTZ and DAZ, what -ffast-math's
       crtfastmath.o sets) still gets the IEEE result of the kernel's mul.rn.f32 (no .ftz), here
       a subnormal, and its own setting back after the call. */
    {
        volatile float tiny = 1e-30f, factor = 1e-10f;
        float expected = tiny * factor; /* the host's IEEE product, in the default environment */
        float x = tiny, y = 0.0f, scaled = 0.0f;
        uint32_t factor_bits;
        float f = factor;
        memcpy(&factor_bits, &f, 4);
        void *scale_args[] = {&scaled, &x, &y, (void *)(uintptr_t)factor_bits, (void *)(intptr_t)1};
        unsigned int caller = __builtin_ia32_stmxcsr();
        __builtin_ia32_ldmxcsr(caller | 0x8040);
        ptx_run(saxpy, 5, scale_args, 1, 1, 1, 1, 1, 1, 0);
        unsigned int after = __builtin_ia32_stmxcsr();
        __builtin_ia32_ldmxcsr(caller);
        CHECK(ptx_last_error() == NULL, "saxpy under FTZ failed: %s", ptx_last_error());
        uint32_t got_bits, expected_bits;
        memcpy(&got_bits, &scaled, 4);
        memcpy(&expected_bits, &expected, 4);
        CHECK(expected_bits != 0 && got_bits == expected_bits,
              "a * x + y under the caller's FTZ/DAZ: %#x, expected the subnormal %#x", got_bits,
              expected_bits);
        CHECK((after & ~0x3fu) == ((caller | 0x8040) & ~0x3fu),
              "the caller's MXCSR after ptx_run: %#x", after);
    }
#endif

    /* Error paths: each is reported, located, and the process goes on. */
    ptx_run(invalid, 0, NULL, 1, 1, 1, 1, 1, 1, 0);
    expect_error("invalid PTX", "7:5: error[");

    uint32_t word = 0;
    void *poke_far[] = {&word, (void *)(uintptr_t)((uint64_t)1 << 47)};
    ptx_run(poke, 2, poke_far, 1, 1, 1, 1, 1, 1, 0);
    expect_error("out-of-bounds store", "12:5: trap: address outside every buffer");
    CHECK(word == 0, "the faulting launch stored %u", word);

    void *poke_null[] = {NULL, NULL};
    ptx_run(poke, 2, poke_null, 1, 1, 1, 1, 1, 1, 0);
    expect_error("null store", "null address");

    void *poke_ok[] = {&word, NULL};
    ptx_run(poke, 2, poke_ok, 1, 1, 1, 1, 1, 1, 0);
    CHECK(ptx_last_error() == NULL, "poke failed: %s", ptx_last_error());
    CHECK(word == 1, "poke stored %u", word);

    /* A store to read-only host memory (a string literal) is reported. */
    static const uint32_t constant = 5;
    void *poke_const[] = {(void *)&constant, NULL};
    ptx_run(poke, 2, poke_const, 1, 1, 1, 1, 1, 1, 0);
    expect_error("read-only store", "cannot be written");

    ptx_run(trap, 0, NULL, 1, 1, 1, 1, 1, 1, 0);
    expect_error("trap", "6:5: trap");

    ptx_run(saxpy, 2, args, 1, 1, 1, 1, 1, 1, 0);
    expect_error("too few arguments", "parameter");

    ptx_run(NULL, 0, NULL, 1, 1, 1, 1, 1, 1, 0);
    expect_error("NULL source", "NULL");

    ptx_run(saxpy, 5, args, -1, 1, 1, 1, 1, 1, 0);
    expect_error("negative block", "negative");

    free(a);
    free(b);
    free(c_all);
    if (failures != 0) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("ok\n");
    return 0;
}
