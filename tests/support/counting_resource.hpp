#pragma once

// A std::pmr::memory_resource that counts what it hands out and checks that every block comes
// back exactly once with the size and alignment it was allocated with. Thread-safe. Can be
// told to fail the k-th allocation.

#include <gtest/gtest.h>

#include <atomic>
#include <cstddef>
#include <map>
#include <memory_resource>
#include <mutex>
#include <new>
#include <utility>

namespace tseq_test {

class CountingResource final : public std::pmr::memory_resource {
 public:
  ~CountingResource() override { EXPECT_TRUE(live_.empty()) << live_.size() << " blocks never returned"; }

  long allocations() const noexcept { return allocations_.load(); }
  long deallocations() const noexcept { return deallocations_.load(); }
  std::size_t bytes_allocated() const noexcept { return bytes_.load(); }
  std::size_t bytes_outstanding() const {
    std::lock_guard<std::mutex> g(m_);
    std::size_t n = 0;
    for (const auto& [p, b] : live_) n += b.first;
    return n;
  }
  // The k-th allocation from now on (1-based) throws std::bad_alloc; 0: never.
  void fail_at(long k) noexcept { fail_at_ = k == 0 ? 0 : allocations_.load() + k; }

 private:
  void* do_allocate(std::size_t bytes, std::size_t align) override {
    const long k = ++allocations_;
    if (fail_at_ != 0 && k == fail_at_) {
      --allocations_;
      fail_at_ = 0;
      throw std::bad_alloc();
    }
    void* p = std::pmr::new_delete_resource()->allocate(bytes, align);
    bytes_ += bytes;
    std::lock_guard<std::mutex> g(m_);
    live_.emplace(p, std::make_pair(bytes, align));
    return p;
  }
  void do_deallocate(void* p, std::size_t bytes, std::size_t align) override {
    {
      std::lock_guard<std::mutex> g(m_);
      auto it = live_.find(p);
      EXPECT_NE(it, live_.end()) << "a block this resource did not hand out (or returned twice)";
      if (it == live_.end()) return;
      EXPECT_EQ(it->second.first, bytes) << "returned with another size";
      EXPECT_EQ(it->second.second, align) << "returned with another alignment";
      live_.erase(it);
    }
    ++deallocations_;
    std::pmr::new_delete_resource()->deallocate(p, bytes, align);
  }
  bool do_is_equal(const std::pmr::memory_resource& o) const noexcept override { return this == &o; }

  std::atomic<long> allocations_{0};
  std::atomic<long> deallocations_{0};
  std::atomic<std::size_t> bytes_{0};
  long fail_at_ = 0;
  mutable std::mutex m_;
  std::map<void*, std::pair<std::size_t, std::size_t>> live_;
};

// An owner for Tensor::adopt that counts how often it is released (destroyed while armed).
struct CountingOwner {
  std::atomic<int>* releases;
  explicit CountingOwner(std::atomic<int>* r) noexcept : releases(r) {}
  CountingOwner(CountingOwner&& o) noexcept : releases(std::exchange(o.releases, nullptr)) {}
  CountingOwner& operator=(CountingOwner&&) = delete;
  ~CountingOwner() {
    if (releases != nullptr) ++*releases;
  }
};

}  // namespace tseq_test
