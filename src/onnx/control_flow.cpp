// Control flow: If, Loop and SequenceMap, their kernels and registry records. Subgraphs run
// through call() (run.cpp), with the enclosing scope as their parent.

#include <algorithm>
#include <limits>

#include "kernel_support.hpp"
#include "registry.hpp"
#include "tseq/detail/checked.hpp"
#include "tseq/ops.hpp"

namespace tseq::onnx::detail {

namespace {

Values run_if(const Node& n, Inputs& in, const Scope& scope, Context& cx) {
  const bool c = bool_scalar(tensor_input(in, 0), "If cond");
  return call(subgraph(n, c ? "then_branch" : "else_branch"), {}, scope, cx);
}

Values run_loop(const Node& n, Inputs& in, const Scope& scope, Context& cx) {
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
  const std::size_t n_scan = body.outputs.size() - 1 - carried.size();  // checked at load
  std::vector<std::vector<Tensor>> scans(n_scan);
  std::vector<std::int64_t> scan_elements(n_scan, 0);
  std::vector<std::int64_t> scan_chars(n_scan, 0);  // string scans: characters the stacking copies
  // The scans' handles, and the characters their stacking will copy, are not charged to the
  // budget while the loop runs: each iteration checks that they fit what is left of it.
  std::int64_t scan_handles = 0;
  std::int64_t all_chars = 0;
  for (std::int64_t i = 0; i < trips && cond; ++i) {
    if (i >= cx.options.max_loop_iterations) {
      throw Error("Loop: more than " + std::to_string(cx.options.max_loop_iterations) +
                  " iterations, the session's limit");
    }
    if (cx.stoppable) cx.check_stop("Loop iteration", i);
    Values args;
    args.emplace_back(Tensor::scalar<std::int64_t>(i, cx.resource));
    args.emplace_back(Tensor::scalar(cond, cx.resource));
    for (auto& c : carried) args.push_back(std::move(c));
    Values out = call(body, std::move(args), scope, cx);
    if (!out[0].is_tensor()) throw TypeError("Loop: the body's condition output must be a tensor");
    cond = bool_scalar(out[0].tensor(), "Loop body condition");
    for (std::size_t c = 0; c < carried.size(); ++c) carried[c] = std::move(out[1 + c]);
    if (n_scan > 0) {
      scan_handles = tseq::detail::checked_add(scan_handles, static_cast<std::int64_t>(n_scan), "Loop",
                                               "the scan outputs' tensor count");
      cx.check_run_bytes(
          tseq::detail::checked_mul(scan_handles, Context::sequence_element_bytes, "Loop", "the scan outputs' storage"),
          "Loop scan outputs");
    }
    for (std::size_t k = 0; k < n_scan; ++k) {
      const Value& v = out[1 + carried.size() + k];
      if (!v.is_tensor()) throw TypeError("Loop: scan outputs must be tensors");
      // The stacked result must fit the limits: checked as it grows, before it is made.
      scan_elements[k] = tseq::detail::checked_add(scan_elements[k], static_cast<std::int64_t>(v.tensor().size()),
                                                   "Loop", "a scan output's element count");
      const std::int64_t chars = string_chars(v.tensor());
      scan_chars[k] = tseq::detail::checked_add(scan_chars[k], chars, "Loop", "a scan output's characters");
      all_chars = tseq::detail::checked_add(all_chars, chars, "Loop", "the scan outputs' characters");
      cx.check_tensor(scan_elements[k], v.tensor().dtype(), "Loop scan output", scan_chars[k]);
      if (chars > 0) cx.check_run_bytes(all_chars, "Loop scan outputs");
      cx.check_sequence(static_cast<std::int64_t>(scans[k].size()) + 1, "Loop scan output");
      scans[k].push_back(v.tensor());
    }
  }
  // The body's outputs are (cond, carried..., scans...): scan k is output 1 + n_carried + k.
  // (Not 1 + result.size() + k: result grows below, one entry per scan output.)
  const std::size_t n_carried = carried.size();
  Values result = std::move(carried);
  for (std::size_t k = 0; k < n_scan; ++k) {
    const DataType t = body.outputs[1 + n_carried + k].type.dtype;  // typed at load
    if (scans[k].empty()) {
      result.emplace_back(TensorBuffer(t, Shape{0}, cx.resource).freeze());
    } else {
      result.emplace_back(ops::concat_from_sequence(ops::sequence_construct(scans[k]), 0, 1, cx.resource));
    }
  }
  return result;
}

Values run_sequence_map(const Node& n, Inputs& in, const Scope& scope, Context& cx) {
  const Graph& body = subgraph(n, "body");
  const TensorSequence first = take_sequence(in, 0);
  const std::size_t count = first.size();
  std::vector<TensorSequence::container_type::builder> outs(body.outputs.size());
  // Every output is a sequence of `count` tensors, built here and not charged to the budget:
  // checked against the limits before the first element is mapped.
  cx.check_sequence(static_cast<std::int64_t>(count), "SequenceMap");
  cx.check_run_bytes(tseq::detail::checked_mul(tseq::detail::checked_mul(static_cast<std::int64_t>(count),
                                                                         static_cast<std::int64_t>(outs.size()),
                                                                         "SequenceMap", "the outputs' tensor count"),
                                               Context::sequence_element_bytes, "SequenceMap", "the outputs' storage"),
                     "SequenceMap");
  for (std::size_t i = 0; i < count; ++i) {
    if (cx.stoppable) cx.check_stop("SequenceMap element", static_cast<std::int64_t>(i));
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
    result.emplace_back(TensorSequence(body.outputs[k].type.dtype, std::move(outs[k]).persistent()));
  }
  return result;
}

// ---- checks and type inference ----

// Throws unless subgraph `graph` has `inputs` inputs and `outputs` outputs.
void body_arity(const CheckContext& c, const char* graph, std::size_t inputs, std::size_t outputs, const char* why) {
  const Graph& b = *c.node.subgraphs.at(graph);
  if (b.inputs.size() != inputs || b.outputs.size() != outputs) {
    c.fail("its '" + std::string(graph) + "' graph has " + std::to_string(b.inputs.size()) + " inputs and " +
           std::to_string(b.outputs.size()) + " outputs; " + why + " it needs " + std::to_string(inputs) + " and " +
           std::to_string(outputs));
  }
}

std::size_t outputs_of(const CheckContext& c) { return static_cast<std::size_t>(c.proto.output_size()); }

void check_if(const CheckContext& c) {
  const std::size_t outs = outputs_of(c);
  const Graph& t = *c.node.subgraphs.at("then_branch");
  const Graph& e = *c.node.subgraphs.at("else_branch");
  if (t.outputs.size() != outs || e.outputs.size() != outs) {
    c.fail("its branches have " + std::to_string(t.outputs.size()) + " and " + std::to_string(e.outputs.size()) +
           " outputs; the node has " + std::to_string(outs));
  }
}

void check_loop(const CheckContext& c) {
  const std::size_t outs = outputs_of(c);
  const auto carried = static_cast<std::size_t>(std::max(c.given, 2) - 2);
  if (outs < carried) c.fail("has " + std::to_string(carried) + " loop-carried inputs but fewer outputs");
  body_arity(c, "body", 2 + carried, 1 + outs, "with its loop-carried values and outputs");
}

void check_sequence_map(const CheckContext& c) {
  body_arity(c, "body", static_cast<std::size_t>(c.given), outputs_of(c), "for the node's inputs and outputs");
}

std::vector<MaybeType> if_types(const InferContext& c) {
  const Graph& t = c.infer_sub("then_branch", {});
  (void)c.infer_sub("else_branch", {});
  std::vector<MaybeType> r(c.node.outputs.size());
  for (std::size_t k = 0; k < r.size(); ++k) r[k] = t.outputs[k].type;
  return r;
}

std::vector<MaybeType> loop_types(const InferContext& c) {
  std::vector<MaybeType> hints = {ValueType::tensor(DataType::Int64), ValueType::tensor(DataType::Bool)};
  for (std::size_t j = 2; j < c.node.inputs.size(); ++j) hints.push_back(c.input(j));
  const Graph& body = c.infer_sub("body", hints);
  const std::size_t carried = hints.size() - 2;
  std::vector<MaybeType> r(c.node.outputs.size());
  for (std::size_t k = 0; k < r.size(); ++k) {
    const ValueType& b = body.outputs[1 + k].type;
    r[k] = k < carried ? b : ValueType::tensor(b.dtype);
  }
  return r;
}

std::vector<MaybeType> sequence_map_types(const InferContext& c) {
  std::vector<MaybeType> hints;
  for (std::size_t j = 0; j < c.node.inputs.size(); ++j) {
    const auto t = c.input(j);
    hints.push_back(t && t->kind == ValueType::Kind::Sequence ? element_tensor(t) : t);
  }
  const Graph& body = c.infer_sub("body", hints);
  std::vector<MaybeType> r(c.node.outputs.size());
  for (std::size_t k = 0; k < r.size(); ++k) r[k] = ValueType::sequence(body.outputs[k].type.dtype);
  return r;
}

}  // namespace

const std::vector<OpInfo>& control_flow_ops() {
  static const std::vector<OpInfo> ops = {
      {.name = "If",
       .kernel = run_if,
       .min_inputs = 1,
       .max_inputs = 1,
       .required_graphs = {"then_branch", "else_branch"},
       .check = check_if,
       .infer = if_types,
       .one_output = false},
      {.name = "Loop",
       .kernel = run_loop,
       .min_inputs = 2,
       .max_inputs = kAnyInputs,
       .optional_inputs = {0, 1},
       .required_graphs = {"body"},
       .check = check_loop,
       .infer = loop_types,
       .one_output = false},
      {.name = "SequenceMap",
       .since = 17,
       .kernel = run_sequence_map,
       .min_inputs = 1,
       .max_inputs = kAnyInputs,
       .required_graphs = {"body"},
       .check = check_sequence_map,
       .infer = sequence_map_types,
       .one_output = false},
  };
  return ops;
}

}  // namespace tseq::onnx::detail
