// tokvec encode: text to token ids.
//
//   echo "low lower newest" | tokvec encode -m seed.tokvec            # 7 2 7 13 ... (ids, one line)
//   tokvec encode -m seed.tokvec --tokens corpus.txt                   # low </w> low er</w> ...
//   tokvec encode -m cl100k_base.tiktoken --format json text.txt      # {"ids": [...], "tokens": [...], "offsets": ...}
//   tokvec encode -m gpt2.tiktoken --lines --threads 2 big.txt         # one output line per input line
//   tokvec encode -m gpt2.tiktoken --allow-special='<|endoftext|>' in.txt
//
// Input is FILE or standard input. By default the whole input is one text (its final newline included) and the
// output is one line. With --lines each line is encoded on its own, without its line end ("\n", or "\r\n":
// a '\r' right before '\n' is part of the line end; a last line without a newline counts too), giving one
// output line per input line; input is streamed in batches and each batch is spread over --threads, with the
// output in input order and the same ids as one thread. Offsets (json) are byte offsets into the text encoded:
// the whole input, or with --lines the line.
//
// Formats: ids (space-separated), tokens (spellings: `er</w>` for word models, GPT-2's byte-to-unicode spelling
// for byte models, special tokens as their text), json {"ids", "tokens", "offsets": [[begin, end], ...]}
// (one object per line with --lines). Text that spells a special token is ordinary text unless
// --allow-special (all) or --allow-special=LIST (comma-separated) is given.
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "base/file_io.h"
#include "base/status_macros.h"
#include "cli/command.h"
#include "fmt/format.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/utf8.h"

namespace tokvec::cli {
namespace {

enum class Format { kIds, kTokens, kJson };

// The value of `--allow-special` given without a list (CLI11 flags take a value only as `--flag=VALUE`, so the
// FILE after a bare `--allow-special` is never taken as its list).
constexpr char kAllowAll[] = "ALL";

struct EncodeCommandOptions {
  std::string model;
  std::string pattern;
  std::string format = "ids";
  bool tokens = false;
  bool lines = false;
  std::string allow_special;
  int threads = 1;
  std::string input = "-";
};

void AppendNumber(uint64_t value, std::string* out) {
  char buffer[24];
  auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  out->append(buffer, result.ptr);
}

// A JSON string; bytes that are not UTF-8 (never in token spellings) become U+FFFD.
void AppendJsonString(std::string_view text, std::string* out) {
  *out += '"';
  for (size_t i = 0; i < text.size();) {
    const unsigned char byte = static_cast<unsigned char>(text[i]);
    if (byte >= 0x80) {
      size_t len = Utf8SequenceLength(text, i);
      if (len == 0) {
        *out += "\\ufffd";
        ++i;
      } else {
        out->append(text.substr(i, len));
        i += len;
      }
      continue;
    }
    if (byte == '"' || byte == '\\') {
      *out += '\\';
      *out += static_cast<char>(byte);
    } else if (byte < 0x20) {
      *out += fmt::format("\\u{:04x}", byte);
    } else {
      *out += static_cast<char>(byte);
    }
    ++i;
  }
  *out += '"';
}

// Appends one encoding as one output line.
void AppendEncoding(const Tokenizer& tokenizer, const Encoding& encoding, Format format, std::string* out) {
  const size_t n = encoding.ids.size();
  switch (format) {
    case Format::kIds:
      for (size_t i = 0; i < n; ++i) {
        if (i > 0) *out += ' ';
        AppendNumber(encoding.ids[i], out);
      }
      break;
    case Format::kTokens:
      for (size_t i = 0; i < n; ++i) {
        if (i > 0) *out += ' ';
        *out += tokenizer.TokenSpelling(encoding.ids[i]);
      }
      break;
    case Format::kJson:
      *out += "{\"ids\": [";
      for (size_t i = 0; i < n; ++i) {
        if (i > 0) *out += ", ";
        AppendNumber(encoding.ids[i], out);
      }
      *out += "], \"tokens\": [";
      for (size_t i = 0; i < n; ++i) {
        if (i > 0) *out += ", ";
        AppendJsonString(tokenizer.TokenSpelling(encoding.ids[i]), out);
      }
      *out += "], \"offsets\": [";
      for (size_t i = 0; i < n; ++i) {
        if (i > 0) *out += ", ";
        *out += '[';
        AppendNumber(encoding.offsets[i].begin, out);
        *out += ", ";
        AppendNumber(encoding.offsets[i].end, out);
        *out += ']';
      }
      *out += "]}";
      break;
  }
  *out += '\n';
}

// Encodes lines[begin, end) (line numbers from `first_line`) into `out`.
absl::Status EncodeLines(const Tokenizer& tokenizer, const EncodeOptions& encode, Format format,
                         const std::vector<std::string_view>& lines, size_t begin, size_t end, uint64_t first_line,
                         std::string* out) {
  for (size_t i = begin; i < end; ++i) {
    absl::StatusOr<Encoding> encoding = tokenizer.Encode(lines[i], encode);
    if (!encoding.ok()) {
      return absl::Status(encoding.status().code(),
                          fmt::format("line {}: {}", first_line + i, std::string(encoding.status().message())));
    }
    AppendEncoding(tokenizer, *encoding, format, out);
  }
  return absl::OkStatus();
}

// --lines: streams the input in batches of whole lines, each batch spread over the threads.
absl::Status RunLines(const Tokenizer& tokenizer, const EncodeOptions& encode, Format format,
                      const EncodeCommandOptions& options) {
  std::FILE* in = stdin;
  if (options.input != "-") {
    in = std::fopen(options.input.c_str(), "rb");
    if (in == nullptr) {
      return absl::NotFoundError(fmt::format("cannot open '{}': {}", options.input, std::strerror(errno)));
    }
  }
  struct Closer {
    std::FILE* f;
    ~Closer() {
      if (f != stdin) std::fclose(f);
    }
  } closer{in};
  constexpr size_t kBatchBytes = size_t{1} << 20;
  const size_t threads = static_cast<size_t>(std::max(1, options.threads));
  std::string buffer;
  uint64_t line_number = 1;
  bool eof = false;
  while (!eof) {
    // 1. Read about kBatchBytes more; keep the partial last line for the next batch.
    const size_t old = buffer.size();
    buffer.resize(old + kBatchBytes);
    const size_t got = std::fread(buffer.data() + old, 1, kBatchBytes, in);
    buffer.resize(old + got);
    if (got < kBatchBytes) {
      if (std::ferror(in)) return absl::DataLossError(fmt::format("cannot read '{}'", options.input));
      eof = true;
    }
    size_t complete = eof ? buffer.size() : buffer.rfind('\n');
    if (complete == std::string::npos) continue;  // One line longer than a batch: read more.
    if (!eof) ++complete;
    std::vector<std::string_view> lines;
    std::string_view text(buffer.data(), complete);
    for (size_t at = 0; at < text.size();) {
      size_t newline = text.find('\n', at);
      size_t end = newline == std::string_view::npos ? text.size() : newline;
      std::string_view line = text.substr(at, end - at);
      if (!line.empty() && line.back() == '\r' && newline != std::string_view::npos) line.remove_suffix(1);
      lines.push_back(line);
      at = newline == std::string_view::npos ? text.size() : newline + 1;
    }
    // 2. Encode contiguous slices on the threads; write them in order.
    const size_t parts = std::min(threads, std::max<size_t>(1, lines.size()));
    std::vector<std::string> outputs(parts);
    std::vector<absl::Status> statuses(parts);
    auto slice = [&](size_t part) {
      size_t begin = lines.size() * part / parts;
      size_t end = lines.size() * (part + 1) / parts;
      statuses[part] = EncodeLines(tokenizer, encode, format, lines, begin, end, line_number, &outputs[part]);
    };
    if (parts == 1) {
      slice(0);
    } else {
      std::vector<std::thread> workers;
      for (size_t part = 1; part < parts; ++part) workers.emplace_back(slice, part);
      slice(0);
      for (std::thread& worker : workers) worker.join();
    }
    for (size_t part = 0; part < parts; ++part) {
      TOKVEC_RETURN_IF_ERROR(statuses[part]);
      TOKVEC_RETURN_IF_ERROR(WriteAll(stdout, outputs[part]));
    }
    line_number += lines.size();
    buffer.erase(0, complete);
  }
  return absl::OkStatus();
}

absl::Status RunEncode(const EncodeCommandOptions& options, bool allow_special_given) {
  Format format = options.format == "json" ? Format::kJson : options.format == "tokens" ? Format::kTokens : Format::kIds;
  if (options.tokens) {
    if (format == Format::kJson) {
      return absl::InvalidArgumentError(
          fmt::format("{}--tokens is --format tokens; it cannot be combined with --format json", kUsagePrefix));
    }
    format = Format::kTokens;
  }
  if (options.threads < 1) {
    return absl::InvalidArgumentError(fmt::format("{}--threads must be at least 1, not {}", kUsagePrefix, options.threads));
  }
  Tokenizer::LoadOptions load;
  load.pattern = options.pattern;
  TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<Tokenizer> tokenizer, Tokenizer::Load(options.model, load));
  EncodeOptions encode;
  if (allow_special_given) {
    if (options.allow_special == kAllowAll || options.allow_special.empty()) {
      encode.allow_all_special = true;
    } else {
      for (size_t at = 0; at <= options.allow_special.size();) {
        size_t comma = options.allow_special.find(',', at);
        if (comma == std::string::npos) comma = options.allow_special.size();
        if (comma > at) encode.allowed_special.push_back(options.allow_special.substr(at, comma - at));
        at = comma + 1;
      }
    }
  }
  if (options.lines) return RunLines(*tokenizer, encode, format, options);
  TOKVEC_ASSIGN_OR_RETURN(std::string text, ReadFile(options.input));
  TOKVEC_ASSIGN_OR_RETURN(Encoding encoding, tokenizer->Encode(text, encode));
  std::string out;
  out.reserve(encoding.ids.size() * 7);
  AppendEncoding(*tokenizer, encoding, format, &out);
  return WriteAll(stdout, out);
}

}  // namespace

void RegisterEncodeCommand(CLI::App& app, CommandAction* action) {
  auto options = std::make_shared<EncodeCommandOptions>();
  CLI::App* sub = app.add_subcommand("encode", "Turn text into token ids");
  sub->add_option("-m,--model", options->model,
                  "Tokenizer: tokvec model, .tiktoken, vocab.json (+merges.txt), tokenizer.json or a directory")
      ->required();
  sub->add_option("--pattern", options->pattern, "Split pattern for a .tiktoken file of unknown name");
  sub->add_option("--format", options->format, "ids, tokens or json")
      ->check(CLI::IsMember({"ids", "tokens", "json"}))
      ->capture_default_str();
  sub->add_flag("--tokens", options->tokens, "Write token spellings instead of ids (= --format tokens)");
  sub->add_flag("--lines", options->lines, "Encode each line on its own; one output line per input line");
  CLI::Option* allow = sub->add_flag(std::string("--allow-special{") + kAllowAll + "}", options->allow_special,
                                     "Encode text spelling a special token as that token: all of them, or "
                                     "--allow-special=LIST (comma-separated)");
  sub->add_option("--threads", options->threads, "Threads for --lines")->capture_default_str();
  sub->add_option("input", options->input, "Text file; none or '-' reads standard input");
  sub->callback([options, allow, action] {
    const bool given = allow->count() > 0;
    *action = [options, given] { return RunEncode(*options, given); };
  });
}

}  // namespace tokvec::cli
