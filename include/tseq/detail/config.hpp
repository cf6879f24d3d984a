#pragma once

// Compiler and portability macros of tseq's headers, each with a portable fallback: a compiler
// without the extension gets the same behaviour (at most slower code). Every compiler builtin
// in include/tseq goes through here (TSEQ_HAS_BUILTIN, TSEQ_PREFETCH_*); the sanitizer macros
// (TSEQ_ASAN, TSEQ_POISON) stay with their one user, tseq/detail/node_cache.hpp.
// Includes nothing.

// TSEQ_HAS_BUILTIN(name): 1 when the compiler has the builtin `name` (GCC >= 10, Clang),
// else 0 (then the caller uses its portable code).
#if defined(__has_builtin)
#define TSEQ_HAS_BUILTIN(name) __has_builtin(name)
#else
#define TSEQ_HAS_BUILTIN(name) 0
#endif

// TSEQ_ALWAYS_INLINE: after a lambda's parameter list (or before a declaration), asks for it
// to be inlined whatever the inliner's size limits. TSEQ_NOINLINE: before a declaration, keeps
// it out of line. Both are hints about speed only.
#if defined(__GNUC__) || defined(__clang__)
#define TSEQ_ALWAYS_INLINE __attribute__((always_inline))
#define TSEQ_NOINLINE __attribute__((noinline))
#else
#define TSEQ_ALWAYS_INLINE
#define TSEQ_NOINLINE
#endif

// TSEQ_PREFETCH_READ(p): asks for the cache line at address p, to be read soon (kept in all
// cache levels). Never faults, whatever p is; a no-op where the compiler has no prefetch
// builtin.
#if TSEQ_HAS_BUILTIN(__builtin_prefetch)
#define TSEQ_PREFETCH_READ(p) __builtin_prefetch((p), 0, 3)
#else
#define TSEQ_PREFETCH_READ(p) static_cast<void>(p)
#endif

// TSEQ_OPAQUE(x): the integer variable x keeps its value, but the optimiser forgets what it
// knew of it (its range above all). For a memcpy whose length the compiler can bound: gcc then
// expands it inline as `rep movsq`, which starts slowly on processors without fast short
// string moves, where the library's memcpy picks its copy for the machine (docs/decisions.md,
// "Updates"). A no-op where the compiler has no GNU inline assembly.
#if defined(__GNUC__) || defined(__clang__)
#define TSEQ_OPAQUE(x) __asm__("" : "+r"(x))
#else
#define TSEQ_OPAQUE(x) static_cast<void>(x)
#endif
