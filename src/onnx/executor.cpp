// The graph executor: model checking, scheduling, last-use analysis and the operators.

#include "tseq/onnx/executor.hpp"

#include <algorithm>
#include <climits>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include <boost/container/small_vector.hpp>

#include "onnx/onnx-data_pb.h"
#include "onnx/onnx_pb.h"
#include "tseq/onnx/proto.hpp"
#include "tseq/ops.hpp"

namespace tseq::onnx {

namespace detail {

struct Node {
  const ::onnx::NodeProto* proto = nullptr;
  std::string op;
  std::string label;  // "node 3 'name' (Op)" for messages
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::map<std::string, std::shared_ptr<const Graph>> subgraphs;  // by attribute name
  std::vector<bool> move_input;  // input j may be moved: this node is that value's last use
  std::vector<int> in_slots;     // slot of input j; -1: absent ("") or from an enclosing graph
  std::vector<int> out_slots;
};

struct Graph {
  std::shared_ptr<const ::onnx::ModelProto> model;  // keeps every NodeProto alive
  std::string name;
  std::vector<ValueInfo> inputs;
  std::vector<ValueInfo> outputs;
  std::vector<Node> nodes;           // in execution order
  std::set<std::string> free_names;  // taken from enclosing graphs
  // Every value defined here (inputs, initializers, node outputs) lives in a slot of the run's
  // scope: no map look-up or allocation per value at run time.
  std::unordered_map<std::string, int> slot_of;
  std::vector<int> input_slots;
  std::vector<int> output_slots;  // -1: an output taken from an enclosing graph
  std::vector<std::pair<int, Value>> initializer_slots;
};

}  // namespace detail

namespace {

using detail::Graph;
using detail::Node;
using Inputs = boost::container::small_vector<std::optional<Value>, 4>;
using Values = boost::container::small_vector<Value, 2>;

const std::set<std::string> kSupported = {"Add",
                                          "Not",
                                          "ConcatFromSequence",
                                          "Constant",
                                          "Identity",
                                          "If",
                                          "Loop",
                                          "Optional",
                                          "OptionalGetElement",
                                          "OptionalHasElement",
                                          "SequenceAt",
                                          "SequenceConstruct",
                                          "SequenceEmpty",
                                          "SequenceErase",
                                          "SequenceInsert",
                                          "SequenceLength",
                                          "SequenceMap",
                                          "Shape",
                                          "Slice",
                                          "SplitToSequence",
                                          "Unsqueeze"};

[[noreturn]] void rethrow_with(const std::string& prefix) {
  try {
    throw;
  } catch (const TypeError& e) {
    throw TypeError(prefix + e.what());
  } catch (const ShapeError& e) {
    throw ShapeError(prefix + e.what());
  } catch (const IndexError& e) {
    throw IndexError(prefix + e.what());
  } catch (const DeviceError& e) {
    throw DeviceError(prefix + e.what());
  } catch (const std::exception& e) {
    throw Error(prefix + e.what());
  }
}

std::shared_ptr<const Graph> compile(const ::onnx::GraphProto& g, std::shared_ptr<const ::onnx::ModelProto> model,
                                     const std::string& where, bool top, std::pmr::memory_resource* resource);

// ---- checking and scheduling ------------------------------------------------------------------

std::shared_ptr<const Graph> compile(const ::onnx::GraphProto& gp, std::shared_ptr<const ::onnx::ModelProto> model,
                                     const std::string& where, bool top, std::pmr::memory_resource* resource) {
  auto g = std::make_shared<Graph>();
  g->model = model;
  g->name = gp.name();
  const std::string ctx = where + (gp.name().empty() ? "" : " graph '" + gp.name() + "'");
  std::set<std::string> defined;
  std::set<std::string> with_init;
  std::vector<std::pair<std::string, Value>> initializers;  // placed in slots below
  if (gp.sparse_initializer_size() > 0) throw Error(ctx + ": sparse initializers are not supported");
  for (const auto& t : gp.initializer()) {
    with_init.insert(t.name());
    initializers.emplace_back(t.name(), from_proto(t, ctx + ": initializer '" + t.name() + "'", resource));
    defined.insert(t.name());
  }
  for (const auto& vi : gp.input()) {
    ValueInfo info{vi.name(), ValueType{}, with_init.count(vi.name()) > 0};
    if (vi.has_type()) {
      info.type = from_proto(vi.type(), ctx + ": input '" + vi.name() + "'");
    } else if (top) {
      throw Error(ctx + ": input '" + vi.name() + "' has no type");
    }
    g->inputs.push_back(info);
    defined.insert(vi.name());
  }
  for (const auto& vi : gp.output()) {
    ValueInfo info{vi.name(), ValueType{}, false};
    if (vi.has_type()) {
      info.type = from_proto(vi.type(), ctx + ": output '" + vi.name() + "'");
    } else if (top) {
      throw Error(ctx + ": output '" + vi.name() + "' has no type");
    }
    g->outputs.push_back(info);
  }

  // Nodes, with their subgraphs compiled and their outer-scope needs known.
  std::vector<Node> pending;
  for (int k = 0; k < gp.node_size(); ++k) {
    const auto& np = gp.node(k);
    Node n;
    n.proto = &np;
    n.op = np.op_type();
    n.label = "node " + std::to_string(k) + (np.name().empty() ? "" : " '" + np.name() + "'") + " (" + n.op + ")";
    if (!np.domain().empty() && np.domain() != "ai.onnx") {
      throw Error(ctx + ": " + n.label + ": domain '" + np.domain() +
                  "' is not supported (only the default ONNX domain)");
    }
    if (kSupported.count(n.op) == 0) {
      throw Error(ctx + ": " + n.label + ": operator " + n.op + " is not supported by tseq's executor");
    }
    n.inputs.assign(np.input().begin(), np.input().end());
    n.outputs.assign(np.output().begin(), np.output().end());
    for (const auto& a : np.attribute()) {
      if (a.type() == ::onnx::AttributeProto::GRAPH || a.has_g()) {
        n.subgraphs[a.name()] =
            compile(a.g(), model, ctx + ": " + n.label + " attribute '" + a.name() + "'", false, resource);
      } else if (a.type() == ::onnx::AttributeProto::GRAPHS) {
        throw Error(ctx + ": " + n.label + ": graph-list attributes are not supported");
      }
    }
    pending.push_back(std::move(n));
  }

  // Topological order (ONNX requires one; accept any order that has one).
  std::vector<bool> done(pending.size(), false);
  std::set<std::string> available = defined;
  auto needs = [&](const Node& n, std::string* missing) {
    for (const auto& in : n.inputs) {
      if (!in.empty() && available.count(in) == 0) {
        if (missing) *missing = in;
        return false;
      }
    }
    for (const auto& [_, sg] : n.subgraphs) {
      for (const auto& f : sg->free_names) {
        if (available.count(f) == 0) {
          if (missing) *missing = f;
          return false;
        }
      }
    }
    return true;
  };
  // Names not defined here are taken from enclosing graphs (checked when those are compiled).
  std::set<std::string> produced;
  for (const auto& n : pending) produced.insert(n.outputs.begin(), n.outputs.end());
  for (const auto& n : pending) {
    for (const auto& in : n.inputs) {
      if (!in.empty() && defined.count(in) == 0 && produced.count(in) == 0) g->free_names.insert(in);
    }
    for (const auto& [_, sg] : n.subgraphs) {
      for (const auto& f : sg->free_names) {
        if (defined.count(f) == 0 && produced.count(f) == 0) g->free_names.insert(f);
      }
    }
  }
  for (const auto& o : g->outputs) {
    if (defined.count(o.name) == 0 && produced.count(o.name) == 0) g->free_names.insert(o.name);
  }
  if (top && !g->free_names.empty()) {
    throw Error(ctx + ": value '" + *g->free_names.begin() + "' is used but no node, input or initializer provides it");
  }
  available.insert(g->free_names.begin(), g->free_names.end());
  for (std::size_t placed = 0; placed < pending.size();) {
    bool progress = false;
    for (std::size_t k = 0; k < pending.size(); ++k) {
      if (done[k] || !needs(pending[k], nullptr)) continue;
      done[k] = true;
      available.insert(pending[k].outputs.begin(), pending[k].outputs.end());
      g->nodes.push_back(std::move(pending[k]));
      ++placed;
      progress = true;
    }
    if (!progress) {
      for (std::size_t k = 0; k < pending.size(); ++k) {
        std::string missing;
        if (!done[k] && !needs(pending[k], &missing)) {
          throw Error(ctx + ": " + pending[k].label + " uses '" + missing +
                      "', which no node, input or initializer provides (or the graph has a cycle)");
        }
      }
    }
  }

  // Last uses: a value defined in this graph may be moved into the last node that reads it,
  // unless it is a graph output or that node's subgraphs still read it.
  std::set<std::string> outputs;
  for (const auto& o : g->outputs) outputs.insert(o.name);
  std::unordered_map<std::string, std::size_t> last;
  for (std::size_t k = 0; k < g->nodes.size(); ++k) {
    for (const auto& in : g->nodes[k].inputs) last[in] = k;
    for (const auto& [_, sg] : g->nodes[k].subgraphs) {
      for (const auto& f : sg->free_names) last[f] = k;
    }
  }
  for (std::size_t k = 0; k < g->nodes.size(); ++k) {
    Node& n = g->nodes[k];
    std::set<std::string> sub_reads;
    for (const auto& [_, sg] : n.subgraphs) sub_reads.insert(sg->free_names.begin(), sg->free_names.end());
    n.move_input.assign(n.inputs.size(), false);
    for (std::size_t j = 0; j < n.inputs.size(); ++j) {
      const std::string& in = n.inputs[j];
      if (in.empty() || g->free_names.count(in) || outputs.count(in) || sub_reads.count(in) || last[in] != k) continue;
      const bool later_in_same_node =
          std::find(n.inputs.begin() + static_cast<std::ptrdiff_t>(j) + 1, n.inputs.end(), in) != n.inputs.end();
      n.move_input[j] = !later_in_same_node;
    }
  }

  auto slot = [&](const std::string& name) {
    auto [it, fresh] = g->slot_of.try_emplace(name, static_cast<int>(g->slot_of.size()));
    return it->second;
  };
  for (const auto& i : g->inputs) g->input_slots.push_back(slot(i.name));
  for (auto& [name, v] : initializers) g->initializer_slots.emplace_back(slot(name), std::move(v));
  for (Node& n : g->nodes) {
    for (const auto& o : n.outputs) n.out_slots.push_back(o.empty() ? -1 : slot(o));
  }
  for (Node& n : g->nodes) {
    for (const auto& in : n.inputs) {
      auto it = g->slot_of.find(in);
      n.in_slots.push_back(in.empty() || it == g->slot_of.end() ? -1 : it->second);
    }
  }
  for (const auto& o : g->outputs) {
    auto it = g->slot_of.find(o.name);
    g->output_slots.push_back(it == g->slot_of.end() ? -1 : it->second);
  }
  return g;
}

// ---- running ----------------------------------------------------------------------------------

// What every operator of one run may need besides its inputs.
struct Context {
  RunStats& stats;
  const SessionOptions& options;
  std::pmr::memory_resource* resource;  // every tensor a kernel creates comes from here

  void check_elements(const Shape& s, const char* op) const {
    const std::int64_t n = s.num_elements();
    if (n > options.max_tensor_elements) {
      throw Error(std::string(op) + ": the result would hold " + std::to_string(n) +
                  " elements, over the session's limit of " + std::to_string(options.max_tensor_elements));
    }
  }
};

struct Scope {
  const Graph* graph;
  std::vector<std::optional<Value>> slots;
  const Scope* parent = nullptr;

  explicit Scope(const Graph& g, const Scope* p = nullptr) : graph(&g), slots(g.slot_of.size()), parent(p) {}

  // A value by name, here or in an enclosing scope (subgraphs read outer values this way).
  const Value* find(const std::string& name) const {
    for (const Scope* s = this; s != nullptr; s = s->parent) {
      auto it = s->graph->slot_of.find(name);
      if (it != s->graph->slot_of.end() && s->slots[static_cast<std::size_t>(it->second)]) {
        return &*s->slots[static_cast<std::size_t>(it->second)];
      }
    }
    return nullptr;
  }
};

Values run_graph(const Graph& g, Scope& scope, Context& cx);

const ::onnx::AttributeProto* attribute(const Node& n, const std::string& name) {
  for (const auto& a : n.proto->attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

std::int64_t int_attribute(const Node& n, const std::string& name, std::optional<std::int64_t> fallback) {
  const auto* a = attribute(n, name);
  if (a == nullptr) {
    if (!fallback) throw Error("attribute '" + name + "' is required");
    return *fallback;
  }
  return a->i();
}

const Graph& subgraph(const Node& n, const std::string& name) {
  auto it = n.subgraphs.find(name);
  if (it == n.subgraphs.end()) throw Error("graph attribute '" + name + "' is required");
  return *it->second;
}

Value& required(Inputs& in, std::size_t j) {
  if (j >= in.size() || !in[j]) throw Error("input " + std::to_string(j) + " is required");
  return *in[j];
}

const Tensor& tensor_input(Inputs& in, std::size_t j) {
  Value& v = required(in, j);
  if (!v.is_tensor()) throw TypeError("input " + std::to_string(j) + " must be a tensor, got " + describe(v));
  return v.tensor();
}

std::optional<Tensor> optional_tensor(Inputs& in, std::size_t j) {
  if (j >= in.size() || !in[j]) return std::nullopt;
  return tensor_input(in, j);
}

TensorSequence take_sequence(Inputs& in, std::size_t j) {
  Value& v = required(in, j);
  if (!v.is_sequence()) throw TypeError("input " + std::to_string(j) + " must be a sequence, got " + describe(v));
  return std::move(std::get<TensorSequence>(v));
}

// Kernels read payloads only on the host (docs/embedding.md).
void check_host(const Tensor& t, const std::string& what) {
  if (!t.device().is_host_readable()) tseq::detail::throw_not_host("", what, t.device());
}

bool bool_scalar(const Tensor& t, const char* what) {
  if (t.dtype() != DataType::Bool || t.size() != 1) {
    throw TypeError(std::string(what) + " must be a one-element bool tensor, got " + dtype_name(t.dtype()) +
                    " of shape " + to_string(t.shape()));
  }
  check_host(t, what);
  return t.value<bool>(0);
}

std::vector<std::int64_t> int_list(const Tensor& t, const char* what) {
  if (t.dtype() != DataType::Int64 && t.dtype() != DataType::Int32) {
    throw TypeError(std::string(what) + " must be an int32 or int64 tensor, got " + dtype_name(t.dtype()));
  }
  check_host(t, what);
  std::vector<std::int64_t> r(t.size());
  for (std::size_t i = 0; i < r.size(); ++i) {
    r[i] = t.dtype() == DataType::Int64 ? t.value<std::int64_t>(i) : t.value<std::int32_t>(i);
  }
  return r;
}

std::vector<std::int64_t> strides_of(const Shape& s) {
  std::vector<std::int64_t> st(s.rank(), 1);
  for (std::size_t d = s.rank(); d-- > 1;) st[d - 1] = st[d] * s[d];
  return st;
}

// Copies elements of `src` picked by an affine index map into a new tensor of shape `out`:
// element (i0, i1, ...) of the result is src at offset base + sum(i_d * step[d]).
Tensor gather(const Tensor& src, const Shape& out, std::int64_t base, const std::vector<std::int64_t>& step,
              std::pmr::memory_resource* resource) {
  TensorBuffer b(src.dtype(), out, resource);
  const std::size_t r = out.rank();
  const auto total = static_cast<std::size_t>(out.num_elements());
  visit_dtype(src.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto from = src.values<T>();
    auto to = b.values<T>();
    std::vector<std::int64_t> idx(r, 0);
    std::int64_t off = base;
    for (std::size_t i = 0; i < total; ++i) {
      to[i] = from[static_cast<std::size_t>(off)];
      for (std::size_t d = r; d-- > 0;) {  // odometer increment
        if (++idx[d] < out[d]) {
          off += step[d];
          break;
        }
        off -= step[d] * (idx[d] - 1);
        idx[d] = 0;
      }
    }
  });
  return std::move(b).freeze();
}

Tensor with_shape(const Tensor& t, const Shape& s, std::pmr::memory_resource* resource) {
  return gather(t, s, 0, strides_of(s), resource);  // same row-major order, new dims
}

Shape broadcast_shape(const Shape& a, const Shape& b) {
  const std::size_t r = std::max(a.rank(), b.rank());
  std::vector<std::int64_t> d(r);
  for (std::size_t i = 0; i < r; ++i) {
    const std::int64_t x = i < r - a.rank() ? 1 : a[i - (r - a.rank())];
    const std::int64_t y = i < r - b.rank() ? 1 : b[i - (r - b.rank())];
    if (x != y && x != 1 && y != 1) {
      throw ShapeError("shapes " + to_string(a) + " and " + to_string(b) + " cannot be broadcast");
    }
    d[i] = x == 1 ? y : x;
  }
  return Shape(std::span<const std::int64_t>(d));
}

// Strides of `s` seen as broadcast to rank r (0 along broadcast dimensions).
std::vector<std::int64_t> broadcast_strides(const Shape& s, const Shape& out) {
  const std::size_t r = out.rank();
  const auto own = strides_of(s);
  std::vector<std::int64_t> st(r, 0);
  for (std::size_t i = 0; i < s.rank(); ++i) {
    const std::size_t o = r - s.rank() + i;
    st[o] = s[i] == 1 && out[o] != 1 ? 0 : own[i];
  }
  return st;
}

Tensor add(const Tensor& a, const Tensor& b, const Context& cx) {
  if (a.dtype() != b.dtype()) {
    throw TypeError("Add: operands have types " + dtype_name(a.dtype()) + " and " + dtype_name(b.dtype()));
  }
  if (a.dtype() == DataType::String || a.dtype() == DataType::Bool) {
    throw TypeError("Add: " + dtype_name(a.dtype()) + " tensors cannot be added");
  }
  const Shape out = broadcast_shape(a.shape(), b.shape());
  cx.check_elements(out, "Add");
  const Tensor x = gather(a, out, 0, broadcast_strides(a.shape(), out), cx.resource);
  const Tensor y = gather(b, out, 0, broadcast_strides(b.shape(), out), cx.resource);
  TensorBuffer r(a.dtype(), out, cx.resource);
  visit_dtype(a.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, std::string> && !std::is_same_v<T, bool>) {
      const auto p = x.values<T>();
      const auto q = y.values<T>();
      auto o = r.values<T>();
      for (std::size_t i = 0; i < o.size(); ++i) o[i] = static_cast<T>(p[i] + q[i]);
    }
  });
  return std::move(r).freeze();
}

Tensor slice(const Tensor& data, Inputs& in, const Node& n, const Context& cx) {
  std::vector<std::int64_t> starts;
  std::vector<std::int64_t> ends;
  std::vector<std::int64_t> axes;
  std::vector<std::int64_t> steps;
  if (in.size() >= 3) {  // opset 10+
    starts = int_list(tensor_input(in, 1), "Slice starts");
    ends = int_list(tensor_input(in, 2), "Slice ends");
    if (auto a = optional_tensor(in, 3)) axes = int_list(*a, "Slice axes");
    if (auto s = optional_tensor(in, 4)) steps = int_list(*s, "Slice steps");
  } else {  // opset 1-9: attributes
    auto list = [&](const char* name) {
      std::vector<std::int64_t> v;
      if (const auto* a = attribute(n, name)) v.assign(a->ints().begin(), a->ints().end());
      return v;
    };
    starts = list("starts");
    ends = list("ends");
    axes = list("axes");
  }
  const auto r = static_cast<std::int64_t>(data.rank());
  if (starts.size() != ends.size()) throw ShapeError("Slice: starts and ends have different lengths");
  if (axes.empty()) {
    for (std::size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<std::int64_t>(i));
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (axes.size() != starts.size() || steps.size() != starts.size()) {
    throw ShapeError("Slice: starts, ends, axes and steps must have the same length");
  }
  std::vector<std::int64_t> first(data.rank(), 0);
  std::vector<std::int64_t> step(data.rank(), 1);
  std::vector<std::int64_t> dims(data.shape().begin(), data.shape().end());
  for (std::size_t i = 0; i < axes.size(); ++i) {
    std::int64_t ax = axes[i];
    if (ax < -r || ax >= r) {
      throw IndexError("Slice: axis " + std::to_string(ax) + " is out of range [" + std::to_string(-r) + ", " +
                       std::to_string(r - 1) + "]");
    }
    if (ax < 0) ax += r;
    const auto a = static_cast<std::size_t>(ax);
    const std::int64_t dim = data.shape()[a];
    const std::int64_t s = steps[i];
    if (s == 0) throw Error("Slice: step 0 is invalid");
    std::int64_t b = starts[i];
    std::int64_t e = ends[i];
    if (b < 0) b += dim;
    if (e < 0) e += dim;
    if (s > 0) {
      b = std::clamp<std::int64_t>(b, 0, dim);
      e = std::clamp<std::int64_t>(e, 0, dim);
      dims[a] = e > b ? (e - b + s - 1) / s : 0;
    } else {
      b = std::clamp<std::int64_t>(b, 0, dim - 1);
      e = std::clamp<std::int64_t>(e, -1, dim - 1);
      dims[a] = b > e ? (b - e + (-s) - 1) / (-s) : 0;
    }
    first[a] = b;
    step[a] = s;
  }
  const auto st = strides_of(data.shape());
  std::int64_t base = 0;
  std::vector<std::int64_t> istep(data.rank());
  for (std::size_t d = 0; d < data.rank(); ++d) {
    base += first[d] * st[d];
    istep[d] = step[d] * st[d];
  }
  const Shape out{std::span<const std::int64_t>(dims)};
  cx.check_elements(out, "Slice");
  if (out.num_elements() == 0) return TensorBuffer(data.dtype(), out, cx.resource).freeze();
  return gather(data, out, base, istep, cx.resource);
}

Tensor unsqueeze(const Tensor& data, std::vector<std::int64_t> axes, std::pmr::memory_resource* resource) {
  const auto r = static_cast<std::int64_t>(data.rank() + axes.size());
  for (auto& a : axes) {
    if (a < -r || a >= r) {
      throw IndexError("Unsqueeze: axis " + std::to_string(a) + " is out of range [" + std::to_string(-r) + ", " +
                       std::to_string(r - 1) + "]");
    }
    if (a < 0) a += r;
  }
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) throw Error("Unsqueeze: repeated axis");
  std::vector<std::int64_t> dims;
  std::size_t src = 0;
  for (std::int64_t i = 0; i < r; ++i) {
    if (std::binary_search(axes.begin(), axes.end(), i)) {
      dims.push_back(1);
    } else {
      dims.push_back(data.shape()[src++]);
    }
  }
  return with_shape(data, Shape(std::span<const std::int64_t>(dims)), resource);
}

Tensor constant(const Node& n, std::pmr::memory_resource* r) {
  for (const auto& a : n.proto->attribute()) {
    const std::string& k = a.name();
    if (k == "value") return from_proto(a.t(), "Constant value", r);
    if (k == "value_float") return Tensor::scalar(a.f(), r);
    if (k == "value_int") return Tensor::scalar<std::int64_t>(a.i(), r);
    if (k == "value_string") return Tensor::scalar(a.s(), r);
    if (k == "value_floats") {
      std::vector<float> v(a.floats().begin(), a.floats().end());
      return Tensor::from_values<float>(Shape{static_cast<std::int64_t>(v.size())}, v, r);
    }
    if (k == "value_ints") {
      std::vector<std::int64_t> v(a.ints().begin(), a.ints().end());
      return Tensor::from_values<std::int64_t>(Shape{static_cast<std::int64_t>(v.size())}, v, r);
    }
    if (k == "value_strings") {
      std::vector<std::string> v(a.strings().begin(), a.strings().end());
      return Tensor::from_values<std::string>(Shape{static_cast<std::int64_t>(v.size())}, v, r);
    }
    if (k == "sparse_value") throw Error("Constant: sparse_value is not supported");
  }
  throw Error("Constant: no value attribute");
}

// Runs a subgraph with the given inputs bound to its declared inputs.
Values call(const Graph& g, Values args, const Scope& outer, Context& cx) {
  if (args.size() != g.inputs.size()) {
    throw Error("subgraph '" + g.name + "' takes " + std::to_string(g.inputs.size()) + " inputs, given " +
                std::to_string(args.size()));
  }
  Scope s(g, &outer);
  for (std::size_t i = 0; i < args.size(); ++i)
    s.slots[static_cast<std::size_t>(g.input_slots[i])] = std::move(args[i]);
  return run_graph(g, s, cx);
}

Values loop(const Node& n, Inputs& in, const Scope& scope, Context& cx) {
  const Graph& body = subgraph(n, "body");
  const auto max_trip = optional_tensor(in, 0);
  const auto cond_in = optional_tensor(in, 1);
  std::int64_t trips = std::numeric_limits<std::int64_t>::max();
  if (max_trip) {
    const auto v = int_list(*max_trip, "Loop M");
    if (v.size() != 1) throw ShapeError("Loop: M must hold one value");
    trips = v[0];
  }
  bool cond = cond_in ? bool_scalar(*cond_in, "Loop cond") : true;
  Values carried;
  for (std::size_t j = 2; j < in.size(); ++j) carried.push_back(std::move(required(in, j)));
  if (body.outputs.size() < 1 + carried.size()) throw Error("Loop: the body has too few outputs");
  const std::size_t n_scan = body.outputs.size() - 1 - carried.size();
  std::vector<std::vector<Tensor>> scans(n_scan);
  for (std::int64_t i = 0; i < trips && cond; ++i) {
    if (i >= cx.options.max_loop_iterations) {
      throw Error("Loop: more than " + std::to_string(cx.options.max_loop_iterations) +
                  " iterations, the session's limit");
    }
    Values args;
    args.emplace_back(Tensor::scalar<std::int64_t>(i, cx.resource));
    args.emplace_back(Tensor::scalar(cond, cx.resource));
    for (auto& c : carried) args.push_back(std::move(c));
    Values out = call(body, std::move(args), scope, cx);
    if (!out[0].is_tensor()) throw TypeError("Loop: the body's condition output must be a tensor");
    cond = bool_scalar(out[0].tensor(), "Loop body condition");
    for (std::size_t c = 0; c < carried.size(); ++c) carried[c] = std::move(out[1 + c]);
    for (std::size_t k = 0; k < n_scan; ++k) {
      const Value& v = out[1 + carried.size() + k];
      if (!v.is_tensor()) throw TypeError("Loop: scan outputs must be tensors");
      scans[k].push_back(v.tensor());
      cx.check_elements(Shape{static_cast<std::int64_t>(scans[k].size() * v.tensor().size())}, "Loop scan output");
    }
  }
  Values result = std::move(carried);
  for (std::size_t k = 0; k < n_scan; ++k) {
    const DataType t = body.outputs[1 + result.size() + k].type.elem_type;
    if (scans[k].empty()) {
      result.emplace_back(TensorBuffer(t, Shape{0}, cx.resource).freeze());
    } else {
      result.emplace_back(ops::concat_from_sequence(ops::sequence_construct(scans[k]), 0, 1, cx.resource));
    }
  }
  return result;
}

Values sequence_map(const Node& n, Inputs& in, const Scope& scope, Context& cx) {
  const Graph& body = subgraph(n, "body");
  const TensorSequence first = take_sequence(in, 0);
  const std::size_t count = first.size();
  if (body.inputs.size() != in.size()) {
    throw Error("SequenceMap: the body takes " + std::to_string(body.inputs.size()) + " inputs, the node has " +
                std::to_string(in.size()));
  }
  std::vector<TensorSequence::container_type::builder> outs(body.outputs.size());
  for (std::size_t i = 0; i < count; ++i) {
    Values args;
    args.emplace_back(first[i]);
    for (std::size_t j = 1; j < in.size(); ++j) {
      const Value& v = required(in, j);
      if (v.is_sequence()) {
        if (i >= v.sequence().size()) {
          throw IndexError("SequenceMap: input " + std::to_string(j) + " has " + std::to_string(v.sequence().size()) +
                           " tensors, fewer than the first input's " + std::to_string(count));
        }
        args.emplace_back(v.sequence()[i]);
      } else {
        args.push_back(v);
      }
    }
    Values out = call(body, std::move(args), scope, cx);
    for (std::size_t k = 0; k < out.size(); ++k) {
      if (!out[k].is_tensor()) throw TypeError("SequenceMap: body output " + std::to_string(k) + " must be a tensor");
      outs[k].push_back(out[k].tensor());
    }
  }
  Values result;
  for (std::size_t k = 0; k < outs.size(); ++k) {
    result.emplace_back(TensorSequence(body.outputs[k].type.elem_type, std::move(outs[k]).persistent()));
  }
  return result;
}

Values run_node(const Node& n, Inputs in, const Scope& scope, Context& cx) {
  const std::string& op = n.op;
  auto one = [](Value v) {
    Values r;
    r.push_back(std::move(v));
    return r;
  };
  if (op == "Identity") return one(std::move(required(in, 0)));
  if (op == "Constant") return one(constant(n, cx.resource));
  if (op == "SequenceEmpty") {
    return one(ops::sequence_empty(
        data_type_from_code(static_cast<std::int32_t>(int_attribute(n, "dtype", 1)), "SequenceEmpty")));
  }
  if (op == "SequenceConstruct") {
    std::vector<Tensor> ts;
    for (std::size_t j = 0; j < in.size(); ++j) ts.push_back(tensor_input(in, j));
    return one(ops::sequence_construct(ts));
  }
  if (op == "SequenceInsert") {
    const Tensor t = tensor_input(in, 1);
    const auto pos = optional_tensor(in, 2);
    return one(ops::sequence_insert(take_sequence(in, 0), t, pos));
  }
  if (op == "SequenceErase") {
    const auto pos = optional_tensor(in, 1);
    return one(ops::sequence_erase(take_sequence(in, 0), pos));
  }
  if (op == "SequenceAt") return one(ops::sequence_at(take_sequence(in, 0), tensor_input(in, 1)));
  if (op == "SequenceLength") return one(ops::sequence_length(take_sequence(in, 0), cx.resource));
  if (op == "SplitToSequence") {
    return one(ops::split_to_sequence(tensor_input(in, 0), optional_tensor(in, 1), int_attribute(n, "axis", 0),
                                      int_attribute(n, "keepdims", 1), cx.resource));
  }
  if (op == "ConcatFromSequence") {
    const TensorSequence s = take_sequence(in, 0);
    std::int64_t total = 0;
    for (const Tensor& t : s) total += static_cast<std::int64_t>(t.size());
    cx.check_elements(Shape{total}, "ConcatFromSequence");
    return one(ops::concat_from_sequence(s, int_attribute(n, "axis", std::nullopt), int_attribute(n, "new_axis", 0),
                                         cx.resource));
  }
  if (op == "SequenceMap") return sequence_map(n, in, scope, cx);
  if (op == "Optional") {
    if (!in.empty() && in[0]) {
      Value v = std::move(*in[0]);
      if (v.is_optional()) throw TypeError("Optional: the input is already an optional");
      const ValueType t = v.is_tensor() ? ValueType::optional(ValueType::Kind::Tensor, v.tensor().dtype())
                                        : ValueType::optional(ValueType::Kind::Sequence, v.sequence().elem_type());
      return one(OptionalValue{std::make_shared<const Value>(std::move(v)), t});
    }
    const auto* a = attribute(n, "type");
    if (a == nullptr) throw Error("Optional: without an input the 'type' attribute is required");
    const ValueType elem = from_proto(a->tp(), "Optional type");
    if (elem.kind == ValueType::Kind::Optional) throw TypeError("Optional: an optional cannot hold an optional");
    return one(OptionalValue{nullptr, ValueType::optional(elem.kind, elem.elem_type)});
  }
  if (op == "OptionalHasElement") {
    bool has = false;
    if (!in.empty() && in[0]) has = !in[0]->is_optional() || in[0]->optional().has_value();
    return one(Tensor::scalar(has, cx.resource));
  }
  if (op == "OptionalGetElement") {
    Value& v = required(in, 0);
    if (!v.is_optional()) return one(std::move(v));
    if (!v.optional().has_value()) throw Error("OptionalGetElement: the optional is empty");
    return one(*v.optional().element);
  }
  if (op == "If") {
    const bool c = bool_scalar(tensor_input(in, 0), "If cond");
    const Graph& branch = subgraph(n, c ? "then_branch" : "else_branch");
    return call(branch, {}, scope, cx);
  }
  if (op == "Loop") return loop(n, in, scope, cx);
  if (op == "Add") {
    check_host(tensor_input(in, 0), "Add: input 0");
    check_host(tensor_input(in, 1), "Add: input 1");
    return one(add(tensor_input(in, 0), tensor_input(in, 1), cx));
  }
  if (op == "Not") {
    Tensor x = tensor_input(in, 0);
    if (x.dtype() != DataType::Bool) throw TypeError("Not: the input must be bool, got " + dtype_name(x.dtype()));
    check_host(x, "Not: input 0");
    in[0].reset();  // at the input's last use x is now its only handle: into_buffer reuses its memory
    TensorBuffer b = std::move(x).into_buffer(cx.resource);
    for (bool& e : b.values<bool>()) e = !e;
    return one(std::move(b).freeze());
  }
  if (op == "Shape") {
    const Tensor& x = tensor_input(in, 0);
    const auto r = static_cast<std::int64_t>(x.rank());
    std::int64_t b = int_attribute(n, "start", 0);
    std::int64_t e = int_attribute(n, "end", r);
    if (b < 0) b += r;
    if (e < 0) e += r;
    b = std::clamp<std::int64_t>(b, 0, r);
    e = std::clamp<std::int64_t>(e, 0, r);
    std::vector<std::int64_t> dims;
    for (std::int64_t i = b; i < e; ++i) dims.push_back(x.shape()[static_cast<std::size_t>(i)]);
    return one(Tensor::from_values<std::int64_t>(Shape{static_cast<std::int64_t>(dims.size())}, dims, cx.resource));
  }
  if (op == "Slice") {
    check_host(tensor_input(in, 0), "Slice: input 0");
    return one(slice(tensor_input(in, 0), in, n, cx));
  }
  if (op == "Unsqueeze") {
    std::vector<std::int64_t> axes;
    if (in.size() >= 2 && in[1]) {
      axes = int_list(tensor_input(in, 1), "Unsqueeze axes");
    } else if (const auto* a = attribute(n, "axes")) {
      axes.assign(a->ints().begin(), a->ints().end());
    } else {
      throw Error("Unsqueeze: axes are required");
    }
    check_host(tensor_input(in, 0), "Unsqueeze: input 0");
    return one(unsqueeze(tensor_input(in, 0), axes, cx.resource));
  }
  throw Error("operator " + op + " is not supported");
}

Values run_graph(const Graph& g, Scope& scope, Context& cx) {
  for (const auto& [slot, v] : g.initializer_slots) {
    auto& cell = scope.slots[static_cast<std::size_t>(slot)];
    if (!cell) cell = v;  // a default, unless the input was fed
  }
  for (const Node& n : g.nodes) {
    Inputs in(n.inputs.size());
    for (std::size_t j = 0; j < n.inputs.size(); ++j) {
      const std::string& name = n.inputs[j];
      if (name.empty()) continue;
      const int slot = n.in_slots[j];
      if (slot >= 0) {
        auto& cell = scope.slots[static_cast<std::size_t>(slot)];
        if (cell) {
          if (n.move_input[j]) {
            in[j] = std::move(cell);
            cell.reset();
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
        throw Error((g.name.empty() ? "" : "graph '" + g.name + "': ") + n.label + ": value '" + name +
                    "' is not available");
      }
      in[j] = *v;
      ++cx.stats.shared_inputs;
    }
    ++cx.stats.nodes;
    Values out;
    try {
      out = run_node(n, std::move(in), scope, cx);
    } catch (...) {
      rethrow_with((g.name.empty() ? "" : "graph '" + g.name + "': ") + n.label + ": ");
    }
    for (std::size_t j = 0; j < n.out_slots.size() && j < out.size(); ++j) {
      if (n.out_slots[j] >= 0) scope.slots[static_cast<std::size_t>(n.out_slots[j])] = std::move(out[j]);
    }
  }
  Values result;
  for (std::size_t i = 0; i < g.outputs.size(); ++i) {
    const int slot = g.output_slots[i];
    if (slot >= 0 && scope.slots[static_cast<std::size_t>(slot)]) {
      result.push_back(std::move(*scope.slots[static_cast<std::size_t>(slot)]));
      scope.slots[static_cast<std::size_t>(slot)].reset();
    } else if (const Value* v = scope.parent != nullptr ? scope.parent->find(g.outputs[i].name) : nullptr) {
      result.push_back(*v);
    } else {
      throw Error("graph '" + g.name + "': output '" + g.outputs[i].name + "' was not produced");
    }
  }
  return result;
}

}  // namespace

Model Model::from_proto(const ::onnx::ModelProto& proto, std::string_view name, std::pmr::memory_resource* resource) {
  auto owned = std::make_shared<const ::onnx::ModelProto>(proto);
  const std::string n(name);
  try {
    return Model(compile(owned->graph(), owned, n, true, resource), n);
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw Error(n + ": " + e.what());
  }
}

Model Model::parse(std::span<const std::byte> bytes, std::string_view name, std::pmr::memory_resource* resource) {
  if (bytes.size() > static_cast<std::size_t>(INT_MAX)) throw Error(std::string(name) + ": model over 2 GiB");
  ::onnx::ModelProto p;
  if (!p.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    throw Error(std::string(name) + ": malformed ModelProto");
  }
  return from_proto(p, name, resource);
}

Model Model::load(const std::filesystem::path& file, std::pmr::memory_resource* resource) {
  const std::string bytes = read_file(file);
  return parse(std::as_bytes(std::span<const char>(bytes.data(), bytes.size())), file.string(), resource);
}

const std::vector<ValueInfo>& Model::inputs() const noexcept { return graph_->inputs; }
const std::vector<ValueInfo>& Model::outputs() const noexcept { return graph_->outputs; }

std::vector<Value> Session::run(std::vector<std::pair<std::string, Value>> feeds) {
  stats_ = {};
  const Graph& g = *model_.graph_;
  Scope scope(g);
  for (auto& feed : feeds) {
    const std::string& name = feed.first;
    Value& v = feed.second;
    auto it = std::find_if(g.inputs.begin(), g.inputs.end(), [&](const ValueInfo& i) { return i.name == name; });
    if (it == g.inputs.end()) throw Error(model_.name() + ": '" + name + "' is not an input of the graph");
    scope.slots[static_cast<std::size_t>(g.input_slots[static_cast<std::size_t>(it - g.inputs.begin())])] =
        std::move(v);
  }
  for (std::size_t i = 0; i < g.inputs.size(); ++i) {
    if (!g.inputs[i].has_default && !scope.slots[static_cast<std::size_t>(g.input_slots[i])]) {
      throw Error(model_.name() + ": input '" + g.inputs[i].name + "' (" + to_string(g.inputs[i].type) +
                  ") was not given");
    }
  }
  try {
    Context cx{stats_, options_,
               options_.memory_resource != nullptr ? options_.memory_resource : default_memory_resource()};
    Values out = run_graph(g, scope, cx);
    return std::vector<Value>(std::make_move_iterator(out.begin()), std::make_move_iterator(out.end()));
  } catch (...) {
    rethrow_with(model_.name() + ": ");
  }
}

std::vector<Value> Session::run(std::vector<Value> inputs) {
  const auto& decl = model_.inputs();
  if (inputs.size() > decl.size()) {
    throw Error(model_.name() + ": " + std::to_string(inputs.size()) + " inputs given, the graph has " +
                std::to_string(decl.size()));
  }
  std::vector<std::pair<std::string, Value>> feeds;
  for (std::size_t i = 0; i < inputs.size(); ++i) feeds.emplace_back(decl[i].name, std::move(inputs[i]));
  return run(std::move(feeds));
}

}  // namespace tseq::onnx
