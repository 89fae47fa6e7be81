#include "tokenizer/sequence_encoding.h"

#include <string>

#include "base/status_macros.h"
#include "fmt/format.h"

namespace tokvec {

absl::StatusOr<PairEncoding> EncodePair(const Tokenizer& tokenizer, std::string_view a, std::string_view b,
                                        const EncodeOptions& options) {
  std::vector<TemplatePiece> layout;
  if (tokenizer.spec().post_processor != nullptr) {
    TOKVEC_ASSIGN_OR_RETURN(layout, tokenizer.spec().post_processor->PairTemplate());
  } else {
    TOKVEC_ASSIGN_OR_RETURN(layout, PostProcessor().PairTemplate());
  }
  EncodeOptions each = options;
  each.add_special_tokens = false;  // the pair template adds them
  Encoding encodings[2];
  const std::string_view texts[2] = {a, b};
  for (int i = 0; i < 2; ++i) {
    absl::StatusOr<Encoding> encoding = tokenizer.Encode(texts[i], each);
    if (!encoding.ok()) {
      return absl::Status(encoding.status().code(),
                          fmt::format("text {}: {}", i == 0 ? 'a' : 'b', std::string(encoding.status().message())));
    }
    encodings[i] = *std::move(encoding);
  }
  PairEncoding out;
  for (const TemplatePiece& piece : layout) {
    if (piece.kind == TemplatePiece::kTokens) {
      if (!options.add_special_tokens) continue;
      for (const TokenId id : piece.ids) {
        out.ids.push_back(id);
        out.type_ids.push_back(piece.type_id);
        out.sequence_ids.push_back(-1);
        out.offsets.push_back(Offset{0, 0});
      }
      continue;
    }
    const int sequence = piece.kind == TemplatePiece::kSequenceA ? 0 : 1;
    const Encoding& encoding = encodings[sequence];
    out.ids.insert(out.ids.end(), encoding.ids.begin(), encoding.ids.end());
    out.type_ids.insert(out.type_ids.end(), encoding.ids.size(), piece.type_id);
    out.sequence_ids.insert(out.sequence_ids.end(), encoding.ids.size(), sequence);
    out.offsets.insert(out.offsets.end(), encoding.offsets.begin(), encoding.offsets.end());
  }
  return out;
}

}  // namespace tokvec
