// Fuzz target: the ONNX protobuf loader and the executor on mutated bytes. Layout: a mode byte,
// a dtype index (uint32), the kind of an optional (a byte), then the message; the mode chooses
// what the message is: a ModelProto (checked, then run with default inputs under session
// limits), or a TensorProto / SequenceProto / OptionalProto of some declared type. Every
// failure must be a tseq::Error. Loading and reading run under limits (LoadOptions,
// ReadLimits) as an untrusted caller's would, tightened for speed.

#include <chrono>
#include <cstdint>
#include <span>
#include <vector>

#include "fuzz_input.hpp"
#include "tseq/onnx/executor.hpp"
#include "tseq/onnx/proto.hpp"

namespace {

using namespace tseq;
using namespace tseq::onnx;

// A value of the declared type: a small tensor of zeros, an empty sequence or optional.
Value default_value(const ValueType& t) {
  switch (t.kind) {
    case ValueType::Kind::Tensor:
      return TensorBuffer(t.dtype, Shape{2}).freeze();
    case ValueType::Kind::Sequence:
      return TensorSequence(t.dtype);
    case ValueType::Kind::Optional:
      return OptionalValue{nullptr, t};
  }
  return Tensor();
}

// What a run would read a fed value with (SessionOptions::read_limits), tight for speed.
ReadLimits read_limits() {
  ReadLimits r;
  r.max_file_bytes = 1 << 20;
  r.max_bytes = 64 << 20;
  r.max_tensor_elements = 1 << 16;
  r.max_tensor_bytes = 1 << 20;
  r.max_sequence_length = 1 << 16;
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  tseq_fuzz::Input in(data, size);
  const std::uint8_t mode = in.byte();
  const DataType t = all_dtypes[in.below(15)];
  const bool optional_of_tensor = (in.byte() % 2) != 0;  // mode 3 only; read before rest() takes all
  std::size_t n = 0;
  const std::uint8_t* rest = in.rest(n);
  const auto bytes = std::as_bytes(std::span<const std::uint8_t>(rest, n));
  try {
    switch (mode % 4) {
      case 0: {
        LoadOptions load = LoadOptions::untrusted();  // then tighter, for speed
        load.max_file_bytes = 1 << 20;
        load.max_bytes = 64 << 20;
        load.max_nodes = 1 << 14;
        load.time_limit = std::chrono::seconds(2);
        const Model model = Model::parse(bytes, "fuzz.onnx", load);
        SessionOptions limits = SessionOptions::untrusted();  // then tighter, for speed
        limits.max_loop_iterations = 64;
        limits.max_tensor_elements = 1 << 16;
        limits.max_tensor_bytes = 1 << 20;
        limits.max_run_bytes = 64 << 20;
        limits.max_sequence_length = 1 << 16;
        limits.time_limit = std::chrono::seconds(2);
        Session session(model, limits);
        std::vector<Value> inputs;
        for (const ValueInfo& i : model.inputs()) {
          if (!i.has_default) inputs.push_back(default_value(i.type));
        }
        if (inputs.size() == model.inputs().size()) (void)session.run(std::move(inputs));
        break;
      }
      case 1:
        (void)parse_value(bytes, ValueType::tensor(t), "fuzz.pb", read_limits());
        break;
      case 2:
        (void)parse_value(bytes, ValueType::sequence(t), "fuzz.pb", read_limits());
        break;
      default:
        (void)parse_value(
            bytes, ValueType::optional(optional_of_tensor ? ValueType::Kind::Tensor : ValueType::Kind::Sequence, t),
            "fuzz.pb", read_limits());
        break;
    }
  } catch (const tseq::Error&) {
  }
  return 0;
}
