#include "kernels/pack_linears.h"

namespace tokvec {

void PackLinears(const std::vector<LinearWeights*>& layers, PackedWeightStore* store) {
  for (LinearWeights* w : layers) w->packed = nullptr;
  store->clear();
  if (!PackedGemmAvailable()) return;
  for (LinearWeights* w : layers) {
    if (w->empty()) continue;
    store->push_back(PackedWeights::Pack(*w));
    w->packed = store->back().get();
  }
}

}  // namespace tokvec
