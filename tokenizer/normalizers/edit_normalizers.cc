#include "tokenizer/normalizers/edit_normalizers.h"

#include <algorithm>
#include <utility>

#include "fmt/format.h"
#include "tokenizer/normalizers/sequence_normalizer.h"
#include "tokenizer/text/utf8.h"
#include "unicode/uchar.h"

namespace tokvec {
namespace {

// Appends in[begin, end) unchanged, each byte mapping to itself.
void Keep(std::string_view in, size_t begin, size_t end, NormalizedText* out) {
  out->text.append(in.data() + begin, end - begin);
  for (size_t i = begin; i < end; ++i) {
    out->source_begin.push_back(i);
    out->source_end.push_back(i + 1);
  }
}

// Appends `bytes`, every byte mapping to the input span [begin, end) (empty for inserted text).
void Put(std::string_view bytes, size_t begin, size_t end, NormalizedText* out) {
  out->text.append(bytes.data(), bytes.size());
  out->source_begin.insert(out->source_begin.end(), bytes.size(), begin);
  out->source_end.insert(out->source_end.end(), bytes.size(), end);
}

class PrependNormalizer : public Normalizer {
 public:
  explicit PrependNormalizer(std::string prepend) : prepend_(std::move(prepend)) {}
  absl::StatusOr<NormalizedText> Normalize(std::string_view text) const override {
    NormalizedText out;
    // Hugging Face aligns the prepended text with the first character (its offsets cover that character).
    if (!text.empty()) Put(prepend_, 0, std::max<size_t>(1, Utf8SequenceLength(text, 0)), &out);
    Keep(text, 0, text.size(), &out);
    return out;
  }
  std::string name() const override { return fmt::format("prepend({})", prepend_); }

 private:
  std::string prepend_;
};

class ReplaceNormalizer : public Normalizer {
 public:
  ReplaceNormalizer(TextPattern pattern, std::string content)
      : pattern_(std::move(pattern)), content_(std::move(content)) {}
  absl::StatusOr<NormalizedText> Normalize(std::string_view text) const override {
    std::vector<TextPattern::Match> matches;
    absl::Status found = pattern_.FindAll(text, &matches);
    if (!found.ok()) return found;
    NormalizedText out;
    out.text.reserve(text.size());
    size_t pos = 0;
    for (const TextPattern::Match& match : matches) {
      Keep(text, pos, match.begin, &out);
      // Hugging Face (NormalizedString::replace) aligns every character of the content with the match's last
      // character: "▁▁" for ten spaces covers the tenth.
      size_t last = match.end;
      while (last > match.begin && (static_cast<unsigned char>(text[last - 1]) & 0xC0) == 0x80) --last;
      Put(content_, last > match.begin ? last - 1 : match.begin, match.end, &out);
      pos = match.end;
    }
    Keep(text, pos, text.size(), &out);
    return out;
  }
  std::string name() const override { return fmt::format("replace({}, {})", pattern_.name(), content_); }

 private:
  TextPattern pattern_;
  std::string content_;
};

class StripNormalizer : public Normalizer {
 public:
  StripNormalizer(bool left, bool right) : left_(left), right_(right) {}
  absl::StatusOr<NormalizedText> Normalize(std::string_view text) const override {
    // The first and the end of the last code point that is not white space; invalid bytes are not white space.
    size_t first_content = text.size();
    size_t last_content_end = 0;
    for (size_t pos = 0; pos < text.size();) {
      const size_t length = Utf8SequenceLength(text, pos);
      bool white = false;
      if (length != 0) {
        size_t decoded = 0;
        white = u_isUWhiteSpace(static_cast<UChar32>(DecodeWellFormedUtf8(text, pos, &decoded)));
      }
      const size_t next = pos + std::max<size_t>(length, 1);
      if (!white) {
        first_content = std::min(first_content, pos);
        last_content_end = next;
      }
      pos = next;
    }
    const size_t begin = left_ ? first_content : 0;
    const size_t end = right_ ? last_content_end : text.size();
    NormalizedText out;
    Keep(text, begin, std::max(begin, end), &out);
    return out;
  }
  std::string name() const override { return fmt::format("strip({}, {})", left_, right_); }

 private:
  bool left_;
  bool right_;
};

}  // namespace

std::unique_ptr<Normalizer> MakePrependNormalizer(std::string prepend) {
  return std::make_unique<PrependNormalizer>(std::move(prepend));
}

std::unique_ptr<Normalizer> MakeReplaceNormalizer(TextPattern pattern, std::string content) {
  return std::make_unique<ReplaceNormalizer>(std::move(pattern), std::move(content));
}

std::unique_ptr<Normalizer> MakeStripNormalizer(bool strip_left, bool strip_right) {
  return std::make_unique<StripNormalizer>(strip_left, strip_right);
}

std::unique_ptr<Normalizer> MakeNormalizerChain(std::vector<std::unique_ptr<Normalizer>> steps) {
  steps.erase(std::remove(steps.begin(), steps.end(), nullptr), steps.end());
  if (steps.empty()) return nullptr;
  if (steps.size() == 1) return std::move(steps.front());
  return std::make_unique<NormalizerChain>(std::move(steps));
}

}  // namespace tokvec
