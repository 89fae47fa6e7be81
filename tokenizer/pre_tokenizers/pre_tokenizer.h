// Pre-tokenization: cutting text into pieces before BPE merges within each piece.
//
//   std::vector<Piece> pieces;
//   TOKVEC_RETURN_IF_ERROR(pre_tokenizer.Split("low lower", &pieces));  // {0,3} {4,9} for whitespace words
//
// Word models cut at Unicode White_Space (whitespace_pre_tokenizer.h); byte-level models cut with a split
// pattern such as GPT-2's regex (split_pre_tokenizer.h). Pieces are byte ranges of the text, in order, not
// overlapping; bytes between pieces (whitespace for word models) are dropped.
#ifndef TOKVEC_TOKENIZER_PRE_TOKENIZERS_PRE_TOKENIZER_H_
#define TOKVEC_TOKENIZER_PRE_TOKENIZERS_PRE_TOKENIZER_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tokenizer/normalizers/normalizer.h"

namespace tokvec {

// A byte range [begin, end) of the text being split.
struct Piece {
  size_t begin;
  size_t end;
};

// Where PreTokenizer::SplitSome resumes: the next piece starts at `pos`; [.., stretch_end) is known to be
// well-formed UTF-8 (the splitter's own bookkeeping; start from a default cursor).
struct SplitCursor {
  size_t pos = 0;
  size_t stretch_end = 0;
};

class PreTokenizer {
 public:
  virtual ~PreTokenizer() = default;
  // Appends the pieces of `text` to `pieces`. Errors (e.g. invalid UTF-8 for word models) name the byte offset.
  virtual absl::Status Split(std::string_view text, std::vector<Piece>* pieces) const = 0;
  // Split a block at a time, for callers that use pieces as they come (Tokenizer::EncodeIdText): fills up to
  // `capacity` pieces of `text` from `*cursor` on, advances the cursor and returns how many (0: no more). The
  // pieces of successive calls are those of Split. Implemented where SplitsIncrementally() is true (the presets).
  virtual size_t SplitSome(std::string_view /*text*/, SplitCursor* /*cursor*/, Piece* /*pieces*/,
                           size_t /*capacity*/) const {
    return 0;
  }
  virtual bool SplitsIncrementally() const { return false; }
  // How the model file names this pre-tokenizer: "whitespace", a preset ("gpt2", "cl100k", "o200k") or a regex.
  virtual std::string name() const = 0;
  // The split pattern this pre-tokenizer is, when it is one: a preset ("gpt2", "cl100k", "o200k") or an ICU regex
  // whose matches are the pieces (as tiktoken splits); else nullopt.
  virtual std::optional<std::string> SplitPattern() const { return std::nullopt; }
  // Its pre_tokenizer JSON in a byte-level tokenizer.json, `add_prefix_space` set on the ByteLevel: ByteLevel
  // for gpt2, Sequence [Split, ByteLevel] for another split pattern (prefix space refused), the JSON it was read
  // from for an HfPreTokenizer. FailedPrecondition for the kinds that have none. (pre_tokenizer_json.cc)
  virtual absl::StatusOr<std::string> ByteLevelJson(bool add_prefix_space) const;
  // A position p in [1, limit] where text may be cut so that splitting text[0, p) and text[p, ...) on their
  // own gives the pieces of the whole (for splitting a large input into chunks); 0 when none is found or this
  // pre-tokenizer cannot tell (the default, e.g. for an arbitrary regex).
  // Implementations decide from the characters just before p and the byte at p alone (the presets and
  // whitespace do), so any text with the same characters there may be cut there too: word_counter.cc relies on
  // this to cut normalized text where the original allows it.
  virtual size_t FindCut(std::string_view /*text*/, size_t /*limit*/) const { return 0; }
  // True when FindCut can find cuts (the presets, whitespace); false when it always returns 0.
  virtual bool FindsCuts() const { return false; }
  // Pre-tokenizers that rewrite the text as they cut it (Hugging Face's Metaspace: spaces become "▁", one is
  // prepended; metaspace_pre_tokenizer.h) return true, and the tokenizer calls Rewrite instead of Split.
  virtual bool Rewrites() const { return false; }
  // The rewritten text, each byte mapped to the bytes of `text` it came from, and its pieces (byte ranges of
  // out->text). `at_start`: `text` begins the input (no special token before it).
  virtual absl::Status Rewrite(std::string_view /*text*/, bool /*at_start*/, NormalizedText* /*out*/,
                               std::vector<Piece>* /*pieces*/) const {
    return absl::UnimplementedError("this pre-tokenizer does not rewrite text");
  }
};

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_PRE_TOKENIZERS_PRE_TOKENIZER_H_
