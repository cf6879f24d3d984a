// Control flow: If, Loop and SequenceMap. Subgraphs run through call() (run.cpp), with the
// enclosing scope as their parent.

#include <limits>

#include "graph.hpp"
#include "tseq/detail/checked.hpp"
#include "tseq/ops.hpp"

namespace tseq::onnx::detail {

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

}  // namespace tseq::onnx::detail
