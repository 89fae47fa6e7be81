// Tokenizer's encode path (tokenizer/tokenizer.h): the added tokens matched in the input (or in its normalization)
// cut the text, and each stretch between them is normalized, pre-tokenized and run through the model (BPE with its
// piece cache, WordPiece, Unigram), its offsets mapped back to input bytes; then the post-processor trims offsets
// and adds its special tokens. FindCut says where a long input may be cut into chunks encoded on their own.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status_macros.h"
#include "fmt/format.h"
#include "tokenizer/normalizers/sequence_normalizer.h"
#include "tokenizer/pre_tokenizers/whitespace_pre_tokenizer.h"
#include "tokenizer/text/bert_unicode.h"
#include "tokenizer/text/character_offsets.h"
#include "tokenizer/text/utf8.h"
#include "tokenizer/tokenizer.h"

namespace tokvec {
namespace {

// The number of the next word of `out` (its `words` not null): one past the last one's.
int32_t NextWord(const TokenSink& out) { return out.words->empty() ? 0 : out.words->back() + 1; }

}  // namespace

absl::StatusOr<Encoding> Tokenizer::Encode(std::string_view text, const EncodeOptions& options) const {
  Encoding out;
  TOKVEC_RETURN_IF_ERROR(EncodeInto(text, options, 0, Caches{nullptr, nullptr},
                                    Sink{&out.ids, &out.offsets, options.words ? &out.words : nullptr}));
  if (spec_.whole_character_offsets) {
    for (Offset& offset : out.offsets) WidenToCharacters(text, &offset.begin, &offset.end);
  }
  if (spec_.post_processor != nullptr) {
    PostProcess(text, options.add_special_tokens, options.trim_offsets, &out);
    if (options.words && options.add_special_tokens) {  // the post-processor's tokens around the text are no word
      out.words.insert(out.words.begin(), spec_.post_processor->SingleBefore().size(), -1);
      out.words.resize(out.ids.size(), -1);
    }
  }
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
    if (out.words != nullptr) out.words->push_back(NextWord(out));
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
    if (out.words != nullptr) out.words->push_back(NextWord(out));
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
  pieces.clear();
  if (pieces.capacity() > (size_t{1} << 20)) pieces.shrink_to_fit();
  if (byte_model_ == nullptr) {
    caches = {nullptr, nullptr};
  } else if (caches.local == nullptr) {
    caches.local = &PieceCache::ForThread(cache_serial_);
  }
  if (const std::string_view utf8_name = model_->utf8_name(); !utf8_name.empty()) {
    // Checked before normalization, which would pass bad bytes on: offsets name the input byte.
    if (std::optional<size_t> bad = FindInvalidUtf8(text)) {
      return absl::InvalidArgumentError(
          fmt::format("invalid UTF-8 at byte offset {} (byte 0x{:02X}); {} models need UTF-8 text", base + *bad,
                      static_cast<unsigned char>(text[*bad]), utf8_name));
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
    return EncodePieces(text, pieces, base, caches, out);
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
  TOKVEC_RETURN_IF_ERROR(EncodePieces(normalized.text, pieces, 0, caches, out));
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

absl::Status Tokenizer::EncodePieces(std::string_view text, const std::vector<Piece>& pieces, size_t base,
                                     Caches caches, Sink out) const {
  if (out.words != nullptr) {  // one piece at a time, its tokens numbered as one word
    std::vector<int32_t>* words = out.words;
    out.words = nullptr;
    for (const Piece& piece : pieces) {
      const int32_t word = words->empty() ? 0 : words->back() + 1;
      const size_t before = out.ids->size();
      TOKVEC_RETURN_IF_ERROR(EncodePieces(text, std::vector<Piece>{piece}, base, caches, out));
      words->resize(words->size() + (out.ids->size() - before), word);
    }
    return absl::OkStatus();
  }
  if (byte_model_ != nullptr) {
    thread_local std::vector<BpeModel::Symbol> scratch;
    byte_model_->EncodeCachedPieces(text, pieces, base, caches, scratch, out);
    return absl::OkStatus();
  }
  return model_->EncodePieces(text, pieces, base, out);
}

size_t Tokenizer::FindCut(std::string_view text, size_t limit, const EncodeOptions& options) const {
  // WordPiece pre-tokenizers cut only before ASCII white space, where the normalizer must cut too (checked
  // against Hugging Face on whole texts by scripts/conformance.sh); BPE keeps normalized text whole.
  if (spec_.normalizer != nullptr && !model_->CutsNormalizedText()) return 0;
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

void Tokenizer::PostProcess(std::string_view text, bool add_special_tokens, bool trim, Encoding* encoding) const {
  if (trim) TrimOffsets(text, encoding->ids, &encoding->offsets);
  if (add_special_tokens) spec_.post_processor->AddTokens(&encoding->ids, &encoding->offsets);
}

void Tokenizer::TrimOffsets(std::string_view text, absl::Span<const TokenId> ids, std::vector<Offset>* offsets) const {
  if (spec_.post_processor == nullptr || !spec_.post_processor->TrimsOffsets()) return;
  // Spaces a token begins or ends with: an added token's are the input it covers, a byte token's its bytes.
  auto spaces = [&](size_t i, bool leading) {
    const TokenId id = ids[i];
    const Offset& offset = (*offsets)[i];
    std::string_view spelling;
    if (is_special_[id]) {
      spelling = text.substr(offset.begin, offset.end - offset.begin);
    } else {
      spelling = model_->TokenBytes(id);
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
  spec_.post_processor->TrimOffsets(spaces, offsets);
}

}  // namespace tokvec
