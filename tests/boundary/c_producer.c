/* A DLPack producer and consumer in plain C (compiled as C11). */

#include "c_producer.h"

#include <stdlib.h>

typedef struct {
  DLManagedTensor managed;
  int64_t shape[2];
  int* deleted;
} Producer;

static void producer_deleter(DLManagedTensor* self) {
  Producer* p = (Producer*)self->manager_ctx;
  ++*p->deleted;
  free(self->dl_tensor.data);
  free(p);
}

DLManagedTensor* c_make_float_matrix(int64_t rows, int64_t cols, int* deleted) {
  Producer* p = (Producer*)malloc(sizeof *p);
  float* data = (float*)malloc((size_t)(rows * cols) * sizeof(float) + 1);
  if (p == NULL || data == NULL) abort();
  for (int64_t i = 0; i < rows * cols; ++i) data[i] = (float)i;
  p->shape[0] = rows;
  p->shape[1] = cols;
  p->deleted = deleted;
  p->managed.dl_tensor.data = data;
  p->managed.dl_tensor.device.device_type = kDLCPU;
  p->managed.dl_tensor.device.device_id = 0;
  p->managed.dl_tensor.ndim = 2;
  p->managed.dl_tensor.dtype.code = kDLFloat;
  p->managed.dl_tensor.dtype.bits = 32;
  p->managed.dl_tensor.dtype.lanes = 1;
  p->managed.dl_tensor.shape = p->shape;
  p->managed.dl_tensor.strides = NULL;
  p->managed.dl_tensor.byte_offset = 0;
  p->managed.manager_ctx = p;
  p->managed.deleter = producer_deleter;
  return &p->managed;
}

static double sum_dims(const DLTensor* t, const char* base, int d, const int64_t* strides) {
  double s = 0;
  for (int64_t i = 0; i < t->shape[d]; ++i) {
    const char* at = base + i * strides[d] * (int64_t)sizeof(float);
    s += d + 1 == t->ndim ? (double)*(const float*)at : sum_dims(t, at, d + 1, strides);
  }
  return s;
}

double c_sum_float(const DLManagedTensor* m) {
  const DLTensor* t = &m->dl_tensor;
  int64_t strides[16];
  if (t->dtype.code != kDLFloat || t->dtype.bits != 32 || t->dtype.lanes != 1 || t->ndim > 16) return -1;
  if (t->strides != NULL) {
    for (int d = 0; d < t->ndim; ++d) strides[d] = t->strides[d];
  } else {
    int64_t s = 1;
    for (int d = t->ndim; d-- > 0;) {
      strides[d] = s;
      s *= t->shape[d];
    }
  }
  const char* base = (const char*)t->data + t->byte_offset;
  return t->ndim == 0 ? (double)*(const float*)base : sum_dims(t, base, 0, strides);
}

void c_release(DLManagedTensor* m) {
  if (m->deleter != NULL) m->deleter(m);
}
