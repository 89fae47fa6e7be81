// tokvec decode: token ids back to text.
//
//   echo "7 2 7 13" | tokvec decode -m seed.tokvec        # low lower
//   tokvec encode -m gpt2.tiktoken in.txt | tokvec decode -m gpt2.tiktoken > same.txt
//
// Input (FILE or standard input) is ids separated by any whitespace. The output is exactly the decoded text,
// with no newline added: byte models give back the encoded bytes; word models turn each `</w>` into one space
// (the last one ends the text), so whitespace runs come back as single spaces. Special ids become their text.
// A non-numeric or out-of-range id is an error naming it and its position (1-based) in the input.
// --skip-special leaves out special tokens before decoding (Hugging Face's skip_special_tokens=True: a
// tokenizer.json's added tokens with "special": true, the special tokens of a .tiktoken file or tokvec model):
//   tokvec encode -m bert/tokenizer.json --add-special-tokens in.txt |
//     tokvec decode -m bert/tokenizer.json --skip-special
#include <charconv>
#include <memory>
#include <string>
#include <vector>

#include "base/file_io.h"
#include "base/status_macros.h"
#include "cli/command.h"
#include "fmt/format.h"
#include "tokenizer/tokenizer.h"

namespace tokvec::cli {
namespace {

struct DecodeCommandOptions {
  std::string model;
  std::string pattern;
  std::string input = "-";
  bool skip_special = false;
};

bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

absl::Status RunDecode(const DecodeCommandOptions& options) {
  Tokenizer::LoadOptions load;
  load.pattern = options.pattern;
  TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<Tokenizer> tokenizer, Tokenizer::Load(options.model, load));
  TOKVEC_ASSIGN_OR_RETURN(std::string text, ReadFile(options.input));
  std::vector<TokenId> ids;
  for (size_t at = 0; at < text.size();) {
    if (IsSpace(text[at])) {
      ++at;
      continue;
    }
    size_t end = at;
    while (end < text.size() && !IsSpace(text[end])) ++end;
    std::string_view field(text.data() + at, end - at);
    uint64_t id = 0;
    auto [ptr, error] = std::from_chars(field.data(), field.data() + field.size(), id);
    if (error == std::errc::result_out_of_range || (error == std::errc() && ptr == field.data() + field.size() &&
                                                    id >= tokenizer->vocab_size())) {
      return absl::OutOfRangeError(fmt::format("id {} (position {}, byte offset {}) is outside the vocabulary; ids "
                                               "are 0..{}",
                                               field, ids.size() + 1, at, tokenizer->vocab_size() - 1));
    }
    if (error != std::errc() || ptr != field.data() + field.size()) {
      return absl::InvalidArgumentError(fmt::format(
          "'{}' (position {}, byte offset {}) is not a token id; give whole numbers separated by whitespace",
          field.substr(0, 40), ids.size() + 1, at));
    }
    ids.push_back(static_cast<TokenId>(id));
    at = end;
  }
  absl::StatusOr<std::string> decoded =
      tokenizer->Decode(ids, DecodeOptions{.skip_special_tokens = options.skip_special});
  if (!decoded.ok()) return decoded.status();
  return WriteAll(stdout, *decoded);
}

}  // namespace

void RegisterDecodeCommand(CLI::App& app, CommandAction* action) {
  auto options = std::make_shared<DecodeCommandOptions>();
  CLI::App* sub = app.add_subcommand("decode", "Turn token ids back into text");
  sub->add_option("-m,--model", options->model,
                  "Tokenizer: tokvec model, .tiktoken, vocab.json (+merges.txt), tokenizer.json or a directory")
      ->required();
  sub->add_option("--pattern", options->pattern, "Split pattern for a .tiktoken file of unknown name");
  sub->add_flag("--skip-special", options->skip_special,
                "Leave out special tokens ([CLS], <|endoftext|>, ...) before decoding (Hugging Face's "
                "skip_special_tokens=True)");
  sub->add_option("input", options->input, "Whitespace-separated ids; none or '-' reads standard input");
  sub->callback([options, action] { *action = [options] { return RunDecode(*options); }; });
}

}  // namespace tokvec::cli
