#include "tokenizer/normalizers/icu_normalizer.h"

#include <algorithm>
#include <iterator>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_split.h"
#include "fmt/format.h"
#include "tokenizer/text/bert_unicode.h"
#include "tokenizer/text/utf8.h"
#include "unicode/bytestream.h"
#include "unicode/casemap.h"
#include "unicode/edits.h"
#include "unicode/normalizer2.h"

namespace tokvec {
namespace {

enum class Step {
  kNfc, kNfkc, kNfd, kNfkd, kLowercase, kPrefixSpace, kStripAccents, kBertStripAccents, kBertClean, kBertChinese
};

// One step's output: text and, per output byte, the span [begin, end) of the step's input it came from.
struct StepOutput {
  std::string text;
  std::vector<size_t> begin;
  std::vector<size_t> end;

  void Copy(std::string_view in, size_t at, size_t length) {
    for (size_t k = 0; k < length; ++k) {
      text += in[at + k];
      begin.push_back(at + k);
      end.push_back(at + k + 1);
    }
  }
  void Replace(std::string_view bytes, size_t at, size_t length) {
    text.append(bytes.data(), bytes.size());
    begin.insert(begin.end(), bytes.size(), at);
    end.insert(end.end(), bytes.size(), at + length);
  }
};

// Appends ICU's output for in[at, at + length) (well-formed UTF-8) with its edits mapped to spans.
absl::Status AppendEdited(std::string_view in, size_t at, const std::string& produced, const icu::Edits& edits,
                          StepOutput* out) {
  UErrorCode status = U_ZERO_ERROR;
  icu::Edits::Iterator it = edits.getFineIterator();
  while (it.next(status)) {
    const size_t src = at + static_cast<size_t>(it.sourceIndex());
    std::string_view dest = std::string_view(produced).substr(static_cast<size_t>(it.destinationIndex()),
                                                              static_cast<size_t>(it.newLength()));
    if (it.hasChange()) {
      out->Replace(dest, src, static_cast<size_t>(it.oldLength()));
    } else {
      out->Copy(in, src, static_cast<size_t>(it.oldLength()));
    }
  }
  if (U_FAILURE(status)) return absl::InternalError(fmt::format("ICU edits: {}", u_errorName(status)));
  return absl::OkStatus();
}

// Runs `transform(stretch, sink, edits, status)` on each well-formed stretch; ill-formed bytes are copied.
template <typename Transform>
absl::Status ApplyToValid(std::string_view in, const char* what, Transform transform, StepOutput* out) {
  for (size_t pos = 0; pos < in.size();) {
    size_t valid_end = Utf8ValidEnd(in, pos);
    if (valid_end == pos) {
      out->Copy(in, pos, 1);
      ++pos;
      continue;
    }
    std::string produced;
    icu::StringByteSink<std::string> sink(&produced);
    icu::Edits edits;
    UErrorCode status = U_ZERO_ERROR;
    transform(icu::StringPiece(in.data() + pos, static_cast<int32_t>(valid_end - pos)), sink, edits, status);
    if (U_FAILURE(status)) {
      return absl::InternalError(fmt::format("ICU {} failed at byte {}: {}", what, pos, u_errorName(status)));
    }
    absl::Status mapped = AppendEdited(in, pos, produced, edits, out);
    if (!mapped.ok()) return mapped;
    pos = valid_end;
  }
  return absl::OkStatus();
}

absl::Status Lowercase(std::string_view in, StepOutput* out) {
  // Σ (U+03A3) is cut out and mapped to σ by hand: ICU would make a word-final Σ into ς, Hugging Face never does.
  constexpr std::string_view kCapitalSigma = "\xCE\xA3";
  constexpr std::string_view kSmallSigma = "\xCF\x83";
  auto lower = [](icu::StringPiece stretch, icu::ByteSink& sink, icu::Edits& edits, UErrorCode& status) {
    icu::CaseMap::utf8ToLower("", 0, stretch, sink, &edits, status);
  };
  for (size_t pos = 0; pos <= in.size();) {
    size_t sigma = in.find(kCapitalSigma, pos);
    size_t stop = sigma == std::string_view::npos ? in.size() : sigma;
    // Offsets of `out` are relative to `in`: transform the slice, then shift its spans.
    StepOutput part;
    absl::Status status = ApplyToValid(in.substr(pos, stop - pos), "lowercase", lower, &part);
    if (!status.ok()) return status;
    out->text += part.text;
    for (size_t k = 0; k < part.text.size(); ++k) {
      out->begin.push_back(pos + part.begin[k]);
      out->end.push_back(pos + part.end[k]);
    }
    if (sigma == std::string_view::npos) break;
    out->Replace(kSmallSigma, sigma, kCapitalSigma.size());
    pos = sigma + kCapitalSigma.size();
  }
  return absl::OkStatus();
}

// Calls `map(c, at, length, out)` for each well-formed code point c at in[at, at + length); other bytes are
// copied. For the code-point-wise steps of Hugging Face's BERT normalizers.
template <typename Map>
void MapCodePoints(std::string_view in, Map map, StepOutput* out) {
  for (size_t pos = 0; pos < in.size();) {
    const size_t length = Utf8SequenceLength(in, pos);
    if (length == 0) {
      out->Copy(in, pos, 1);
      ++pos;
      continue;
    }
    size_t decoded_length = 0;
    map(DecodeWellFormedUtf8(in, pos, &decoded_length), pos, length, out);
    pos += length;
  }
}

void BertClean(char32_t c, size_t at, size_t length, StepOutput* out, std::string_view in) {
  if (IsBertDropped(c)) return;
  if (c != ' ' && IsBertWhitespace(c)) {
    out->Replace(" ", at, length);
  } else {
    out->Copy(in, at, length);
  }
}

absl::Status ApplyStep(Step step, std::string_view in, StepOutput* out) {
  switch (step) {
    case Step::kNfc:
    case Step::kNfkc:
    case Step::kNfd:
    case Step::kNfkd: {
      UErrorCode status = U_ZERO_ERROR;
      const icu::Normalizer2* normalizer = step == Step::kNfc    ? icu::Normalizer2::getNFCInstance(status)
                                           : step == Step::kNfkc ? icu::Normalizer2::getNFKCInstance(status)
                                           : step == Step::kNfd  ? icu::Normalizer2::getNFDInstance(status)
                                                                 : icu::Normalizer2::getNFKDInstance(status);
      if (U_FAILURE(status)) {
        return absl::InternalError(fmt::format("ICU has no normalization data: {}", u_errorName(status)));
      }
      auto normalize = [normalizer](icu::StringPiece stretch, icu::ByteSink& sink, icu::Edits& edits,
                                    UErrorCode& error) { normalizer->normalizeUTF8(0, stretch, sink, &edits, error); };
      return ApplyToValid(in, "normalization", normalize, out);
    }
    case Step::kStripAccents:
      MapCodePoints(
          in,
          [in](char32_t c, size_t at, size_t length, StepOutput* o) {
            if (!IsNonspacingMark(c)) o->Copy(in, at, length);
          },
          out);
      return absl::OkStatus();
    case Step::kBertStripAccents:
      MapCodePoints(
          in,
          [in](char32_t c, size_t at, size_t length, StepOutput* o) {
            if (!IsBertStripMark(c)) o->Copy(in, at, length);
          },
          out);
      return absl::OkStatus();
    case Step::kBertClean:
      MapCodePoints(
          in, [in](char32_t c, size_t at, size_t length, StepOutput* o) { BertClean(c, at, length, o, in); }, out);
      return absl::OkStatus();
    case Step::kBertChinese:
      // The spaces are inserted text: empty spans before and after the ideograph.
      MapCodePoints(
          in,
          [in](char32_t c, size_t at, size_t length, StepOutput* o) {
            if (!IsChineseChar(c)) return o->Copy(in, at, length);
            o->Replace(" ", at, 0);
            o->Copy(in, at, length);
            o->Replace(" ", at + length, 0);
          },
          out);
      return absl::OkStatus();
    case Step::kLowercase:
      return Lowercase(in, out);
    case Step::kPrefixSpace:
      // Hugging Face aligns the space it prepends with the first character (a token of the space alone covers it).
      if (!in.empty() && in.front() != ' ') out->Replace(" ", 0, std::max<size_t>(1, Utf8SequenceLength(in, 0)));
      out->Copy(in, 0, in.size());
      return absl::OkStatus();
  }
  return absl::InternalError("unknown normalization step");
}

// Each step by the name MakeNormalizer takes.
constexpr std::pair<std::string_view, Step> kSteps[] = {
    {"nfc", Step::kNfc},
    {"nfkc", Step::kNfkc},
    {"nfd", Step::kNfd},
    {"nfkd", Step::kNfkd},
    {"lowercase", Step::kLowercase},
    {"prefix_space", Step::kPrefixSpace},
    {"strip_accents", Step::kStripAccents},
    {"bert_clean", Step::kBertClean},
    {"bert_chinese", Step::kBertChinese},
    {"bert_strip_accents", Step::kBertStripAccents},
};

std::string StepName(Step step) {
  for (const auto& [name, known] : kSteps) {
    if (known == step) return std::string(name);
  }
  return "unknown";
}

class IcuNormalizer : public Normalizer {
 public:
  IcuNormalizer(std::string name, std::vector<Step> steps) : name_(std::move(name)), steps_(std::move(steps)) {}

  absl::StatusOr<NormalizedText> Normalize(std::string_view text) const override {
    NormalizedText result;
    result.text = std::string(text);
    result.source_begin.resize(text.size());
    result.source_end.resize(text.size());
    for (size_t i = 0; i < text.size(); ++i) {
      result.source_begin[i] = i;
      result.source_end[i] = i + 1;
    }
    for (Step step : steps_) {
      StepOutput out;
      out.text.reserve(result.text.size() + 1);
      absl::Status status = ApplyStep(step, result.text, &out);
      if (!status.ok()) return status;
      // Compose: a span [b, e) of the step's input maps to the input bytes of its first and last byte.
      NormalizedText next;
      next.text = std::move(out.text);
      next.source_begin.resize(next.text.size());
      next.source_end.resize(next.text.size());
      for (size_t j = 0; j < next.text.size(); ++j) {
        const size_t b = out.begin[j];
        const size_t e = out.end[j];
        if (e > b) {
          next.source_begin[j] = result.source_begin[b];
          next.source_end[j] = result.source_end[e - 1];
        } else {  // Inserted text (prefix space): an empty span where it was inserted.
          const size_t at = b < result.text.size() ? result.source_begin[b] : text.size();
          next.source_begin[j] = at;
          next.source_end[j] = at;
        }
      }
      result = std::move(next);
    }
    return result;
  }

  // Before ASCII white space: the normalization forms (NFC, NFKC, NFD, NFKD) have a boundary before it (a starter
  // that no composition takes as its second character, with no decomposition), lowercasing maps code point by code
  // point (Σ included, see Lowercase), the BERT steps (clean, CJK spacing, accent stripping) too, and each step
  // leaves the white space where it was. A prefix space is put before the second part
  // too unless that part starts with a space, so with prefix_space only a space qualifies.
  bool CutsBefore(char ascii) const override {
    if (ascii != ' ' && ascii != '\t' && ascii != '\n' && ascii != '\r') return false;
    return ascii == ' ' || std::find(steps_.begin(), steps_.end(), Step::kPrefixSpace) == steps_.end();
  }

  std::string name() const override { return name_; }

  std::vector<std::string> IcuSteps() const override {
    std::vector<std::string> names;
    for (Step step : steps_) names.push_back(StepName(step));
    return names;
  }

  std::unique_ptr<Normalizer> WithoutPrefixSpace() const override {
    std::vector<Step> rest;
    std::string name;
    for (Step step : steps_) {
      if (step == Step::kPrefixSpace) continue;
      rest.push_back(step);
      if (!name.empty()) name += '+';
      name += StepName(step);
    }
    if (rest.empty()) return nullptr;
    return std::make_unique<IcuNormalizer>(std::move(name), std::move(rest));
  }

 private:
  std::string name_;
  std::vector<Step> steps_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Normalizer>> MakeNormalizer(const std::string& name) {
  if (name.empty() || name == "none") return std::unique_ptr<Normalizer>();
  std::vector<Step> steps;
  for (absl::string_view part : absl::StrSplit(name, '+')) {
    const auto* it = std::find_if(std::begin(kSteps), std::end(kSteps),
                                  [&](const auto& entry) { return entry.first == std::string_view(part.data(), part.size()); });
    if (it == std::end(kSteps)) {
      return absl::InvalidArgumentError(fmt::format(
          "unknown normalizer '{}' in '{}'; known: nfc, nfkc, nfd, nfkd, lowercase, prefix_space, strip_accents, "
          "bert_clean, bert_chinese, bert_strip_accents, joined by '+' (e.g. nfkc+lowercase)",
          std::string(part), name));
    }
    steps.push_back(it->second);
  }
  return std::unique_ptr<Normalizer>(new IcuNormalizer(name, std::move(steps)));
}

}  // namespace tokvec
