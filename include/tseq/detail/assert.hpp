#pragma once

// TSEQ_ASSERT(condition, "what"): checks a precondition or an internal invariant where tseq
// would otherwise have undefined behaviour (operator[] past the end, a broken tree after an
// update). On in debug builds (NDEBUG not defined) and wherever TSEQ_ASSERTIONS=1 is defined
// (CMake: -DTSEQ_ASSERTIONS=ON, as the ci preset does); compiled out otherwise. A failed check
// prints the condition, the message and the place, then calls std::abort(): it is a bug in
// the caller (or tseq), never an input error, which are exceptions.
//
// Mixing: TSEQ_ASSERTIONS may differ between translation units of one program (a Debug
// application against a Release libtseq is the normal case), and it is deliberately not part of
// any name or type, unlike the node cache's configuration (tseq/detail/node_cache.hpp). It only
// adds checks: no type, member, size, object or thread-local state depends on it. The inline
// functions it changes exist in a checking and a non-checking copy, and the linker keeps one of
// each; either behaves the same on every correct use, so the only effect of mixing is that a
// precondition violation may be caught in some calls and not in others. Tagging it (an inline
// namespace or a template parameter) would instead make the application name other symbols
// than the library defines, so a Debug application would no longer link against a Release
// library. To keep mixing safe, code under `#if TSEQ_ASSERTIONS` must stay checks only, and a
// TSEQ_ASSERT condition must have no side effects.

#include <cstdio>
#include <cstdlib>

#if !defined(TSEQ_ASSERTIONS)
#if defined(NDEBUG)
#define TSEQ_ASSERTIONS 0
#else
#define TSEQ_ASSERTIONS 1
#endif
#endif

namespace tseq::detail {

[[noreturn]] inline void assertion_failed(const char* condition, const char* what, const char* file,
                                          int line) noexcept {
  std::fprintf(stderr, "%s:%d: tseq assertion failed: %s (%s)\n", file, line, what, condition);
  std::abort();
}

}  // namespace tseq::detail

#if TSEQ_ASSERTIONS
#define TSEQ_ASSERT(condition, what) \
  ((condition) ? static_cast<void>(0) : ::tseq::detail::assertion_failed(#condition, what, __FILE__, __LINE__))
#else
#define TSEQ_ASSERT(condition, what) static_cast<void>(0)
#endif
