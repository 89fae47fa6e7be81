#include "tokenizer/models/bpe/bpe_tokenizer_models.h"

#include <algorithm>

#include "base/status_macros.h"
#include "fmt/format.h"
#include "tokenizer/models/piece_symbols.h"
#include "tokenizer/models/vocab_json.h"
#include "tokenizer/text/byte_unicode.h"

namespace tokvec {
namespace {

// Length of the UTF-8 sequence that starts with `lead` (1 for a stray byte; callers validated the text).
size_t Utf8Length(unsigned char lead) {
  if (lead < 0x80) return 1;
  if ((lead >> 5) == 0x6) return 2;
  if ((lead >> 4) == 0xE) return 3;
  if ((lead >> 3) == 0x1E) return 4;
  return 1;
}

// Spelling of a BPE token that is not shown in GPT-2's alphabet: its bytes, a word's `</w>` shown as such.
std::string PlainSpelling(const BpeModel& bpe, TokenId id) {
  if (id >= bpe.size()) return fmt::format("<id {}>", id);
  const std::string& bytes = bpe.token(id);
  if (!bytes.empty() && bytes.back() == kEndOfWordByte) {
    return bytes.substr(0, bytes.size() - 1) + std::string(kEndOfWordSpelling);
  }
  return bytes;
}

// The check of word affixes every model that takes them makes: the unk token they name must be a token.
absl::Status CheckAffixes(const std::optional<BpeAffixes>& affixes, size_t vocab_size) {
  if (affixes && affixes->unknown.unk_id && *affixes->unknown.unk_id >= vocab_size) {
    return absl::InvalidArgumentError("the unk token's id is outside the vocabulary");
  }
  return absl::OkStatus();
}

// The summary fields of a merging model over bytes or (`code_points`) UTF-8 characters: its merge rule and count,
// and its alphabet (single units; `skip`: a symbol that is not a unit, a word model's `</w>`).
std::string MergeFields(const BpeModel& bpe, bool code_points, std::optional<TokenId> skip) {
  std::string out;
  out += fmt::format("merge_rule: {}\n", bpe.rule() == BpeModel::Rule::kMergeList
                                             ? "merge list (rank = position in the list)"
                                             : "ranks (tiktoken: a pair merges if its concatenation is a token)");
  out += fmt::format("merges: {}\n", bpe.merges().size());
  size_t alphabet = 0;
  for (TokenId id = 0; id < bpe.size(); ++id) {
    const std::string& bytes = bpe.token(id);
    if (bytes.empty() || (skip && id == *skip)) continue;
    const bool single = code_points ? bytes.size() <= 4 && bpe.Find(bytes) &&
                                          Utf8Length(static_cast<unsigned char>(bytes[0])) == bytes.size()
                                    : bytes.size() == 1;
    if (single) ++alphabet;
  }
  out += fmt::format("alphabet: {} {}\n", alphabet, code_points ? "code points" : "bytes");
  return out;
}

}  // namespace

// ---- Byte-level ----

ByteBpeTokenizerModel::ByteBpeTokenizerModel(const BpeModel& bpe, bool ignore_merges,
                                             const std::optional<BpeAffixes>& affixes,
                                             const std::vector<UnreachableToken>& unreachable, uint64_t cache_serial)
    : bpe_(bpe), ignore_merges_(ignore_merges), affixes_(affixes), unreachable_(unreachable),
      cache_serial_(cache_serial) {
  for (int b = 0; b < 256; ++b) {
    std::optional<TokenId> id = bpe_.Find(std::string(1, static_cast<char>(b)));
    byte_ids_[b] = id.value_or(kNoFallbackToken);
  }
}

absl::Status ByteBpeTokenizerModel::Check(size_t vocab_size, bool /*has_decoder*/) const {
  return CheckAffixes(affixes_, vocab_size);
}

absl::Status ByteBpeTokenizerModel::EncodePieces(std::string_view text, absl::Span<const Piece> pieces, size_t base,
                                                 TokenSink out) const {
  thread_local std::vector<BpeModel::Symbol> scratch;
  EncodeCachedPieces(text, pieces, base, PieceCaches{nullptr, &PieceCache::ForThread(cache_serial_)}, scratch, out);
  return absl::OkStatus();
}

void ByteBpeTokenizerModel::EncodeCachedPieces(std::string_view text, absl::Span<const Piece> pieces, size_t base,
                                               PieceCaches caches, std::vector<BpeModel::Symbol>& scratch,
                                               TokenSink out) const {
  for (const Piece& piece : pieces) {
    const std::string_view bytes = text.substr(piece.begin, piece.end - piece.begin);
    if (bytes.empty()) continue;
    // A piece seen before is copied from a cache (piece_cache.h).
    const uint64_t hash = PieceCache::Hash(bytes);
    const PieceCache* cache = nullptr;
    const PieceCache::Entry* hit = caches.Find(hash, bytes, &cache);
    if (hit != nullptr) {
      const TokenId* ids = cache->ids(*hit);
      for (size_t i = 0; i < hit->count; ++i) out.ids->push_back(ids[i]);
      if (out.offsets != nullptr) {
        const uint8_t* begins = cache->begins(*hit);
        size_t next = 0;  // As EmitPieceSymbols: up to the next symbol that begins after this one.
        for (size_t i = 0; i < hit->count; ++i) {
          next = std::max(next, i + 1);
          while (next < hit->count && begins[next] == begins[i]) ++next;
          const size_t end = next < hit->count ? piece.begin + begins[next] : piece.end;
          out.offsets->push_back({base + piece.begin + begins[i], base + end});
        }
      }
      continue;
    }
    MergePiece(text, piece, scratch);
    caches.local->Insert(hash, bytes, scratch, piece.begin);
    EmitPieceSymbols(scratch, piece, base, out);
  }
}

void ByteBpeTokenizerModel::MergePiece(std::string_view text, Piece piece,
                                       std::vector<BpeModel::Symbol>& scratch) const {
  const std::string_view bytes = text.substr(piece.begin, piece.end - piece.begin);
  scratch.clear();
  std::optional<TokenId> whole;
  if (ignore_merges_) whole = bpe_.Find(bytes);
  if (whole) {
    scratch.push_back({*whole, piece.begin});
  } else if (affixes_) {
    AffixSymbols(bytes, piece.begin, bpe_, *affixes_, &scratch);
    bpe_.Merge(scratch);
  } else {
    for (size_t i = 0; i < bytes.size(); ++i) {
      TokenId id = byte_ids_[static_cast<unsigned char>(bytes[i])];
      if (id == kNoFallbackToken) continue;  // A vocabulary without this byte cannot represent it.
      scratch.push_back({id, piece.begin + i});
    }
    bpe_.Merge(scratch);
  }
}

std::string ByteBpeTokenizerModel::Spelling(TokenId id) const {
  for (const UnreachableToken& unreachable : unreachable_) {
    if (unreachable.id == id) return unreachable.spelling;
  }
  if (id >= bpe_.size()) return fmt::format("<id {}>", id);
  return BytesToUnicode(bpe_.token(id));
}

std::optional<TokenId> ByteBpeTokenizerModel::FindSpelling(std::string_view spelling) const {
  for (const UnreachableToken& unreachable : unreachable_) {
    if (unreachable.spelling == spelling) return unreachable.id;
  }
  std::optional<std::string> bytes = UnicodeToBytes(spelling);
  if (!bytes || bytes->empty()) return std::nullopt;
  return bpe_.Find(*bytes);
}

ModelSummary ByteBpeTokenizerModel::Describe() const {
  ModelSummary summary{.kind = "byte (byte-level BPE)", .fields = MergeFields(bpe_, false, std::nullopt)};
  if (!unreachable_.empty()) {  // Spelled outside the byte alphabet: no input reaches them.
    summary.fields += fmt::format("unreachable_tokens: {}\n", unreachable_.size());
  }
  return summary;
}

bool ByteBpeTokenizerModel::AppendDecoded(TokenId id, std::string* text) const {
  if (IsGap(id)) {
    for (const UnreachableToken& unreachable : unreachable_) {
      if (unreachable.id == id) {
        *text += unreachable.spelling;
        return true;
      }
    }
    return false;
  }
  *text += bpe_.token(id);
  return true;
}

// ---- Words ----

absl::Status WordBpeTokenizerModel::Check(size_t vocab_size, bool /*has_decoder*/) const {
  if (has_affixes_) {
    return absl::InvalidArgumentError("word affixes (continuing_subword_prefix, end_of_word_suffix) need a BPE model");
  }
  if (!end_of_word_id_ || *end_of_word_id_ >= bpe_.size()) {
    return absl::InvalidArgumentError("word model has no end-of-word token `</w>`");
  }
  if (!unk_id_ || *unk_id_ >= vocab_size) return absl::InvalidArgumentError("word model has no `<unk>` id");
  return absl::OkStatus();
}

absl::Status WordBpeTokenizerModel::EncodePieces(std::string_view text, absl::Span<const Piece> pieces, size_t base,
                                                 TokenSink out) const {
  thread_local std::vector<BpeModel::Symbol> scratch;
  EncodeEachPiece(text, pieces, base, out, scratch, [&](std::string_view bytes, Piece piece, auto* symbols) {
    for (size_t i = 0; i < bytes.size();) {
      size_t len = std::min(Utf8Length(static_cast<unsigned char>(bytes[i])), bytes.size() - i);
      std::optional<TokenId> id = bpe_.Find(bytes.substr(i, len));
      symbols->push_back({id.value_or(*unk_id_), piece.begin + i});
      i += len;
    }
    symbols->push_back({*end_of_word_id_, piece.end});
    bpe_.Merge(*symbols);
  });
  return absl::OkStatus();
}

std::string WordBpeTokenizerModel::Spelling(TokenId id) const {
  if (unk_id_ && id == *unk_id_ && IsGap(id)) return "<unk>";
  return PlainSpelling(bpe_, id);
}

std::optional<TokenId> WordBpeTokenizerModel::FindSpelling(std::string_view spelling) const {
  std::string bytes(spelling);
  if (spelling.ends_with(kEndOfWordSpelling)) {
    bytes.resize(bytes.size() - kEndOfWordSpelling.size());
    bytes += kEndOfWordByte;
  }
  if (std::optional<TokenId> id = bpe_.Find(bytes); id && !bytes.empty()) return id;
  if (unk_id_ && IsGap(*unk_id_) && spelling == "<unk>") return unk_id_;
  return std::nullopt;
}

ModelSummary WordBpeTokenizerModel::Describe() const {
  return {.kind = "word (classic BPE, </w> ends each word)",
          .fields = MergeFields(bpe_, true, end_of_word_id_),
          .ids = fmt::format("unk_id: {}\nend_of_word_id: {}\n", *unk_id_, *end_of_word_id_)};
}

bool WordBpeTokenizerModel::AppendDecoded(TokenId id, std::string* text) const {
  if (IsGap(id)) return unk_id_ && id == *unk_id_;  // `<unk>` decodes to nothing
  const std::string& bytes = bpe_.token(id);
  if (bytes.back() == kEndOfWordByte) {
    text->append(bytes, 0, bytes.size() - 1);
    *text += ' ';
  } else {
    *text += bytes;
  }
  return true;
}

void WordBpeTokenizerModel::FinishDecoded(absl::Span<const TokenId> ids, std::string* text) const {
  // The `</w>` of the last word ends the text rather than adding a space.
  if (!text->empty() && text->back() == ' ' && !ids.empty() && !IsGap(ids.back()) &&
      bpe_.token(ids.back()).back() == kEndOfWordByte) {
    text->pop_back();
  }
}

// ---- Code points ----

absl::Status CharBpeTokenizerModel::Check(size_t vocab_size, bool has_decoder) const {
  TOKVEC_RETURN_IF_ERROR(CheckAffixes(affixes_, vocab_size));
  if (options_.unk_id && *options_.unk_id >= vocab_size) {
    return absl::InvalidArgumentError("the unk token's id is outside the vocabulary");
  }
  if (!has_decoder) return absl::InvalidArgumentError("char model has no decoder");
  return absl::OkStatus();
}

absl::Status CharBpeTokenizerModel::EncodePieces(std::string_view text, absl::Span<const Piece> pieces, size_t base,
                                                 TokenSink out) const {
  thread_local std::vector<BpeModel::Symbol> scratch;
  EncodeEachPiece(text, pieces, base, out, scratch, [&](std::string_view bytes, Piece piece, auto* symbols) {
    std::optional<TokenId> whole;
    if (ignore_merges_) whole = bpe_.Find(bytes);
    if (whole) {
      symbols->push_back({*whole, piece.begin});
      return;
    }
    if (affixes_) {
      AffixSymbols(bytes, piece.begin, bpe_, *affixes_, symbols);
    } else {
      CharSymbols(bytes, piece.begin, bpe_, options_, fallback_ids_, symbols);
    }
    bpe_.Merge(*symbols);
  });
  return absl::OkStatus();
}

std::string CharBpeTokenizerModel::Spelling(TokenId id) const { return PlainSpelling(bpe_, id); }

std::optional<TokenId> CharBpeTokenizerModel::FindSpelling(std::string_view spelling) const {
  if (spelling.empty()) return std::nullopt;
  return bpe_.Find(spelling);
}

ModelSummary CharBpeTokenizerModel::Describe() const {
  ModelSummary summary{.kind = "char (BPE over code points, SentencePiece-style)"};
  summary.fields += fmt::format("merges: {}\n", bpe_.merges().size());
  summary.fields += fmt::format(
      "unk_token: {}\n", options_.unk_id ? fmt::format("{} (id {})", Spelling(*options_.unk_id), *options_.unk_id)
                                          : "none (unknown characters are dropped)");
  summary.fields += fmt::format("fuse_unk: {}\n", options_.fuse_unk);
  summary.fields += fmt::format("byte_fallback: {}\n", options_.byte_fallback);
  summary.fields += fmt::format("ignore_merges: {}\n", ignore_merges_);
  return summary;
}

absl::StatusOr<std::string> CharBpeTokenizerModel::HfModelJson() const {
  if (affixes_) {
    return absl::UnimplementedError(
        "a model with continuing_subword_prefix or end_of_word_suffix cannot be written (not supported yet)");
  }
  if (bpe_.rule() != BpeModel::Rule::kMergeList) {
    return absl::UnimplementedError("a char model with merge ranks cannot be written as tokenizer.json");
  }
  std::string merges = "[";
  for (const BpeModel::MergePair& pair : bpe_.merges()) {
    if (merges.size() > 1) merges += ',';
    merges += '[' + JsonString(bpe_.token(pair.left)) + ',' + JsonString(bpe_.token(pair.right)) + ']';
  }
  merges += ']';
  return fmt::format(
      R"({{"type":"BPE","dropout":null,"unk_token":{},"continuing_subword_prefix":null,"end_of_word_suffix":null,)"
      R"("fuse_unk":{},"byte_fallback":{},"ignore_merges":{},"vocab":{},"merges":{}}})",
      options_.unk_id ? JsonString(bpe_.token(*options_.unk_id)) : "null", options_.fuse_unk, options_.byte_fallback,
      ignore_merges_, VocabJsonObject(bpe_.size(), [&](TokenId id) -> std::string_view { return bpe_.token(id); }),
      merges);
}

}  // namespace tokvec
