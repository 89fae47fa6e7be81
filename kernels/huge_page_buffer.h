// Uninitialized float storage for large activations (a batch's [B·T, F] feed-forward buffer is 12 MB), backed by
// an anonymous mapping aligned to 2 MB that asks for transparent huge pages (madvise(MADV_HUGEPAGE)) before
// the first touch, so the kernel can back it with 2 MB pages where THP is in "madvise" mode (Debian's default).
//
//   HugePageBuffer hidden;
//   float* h = hidden.Reserve(rows * ff);   // [N, F], contents undefined until written
//
// Why: with 4 KB pages the GEMMs' packing routines and epilogue passes walk ~30 MB of activations per
// `tokvec bench layer` call through the TLB; the same binary under GLIBC_TUNABLES=glibc.malloc.hugetlb=1
// (huge pages for every large malloc) was faster in 10 of 12 alternating 2-thread runs (median ~19.3-20.2k
// against ~18.9-19.2k tokens/s, shared machine). Without THP (or off Linux) this is plain page-aligned memory.
#ifndef TOKVEC_KERNELS_HUGE_PAGE_BUFFER_H_
#define TOKVEC_KERNELS_HUGE_PAGE_BUFFER_H_

#include <cstddef>
#include <cstdint>

namespace tokvec {

class HugePageBuffer {
 public:
  HugePageBuffer() = default;
  ~HugePageBuffer();
  HugePageBuffer(const HugePageBuffer&) = delete;
  HugePageBuffer& operator=(const HugePageBuffer&) = delete;
  HugePageBuffer(HugePageBuffer&& other) noexcept;
  HugePageBuffer& operator=(HugePageBuffer&& other) noexcept;

  // At least `size` floats; grows (dropping the contents) when smaller. From one huge page up: a 2 MB-aligned
  // mapping with the THP advice; below (or if mmap fails): 64-byte-aligned heap memory.
  float* Reserve(int64_t size);

 private:
  void Release();
  float* Heap(int64_t size);

  void* mapping_ = nullptr;  // what mmap returned (or aligned_alloc when mapped_ is false)
  size_t mapping_bytes_ = 0;
  bool mapped_ = false;
  float* data_ = nullptr;    // 2 MB-aligned start inside the mapping
  int64_t capacity_ = 0;     // floats usable from data_
};

}  // namespace tokvec

#endif  // TOKVEC_KERNELS_HUGE_PAGE_BUFFER_H_
