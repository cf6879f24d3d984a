// Loading a model: every check that can be made without running it, the execution order
// (linear time), last uses, value slots, and the types of every graph and subgraph output.

#include <algorithm>
#include <chrono>
#include <limits>
#include <new>
#include <queue>

#include "kernel_support.hpp"
#include "registry.hpp"
#include "tseq/onnx/proto.hpp"
#include "wire.hpp"

namespace tseq::onnx::detail {

namespace {

using ::onnx::AttributeProto;

// Where a graph sits, for messages: a chain up to the model, turned into a string only when a
// message is thrown (a long name times many nodes or subgraphs must cost nothing otherwise).
struct Ctx {
  const Ctx* parent = nullptr;
  std::string_view model;      // the top graph: the model's name
  const Node* node = nullptr;  // a subgraph: the node and attribute holding it
  std::string_view attribute;
  std::string_view graph;  // the graph's own name

  [[nodiscard]] std::string str() const {
    std::string r = parent == nullptr
                        ? escape_name(model, 1024)
                        : parent->str() + ": " + node->label() + " attribute '" + escape_name(attribute) + "'";
    if (!graph.empty()) r += " graph '" + escape_name(graph) + "'";
    return r;
  }
  [[noreturn]] void fail(const std::string& what) const { throw Error(str() + ": " + what); }
  [[noreturn]] void fail(const Node& n, const std::string& what) const {
    throw Error(str() + ": " + n.label() + ": " + what);
  }
};

// One load: the limits and what has been spent of them.
struct Loader {
  std::shared_ptr<const ::onnx::ModelProto> model;
  int opset;
  const LoadOptions& options;
  std::chrono::steady_clock::time_point deadline;
  bool timed;
  std::int64_t nodes = 0;  // compiled so far, every graph
  std::int64_t bytes = 0;  // the parse estimate, initializers and the graph so far

  void name(std::string_view s, const Ctx& c, const char* what) const {
    if (static_cast<std::int64_t>(s.size()) > options.max_name_bytes) {
      c.fail(std::string(what) + " '" + escape_name(s) + "' has " + std::to_string(s.size()) +
             " bytes, over LoadOptions::max_name_bytes of " + std::to_string(options.max_name_bytes));
    }
  }
  void charge(std::int64_t b, const Ctx& c) {
    bytes = b > std::numeric_limits<std::int64_t>::max() - bytes ? std::numeric_limits<std::int64_t>::max() : bytes + b;
    if (bytes > options.max_bytes) {
      c.fail("loading would take about " + std::to_string(bytes) + " bytes, over LoadOptions::max_bytes of " +
             std::to_string(options.max_bytes));
    }
  }
  void check_time(const Ctx& c) const {
    if (timed && std::chrono::steady_clock::now() > deadline) {
      const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(options.time_limit).count();
      c.fail("loading took longer than its time limit of " +
             (ms > 0 ? std::to_string(ms) + " ms" : std::to_string(options.time_limit.count()) + " ns") +
             " (LoadOptions::time_limit)");
    }
  }
  // Counts one node against max_nodes; the clock is read every 256 nodes.
  void count_node(const Ctx& c) {
    if (++nodes > options.max_nodes) {
      c.fail("the model has more than " + std::to_string(options.max_nodes) + " nodes (LoadOptions::max_nodes)");
    }
    if ((nodes & 255) == 0) check_time(c);
  }
};

// What a node's graph-level bookkeeping costs, for LoadOptions::max_bytes: the Node, its
// vectors and the slot-map entries of its outputs.
std::int64_t node_bytes(const ::onnx::NodeProto& np) {
  return static_cast<std::int64_t>(sizeof(Node)) +
         std::int64_t{48} * (std::int64_t{np.input_size()} + std::int64_t{np.output_size()}) + 64;
}

// Number of inputs a node gives: trailing "" (omitted optional inputs) past the required
// ones do not count.
int given_inputs(const ::onnx::NodeProto& np, int required) {
  int k = np.input_size();
  while (k > required && np.input(k - 1).empty()) --k;
  return k;
}

// The type ONNX gives each attribute tseq reads; an attribute of another type (or of none) is
// refused at load, as ONNX's checker does, instead of being read as a default.
AttributeProto::AttributeType expected_type(std::string_view name) {
  static const std::pair<std::string_view, AttributeProto::AttributeType> table[] = {
      {"axis", AttributeProto::INT},
      {"keepdims", AttributeProto::INT},
      {"new_axis", AttributeProto::INT},
      {"dtype", AttributeProto::INT},
      {"start", AttributeProto::INT},
      {"end", AttributeProto::INT},
      {"starts", AttributeProto::INTS},
      {"ends", AttributeProto::INTS},
      {"axes", AttributeProto::INTS},
      {"value", AttributeProto::TENSOR},
      {"value_float", AttributeProto::FLOAT},
      {"value_floats", AttributeProto::FLOATS},
      {"value_int", AttributeProto::INT},
      {"value_ints", AttributeProto::INTS},
      {"value_string", AttributeProto::STRING},
      {"value_strings", AttributeProto::STRINGS},
      {"type", AttributeProto::TYPE_PROTO},
      {"then_branch", AttributeProto::GRAPH},
      {"else_branch", AttributeProto::GRAPH},
      {"body", AttributeProto::GRAPH},
  };
  for (const auto& [n, t] : table) {
    if (n == name) return t;
  }
  return AttributeProto::UNDEFINED;  // not read by tseq
}

// Attribute names are unique in a node, and those tseq reads have ONNX's type. O(a log a).
void check_attributes(const Node& n, const ::onnx::NodeProto& np, const Ctx& c, const Loader& L) {
  std::vector<std::string_view> names;
  names.reserve(static_cast<std::size_t>(np.attribute_size()));
  for (const auto& a : np.attribute()) {
    L.name(a.name(), c, "attribute");
    names.push_back(a.name());
    const auto want = expected_type(a.name());
    if (want != AttributeProto::UNDEFINED && a.type() != want) {
      c.fail(n, "attribute '" + escape_name(a.name()) + "' has type " +
                    std::string(AttributeProto::AttributeType_Name(a.type())) + "; ONNX gives it type " +
                    std::string(AttributeProto::AttributeType_Name(want)));
    }
    if (a.type() == AttributeProto::GRAPHS) c.fail(n, "graph-list attributes are not supported");
  }
  std::sort(names.begin(), names.end());
  const auto dup = std::adjacent_find(names.begin(), names.end());
  if (dup != names.end()) c.fail(n, "attribute '" + escape_name(*dup) + "' is given twice");
}

void check_node(const Node& n, const ::onnx::NodeProto& np, const Ctx& c) {
  const OpInfo& op = *n.info;
  const int given = given_inputs(np, op.min_inputs);
  if (given < op.min_inputs || (op.max_inputs >= 0 && given > op.max_inputs)) {
    const std::string range = op.max_inputs < 0 ? "at least " + std::to_string(op.min_inputs)
                              : op.min_inputs == op.max_inputs
                                  ? std::to_string(op.min_inputs)
                                  : std::to_string(op.min_inputs) + " to " + std::to_string(op.max_inputs);
    c.fail(n, "takes " + range + " inputs at opset " + std::to_string(n.opset) + ", the node gives " +
                  std::to_string(given));
  }
  for (int j = 0; j < op.min_inputs; ++j) {
    const bool may_be_empty =
        std::find(op.optional_inputs.begin(), op.optional_inputs.end(), j) != op.optional_inputs.end();
    if (!may_be_empty && np.input(j).empty()) c.fail(n, "input " + std::to_string(j) + " is required");
  }
  for (std::string_view a : op.required_attributes) {
    if (attribute(n, a) == nullptr) c.fail(n, "attribute '" + std::string(a) + "' is required");
  }
  for (std::string_view g : op.required_graphs) {
    if (!n.subgraphs.contains(std::string(g))) c.fail(n, "graph attribute '" + std::string(g) + "' is required");
  }
  if (np.output_size() == 0 || np.output(0).empty()) c.fail(n, "the node has no output");
  // The operator's own checks, then its output count.
  if (op.check != nullptr) op.check(CheckContext{n, np, given, [&] { return c.str() + ": " + n.label(); }});
  const auto outs = static_cast<std::size_t>(np.output_size());
  if (op.one_output && outs != 1) {
    c.fail(n, "has " + std::to_string(outs) + " outputs; " + std::string(n.op) + " has one");
  }
}

std::shared_ptr<Graph> compile(const ::onnx::GraphProto& gp, Loader& L, const Ctx& c, bool top, int depth);

// Who defines a value of a graph: an input, an initializer, or node k (>= 0).
constexpr int kByInput = -1;
constexpr int kByInitializer = -2;

// The passes of compile(), in order, over one graph.
struct Compiler {
  const ::onnx::GraphProto& gp;
  Loader& L;
  const Ctx& c;
  bool top;
  int depth;
  std::shared_ptr<Graph> g = std::make_shared<Graph>();
  std::vector<int> producer;  // by slot: kByInput, kByInitializer or the node (index into pending)
  std::vector<Node> pending;  // nodes in the file's order
  std::vector<std::pair<int, Value>> initializers;

  Compiler(const ::onnx::GraphProto& p, Loader& l, const Ctx& x, bool t, int d) : gp(p), L(l), c(x), top(t), depth(d) {}

  [[nodiscard]] std::string by(int who, std::string_view name) const {
    if (who == kByInput) return "input '" + escape_name(name) + "'";
    if (who == kByInitializer) return "initializer '" + escape_name(name) + "'";
    return pending[static_cast<std::size_t>(who)].label();
  }
  // One producer per name; the value gets a slot of the run's scope.
  int define(std::string_view name, int who) {
    auto [it, fresh] = g->slot_of.try_emplace(name, static_cast<int>(producer.size()));
    if (!fresh) {
      c.fail(by(who, name) + " defines '" + escape_name(name) + "', which " +
             by(producer[static_cast<std::size_t>(it->second)], name) + " already defines");
    }
    producer.push_back(who);
    return it->second;
  }
  [[nodiscard]] int slot(std::string_view name) const {
    auto it = g->slot_of.find(name);
    return it == g->slot_of.end() ? -1 : it->second;
  }

  // Initializers, inputs and outputs, with their types.
  void declare_values() {
    g->model = L.model;
    g->name = gp.name();
    if (gp.sparse_initializer_size() > 0) c.fail("sparse initializers are not supported");
    std::unordered_map<int, std::size_t> initializer_at;  // slot -> index in `initializers`
    std::size_t seen = 0;
    for (const auto& t : gp.initializer()) {
      if ((++seen & 255) == 0) L.check_time(c);
      L.name(t.name(), c, "initializer");
      const int s = define(t.name(), kByInitializer);
      initializer_at.emplace(s, initializers.size());
      Tensor v = from_proto(t, c.str() + ": initializer '" + escape_name(t.name()) + "'", L.options.memory_resource);
      std::size_t b = v.size() * dtype_size(v.dtype()) + tseq::detail::TensorStorage::header_bytes();
      for (const auto& x : t.string_data()) b += x.size();  // a string tensor's characters
      L.charge(static_cast<std::int64_t>(b), c);
      initializers.emplace_back(s, std::move(v));
    }
    for (const auto& vi : gp.input()) {
      if ((++seen & 255) == 0) L.check_time(c);
      L.name(vi.name(), c, "input");
      const int s = slot(vi.name());
      const bool has_default = s >= 0 && producer[static_cast<std::size_t>(s)] == kByInitializer;
      ValueInfo info{vi.name(), ValueType{}, has_default};
      if (!has_default) define(vi.name(), kByInput);  // an input may name its default
      const bool typed = vi.has_type();
      if (typed) {
        info.type = from_proto(vi.type(), c.str() + ": input '" + escape_name(vi.name()) + "'");
        if (has_default) {
          const Value& init = initializers[initializer_at.at(s)].second;
          if (!(type_of(init) == info.type)) {
            throw TypeError(c.str() + ": input '" + escape_name(vi.name()) + "' is declared " + to_string(info.type) +
                            " but its initializer is " + to_string(type_of(init)));
          }
        }
      } else if (top) {
        c.fail("input '" + escape_name(vi.name()) + "' has no type");
      }
      g->inputs.push_back(std::move(info));
      g->input_typed.push_back(typed);
    }
    for (const auto& vi : gp.output()) {
      if ((++seen & 255) == 0) L.check_time(c);
      L.name(vi.name(), c, "output");
      ValueInfo info{vi.name(), ValueType{}, false};
      if (vi.has_type()) info.type = from_proto(vi.type(), c.str() + ": output '" + escape_name(vi.name()) + "'");
      g->outputs.push_back(std::move(info));
      g->output_typed.push_back(vi.has_type());
    }
  }

  // Nodes, resolved against the kernel table and checked, with their subgraphs compiled.
  void resolve_nodes() {
    for (int k = 0; k < gp.node_size(); ++k) {
      const auto& np = gp.node(k);
      L.count_node(c);
      L.charge(node_bytes(np), c);
      L.name(np.name(), c, "node");
      L.name(np.op_type(), c, "operator");
      L.name(np.domain(), c, "domain");
      Node n;
      n.proto = &np;
      n.index = k;
      n.op = np.op_type();
      n.opset = L.opset;
      if (!np.domain().empty() && np.domain() != "ai.onnx") {
        c.fail(n, "domain '" + escape_name(np.domain()) + "' is not supported (only the default ONNX domain)");
      }
      n.info = find_op(n.op, L.opset);
      if (n.info == nullptr) {
        c.fail(n, "operator " + escape_name(n.op) +
                      (known_op(n.op) ? " is not available at the model's opset " + std::to_string(L.opset)
                                      : " is not supported by tseq's executor"));
      }
      n.inputs.reserve(static_cast<std::size_t>(np.input_size()));
      for (const auto& in : np.input()) {
        L.name(in, c, "value");
        n.inputs.emplace_back(in);
      }
      n.outputs.reserve(static_cast<std::size_t>(np.output_size()));
      for (const auto& out : np.output()) {
        L.name(out, c, "value");
        n.outputs.emplace_back(out);
      }
      check_attributes(n, np, c, L);
      for (const auto& a : np.attribute()) {
        if (a.type() != AttributeProto::GRAPH) continue;
        if (depth + 1 > max_graph_depth) {
          c.fail(n, "attribute '" + escape_name(a.name()) + "': subgraphs nest deeper than " +
                        std::to_string(max_graph_depth) + " levels");
        }
        const Ctx sub{&c, {}, &n, a.name(), a.g().name()};
        n.subgraphs[a.name()] = compile(a.g(), L, sub, false, depth + 1);
      }
      check_node(n, np, c);
      pending.push_back(std::move(n));
      for (const auto& o : pending.back().outputs) {
        if (!o.empty()) define(o, k);
      }
    }
  }

  // The names each node reads: its inputs, and what its subgraphs take from this graph.
  template <class F>
  void for_each_read(const Node& n, F&& f) const {
    for (const auto& in : n.inputs) {
      if (!in.empty()) f(in);
    }
    for (const auto& [_, sg] : n.subgraphs) {
      for (const auto& name : sg->free_names) f(name);
    }
  }

  // Names read here but defined nowhere here come from enclosing graphs.
  void find_free_names() {
    for (const Node& n : pending) {
      for_each_read(n, [&](std::string_view r) {
        if (slot(r) < 0) g->free_names.insert(r);
      });
    }
    for (const auto& vi : gp.output()) {
      if (slot(vi.name()) < 0) g->free_names.insert(vi.name());
    }
    if (top && !g->free_names.empty()) {
      c.fail("value '" + escape_name(*g->free_names.begin()) +
             "' is used but no node, input or initializer provides it");
    }
  }

  // Execution order: Kahn's algorithm over node-to-node dependencies, lowest index first (the
  // file's order when it is already valid). O(E log V).
  void order_nodes() {
    const std::size_t count = pending.size();
    std::vector<std::vector<std::size_t>> dependents(count);
    std::vector<std::size_t> waiting(count, 0);
    std::vector<std::size_t> deps;
    for (std::size_t k = 0; k < count; ++k) {
      deps.clear();
      for_each_read(pending[k], [&](std::string_view r) {
        const int s = slot(r);
        if (s >= 0 && producer[static_cast<std::size_t>(s)] >= 0) {
          deps.push_back(static_cast<std::size_t>(producer[static_cast<std::size_t>(s)]));
        }
      });
      std::sort(deps.begin(), deps.end());
      deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
      for (std::size_t d : deps) {
        if (d == k) c.fail(pending[k].label() + " reads its own output (a cycle)");
        dependents[d].push_back(k);
      }
      waiting[k] = deps.size();
      if ((k & 255) == 255) L.check_time(c);
    }
    std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> ready;
    for (std::size_t k = 0; k < count; ++k) {
      if (waiting[k] == 0) ready.push(k);
    }
    std::vector<std::size_t> order;
    order.reserve(count);
    while (!ready.empty()) {
      const std::size_t k = ready.top();
      ready.pop();
      order.push_back(k);
      for (std::size_t d : dependents[k]) {
        if (--waiting[d] == 0) ready.push(d);
      }
    }
    if (order.size() != count) {
      for (std::size_t k = 0; k < count; ++k) {
        if (waiting[k] == 0) continue;
        for_each_read(pending[k], [&](std::string_view r) {
          const int s = slot(r);
          const int p = s >= 0 ? producer[static_cast<std::size_t>(s)] : -1;
          if (p >= 0 && waiting[static_cast<std::size_t>(p)] != 0) {
            c.fail(pending[k].label() + " uses '" + escape_name(r) + "', which " +
                   pending[static_cast<std::size_t>(p)].label() + " produces only after it: the graph has a cycle");
          }
        });
      }
    }
    g->nodes.reserve(count);
    for (std::size_t k : order) g->nodes.push_back(std::move(pending[k]));
  }

  // Last uses: a value defined in this graph may be moved into the last node that reads it,
  // unless it is a graph output or that node's subgraphs still read it. O(reads).
  void mark_last_uses() {
    const std::size_t slots = g->slot_of.size();
    std::vector<std::size_t> last(slots, 0);
    std::vector<bool> is_output(slots, false);
    for (const auto& o : g->outputs) {
      if (const int s = slot(o.name); s >= 0) is_output[static_cast<std::size_t>(s)] = true;
    }
    for (std::size_t k = 0; k < g->nodes.size(); ++k) {
      for_each_read(g->nodes[k], [&](std::string_view r) {
        if (const int s = slot(r); s >= 0) last[static_cast<std::size_t>(s)] = k;
      });
    }
    // Marks, by slot, of what node k's subgraphs read and of inputs seen later in node k
    // (node index + 1; 0: none), so that no per-node set is built.
    std::vector<std::size_t> sub_read(slots, 0);
    std::vector<std::size_t> seen(slots, 0);
    for (std::size_t k = 0; k < g->nodes.size(); ++k) {
      Node& n = g->nodes[k];
      for (const auto& [_, sg] : n.subgraphs) {
        for (const auto& f : sg->free_names) {
          if (const int s = slot(f); s >= 0) sub_read[static_cast<std::size_t>(s)] = k + 1;
        }
      }
      n.move_input.assign(n.inputs.size(), false);
      for (std::size_t j = n.inputs.size(); j-- > 0;) {  // backwards: a later mention takes the move
        const int s = n.inputs[j].empty() ? -1 : slot(n.inputs[j]);
        if (s < 0) continue;
        const auto u = static_cast<std::size_t>(s);
        const bool later_in_same_node = seen[u] == k + 1;
        seen[u] = k + 1;
        n.move_input[j] = !later_in_same_node && !is_output[u] && sub_read[u] != k + 1 && last[u] == k;
      }
    }
  }

  // Slots of inputs, initializers, node inputs and outputs and graph outputs, and which outputs
  // may be moved out of their slot.
  void assign_slots() {
    for (const auto& i : g->inputs) g->input_slots.push_back(slot(i.name));
    g->initializer_slots = std::move(initializers);
    for (Node& n : g->nodes) {
      n.out_slots.reserve(n.outputs.size());
      for (const auto& o : n.outputs) n.out_slots.push_back(o.empty() ? -1 : slot(o));
      n.in_slots.reserve(n.inputs.size());
      for (const auto& in : n.inputs) n.in_slots.push_back(in.empty() ? -1 : slot(in));
    }
    for (const auto& o : g->outputs) g->output_slots.push_back(slot(o.name));
    // Linear: walk the outputs backwards, remembering the slots already seen.
    g->output_move.assign(g->outputs.size(), false);
    std::vector<bool> named_later(g->slot_of.size(), false);
    for (std::size_t i = g->outputs.size(); i-- > 0;) {
      const int s = g->output_slots[i];
      if (s < 0) continue;
      g->output_move[i] = !named_later[static_cast<std::size_t>(s)];
      named_later[static_cast<std::size_t>(s)] = true;
    }
  }
};

std::shared_ptr<Graph> compile(const ::onnx::GraphProto& gp, Loader& L, const Ctx& c, bool top, int depth) {
  L.name(gp.name(), c, "graph");
  Compiler p{gp, L, c, top, depth};
  p.declare_values();
  p.resolve_nodes();
  p.find_free_names();
  p.order_nodes();
  p.mark_last_uses();
  p.assign_slots();
  return std::move(p.g);
}

// ---- types ---------------------------------------------------------------------------------------

struct TypeScope {
  std::unordered_map<std::string_view, ValueType> types;
  const TypeScope* parent = nullptr;
  MaybeType find(std::string_view name) const {
    for (const TypeScope* s = this; s != nullptr; s = s->parent) {
      auto it = s->types.find(name);
      if (it != s->types.end()) return it->second;
    }
    return std::nullopt;
  }
};

void infer(Graph& g, const std::vector<MaybeType>& hints, const TypeScope* outer, const Ctx& c, const Loader& L);

// The types of node n's outputs, from its inputs' types (and its subgraphs', inferred first),
// by the operator's record.
std::vector<MaybeType> output_types(Node& n, const std::vector<MaybeType>& in, const TypeScope& scope, const Ctx& c,
                                    const Loader& L) {
  // Infers subgraph `attr` of n, with its inputs' types from `hints` where undeclared.
  auto infer_sub = [&](const char* attr, const std::vector<MaybeType>& hints) -> const Graph& {
    Graph& sg = *n.subgraphs.at(attr);
    const Ctx sub{&c, {}, &n, attr, sg.name};
    infer(sg, hints, &scope, sub, L);
    return sg;
  };
  std::vector<MaybeType> r = n.info->infer(InferContext{n, in, infer_sub, [&] { return c.str() + ": " + n.label(); }});
  r.resize(n.outputs.size());
  return r;
}

// Gives every output of g a type: declared, else inferred from the graph (its inputs' types
// from `hints` where undeclared). Throws Error naming an output it cannot type.
void infer(Graph& g, const std::vector<MaybeType>& hints, const TypeScope* outer, const Ctx& c, const Loader& L) {
  TypeScope scope;
  scope.parent = outer;
  for (std::size_t i = 0; i < g.inputs.size(); ++i) {
    if (!g.input_typed[i] && i < hints.size() && hints[i]) {
      g.inputs[i].type = *hints[i];
      g.input_typed[i] = true;
    }
    if (g.input_typed[i]) scope.types[g.inputs[i].name] = g.inputs[i].type;
  }
  std::vector<std::string_view> name_of(g.slot_of.size());
  for (const auto& [name, s] : g.slot_of) name_of[static_cast<std::size_t>(s)] = name;
  for (const auto& [slot, v] : g.initializer_slots) {
    scope.types.try_emplace(name_of[static_cast<std::size_t>(slot)], type_of(v));
  }
  std::vector<MaybeType> in;
  for (Node& n : g.nodes) {
    if ((n.index & 255) == 255) L.check_time(c);
    in.clear();
    for (const auto& name : n.inputs) in.push_back(name.empty() ? MaybeType{} : scope.find(name));
    const auto out = output_types(n, in, scope, c, L);
    for (std::size_t k = 0; k < n.outputs.size(); ++k) {
      if (!n.outputs[k].empty() && out[k] && is_valid(out[k]->dtype)) scope.types[n.outputs[k]] = *out[k];
    }
  }
  for (std::size_t i = 0; i < g.outputs.size(); ++i) {
    if (g.output_typed[i]) continue;
    if (auto t = scope.find(g.outputs[i].name)) {
      g.outputs[i].type = *t;
      g.output_typed[i] = true;
    } else {
      c.fail("output '" + escape_name(g.outputs[i].name) +
             "' has no declared type and tseq cannot infer one (declare it in the graph's outputs)");
    }
  }
}

int default_opset(const ::onnx::ModelProto& p, const std::string& name) {
  bool found = false;
  std::int64_t v = 0;
  for (const auto& o : p.opset_import()) {
    if (o.domain().empty() || o.domain() == "ai.onnx") {
      found = true;
      v = o.version();
    }
  }
  if (!found) throw Error(name + ": the model imports no opset of the default ONNX domain (opset_import)");
  if (v < kMinOpset || v > kMaxOpset) {
    throw Error(name + ": opset " + std::to_string(v) + " of the default ONNX domain is not supported (tseq loads " +
                std::to_string(kMinOpset) + " to " + std::to_string(kMaxOpset) + ")");
  }
  return static_cast<int>(v);
}

}  // namespace

// The one place a Model is made.
struct ModelAccess {
  static Model make(std::shared_ptr<const Graph> g, std::string name, int opset) {
    return Model(std::move(g), std::move(name), opset);
  }
};

namespace {

// Loads a parsed model (kept by the Graph: every name is a view into it). `spent`: the
// pre-parse estimate of what protobuf took, counted against options.max_bytes.
Model load_model(std::shared_ptr<const ::onnx::ModelProto> proto, const std::string& name, const LoadOptions& options,
                 std::chrono::steady_clock::time_point start, std::int64_t spent) {
  const std::string shown = escape_name(name, 1024);
  const int opset = default_opset(*proto, shown);
  const bool timed = options.time_limit.count() > 0;
  const auto deadline =
      !timed || options.time_limit > std::chrono::steady_clock::time_point::max() - start
          ? std::chrono::steady_clock::time_point::max()
          : start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(options.time_limit);
  const ::onnx::GraphProto& graph = proto->graph();
  Loader loader{std::move(proto), opset, options, deadline, timed, 0, spent};
  const Ctx top{nullptr, name, nullptr, {}, graph.name()};
  loader.check_time(top);
  std::shared_ptr<Graph> g = compile(graph, loader, top, true, 0);
  infer(*g, {}, nullptr, top, loader);
  return ModelAccess::make(std::move(g), name, opset);
}

}  // namespace

}  // namespace tseq::onnx::detail

namespace tseq::onnx {

LoadOptions LoadOptions::untrusted() {
  LoadOptions o;
  o.max_file_bytes = std::int64_t{1} << 30;
  o.max_bytes = std::int64_t{4} << 30;
  o.max_nodes = 1'000'000;
  o.max_name_bytes = 4096;
  o.time_limit = std::chrono::seconds(60);
  return o;
}

namespace {

// Every failure of a load is a tseq::Error (or subclass) naming the model.
template <class F>
Model guarded(const std::string& name, F&& f) {
  try {
    return f();
  } catch (const Error&) {
    throw;
  } catch (const std::bad_alloc&) {
    throw Error(escape_name(name, 1024) +
                ": out of memory while loading (std::bad_alloc); LoadOptions bound what loading may take");
  } catch (const std::exception& e) {
    throw Error(escape_name(name, 1024) + ": " + e.what());
  }
}

}  // namespace

Model from_proto(const ::onnx::ModelProto& proto, std::string_view name, const LoadOptions& options) {
  const std::string n(name);
  return guarded(n, [&] {
    const auto start = std::chrono::steady_clock::now();
    return detail::load_model(std::make_shared<const ::onnx::ModelProto>(proto), n, options, start, 0);
  });
}

Model from_proto(const ::onnx::ModelProto& proto, std::string_view name, std::pmr::memory_resource* resource) {
  LoadOptions o;
  o.memory_resource = resource;
  return from_proto(proto, name, o);
}

namespace {

Model parse_model(std::span<const std::byte> bytes, const std::string& n, const LoadOptions& options,
                  std::chrono::steady_clock::time_point start) {
  const std::string shown = escape_name(n, 1024);
  const auto limit = std::min<std::int64_t>(options.max_file_bytes, std::numeric_limits<std::int32_t>::max());
  if (static_cast<std::uint64_t>(bytes.size()) > static_cast<std::uint64_t>(std::max<std::int64_t>(limit, 0))) {
    throw Error(shown + ": " + std::to_string(bytes.size()) + " bytes, over LoadOptions::max_file_bytes of " +
                std::to_string(options.max_file_bytes) + " (protobuf parses at most 2 GiB - 1)");
  }
  // Before protobuf allocates anything: what parsing would take, and how many nodes there are.
  const detail::WireCost cost = detail::walk(bytes, ::onnx::ModelProto::descriptor(), ::onnx::NodeProto::descriptor(),
                                             options.max_bytes, shown, "LoadOptions::max_bytes");
  if (cost.counted > options.max_nodes) {
    throw Error(shown + ": the model has " + std::to_string(cost.counted) + " nodes, over LoadOptions::max_nodes of " +
                std::to_string(options.max_nodes));
  }
  auto proto = std::make_shared<::onnx::ModelProto>();
  if (!proto->ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    throw Error(shown + ": malformed ModelProto");
  return detail::load_model(std::move(proto), n, options, start, cost.bytes);
}

}  // namespace

Model Model::parse(std::span<const std::byte> bytes, std::string_view name, const LoadOptions& options) {
  const std::string n(name);
  return guarded(n, [&] { return parse_model(bytes, n, options, std::chrono::steady_clock::now()); });
}

Model Model::parse(std::span<const std::byte> bytes, std::string_view name, std::pmr::memory_resource* resource) {
  LoadOptions o;
  o.memory_resource = resource;
  return parse(bytes, name, o);
}

Model Model::load(const std::filesystem::path& file, const LoadOptions& options) {
  const std::string n = file.string();
  return guarded(n, [&] {
    const auto start = std::chrono::steady_clock::now();
    const std::string bytes = read_file(file, options.max_file_bytes);
    return parse_model(std::as_bytes(std::span<const char>(bytes.data(), bytes.size())), n, options, start);
  });
}

Model Model::load(const std::filesystem::path& file, std::pmr::memory_resource* resource) {
  LoadOptions o;
  o.memory_resource = resource;
  return load(file, o);
}

}  // namespace tseq::onnx
