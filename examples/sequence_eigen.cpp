// SequenceErase, SequenceInsert and SequenceAt on a TensorSequence, reading the payloads
// through Eigen: a flat Eigen::Map and a row-major Eigen::TensorMap, without copying them.

#include <cstdio>
#include <vector>

#include "tseq/eigen.hpp"
#include "tseq/ops.hpp"

int main() {
  using namespace tseq;
  // Three 2x3 matrices.
  std::vector<Tensor> mats;
  for (int k = 0; k < 3; ++k) {
    std::vector<float> v(6);
    for (int i = 0; i < 6; ++i) v[static_cast<std::size_t>(i)] = static_cast<float>(10 * k + i);
    mats.push_back(Tensor::from_values<float>(Shape{2, 3}, v));
  }
  const TensorSequence seq = ops::sequence_construct(mats);

  const TensorSequence erased = ops::sequence_erase(seq, std::int64_t{0});                  // [m1, m2]
  const TensorSequence inserted = ops::sequence_insert(erased, mats[0], std::int64_t{-1});  // [m1, m0, m2]
  const Tensor middle = ops::sequence_at(inserted, Tensor::scalar<std::int64_t>(1));        // m0, shared

  // Eigen views of the payload: no copy.
  const auto flat = tseq::eigen_array<float>(middle);   // Eigen::Map of a flat array
  const auto m = tseq::eigen_tensor<float, 2>(middle);  // Eigen::TensorMap, row-major
  std::printf("sum of m0 = %g, m0(1, 2) = %g\n", static_cast<double>(flat.sum()), static_cast<double>(m(1, 2)));
  Eigen::Tensor<float, 0, Eigen::RowMajor> total = tseq::eigen_tensor<float, 2>(inserted[2]).sum();
  std::printf("sum of m2 = %g\n", static_cast<double>(total()));
  std::printf("payload shared with the input: %s; input still has %zu tensors\n",
              middle.identical_to(mats[0]) ? "yes" : "no", seq.size());
  const bool ok = flat.sum() == 15.f && m(1, 2) == 5.f && total() == 20.f * 6 + 15.f && seq.size() == 3 &&
                  inserted.size() == 3 && middle.identical_to(mats[0]);
  return ok ? 0 : 1;
}
