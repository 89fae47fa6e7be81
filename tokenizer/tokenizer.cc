#include "tokenizer/tokenizer.h"

#include <algorithm>

#include "base/status_macros.h"
#include "fmt/format.h"
#include "tokenizer/models/model_factory.h"

namespace tokvec {

Tokenizer::Tokenizer(TokenizerSpec spec) : spec_(std::move(spec)) {}

absl::StatusOr<std::unique_ptr<Tokenizer>> Tokenizer::Create(TokenizerSpec spec) {
  if (spec.pre_tokenizer == nullptr) return absl::InvalidArgumentError("tokenizer has no pre-tokenizer");
  std::unique_ptr<Tokenizer> tokenizer(new Tokenizer(std::move(spec)));
  const TokenizerSpec& s = tokenizer->spec_;
  tokenizer->model_ = MakeTokenizerModel({.type = s.type,
                                          .bpe = &s.bpe,
                                          .wordpiece = &s.wordpiece,
                                          .unigram = &s.unigram,
                                          .wordlevel = &s.wordlevel,
                                          .unk_id = s.unk_id,
                                          .end_of_word_id = s.end_of_word_id,
                                          .ignore_merges = s.ignore_merges,
                                          .char_bpe = &s.char_bpe,
                                          .affixes = &s.affixes,
                                          .unreachable = &s.unreachable_tokens,
                                          .cache_serial = tokenizer->cache_serial_},
                                         &tokenizer->byte_model_);
  if (tokenizer->model_ == nullptr) return absl::InvalidArgumentError("unknown model type");
  size_t vocab_size = tokenizer->model_->size();
  for (const UnreachableToken& unreachable : s.unreachable_tokens) {
    vocab_size = std::max<size_t>(vocab_size, size_t{unreachable.id} + 1);
  }
  for (const SpecialToken& special : s.special_tokens) {
    if (special.text.empty()) return absl::InvalidArgumentError("special token with empty text");
    vocab_size = std::max<size_t>(vocab_size, size_t{special.id} + 1);
  }
  tokenizer->vocab_size_ = vocab_size;
  tokenizer->is_special_.assign(vocab_size, false);
  for (const SpecialToken& special : s.special_tokens) tokenizer->is_special_[special.id] = true;
  // Added tokens: matched in the input, or (normalized ones) in the text normalized as Hugging Face does before
  // pre-tokenizing, i.e. without the prefix space (a pre-tokenizer step there, a normalizer step here).
  if (s.normalizer != nullptr) tokenizer->match_normalizer_ = s.normalizer->WithoutPrefixSpace();
  // Hugging Face keeps a `normalized` added token as its normalization (idToToken, decode and the matched text
  // are "cafe" for an added "Café" under BertNormalizer), so spell it that way once, here.
  if (tokenizer->match_normalizer_ != nullptr) {
    for (SpecialToken& special : tokenizer->spec_.special_tokens) {
      if (!special.normalized) continue;
      absl::StatusOr<NormalizedText> spelled = tokenizer->match_normalizer_->Normalize(special.text);
      if (spelled.ok() && !spelled->text.empty()) special.text = std::move(spelled->text);
    }
  }
  std::vector<const SpecialToken*> ordinary, all;
  for (const SpecialToken& special : s.special_tokens) {
    all.push_back(&special);
    if (!special.special) ordinary.push_back(&special);
  }
  tokenizer->default_matchers_ = tokenizer->BuildMatchers(ordinary);
  tokenizer->all_matchers_ = tokenizer->BuildMatchers(all);
  // The model's own checks (a word model's `</w>` and `<unk>`, a vocabulary, a decoder where one is needed).
  TOKVEC_RETURN_IF_ERROR(tokenizer->model_->Check(vocab_size, s.token_decoder != nullptr));
  // Every token the post-processor adds is a token: a vocabulary entry or an added token (an id in a gap of the
  // vocabulary would encode to an id that nothing decodes).
  if (s.post_processor != nullptr) {
    std::vector<TokenId> added;
    for (const PostProcessor::Step& step : s.post_processor->steps) {
      added.insert(added.end(), step.before.begin(), step.before.end());
      added.insert(added.end(), step.after.begin(), step.after.end());
      if (!step.pair) continue;
      for (const TemplatePiece& piece : *step.pair) added.insert(added.end(), piece.ids.begin(), piece.ids.end());
    }
    for (TokenId id : added) {
      if (id >= vocab_size || (!tokenizer->is_special_[id] && tokenizer->model_->IsGap(id))) {
        return absl::InvalidArgumentError(fmt::format(
            "{}: the post_processor ({}) adds token id {}, which is neither in the vocabulary nor an added token",
            s.source.empty() ? "tokenizer" : s.source, s.post_processor->name, id));
      }
    }
  }
  // Decode's chain for spelled tokens: the file's, else WordPiece's decoder, else spellings joined by spaces as
  // Hugging Face decodes without a decoder. A byte model's chain (with word affixes) runs on its spellings too.
  if (s.token_decoder != nullptr) {
    tokenizer->decoder_ = s.token_decoder.get();
  } else if (tokenizer->model_->SpelledTokens()) {
    std::vector<std::unique_ptr<DecoderStep>> steps;
    if (s.decoder) steps.push_back(MakeWordPieceDecoderStep(*s.decoder));
    tokenizer->default_decoder_ = std::make_unique<TokenDecoder>(std::move(steps), /*no_decoder=*/!s.decoder);
    tokenizer->decoder_ = tokenizer->default_decoder_.get();
  }
  return tokenizer;
}

std::optional<TokenId> Tokenizer::FindSpecial(std::string_view text) const {
  for (const SpecialToken& special : spec_.special_tokens) {
    if (special.text == text) return special.id;
  }
  return std::nullopt;
}

const SpecialToken* Tokenizer::FindAdded(TokenId id) const {
  if (id >= is_special_.size() || !is_special_[id]) return nullptr;
  for (const SpecialToken& special : spec_.special_tokens) {
    if (special.id == id) return &special;
  }
  return nullptr;
}

std::shared_ptr<const Tokenizer::AddedMatchers> Tokenizer::BuildMatchers(
    const std::vector<const SpecialToken*>& tokens) const {
  if (tokens.empty()) return nullptr;
  auto matchers = std::make_shared<AddedMatchers>();
  std::vector<AddedTokenMatcher::Pattern> raw, normalized;
  for (const SpecialToken* token : tokens) {
    const AddedTokenMatcher::Flags flags{.single_word = token->single_word, .lstrip = token->lstrip,
                                         .rstrip = token->rstrip};
    if (token->lstrip || token->rstrip || token->text.find_first_of(" \t\r\n\v\f") != std::string::npos) {
      matchers->cuttable = false;
    }
    if (token->normalized && match_normalizer_ != nullptr) {
      // Hugging Face matches the token's own normalization (e.g. lowercased; Create spelled it so) in the
      // normalized text.
      normalized.push_back({token->text, token->id, flags});
    } else {
      raw.push_back({token->text, token->id, flags});
    }
  }
  matchers->raw = AddedTokenMatcher(std::move(raw));
  matchers->normalized = AddedTokenMatcher(std::move(normalized));
  return matchers;
}

absl::StatusOr<std::string> Tokenizer::Decode(absl::Span<const TokenId> ids) const {
  if (decoder_ != nullptr) return DecodeSpellings(ids);
  // Tokens that are bytes: concatenated (special tokens as their text).
  std::string text;
  for (TokenId id : ids) {
    if (id >= vocab_size_) {
      return absl::OutOfRangeError(
          fmt::format("token id {} is outside the vocabulary (ids are 0..{})", id, vocab_size_ - 1));
    }
    if (is_special_[id]) {
      for (const SpecialToken& special : spec_.special_tokens) {
        if (special.id == id) {
          text += special.text;
          break;
        }
      }
      continue;
    }
    if (!model_->AppendDecoded(id, &text)) {
      return absl::OutOfRangeError(fmt::format("token id {} is not used by this vocabulary", id));
    }
  }
  model_->FinishDecoded(ids, &text);
  return text;
}

absl::StatusOr<std::string> Tokenizer::DecodeSpellings(absl::Span<const TokenId> ids) const {
  std::vector<std::string> tokens;
  tokens.reserve(ids.size());
  for (const TokenId id : ids) {
    if (id >= vocab_size_) {
      return absl::OutOfRangeError(
          fmt::format("token id {} is outside the vocabulary (ids are 0..{})", id, vocab_size_ - 1));
    }
    if (!is_special_[id] && model_->IsGap(id)) {
      return absl::OutOfRangeError(fmt::format("token id {} is not used by this vocabulary", id));
    }
    tokens.push_back(TokenSpelling(id));
  }
  return decoder_->Decode(std::move(tokens));
}

std::string Tokenizer::TokenSpelling(TokenId id) const {
  if (id < is_special_.size() && is_special_[id]) {
    for (const SpecialToken& special : spec_.special_tokens) {
      if (special.id == id) return special.text;
    }
  }
  return model_->Spelling(id);
}

}  // namespace tokvec
