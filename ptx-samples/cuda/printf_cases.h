// The printf calls of devrt.cu's `printf_formats` kernel, shared with the host program
// tests/devrt/printf_cases.c, whose output (glibc's printf) is the expected output of the
// kernel in ptxsim (tests/devrt/printf_cases.expected, crates/exec/tests/suite/device_runtime.rs).
// `i` is the thread's index (an int); every value is computed the same way on host and device.
#define PRINTF_CASES(i)                                                                        \
    printf("[%d] ints: %d %i %u %x %X %o|%5d|%-5d|%05d|%+d|% d|%.3d|%.0d|\n", i, -i, i * 7,  \
           (unsigned)(-i), 255 + i, 0xabc + i, 8 + i, i, i, -i, i, i, i, 0);                  \
    printf("[%d] alt: %#x %#X %#o %#o %#.0o|%*d|%-*d|%.*d|%*.*x|\n", i, 255 + i, i, 8, 0, 0,    \
           6, i, -6, i, 4, i, 8, 5, 0x1f + i);                                                 \
    printf("[%d] long: %ld %lld %lu %llx %zu %hd %hhd %hu %hhx|\n", i, -1234567890123L * (i + 1), \
           (long long)i << 40, 18446744073709551615UL - i, 0xfedcba9876543210ULL + i,         \
           (size_t)(1000 + i), (short)(40000 + i), (signed char)(200 + i),                     \
           (unsigned short)(70000 + i), (unsigned char)(300 + i));                             \
    printf("[%d] chars: %c|%3c|%-3c|%s|%.2s|%8s|%-8s|%s|%.3s|\n", i, 'a' + i, 'B', 'z',        \
           "text", "truncate", "right", "left", (const char*)0, (const char*)0);              \
    printf("[%d] f: %f %.0f %.1f %.2f %10.3f %-10.2f| %+f % f %#.0f %08.2f\n", i, 1.5 + i,     \
           2.5 + i, 0.25, 0.125, -3.14159 * (i + 1), 2.0 / 3.0, 1.0, 1.0, 3.0, -1.25);         \
    printf("[%d] e: %e %.0e %.2E %12.4e %-12.1e| %#.0e %e %e\n", i, 12345.678 * (i + 1),       \
           1.5e-7, 6.02214076e23, -0.000123456, 1e100, 5.0, 0.0, -0.0);                        \
    printf("[%d] g: %g %g %g %g %.3g %.10g %G %#g %g %g %.0g\n", i, 100000.0 * (i + 1),        \
           1000000.0, 0.0001, 0.00001, 3.14159, 1.0 / 3.0, 1e-20, 1.5, 0.0, 123456789.0, 25.0); \
    printf("[%d] a: %a %A %a %a %.2a %.0a %a %a\n", i, 1.0 + i, -0.1, 0.0, 1e-310,             \
           3.14159, 1.5, 1e300, 0.5);                                                          \
    printf("[%d] special: %f %F %e %g %5.1f|%-6f|%+e\n", i, 1.0 / 0.0 * (i + 1), -1.0 / 0.0,   \
           0.0 / 0.0 > 1 ? 1.0 : 1.0 / 0.0, -1.0 / 0.0, 1.0 / 0.0, 1.0 / 0.0, 1.0 / 0.0);      \
    printf("[%d] float promoted: %f %.9g %p %p %% %5%|\n", i, 0.1f * (float)(i + 1), 0.1f,     \
           (void*)0, (void*)(unsigned long)(0x1000 + i));
