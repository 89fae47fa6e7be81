// tokvec's public tokenizer: text -> token ids (with the byte range each covers) -> text.
//
//   #include <tokvec/tokenizer.h>
//
//   absl::StatusOr<tokvec::api::Tokenizer> tokenizer = tokvec::api::Tokenizer::Load("gpt2.tiktoken");
//   if (!tokenizer.ok()) return tokenizer.status();
//   absl::StatusOr<tokvec::api::Encoding> encoding = tokenizer->Encode("hello world");  // ids {31373, 995}
//   absl::StatusOr<std::string> text = tokenizer->Decode(encoding->ids);               // "hello world"
//
// This is an installed header: it includes only the standard library and absl's status types, so a program
// built against an installed tokvec (find_package(tokvec) or tokvec.pc) needs nothing else. The ids are those of
// `tokvec encode` and of the Python module's Tokenizer.encode on the same file and text.
//
// The names live in tokvec::api because the library's own classes (not installed) take the plain tokvec::
// names; a program may write `namespace tv = tokvec::api;`.
//
// Errors are absl::Status values (InvalidArgument, NotFound, OutOfRange, ...) whose message names the bad input;
// nothing here throws or aborts on user input.
//
// A Tokenizer is an immutable, cheaply copied handle: copies share one loaded vocabulary, and any number of
// threads may encode and decode with the same one at once.
#ifndef TOKVEC_API_TOKENIZER_H_
#define TOKVEC_API_TOKENIZER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace tokvec::api {

// How pieces become tokens (the model kinds of the supported files):
//   kWord      classic BPE over code points with an end-of-word `</w>` symbol (Sennrich et al. 2016)
//   kByte      byte-level BPE (GPT-2, tiktoken): any input encodes, Decode gives the same bytes back
//   kWordPiece BERT's greedy longest match with `##` continuations
//   kChar      SentencePiece-style BPE over code points with `<0xNN>` byte fallback (Llama-2, Mistral)
//   kUnigram   SentencePiece's Unigram (T5, XLM-R)
//   kWordLevel whole words looked up (Hugging Face's WordLevel)
enum class ModelType { kWord, kByte, kWordPiece, kChar, kUnigram, kWordLevel };

// A byte range [begin, end) of the text given to Encode.
struct Offset {
  size_t begin = 0;
  size_t end = 0;
};

struct Encoding {
  std::vector<uint32_t> ids;
  std::vector<Offset> offsets;  // [ids.size()]: the bytes of the input each token covers
};

struct LoadOptions {
  // The split pattern (a preset name such as "cl100k_base", or an ICU regex) of a `.tiktoken` file whose name
  // is not one of tiktoken's; empty otherwise (`tokvec encode --pattern`).
  std::string pattern;
};

struct EncodeOptions {
  // Text spelling a special token (e.g. `<|endoftext|>`) is ordinary text unless allowed here, as tiktoken
  // does: `allow_all_special` allows every one, `allowed_special` the listed ones (`--allow-special`).
  bool allow_all_special = false;
  std::vector<std::string> allowed_special;
  // Add the tokens the file's post-processor puts around a text (Hugging Face's add_special_tokens=True,
  // e.g. BERT's [CLS] ... [SEP]); nothing when the file has none.
  bool add_special_tokens = false;
};

struct DecodeOptions {
  // Leave special tokens out of the text (Hugging Face's skip_special_tokens=True).
  bool skip_special_tokens = false;
};

class Tokenizer {
 public:
  // Reads any file tokvec reads, chosen by looking at the path: tokvec's model file (`tokvec train -o`), a
  // `.tiktoken` rank file, GPT-2's vocab.json (with merges.txt beside it), Hugging Face's tokenizer.json, BERT's
  // vocab.txt, or a directory holding one of them. Errors name the file and the line or key at fault.
  static absl::StatusOr<Tokenizer> Load(const std::string& path, const LoadOptions& options = {});

  // Text -> ids and their byte offsets.
  //   Encode("hello world") with gpt2.tiktoken: ids {31373, 995}, offsets {[0, 5), [5, 11)}
  // Errors: a word model given invalid UTF-8 (InvalidArgument, naming the byte offset); a name in
  // allowed_special that is not a special token of this tokenizer.
  absl::StatusOr<Encoding> Encode(std::string_view text, const EncodeOptions& options = {}) const;
  // Ids -> text. Errors: an id outside the vocabulary (OutOfRange, naming it).
  absl::StatusOr<std::string> Decode(std::span<const uint32_t> ids, const DecodeOptions& options = {}) const;

  // How the token is shown (`tokvec encode --tokens`): `Ġcat` for byte models (GPT-2's byte-to-unicode
  // spelling), `er</w>` for word models, `##ing` for WordPiece, the text of a special token; `<id N>` for an id
  // outside the vocabulary.
  std::string TokenSpelling(uint32_t id) const;
  // One past the largest id (model tokens and special tokens).
  size_t vocab_size() const;
  ModelType type() const;

  // Writes tokvec's model file (what `tokvec train -o` writes and every tokvec command reads) through a temporary
  // file and a rename, so `path` is never left half-written. Meant for trained tokenizers (<tokvec/train.h>) and
  // tokvec model files. FailedPrecondition, and no file, for what the format cannot hold: WordPiece, Unigram and
  // char models, tiktoken ranks, and any file whose written form would not load again (the message says why);
  // keep such a tokenizer's own file.
  absl::Status Save(const std::string& path) const;

  struct Impl;  // Defined by the library (api/tokenizer_impl.h); opaque here.

 private:
  explicit Tokenizer(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  friend struct TokenizerAccess;  // The library's other entry points make Tokenizers (api/tokenizer_impl.h).

  // Never null in a Tokenizer that Load (or another entry point) returned; a moved-from one may only be
  // assigned to or destroyed.
  std::shared_ptr<const Impl> impl_;
};

}  // namespace tokvec::api

#endif  // TOKVEC_API_TOKENIZER_H_
