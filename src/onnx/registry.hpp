#pragma once

// The operator registry (not installed): one record per operator form, holding everything the
// loader checks and infers of it and the kernel it runs. The records live beside their
// kernels (ops_tensor.cpp, ops_sequence.cpp, ops_optional.cpp, control_flow.cpp); registry.cpp
// gathers them, and every list of operators (supported_operators(), the docs' lists, checked by
// tests/onnx/registry_test.cpp) is derived from them.

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graph.hpp"

namespace tseq::onnx::detail {

using MaybeType = std::optional<ValueType>;

// What an operator's load-time check sees of its node.
struct CheckContext {
  const Node& node;
  const ::onnx::NodeProto& proto;
  int given;                           // inputs the node gives (trailing "" not counted)
  std::function<std::string()> where;  // "model ...: node 3 (Op)", built only when a message is thrown

  // Throws Error(where() + ": " + what).
  [[noreturn]] void fail(const std::string& what) const;
};

// What an operator's type inference sees of its node.
struct InferContext {
  const Node& node;
  const std::vector<MaybeType>& inputs;  // the node's inputs' types, where known
  // Infers subgraph attribute `attr` of the node, its inputs' types from `hints` where undeclared.
  std::function<const Graph&(const char* attr, const std::vector<MaybeType>& hints)> infer_sub;
  std::function<std::string()> where;  // as CheckContext::where

  // Input j's type, or nullopt if it is absent or unknown.
  [[nodiscard]] MaybeType input(std::size_t j) const { return j < inputs.size() ? inputs[j] : MaybeType{}; }
};

// Throws Error (or a subclass) if the node is not a valid use of the operator; run after the
// generic checks (input count, required attributes and graphs, an output).
using CheckFn = void (*)(const CheckContext& c);
// The types of the node's outputs (one entry per output; nullopt where unknown).
using InferFn = std::vector<MaybeType> (*)(const InferContext& c);

constexpr int kAnyInputs = -1;

// One operator form of the default domain: everything tseq knows of it.
struct OpInfo {
  std::string_view name = {};
  int since = 1;   // first opset of this form
  int until = 25;  // last opset of this form (kMaxOpset)
  Kernel kernel = nullptr;
  int min_inputs = 0;
  int max_inputs = 0;                     // kAnyInputs: any number
  std::vector<int> optional_inputs = {};  // positions below min_inputs that may be ""
  std::vector<std::string_view> required_attributes = {};
  std::vector<std::string_view> required_graphs = {};  // graph attributes (If, Loop, SequenceMap)
  CheckFn check = nullptr;                             // extra load-time checks, or none
  InferFn infer = nullptr;                             // output types; required
  bool one_output = true;                              // false: `check` checks the output count
};

// Default-domain opsets tseq loads (ONNX's sequence conformance cases use 11 to 25).
constexpr int kMinOpset = 1;
constexpr int kMaxOpset = 25;

// The records of each family, defined beside their kernels.
[[nodiscard]] const std::vector<OpInfo>& tensor_ops();        // ops_tensor.cpp
[[nodiscard]] const std::vector<OpInfo>& sequence_ops();      // ops_sequence.cpp
[[nodiscard]] const std::vector<OpInfo>& optional_ops();      // ops_optional.cpp
[[nodiscard]] const std::vector<OpInfo>& control_flow_ops();  // control_flow.cpp

// Every record, sorted by name then opset. Built once; O(records).
[[nodiscard]] const std::vector<const OpInfo*>& all_ops();
// The operator `op` of the default domain at `opset`, or nullptr if tseq does not run it there.
[[nodiscard]] const OpInfo* find_op(std::string_view op, int opset);
// True if tseq runs `op` at some opset.
[[nodiscard]] bool known_op(std::string_view op);

// Inference helpers several families share.
[[nodiscard]] std::vector<MaybeType> first_output(const InferContext& c, MaybeType t);
[[nodiscard]] MaybeType element_tensor(const MaybeType& seq);

}  // namespace tseq::onnx::detail
