#include "tokenizer/batch/encode_texts.h"

#include <algorithm>
#include <utility>

namespace tokvec {

absl::Status EncodeTextIds(const Tokenizer& tokenizer, std::string_view text, const EncodeOptions& options,
                           std::vector<TokenId>* ids) {
  if (!options.add_special_tokens) return tokenizer.EncodeIds(text, options, ids);
  absl::StatusOr<Encoding> encoding = tokenizer.Encode(text, options);
  if (!encoding.ok()) return encoding.status();
  *ids = std::move(encoding->ids);
  return absl::OkStatus();
}

EncodedTexts EncodeTexts(const Tokenizer& tokenizer, absl::Span<const std::string_view> texts,
                         const EncodeOptions& options, WorkerPool* pool) {
  const size_t n = texts.size();
  EncodedTexts out;
  out.ids.resize(n);
  out.errors.resize(n);
  auto encode_range = [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) out.errors[i] = EncodeTextIds(tokenizer, texts[i], options, &out.ids[i]);
  };
  const size_t threads = pool == nullptr ? 1 : static_cast<size_t>(std::max(1, pool->threads()));
  if (threads <= 1 || n <= 1) {
    encode_range(0, n);
    return out;
  }
  // Blocks of texts, 16 per thread, so a slow block does not leave the others idle at the end.
  const size_t blocks = std::min(n, threads * 16);
  pool->Run(static_cast<int64_t>(blocks), [&](int64_t b) {
    encode_range(n * static_cast<size_t>(b) / blocks, n * static_cast<size_t>(b + 1) / blocks);
  });
  return out;
}

}  // namespace tokvec
