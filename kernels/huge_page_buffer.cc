#include "kernels/huge_page_buffer.h"

#include <sys/mman.h>

#include <cstdlib>
#include <new>
#include <utility>

namespace tokvec {
namespace {

constexpr size_t kHugePage = size_t{2} << 20;

}  // namespace

HugePageBuffer::~HugePageBuffer() { Release(); }

HugePageBuffer::HugePageBuffer(HugePageBuffer&& other) noexcept { *this = std::move(other); }

HugePageBuffer& HugePageBuffer::operator=(HugePageBuffer&& other) noexcept {
  if (this != &other) {
    Release();
    mapping_ = std::exchange(other.mapping_, nullptr);
    mapping_bytes_ = std::exchange(other.mapping_bytes_, 0);
    mapped_ = std::exchange(other.mapped_, false);
    data_ = std::exchange(other.data_, nullptr);
    capacity_ = std::exchange(other.capacity_, 0);
  }
  return *this;
}

void HugePageBuffer::Release() {
  if (mapping_ != nullptr) {
    if (mapped_) {
      munmap(mapping_, mapping_bytes_);
    } else {
      std::free(mapping_);
    }
  }
  mapping_ = nullptr;
  mapping_bytes_ = 0;
  mapped_ = false;
  data_ = nullptr;
  capacity_ = 0;
}

float* HugePageBuffer::Reserve(int64_t size) {
  if (size <= capacity_) return data_;
  Release();
  const size_t needed = static_cast<size_t>(size) * sizeof(float);
  // Below one huge page (tests, short inputs): plain 64-byte-aligned heap memory, no 2 MB mapping per call.
  if (needed < kHugePage) return Heap(size);
  const size_t bytes = (needed + kHugePage - 1) / kHugePage * kHugePage;
  // One extra huge page of slack to align the start.
  void* mapping = mmap(nullptr, bytes + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapping == MAP_FAILED) return Heap(size);
  mapping_ = mapping;
  mapping_bytes_ = bytes + kHugePage;
  mapped_ = true;
  const uintptr_t start = (reinterpret_cast<uintptr_t>(mapping) + kHugePage - 1) / kHugePage * kHugePage;
  data_ = reinterpret_cast<float*>(start);
#if defined(MADV_HUGEPAGE)
  madvise(data_, bytes, MADV_HUGEPAGE);  // advice only: failure (no THP) leaves normal pages
#endif
  capacity_ = static_cast<int64_t>(bytes / sizeof(float));
  return data_;
}

float* HugePageBuffer::Heap(int64_t size) {
  const size_t bytes = (static_cast<size_t>(size) * sizeof(float) + 63) / 64 * 64;
  mapping_ = std::aligned_alloc(64, bytes > 0 ? bytes : 64);
  if (mapping_ == nullptr) throw std::bad_alloc();
  data_ = static_cast<float*>(mapping_);
  capacity_ = size;
  return data_;
}

}  // namespace tokvec
