// Packs a model's projections (attention q/k/v or fused qkv, out, feed-forward; decoder q/k/v/o, gate/up/down: the
// list Model::LinearLayers gives) for tokvec's AVX-512 GEMM (packed_gemm.h), pointing each LinearWeights::packed
// at its copy.
//
//   PackedWeightStore store;
//   PackLinears(model_layers, &store);   // at load; `store` must outlive every use of the weights
//
// Does nothing when PackedGemmAvailable() is false (no AVX-512, or TOKVEC_GEMM=openblas), so such CPUs keep
// OpenBLAS and no memory. The copies cost as much memory as the f32 weights they pack (GPT-2 small: ~340 MB).
#ifndef TOKVEC_KERNELS_PACK_LINEARS_H_
#define TOKVEC_KERNELS_PACK_LINEARS_H_

#include <memory>
#include <vector>

#include "kernels/ops.h"
#include "kernels/packed_gemm.h"

namespace tokvec {

using PackedWeightStore = std::vector<std::unique_ptr<const PackedWeights>>;

// Clears every layer's `packed`, then replaces `store`'s contents with packed copies of the non-empty layers and
// points them there (when the packed GEMM is available).
void PackLinears(const std::vector<LinearWeights*>& layers, PackedWeightStore* store);

}  // namespace tokvec

#endif  // TOKVEC_KERNELS_PACK_LINEARS_H_
