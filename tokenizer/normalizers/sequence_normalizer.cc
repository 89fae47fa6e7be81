#include "tokenizer/normalizers/sequence_normalizer.h"

#include "base/status_macros.h"

namespace tokvec {

NormalizedText IdentityNormalized(std::string_view text) {
  NormalizedText out;
  out.text = std::string(text);
  out.source_begin.resize(text.size());
  out.source_end.resize(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    out.source_begin[i] = i;
    out.source_end[i] = i + 1;
  }
  return out;
}

NormalizedText ComposeNormalized(const NormalizedText& outer, NormalizedText inner, size_t source_size) {
  const size_t n = outer.text.size();
  for (size_t j = 0; j < inner.text.size(); ++j) {
    const size_t b = inner.source_begin[j];
    const size_t e = inner.source_end[j];
    if (e > b && e <= n) {
      inner.source_begin[j] = outer.source_begin[b];
      inner.source_end[j] = outer.source_end[e - 1];
    } else {
      const size_t at = b < n ? outer.source_begin[b] : source_size;
      inner.source_begin[j] = at;
      inner.source_end[j] = at;
    }
  }
  return inner;
}

absl::StatusOr<NormalizedText> NormalizerChain::Normalize(std::string_view text) const {
  NormalizedText result = IdentityNormalized(text);
  for (const std::unique_ptr<Normalizer>& step : steps_) {
    TOKVEC_ASSIGN_OR_RETURN(NormalizedText next, step->Normalize(result.text));
    result = ComposeNormalized(result, std::move(next), text.size());
  }
  return result;
}

std::string NormalizerChain::name() const {
  std::string name;
  for (const std::unique_ptr<Normalizer>& step : steps_) name += (name.empty() ? "" : "+") + step->name();
  return name;
}

}  // namespace tokvec
