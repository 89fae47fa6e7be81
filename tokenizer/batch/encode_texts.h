// Many texts, each encoded on its own (Hugging Face's encode_batch): the library's batch encoding of short texts,
// as ChunkedEncoder (chunked_encoder.h) is of one large input. Python's Tokenizer.encode_batch and the server's
// text inputs (/v1/embeddings, /attention) run on it.
//
//   WorkerPool pool(2);
//   EncodedTexts out = EncodeTexts(tokenizer, {"hello world", "goodbye"}, {}, &pool);
//   out.ids[1] == tokenizer.Encode("goodbye")->ids; out.errors[1].ok()
#ifndef TOKVEC_TOKENIZER_BATCH_ENCODE_TEXTS_H_
#define TOKVEC_TOKENIZER_BATCH_ENCODE_TEXTS_H_

#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "base/worker_pool.h"
#include "tokenizer/tokenizer.h"

namespace tokvec {

struct EncodedTexts {
  std::vector<std::vector<TokenId>> ids;  // ids[i]: the ids of texts[i]
  std::vector<absl::Status> errors;       // errors[i]: why texts[i] has none
};

// The ids of one text: EncodeIds, or Encode's ids (the post-processor's tokens around them) when
// options.add_special_tokens.
absl::Status EncodeTextIds(const Tokenizer& tokenizer, std::string_view text, const EncodeOptions& options,
                           std::vector<TokenId>* ids);

// Every text through EncodeTextIds: the same result for any pool. The texts are cut into min(n, 16 * threads)
// blocks of consecutive texts, so a slow block does not leave the other threads idle at the end; `pool` ==
// nullptr (or a pool of one thread) encodes them all on this thread.
EncodedTexts EncodeTexts(const Tokenizer& tokenizer, absl::Span<const std::string_view> texts,
                         const EncodeOptions& options, WorkerPool* pool);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_BATCH_ENCODE_TEXTS_H_
