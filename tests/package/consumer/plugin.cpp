// Links tseq::tseq (and tseq::onnx) into a shared library: with tseq's static libraries this
// links only if they are position-independent.
#include "plugin.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tseq/ops.hpp"
#ifdef CONSUMER_WITH_ONNX
#include "tseq/error.hpp"
#include "tseq/onnx/executor.hpp"
#endif

int consumer_plugin_check() {
  const std::vector<tseq::Tensor> ts = {tseq::Tensor::scalar(1.f), tseq::Tensor::scalar(2.f)};
  const tseq::TensorSequence s = tseq::ops::sequence_erase(tseq::ops::sequence_construct(ts), std::int64_t{0});
  if (s.size() != 1 || s[0].value<float>(0) != 2.f || tseq::to_string(s).empty()) return 1;
#ifdef CONSUMER_WITH_ONNX
  // Reaches the protobuf parser inside tseq::onnx.
  const std::byte junk[] = {std::byte{0xff}, std::byte{0xff}, std::byte{0xff}};
  try {
    (void)tseq::onnx::Model::parse(junk, "junk");
    return 1;
  } catch (const tseq::Error&) {
  }
#endif
  return 0;
}
