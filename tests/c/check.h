/* Shared by the C test programs of tests/c: a count of failed checks and the checks that add to
 * it. A program prints "ok" and exits 0 when `failures` stays 0. */
#ifndef PTXSIM_TESTS_C_CHECK_H
#define PTXSIM_TESTS_C_CHECK_H

#include <stdio.h>

static int failures;

/* A condition that must hold; otherwise the location and the message go to stderr. */
#define CHECK(cond, ...)                                                                     \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            fprintf(stderr, "FAILED %s:%d: ", __FILE__, __LINE__);                           \
            fprintf(stderr, __VA_ARGS__);                                                    \
            fprintf(stderr, "\n");                                                           \
            failures++;                                                                      \
        }                                                                                    \
    } while (0)

/* A driver API call that must return CUDA_SUCCESS (for the programs that declare the API). */
#define OK(call)                                                                             \
    do {                                                                                     \
        CUresult result_ = (call);                                                           \
        CHECK(result_ == CUDA_SUCCESS, "%s returned %d", #call, result_);                    \
    } while (0)

#endif
