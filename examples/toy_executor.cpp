// Embedding tseq in a (toy) executor: each instruction names its input value and whether this
// is that value's last use. At a last use the executor moves the value into the operator
// (std::move), so the operator updates the sequence in place; otherwise it passes a shared
// handle and the operator makes a new version, leaving the old one valid.

#include <cstdio>
#include <string>
#include <unordered_map>
#include <vector>

#include "tseq/ops.hpp"

namespace {

using namespace tseq;

struct Instr {
  std::string op;   // "erase" or "insert"
  std::string in;   // input value
  std::string out;  // output value
  bool last_use;    // `in` is not read after this instruction
  std::int64_t position;
};

}  // namespace

int main() {
  std::vector<Tensor> tensors;
  for (int i = 0; i < 100000; ++i) tensors.push_back(Tensor::scalar(static_cast<float>(i)));
  std::unordered_map<std::string, TensorSequence> values;
  values.emplace("s0", TensorSequence(DataType::Float, tensors));

  // s1 = erase(s0, 5)   s0 is read again later: shared, a new version
  // s2 = insert(s1, 0)  last use of s1: in place
  // s3 = erase(s2, -1)  last use of s2: in place
  // s4 = erase(s0, 0)   last use of s0: in place (s1 and its successors never saw a change)
  const std::vector<Instr> program = {{"erase", "s0", "s1", false, 5},
                                      {"insert", "s1", "s2", true, 0},
                                      {"erase", "s2", "s3", true, -1},
                                      {"erase", "s0", "s4", true, 0}};
  const Tensor extra = Tensor::scalar(-1.f);
  int in_place = 0;
  for (const Instr& i : program) {
    auto it = values.find(i.in);
    TensorSequence result(DataType::Float);
    if (i.last_use) {
      TensorSequence owned = std::move(it->second);  // hand over the only reference
      values.erase(it);
      result = i.op == "erase" ? ops::sequence_erase(std::move(owned), i.position)
                               : ops::sequence_insert(std::move(owned), extra, i.position);
      ++in_place;
    } else {
      result = i.op == "erase" ? ops::sequence_erase(it->second, i.position)
                               : ops::sequence_insert(it->second, extra, i.position);
    }
    values.insert_or_assign(i.out, std::move(result));
  }
  const TensorSequence& s3 = values.at("s3");
  const TensorSequence& s4 = values.at("s4");
  std::printf("s3: %zu tensors, first %g; s4: %zu tensors, first %g; %d of %zu instructions ran in place\n", s3.size(),
              static_cast<double>(s3[0].value<float>(0)), s4.size(), static_cast<double>(s4[0].value<float>(0)),
              in_place, program.size());
  const bool ok = s3.size() == 99999 && s3[0].value<float>(0) == -1.f && s3[6].value<float>(0) == 6.f &&
                  s4.size() == 99999 && s4[0].value<float>(0) == 1.f && s4[5].value<float>(0) == 6.f;
  return ok ? 0 : 1;
}
