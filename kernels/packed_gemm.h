// A linear layer's weight matrix copied once (at model load) into the panel layout of tokvec's own AVX-512 f32
// GEMM micro-kernel, and that GEMM: y += x·W for a block of rows and a range of output columns.
//
//   std::unique_ptr<const PackedWeights> packed = PackedWeights::Pack(w);   // either layout, any row_stride
//   LinearWeights fast = w;
//   fast.packed = packed.get();                    // TiledLinearInto (tiled_linear.h) then runs MultiplyAdd
//   packed->MultiplyAdd(x, ldx, rows, /*col0=*/0, out, y, ldy);              // y[rows, out] += x·W(ᵀ)
//
// Why: 86% of a 12-layer GPT-2/BERT forward is these products. OpenBLAS runs its AVX2 (Haswell) kernel here
// (OPENBLAS_CORETYPE=Haswell is the machine's setting, which tokvec does not override) and re-packs the weight on
// every call; ONNX Runtime's MLAS uses AVX-512 with weights packed at load. This kernel does the same.
//
// Layout: the input dimension is cut into blocks of kPackedDepth; within a block, the output columns into panels
// of kPackedColumns (32 = two zmm registers, the last panel zero-padded), each panel stored k-major: the block's
// k-th row of the panel is 32 consecutive floats. A panel block (256 x 32 floats, 32 KB) stays in L1 while the
// micro-kernel runs it against every 12-row group of x, read in place (kPackedRows rows x the block; a short last
// group reads its last row again and stores only its own rows), keeping 12 x 2 accumulators in registers: per k,
// two panel loads and 24 FMAs, each with a broadcast element of x.
//
// Determinism (the server batches requests and promises identical vectors, see server/batcher.h): every output
// element is y0 + x[r,0]·W[0,c] + x[r,1]·W[1,c] + ... as one chain of FMAs in k order, starting from the value y
// held (bias, residual), with the same instructions whatever the number of rows, the row's position, the column
// range or the thread that runs it; a short last row group runs the same code (its missing rows repeat a real one).
// So a row's bits depend only on that row and the weights (tests/kernels/packed_gemm_test.cc proves it).
//
// Needs AVX-512F at run time: PackedGemmAvailable() says whether MultiplyAdd may be called. The environment
// variable TOKVEC_GEMM=openblas turns it off (the OpenBLAS path then runs, e.g. to compare the two in one build).
#ifndef TOKVEC_KERNELS_PACKED_GEMM_H_
#define TOKVEC_KERNELS_PACKED_GEMM_H_

#include <cstdint>
#include <memory>
#include <optional>

#include "kernels/ops.h"

namespace tokvec {

inline constexpr int64_t kPackedColumns = 32;  // output columns per panel
inline constexpr int64_t kPackedDepth = 256;   // input features per block
inline constexpr int64_t kPackedRows = 12;     // rows per micro-kernel call

// True when the CPU runs AVX-512F and TOKVEC_GEMM is not "openblas" (checked once).
bool PackedGemmAvailable();

// An immutable packed copy of one weight matrix; thread-safe to use from any number of threads.
class PackedWeights {
 public:
  // Copies w.weight (kOutIn or kInOut, honouring row_stride) into panels. The bias is not packed (the caller
  // puts it into y first). Works on any CPU; only MultiplyAdd needs AVX-512.
  static std::unique_ptr<const PackedWeights> Pack(const LinearWeights& w);

  int64_t in_features() const { return in_; }
  int64_t out_features() const { return out_; }

  // y[r, c] += Σ_k x[r, k]·W[k, col0 + c] for r < rows, c < cols (x: row stride ldx, in_features() columns;
  // y: row stride ldy). col0 must be a multiple of kPackedColumns and col0 + cols <= out_features(). Unchecked;
  // only when PackedGemmAvailable(). With `activation`, then y = act(y), each 12 x 32 tile as soon as its sum is
  // complete, while it is in L1 (ApplyActivation is elementwise: the same bits as applying it afterwards).
  void MultiplyAdd(const float* x, int64_t ldx, int64_t rows, int64_t col0, int64_t cols, float* y, int64_t ldy,
                   std::optional<Activation> activation = std::nullopt) const;

 private:
  struct AlignedDelete {
    void operator()(float* p) const;
  };
  PackedWeights(int64_t in, int64_t out);

  int64_t in_, out_, panels_;
  std::unique_ptr<float[], AlignedDelete> data_;  // [blocks of the input][panels][block depth][32]
};

}  // namespace tokvec

#endif  // TOKVEC_KERNELS_PACKED_GEMM_H_
