#include "tokenizer/tokenizer.h"

#include <algorithm>

#include "base/status_macros.h"
#include "fmt/format.h"
#include "tokenizer/normalizers/icu_normalizer.h"
#include "tokenizer/normalizers/sequence_normalizer.h"
#include "tokenizer/pre_tokenizers/whitespace_pre_tokenizer.h"
#include "tokenizer/text/bert_unicode.h"
#include "tokenizer/text/byte_unicode.h"
#include "tokenizer/text/character_offsets.h"
#include "tokenizer/text/utf8.h"

namespace tokvec {
namespace {

constexpr TokenId kNoToken = ~TokenId{0};

// Length of the UTF-8 sequence that starts with `lead` (1 for a stray byte; callers validated the text).
size_t Utf8Length(unsigned char lead) {
  if (lead < 0x80) return 1;
  if ((lead >> 5) == 0x6) return 2;
  if ((lead >> 4) == 0xE) return 3;
  if ((lead >> 3) == 0x1E) return 4;
  return 1;
}

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

absl::StatusOr<Encoding> Tokenizer::Encode(std::string_view text, const EncodeOptions& options) const {
  Encoding out;
  TOKVEC_RETURN_IF_ERROR(EncodeInto(text, options, 0, Caches{nullptr, nullptr}, Sink{&out.ids, &out.offsets}));
  if (spec_.whole_character_offsets) {
    for (Offset& offset : out.offsets) WidenToCharacters(text, &offset.begin, &offset.end);
  }
  if (spec_.post_processor != nullptr) PostProcess(text, options.add_special_tokens, &out);
  return out;
}

absl::Status Tokenizer::EncodeIds(std::string_view text, const EncodeOptions& options, std::vector<TokenId>* ids,
                                  size_t base) const {
  return EncodeInto(text, options, base, Caches{nullptr, nullptr}, Sink{ids, nullptr});
}

absl::Status Tokenizer::EncodeIds(std::string_view text, const EncodeOptions& options, std::vector<TokenId>* ids,
                                  size_t base, const PieceCache* shared, PieceCache* local) const {
  if (shared != nullptr && shared->serial() != cache_serial_) shared = nullptr;
  if (local != nullptr && local->serial() != cache_serial_) local = nullptr;
  return EncodeInto(text, options, base, Caches{shared, local}, Sink{ids, nullptr});
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

absl::StatusOr<std::shared_ptr<const Tokenizer::AddedMatchers>> Tokenizer::MatchersFor(
    const EncodeOptions& options) const {
  if (options.allow_all_special) return all_matchers_;
  if (options.allowed_special.empty()) return default_matchers_;
  std::vector<std::string> names = options.allowed_special;
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  std::string key;
  for (const std::string& name : names) key += name + '\0';
  std::lock_guard<std::mutex> lock(list_matchers_mutex_);
  auto cached = list_matchers_.find(key);
  if (cached != list_matchers_.end()) return cached->second;
  std::vector<const SpecialToken*> tokens;
  for (const SpecialToken& token : spec_.special_tokens) {
    if (!token.special) tokens.push_back(&token);
  }
  for (const std::string& name : names) {
    auto it = std::find_if(spec_.special_tokens.begin(), spec_.special_tokens.end(),
                           [&](const SpecialToken& s) { return s.text == name; });
    if (it == spec_.special_tokens.end()) {
      return absl::InvalidArgumentError(
          fmt::format("'{}' is not a special token of this model (see `tokvec inspect`)", name));
    }
    if (it->special) tokens.push_back(&*it);
  }
  std::shared_ptr<const AddedMatchers> built = BuildMatchers(tokens);
  if (list_matchers_.size() < 64) list_matchers_[key] = built;
  return built;
}

absl::Status Tokenizer::EncodeInto(std::string_view text, const EncodeOptions& options, size_t base, Caches caches,
                                   Sink out) const {
  // 1. Which added tokens may be matched in this text; none: the text is all ordinary (the fast path).
  TOKVEC_ASSIGN_OR_RETURN(std::shared_ptr<const AddedMatchers> matchers, MatchersFor(options));
  if (matchers == nullptr) return EncodeOrdinary(text, base, caches, out);
  // 2. Cut the text at the tokens matched in the input (leftmost-longest, added_token_matcher.h); encode what
  // lies between.
  std::vector<AddedTokenMatcher::Match> matches;
  matchers->raw.FindAll(text, &matches);
  size_t pos = 0;
  for (const AddedTokenMatcher::Match& match : matches) {
    if (match.begin > pos) {
      TOKVEC_RETURN_IF_ERROR(
          EncodeBetween(text.substr(pos, match.begin - pos), *matchers, base + pos, caches, out, pos == 0));
    }
    out.ids->push_back(match.id);
    if (out.offsets != nullptr) out.offsets->push_back({base + match.begin, base + match.end});
    pos = match.end;  // as Hugging Face: after an overlap, text the rstrip took may be encoded again
  }
  return EncodeBetween(text.substr(pos), *matchers, base + pos, caches, out, pos == 0);
}

absl::Status Tokenizer::EncodeBetween(std::string_view text, const AddedMatchers& matchers, size_t base,
                                      Caches caches, Sink out, bool at_start) const {
  if (matchers.normalized.empty() || text.empty() || FindInvalidUtf8(text)) {
    return EncodeOrdinary(text, base, caches, out, at_start);
  }
  TOKVEC_ASSIGN_OR_RETURN(NormalizedText normalized, match_normalizer_->Normalize(text));
  std::vector<AddedTokenMatcher::Match> matches;
  matchers.normalized.FindAll(normalized.text, &matches);
  if (matches.empty()) return EncodeOrdinary(text, base, caches, out, at_start);
  // Encode the normalized text between the matches (normalizing it again changes nothing), then map offsets in
  // the normalized text back to the input.
  const size_t first = out.offsets != nullptr ? out.offsets->size() : 0;
  const std::string_view n = normalized.text;
  size_t pos = 0;
  for (const AddedTokenMatcher::Match& match : matches) {
    if (match.begin > pos) {
      TOKVEC_RETURN_IF_ERROR(EncodeOrdinary(n.substr(pos, match.begin - pos), pos, caches, out, at_start && pos == 0));
    }
    out.ids->push_back(match.id);
    if (out.offsets != nullptr) out.offsets->push_back({match.begin, match.end});
    pos = match.end;  // as Hugging Face: after an overlap, text the rstrip took may be encoded again
  }
  TOKVEC_RETURN_IF_ERROR(EncodeOrdinary(n.substr(pos), pos, caches, out, at_start && pos == 0));
  if (out.offsets == nullptr) return absl::OkStatus();
  for (size_t i = first; i < out.offsets->size(); ++i) {
    Offset& offset = (*out.offsets)[i];
    const size_t begin = offset.begin < n.size() ? normalized.source_begin[offset.begin] : text.size();
    const size_t end = offset.end > offset.begin ? normalized.source_end[offset.end - 1] : begin;
    offset = {base + begin, base + std::max(begin, end)};
  }
  return absl::OkStatus();
}

absl::Status Tokenizer::EncodeOrdinary(std::string_view text, size_t base, Caches caches, Sink out,
                                       bool at_start) const {
  if (text.empty()) return absl::OkStatus();
  // Per-thread scratch, kept between calls; a huge text's piece list is released at the next call.
  thread_local std::vector<Piece> pieces;
  thread_local std::vector<BpeModel::Symbol> scratch;
  pieces.clear();
  if (pieces.capacity() > (size_t{1} << 20)) pieces.shrink_to_fit();
  if (spec_.type != ModelType::kByte) {
    caches = {nullptr, nullptr};
  } else if (caches.local == nullptr) {
    caches.local = &PieceCache::ForThread(cache_serial_);
  }
  if (spec_.type == ModelType::kWordPiece || spec_.type == ModelType::kChar || spec_.type == ModelType::kUnigram) {
    // Checked before normalization, which would pass bad bytes on: offsets name the input byte.
    if (std::optional<size_t> bad = FindInvalidUtf8(text)) {
      return absl::InvalidArgumentError(
          fmt::format("invalid UTF-8 at byte offset {} (byte 0x{:02X}); {} models need UTF-8 text", base + *bad,
                      static_cast<unsigned char>(text[*bad]),
                      spec_.type == ModelType::kChar      ? "char"
                      : spec_.type == ModelType::kUnigram ? "Unigram"
                                                          : "WordPiece"));
    }
  }
  if (spec_.normalizer == nullptr && !spec_.pre_tokenizer->Rewrites()) {
    absl::Status split = spec_.pre_tokenizer->Split(text, &pieces);
    if (!split.ok()) {
      // Word models reject invalid UTF-8; name its offset in the whole input (`text` may be one chunk of it).
      if (std::optional<size_t> bad = FindInvalidUtf8(text)) {
        return absl::InvalidArgumentError(
            fmt::format("invalid UTF-8 at byte offset {} (byte 0x{:02X}); word models need UTF-8 text", base + *bad,
                        static_cast<unsigned char>(text[*bad])));
      }
      return absl::Status(split.code(), fmt::format("{} (at input byte {})", std::string(split.message()), base));
    }
    if (spec_.type == ModelType::kUnigram) return EncodeUnigramPieces(text, pieces, base, out);
    for (const Piece& piece : pieces) EncodePiece(text, piece, base, scratch, caches, out);
    return absl::OkStatus();
  }
  // Normalized (or rewritten) text: encode it, then map each token's offsets back to the input bytes it came from.
  NormalizedText normalized;
  if (spec_.normalizer != nullptr) {
    TOKVEC_ASSIGN_OR_RETURN(normalized, spec_.normalizer->Normalize(text));
  } else {
    normalized = IdentityNormalized(text);
  }
  if (spec_.pre_tokenizer->Rewrites()) {
    NormalizedText rewritten;
    TOKVEC_RETURN_IF_ERROR(spec_.pre_tokenizer->Rewrite(normalized.text, at_start, &rewritten, &pieces));
    normalized = ComposeNormalized(normalized, std::move(rewritten), text.size());
  } else {
    TOKVEC_RETURN_IF_ERROR(spec_.pre_tokenizer->Split(normalized.text, &pieces));
  }
  const size_t first = out.ids->size();
  if (spec_.type == ModelType::kUnigram) {
    TOKVEC_RETURN_IF_ERROR(EncodeUnigramPieces(normalized.text, pieces, 0, out));
  } else {
    for (const Piece& piece : pieces) EncodePiece(normalized.text, piece, 0, scratch, caches, out);
  }
  if (out.offsets == nullptr) return absl::OkStatus();
  const size_t n = normalized.text.size();
  for (size_t i = first; i < out.offsets->size(); ++i) {
    Offset& offset = (*out.offsets)[i];
    size_t begin = offset.begin < n ? normalized.source_begin[offset.begin] : text.size();
    size_t end = offset.end > offset.begin ? normalized.source_end[offset.end - 1] : begin;
    offset = {base + begin, base + std::max(begin, end)};
  }
  return absl::OkStatus();
}

void Tokenizer::EncodePiece(std::string_view text, Piece piece, size_t base, std::vector<BpeModel::Symbol>& scratch,
                            Caches caches, Sink out) const {
  std::string_view bytes = text.substr(piece.begin, piece.end - piece.begin);
  if (bytes.empty()) return;
  scratch.clear();
  if (spec_.type == ModelType::kWordPiece) {
    spec_.wordpiece.Tokenize(bytes, piece.begin, &scratch);
  } else if (spec_.type == ModelType::kChar) {
    std::optional<TokenId> whole;
    if (spec_.ignore_merges) whole = spec_.bpe.Find(bytes);
    if (whole) {
      scratch.push_back({*whole, piece.begin});
    } else {
      if (spec_.affixes) {
        AffixSymbols(bytes, piece.begin, spec_.bpe, *spec_.affixes, &scratch);
      } else {
        CharSymbols(bytes, piece.begin, spec_.bpe, spec_.char_bpe, byte_ids_, &scratch);
      }
      spec_.bpe.Merge(scratch);
    }
  } else if (spec_.type == ModelType::kByte) {
    // A piece seen before is copied from a cache (piece_cache.h).
    const uint64_t hash = PieceCache::Hash(bytes);
    const PieceCache* cache = nullptr;
    const PieceCache::Entry* hit = caches.Find(hash, bytes, &cache);
    if (hit != nullptr) {
      const TokenId* ids = cache->ids(*hit);
      for (size_t i = 0; i < hit->count; ++i) out.ids->push_back(ids[i]);
      if (out.offsets != nullptr) {
        const uint8_t* begins = cache->begins(*hit);
        for (size_t i = 0; i < hit->count; ++i) {
          const size_t end = i + 1 < hit->count ? piece.begin + begins[i + 1] : piece.end;
          out.offsets->push_back({base + piece.begin + begins[i], base + end});
        }
      }
      return;
    }
    MergeBytePiece(text, piece, scratch);
    caches.local->Insert(hash, bytes, scratch, piece.begin);
  } else {
    for (size_t i = 0; i < bytes.size();) {
      size_t len = std::min(Utf8Length(static_cast<unsigned char>(bytes[i])), bytes.size() - i);
      std::optional<TokenId> id = spec_.bpe.Find(bytes.substr(i, len));
      scratch.push_back({id.value_or(*spec_.unk_id), piece.begin + i});
      i += len;
    }
    scratch.push_back({*spec_.end_of_word_id, piece.end});
    spec_.bpe.Merge(scratch);
  }
  for (size_t i = 0; i < scratch.size(); ++i) {
    out.ids->push_back(scratch[i].id);
    if (out.offsets != nullptr) {
      size_t end = i + 1 < scratch.size() ? scratch[i + 1].begin : piece.end;
      out.offsets->push_back({base + scratch[i].begin, base + end});
    }
  }
}

void Tokenizer::MergeBytePiece(std::string_view text, Piece piece, std::vector<BpeModel::Symbol>& scratch) const {
  const std::string_view bytes = text.substr(piece.begin, piece.end - piece.begin);
  scratch.clear();
  std::optional<TokenId> whole;
  if (spec_.ignore_merges) whole = spec_.bpe.Find(bytes);
  if (whole) {
    scratch.push_back({*whole, piece.begin});
  } else if (spec_.affixes) {
    AffixSymbols(bytes, piece.begin, spec_.bpe, *spec_.affixes, &scratch);
    spec_.bpe.Merge(scratch);
  } else {
    for (size_t i = 0; i < bytes.size(); ++i) {
      TokenId id = byte_ids_[static_cast<unsigned char>(bytes[i])];
      if (id == kNoToken) continue;  // A vocabulary without this byte cannot represent it.
      scratch.push_back({id, piece.begin + i});
    }
    spec_.bpe.Merge(scratch);
  }
}

absl::Status Tokenizer::EncodeUnigramPieces(std::string_view text, const std::vector<Piece>& pieces, size_t base,
                                            Sink out) const {
  thread_local std::vector<BpeModel::Symbol> symbols;
  for (const Piece& piece : pieces) {
    if (piece.end <= piece.begin) continue;
    symbols.clear();
    TOKVEC_RETURN_IF_ERROR(
        spec_.unigram.Tokenize(text.substr(piece.begin, piece.end - piece.begin), piece.begin, &symbols));
    size_t next = 0;  // The first symbol that begins after symbols[i].
    for (size_t i = 0; i < symbols.size(); ++i) {
      out.ids->push_back(symbols[i].id);
      if (out.offsets != nullptr) {
        // Byte tokens of one stretch share its start and each covers the stretch (Hugging Face's offsets).
        next = std::max(next, i + 1);
        while (next < symbols.size() && symbols[next].begin == symbols[i].begin) ++next;
        const size_t end = next < symbols.size() ? symbols[next].begin : piece.end;
        out.offsets->push_back({base + symbols[i].begin, base + end});
      }
    }
  }
  return absl::OkStatus();
}

size_t Tokenizer::FindCut(std::string_view text, size_t limit, const EncodeOptions& options) const {
  // WordPiece pre-tokenizers cut only before ASCII white space, where the normalizer must cut too (checked
  // against Hugging Face on whole texts by scripts/conformance.sh); BPE keeps normalized text whole.
  if (spec_.normalizer != nullptr && spec_.type != ModelType::kWordPiece) return 0;
  // An added token that holds or strips white space could span the cut.
  absl::StatusOr<std::shared_ptr<const AddedMatchers>> matchers = MatchersFor(options);
  if (!matchers.ok() || (*matchers != nullptr && !(*matchers)->cuttable)) return 0;
  const size_t cut = spec_.pre_tokenizer->FindCut(text, limit);
  if (cut != 0 && spec_.normalizer != nullptr &&
      (cut >= text.size() || !spec_.normalizer->CutsBefore(text[cut]))) {
    return 0;
  }
  return cut;
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

namespace {

// The bytes of the White_Space characters `text` begins (leading) or ends with.
size_t WhitespaceBytes(std::string_view text, bool leading) {
  size_t count = 0;
  while (count < text.size()) {
    size_t length = 0;
    if (leading) {
      if (Utf8SequenceLength(text, count) == 0) break;
      if (!IsBertWhitespace(DecodeWellFormedUtf8(text, count, &length))) break;
    } else {
      // The character ending at text.size() - count: step back over continuation bytes.
      size_t start = text.size() - count - 1;
      while (start > 0 && text.size() - count - start < 4 && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) {
        --start;
      }
      if (Utf8SequenceLength(text, start) != text.size() - count - start) break;
      if (!IsBertWhitespace(DecodeWellFormedUtf8(text, start, &length))) break;
    }
    count += length;
  }
  return count;
}

}  // namespace

void Tokenizer::PostProcess(std::string_view text, bool add_special_tokens, Encoding* encoding) const {
  const PostProcessor& post = *spec_.post_processor;
  // Spaces a token begins or ends with: an added token's are the input it covers, a byte token's its bytes.
  auto spaces = [&](size_t i, bool leading) {
    const TokenId id = encoding->ids[i];
    const Offset& offset = encoding->offsets[i];
    std::string_view spelling;
    if (is_special_[id]) {
      spelling = text.substr(offset.begin, offset.end - offset.begin);
    } else if (spec_.type == ModelType::kByte && id < spec_.bpe.size()) {
      spelling = spec_.bpe.token(id);
    }
    // Hugging Face counts 'Ġ' (a space byte) and white space characters of the token's spelling: byte tokens
    // spell other white space bytes as letters ('Ċ'), added tokens are their text (any White_Space character,
    // e.g. U+3000, whose bytes are all skipped).
    if (is_special_[id]) return WhitespaceBytes(spelling, leading);
    size_t count = 0;
    if (leading) {
      while (count < spelling.size() && spelling[count] == ' ') ++count;
    } else {
      while (count < spelling.size() && spelling[spelling.size() - 1 - count] == ' ') ++count;
    }
    return count;
  };
  for (const PostProcessor::Step& step : post.steps) {
    if (step.kind != PostProcessor::Step::kTrimOffsets) continue;
    for (size_t i = 0; i < encoding->ids.size(); ++i) {
      Offset& offset = encoding->offsets[i];
      size_t leading = spaces(i, true);
      const size_t trailing = spaces(i, false);
      if (leading > 0) {
        if ((i == 0 || offset.begin == 0) && step.add_prefix_space && leading == 1) leading = 0;
        offset.begin = std::min(offset.begin + leading, offset.end);
      }
      if (trailing > 0 && offset.end >= trailing) offset.end = std::max(offset.end - trailing, offset.begin);
    }
  }
  if (!add_special_tokens) return;
  const std::vector<TokenId> before = post.SingleBefore();
  const std::vector<TokenId> after = post.SingleAfter();
  encoding->ids.insert(encoding->ids.begin(), before.begin(), before.end());
  encoding->ids.insert(encoding->ids.end(), after.begin(), after.end());
  encoding->offsets.insert(encoding->offsets.begin(), before.size(), Offset{0, 0});
  encoding->offsets.insert(encoding->offsets.end(), after.size(), Offset{0, 0});
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
