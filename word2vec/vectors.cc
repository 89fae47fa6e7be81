#include "word2vec/vectors.h"

#include <charconv>
#include <cmath>
#include <cstring>

#include "absl/strings/match.h"
#include "base/file_io.h"
#include "base/status_macros.h"
#include "fmt/format.h"

namespace tokvec::word2vec {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// A reader over the file's bytes that never reads past the end.
struct Cursor {
  std::string_view bytes;
  size_t pos = 0;
  bool done() const { return pos >= bytes.size(); }
};

// Reads a non-negative decimal integer after optional spaces/tabs.
bool ReadInt(Cursor& c, int64_t* value) {
  while (!c.done() && (c.bytes[c.pos] == ' ' || c.bytes[c.pos] == '\t')) ++c.pos;
  const char* begin = c.bytes.data() + c.pos;
  const char* end = c.bytes.data() + c.bytes.size();
  auto [ptr, ec] = std::from_chars(begin, end, *value);
  if (ec != std::errc() || *value < 0) return false;
  c.pos += static_cast<size_t>(ptr - begin);
  return true;
}

std::string Shown(std::string_view word) {
  if (word.size() > 40) return fmt::format("{}...", word.substr(0, 40));
  return std::string(word);
}

// Text records: `word v1 ... vD` per line.
absl::Status ParseText(Cursor& c, int64_t count, const std::string& name, Vectors* out) {
  const size_t dim = static_cast<size_t>(out->dim);
  for (int64_t i = 0; i < count; ++i) {
    // Skip blank lines before a record.
    while (!c.done() && IsSpace(c.bytes[c.pos])) ++c.pos;
    if (c.done()) {
      return absl::DataLossError(fmt::format(
          "'{}' is truncated: the header says {} words, the file holds {}", name, count, i));
    }
    size_t line_end = c.bytes.find('\n', c.pos);
    if (line_end == std::string_view::npos) line_end = c.bytes.size();
    std::string_view line = c.bytes.substr(c.pos, line_end - c.pos);
    c.pos = line_end;
    size_t p = 0;
    while (p < line.size() && !IsSpace(line[p])) ++p;
    std::string_view word = line.substr(0, p);
    size_t base = out->values.size();
    out->values.resize(base + dim);
    for (size_t d = 0; d < dim; ++d) {
      while (p < line.size() && (line[p] == ' ' || line[p] == '\t' || line[p] == '\r')) ++p;
      if (p >= line.size()) {
        return absl::InvalidArgumentError(fmt::format(
            "'{}', word {} ('{}'): {} values where the header says {}", name, i + 1, Shown(word), d, dim));
      }
      float v = 0;
      auto [ptr, ec] = std::from_chars(line.data() + p, line.data() + line.size(), v);
      const size_t used = static_cast<size_t>(ptr - (line.data() + p));
      if (ec == std::errc::result_out_of_range) {
        return absl::InvalidArgumentError(fmt::format("'{}', word {} ('{}'): value {} is out of float range", name,
                                                      i + 1, Shown(word), d + 1));
      }
      if (ec != std::errc() || (p + used < line.size() && !IsSpace(line[p + used])) || !std::isfinite(v)) {
        size_t q = p;
        while (q < line.size() && !IsSpace(line[q])) ++q;
        return absl::InvalidArgumentError(fmt::format("'{}', word {} ('{}'): value {} '{}' is not a finite number",
                                                      name, i + 1, Shown(word), d + 1,
                                                      Shown(line.substr(p, q - p))));
      }
      out->values[base + d] = v;
      p += used;
    }
    while (p < line.size() && IsSpace(line[p])) ++p;
    if (p < line.size()) {
      return absl::InvalidArgumentError(fmt::format(
          "'{}', word {} ('{}'): more than the {} values the header says", name, i + 1, Shown(word), dim));
    }
    out->words.emplace_back(word);
  }
  return absl::OkStatus();
}

// Binary records: `word` ' ' D float32 (little-endian), optionally followed by '\n'.
absl::Status ParseBinary(Cursor& c, int64_t count, const std::string& name, Vectors* out) {
  const size_t dim = static_cast<size_t>(out->dim);
  for (int64_t i = 0; i < count; ++i) {
    while (!c.done() && IsSpace(c.bytes[c.pos])) ++c.pos;  // the '\n' after the previous record
    const size_t space = c.bytes.find(' ', c.pos);
    if (c.done() || space == std::string_view::npos) {
      return absl::DataLossError(fmt::format(
          "'{}' is truncated: the header says {} words, the file holds {}", name, count, i));
    }
    std::string_view word = c.bytes.substr(c.pos, space - c.pos);
    c.pos = space + 1;
    if (c.bytes.size() - c.pos < dim * sizeof(float)) {
      return absl::DataLossError(fmt::format("'{}' is truncated in word {} ('{}'): {} bytes of {} values left",
                                             name, i + 1, Shown(word), c.bytes.size() - c.pos, dim));
    }
    const size_t base = out->values.size();
    out->values.resize(base + dim);
    std::memcpy(out->values.data() + base, c.bytes.data() + c.pos, dim * sizeof(float));  // little-endian host
    c.pos += dim * sizeof(float);
    for (size_t d = 0; d < dim; ++d) {
      if (!std::isfinite(out->values[base + d])) {
        return absl::InvalidArgumentError(fmt::format("'{}', word {} ('{}'): value {} is not a finite number", name,
                                                      i + 1, Shown(word), d + 1));
      }
    }
    out->words.emplace_back(word);
  }
  return absl::OkStatus();
}

// Whether the record starting at `pos` is a text line: a word, then something that starts as a number, and no
// control bytes (binary float32 values almost always hold some: every value in [2^-126, 2) has a byte below 0x20
// or a '\n' with probability ~1 - (7/8)^4 per value, and the parser then reports any mismatch).
bool LooksLikeText(std::string_view bytes, size_t pos) {
  while (pos < bytes.size() && IsSpace(bytes[pos])) ++pos;
  size_t end = bytes.find('\n', pos);
  if (end == std::string_view::npos) end = bytes.size();
  std::string_view line = bytes.substr(pos, end - pos);
  size_t p = line.find(' ');
  if (p == std::string_view::npos) return false;
  for (char ch : line.substr(p)) {  // the values part (a word may hold any byte but white space)
    if (static_cast<unsigned char>(ch) < 0x20 && ch != '\t' && ch != '\r') return false;
  }
  while (p < line.size() && IsSpace(line[p])) ++p;
  if (p >= line.size()) return false;
  float v;
  auto [ptr, ec] = std::from_chars(line.data() + p, line.data() + line.size(), v);
  return ec == std::errc() || ec == std::errc::result_out_of_range;
}

}  // namespace

std::optional<size_t> Vectors::Find(std::string_view word) const {
  for (size_t i = 0; i < words.size(); ++i) {
    if (words[i] == word) return i;
  }
  return std::nullopt;
}

absl::StatusOr<Vectors> ParseVectors(std::string_view bytes, const std::string& name, VectorFormat format) {
  // 1. The header `count dim`.
  Cursor c{bytes};
  int64_t count = 0, dim = 0;
  if (!ReadInt(c, &count) || !ReadInt(c, &dim)) {
    return absl::InvalidArgumentError(fmt::format(
        "'{}' is not a word2vec vector file: it must start with a header line `count dim` (e.g. `71291 100`)",
        name));
  }
  while (!c.done() && (c.bytes[c.pos] == ' ' || c.bytes[c.pos] == '\t' || c.bytes[c.pos] == '\r')) ++c.pos;
  if (c.done() || c.bytes[c.pos] != '\n') {
    return absl::InvalidArgumentError(
        fmt::format("'{}': the header line must hold exactly two numbers, `count dim`", name));
  }
  ++c.pos;
  if (dim < 1 || dim > kMaxDim) {
    return absl::InvalidArgumentError(
        fmt::format("'{}': the header's dim {} is outside 1..{}", name, dim, kMaxDim));
  }
  // 2. Sizes the file can hold: a binary record takes at least 4*dim+2 bytes, a text record 2*dim+1.
  const bool text = format == VectorFormat::kAuto ? count > 0 && LooksLikeText(bytes, c.pos)
                                                 : format == VectorFormat::kText;
  const double per_record = text ? 2.0 * static_cast<double>(dim) + 1 : 4.0 * static_cast<double>(dim) + 2;
  if (static_cast<double>(count) * per_record > static_cast<double>(bytes.size() - c.pos) + 1) {
    return absl::DataLossError(fmt::format(
        "'{}' is truncated or its header is wrong: {} words of {} values cannot fit in {} bytes", name, count,
        dim, bytes.size()));
  }
  Vectors out;
  out.dim = dim;
  out.words.reserve(static_cast<size_t>(count));
  out.values.reserve(static_cast<size_t>(count) * static_cast<size_t>(dim));
  // 3. The records, then nothing but white space.
  TOKVEC_RETURN_IF_ERROR(text ? ParseText(c, count, name, &out) : ParseBinary(c, count, name, &out));
  while (!c.done() && IsSpace(c.bytes[c.pos])) ++c.pos;
  if (!c.done()) {
    return absl::InvalidArgumentError(fmt::format(
        "'{}': data after the {} words the header announces (byte {}); the count in the header is wrong", name,
        count, c.pos));
  }
  return out;
}

absl::StatusOr<Vectors> ReadVectors(const std::string& path) {
  TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<MappedFile> file, MappedFile::Open(path));
  return ParseVectors(file->data(), path, absl::EndsWith(path, ".bin") ? VectorFormat::kBinary : VectorFormat::kAuto);
}

std::string FormatVectors(const Vectors& vectors, bool binary) {
  std::string out = fmt::format("{} {}\n", vectors.size(), vectors.dim);
  const size_t dim = static_cast<size_t>(vectors.dim);
  for (size_t i = 0; i < vectors.size(); ++i) {
    out += vectors.words[i];
    const float* row = vectors.row(i);
    if (binary) {
      out.push_back(' ');
      out.append(reinterpret_cast<const char*>(row), dim * sizeof(float));
    } else {
      for (size_t d = 0; d < dim; ++d) fmt::format_to(std::back_inserter(out), " {}", row[d]);
    }
    out.push_back('\n');
  }
  return out;
}

absl::Status WriteVectors(const std::string& path, const Vectors& vectors) {
  return WriteFileAtomically(path, FormatVectors(vectors, absl::EndsWith(path, ".bin")));
}

}  // namespace tokvec::word2vec
