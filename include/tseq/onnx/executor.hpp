#pragma once

/// @file
/// A small ONNX graph executor that uses tseq values: enough operators to run ONNX's
/// sequence conformance cases (the sequence operators, SequenceMap, Optional*, If, Loop,
/// Identity, Constant, Add, Not, Shape, Slice, Unsqueeze).
///
/// It is ownership-aware: a value whose last use is the node being run is moved into that
/// node's operator, so a chain of SequenceInsert/SequenceErase on a sequence nobody else holds
/// updates it in place (tseq::ops' rvalue overloads), without copying the tree.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <memory_resource>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tseq/onnx/value.hpp"

namespace onnx {
class ModelProto;
}

namespace tseq::onnx {

/// A graph input or output: its name and declared type.
struct ValueInfo {
  std::string name;
  ValueType type;
  bool has_default = false;  ///< an input with an initializer: feeding it is optional
};

namespace detail {
struct Graph;
}

/// A loaded, checked ONNX model. Immutable; share it between sessions and threads.
class Model {
 public:
  /// Reads and checks a .onnx file. Throws tseq::Error naming the file and the problem
  /// (unreadable, malformed, unsupported value types or operators, missing values). The
  /// initializers are allocated from `resource` (nullptr: tseq::default_memory_resource()),
  /// which must outlive the model.
  [[nodiscard]] static Model load(const std::filesystem::path& file, std::pmr::memory_resource* resource = nullptr);
  /// Parses serialized ModelProto bytes; `name` is used in error messages.
  [[nodiscard]] static Model parse(std::span<const std::byte> bytes, std::string_view name,
                                   std::pmr::memory_resource* resource = nullptr);
  /// Takes a ModelProto already in memory.
  [[nodiscard]] static Model from_proto(const ::onnx::ModelProto& proto, std::string_view name,
                                        std::pmr::memory_resource* resource = nullptr);

  const std::string& name() const noexcept { return name_; }
  const std::vector<ValueInfo>& inputs() const noexcept;
  const std::vector<ValueInfo>& outputs() const noexcept;

 private:
  friend class Session;
  Model(std::shared_ptr<const detail::Graph> g, std::string name) : graph_(std::move(g)), name_(std::move(name)) {}
  std::shared_ptr<const detail::Graph> graph_;
  std::string name_;
};

/// Counters of one run.
struct RunStats {
  std::size_t nodes = 0;          ///< nodes executed, subgraphs included
  std::size_t moved_inputs = 0;   ///< inputs handed to an operator at their last use (no copy)
  std::size_t shared_inputs = 0;  ///< inputs passed as a shared handle (still used later)
};

/// Resource limits of a Session (for untrusted models: a server, a fuzzer).
struct SessionOptions {
  /// Iterations one Loop node may run; more is an Error naming the node.
  std::int64_t max_loop_iterations = std::numeric_limits<std::int64_t>::max();
  /// Elements of one tensor an operator may create (Add, Slice, ConcatFromSequence, Loop scan
  /// outputs); more is an Error naming the node.
  std::int64_t max_tensor_elements = std::numeric_limits<std::int64_t>::max();
  /// Where every tensor the run creates (kernel results, constants, loop counters) is
  /// allocated; nullptr: tseq::default_memory_resource(). Must outlive the returned values
  /// and be safe to deallocate from any thread that may drop the last handle.
  std::pmr::memory_resource* memory_resource = nullptr;
};

/// Runs a Model. Cheap to create; not for concurrent use (create one per thread).
class Session {
 public:
  explicit Session(const Model& model, SessionOptions options = {}) : model_(model), options_(options) {}

  /// Runs with inputs matched by name; inputs that have an initializer may be left out.
  /// Returns the graph outputs in order. Throws tseq::Error naming the node that failed.
  std::vector<Value> run(std::vector<std::pair<std::string, Value>> feeds);
  /// Runs with the first inputs.size() graph inputs, in order.
  std::vector<Value> run(std::vector<Value> inputs);

  /// Counters of the last run.
  const RunStats& stats() const noexcept { return stats_; }

 private:
  const Model& model_;
  SessionOptions options_;
  RunStats stats_;
};

}  // namespace tseq::onnx
