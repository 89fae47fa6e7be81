#include "tokenizer/normalizers/precompiled_normalizer.h"

#include <cstring>

#include "absl/strings/escaping.h"
#include "fmt/format.h"
#include "tokenizer/text/utf8.h"
#include "unicode/brkiter.h"
#include "unicode/utext.h"

namespace tokvec {
namespace {

// darts-clone's unit layout (a uint32 per node).
bool HasLeaf(uint32_t unit) { return ((unit >> 8) & 1) == 1; }
uint32_t Value(uint32_t unit) { return unit & ((1u << 31) - 1); }
uint32_t Label(uint32_t unit) { return unit & ((1u << 31) | 0xFF); }
size_t Offset(uint32_t unit) { return static_cast<size_t>((unit >> 10) << ((unit & (1u << 9)) >> 6)); }

// Ends of the extended grapheme clusters of `text` (ICU's character break iterator; one per thread).
void GraphemeEnds(std::string_view text, std::vector<size_t>* ends) {
  ends->clear();
  thread_local std::unique_ptr<icu::BreakIterator> iterator;
  UErrorCode status = U_ZERO_ERROR;
  if (iterator == nullptr) iterator.reset(icu::BreakIterator::createCharacterInstance(icu::Locale::getRoot(), status));
  UText utext = UTEXT_INITIALIZER;
  if (U_SUCCESS(status)) utext_openUTF8(&utext, text.data(), static_cast<int64_t>(text.size()), &status);
  if (U_SUCCESS(status) && iterator != nullptr) iterator->setText(&utext, status);
  if (U_FAILURE(status) || iterator == nullptr) {  // No ICU data: every character on its own.
    for (size_t pos = 0; pos < text.size();) {
      const size_t len = Utf8SequenceLength(text, pos);
      pos += len == 0 ? 1 : len;
      ends->push_back(pos);
    }
    utext_close(&utext);
    return;
  }
  for (int32_t end = iterator->next(); end != icu::BreakIterator::DONE; end = iterator->next()) {
    ends->push_back(static_cast<size_t>(end));
  }
  utext_close(&utext);
  if (ends->empty() || ends->back() != text.size()) ends->push_back(text.size());
}

}  // namespace

absl::StatusOr<std::unique_ptr<PrecompiledNormalizer>> PrecompiledNormalizer::FromBase64(std::string_view base64) {
  std::string blob;
  if (!absl::Base64Unescape(absl::string_view(base64.data(), base64.size()), &blob)) {
    return absl::InvalidArgumentError("precompiled_charsmap is not valid base64");
  }
  return FromBlob(blob);
}

absl::StatusOr<std::unique_ptr<PrecompiledNormalizer>> PrecompiledNormalizer::FromBlob(std::string_view blob) {
  if (blob.size() < 4) {
    return absl::InvalidArgumentError(
        fmt::format("precompiled_charsmap is {} bytes, too short for its 4-byte trie size", blob.size()));
  }
  const auto* bytes = reinterpret_cast<const unsigned char*>(blob.data());
  const uint32_t trie_bytes = bytes[0] | (bytes[1] << 8) | (bytes[2] << 16) | (uint32_t{bytes[3]} << 24);
  if (trie_bytes == 0 || trie_bytes % 4 != 0 || trie_bytes > blob.size() - 4) {
    return absl::InvalidArgumentError(fmt::format(
        "precompiled_charsmap: trie size {} is not a positive multiple of 4 within the {} bytes that follow (truncated?)",
        trie_bytes, blob.size() - 4));
  }
  auto normalizer = std::unique_ptr<PrecompiledNormalizer>(new PrecompiledNormalizer());
  normalizer->units_.resize(trie_bytes / 4);
  for (size_t i = 0; i < normalizer->units_.size(); ++i) {
    const unsigned char* u = bytes + 4 + 4 * i;
    normalizer->units_[i] = u[0] | (u[1] << 8) | (u[2] << 16) | (uint32_t{u[3]} << 24);
  }
  normalizer->pool_ = std::string(blob.substr(4 + trie_bytes));
  if (Utf8ValidEnd(normalizer->pool_, 0) != normalizer->pool_.size()) {
    return absl::InvalidArgumentError(
        fmt::format("precompiled_charsmap: the replacement strings are not valid UTF-8 (byte {} of the pool)",
                    Utf8ValidEnd(normalizer->pool_, 0)));
  }
  return normalizer;
}

std::optional<std::string_view> PrecompiledNormalizer::Transform(std::string_view key) const {
  // darts-clone's common prefix search, stopped at the first (shortest) match.
  size_t node = 0;
  node ^= Offset(units_[0]);
  for (unsigned char c : key) {
    if (c == 0) break;
    node ^= c;
    if (node >= units_.size()) return std::nullopt;
    const uint32_t unit = units_[node];
    if (Label(unit) != c) return std::nullopt;
    node ^= Offset(unit);
    if (HasLeaf(unit)) {
      if (node >= units_.size()) return std::nullopt;
      const size_t begin = Value(units_[node]);
      if (begin > pool_.size()) return std::nullopt;
      size_t end = pool_.find('\0', begin);
      if (end == std::string::npos) end = pool_.size();
      std::string_view replacement = std::string_view(pool_).substr(begin, end - begin);
      // A replacement starting inside a character would not be text: treat it as no match.
      if (Utf8ValidEnd(replacement, 0) != replacement.size()) return std::nullopt;
      return replacement;
    }
  }
  return std::nullopt;
}

absl::StatusOr<NormalizedText> PrecompiledNormalizer::Normalize(std::string_view text) const {
  NormalizedText out;
  out.text.reserve(text.size());
  out.source_begin.reserve(text.size());
  out.source_end.reserve(text.size());
  auto append = [&](std::string_view bytes, size_t begin, size_t end) {
    out.text.append(bytes);
    out.source_begin.insert(out.source_begin.end(), bytes.size(), begin);
    out.source_end.insert(out.source_end.end(), bytes.size(), end);
  };
  auto copy = [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      out.text.push_back(text[i]);
      out.source_begin.push_back(i);
      out.source_end.push_back(i + 1);
    }
  };
  thread_local std::vector<size_t> ends;
  GraphemeEnds(text, &ends);
  size_t begin = 0;
  for (size_t end : ends) {
    std::string_view cluster = text.substr(begin, end - begin);
    std::optional<std::string_view> whole;
    if (cluster.size() < 6) whole = Transform(cluster);
    if (whole) {
      append(*whole, begin, end);
    } else {
      for (size_t pos = begin; pos < end;) {
        size_t len = Utf8SequenceLength(text, pos);
        if (len == 0) len = 1;
        len = std::min(len, end - pos);
        if (std::optional<std::string_view> part = Transform(text.substr(pos, len))) {
          append(*part, pos, pos + len);
        } else {
          copy(pos, pos + len);
        }
        pos += len;
      }
    }
    begin = end;
  }
  return out;
}

}  // namespace tokvec
