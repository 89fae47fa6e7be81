// Packs every projection of a loaded model's layers (attention q/k/v or fused qkv, out, feed-forward; decoder
// q/k/v/o, gate/up/down) for tokvec's AVX-512 GEMM (packed_gemm.h), pointing each LinearWeights::packed at its copy.
//
//   PackedWeightStore store;
//   PackModelWeights(&stack, &decoder, &store);   // at load; `store` must outlive every use of the weights
//
// Does nothing when PackedGemmAvailable() is false (no AVX-512, or TOKVEC_GEMM=openblas), so such CPUs keep
// OpenBLAS and no memory. The copies cost as much memory as the f32 weights they pack (GPT-2 small: ~340 MB).
#ifndef TOKVEC_ATTENTION_PACK_MODEL_H_
#define TOKVEC_ATTENTION_PACK_MODEL_H_

#include <memory>
#include <vector>

#include "attention/decoder_block.h"
#include "attention/packed_gemm.h"
#include "attention/transformer_block.h"

namespace tokvec {

using PackedWeightStore = std::vector<std::unique_ptr<const PackedWeights>>;

// Replaces `store`'s contents with packed copies of the non-empty projections of `stack` and `decoder`.
void PackModelWeights(TransformerStack* stack, DecoderStack* decoder, PackedWeightStore* store);

}  // namespace tokvec

#endif  // TOKVEC_ATTENTION_PACK_MODEL_H_
