#include "tokenizer/trainers/count_file.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "base/file_io.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "tokenizer/formats/text_escape.h"
#include "tokenizer/text/utf8.h"

namespace tokvec {
namespace {

constexpr std::string_view kMagic = "tokvec-counts";
constexpr int kVersion = 1;

absl::Status LineError(const std::string& name, size_t line, std::string_view what) {
  return absl::InvalidArgumentError(fmt::format("count file '{}', line {}: {}", name, line, what));
}

// "tokvec-counts 1 type=byte pre_tokenizer=gpt2 normalizer=none", maybe followed by " split=lines"
absl::StatusOr<CountFileHeader> ParseHeader(std::string_view line, const std::string& name, size_t number) {
  std::vector<std::string_view> fields;
  for (size_t at = 0;;) {
    const size_t space = line.find(' ', at);
    fields.push_back(line.substr(at, space == std::string_view::npos ? std::string_view::npos : space - at));
    if (space == std::string_view::npos) break;
    at = space + 1;
  }
  if ((fields.size() != 5 && fields.size() != 6) || fields[0] != kMagic) {
    return LineError(name, number, fmt::format("a line with a space must be the header `{} {} type=… "
                                               "pre_tokenizer=… normalizer=…[ split=lines]` (write spaces in "
                                               "pieces as \\s)",
                                               kMagic, kVersion));
  }
  if (fields[1] != std::to_string(kVersion)) {
    return LineError(name, number, fmt::format("version {} is not supported (this tokvec reads version {})",
                                               fields[1], kVersion));
  }
  CountFileHeader header;
  std::string* values[] = {&header.type, &header.pre_tokenizer, &header.normalizer};
  const std::string_view keys[] = {"type=", "pre_tokenizer=", "normalizer="};
  for (int k = 0; k < 3; ++k) {
    if (!fields[k + 2].starts_with(keys[k])) {
      return LineError(name, number, fmt::format("header field {} should start with `{}`", k + 3, keys[k]));
    }
    std::string error;
    std::optional<std::string> value = UnescapeText(fields[k + 2].substr(keys[k].size()), false, &error);
    if (!value) return LineError(name, number, fmt::format("header field `{}`: {}", keys[k], error));
    *values[k] = std::move(*value);
  }
  if (fields.size() == 6) {
    if (fields[5] != "split=lines") {
      return LineError(name, number, fmt::format("header field 6 is '{}'; it can only be `split=lines`", fields[5]));
    }
    header.split_lines = true;
  }
  if (header.type != "word" && header.type != "byte") {
    return LineError(name, number, fmt::format("type is '{}', not word or byte", header.type));
  }
  return header;
}

// True when `piece` could be a whitespace word: well-formed UTF-8 without ASCII whitespace.
bool IsWordPiece(std::string_view piece) {
  if (Utf8ValidEnd(piece, 0) != piece.size()) return false;
  return piece.find_first_of(" \t\n\r\v\f") == std::string_view::npos;
}

}  // namespace

std::string CountFileHeader::ToString() const {
  return fmt::format("type={} pre_tokenizer={} normalizer={}{}", EscapeText(type), EscapeText(pre_tokenizer),
                     EscapeText(normalizer), split_lines ? " split=lines" : "");
}

std::string FormatCountFile(const std::optional<CountFileHeader>& header, std::vector<WordCount> pieces) {
  std::sort(pieces.begin(), pieces.end(), [](const WordCount& a, const WordCount& b) { return a.word < b.word; });
  std::string out;
  if (header) out += fmt::format("{} {} {}\n", kMagic, kVersion, header->ToString());
  for (const WordCount& piece : pieces) {
    out += EscapeText(piece.word);
    out += '\t';
    out += std::to_string(piece.count);
    out += '\n';
  }
  return out;
}

absl::Status WriteCountFile(const std::string& path, const std::optional<CountFileHeader>& header,
                            std::vector<WordCount> pieces) {
  TOKVEC_ASSIGN_OR_RETURN(AtomicFile out, AtomicFile::Create(path));
  TOKVEC_RETURN_IF_ERROR(out.Write(FormatCountFile(header, std::move(pieces))));
  return out.Commit();
}

namespace {

// What the files read so far add up to.
struct Totals {
  std::optional<CountFileHeader> header;
  absl::flat_hash_map<std::string, uint64_t> counts;
};

absl::Status ParseInto(std::string_view text, const std::string& name, bool word, Totals* totals) {
  size_t number = 0;
  for (size_t at = 0; at < text.size();) {
    const size_t end = std::min(text.find('\n', at), text.size());
    std::string_view line = text.substr(at, end - at);
    at = end + 1;
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    if (line.find(' ') != std::string_view::npos) {
      if (number != 1) {
        return LineError(name, number, "a raw space: write spaces in pieces as \\s (only line 1 may be a header)");
      }
      TOKVEC_ASSIGN_OR_RETURN(CountFileHeader header, ParseHeader(line, name, number));
      if (totals->header && !(*totals->header == header)) {
        return LineError(name, number, fmt::format("counted with {}, but an earlier file with {}",
                                                   header.ToString(), totals->header->ToString()));
      }
      totals->header = std::move(header);
      continue;
    }
    const size_t tab = line.find('\t');
    if (tab == std::string_view::npos || line.find('\t', tab + 1) != std::string_view::npos) {
      return LineError(name, number, "expected `PIECE<TAB>COUNT` (one tab; tabs in pieces are written \\t)");
    }
    std::string error;
    std::optional<std::string> piece = UnescapeText(line.substr(0, tab), false, &error);
    if (!piece) return LineError(name, number, error);
    if (piece->empty()) return LineError(name, number, "an empty piece");
    if ((word || (totals->header && totals->header->type == "word")) && !IsWordPiece(*piece)) {
      return LineError(name, number, "a word model's piece must be UTF-8 without whitespace (a word cut at "
                                     "whitespace); count with --type byte for other pieces");
    }
    const std::string_view digits = line.substr(tab + 1);
    uint64_t count = 0;
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string_view::npos ||
        !absl::SimpleAtoi(absl::string_view(digits.data(), digits.size()), &count)) {
      return LineError(name, number,
                       fmt::format("count '{}' is not a whole number from 1 to 2^64 - 1", digits.substr(0, 40)));
    }
    if (count == 0) return LineError(name, number, "a count of 0 (a counted piece occurs at least once)");
    uint64_t& total = totals->counts[std::move(*piece)];
    if (total > std::numeric_limits<uint64_t>::max() - count) {
      return LineError(name, number, "the piece's counts add up past 2^64 - 1");
    }
    total += count;
  }
  return absl::OkStatus();
}

PieceCounts Finish(Totals totals) {
  PieceCounts out{.header = std::move(totals.header)};
  out.pieces.reserve(totals.counts.size());
  for (auto& [piece, count] : totals.counts) out.pieces.push_back({piece, count});
  return out;
}

}  // namespace

absl::Status ParseCountText(std::string_view text, const std::string& name, bool word, PieceCounts* into) {
  Totals totals{.header = into->header};
  for (WordCount& piece : into->pieces) totals.counts.emplace(std::move(piece.word), piece.count);
  const absl::Status status = ParseInto(text, name, word, &totals);
  *into = Finish(std::move(totals));
  return status;
}

absl::StatusOr<PieceCounts> ReadCountFiles(const std::vector<std::string>& paths, bool word) {
  Totals totals;
  for (const std::string& path : paths) {
    TOKVEC_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
    TOKVEC_RETURN_IF_ERROR(ParseInto(text, path, word, &totals));
  }
  return Finish(std::move(totals));
}

}  // namespace tokvec
