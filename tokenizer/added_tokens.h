// Adding tokens to a tokenizer without moving any id: Hugging Face's add_tokens / add_special_tokens
// (tokenizers' AddedVocabulary::add_tokens), for `tokvec extend --add-tokens`.
//
//   TOKVEC_ASSIGN_OR_RETURN(std::vector<NewToken> tokens, ParseNewTokens(text, {.special = false}, "new.txt"));
//   TOKVEC_ASSIGN_OR_RETURN(TokenizerSpec spec, Tokenizer::LoadSpec("tokenizer.json", {}));
//   TOKVEC_ASSIGN_OR_RETURN(AddedTokensReport report, AddTokens(tokens, *loaded_tokenizer, &spec));
//   TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<Tokenizer> extended, Tokenizer::Create(std::move(spec)));
//
// As Hugging Face: a token whose text is already in the model's vocabulary keeps that id (it becomes an added
// token, so it is matched whole in text); an added token already there with the same flags is left alone, with
// other flags it gets the new flags and keeps its id; any other token gets the next id after every existing one
// (model and added tokens), in the order given; empty texts are skipped. So every existing id stays where it was
// and a model's embedding table only grows (by `report.new_ids`).
#ifndef TOKVEC_TOKENIZER_ADDED_TOKENS_H_
#define TOKVEC_TOKENIZER_ADDED_TOKENS_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "tokenizer/tokenizer.h"

namespace tokvec {

// One token to add, with Hugging Face's AddedToken flags.
struct NewToken {
  std::string content;
  bool special = false;
  bool single_word = false;
  bool lstrip = false;
  bool rstrip = false;
  std::optional<bool> normalized;  // none: !special (AddedToken::from's default)
};

// The tokens of a file: one per line (without its "\n" or "\r\n"; flags from `defaults`), or a line that is a JSON
// object in the shape of tokenizer.json's added_tokens entries ({"content", "special", "single_word", "lstrip",
// "rstrip", "normalized"}; missing flags from `defaults`). Blank lines are skipped. Errors name `path` and the
// line: malformed JSON, an object without a string "content", a flag that is not true or false.
absl::StatusOr<std::vector<NewToken>> ParseNewTokens(std::string_view text, const NewToken& defaults,
                                                     const std::string& path);

struct AddedTokensReport {
  size_t new_ids = 0;        // tokens given ids after every existing one
  size_t from_vocab = 0;     // tokens already in the model's vocabulary, now added tokens with that id
  size_t updated = 0;        // added tokens already there whose flags changed
  size_t unchanged = 0;      // added tokens already there with these flags, and empty texts
  size_t vocab_size = 0;     // one past the largest id afterwards
};

// Adds `tokens` to `spec`, which must be what Tokenizer::LoadSpec read for `tokenizer`.
absl::StatusOr<AddedTokensReport> AddTokens(const std::vector<NewToken>& tokens, const Tokenizer& tokenizer,
                                            TokenizerSpec* spec);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_ADDED_TOKENS_H_
