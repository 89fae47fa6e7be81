#include "tokenizer/decoders/decoders.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "fmt/format.h"
#include "tokenizer/text/byte_unicode.h"
#include "tokenizer/text/utf8.h"

namespace tokvec {
namespace {

// The byte ranges of the characters of `text` (an ill-formed byte is a character of its own).
std::vector<std::pair<size_t, size_t>> Characters(std::string_view text) {
  std::vector<std::pair<size_t, size_t>> chars;
  for (size_t pos = 0; pos < text.size();) {
    const size_t length = std::max<size_t>(Utf8SequenceLength(text, pos), 1);
    chars.emplace_back(pos, pos + length);
    pos += length;
  }
  return chars;
}

class ReplaceDecoder : public DecoderStep {
 public:
  ReplaceDecoder(TextPattern pattern, std::string content) : pattern_(std::move(pattern)), content_(std::move(content)) {}
  absl::Status Apply(std::vector<std::string>* tokens) const override {
    std::vector<TextPattern::Match> matches;
    for (std::string& token : *tokens) {
      matches.clear();
      absl::Status found = pattern_.FindAll(token, &matches);
      if (!found.ok()) return found;
      if (matches.empty()) continue;
      std::string out;
      size_t pos = 0;
      for (const TextPattern::Match& match : matches) {
        out.append(token, pos, match.begin - pos);
        out += content_;
        pos = match.end;
      }
      out.append(token, pos, std::string::npos);
      token = std::move(out);
    }
    return absl::OkStatus();
  }
  std::string name() const override { return fmt::format("Replace({}, {})", pattern_.name(), content_); }

 private:
  TextPattern pattern_;
  std::string content_;
};

// The byte a "<0xNN>" token names (two hex digits, either case).
std::optional<unsigned char> FallbackByte(std::string_view token) {
  if (token.size() != 6 || token.substr(0, 3) != "<0x" || token[5] != '>') return std::nullopt;
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  const int high = hex(token[3]);
  const int low = hex(token[4]);
  if (high < 0 || low < 0) return std::nullopt;
  return static_cast<unsigned char>(high * 16 + low);
}

class ByteFallbackDecoder : public DecoderStep {
 public:
  absl::Status Apply(std::vector<std::string>* tokens) const override {
    std::vector<std::string> out;
    out.reserve(tokens->size());
    std::string bytes;  // The pending run of byte tokens.
    auto flush = [&] {
      if (bytes.empty()) return;
      if (Utf8ValidEnd(bytes, 0) == bytes.size()) {
        out.push_back(bytes);
      } else {
        for (size_t i = 0; i < bytes.size(); ++i) out.emplace_back("\xEF\xBF\xBD");  // U+FFFD per byte.
      }
      bytes.clear();
    };
    for (std::string& token : *tokens) {
      if (std::optional<unsigned char> byte = FallbackByte(token)) {
        bytes += static_cast<char>(*byte);
        continue;
      }
      flush();
      out.push_back(std::move(token));
    }
    flush();
    *tokens = std::move(out);
    return absl::OkStatus();
  }
  std::string name() const override { return "ByteFallback"; }
};

class FuseDecoder : public DecoderStep {
 public:
  absl::Status Apply(std::vector<std::string>* tokens) const override {
    std::string all;
    for (const std::string& token : *tokens) all += token;
    tokens->assign(1, std::move(all));
    return absl::OkStatus();
  }
  std::string name() const override { return "Fuse"; }
};

class StripDecoder : public DecoderStep {
 public:
  StripDecoder(std::string content, size_t start, size_t stop) : content_(std::move(content)), start_(start), stop_(stop) {}
  absl::Status Apply(std::vector<std::string>* tokens) const override {
    for (std::string& token : *tokens) {
      const std::vector<std::pair<size_t, size_t>> chars = Characters(token);
      auto is_content = [&](size_t i) {
        return std::string_view(token).substr(chars[i].first, chars[i].second - chars[i].first) == content_;
      };
      size_t first = 0;
      while (first < std::min(start_, chars.size()) && is_content(first)) ++first;
      size_t last = chars.size();
      while (chars.size() - last < stop_ && last > first && is_content(last - 1)) --last;
      const size_t begin = first < chars.size() ? chars[first].first : token.size();
      const size_t end = last > first ? chars[last - 1].second : begin;
      token = token.substr(begin, end - begin);
    }
    return absl::OkStatus();
  }
  std::string name() const override { return fmt::format("Strip({}, {}, {})", content_, start_, stop_); }

 private:
  std::string content_;
  size_t start_;
  size_t stop_;
};

class MetaspaceDecoder : public DecoderStep {
 public:
  MetaspaceDecoder(std::string replacement, bool strip_first)
      : replacement_(std::move(replacement)), strip_first_(strip_first) {}
  absl::Status Apply(std::vector<std::string>* tokens) const override {
    for (size_t i = 0; i < tokens->size(); ++i) {
      std::string& token = (*tokens)[i];
      const std::string_view by = i == 0 && strip_first_ ? std::string_view() : std::string_view(" ");
      std::string out;
      size_t pos = 0;
      for (size_t at = token.find(replacement_); at != std::string::npos; at = token.find(replacement_, pos)) {
        out.append(token, pos, at - pos);
        out += by;
        pos = at + replacement_.size();
      }
      out.append(token, pos, std::string::npos);
      token = std::move(out);
    }
    return absl::OkStatus();
  }
  std::string name() const override {
    return fmt::format("Metaspace({}, {})", replacement_, strip_first_ ? "first token stripped" : "never");
  }

 private:
  std::string replacement_;
  bool strip_first_;
};

// `bytes` as UTF-8, each maximal ill-formed subpart replaced by U+FFFD (Rust's String::from_utf8_lossy).
std::string Utf8Lossy(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (size_t pos = 0; pos < bytes.size();) {
    const size_t end = Utf8ValidEnd(bytes, pos);
    out.append(bytes, pos, end - pos);
    pos = end;
    if (pos < bytes.size()) {
      out += "\xEF\xBF\xBD";
      pos += Utf8MaximalSubpart(bytes, pos);
    }
  }
  return out;
}

// Hugging Face's ByteLevel decoder: the bytes of all tokens, then String::from_utf8_lossy.
class ByteLevelDecoder : public DecoderStep {
 public:
  absl::Status Apply(std::vector<std::string>* tokens) const override {
    std::string all;
    for (const std::string& token : *tokens) {
      std::optional<std::string> bytes = UnicodeToBytes(token);
      all += bytes ? *bytes : token;
    }
    tokens->assign(1, Utf8Lossy(all));
    return absl::OkStatus();
  }
  std::string name() const override { return "ByteLevel"; }
};

class WordPieceDecoderStep : public DecoderStep {
 public:
  explicit WordPieceDecoderStep(WordPieceDecoder decoder) : decoder_(std::move(decoder)) {}
  absl::Status Apply(std::vector<std::string>* tokens) const override {
    for (size_t i = 0; i < tokens->size(); ++i) {
      std::string piece;
      decoder_.Append((*tokens)[i], i, &piece);
      (*tokens)[i] = std::move(piece);
    }
    return absl::OkStatus();
  }
  std::string name() const override {
    return fmt::format("WordPiece({}, cleanup {})", decoder_.prefix, decoder_.cleanup);
  }

 private:
  WordPieceDecoder decoder_;
};

// Hugging Face's BPEDecoder: each token's `suffix` becomes a space, the last token's nothing.
class BpeSuffixDecoder : public DecoderStep {
 public:
  explicit BpeSuffixDecoder(std::string suffix) : suffix_(std::move(suffix)) {}  // Not empty.
  absl::Status Apply(std::vector<std::string>* tokens) const override {
    for (size_t i = 0; i < tokens->size(); ++i) {
      const std::string_view replacement = i + 1 == tokens->size() ? "" : " ";
      std::string& token = (*tokens)[i];
      std::string out;
      for (size_t pos = 0;;) {
        const size_t found = token.find(suffix_, pos);
        if (found == std::string::npos) {
          out.append(token, pos);
          break;
        }
        out.append(token, pos, found - pos);
        out += replacement;
        pos = found + suffix_.size();
      }
      token = std::move(out);
    }
    return absl::OkStatus();
  }
  std::string name() const override { return fmt::format("BPEDecoder({})", suffix_); }

 private:
  std::string suffix_;
};

}  // namespace

absl::StatusOr<std::string> TokenDecoder::Decode(std::vector<std::string> tokens) const {
  std::string text;
  if (no_decoder_) {
    for (size_t i = 0; i < tokens.size(); ++i) text += (i == 0 ? "" : " ") + tokens[i];
    return text;
  }
  for (const auto& step : steps_) {
    absl::Status applied = step->Apply(&tokens);
    if (!applied.ok()) return applied;
  }
  for (const std::string& token : tokens) text += token;
  return text;
}

std::string TokenDecoder::name() const {
  if (no_decoder_) return "none (spellings joined by spaces)";
  std::string name;
  for (const auto& step : steps_) name += (name.empty() ? "" : ", ") + step->name();
  return name;
}

std::unique_ptr<DecoderStep> MakeReplaceDecoder(TextPattern pattern, std::string content) {
  return std::make_unique<ReplaceDecoder>(std::move(pattern), std::move(content));
}
std::unique_ptr<DecoderStep> MakeByteFallbackDecoder() { return std::make_unique<ByteFallbackDecoder>(); }
std::unique_ptr<DecoderStep> MakeFuseDecoder() { return std::make_unique<FuseDecoder>(); }
std::unique_ptr<DecoderStep> MakeStripDecoder(std::string content, size_t start, size_t stop) {
  return std::make_unique<StripDecoder>(std::move(content), start, stop);
}
std::unique_ptr<DecoderStep> MakeMetaspaceDecoder(std::string replacement, bool strip_first) {
  return std::make_unique<MetaspaceDecoder>(std::move(replacement), strip_first);
}
std::unique_ptr<DecoderStep> MakeByteLevelDecoder() { return std::make_unique<ByteLevelDecoder>(); }
std::unique_ptr<DecoderStep> MakeWordPieceDecoderStep(WordPieceDecoder decoder) {
  return std::make_unique<WordPieceDecoderStep>(std::move(decoder));
}

std::unique_ptr<DecoderStep> MakeBpeSuffixDecoder(std::string suffix) {
  return std::make_unique<BpeSuffixDecoder>(std::move(suffix));
}

}  // namespace tokvec
