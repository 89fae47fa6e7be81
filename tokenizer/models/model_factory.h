// MakeTokenizerModel: the TokenizerModel (models/tokenizer_model.h) of a model kind, over the engines and options a
// TokenizerSpec holds. The only switch on ModelType in the encode and decode paths: a new kind is a new class and
// a new case here.
//
//   std::unique_ptr<TokenizerModel> model = MakeTokenizerModel({.type = ModelType::kByte, .bpe = &bpe, ...});
#ifndef TOKVEC_TOKENIZER_MODELS_MODEL_FACTORY_H_
#define TOKVEC_TOKENIZER_MODELS_MODEL_FACTORY_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "tokenizer/models/bpe/bpe_affixes.h"
#include "tokenizer/models/bpe/bpe_model.h"
#include "tokenizer/models/bpe/char_symbols.h"
#include "tokenizer/models/tokenizer_model.h"
#include "tokenizer/models/unigram/unigram_model.h"
#include "tokenizer/models/wordlevel/wordlevel_model.h"
#include "tokenizer/models/wordpiece/wordpiece_model.h"

namespace tokvec {

// What a model is built from; the model refers to these (they must outlive it: the tokenizer's spec owns them).
struct ModelParts {
  ModelType type = ModelType::kByte;
  const BpeModel* bpe = nullptr;              // kWord, kByte, kChar
  const WordPieceModel* wordpiece = nullptr;  // kWordPiece
  const UnigramModel* unigram = nullptr;      // kUnigram
  const WordLevelModel* wordlevel = nullptr;  // kWordLevel
  std::optional<TokenId> unk_id;              // kWord: `<unk>`
  std::optional<TokenId> end_of_word_id;      // kWord: `</w>`
  bool ignore_merges = false;                 // kByte, kChar
  const CharBpeOptions* char_bpe = nullptr;   // kChar
  const std::optional<BpeAffixes>* affixes = nullptr;                // kByte, kChar (the others refuse them)
  const std::vector<UnreachableToken>* unreachable = nullptr;       // kByte
  uint64_t cache_serial = 0;                  // kByte: the tokenizer's piece caches
};

// `byte_level` (when given) is set to the model when it is byte-level BPE, else to null: the tokenizer calls its
// piece-cache path directly (ByteBpeTokenizerModel::EncodeCachedPieces).
class ByteBpeTokenizerModel;
std::unique_ptr<TokenizerModel> MakeTokenizerModel(const ModelParts& parts,
                                                   const ByteBpeTokenizerModel** byte_level = nullptr);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_MODELS_MODEL_FACTORY_H_
