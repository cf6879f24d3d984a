#pragma once

// Test helpers for errors and child processes.

#include <sys/wait.h>
#include <cstdio>
#include <exception>
#include <string>
#include <type_traits>
#include <utility>

namespace tseq_test {

// The message of the exception of type E that f throws; "(no exception)" if f returns, and
// "(another exception) ..." for an exception of another type.
template <class E = std::exception, class F>
std::string error_of(F&& f) {
  if constexpr (std::is_same_v<E, std::exception>) {
    try {
      f();
    } catch (const std::exception& e) {
      return e.what();
    }
  } else {
    try {
      f();
    } catch (const E& e) {
      return e.what();
    } catch (const std::exception& e) {
      return std::string("(another exception) ") + e.what();
    }
  }
  return "(no exception)";
}

// Runs a shell command; returns what it printed (stdout, and stderr if the command redirects
// it) and its exit status (-1 if it could not be started).
inline std::pair<std::string, int> run_command(const std::string& cmd) {
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) return {"", -1};
  std::string output;
  char buf[512];
  while (std::fgets(buf, sizeof buf, p) != nullptr) output += buf;
  const int status = ::pclose(p);
  return {output, WIFEXITED(status) ? WEXITSTATUS(status) : -1};
}

}  // namespace tseq_test
