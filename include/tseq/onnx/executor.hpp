#pragma once

/// @file
/// A small ONNX graph executor that uses tseq values: enough operators to run ONNX's
/// sequence conformance cases; supported_operators() lists them.
///
/// It is ownership-aware: a value whose last use is the node being run is moved into that
/// node's operator, so a chain of SequenceInsert/SequenceErase on a sequence nobody else holds
/// updates it in place (tseq::ops' rvalue overloads), without copying the tree.

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <limits>
#include <memory>
#include <memory_resource>
#include <span>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tseq/onnx/value.hpp"

// This header (and value.hpp) declares nothing outside namespace tseq, so after
// `using namespace tseq;` the name `onnx::Session` means tseq::onnx::Session. Protobuf's
// generated code, and tseq/onnx/proto.hpp (which takes its messages), declare a namespace
// ::onnx too: where either is included, `onnx::` is ambiguous after `using namespace tseq;`,
// and tseq::onnx must be spelled in full.

namespace tseq::onnx {

/// A graph input or output: its name and declared type.
struct ValueInfo {
  std::string name;
  ValueType type;
  bool has_default = false;  ///< an input with an initializer: feeding it is optional
};

namespace detail {
struct Graph;
struct ModelAccess;
}  // namespace detail

/// The operators of the default ONNX domain the executor runs (at some opset in 1..25),
/// sorted and without duplicates; an operator outside this list is refused at load time.
/// O(number of operators); allocates the returned vector (the views point into static
/// storage and stay valid for the program's life). Throws std::bad_alloc only.
[[nodiscard]] std::vector<std::string_view> supported_operators();

/// Limits on loading a model (Model::load, Model::parse, and from_proto in
/// tseq/onnx/proto.hpp). The defaults bound only what must always be bounded (a file protobuf
/// cannot parse, subgraphs nested past the stack); for models nobody trusted start from
/// untrusted(). Every limit is checked before the memory or time it guards is spent, and going
/// over one is a tseq::Error naming the model, the limit and, where there is one, the node.
/// docs/onnx.md ("Running untrusted models") lists them.
struct LoadOptions {
  /// Bytes of the .onnx file (or buffer), checked before it is read. Protobuf parses at most
  /// 2 GiB - 1; a model with external data is not supported.
  std::int64_t max_file_bytes = std::numeric_limits<std::int32_t>::max();
  /// Memory the parsed model may take (protobuf's messages, estimated by a walk over the bytes
  /// before they are parsed: an empty NodeProto is 2 bytes on disk and ~200 in memory), plus
  /// the initializers and tseq's graph (counted as they are built).
  std::int64_t max_bytes = std::numeric_limits<std::int64_t>::max();
  /// Nodes in the model, subgraphs included (counted before the bytes are parsed).
  std::int64_t max_nodes = std::numeric_limits<std::int64_t>::max();
  /// Bytes of one name (graph, node, value, attribute, domain, operator).
  std::int64_t max_name_bytes = std::numeric_limits<std::int64_t>::max();
  /// Wall-clock time loading may take, checked as nodes are compiled and types inferred;
  /// zero: no limit.
  std::chrono::nanoseconds time_limit{0};
  /// Where the initializers are allocated; nullptr: tseq::default_memory_resource(). Must
  /// outlive the model.
  std::pmr::memory_resource* memory_resource = nullptr;

  /// Limits for models nobody trusted: 1 GiB files, 4 GiB of memory, 10^6 nodes, 4 KiB names,
  /// 60 s to load.
  [[nodiscard]] static LoadOptions untrusted();
};

/// Subgraphs (If branches, Loop and SequenceMap bodies) nest at most this deep in a model tseq
/// loads: compiling them recurses, and protobuf parses at most 100 nested messages (three per
/// graph level) anyway.
inline constexpr int max_graph_depth = 32;

/// A loaded, checked ONNX model: a shared handle (copies share one immutable graph); share it
/// between sessions and threads.
class Model {
 public:
  /// Reads and checks a .onnx file: the default-domain opset from opset_import (1 to 25), every
  /// operator and its required inputs, attributes and subgraphs, one producer per value name,
  /// every value produced before use (the order found in linear time), and a declared or
  /// inferred type for every graph and subgraph output. Throws tseq::Error naming the file, the
  /// node and the problem; nothing is run. The initializers are allocated from `resource`
  /// (nullptr: tseq::default_memory_resource()), which must outlive the model.
  ///
  /// The file is read with read_file (a regular file, at most options.max_file_bytes) and
  /// every LoadOptions limit applies; loading takes time and memory linear in the file's size.
  /// std::bad_alloc becomes an Error naming the file.
  [[nodiscard]] static Model load(const std::filesystem::path& file, const LoadOptions& options);
  /// Same, with the default LoadOptions and initializers allocated from `resource`.
  [[nodiscard]] static Model load(const std::filesystem::path& file, std::pmr::memory_resource* resource = nullptr);
  /// Parses serialized ModelProto bytes; `name` is used in error messages.
  [[nodiscard]] static Model parse(std::span<const std::byte> bytes, std::string_view name, const LoadOptions& options);
  [[nodiscard]] static Model parse(std::span<const std::byte> bytes, std::string_view name,
                                   std::pmr::memory_resource* resource = nullptr);
  // A ModelProto already in memory: tseq::onnx::from_proto(proto, name, ...) in
  // tseq/onnx/proto.hpp (kept out of this header, which declares no protobuf type).

  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  [[nodiscard]] const std::vector<ValueInfo>& inputs() const noexcept;
  [[nodiscard]] const std::vector<ValueInfo>& outputs() const noexcept;
  /// The default-domain opset the model imports.
  [[nodiscard]] int opset() const noexcept { return opset_; }

 private:
  friend class Session;
  friend struct detail::ModelAccess;
  Model(std::shared_ptr<const detail::Graph> g, std::string name, int opset)
      : graph_(std::move(g)), name_(std::move(name)), opset_(opset) {}
  std::shared_ptr<const detail::Graph> graph_;
  std::string name_;
  int opset_;
};

/// Thrown when a run stops because its caller requested a stop (SessionOptions::stop_token, or
/// the older SessionOptions::cancel) or its time limit passed; the message names the node where
/// it stopped.
class RunStopped : public tseq::Error {
 public:
  using tseq::Error::Error;
};

/// Counters of one run.
struct RunStats {
  std::size_t nodes = 0;          ///< nodes executed, subgraphs included
  std::size_t moved_inputs = 0;   ///< inputs handed to an operator at their last use (no copy)
  std::size_t shared_inputs = 0;  ///< inputs passed as a shared handle (still used later)
};

/// Resource limits of a Session. The defaults limit nothing (a trusted model in a runtime that
/// sets its own bounds); for models nobody trusted start from untrusted(). Every limit is
/// checked before the allocation it guards, and going over it is a tseq::Error naming the
/// node and the limit. docs/onnx.md ("Running untrusted models") lists what each one bounds.
struct SessionOptions {
  /// Iterations one Loop node may run.
  std::int64_t max_loop_iterations = std::numeric_limits<std::int64_t>::max();
  /// Elements of one tensor an operator may create (Add, Slice, Unsqueeze,
  /// ConcatFromSequence, Loop scan outputs, SplitToSequence pieces).
  std::int64_t max_tensor_elements = std::numeric_limits<std::int64_t>::max();
  /// Bytes of one tensor an operator may create.
  std::int64_t max_tensor_bytes = std::numeric_limits<std::int64_t>::max();
  /// Bytes of all tensors the run creates that are alive at once: payloads and headers from
  /// memory_resource, the characters of string elements and shape dims past
  /// Shape::inline_rank (charged to the budget while the tensor lives); checked on every
  /// allocation. Before operators that make many tensors or sequence elements at once start
  /// (SplitToSequence, SequenceMap, Loop scan outputs), what they will make is checked
  /// against what is left, sequence storage counted at 16 bytes an element.
  std::int64_t max_run_bytes = std::numeric_limits<std::int64_t>::max();
  /// Tensors in one sequence an operator may create (bounds sequence storage: about 10 bytes
  /// per element).
  std::int64_t max_sequence_length = std::numeric_limits<std::int64_t>::max();
  /// Wall-clock time one run may take, checked between nodes and loop iterations and every
  /// 2^16 elements inside kernels that walk elements; zero: no limit. Past it the run throws
  /// RunStopped.
  std::chrono::nanoseconds time_limit{0};
  /// Stops the session's runs when a stop is requested through its std::stop_source, from any
  /// thread (as ONNX Runtime's RunOptions::terminate): checked where time_limit is, then the
  /// run throws RunStopped ("the run was cancelled (SessionOptions::stop_token)"). A run that
  /// starts after the request stops at its first node; to cancel one run among several, give
  /// it a Session of its own (Sessions are cheap). Default: no stop can be requested.
  std::stop_token stop_token;
  /// Deprecated: use stop_token. Set to true from any thread to stop a running run; checked
  /// where stop_token is. Not owned; must outlive the runs that read it. Null: not read. Kept
  /// so that existing callers work unchanged (it is not marked [[deprecated]]: GCC 12 warns
  /// in SessionOptions' own implicit copy and move constructors then).
  const std::atomic<bool>* cancel = nullptr;
  /// Where every tensor the run creates (kernel results, constants, loop counters) is
  /// allocated; nullptr: tseq::default_memory_resource(). Must outlive the returned values
  /// and be safe to deallocate from any thread that may drop the last handle.
  std::pmr::memory_resource* memory_resource = nullptr;

  /// Limits for models nobody trusted: 10^7 loop iterations, 2^28 elements and 1 GiB per
  /// tensor, 4 GiB of tensors per run, 10^7 tensors per sequence, 10 minutes per run.
  [[nodiscard]] static SessionOptions untrusted();

  /// These limits as ReadLimits, for reading the values a run is fed (load_value): a file of
  /// at most max_run_bytes (and 2 GiB - 1), a value of at most max_run_bytes, and the
  /// per-tensor and per-sequence limits.
  [[nodiscard]] ReadLimits read_limits() const noexcept;
};

/// Runs a Model. Holds a shared handle to it (a temporary Model is fine). Cheap to create; not
/// for concurrent use (create one per thread).
class Session {
 public:
  explicit Session(Model model, SessionOptions options = {}) : model_(std::move(model)), options_(std::move(options)) {}

  /// Runs with inputs matched by name, `run({{"x", x}, {"s", s}})`; inputs that have an
  /// initializer may be left out. Every feed must have its input's declared type (else
  /// TypeError naming the input, the declared and the fed type). Returns the graph outputs in
  /// order. Throws tseq::Error naming the node that failed (RunStopped when stopped or out of
  /// time), or naming the input that is not one of the graph's or was not given.
  [[nodiscard]] std::vector<Value> run(std::vector<std::pair<std::string, Value>> feeds);
  /// Runs with the first inputs.size() graph inputs, in order; the rest must have
  /// initializers. The values are moved into the run: a vector moved in hands over its
  /// sequences, which are then updated in place if nobody else holds them.
  [[nodiscard]] std::vector<Value> run(std::vector<Value> inputs);
  /// Runs with the first inputs.size() graph inputs, in order: `run({x, s})`. The braced list
  /// is copied (an initializer_list's elements are const), so its values stay shared; move a
  /// std::vector<Value> in to hand them over. `run({})` feeds nothing, as run() does (this
  /// overload is preferred for braced lists of values, so `run({})` is not ambiguous).
  [[nodiscard]] std::vector<Value> run(std::initializer_list<Value> inputs);
  /// Runs with no feeds: a graph without inputs, or whose inputs all have initializers (else
  /// Error naming the first input not given).
  [[nodiscard]] std::vector<Value> run();

  /// Counters of the last run.
  [[nodiscard]] const RunStats& stats() const noexcept { return stats_; }

 private:
  Model model_;
  SessionOptions options_;
  RunStats stats_;
};

}  // namespace tseq::onnx
