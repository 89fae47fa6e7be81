// Model::UseLinearDtype: the model's big linear layers in bf16 or int8 (kernels/low_precision_linear.h).
//
//   TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<Model> model, Model::Load("models/gpt2"));
//   TOKVEC_RETURN_IF_ERROR(model->UseLinearDtype(LinearDtype::kBf16));   // packs every projection once
//   fmt::print("{} bytes of linear weights\n", model->LinearWeightBytes());
#include <utility>

#include "kernels/pack_linears.h"
#include "models/model.h"

namespace tokvec {

std::vector<LinearWeights*> Model::LinearLayers() {
  std::vector<LinearWeights*> layers;
  for (TransformerBlockWeights& b : stack_.blocks) {
    for (LinearWeights* w : {&b.attention.qkv, &b.attention.q, &b.attention.k, &b.attention.v, &b.attention.out,
                             &b.feed_forward.up, &b.feed_forward.down}) {
      if (!w->empty()) layers.push_back(w);
    }
  }
  for (DecoderLayerWeights& l : decoder_.layers) {
    for (LinearWeights* w : {&l.q, &l.k, &l.v, &l.o, &l.gate, &l.up, &l.down}) {
      if (!w->empty()) layers.push_back(w);
    }
  }
  return layers;
}

std::vector<const LinearWeights*> Model::LinearLayers() const {
  std::vector<LinearWeights*> layers = const_cast<Model*>(this)->LinearLayers();
  return std::vector<const LinearWeights*>(layers.begin(), layers.end());
}

absl::Status Model::UseLinearDtype(LinearDtype dtype) {
  if (dtype == linear_dtype_) return absl::OkStatus();
  if (absl::Status status = CheckCpuSupports(dtype); !status.ok()) return status;
  absl::StatusOr<std::vector<std::unique_ptr<LowPrecisionWeights>>> packed = PackLayers(LinearLayers(), dtype);
  if (!packed.ok()) return packed.status();
  low_weights_ = std::move(*packed);
  linear_dtype_ = dtype;
  // The f32 copies packed for the AVX-512 GEMM (pack_linears.h) serve f32 only: dropped for bf16 / int8 (their
  // memory is the size of the f32 weights), packed again when f32 comes back.
  pack_f32_ = dtype == LinearDtype::kF32;
  if (pack_f32_) {
    PackLinears(LinearLayers(), &packed_);
  } else {
    for (LinearWeights* w : LinearLayers()) w->packed = nullptr;
    packed_.clear();
  }
  return absl::OkStatus();
}

size_t Model::LinearWeightBytes() const {
  size_t bytes = 0;
  for (const LinearWeights* w : LinearLayers()) {
    bytes += w->low != nullptr ? w->low->bytes()
                               : static_cast<size_t>(w->in_features() * w->out_features()) * sizeof(float);
  }
  return bytes;
}

}  // namespace tokvec
