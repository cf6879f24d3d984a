// The C API tseq._tseq exports to the package's other extension modules (tseq._torch) as the
// capsule tseq._tseq._C_API: they share the Sequence and Tensor types without linking _tseq.
// Both sides are built from one tree, so the layouts agree; `abi` checks that anyway.
#pragma once

#include <Python.h>

#include <cstddef>

#include "tseq/sequence.hpp"

namespace tseq::python {

struct CApi {
  std::size_t abi;  // sizeof(CApi) * 65536 + sizeof(TensorSequence): a mismatch refuses the import
  // A new tseq.Sequence sharing s's tree; nullptr with a Python error set on failure.
  PyObject* (*wrap_sequence)(const TensorSequence& s) noexcept;
  // The sequence inside a tseq.Sequence (into *out, sharing the tree): 0; -1 with tseq.TypeError
  // set when obj is not a tseq.Sequence.
  int (*unwrap_sequence)(PyObject* obj, TensorSequence* out) noexcept;
};

inline constexpr const char* capi_capsule_name = "tseq._tseq._C_API";
inline constexpr std::size_t capi_abi = sizeof(CApi) * 65536 + sizeof(TensorSequence);

}  // namespace tseq::python
