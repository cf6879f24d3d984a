#pragma once

// A counted reference to an object that keeps its own reference count (tree nodes, tensor
// storage): the part of boost::intrusive_ptr tseq uses, without its header's weight (about
// 40,000 preprocessed lines). The object's type provides, found by argument-dependent lookup,
//   void intrusive_ptr_add_ref(T*) noexcept;  void intrusive_ptr_release(T*) noexcept;
// Invariant: a non-null intrusive_ref owns exactly one count of its object.

#include <cstddef>
#include <utility>

namespace tseq::detail {

template <class T>
class intrusive_ref {
 public:
  intrusive_ref() noexcept = default;
  intrusive_ref(std::nullptr_t) noexcept {}  // NOLINT(google-explicit-constructor): as a pointer
  // Takes a new count of p when add_ref, else adopts the count the caller holds.
  explicit intrusive_ref(T* p, bool add_ref = true) noexcept : p_(p) {
    if (p_ != nullptr && add_ref) intrusive_ptr_add_ref(p_);
  }
  intrusive_ref(const intrusive_ref& o) noexcept : intrusive_ref(o.p_, true) {}
  intrusive_ref(intrusive_ref&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  intrusive_ref& operator=(const intrusive_ref& o) noexcept {
    if (this != &o) intrusive_ref(o).swap(*this);
    return *this;
  }
  intrusive_ref& operator=(intrusive_ref&& o) noexcept {
    intrusive_ref(std::move(o)).swap(*this);
    return *this;
  }
  intrusive_ref& operator=(std::nullptr_t) noexcept {
    reset();
    return *this;
  }
  ~intrusive_ref() {
    if (p_ != nullptr) intrusive_ptr_release(p_);
  }

  void reset() noexcept { intrusive_ref().swap(*this); }
  void swap(intrusive_ref& o) noexcept { std::swap(p_, o.p_); }
  // Gives up the count without releasing it; the caller now holds it.
  [[nodiscard]] T* detach() noexcept { return std::exchange(p_, nullptr); }

  [[nodiscard]] T* get() const noexcept { return p_; }
  T* operator->() const noexcept { return p_; }
  T& operator*() const noexcept { return *p_; }
  explicit operator bool() const noexcept { return p_ != nullptr; }

  friend bool operator==(const intrusive_ref& a, const intrusive_ref& b) noexcept { return a.p_ == b.p_; }
  friend bool operator==(const intrusive_ref& a, std::nullptr_t) noexcept { return a.p_ == nullptr; }

 private:
  T* p_ = nullptr;
};

}  // namespace tseq::detail
