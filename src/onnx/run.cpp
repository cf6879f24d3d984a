// The run loop: feeds checked against the declared types, values moved into their last use,
// limits, cancellation and the run's memory budget.

#include <algorithm>
#include <new>

#include "kernel_support.hpp"
#include "registry.hpp"
#include "tseq/detail/checked.hpp"

namespace tseq::onnx {

namespace detail {

namespace {

// Counts the bytes of the run's tensors that are alive and refuses an allocation that would
// pass max_run_bytes, before asking the upstream resource. Tensors may outlive the run (its
// outputs) and the Session: the budget deletes itself when the Session has let go and the
// last block it handed out has come back.
class RunBudget final : public tseq::detail::ChargedResource {
 public:
  RunBudget(std::pmr::memory_resource* upstream, std::int64_t limit) : upstream_(upstream), limit_(limit) {}

  // The creator's reference.
  void release() noexcept {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }
  [[nodiscard]] std::int64_t held() const noexcept { return held_.load(std::memory_order_relaxed); }
  [[nodiscard]] std::int64_t limit() const noexcept { return limit_; }

  // String characters and shape dims of a tensor from this budget (tseq/tensor.hpp): counted
  // as held while the tensor lives, without an allocation.
  void charge(std::size_t bytes) override { reserve(bytes, "string characters and shape dims of "); }
  void uncharge(std::size_t bytes) noexcept override {
    held_.fetch_sub(static_cast<std::int64_t>(std::min<std::size_t>(bytes, INT64_MAX)), std::memory_order_relaxed);
  }

 private:
  void reserve(std::size_t bytes, const char* what) {
    const auto b = static_cast<std::int64_t>(std::min<std::size_t>(bytes, INT64_MAX));
    const std::int64_t now = held_.load(std::memory_order_relaxed);
    if (b > limit_ - now) {
      throw Error(std::string("the run's tensors would take ") + std::to_string(now) + " + " + std::to_string(b) +
                  " bytes (" + what + "a new tensor), over the session's max_run_bytes of " + std::to_string(limit_));
    }
    held_.fetch_add(b, std::memory_order_relaxed);
  }
  void* do_allocate(std::size_t bytes, std::size_t align) override {
    reserve(bytes, "");
    void* p = nullptr;
    try {
      p = upstream_->allocate(bytes, align);
    } catch (...) {
      uncharge(bytes);
      throw;
    }
    refs_.fetch_add(1, std::memory_order_relaxed);
    return p;
  }
  void do_deallocate(void* p, std::size_t bytes, std::size_t align) override {
    upstream_->deallocate(p, bytes, align);
    held_.fetch_sub(static_cast<std::int64_t>(std::min<std::size_t>(bytes, INT64_MAX)), std::memory_order_relaxed);
    release();
  }
  [[nodiscard]] bool do_is_equal(const std::pmr::memory_resource& o) const noexcept override { return this == &o; }

  std::pmr::memory_resource* upstream_;
  std::int64_t limit_;
  std::atomic<std::int64_t> held_{0};
  std::atomic<long> refs_{1};  // the Session's run, plus one per block handed out
};

}  // namespace

void Context::check_stop(std::string_view where, std::int64_t index) const {
  const bool stopped = options.stop_token.stop_requested();
  const bool cancelled = stopped || (options.cancel != nullptr && options.cancel->load(std::memory_order_relaxed));
  const bool late = !cancelled && options.time_limit.count() > 0 && std::chrono::steady_clock::now() > deadline;
  if (!cancelled && !late) return;
  // Appended piece by piece: GCC 12 at -O3 warns (-Wrestrict, a false positive) on the same
  // message built with operator+ of temporaries.
  std::string msg;
  if (!where.empty()) {
    msg.append(where);
    if (index >= 0) {
      msg += ' ';
      msg += std::to_string(index);
    }
    msg += ": ";
  }
  if (cancelled) {
    msg += stopped ? "the run was cancelled (SessionOptions::stop_token)"
                   : "the run was cancelled (SessionOptions::cancel)";
    throw RunStopped(msg);
  }
  msg += "the run took longer than its time limit of ";
  msg += std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(options.time_limit).count());
  msg += " ms (SessionOptions::time_limit)";
  throw RunStopped(msg);
}

void Context::check_tensor(std::int64_t elements, DataType dtype, std::string_view op, std::int64_t chars) const {
  if (elements > options.max_tensor_elements) {
    throw Error(std::string(op) + ": the result would hold " + std::to_string(elements) +
                " elements, over the session's limit of " + std::to_string(options.max_tensor_elements));
  }
  const std::int64_t bytes = tseq::detail::checked_add(
      tseq::detail::checked_mul(elements, static_cast<std::int64_t>(dtype_size(dtype)), op, "the result's bytes"),
      chars, op, "the result's bytes with its characters");
  if (bytes > options.max_tensor_bytes) {
    throw Error(std::string(op) + ": the result would take " + std::to_string(bytes) +
                " bytes, over the session's max_tensor_bytes of " + std::to_string(options.max_tensor_bytes));
  }
  if (chars > 0) check_run_bytes(chars, op);
}

void Context::check_tensor(const Shape& shape, DataType dtype, std::string_view op) const {
  if (shape.rank() > max_rank) {
    throw Error(std::string(op) + ": the result would have rank " + std::to_string(shape.rank()) +
                ", over tseq::onnx's max_rank of " + std::to_string(max_rank));
  }
  check_tensor(tseq::detail::num_elements(shape, std::string(op) + ": the result's "), dtype, op);
}

void Context::check_sequence(std::int64_t length, std::string_view op) const {
  if (length > options.max_sequence_length) {
    throw Error(std::string(op) + ": the result would hold " + std::to_string(length) +
                " tensors, over the session's max_sequence_length of " + std::to_string(options.max_sequence_length));
  }
}

void Context::check_run_bytes(std::int64_t bytes, std::string_view op) const {
  const auto* b = dynamic_cast<const RunBudget*>(resource);  // set only with max_run_bytes
  if (b == nullptr) return;
  if (bytes > b->limit() - b->held()) {
    throw Error(std::string(op) + ": the result would take about " + std::to_string(bytes) + " bytes; with " +
                std::to_string(b->held()) + " held that is over the session's max_run_bytes of " +
                std::to_string(b->limit()));
  }
}

[[noreturn]] void rethrow_with(const std::string& prefix) {
  try {
    throw;
  } catch (const RunStopped& e) {
    throw RunStopped(prefix + e.what());
  } catch (const TypeError& e) {
    throw TypeError(prefix + e.what());
  } catch (const ShapeError& e) {
    throw ShapeError(prefix + e.what());
  } catch (const IndexError& e) {
    throw IndexError(prefix + e.what());
  } catch (const DeviceError& e) {
    throw DeviceError(prefix + e.what());
  } catch (const LengthError& e) {
    throw LengthError(prefix + e.what());
  } catch (const std::bad_alloc&) {
    throw Error(prefix + "out of memory (std::bad_alloc); SessionOptions limits bound what a run may allocate");
  } catch (const std::length_error& e) {
    throw Error(prefix + "a size is too large (" + e.what() + ")");
  } catch (const std::exception& e) {
    throw Error(prefix + e.what());
  }
}

Values call(const Graph& g, Values args, const Scope& outer, Context& cx) {
  Scope s(g, &outer);
  for (std::size_t i = 0; i < args.size() && i < g.inputs.size(); ++i)
    s.slots[static_cast<std::size_t>(g.input_slots[i])] = std::move(args[i]);
  return run_graph(g, s, cx);
}

Values run_graph(const Graph& g, Scope& scope, Context& cx) {
  for (const auto& [slot, v] : g.initializer_slots) {
    auto& cell = scope.slots[static_cast<std::size_t>(slot)];
    if (!cell) cell = v;  // a default, unless the input was fed
  }
  for (const Node& n : g.nodes) {
    Inputs in(n.inputs.size());
    for (std::size_t j = 0; j < n.inputs.size(); ++j) {
      const std::string_view name = n.inputs[j];
      if (name.empty()) continue;
      const int slot = n.in_slots[j];
      if (slot >= 0) {
        auto& cell = scope.slots[static_cast<std::size_t>(slot)];
        if (cell) {
          if (n.move_input[j]) {
            in[j] = std::exchange(cell, std::nullopt);
            ++cx.stats.moved_inputs;
          } else {
            in[j] = *cell;
            ++cx.stats.shared_inputs;
          }
          continue;
        }
      }
      const Value* v = scope.parent != nullptr ? scope.parent->find(name) : nullptr;
      if (v == nullptr) {
        throw Error((g.name.empty() ? "" : "graph '" + escape_name(g.name) + "': ") + n.label() + ": value '" +
                    escape_name(name) + "' is not available");
      }
      in[j] = *v;
      ++cx.stats.shared_inputs;
    }
    ++cx.stats.nodes;
    Values out;
    try {
      if (cx.stoppable) cx.check_stop({});
      out = n.info->kernel(n, in, scope, cx);
    } catch (...) {
      rethrow_with((g.name.empty() ? "" : "graph '" + escape_name(g.name) + "': ") + n.label() + ": ");
    }
    for (std::size_t j = 0; j < n.out_slots.size() && j < out.size(); ++j) {
      if (n.out_slots[j] >= 0) scope.slots[static_cast<std::size_t>(n.out_slots[j])] = std::move(out[j]);
    }
  }
  Values result;
  for (std::size_t i = 0; i < g.outputs.size(); ++i) {
    const int slot = g.output_slots[i];
    if (slot >= 0 && scope.slots[static_cast<std::size_t>(slot)]) {
      auto& cell = scope.slots[static_cast<std::size_t>(slot)];
      if (g.output_move[i]) {  // this slot's last mention among the outputs
        result.push_back(std::move(*cell));
        cell.reset();
      } else {
        result.push_back(*cell);
      }
    } else if (const Value* v = scope.parent != nullptr ? scope.parent->find(g.outputs[i].name) : nullptr) {
      result.push_back(*v);
    } else {
      throw Error("graph '" + escape_name(g.name) + "': output '" + escape_name(g.outputs[i].name) +
                  "' was not produced");
    }
  }
  return result;
}

}  // namespace detail

namespace {}  // namespace

SessionOptions SessionOptions::untrusted() {
  SessionOptions o;
  o.max_loop_iterations = 10'000'000;
  o.max_tensor_elements = std::int64_t{1} << 28;
  o.max_tensor_bytes = std::int64_t{1} << 30;
  o.max_run_bytes = std::int64_t{4} << 30;
  o.max_sequence_length = 10'000'000;
  o.time_limit = std::chrono::minutes(10);
  return o;
}

ReadLimits SessionOptions::read_limits() const noexcept {
  ReadLimits r;
  r.max_file_bytes = std::min<std::int64_t>(max_run_bytes, std::numeric_limits<std::int32_t>::max());
  r.max_bytes = max_run_bytes;
  r.max_tensor_elements = max_tensor_elements;
  r.max_tensor_bytes = max_tensor_bytes;
  r.max_sequence_length = max_sequence_length;
  return r;
}

const std::vector<ValueInfo>& Model::inputs() const noexcept { return graph_->inputs; }
const std::vector<ValueInfo>& Model::outputs() const noexcept { return graph_->outputs; }

std::vector<Value> Session::run(std::vector<std::pair<std::string, Value>> feeds) {
  using detail::Graph;
  stats_ = {};
  const Graph& g = *model_.graph_;
  detail::RunBudget* budget = nullptr;
  struct Release {
    detail::RunBudget*& b;
    explicit Release(detail::RunBudget*& r) noexcept : b(r) {}
    Release(const Release&) = delete;
    Release& operator=(const Release&) = delete;
    ~Release() {
      if (b != nullptr) b->release();
    }
  } release(budget);
  try {  // everything, allocations included, fails as a tseq::Error naming the model
    detail::Scope scope(g);
    for (auto& feed : feeds) {
      const std::string& name = feed.first;
      Value& v = feed.second;
      auto it = std::find_if(g.inputs.begin(), g.inputs.end(), [&](const ValueInfo& i) { return i.name == name; });
      if (it == g.inputs.end()) throw Error("'" + escape_name(name) + "' is not an input of the graph");
      const ValueType got = detail::type_of(v);
      if (v.is_tensor() && v.tensor().rank() > max_rank) {
        throw Error("input '" + escape_name(name) + "' has rank " + std::to_string(v.tensor().rank()) +
                    ", over tseq::onnx's max_rank of " + std::to_string(max_rank));
      }
      if (!(got == it->type)) {
        throw TypeError("input '" + escape_name(name) + "' is declared " + to_string(it->type) + " but was fed " +
                        to_string(got));
      }
      scope.slots[static_cast<std::size_t>(g.input_slots[static_cast<std::size_t>(it - g.inputs.begin())])] =
          std::move(v);
    }
    for (std::size_t i = 0; i < g.inputs.size(); ++i) {
      if (!g.inputs[i].has_default && !scope.slots[static_cast<std::size_t>(g.input_slots[i])]) {
        throw Error("input '" + escape_name(g.inputs[i].name) + "' (" + to_string(g.inputs[i].type) +
                    ") was not given");
      }
    }
    std::pmr::memory_resource* upstream =
        options_.memory_resource != nullptr ? options_.memory_resource : default_memory_resource();
    if (options_.max_run_bytes != std::numeric_limits<std::int64_t>::max()) {
      budget = new detail::RunBudget(upstream, options_.max_run_bytes);
    }
    const auto now = std::chrono::steady_clock::now();
    const auto deadline = options_.time_limit.count() <= 0 || options_.time_limit > decltype(now)::max() - now
                              ? decltype(now)::max()
                              : now + options_.time_limit;
    detail::Context cx{
        stats_, options_, budget != nullptr ? static_cast<std::pmr::memory_resource*>(budget) : upstream, deadline,
        options_.stop_token.stop_possible() || options_.cancel != nullptr || options_.time_limit.count() > 0};
    detail::Values out = detail::run_graph(g, scope, cx);
    return std::vector<Value>(std::make_move_iterator(out.begin()), std::make_move_iterator(out.end()));
  } catch (...) {
    detail::rethrow_with(escape_name(model_.name(), 1024) + ": ");
  }
}

std::vector<Value> Session::run(std::vector<Value> inputs) {
  const auto& decl = model_.inputs();
  if (inputs.size() > decl.size()) {
    throw Error(escape_name(model_.name(), 1024) + ": " + std::to_string(inputs.size()) +
                " inputs given, the graph has " + std::to_string(decl.size()));
  }
  std::vector<std::pair<std::string, Value>> feeds;
  try {
    feeds.reserve(inputs.size());
    for (std::size_t i = 0; i < inputs.size(); ++i) feeds.emplace_back(decl[i].name, std::move(inputs[i]));
  } catch (...) {
    detail::rethrow_with(escape_name(model_.name(), 1024) + ": ");
  }
  return run(std::move(feeds));
}

std::vector<Value> Session::run(std::initializer_list<Value> inputs) {
  std::vector<Value> v;
  try {
    v.assign(inputs.begin(), inputs.end());
  } catch (...) {
    detail::rethrow_with(escape_name(model_.name(), 1024) + ": ");
  }
  return run(std::move(v));
}

std::vector<Value> Session::run() { return run(std::vector<std::pair<std::string, Value>>{}); }

}  // namespace tseq::onnx
