// tseq-onnx-test: runs ONNX backend test cases (model.onnx + test_data_set_*/) with tseq's
// executor and compares the outputs with the expected ones.
//
//   tseq-onnx-test [--skip-missing] [--expect N] DIR...
//
// Each DIR is a case or a folder holding cases (searched recursively). Prints "PASS name" or
// "FAIL name: reason" per case, then "N passed, M failed". Exit status: 0 if all passed, 1 if
// any failed (or --expect N did not match the number of cases), 2 on a usage error, 77 when
// --skip-missing is given and no DIR exists (so that ctest reports the test as skipped).

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "tseq/onnx/executor.hpp"
#include "tseq/onnx/proto.hpp"

namespace fs = std::filesystem;
using namespace tseq;
using namespace tseq::onnx;

namespace {

constexpr double kRtol = 1e-3;
constexpr double kAtol = 1e-7;

void collect(const fs::path& dir, std::vector<fs::path>& cases) {
  if (fs::exists(dir / "model.onnx")) {
    cases.push_back(dir);
    return;
  }
  std::vector<fs::path> subs;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_directory()) subs.push_back(e.path());
  }
  std::sort(subs.begin(), subs.end());
  for (const auto& s : subs) collect(s, cases);
}

// Runs every test_data_set_* of one case; returns an empty string on success, else the reason.
std::string run_case(const fs::path& dir) {
  const Model model = Model::load(dir / "model.onnx");
  std::vector<fs::path> sets;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) sets.push_back(e.path());
  }
  std::sort(sets.begin(), sets.end());
  if (sets.empty()) return "no test_data_set_* folder";
  for (const auto& set : sets) {
    std::vector<Value> inputs;
    for (std::size_t i = 0; fs::exists(set / ("input_" + std::to_string(i) + ".pb")); ++i) {
      if (i >= model.inputs().size()) return set.filename().string() + ": more input files than graph inputs";
      inputs.push_back(load_value(set / ("input_" + std::to_string(i) + ".pb"), model.inputs()[i].type));
    }
    Session session(model);
    const std::vector<Value> outputs = session.run(std::move(inputs));
    std::size_t checked = 0;
    for (std::size_t i = 0; fs::exists(set / ("output_" + std::to_string(i) + ".pb")); ++i) {
      if (i >= outputs.size()) return set.filename().string() + ": more output files than graph outputs";
      const Value expected = load_value(set / ("output_" + std::to_string(i) + ".pb"), model.outputs()[i].type);
      std::string why;
      if (!close(outputs[i], expected, kRtol, kAtol, &why)) {
        return set.filename().string() + " output " + std::to_string(i) + " ('" + model.outputs()[i].name +
               "'): " + why;
      }
      ++checked;
    }
    if (checked == 0) return set.filename().string() + ": no output_*.pb to compare";
  }
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  bool skip_missing = false;
  long expect = -1;
  std::vector<fs::path> dirs;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--skip-missing") {
      skip_missing = true;
    } else if (a == "--expect" && i + 1 < argc) {
      expect = std::strtol(argv[++i], nullptr, 10);
    } else if (a == "-h" || a == "--help") {
      std::printf("usage: tseq-onnx-test [--skip-missing] [--expect N] DIR...\n");
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "tseq-onnx-test: unknown option %s\n", a.c_str());
      return 2;
    } else {
      dirs.emplace_back(a);
    }
  }
  if (dirs.empty()) {
    std::fprintf(stderr, "usage: tseq-onnx-test [--skip-missing] [--expect N] DIR...\n");
    return 2;
  }
  std::vector<fs::path> cases;
  bool any = false;
  for (const auto& d : dirs) {
    if (!fs::is_directory(d)) {
      std::printf("missing: %s is not a directory\n", d.string().c_str());
      continue;
    }
    any = true;
    collect(d, cases);
  }
  if (!any) {
    if (skip_missing) {
      std::printf("SKIP: no test directory found (the ONNX test data lives beside the checkout, in ../shared)\n");
      return 77;
    }
    return 1;
  }
  int passed = 0;
  int failed = 0;
  for (const auto& c : cases) {
    const std::string name = c.parent_path().filename().string() + "/" + c.filename().string();
    std::string why;
    try {
      why = run_case(c);
    } catch (const std::exception& e) {
      why = e.what();
    }
    if (why.empty()) {
      std::printf("PASS %s\n", name.c_str());
      ++passed;
    } else {
      std::printf("FAIL %s: %s\n", name.c_str(), why.c_str());
      ++failed;
    }
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  if (expect >= 0 && passed + failed != expect) {
    std::printf("expected %ld cases, found %d\n", expect, passed + failed);
    return 1;
  }
  return failed == 0 ? 0 : 1;
}
