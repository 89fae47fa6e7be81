// The one interface the Tokenizer facade (tokenizer/tokenizer.h) runs every model kind through: encode the pieces
// the pre-tokenizer cut into ids with byte offsets, spell an id, tell a gap from a token, decode byte tokens.
// Implemented beside each engine:
//   ByteBpeTokenizerModel, WordBpeTokenizerModel, CharBpeTokenizerModel   models/bpe/bpe_tokenizer_models.h
//   WordPieceTokenizerModel                                               models/wordpiece/wordpiece_tokenizer_model.h
//   UnigramTokenizerModel                                                 models/unigram/unigram_tokenizer_model.h
//   WordLevelTokenizerModel                                               models/wordlevel/wordlevel_tokenizer_model.h
// and built by MakeTokenizerModel (models/model_factory.h), which holds the only switch on ModelType. A model
// refers to the engines and options of the TokenizerSpec its tokenizer owns; it is immutable, so any number of
// threads may share it.
//
// Byte-level BPE is also reached without this interface: its piece-cache path (ByteBpeTokenizerModel's
// EncodeCachedPieces, MergePiece) is the hot path of `tokvec encode`, called directly on the concrete class.
#ifndef TOKVEC_TOKENIZER_MODELS_TOKENIZER_MODEL_H_
#define TOKVEC_TOKENIZER_MODELS_TOKENIZER_MODEL_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "tokenizer/models/bpe/bpe_model.h"
#include "tokenizer/pre_tokenizers/pre_tokenizer.h"

namespace tokvec {

// kWord: classic BPE over words (Sennrich et al. 2016); kByte: byte-level BPE (GPT-2); kWordPiece: BERT;
// kChar: SentencePiece-style BPE over code points (Llama-2, Mistral); kUnigram: SentencePiece's Unigram (T5);
// kWordLevel: whole words looked up (Hugging Face's WordLevel).
enum class ModelType { kWord, kByte, kWordPiece, kChar, kUnigram, kWordLevel };
// "word", "byte", "wordpiece", "char", "unigram" or "wordlevel".
std::string_view ModelTypeName(ModelType type);

// A byte range [begin, end) of the original input.
struct Offset {
  size_t begin;
  size_t end;
};

// A vocabulary entry of a byte-level file that no input can reach: its spelling is outside GPT-2's byte alphabet
// (or empty). Decode spells it as its text, as Hugging Face's ByteLevel decoder does.
struct UnreachableToken {
  TokenId id;
  std::string spelling;
};

// Where tokens go: ids always, offsets when not null. `words` (when not null) is filled by the Tokenizer facade, not
// by models: the index of the piece (Hugging Face's word) each token came from.
struct TokenSink {
  std::vector<TokenId>* ids;
  std::vector<Offset>* offsets;
  std::vector<int32_t>* words = nullptr;
};

// What `tokvec inspect` prints of a model: "key: value\n" lines around the tokenizer's own (model, vocab_size,
// pre_tokenizer, normalizer, decoder, special tokens).
struct ModelSummary {
  std::string kind;    // The `type:` line, e.g. "byte (byte-level BPE)".
  std::string fields;  // After vocab_size: the model's sizes and options.
  std::string ids;     // After the decoder: the ids of the model's own symbols (a word model's `<unk>`, `</w>`).
};

class TokenizerModel {
 public:
  virtual ~TokenizerModel() = default;

  virtual ModelType type() const = 0;
  // One past the model's largest id (special tokens not counted).
  virtual size_t size() const = 0;
  // What Tokenizer::Create checks of the model: `vocab_size` counts the special tokens too; `has_decoder`: the
  // spec has a decoder chain (TokenizerSpec::token_decoder).
  virtual absl::Status Check(size_t vocab_size, bool has_decoder) const = 0;

  // Models over code points need valid UTF-8, checked before normalization so that a message names the input's
  // byte: the name such a message gives the model ("char", "Unigram", "WordPiece"); empty for models of bytes.
  virtual std::string_view utf8_name() const { return {}; }
  // The tokens of each piece of `text` in order, offsets counted from `base`.
  virtual absl::Status EncodePieces(std::string_view text, absl::Span<const Piece> pieces, size_t base,
                                    TokenSink out) const = 0;
  // May a chunked encode cut the text where the pre-tokenizer cuts when a normalizer runs first? Only WordPiece's
  // pre-tokenizers cut at ASCII white space, where the normalizer must cut too (Tokenizer::FindCut).
  virtual bool CutsNormalizedText() const { return false; }

  // How a model token is shown (Tokenizer::TokenSpelling without special tokens): `er</w>` for word models,
  // GPT-2's byte-to-unicode spelling (`Ġt`) for byte models, the vocabulary spelling for the others; "<id N>"
  // for an id the model has no token for.
  virtual std::string Spelling(TokenId id) const = 0;
  // The inverse of Spelling: the id of the model token shown as `spelling`, else nullopt.
  virtual std::optional<TokenId> FindSpelling(std::string_view spelling) const = 0;
  // True when the model has no token with this id (an unused id inside its range, or one past it).
  virtual bool IsGap(TokenId id) const = 0;
  // Tokens that are spellings (WordPiece, Unigram, code points) are decoded by a decoder chain, the default
  // being Hugging Face's "no decoder" (spellings joined by spaces); tokens that are bytes (byte, word) are
  // decoded by AppendDecoded.
  virtual bool SpelledTokens() const = 0;
  // Byte and word models: appends what `id` decodes to. False when the id has no token (Decode's error); an id
  // that decodes to nothing (a word model's `<unk>`) appends nothing and is true.
  virtual bool AppendDecoded(TokenId /*id*/, std::string* /*text*/) const { return false; }
  // Byte and word models: the last step of Decode on the whole `text` (a word model drops the space its last
  // word's `</w>` gave).
  virtual void FinishDecoded(absl::Span<const TokenId> /*ids*/, std::string* /*text*/) const {}
  // The bytes a token stands for when they are its text in the output (byte models; empty otherwise): the
  // post-processor's offset trimming counts their spaces.
  virtual std::string_view TokenBytes(TokenId /*id*/) const { return {}; }

  // The BPE engine of the models that merge (byte, word, char), for their merge list; null for the others.
  virtual const BpeModel* bpe() const { return nullptr; }
  virtual ModelSummary Describe() const = 0;
  // The "model" object of a Hugging Face tokenizer.json for this model, as JSON text in the shape Hugging Face
  // 0.23 writes (WriteHfTokenizerJson, formats.h, puts it in the file); Unimplemented for a model without one.
  virtual absl::StatusOr<std::string> HfModelJson() const {
    return absl::UnimplementedError(std::string(ModelTypeName(type())) + " models have no tokenizer.json form");
  }
};

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_MODELS_TOKENIZER_MODEL_H_
