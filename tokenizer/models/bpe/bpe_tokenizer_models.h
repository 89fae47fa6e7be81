// The three BPE kinds behind TokenizerModel (models/tokenizer_model.h), over one merge engine (bpe_model.h):
//   ByteBpeTokenizerModel  byte-level BPE (GPT-2, tiktoken): the symbols are bytes, so any input encodes; pieces
//                          seen before come from a piece cache (piece_cache.h)
//   WordBpeTokenizerModel  classic BPE (Sennrich et al. 2016): code points plus an end-of-word symbol `</w>`
//                          after each word; a code point outside the alphabet is `<unk>`
//   CharBpeTokenizerModel  SentencePiece-style BPE over code points (Llama-2, Mistral): code points spelled in
//                          UTF-8, "<0xNN>" byte fallback and an optional unk (char_symbols.h)
// Byte and code-point models also take Hugging Face's word affixes (bpe_affixes.h) and ignore_merges (a piece
// that is itself a token skips merging).
#ifndef TOKVEC_TOKENIZER_MODELS_BPE_BPE_TOKENIZER_MODELS_H_
#define TOKVEC_TOKENIZER_MODELS_BPE_BPE_TOKENIZER_MODELS_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/models/bpe/bpe_affixes.h"
#include "tokenizer/models/bpe/bpe_model.h"
#include "tokenizer/models/bpe/char_symbols.h"
#include "tokenizer/models/bpe/piece_cache.h"
#include "tokenizer/models/tokenizer_model.h"

namespace tokvec {

// In word models the end-of-word symbol is stored as this single byte, which never occurs in valid UTF-8,
// so no text can spell it; it is shown (inspect, model files, --tokens) as `</w>`.
inline constexpr char kEndOfWordByte = '\xFF';
inline constexpr std::string_view kEndOfWordSpelling = "</w>";

// The piece caches of one encode call: `shared` (may be null) is only read; `local` (not null) learns.
struct PieceCaches {
  const PieceCache* shared;
  PieceCache* local;
  // The entry of a piece in the shared cache, else in the local one (its cache in `*owner`), or null.
  const PieceCache::Entry* Find(uint64_t hash, std::string_view bytes, const PieceCache** owner) const {
    if (shared != nullptr) {
      if (const PieceCache::Entry* hit = shared->Find(hash, bytes)) {
        *owner = shared;
        return hit;
      }
    }
    *owner = local;
    return local->Find(hash, bytes);
  }
};

class ByteBpeTokenizerModel final : public TokenizerModel {
 public:
  // `cache_serial`: the tokenizer's piece caches (PieceCache::ForThread); `unreachable`: vocabulary entries no
  // input reaches (gaps of `bpe`, spelled by Decode and TokenSpelling).
  ByteBpeTokenizerModel(const BpeModel& bpe, bool ignore_merges, const std::optional<BpeAffixes>& affixes,
                        const std::vector<UnreachableToken>& unreachable, uint64_t cache_serial);

  ModelType type() const override { return ModelType::kByte; }
  size_t size() const override { return bpe_.size(); }
  absl::Status Check(size_t vocab_size, bool has_decoder) const override;
  absl::Status EncodePieces(std::string_view text, absl::Span<const Piece> pieces, size_t base,
                            TokenSink out) const override;
  std::string Spelling(TokenId id) const override;
  std::optional<TokenId> FindSpelling(std::string_view spelling) const override;
  bool IsGap(TokenId id) const override { return id >= bpe_.size() || bpe_.token(id).empty(); }
  bool SpelledTokens() const override { return false; }
  bool AppendDecoded(TokenId id, std::string* text) const override;
  std::string_view TokenBytes(TokenId id) const override {
    return id < bpe_.size() ? std::string_view(bpe_.token(id)) : std::string_view();
  }
  const BpeModel* bpe() const override { return &bpe_; }
  ModelSummary Describe() const override;

  // EncodePieces through the given caches (a piece seen before is copied from one; a merged one is learned by
  // caches.local): the fast path of Tokenizer's encodes.
  void EncodeCachedPieces(std::string_view text, absl::Span<const Piece> pieces, size_t base, PieceCaches caches,
                          std::vector<BpeModel::Symbol>& scratch, TokenSink out) const;
  // The merged symbols of text[piece], with no cache (`scratch` gets them; they begin within `text`).
  void MergePiece(std::string_view text, Piece piece, std::vector<BpeModel::Symbol>& scratch) const;

 private:
  // The token of each single byte, or kNoFallbackToken when the vocabulary has none.
  std::array<TokenId, 256> byte_ids_{};
  const BpeModel& bpe_;
  bool ignore_merges_;
  const std::optional<BpeAffixes>& affixes_;
  const std::vector<UnreachableToken>& unreachable_;
  uint64_t cache_serial_;
};

class WordBpeTokenizerModel final : public TokenizerModel {
 public:
  // `has_affixes`: the spec names word affixes, which a word model cannot take (Check's error).
  WordBpeTokenizerModel(const BpeModel& bpe, std::optional<TokenId> unk_id, std::optional<TokenId> end_of_word_id,
                        bool has_affixes)
      : bpe_(bpe), unk_id_(unk_id), end_of_word_id_(end_of_word_id), has_affixes_(has_affixes) {}

  ModelType type() const override { return ModelType::kWord; }
  size_t size() const override { return bpe_.size(); }
  absl::Status Check(size_t vocab_size, bool has_decoder) const override;
  absl::Status EncodePieces(std::string_view text, absl::Span<const Piece> pieces, size_t base,
                            TokenSink out) const override;
  std::string Spelling(TokenId id) const override;
  std::optional<TokenId> FindSpelling(std::string_view spelling) const override;
  bool IsGap(TokenId id) const override { return id >= bpe_.size() || bpe_.token(id).empty(); }
  bool SpelledTokens() const override { return false; }
  bool AppendDecoded(TokenId id, std::string* text) const override;
  void FinishDecoded(absl::Span<const TokenId> ids, std::string* text) const override;
  const BpeModel* bpe() const override { return &bpe_; }
  ModelSummary Describe() const override;

 private:
  const BpeModel& bpe_;
  std::optional<TokenId> unk_id_;
  std::optional<TokenId> end_of_word_id_;
  bool has_affixes_;
};

class CharBpeTokenizerModel final : public TokenizerModel {
 public:
  CharBpeTokenizerModel(const BpeModel& bpe, bool ignore_merges, const CharBpeOptions& options,
                        const std::optional<BpeAffixes>& affixes)
      : fallback_ids_(FallbackTokenIds(bpe)), bpe_(bpe), ignore_merges_(ignore_merges), options_(options),
        affixes_(affixes) {}

  ModelType type() const override { return ModelType::kChar; }
  size_t size() const override { return bpe_.size(); }
  absl::Status Check(size_t vocab_size, bool has_decoder) const override;
  std::string_view utf8_name() const override { return "char"; }
  absl::Status EncodePieces(std::string_view text, absl::Span<const Piece> pieces, size_t base,
                            TokenSink out) const override;
  std::string Spelling(TokenId id) const override;
  std::optional<TokenId> FindSpelling(std::string_view spelling) const override;
  bool IsGap(TokenId id) const override { return id >= bpe_.size() || bpe_.token(id).empty(); }
  bool SpelledTokens() const override { return true; }
  const BpeModel* bpe() const override { return &bpe_; }
  ModelSummary Describe() const override;
  // Unimplemented with word affixes.
  absl::StatusOr<std::string> HfModelJson() const override;

 private:
  std::array<TokenId, 256> fallback_ids_;  // The "<0xNN>" token of each byte (FallbackTokenIds).
  const BpeModel& bpe_;
  bool ignore_merges_;
  const CharBpeOptions& options_;
  const std::optional<BpeAffixes>& affixes_;
};

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_MODELS_BPE_BPE_TOKENIZER_MODELS_H_
