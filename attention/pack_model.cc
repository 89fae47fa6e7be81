#include "attention/pack_model.h"

namespace tokvec {

void PackModelWeights(TransformerStack* stack, DecoderStack* decoder, PackedWeightStore* store) {
  store->clear();
  if (!PackedGemmAvailable()) return;
  auto pack = [store](LinearWeights* w) {
    if (w->empty()) return;
    w->packed = nullptr;
    store->push_back(PackedWeights::Pack(*w));
    w->packed = store->back().get();
  };
  for (TransformerBlockWeights& b : stack->blocks) {
    for (LinearWeights* w : {&b.attention.qkv, &b.attention.q, &b.attention.k, &b.attention.v, &b.attention.out,
                             &b.feed_forward.up, &b.feed_forward.down}) {
      pack(w);
    }
  }
  for (DecoderLayerWeights& l : decoder->layers) {
    for (LinearWeights* w : {&l.q, &l.k, &l.v, &l.o, &l.gate, &l.up, &l.down}) pack(w);
  }
}

}  // namespace tokvec
