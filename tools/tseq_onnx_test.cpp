// tseq-onnx-test: runs ONNX backend test cases (model.onnx + test_data_set_*/) with tseq's
// executor and compares the outputs with the expected ones.
//
//   tseq-onnx-test [--skip-missing] [--expect N] [--follow-links] [limits] DIR...
//
// Each DIR is a case or a folder holding cases, searched down to 64 folders deep. Prints
// "PASS name" or "FAIL name: reason" per case, then "N passed, M failed". A folder that cannot be
// read, or the search cannot enter, is reported as a failure and the search goes on. Exit status:
// 0 if all passed, 1 if any failed (or --expect N did not match the number of cases), 2 on a
// usage error, 77 when --skip-missing is given and no DIR exists (so that ctest reports the test
// as skipped).
//
// The folders are treated as hostile (docs/onnx.md, "Running untrusted models"):
//  - A symbolic link (to a folder of cases, a model or a .pb file) is followed only when its
//    target lies inside the DIR given; a link that leaves it fails its case ("leads outside").
//    --follow-links follows every link. A folder reached twice (a link loop) is searched once,
//    known by its device and inode.
//  - model.onnx and every .pb must be a regular file (not a FIFO or a device) and is checked
//    against the size limits before it is read.
//  - Everything printed that came from a file or a folder name has its control characters
//    escaped, so no name can forge a PASS line or the summary.
//
// Every case runs under limits (a conformance runner meets models it did not write):
//   --time-limit SECONDS        per case: loading the model, reading and running every data
//                               set (default 60)
//   --max-loop-iterations N     per Loop node (default 1000000)
//   --max-tensor-elements N     per tensor an operator makes or a file holds (default 134217728)
//   --max-tensor-bytes N        per tensor an operator makes or a file holds (default 536870912)
//   --max-run-bytes N           tensors alive in one run, and per .pb file (default 2147483648)
//   --max-sequence-length N     tensors in one sequence (default 1000000)
//   --no-limits                 none of these, and no load limits
// and loads models with tseq::onnx::LoadOptions::untrusted() (1 GiB files, 10^6 nodes, 4 KiB
// names) within the case's time.

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "tseq/onnx/executor.hpp"
#include "tseq/onnx/proto.hpp"

namespace fs = std::filesystem;
using namespace tseq;
using namespace tseq::onnx;

namespace {

constexpr double kRtol = 1e-3;
constexpr double kAtol = 1e-7;
// Folders below a DIR the search enters (ONNX's own test data is 4 deep).
constexpr int kMaxDepth = 64;
// Bytes of one printed reason.
constexpr std::size_t kMaxReason = 4000;

using Clock = std::chrono::steady_clock;

// `s` with control characters, DEL and bytes >= 0x80 as \n, \t, \r or \xNN, cut past `max`
// bytes: every reason printed is one line. For a file or folder name (`name`), backslashes are
// doubled too, so that no name forges an escape; tseq's messages already escape the names they
// quote that way (escape_name), so their backslashes are kept.
std::string printable(std::string_view s, std::size_t max = kMaxReason, bool name = false) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (out.size() >= max) {
      out += "...(" + std::to_string(s.size()) + " bytes)";
      break;
    }
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\\' && name) {
      out += "\\\\";
    } else if (c < 0x20 || c >= 0x7F) {  // bytes >= 0x80 too: UTF-8 C1 controls (U+009B) are controls
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string printable_path(const fs::path& p) { return printable(std::string_view(p.native()), kMaxReason, true); }

// The rules a search and its cases follow.
struct Walk {
  fs::path root;       // the DIR given, as given
  fs::path real_root;  // its canonical form, what link targets are compared with
  bool follow_links = false;
};

// Whether `real` (canonical) is real_root or lies under it.
bool inside(const fs::path& real, const fs::path& real_root) {
  auto r = real_root.begin();
  auto p = real.begin();
  for (; r != real_root.end(); ++r, ++p) {
    if (p == real.end() || *p != *r) return false;
  }
  return true;
}

// An empty string if `p` may be used under the walk's rules, else why not. Only a symbolic link
// costs a canonical() call; its parents were checked on the way down.
std::string check_link(const fs::path& p, const Walk& w) {
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(p, ec);
  if (ec || !fs::is_symlink(st) || w.follow_links) return {};
  const fs::path real = fs::canonical(p, ec);
  if (ec) return printable_path(p) + ": a symbolic link that cannot be resolved (" + ec.message() + ")";
  if (!inside(real, w.real_root)) {
    // The target is not printed: where a link leads outside is not the folder's to reveal.
    return printable_path(p) + ": a symbolic link that leads outside " + printable_path(w.root) +
           " (--follow-links follows it)";
  }
  return {};
}

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

struct Found {
  std::vector<fs::path> cases;
  std::vector<std::pair<fs::path, std::string>> refused;  // folders not searched, and why
  std::set<std::pair<dev_t, ino_t>> seen;                 // folders searched, across all DIRs
};

// Cases under w.root, depth first in name order, without recursion: the stack holds each
// pending folder once, and a folder is known by (device, inode), so a walk is linear in the
// folders it meets.
void collect(const Walk& w, Found& found) {
  std::vector<std::pair<fs::path, int>> stack{{w.root, 0}};
  while (!stack.empty()) {
    auto [dir, depth] = std::move(stack.back());
    stack.pop_back();
    if (std::string why = check_link(dir, w); !why.empty()) {
      found.refused.emplace_back(dir, std::move(why));
      continue;
    }
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0) {
      found.refused.emplace_back(dir, printable_path(dir) + ": " + std::generic_category().message(errno));
      continue;
    }
    if (!found.seen.emplace(st.st_dev, st.st_ino).second) continue;  // reached again: a loop or a duplicate
    std::error_code ec;
    if (fs::exists(dir / "model.onnx", ec)) {
      found.cases.push_back(dir);
      continue;
    }
    std::string error;
    auto subs = subdirectories(dir, error);
    if (!error.empty()) found.refused.emplace_back(dir, printable_path(dir) + ": cannot read the folder: " + error);
    if (subs.empty()) continue;
    if (depth == kMaxDepth) {
      found.refused.emplace_back(dir, printable_path(dir) + ": folders nested more than " + std::to_string(kMaxDepth) +
                                          " deep are not searched");
      continue;
    }
    std::reverse(subs.begin(), subs.end());  // popped in name order
    for (auto& sub : subs) stack.emplace_back(std::move(sub), depth + 1);
  }
}

// What one case may use.
struct Limits {
  SessionOptions session;
  LoadOptions load;
  ReadLimits read;
};

// Time left of a case's budget; throws when it is used up. nullopt: no budget.
std::chrono::nanoseconds left(std::optional<Clock::time_point> deadline, std::chrono::nanoseconds budget) {
  if (!deadline) return std::chrono::nanoseconds(0);
  const auto now = Clock::now();
  if (now >= *deadline) {
    throw RunStopped("the case's time limit of " +
                     std::to_string(std::chrono::duration_cast<std::chrono::seconds>(budget).count()) +
                     " s is used up");
  }
  return *deadline - now;
}

// Whether `f` exists (a dangling or refused link counts: it is reported when used).
bool present(const fs::path& f) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(f, ec));
}

// Runs every test_data_set_* of one case within one time budget (loading included); returns an
// empty string on success, else the reason.
std::string run_case(const fs::path& dir, const Walk& w, const Limits& lim) {
  const std::chrono::nanoseconds budget = lim.session.time_limit;
  std::optional<Clock::time_point> deadline;
  if (budget.count() > 0) deadline = Clock::now() + budget;
  const fs::path model_file = dir / "model.onnx";
  if (std::string why = check_link(model_file, w); !why.empty()) return why;
  LoadOptions load = lim.load;
  if (deadline) load.time_limit = left(deadline, budget);
  const Model model = Model::load(model_file, load);
  std::vector<fs::path> sets;
  std::string error;
  for (const auto& p : subdirectories(dir, error)) {
    if (p.filename().native().rfind("test_data_set_", 0) == 0) sets.push_back(p);
  }
  if (!error.empty()) return "cannot read the case's folder: " + error;
  if (sets.empty()) return "no test_data_set_* folder";
  // A .pb file, refused when it is a link that leaves the root.
  auto load_pb = [&](const fs::path& f, const ValueType& type) {
    if (std::string why = check_link(f, w); !why.empty()) throw Error(why);
    (void)left(deadline, budget);
    return load_value(f, type, lim.read);
  };
  for (const auto& set : sets) {
    const std::string set_name = printable_path(set.filename());
    if (std::string why = check_link(set, w); !why.empty()) return why;
    std::vector<Value> inputs;
    for (std::size_t i = 0; present(set / ("input_" + std::to_string(i) + ".pb")); ++i) {
      if (i >= model.inputs().size()) return set_name + ": more input files than graph inputs";
      inputs.push_back(load_pb(set / ("input_" + std::to_string(i) + ".pb"), model.inputs()[i].type));
    }
    SessionOptions options = lim.session;
    options.time_limit = left(deadline, budget);
    Session session(model, options);
    const std::vector<Value> outputs = session.run(std::move(inputs));
    std::size_t checked = 0;
    for (std::size_t i = 0; present(set / ("output_" + std::to_string(i) + ".pb")); ++i) {
      if (i >= outputs.size()) return set_name + ": more output files than graph outputs";
      const Value expected = load_pb(set / ("output_" + std::to_string(i) + ".pb"), model.outputs()[i].type);
      std::string why;
      if (!all_close(outputs[i], expected, kRtol, kAtol, &why)) {
        std::string r = set_name;
        r += " output " + std::to_string(i) + " ('" + escape_name(model.outputs()[i].name) + "'): ";
        r += why;
        return r;
      }
      ++checked;
    }
    if (checked == 0) return set_name + ": no output_*.pb to compare";
  }
  return {};
}

}  // namespace

constexpr const char* kUsage =
    "usage: tseq-onnx-test [--skip-missing] [--expect N] [--follow-links] [--time-limit SECONDS]\n"
    "       [--max-loop-iterations N] [--max-tensor-elements N] [--max-tensor-bytes N] [--max-run-bytes N]\n"
    "       [--max-sequence-length N] [--no-limits] DIR...\n";

// A non-negative integer option value, or -1.
long long number(const char* s) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(s, &end, 10);
  return errno != 0 || end == s || *end != '\0' || v < 0 ? -1 : v;
}

int main(int argc, char** argv) {
  bool skip_missing = false;
  bool follow_links = false;
  bool no_limits = false;
  long long expect = -1;
  std::vector<fs::path> dirs;
  SessionOptions session;
  session.time_limit = std::chrono::seconds(60);
  session.max_loop_iterations = 1'000'000;
  session.max_tensor_elements = std::int64_t{1} << 27;
  session.max_tensor_bytes = std::int64_t{512} << 20;
  session.max_run_bytes = std::int64_t{2} << 30;
  session.max_sequence_length = 1'000'000;
  const std::vector<std::pair<std::string, std::int64_t*>> numeric = {
      {"--max-loop-iterations", &session.max_loop_iterations},
      {"--max-tensor-elements", &session.max_tensor_elements},
      {"--max-tensor-bytes", &session.max_tensor_bytes},
      {"--max-run-bytes", &session.max_run_bytes},
      {"--max-sequence-length", &session.max_sequence_length}};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto it = std::find_if(numeric.begin(), numeric.end(), [&](const auto& o) { return o.first == a; });
    if (it != numeric.end() || a == "--time-limit" || a == "--expect") {
      const long long v = i + 1 < argc ? number(argv[i + 1]) : -1;
      if (v < 0) {
        std::fprintf(stderr, "tseq-onnx-test: %s needs a non-negative integer\n", a.c_str());
        return 2;
      }
      ++i;
      if (it != numeric.end()) {
        *it->second = v;
      } else if (a == "--expect") {
        expect = v;
      } else {
        session.time_limit = std::chrono::seconds(std::min<long long>(v, 100LL * 365 * 24 * 3600));
      }
    } else if (a == "--no-limits") {
      no_limits = true;
    } else if (a == "--skip-missing") {
      skip_missing = true;
    } else if (a == "--follow-links") {
      follow_links = true;
    } else if (a == "-h" || a == "--help") {
      std::printf("%s", kUsage);
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "tseq-onnx-test: unknown option %s\n", printable(a).c_str());
      return 2;
    } else {
      dirs.emplace_back(a);
    }
  }
  if (dirs.empty()) {
    std::fprintf(stderr, "%s", kUsage);
    return 2;
  }
  Limits limits;
  if (no_limits) {
    limits.session = SessionOptions{};
  } else {
    limits.session = session;
    limits.load = LoadOptions::untrusted();
    limits.read = session.read_limits();
  }
  Found found;
  std::vector<std::pair<fs::path, Walk>> walks;  // each case with the rules of the DIR it came from
  bool any = false;
  for (const auto& d : dirs) {
    std::error_code ec;
    if (!fs::is_directory(d, ec)) {
      std::printf("missing: %s is not a directory\n", printable_path(d).c_str());
      continue;
    }
    any = true;
    Walk w{d, fs::canonical(d, ec), follow_links};
    if (ec) {
      found.refused.emplace_back(d, printable_path(d) + ": " + ec.message());
      continue;
    }
    const std::size_t before = found.cases.size();
    collect(w, found);
    for (std::size_t i = before; i < found.cases.size(); ++i) walks.emplace_back(found.cases[i], w);
  }
  if (!any) {
    if (skip_missing) {
      std::printf("SKIP: no test directory found (the ONNX test data lives beside the checkout, in ../shared)\n");
      return 77;
    }
    return 1;
  }
  long long passed = 0;
  long long failed = 0;
  for (const auto& [dir, why] : found.refused) {
    std::printf("FAIL %s\n", why.c_str());
    ++failed;
  }
  for (const auto& [c, w] : walks) {
    const std::string name = printable_path(c.parent_path().filename()) + "/" + printable_path(c.filename());
    std::string why;
    try {
      why = run_case(c, w, limits);
    } catch (const std::exception& e) {
      why = e.what();
    }
    if (why.empty()) {
      std::printf("PASS %s\n", name.c_str());
      ++passed;
    } else {
      std::printf("FAIL %s: %s\n", name.c_str(), printable(why).c_str());
      ++failed;
    }
  }
  std::printf("%lld passed, %lld failed\n", passed, failed);
  if (expect >= 0 && passed + failed != expect) {
    std::printf("expected %lld cases, found %lld\n", expect, passed + failed);
    return 1;
  }
  return failed == 0 ? 0 : 1;
}
