#ifndef TSEQ_TEST_C_PRODUCER_H
#define TSEQ_TEST_C_PRODUCER_H

/* A DLPack producer and consumer written in plain C against dlpack.h only. */

#include <dlpack/dlpack.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A rows x cols float32 matrix on the CPU holding 0, 1, 2, ... in row-major order, malloc'ed.
   Its deleter frees everything and increments *deleted. */
DLManagedTensor* c_make_float_matrix(int64_t rows, int64_t cols, int* deleted);

/* The sum of a float32 tensor's elements, read through data, byte_offset, shape and strides
   (NULL strides: compact row-major). */
double c_sum_float(const DLManagedTensor* m);

/* What a consumer does when done: calls the deleter. */
void c_release(DLManagedTensor* m);

#ifdef __cplusplus
}
#endif

#endif
