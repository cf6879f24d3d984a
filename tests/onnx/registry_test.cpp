// The operator registry: supported_operators() is sorted and unique, the loader finds every
// listed operator, and the docs' operator lists (docs/onnx.md, README.md) name exactly the
// registered operators, so that they cannot drift.

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "onnx/model_builder.hpp"
#include "tseq/onnx/executor.hpp"

namespace {

std::string read_text(const std::string& relative) {
  std::ifstream f(std::string(TSEQ_SOURCE_DIR) + "/" + relative);
  EXPECT_TRUE(f.good()) << relative;
  std::stringstream s;
  s << f.rdbuf();
  std::string t = s.str();
  std::replace(t.begin(), t.end(), '\n', ' ');
  return t;
}

// The names listed in `text` between `start` and `end`: comma- or "and"-separated, with
// parenthesised remarks dropped. Sorted.
std::vector<std::string> listed(const std::string& text, std::string_view start, std::string_view end) {
  const auto a = text.find(start);
  EXPECT_NE(a, std::string::npos) << start;
  if (a == std::string::npos) return {};
  const auto b = text.find(end, a);
  EXPECT_NE(b, std::string::npos) << end;
  std::string list = text.substr(a + start.size(), b - a - start.size());
  std::string clean;
  int depth = 0;
  for (char ch : list) {
    if (ch == '(') ++depth;
    if (depth == 0) clean += ch;
    if (ch == ')') --depth;
  }
  for (std::size_t p; (p = clean.find(" and ")) != std::string::npos;) clean.replace(p, 5, ",");
  std::vector<std::string> names;
  std::stringstream in(clean);
  for (std::string item; std::getline(in, item, ',');) {
    const auto f = item.find_first_not_of(" .");
    const auto l = item.find_last_not_of(" .");
    if (f != std::string::npos) names.push_back(item.substr(f, l - f + 1));
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> registered() {
  std::vector<std::string> r;
  for (std::string_view n : tseq::onnx::supported_operators()) r.emplace_back(n);
  return r;
}

TEST(OnnxRegistry, SupportedOperatorsAreSortedAndUnique) {
  const auto ops = tseq::onnx::supported_operators();
  ASSERT_FALSE(ops.empty());
  EXPECT_TRUE(std::is_sorted(ops.begin(), ops.end()));
  EXPECT_EQ(std::adjacent_find(ops.begin(), ops.end()), ops.end());
}

// A one-node model of each operator, without inputs: the loader finds the operator (any error
// is about the node's inputs or attributes, never an unknown operator).
TEST(OnnxRegistry, LoaderFindsEveryOperator) {
  for (std::string_view op : tseq::onnx::supported_operators()) {
    ::onnx::ModelProto m;
    m.set_ir_version(8);
    auto* o = m.add_opset_import();
    o->set_domain("");
    o->set_version(25);
    auto& g = *m.mutable_graph();
    g.set_name("g");
    tseq_test::add_node(g, std::string(op), {}, {"y"});
    tseq_test::add_output(g, "y", tseq::DataType::Float, false);
    try {
      (void)tseq::onnx::from_proto(m, "registry", tseq::onnx::LoadOptions{});
    } catch (const tseq::Error& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.find("is not supported by tseq's executor"), std::string::npos) << op << ": " << what;
      EXPECT_EQ(what.find("is not available at the model's opset"), std::string::npos) << op << ": " << what;
    }
  }
}

TEST(OnnxRegistry, DocsListExactlyTheRegisteredOperators) {
  EXPECT_EQ(listed(read_text("docs/onnx.md"), "Operators: ", "Anything else"), registered()) << "docs/onnx.md";
  EXPECT_EQ(
      listed(read_text("README.md"), "small graph executor (`Model`, `Session`) for the operators ", ". It moves"),
      registered())
      << "README.md";
}

}  // namespace
