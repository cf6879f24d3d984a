// The README's example: SequenceErase on a TensorSequence, the input left untouched.
#include <cstdio>
#include <vector>

#include "tseq/ops.hpp"

int main() {
  using namespace tseq;
  const std::vector<Tensor> tensors = {Tensor::from_values<float>(Shape{2}, {1, 2}),
                                       Tensor::from_values<float>(Shape{2}, {3, 4}),
                                       Tensor::from_values<float>(Shape{3}, {5, 6, 7})};
  const TensorSequence seq = ops::sequence_construct(tensors);
  const TensorSequence out = ops::sequence_erase(seq, Tensor::scalar<std::int64_t>(-2));  // O(log n)
  std::printf("%s\n%s\n", to_string(seq).c_str(), to_string(out).c_str());
  std::printf("payload shared: %s\n", out[1].identical_to(seq[2]) ? "yes" : "no");
  return out.size() == 2 && seq.size() == 3 && out[1].identical_to(seq[2]) ? 0 : 1;
}
