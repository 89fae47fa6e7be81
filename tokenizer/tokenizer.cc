#include "tokenizer/tokenizer.h"

#include <algorithm>

#include "fmt/format.h"
#include "tokenizer/normalizers/icu_normalizer.h"
#include "tokenizer/text/byte_unicode.h"

namespace tokvec {
namespace {

constexpr TokenId kNoToken = ~TokenId{0};

}  // namespace

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
  }
  return "unknown";
}

Tokenizer::Tokenizer(TokenizerSpec spec) : spec_(std::move(spec)) {}

absl::StatusOr<std::unique_ptr<Tokenizer>> Tokenizer::Create(TokenizerSpec spec) {
  if (spec.pre_tokenizer == nullptr) return absl::InvalidArgumentError("tokenizer has no pre-tokenizer");
  std::unique_ptr<Tokenizer> tokenizer(new Tokenizer(std::move(spec)));
  const TokenizerSpec& s = tokenizer->spec_;
  size_t vocab_size = s.type == ModelType::kWordPiece ? s.wordpiece.size()
                      : s.type == ModelType::kUnigram ? s.unigram.size()
                                                      : s.bpe.size();
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
  if (s.normalizer != nullptr) {
    const std::string full = s.normalizer->name();
    std::string name;
    for (size_t begin = 0; begin <= full.size();) {
      size_t plus = full.find('+', begin);
      if (plus == std::string::npos) plus = full.size();
      const std::string step = full.substr(begin, plus - begin);
      if (step != "prefix_space") name += (name.empty() ? "" : "+") + step;
      begin = plus + 1;
    }
    absl::StatusOr<std::unique_ptr<Normalizer>> core = MakeNormalizer(name);
    if (!name.empty() && core.ok()) tokenizer->match_normalizer_ = std::move(core).value();
  }
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
  if (s.affixes && s.type != ModelType::kByte && s.type != ModelType::kChar) {
    return absl::InvalidArgumentError("word affixes (continuing_subword_prefix, end_of_word_suffix) need a BPE model");
  }
  if (s.affixes && s.affixes->unknown.unk_id && *s.affixes->unknown.unk_id >= vocab_size) {
    return absl::InvalidArgumentError("the unk token's id is outside the vocabulary");
  }
  if (s.type == ModelType::kByte) {
    for (int b = 0; b < 256; ++b) {
      std::optional<TokenId> id = s.bpe.Find(std::string(1, static_cast<char>(b)));
      tokenizer->byte_ids_[b] = id.value_or(kNoToken);
    }
  } else if (s.type == ModelType::kWordPiece) {
    if (s.wordpiece.size() == 0) return absl::InvalidArgumentError("WordPiece model has no vocabulary");
  } else if (s.type == ModelType::kChar) {
    tokenizer->byte_ids_ = FallbackTokenIds(s.bpe);
    if (s.char_bpe.unk_id && *s.char_bpe.unk_id >= vocab_size) {
      return absl::InvalidArgumentError("the unk token's id is outside the vocabulary");
    }
    if (s.token_decoder == nullptr) return absl::InvalidArgumentError("char model has no decoder");
  } else if (s.type == ModelType::kUnigram) {
    if (s.unigram.size() == 0) return absl::InvalidArgumentError("Unigram model has no vocabulary");
    if (s.token_decoder == nullptr) return absl::InvalidArgumentError("Unigram model has no decoder");
  } else {
    if (!s.end_of_word_id || *s.end_of_word_id >= s.bpe.size()) {
      return absl::InvalidArgumentError("word model has no end-of-word token `</w>`");
    }
    if (!s.unk_id || *s.unk_id >= vocab_size) return absl::InvalidArgumentError("word model has no `<unk>` id");
  }
  return tokenizer;
}

const UnreachableToken* Tokenizer::FindUnreachable(TokenId id) const {
  for (const UnreachableToken& unreachable : spec_.unreachable_tokens) {
    if (unreachable.id == id) return &unreachable;
  }
  return nullptr;
}

std::optional<TokenId> Tokenizer::FindSpecial(std::string_view text) const {
  for (const SpecialToken& special : spec_.special_tokens) {
    if (special.text == text) return special.id;
  }
  return std::nullopt;
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
  if (spec_.type == ModelType::kWordPiece) return DecodeWordPiece(ids);
  if (spec_.type == ModelType::kChar || spec_.type == ModelType::kUnigram || spec_.token_decoder != nullptr) {
    return DecodeChar(ids);
  }
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
    if (id >= spec_.bpe.size() || spec_.bpe.token(id).empty()) {
      if (spec_.unk_id && id == *spec_.unk_id) continue;
      if (const UnreachableToken* unreachable = FindUnreachable(id)) {
        text += unreachable->spelling;
        continue;
      }
      return absl::OutOfRangeError(fmt::format("token id {} is not used by this vocabulary", id));
    }
    const std::string& bytes = spec_.bpe.token(id);
    if (spec_.type == ModelType::kWord && bytes.back() == kEndOfWordByte) {
      text.append(bytes, 0, bytes.size() - 1);
      text += ' ';
    } else {
      text += bytes;
    }
  }
  // Word models: the `</w>` of the last word ends the text rather than adding a space.
  if (spec_.type == ModelType::kWord && !text.empty() && text.back() == ' ' && !ids.empty() &&
      ids.back() < spec_.bpe.size() && !spec_.bpe.token(ids.back()).empty() &&
      spec_.bpe.token(ids.back()).back() == kEndOfWordByte) {
    text.pop_back();
  }
  return text;
}

absl::StatusOr<std::string> Tokenizer::DecodeWordPiece(absl::Span<const TokenId> ids) const {
  std::string text;
  for (size_t i = 0; i < ids.size(); ++i) {
    const TokenId id = ids[i];
    if (id >= vocab_size_) {
      return absl::OutOfRangeError(
          fmt::format("token id {} is outside the vocabulary (ids are 0..{})", id, vocab_size_ - 1));
    }
    if (!is_special_[id] && (id >= spec_.wordpiece.size() || spec_.wordpiece.token(id).empty())) {
      return absl::OutOfRangeError(fmt::format("token id {} is not used by this vocabulary", id));
    }
    const std::string spelling = TokenSpelling(id);
    if (spec_.decoder) {
      spec_.decoder->Append(spelling, i, &text);
    } else {  // Hugging Face without a decoder: spellings joined by spaces.
      if (i > 0) text += ' ';
      text += spelling;
    }
  }
  return text;
}

absl::StatusOr<std::string> Tokenizer::DecodeChar(absl::Span<const TokenId> ids) const {
  std::vector<std::string> tokens;
  tokens.reserve(ids.size());
  for (const TokenId id : ids) {
    if (id >= vocab_size_) {
      return absl::OutOfRangeError(
          fmt::format("token id {} is outside the vocabulary (ids are 0..{})", id, vocab_size_ - 1));
    }
    const bool gap = spec_.type == ModelType::kUnigram ? id >= spec_.unigram.size()
                                                       : id >= spec_.bpe.size() || spec_.bpe.token(id).empty();
    if (!is_special_[id] && gap) {
      return absl::OutOfRangeError(fmt::format("token id {} is not used by this vocabulary", id));
    }
    tokens.push_back(TokenSpelling(id));
  }
  return spec_.token_decoder->Decode(std::move(tokens));
}

std::string Tokenizer::TokenSpelling(TokenId id) const {
  if (id < is_special_.size() && is_special_[id]) {
    for (const SpecialToken& special : spec_.special_tokens) {
      if (special.id == id) return special.text;
    }
  }
  if (spec_.type == ModelType::kWordPiece) {
    return id < spec_.wordpiece.size() ? spec_.wordpiece.token(id) : fmt::format("<id {}>", id);
  }
  if (spec_.type == ModelType::kUnigram) {
    return id < spec_.unigram.size() ? spec_.unigram.token(id) : fmt::format("<id {}>", id);
  }
  if (spec_.unk_id && id == *spec_.unk_id && (id >= spec_.bpe.size() || spec_.bpe.token(id).empty())) {
    return "<unk>";
  }
  if (const UnreachableToken* unreachable = FindUnreachable(id)) return unreachable->spelling;
  if (id >= spec_.bpe.size()) return fmt::format("<id {}>", id);
  const std::string& bytes = spec_.bpe.token(id);
  if (spec_.type == ModelType::kByte) return BytesToUnicode(bytes);
  if (!bytes.empty() && bytes.back() == kEndOfWordByte) {
    return bytes.substr(0, bytes.size() - 1) + std::string(kEndOfWordSpelling);
  }
  return bytes;
}

}  // namespace tokvec
