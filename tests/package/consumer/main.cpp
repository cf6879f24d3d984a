// Uses tseq's public headers only.
#include <cstdio>
#include <vector>

#include "tseq/dlpack.hpp"
#include "tseq/ops.hpp"
#ifdef CONSUMER_WITH_ONNX
#include "tseq/onnx/proto.hpp"
#endif

int main() {
  using namespace tseq;
  const std::vector<Tensor> ts = {Tensor::scalar(1.f), Tensor::scalar(2.f), Tensor::scalar(3.f)};
  const TensorSequence s = ops::sequence_construct(ts);
  const TensorSequence e = ops::sequence_erase(s, std::int64_t{0});
  if (e.size() != 2 || e[0].value<float>(0) != 2.f) return 1;
  // The boundary: adopt the consumer's memory, export it through DLPack, take it back.
  static float memory[3] = {4, 5, 6};
  const Tensor adopted = Tensor::adopt(DataType::Float, Shape{3}, memory, Device::cpu(), nullptr, nullptr);
  const Tensor back = from_dlpack(to_dlpack(adopted));
  if (back.data() != memory || !back.identical_to(adopted)) return 1;
#ifdef CONSUMER_WITH_ONNX
  // Qualified: with `using namespace tseq`, a bare `onnx` would also name protobuf's ::onnx.
  if (tseq::onnx::to_string(tseq::onnx::ValueType::sequence(DataType::Float)) != "seq(tensor(float))") return 1;
#endif
  std::printf("consumer ok: %s\n", to_string(e).c_str());
  return 0;
}
