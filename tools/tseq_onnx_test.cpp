// tseq-onnx-test: runs ONNX backend test cases (model.onnx + test_data_set_*/) with tseq's
// executor and compares the outputs with the expected ones.
//
//   tseq-onnx-test [--skip-missing] [--expect N] [limits] DIR...
//
// Each DIR is a case or a folder holding cases (searched recursively; symbolic links are
// followed once, so a link loop ends). Prints "PASS name" or "FAIL name: reason" per case, then
// "N passed, M failed". A folder that cannot be read is reported as a failure and the search
// goes on. Exit status: 0 if all passed, 1 if any failed (or --expect N did not match the
// number of cases), 2 on a usage error, 77 when --skip-missing is given and no DIR exists (so
// that ctest reports the test as skipped).
//
// Every case runs under session limits (a conformance runner meets models it did not write):
//   --time-limit SECONDS        per test data set (default 60)
//   --max-loop-iterations N     per Loop node (default 1000000)
//   --max-tensor-elements N     per tensor an operator makes (default 134217728)
//   --max-tensor-bytes N        per tensor an operator makes (default 536870912)
//   --max-run-bytes N           tensors alive in one run (default 2147483648)
//   --max-sequence-length N     tensors in one sequence (default 1000000)
//   --no-limits                 none of these

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <system_error>
#include <vector>

#include "tseq/onnx/executor.hpp"
#include "tseq/onnx/proto.hpp"

namespace fs = std::filesystem;
using namespace tseq;
using namespace tseq::onnx;

namespace {

constexpr double kRtol = 1e-3;
constexpr double kAtol = 1e-7;

// Sub-folders of dir, sorted; an error is returned in `error` instead of thrown.
std::vector<fs::path> subdirectories(const fs::path& dir, std::string& error) {
  std::vector<fs::path> subs;
  std::error_code ec;
  fs::directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
    std::error_code is_dir_ec;
    if (it->is_directory(is_dir_ec)) subs.push_back(it->path());
  }
  if (ec) error = ec.message();
  std::sort(subs.begin(), subs.end());
  return subs;
}

// Cases under dir; folders that cannot be read go to `unreadable` with the reason.
void collect(const fs::path& dir, std::vector<fs::path>& cases,
             std::vector<std::pair<fs::path, std::string>>& unreadable, std::set<fs::path>& seen) {
  std::error_code ec;
  const fs::path real = fs::canonical(dir, ec);
  if (ec) {
    unreadable.emplace_back(dir, ec.message());
    return;
  }
  if (!seen.insert(real).second) return;  // reached again through a link: a loop, or a duplicate
  if (fs::exists(dir / "model.onnx", ec)) {
    cases.push_back(dir);
    return;
  }
  std::string error;
  const auto subs = subdirectories(dir, error);
  if (!error.empty()) unreadable.emplace_back(dir, error);
  for (const auto& s : subs) collect(s, cases, unreadable, seen);
}

// Runs every test_data_set_* of one case; returns an empty string on success, else the reason.
std::string run_case(const fs::path& dir, const SessionOptions& limits) {
  const Model model = Model::load(dir / "model.onnx");
  std::vector<fs::path> sets;
  std::string error;
  for (const auto& p : subdirectories(dir, error)) {
    if (p.filename().string().rfind("test_data_set_", 0) == 0) sets.push_back(p);
  }
  if (!error.empty()) return "cannot read the case's folder: " + error;
  std::sort(sets.begin(), sets.end());
  if (sets.empty()) return "no test_data_set_* folder";
  for (const auto& set : sets) {
    std::vector<Value> inputs;
    for (std::size_t i = 0; fs::exists(set / ("input_" + std::to_string(i) + ".pb")); ++i) {
      if (i >= model.inputs().size()) return set.filename().string() + ": more input files than graph inputs";
      inputs.push_back(load_value(set / ("input_" + std::to_string(i) + ".pb"), model.inputs()[i].type));
    }
    Session session(model, limits);
    const std::vector<Value> outputs = session.run(std::move(inputs));
    std::size_t checked = 0;
    for (std::size_t i = 0; fs::exists(set / ("output_" + std::to_string(i) + ".pb")); ++i) {
      if (i >= outputs.size()) return set.filename().string() + ": more output files than graph outputs";
      const Value expected = load_value(set / ("output_" + std::to_string(i) + ".pb"), model.outputs()[i].type);
      std::string why;
      if (!all_close(outputs[i], expected, kRtol, kAtol, &why)) {
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

constexpr const char* kUsage =
    "usage: tseq-onnx-test [--skip-missing] [--expect N] [--time-limit SECONDS] [--max-loop-iterations N]\n"
    "       [--max-tensor-elements N] [--max-tensor-bytes N] [--max-run-bytes N] [--max-sequence-length N]\n"
    "       [--no-limits] DIR...\n";

// A non-negative integer option value, or -1.
long long number(const char* s) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(s, &end, 10);
  return errno != 0 || end == s || *end != '\0' || v < 0 ? -1 : v;
}

int main(int argc, char** argv) {
  bool skip_missing = false;
  long expect = -1;
  std::vector<fs::path> dirs;
  SessionOptions limits;
  limits.time_limit = std::chrono::seconds(60);
  limits.max_loop_iterations = 1'000'000;
  limits.max_tensor_elements = std::int64_t{1} << 27;
  limits.max_tensor_bytes = std::int64_t{512} << 20;
  limits.max_run_bytes = std::int64_t{2} << 30;
  limits.max_sequence_length = 1'000'000;
  const std::vector<std::pair<std::string, std::int64_t*>> numeric = {
      {"--max-loop-iterations", &limits.max_loop_iterations},
      {"--max-tensor-elements", &limits.max_tensor_elements},
      {"--max-tensor-bytes", &limits.max_tensor_bytes},
      {"--max-run-bytes", &limits.max_run_bytes},
      {"--max-sequence-length", &limits.max_sequence_length}};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto it = std::find_if(numeric.begin(), numeric.end(), [&](const auto& o) { return o.first == a; });
    if (it != numeric.end() || a == "--time-limit") {
      const long long v = i + 1 < argc ? number(argv[i + 1]) : -1;
      if (v < 0) {
        std::fprintf(stderr, "tseq-onnx-test: %s needs a non-negative integer\n", a.c_str());
        return 2;
      }
      ++i;
      if (it != numeric.end()) {
        *it->second = v;
      } else {
        limits.time_limit = std::chrono::seconds(std::min<long long>(v, 100LL * 365 * 24 * 3600));
      }
    } else if (a == "--no-limits") {
      limits = SessionOptions{};
    } else if (a == "--skip-missing") {
      skip_missing = true;
    } else if (a == "--expect" && i + 1 < argc) {
      expect = std::strtol(argv[++i], nullptr, 10);
    } else if (a == "-h" || a == "--help") {
      std::printf("%s", kUsage);
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "tseq-onnx-test: unknown option %s\n", a.c_str());
      return 2;
    } else {
      dirs.emplace_back(a);
    }
  }
  if (dirs.empty()) {
    std::fprintf(stderr, "%s", kUsage);
    return 2;
  }
  std::vector<fs::path> cases;
  std::vector<std::pair<fs::path, std::string>> unreadable;
  std::set<fs::path> seen;
  bool any = false;
  for (const auto& d : dirs) {
    std::error_code ec;
    if (!fs::is_directory(d, ec)) {
      std::printf("missing: %s is not a directory\n", d.string().c_str());
      continue;
    }
    any = true;
    collect(d, cases, unreadable, seen);
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
  for (const auto& [dir, why] : unreadable) {
    std::printf("FAIL %s: cannot read the folder: %s\n", dir.string().c_str(), why.c_str());
    ++failed;
  }
  for (const auto& c : cases) {
    const std::string name = c.parent_path().filename().string() + "/" + c.filename().string();
    std::string why;
    try {
      why = run_case(c, limits);
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
