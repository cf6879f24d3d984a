// Loading a model: every check that can be made without running it, the execution order
// (linear time), last uses, value slots, and the types of every graph and subgraph output.

#include <algorithm>
#include <limits>
#include <queue>

#include "graph.hpp"
#include "tseq/onnx/proto.hpp"

namespace tseq::onnx::detail {

namespace {

struct Loader {
  std::shared_ptr<const ::onnx::ModelProto> model;
  int opset;
  std::pmr::memory_resource* resource;
};

// Number of inputs a node gives: trailing "" (omitted optional inputs) past the required
// ones do not count.
int given_inputs(const ::onnx::NodeProto& np, int required) {
  int k = np.input_size();
  while (k > required && np.input(k - 1).empty()) --k;
  return k;
}

void check_node(const Node& n, const ::onnx::NodeProto& np, const std::string& ctx) {
  const OpInfo& op = *n.info;
  const std::string at = ctx + ": " + n.label + ": ";
  const int given = given_inputs(np, op.min_inputs);
  if (given < op.min_inputs || (op.max_inputs >= 0 && given > op.max_inputs)) {
    const std::string range = op.max_inputs < 0 ? "at least " + std::to_string(op.min_inputs)
                              : op.min_inputs == op.max_inputs
                                  ? std::to_string(op.min_inputs)
                                  : std::to_string(op.min_inputs) + " to " + std::to_string(op.max_inputs);
    throw Error(at + "takes " + range + " inputs at opset " + std::to_string(n.opset) + ", the node gives " +
                std::to_string(given));
  }
  for (int j = 0; j < op.min_inputs; ++j) {
    const bool may_be_empty =
        std::find(op.optional_inputs.begin(), op.optional_inputs.end(), j) != op.optional_inputs.end();
    if (!may_be_empty && np.input(j).empty()) throw Error(at + "input " + std::to_string(j) + " is required");
  }
  for (std::string_view a : op.required_attributes) {
    if (attribute(n, a) == nullptr) throw Error(at + "attribute '" + std::string(a) + "' is required");
  }
  for (std::string_view g : op.required_graphs) {
    if (!n.subgraphs.contains(std::string(g))) {
      throw Error(at + "graph attribute '" + std::string(g) + "' is required");
    }
  }
  if (np.output_size() == 0 || np.output(0).empty()) throw Error(at + "the node has no output");
  if (n.op == "Constant") {
    int values = 0;
    for (const auto& a : np.attribute()) {
      if (a.name() == "sparse_value") throw Error(at + "sparse_value is not supported (sparse tensors)");
      if (a.name().rfind("value", 0) == 0) ++values;
    }
    if (values != 1) {
      throw Error(at +
                  "needs exactly one value attribute (value, value_float(s), value_int(s), value_string(s)), got " +
                  std::to_string(values));
    }
  }
  if (n.op == "SequenceEmpty") {
    try {
      (void)sequence_empty_dtype(n);
    } catch (const TypeError& e) {
      throw TypeError(at + e.what());
    }
  }
  auto body_arity = [&](const char* graph, std::size_t inputs, std::size_t outputs, const char* why) {
    const Graph& b = *n.subgraphs.at(graph);
    if (b.inputs.size() != inputs || b.outputs.size() != outputs) {
      throw Error(at + "its '" + graph + "' graph has " + std::to_string(b.inputs.size()) + " inputs and " +
                  std::to_string(b.outputs.size()) + " outputs; " + why + " it needs " + std::to_string(inputs) +
                  " and " + std::to_string(outputs));
    }
  };
  const auto outs = static_cast<std::size_t>(np.output_size());
  if (n.op == "Loop") {
    const auto carried = static_cast<std::size_t>(std::max(given, 2) - 2);
    if (outs < carried) throw Error(at + "has " + std::to_string(carried) + " loop-carried inputs but fewer outputs");
    body_arity("body", 2 + carried, 1 + outs, "with its loop-carried values and outputs");
  } else if (n.op == "If") {
    const Graph& t = *n.subgraphs.at("then_branch");
    const Graph& e = *n.subgraphs.at("else_branch");
    if (t.outputs.size() != outs || e.outputs.size() != outs) {
      throw Error(at + "its branches have " + std::to_string(t.outputs.size()) + " and " +
                  std::to_string(e.outputs.size()) + " outputs; the node has " + std::to_string(outs));
    }
  } else if (n.op == "SequenceMap") {
    body_arity("body", static_cast<std::size_t>(given), outs, "for the node's inputs and outputs");
  } else if (outs != 1) {
    throw Error(at + "has " + std::to_string(outs) + " outputs; " + n.op + " has one");
  }
}

std::shared_ptr<Graph> compile(const ::onnx::GraphProto& gp, const Loader& L, const std::string& where, bool top) {
  auto g = std::make_shared<Graph>();
  g->model = L.model;
  g->name = gp.name();
  const std::string ctx = where + (gp.name().empty() ? "" : " graph '" + gp.name() + "'");
  // Who defines each name here: one producer per name.
  std::unordered_map<std::string, std::string> producer;
  auto define = [&](const std::string& name, const std::string& by) {
    if (name.empty()) return;
    auto [it, fresh] = producer.try_emplace(name, by);
    if (!fresh) throw Error(ctx + ": " + by + " defines '" + name + "', which " + it->second + " already defines");
  };
  std::vector<std::pair<std::string, Value>> initializers;  // placed in slots below
  if (gp.sparse_initializer_size() > 0) throw Error(ctx + ": sparse initializers are not supported");
  std::set<std::string> with_init;
  for (const auto& t : gp.initializer()) {
    define(t.name(), "initializer '" + t.name() + "'");
    with_init.insert(t.name());
    initializers.emplace_back(t.name(), from_proto(t, ctx + ": initializer '" + t.name() + "'", L.resource));
  }
  for (const auto& vi : gp.input()) {
    ValueInfo info{vi.name(), ValueType{}, with_init.contains(vi.name())};
    if (!info.has_default) define(vi.name(), "input '" + vi.name() + "'");  // an input may name its default
    const bool typed = vi.has_type();
    if (typed) {
      info.type = from_proto(vi.type(), ctx + ": input '" + vi.name() + "'");
      if (info.has_default) {
        const auto& init = std::find_if(initializers.begin(), initializers.end(), [&](const auto& p) {
                             return p.first == vi.name();
                           })->second;
        if (!(ValueType::tensor(init.tensor().dtype()) == info.type)) {
          throw TypeError(ctx + ": input '" + vi.name() + "' is declared " + to_string(info.type) +
                          " but its initializer is " + to_string(ValueType::tensor(init.tensor().dtype())));
        }
      }
    } else if (top) {
      throw Error(ctx + ": input '" + vi.name() + "' has no type");
    }
    g->inputs.push_back(info);
    g->input_typed.push_back(typed);
  }
  for (const auto& vi : gp.output()) {
    ValueInfo info{vi.name(), ValueType{}, false};
    if (vi.has_type()) info.type = from_proto(vi.type(), ctx + ": output '" + vi.name() + "'");
    g->outputs.push_back(info);
    g->output_typed.push_back(vi.has_type());
  }

  // Nodes, resolved against the kernel table, with their subgraphs compiled and checked.
  std::vector<Node> pending;
  pending.reserve(static_cast<std::size_t>(gp.node_size()));
  for (int k = 0; k < gp.node_size(); ++k) {
    const auto& np = gp.node(k);
    Node n;
    n.proto = &np;
    n.op = np.op_type();
    n.opset = L.opset;
    n.label = "node " + std::to_string(k) + (np.name().empty() ? "" : " '" + np.name() + "'") + " (" + n.op + ")";
    if (!np.domain().empty() && np.domain() != "ai.onnx") {
      throw Error(ctx + ": " + n.label + ": domain '" + np.domain() +
                  "' is not supported (only the default ONNX domain)");
    }
    n.info = find_op(n.op, L.opset);
    if (n.info == nullptr) {
      throw Error(ctx + ": " + n.label + ": operator " + n.op +
                  (known_op(n.op) ? " is not available at the model's opset " + std::to_string(L.opset)
                                  : " is not supported by tseq's executor"));
    }
    n.inputs.assign(np.input().begin(), np.input().end());
    n.outputs.assign(np.output().begin(), np.output().end());
    for (const auto& a : np.attribute()) {
      if (a.type() == ::onnx::AttributeProto::GRAPH || a.has_g()) {
        n.subgraphs[a.name()] = compile(a.g(), L, ctx + ": " + n.label + " attribute '" + a.name() + "'", false);
      } else if (a.type() == ::onnx::AttributeProto::GRAPHS) {
        throw Error(ctx + ": " + n.label + ": graph-list attributes are not supported");
      }
    }
    check_node(n, np, ctx);
    for (const auto& o : n.outputs) define(o, n.label);
    pending.push_back(std::move(n));
  }

  // Names read here but defined nowhere here come from enclosing graphs.
  std::unordered_map<std::string, std::size_t> made_by;  // value -> index of its node
  for (std::size_t k = 0; k < pending.size(); ++k) {
    for (const auto& o : pending[k].outputs) {
      if (!o.empty()) made_by.emplace(o, k);
    }
  }
  auto defined_here = [&](const std::string& name) { return producer.contains(name); };  // initializers too
  std::vector<std::vector<std::string>> reads(pending.size());                           // every name node k needs
  for (std::size_t k = 0; k < pending.size(); ++k) {
    for (const auto& in : pending[k].inputs) {
      if (!in.empty()) reads[k].push_back(in);
    }
    for (const auto& [_, sg] : pending[k].subgraphs)
      reads[k].insert(reads[k].end(), sg->free_names.begin(), sg->free_names.end());
    for (const auto& r : reads[k]) {
      if (!defined_here(r)) g->free_names.insert(r);
    }
  }
  for (const auto& o : g->outputs) {
    if (!defined_here(o.name)) g->free_names.insert(o.name);
  }
  if (top && !g->free_names.empty()) {
    throw Error(ctx + ": value '" + *g->free_names.begin() + "' is used but no node, input or initializer provides it");
  }

  // Execution order: Kahn's algorithm over node-to-node dependencies, lowest index first
  // (the file's order when it is already valid). O(E log V).
  std::vector<std::vector<std::size_t>> dependents(pending.size());
  std::vector<std::size_t> waiting(pending.size(), 0);
  for (std::size_t k = 0; k < pending.size(); ++k) {
    std::vector<std::size_t> deps;
    for (const auto& r : reads[k]) {
      auto it = made_by.find(r);
      if (it != made_by.end()) deps.push_back(it->second);
    }
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    for (std::size_t d : deps) {
      if (d == k) throw Error(ctx + ": " + pending[k].label + " reads its own output (a cycle)");
      dependents[d].push_back(k);
    }
    waiting[k] = deps.size();
  }
  std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> ready;
  for (std::size_t k = 0; k < pending.size(); ++k) {
    if (waiting[k] == 0) ready.push(k);
  }
  std::vector<std::size_t> order;
  order.reserve(pending.size());
  while (!ready.empty()) {
    const std::size_t k = ready.top();
    ready.pop();
    order.push_back(k);
    for (std::size_t d : dependents[k]) {
      if (--waiting[d] == 0) ready.push(d);
    }
  }
  if (order.size() != pending.size()) {
    for (std::size_t k = 0; k < pending.size(); ++k) {
      if (waiting[k] == 0) continue;
      for (const auto& r : reads[k]) {
        auto it = made_by.find(r);
        if (it != made_by.end() && waiting[it->second] != 0) {
          std::string m = ctx;
          m += ": " + pending[k].label + " uses '" + r + "', which " + pending[it->second].label;
          throw Error(m + " produces only after it: the graph has a cycle");
        }
      }
    }
  }
  for (std::size_t k : order) g->nodes.push_back(std::move(pending[k]));

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
      if (in.empty() || g->free_names.contains(in) || outputs.contains(in) || sub_reads.contains(in) || last[in] != k)
        continue;
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
  // Linear: walk the outputs backwards, remembering the slots already seen.
  g->output_move.assign(g->outputs.size(), false);
  std::vector<bool> named_later(g->slot_of.size(), false);
  for (std::size_t i = g->outputs.size(); i-- > 0;) {
    const int s = g->output_slots[i];
    if (s < 0) continue;
    g->output_move[i] = !named_later[static_cast<std::size_t>(s)];
    named_later[static_cast<std::size_t>(s)] = true;
  }
  return g;
}

// ---- types ---------------------------------------------------------------------------------------

using MaybeType = std::optional<ValueType>;

struct TypeScope {
  std::unordered_map<std::string, ValueType> types;
  const TypeScope* parent = nullptr;
  MaybeType find(const std::string& name) const {
    for (const TypeScope* s = this; s != nullptr; s = s->parent) {
      auto it = s->types.find(name);
      if (it != s->types.end()) return it->second;
    }
    return std::nullopt;
  }
};

MaybeType element_tensor(const MaybeType& seq) {
  if (!seq || seq->kind != ValueType::Kind::Sequence) return std::nullopt;
  return ValueType::tensor(seq->dtype);
}

void infer(Graph& g, const std::vector<MaybeType>& hints, const TypeScope* outer, const std::string& where);

// The types of node n's outputs, from its inputs' types (and its subgraphs', inferred first).
std::vector<MaybeType> output_types(Node& n, const std::vector<MaybeType>& in, const TypeScope& scope,
                                    const std::string& ctx) {
  const std::string& op = n.op;
  const std::size_t outs = n.outputs.size();
  std::vector<MaybeType> r(outs);
  auto input = [&](std::size_t j) { return j < in.size() ? in[j] : MaybeType{}; };
  const std::string sub_ctx = ctx + ": " + n.label;
  if (op == "Identity" || op == "SequenceInsert" || op == "SequenceErase" || op == "Add" || op == "Slice" ||
      op == "Unsqueeze") {
    r[0] = input(0);
  } else if (op == "Not" || op == "OptionalHasElement") {
    r[0] = ValueType::tensor(DataType::Bool);
  } else if (op == "Shape" || op == "SequenceLength") {
    r[0] = ValueType::tensor(DataType::Int64);
  } else if (op == "SequenceEmpty") {
    r[0] = ValueType::sequence(sequence_empty_dtype(n));  // checked by check_node
  } else if (op == "SequenceConstruct" || op == "SplitToSequence") {
    if (auto t = input(0); t && t->kind == ValueType::Kind::Tensor) r[0] = ValueType::sequence(t->dtype);
  } else if (op == "SequenceAt" || op == "ConcatFromSequence") {
    r[0] = element_tensor(input(0));
  } else if (op == "Constant") {
    for (const auto& a : n.proto->attribute()) {
      const std::string& k = a.name();
      if (k == "value") r[0] = ValueType::tensor(static_cast<DataType>(a.t().data_type()));
      if (k == "value_float" || k == "value_floats") r[0] = ValueType::tensor(DataType::Float);
      if (k == "value_int" || k == "value_ints") r[0] = ValueType::tensor(DataType::Int64);
      if (k == "value_string" || k == "value_strings") r[0] = ValueType::tensor(DataType::String);
    }
  } else if (op == "Optional") {
    if (auto t = input(0); t && t->kind != ValueType::Kind::Optional) {
      r[0] = ValueType::optional(t->kind, t->dtype);
    } else if (const auto* a = attribute(n, "type"); a != nullptr && (n.inputs.empty() || n.inputs[0].empty())) {
      const ValueType e = from_proto(a->tp(), sub_ctx + " attribute 'type'");
      r[0] = ValueType::optional(e.kind, e.dtype);
    }
  } else if (op == "OptionalGetElement") {
    if (auto t = input(0)) {
      r[0] = t->kind == ValueType::Kind::Optional ? ValueType{t->optional_of, t->dtype, ValueType::Kind::Tensor} : *t;
    }
  } else if (op == "If") {
    infer(*n.subgraphs.at("then_branch"), {}, &scope, sub_ctx + " attribute 'then_branch'");
    infer(*n.subgraphs.at("else_branch"), {}, &scope, sub_ctx + " attribute 'else_branch'");
    const Graph& t = *n.subgraphs.at("then_branch");
    for (std::size_t k = 0; k < outs; ++k) r[k] = t.outputs[k].type;
  } else if (op == "Loop") {
    Graph& body = *n.subgraphs.at("body");
    std::vector<MaybeType> hints = {ValueType::tensor(DataType::Int64), ValueType::tensor(DataType::Bool)};
    for (std::size_t j = 2; j < n.inputs.size(); ++j) hints.push_back(input(j));
    infer(body, hints, &scope, sub_ctx + " attribute 'body'");
    const std::size_t carried = hints.size() - 2;
    for (std::size_t k = 0; k < outs; ++k) {
      const ValueType& b = body.outputs[1 + k].type;
      r[k] = k < carried ? b : ValueType::tensor(b.dtype);
    }
  } else if (op == "SequenceMap") {
    Graph& body = *n.subgraphs.at("body");
    std::vector<MaybeType> hints;
    for (std::size_t j = 0; j < n.inputs.size(); ++j) {
      const auto t = input(j);
      hints.push_back(t && t->kind == ValueType::Kind::Sequence ? element_tensor(t) : t);
    }
    infer(body, hints, &scope, sub_ctx + " attribute 'body'");
    for (std::size_t k = 0; k < outs; ++k) r[k] = ValueType::sequence(body.outputs[k].type.dtype);
  }
  return r;
}

// Gives every output of g a type: declared, else inferred from the graph (its inputs' types
// from `hints` where undeclared). Throws Error naming an output it cannot type.
void infer(Graph& g, const std::vector<MaybeType>& hints, const TypeScope* outer, const std::string& where) {
  const std::string ctx = where + (g.name.empty() ? "" : " graph '" + g.name + "'");
  TypeScope scope;
  scope.parent = outer;
  for (std::size_t i = 0; i < g.inputs.size(); ++i) {
    if (!g.input_typed[i] && i < hints.size() && hints[i]) {
      g.inputs[i].type = *hints[i];
      g.input_typed[i] = true;
    }
    if (g.input_typed[i]) scope.types[g.inputs[i].name] = g.inputs[i].type;
  }
  std::vector<const std::string*> name_of(g.slot_of.size(), nullptr);
  for (const auto& [name, s] : g.slot_of) name_of[static_cast<std::size_t>(s)] = &name;
  for (const auto& [slot, v] : g.initializer_slots) {
    scope.types.try_emplace(*name_of[static_cast<std::size_t>(slot)], ValueType::tensor(v.tensor().dtype()));
  }
  for (Node& n : g.nodes) {
    std::vector<MaybeType> in;
    for (const auto& name : n.inputs) in.push_back(name.empty() ? MaybeType{} : scope.find(name));
    const auto out = output_types(n, in, scope, ctx);
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
      throw Error(ctx + ": output '" + g.outputs[i].name +
                  "' has no declared type and tseq cannot infer one (declare it in the graph's outputs)");
    }
  }
}

int default_opset(const ::onnx::ModelProto& p, const std::string& name) {
  std::int64_t v = -1;
  for (const auto& o : p.opset_import()) {
    if (o.domain().empty() || o.domain() == "ai.onnx") v = o.version();
  }
  if (v < 0) throw Error(name + ": the model imports no opset of the default ONNX domain (opset_import)");
  if (v < kMinOpset || v > kMaxOpset) {
    throw Error(name + ": opset " + std::to_string(v) + " of the default ONNX domain is not supported (tseq loads " +
                std::to_string(kMinOpset) + " to " + std::to_string(kMaxOpset) + ")");
  }
  return static_cast<int>(v);
}

}  // namespace

}  // namespace tseq::onnx::detail

namespace tseq::onnx {

Model Model::from_proto(const ::onnx::ModelProto& proto, std::string_view name, std::pmr::memory_resource* resource) {
  auto owned = std::make_shared<const ::onnx::ModelProto>(proto);
  const std::string n(name);
  try {
    const int opset = detail::default_opset(*owned, n);
    const detail::Loader loader{owned, opset, resource};
    std::shared_ptr<detail::Graph> g = detail::compile(owned->graph(), loader, n, true);
    detail::infer(*g, {}, nullptr, n);
    return Model(std::move(g), n, opset);
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

}  // namespace tseq::onnx
