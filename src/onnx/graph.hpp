#pragma once

// The executor's internal model (not installed): a checked graph whose nodes carry the kernel
// resolved at load time, the run context every kernel sees, and the helpers kernels share.
// load.cpp builds Graphs; run.cpp runs them; registry.hpp holds the operator records, beside
// their kernels in ops_*.cpp and control_flow.cpp (helpers in kernel_support.hpp). Control flow reaches subgraphs only
// through call() (run.cpp).

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <memory_resource>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "onnx/onnx_pb.h"
#include "tseq/onnx/executor.hpp"

namespace tseq::onnx::detail {

struct Graph;
struct Node;
struct Context;
struct Scope;

using Inputs = boost::container::small_vector<std::optional<Value>, 4>;
using Values = boost::container::small_vector<Value, 2>;

// A kernel: the operator's inputs (moved in at their last use), the node, the scope it runs in
// (subgraphs read outer values through it) and the run context.
using Kernel = Values (*)(const Node& n, Inputs& in, const Scope& scope, Context& cx);

struct OpInfo;  // registry.hpp

// Names are views into the model's protobuf, which every Graph keeps alive (Graph::model): a
// node costs a few hundred bytes however long its names are, and messages are built only when
// one is thrown (label()).
struct Node {
  const ::onnx::NodeProto* proto = nullptr;
  std::int64_t index = 0;  // position in its graph's NodeProto list
  std::string_view op;
  const OpInfo* info = nullptr;
  int opset = 0;
  std::vector<std::string_view> inputs;
  std::vector<std::string_view> outputs;
  std::map<std::string, std::shared_ptr<Graph>> subgraphs;  // by attribute name
  std::vector<bool> move_input;                             // input j may be moved: this node is that value's last use
  std::vector<int> in_slots;  // slot of input j; -1: absent ("") or from an enclosing graph
  std::vector<int> out_slots;

  // "node 3 'name' (Op)" for messages (names escaped: escape_name).
  [[nodiscard]] std::string label() const {
    std::string r = "node " + std::to_string(index);
    if (!proto->name().empty()) r += " '" + escape_name(proto->name()) + "'";
    return r + " (" + escape_name(op) + ")";
  }
};

struct Graph {
  std::shared_ptr<const ::onnx::ModelProto> model;  // keeps every NodeProto alive
  std::string name;
  std::vector<ValueInfo> inputs;
  std::vector<ValueInfo> outputs;
  std::vector<bool> input_typed;          // declared (or, for subgraphs, given by the calling node)
  std::vector<bool> output_typed;         // declared or inferred: all true once the model is loaded
  std::vector<Node> nodes;                // in execution order
  std::set<std::string_view> free_names;  // taken from enclosing graphs
  // Every value defined here (inputs, initializers, node outputs) lives in a slot of the run's
  // scope: no map look-up or allocation per value at run time.
  std::unordered_map<std::string_view, int> slot_of;
  std::vector<int> input_slots;
  std::vector<int> output_slots;  // -1: an output taken from an enclosing graph
  // Output i may be moved out of its slot: no later output names the same value (an output
  // listed twice, [y, y], is copied at its first mention and moved at its last).
  std::vector<bool> output_move;
  std::vector<std::pair<int, Value>> initializer_slots;
};

// Where a run stands: limits, cancellation, counters and the memory every kernel allocates from.
struct Context {
  RunStats& stats;
  const SessionOptions& options;
  std::pmr::memory_resource* resource =
      nullptr;  // every tensor a kernel creates; the run budget (run.cpp) with max_run_bytes
  std::chrono::steady_clock::time_point deadline;
  bool stoppable = false;  // a stop token, a cancel flag or a time limit is set

  // Throws RunStopped if the caller cancelled the run or its time is up; checked between
  // nodes and loop iterations. `where` starts the message (the node label is added by the
  // run loop).
  void check_stop(std::string_view where, std::int64_t index = -1) const;
  // Throws Error unless a tensor of `shape` and `dtype` fits the per-tensor limits (checked
  // before allocating it). Also checks the shape (ShapeError).
  void check_tensor(const Shape& shape, DataType dtype, std::string_view op) const;
  // Same, for a tensor of `elements` elements of `dtype`; `chars`: the characters its string
  // elements will hold (copied through the global heap, so checked against max_tensor_bytes and
  // what is left of the run's byte budget before they are copied).
  void check_tensor(std::int64_t elements, DataType dtype, std::string_view op, std::int64_t chars = 0) const;
  // Throws Error unless a sequence of `length` tensors fits max_sequence_length.
  void check_sequence(std::int64_t length, std::string_view op) const;
  // Throws Error unless `bytes` more would fit the run's byte budget (for operators that make
  // many tensors at once: checked before the first is made).
  void check_run_bytes(std::int64_t bytes, std::string_view op) const;
  // Bytes of sequence storage counted per element by the pre-checks (check_run_bytes): a
  // handle and its share of the tree's nodes.
  static constexpr std::int64_t sequence_element_bytes = 16;
};

struct Scope {
  const Graph* graph;
  std::vector<std::optional<Value>> slots;
  const Scope* parent = nullptr;

  explicit Scope(const Graph& g, const Scope* p = nullptr) : graph(&g), slots(g.slot_of.size()), parent(p) {}

  // A value by name, here or in an enclosing scope (subgraphs read outer values this way).
  [[nodiscard]] const Value* find(std::string_view name) const {
    for (const Scope* s = this; s != nullptr; s = s->parent) {
      auto it = s->graph->slot_of.find(name);
      if (it != s->graph->slot_of.end() && s->slots[static_cast<std::size_t>(it->second)]) {
        return &*s->slots[static_cast<std::size_t>(it->second)];
      }
    }
    return nullptr;
  }
};

// ---- run.cpp ----
// Runs a subgraph with `args` bound to its inputs, in a scope whose parent is `outer`.
Values call(const Graph& g, Values args, const Scope& outer, Context& cx);
Values run_graph(const Graph& g, Scope& scope, Context& cx);
// Rethrows the current exception with `prefix` before its message, keeping its tseq class
// (std::bad_alloc becomes an Error saying the run is out of memory).
[[noreturn]] void rethrow_with(const std::string& prefix);

}  // namespace tseq::onnx::detail
