/* Golden table for ptxsim's floating-point ALU (crates/exec/src/alu.rs): f32 and f64
 * add/sub/mul/div/fma/sqrt in the four IEEE roundings, computed by the host's IEEE 754
 * hardware (x86-64 SSE) under fesetround, with fmaf/fma/sqrtf/sqrt from the C library.
 * No NVIDIA code is involved. Deterministic: fixed xorshift seed, no time or address input.
 *
 * Usage: alu_gen f32|f64  > table.txt   (alu.sh commits it as tests/golden/alu_TYPE.txt.xz)
 * Line format: op rounding a b [c] result   (bits in hex; sqrt has one operand, fma three)
 */
#include <fenv.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#pragma STDC FENV_ACCESS ON

#define CASES 1000

static uint64_t state = 0x9e3779b97f4a7c15ull;
static uint64_t next(void) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

static const int modes[4] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};
static const char *mode_names[4] = {"rn", "rz", "rm", "rp"};
static const char *ops[6] = {"add", "sub", "mul", "div", "fma", "sqrt"};

/* ---- f32 ---- */
static const uint32_t special32[] = {
    0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007fffff, 0x807fffff, 0x00800000,
    0x80800000, 0x3f800000, 0xbf800000, 0x3fc00000, 0x40000000, 0x7f7fffff, 0xff7fffff,
    0x7f800000, 0xff800000, 0x7fc00000, 0x7f800001, 0x33800000, 0x34000000, 0x3f7fffff,
    0x3f800001, 0x00400000, 0x7f000000,
};
#define NSPECIAL32 (sizeof special32 / sizeof special32[0])

static uint32_t random32(void) {
    uint64_t r = next();
    switch (r % 4) {
    case 0: /* any bits */
        return (uint32_t)(r >> 8);
    case 1: /* exponent near 1.0 */
        return ((uint32_t)(r >> 40) & 0x807fffff) | ((uint32_t)(0x3c + (r >> 16) % 8) << 23);
    case 2: /* subnormal or tiny */
        return ((uint32_t)(r >> 32) & 0x80ffffff);
    default: /* near overflow */
        return ((uint32_t)(r >> 32) & 0x807fffff) | ((uint32_t)(0xf8 + (r >> 16) % 7) << 23);
    }
}

static float f32_of(uint32_t x) { float f; memcpy(&f, &x, 4); return f; }
static uint32_t bits32(float f) { uint32_t x; memcpy(&x, &f, 4); return x; }

static void gen32(void) {
    for (int op = 0; op < 6; op++) {
        uint64_t saved = state;
        for (int m = 0; m < 4; m++) {
            state = saved; /* the same inputs for every rounding */
            for (int i = 0; i < CASES; i++) {
                uint32_t a, b, c;
                if (i < (int)(NSPECIAL32 * NSPECIAL32) && i < CASES / 2) {
                    a = special32[i / NSPECIAL32];
                    b = special32[i % NSPECIAL32];
                } else {
                    a = random32();
                    b = random32();
                    if (op <= 1 && (next() & 1)) /* close operands: cancellation */
                        b = (a & 0x7f800000) | (b & 0x807fffff);
                }
                c = random32();
                volatile float x = f32_of(a), y = f32_of(b), z = f32_of(c);
                if (op == 4 && (i & 1)) { /* c near -a*b */
                    fesetround(FE_TONEAREST);
                    volatile float p = x * y;
                    z = -p;
                    c = bits32(z) ^ (uint32_t)(next() & 3);
                    z = f32_of(c);
                }
                fesetround(modes[m]);
                volatile float r;
                switch (op) {
                case 0: r = x + y; break;
                case 1: r = x - y; break;
                case 2: r = x * y; break;
                case 3: r = x / y; break;
                case 4: r = fmaf(x, y, z); break;
                default: r = sqrtf(x); break;
                }
                uint32_t rb = bits32(r);
                fesetround(FE_TONEAREST);
                if (op == 5)
                    printf("%s %s %08x %08x\n", ops[op], mode_names[m], a, rb);
                else if (op == 4)
                    printf("%s %s %08x %08x %08x %08x\n", ops[op], mode_names[m], a, b, c, rb);
                else
                    printf("%s %s %08x %08x %08x\n", ops[op], mode_names[m], a, b, rb);
            }
        }
    }
}

/* ---- f64 ---- */
static const uint64_t special64[] = {
    0x0000000000000000ull, 0x8000000000000000ull, 0x0000000000000001ull, 0x8000000000000001ull,
    0x000fffffffffffffull, 0x800fffffffffffffull, 0x0010000000000000ull, 0x8010000000000000ull,
    0x3ff0000000000000ull, 0xbff0000000000000ull, 0x3ff8000000000000ull, 0x4000000000000000ull,
    0x7fefffffffffffffull, 0xffefffffffffffffull, 0x7ff0000000000000ull, 0xfff0000000000000ull,
    0x7ff8000000000000ull, 0x7ff0000000000001ull, 0x3ca0000000000000ull, 0x3cb0000000000000ull,
    0x3fefffffffffffffull, 0x3ff0000000000001ull, 0x0008000000000000ull, 0x7fe0000000000000ull,
};
#define NSPECIAL64 (sizeof special64 / sizeof special64[0])

static uint64_t random64(void) {
    uint64_t r = next();
    uint64_t s = next();
    switch (r % 4) {
    case 0:
        return s;
    case 1:
        return (s & 0x800fffffffffffffull) | ((0x3fcull + (r >> 16) % 8) << 52);
    case 2:
        return s & 0x801fffffffffffffull;
    default:
        return (s & 0x800fffffffffffffull) | ((0x7f8ull + (r >> 16) % 7) << 52);
    }
}

static double f64_of(uint64_t x) { double f; memcpy(&f, &x, 8); return f; }
static uint64_t bits64(double f) { uint64_t x; memcpy(&x, &f, 8); return x; }

static void gen64(void) {
    for (int op = 0; op < 6; op++) {
        uint64_t saved = state;
        for (int m = 0; m < 4; m++) {
            state = saved;
            for (int i = 0; i < CASES; i++) {
                uint64_t a, b, c;
                if (i < (int)(NSPECIAL64 * NSPECIAL64) && i < CASES / 2) {
                    a = special64[i / NSPECIAL64];
                    b = special64[i % NSPECIAL64];
                } else {
                    a = random64();
                    b = random64();
                    if (op <= 1 && (next() & 1))
                        b = (a & 0x7ff0000000000000ull) | (b & 0x800fffffffffffffull);
                }
                c = random64();
                volatile double x = f64_of(a), y = f64_of(b), z = f64_of(c);
                if (op == 4 && (i & 1)) {
                    fesetround(FE_TONEAREST);
                    volatile double p = x * y;
                    z = -p;
                    c = bits64(z) ^ (next() & 3);
                    z = f64_of(c);
                }
                fesetround(modes[m]);
                volatile double r;
                switch (op) {
                case 0: r = x + y; break;
                case 1: r = x - y; break;
                case 2: r = x * y; break;
                case 3: r = x / y; break;
                case 4: r = fma(x, y, z); break;
                default: r = sqrt(x); break;
                }
                uint64_t rb = bits64(r);
                fesetround(FE_TONEAREST);
                if (op == 5)
                    printf("%s %s %016llx %016llx\n", ops[op], mode_names[m],
                           (unsigned long long)a, (unsigned long long)rb);
                else if (op == 4)
                    printf("%s %s %016llx %016llx %016llx %016llx\n", ops[op], mode_names[m],
                           (unsigned long long)a, (unsigned long long)b, (unsigned long long)c,
                           (unsigned long long)rb);
                else
                    printf("%s %s %016llx %016llx %016llx\n", ops[op], mode_names[m],
                           (unsigned long long)a, (unsigned long long)b, (unsigned long long)rb);
            }
        }
    }
}

int main(int argc, char **argv) {
    if (argc != 2 || (strcmp(argv[1], "f32") && strcmp(argv[1], "f64"))) {
        fprintf(stderr, "usage: %s f32|f64\n", argv[0]);
        return 2;
    }
    if (!strcmp(argv[1], "f32"))
        gen32();
    else
        gen64();
    return 0;
}
