// The Unigram language model (Kudo 2018; SentencePiece, T5, XLM-R, ALBERT, Marian) as Hugging Face tokenizers
// runs it: a word is cut into the vocabulary pieces whose log probabilities (scores) add up to the most, found by
// Viterbi over byte positions. A character that no piece starts with is the unk token, scored 10 below the lowest
// score of the vocabulary; consecutive unknown pieces fuse into one unk token. With byte_fallback an unknown
// stretch becomes the <0xNN> tokens of its bytes when the vocabulary has all of them.
//
//   vocab {("<unk>", 0), ("▁he", -2), ("llo", -3), ("▁hello", -6)}, unk_id 0
//   Tokenize("▁hello") -> "▁he" "llo" (-5 beats -6)      Tokenize("▁he☃☃") -> "▁he" <unk> (the two fused)
//
// Ties keep the first segmentation found: positions left to right, at each the shorter piece first, the unk
// candidate last (Hugging Face's order). Immutable after Create; any number of threads may share one model.
#ifndef TOKVEC_TOKENIZER_MODELS_UNIGRAM_UNIGRAM_MODEL_H_
#define TOKVEC_TOKENIZER_MODELS_UNIGRAM_UNIGRAM_MODEL_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tokenizer/models/bpe/bpe_model.h"

namespace tokvec {

class UnigramModel {
 public:
  struct Piece {
    std::string spelling;
    double score;
  };
  // `pieces[id]` is the token of id `id`. Errors (InvalidArgument): an empty vocabulary, an unk id outside it.
  // A spelling that occurs twice names its last id, as in Hugging Face.
  static absl::StatusOr<UnigramModel> Create(std::vector<Piece> pieces, std::optional<TokenId> unk_id,
                                             bool byte_fallback);
  UnigramModel() = default;

  // Appends the tokens of `word` (UTF-8, not empty), each with its start offset counted from `begin`.
  // Errors: FailedPrecondition when a character is not in the vocabulary and the model has no unk id (Hugging
  // Face fails there too), naming the character.
  absl::Status Tokenize(std::string_view word, size_t begin, std::vector<BpeModel::Symbol>* out) const;

  size_t size() const { return pieces_.size(); }
  const std::string& token(TokenId id) const { return pieces_[id].spelling; }
  double score(TokenId id) const { return pieces_[id].score; }
  std::optional<TokenId> Find(std::string_view spelling) const;
  std::optional<TokenId> unk_id() const { return unk_id_; }
  bool byte_fallback() const { return byte_fallback_; }
  // With byte_fallback: the byte a <0xNN> token stands for (decoding), nullopt for other tokens.
  std::optional<unsigned char> FallbackByte(TokenId id) const;

 private:
  // Appends the token(s) of one segment [from, to) of `word`: its id, or its bytes, or unk.
  void Emit(std::string_view word, size_t from, size_t to, size_t begin, std::vector<BpeModel::Symbol>* out) const;

  std::vector<Piece> pieces_;
  absl::flat_hash_map<std::string, TokenId> ids_;
  // A byte trie of every spelling: the children of node n are in edges_ under (n << 8 | byte); a node that ends
  // a spelling has its id in ends_.
  absl::flat_hash_map<uint64_t, uint32_t> edges_;
  std::vector<TokenId> ends_;  // [nodes] the id a node spells, or kNone.
  std::optional<TokenId> unk_id_;
  bool byte_fallback_ = false;
  std::vector<std::optional<TokenId>> byte_ids_;  // [256] with byte_fallback: the id of <0xNN>.
  double unk_score_ = 0;
};

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_MODELS_UNIGRAM_UNIGRAM_MODEL_H_
