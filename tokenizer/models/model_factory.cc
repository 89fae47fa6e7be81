#include "tokenizer/models/model_factory.h"

#include "tokenizer/models/bpe/bpe_tokenizer_models.h"
#include "tokenizer/models/unigram/unigram_tokenizer_model.h"
#include "tokenizer/models/wordlevel/wordlevel_tokenizer_model.h"
#include "tokenizer/models/wordpiece/wordpiece_tokenizer_model.h"

namespace tokvec {

std::string_view ModelTypeName(ModelType type) {
  switch (type) {
    case ModelType::kWord:
      return "word";
    case ModelType::kByte:
      return "byte";
    case ModelType::kWordPiece:
      return "wordpiece";
    case ModelType::kChar:
      return "char";
    case ModelType::kUnigram:
      return "unigram";
    case ModelType::kWordLevel:
      return "wordlevel";
  }
  return "unknown";
}

std::unique_ptr<TokenizerModel> MakeTokenizerModel(const ModelParts& parts, const ByteBpeTokenizerModel** byte_level) {
  const bool has_affixes = parts.affixes->has_value();
  if (byte_level != nullptr) *byte_level = nullptr;
  switch (parts.type) {
    case ModelType::kByte: {
      auto model = std::make_unique<ByteBpeTokenizerModel>(*parts.bpe, parts.ignore_merges, *parts.affixes,
                                                           *parts.unreachable, parts.cache_serial);
      if (byte_level != nullptr) *byte_level = model.get();
      return model;
    }
    case ModelType::kWord:
      return std::make_unique<WordBpeTokenizerModel>(*parts.bpe, parts.unk_id, parts.end_of_word_id, has_affixes);
    case ModelType::kChar:
      return std::make_unique<CharBpeTokenizerModel>(*parts.bpe, parts.ignore_merges, *parts.char_bpe,
                                                     *parts.affixes);
    case ModelType::kWordPiece:
      return std::make_unique<WordPieceTokenizerModel>(*parts.wordpiece, has_affixes);
    case ModelType::kUnigram:
      return std::make_unique<UnigramTokenizerModel>(*parts.unigram, has_affixes);
    case ModelType::kWordLevel:
      return std::make_unique<WordLevelTokenizerModel>(*parts.wordlevel, has_affixes);
  }
  return nullptr;
}

}  // namespace tokvec
