// The public Tokenizer (include/tokvec/tokenizer.h): each call converts the public types to the library's and
// forwards to tokvec::Tokenizer, so the ids are those of `tokvec encode` by construction.
#include "tokvec/tokenizer.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/types/span.h"
#include "api/tokenizer_impl.h"
#include "base/file_io.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "tokenizer/formats/formats.h"
#include "tokenizer/tokenizer.h"

namespace tokvec::api {
namespace {

// The public enum mirrors tokvec::ModelType value for value; a switch (not a cast) keeps that visible.
ModelType PublicModelType(tokvec::ModelType type) {
  switch (type) {
    case tokvec::ModelType::kWord:
      return ModelType::kWord;
    case tokvec::ModelType::kByte:
      return ModelType::kByte;
    case tokvec::ModelType::kWordPiece:
      return ModelType::kWordPiece;
    case tokvec::ModelType::kChar:
      return ModelType::kChar;
    case tokvec::ModelType::kUnigram:
      return ModelType::kUnigram;
  }
  return ModelType::kByte;  // Unreachable: the switch names every type.
}

}  // namespace

absl::StatusOr<Tokenizer> Tokenizer::Load(const std::string& path, const LoadOptions& options) {
  TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<tokvec::Tokenizer> loaded,
                          tokvec::Tokenizer::Load(path, {.pattern = options.pattern}));
  return TokenizerAccess::Make(std::move(loaded));
}

absl::StatusOr<Encoding> Tokenizer::Encode(std::string_view text, const EncodeOptions& options) const {
  const tokvec::EncodeOptions internal_options{.allow_all_special = options.allow_all_special,
                                               .allowed_special = options.allowed_special,
                                               .add_special_tokens = options.add_special_tokens};
  TOKVEC_ASSIGN_OR_RETURN(tokvec::Encoding encoded, impl_->tokenizer->Encode(text, internal_options));
  Encoding encoding{.ids = std::move(encoded.ids), .offsets = {}};
  encoding.offsets.reserve(encoded.offsets.size());
  for (const tokvec::Offset& offset : encoded.offsets) {
    encoding.offsets.push_back({.begin = offset.begin, .end = offset.end});
  }
  return encoding;
}

absl::StatusOr<std::string> Tokenizer::Decode(std::span<const uint32_t> ids, const DecodeOptions& options) const {
  return impl_->tokenizer->Decode(absl::MakeConstSpan(ids.data(), ids.size()),
                                  {.skip_special_tokens = options.skip_special_tokens});
}

std::string Tokenizer::TokenSpelling(uint32_t id) const { return impl_->tokenizer->TokenSpelling(id); }

size_t Tokenizer::vocab_size() const { return impl_->tokenizer->vocab_size(); }

ModelType Tokenizer::type() const { return PublicModelType(impl_->tokenizer->type()); }

absl::Status Tokenizer::Save(const std::string& path) const {
  const tokvec::Tokenizer& tokenizer = *impl_->tokenizer;
  if (tokenizer.type() != tokvec::ModelType::kWord && tokenizer.type() != tokvec::ModelType::kByte) {
    return absl::FailedPreconditionError(
        fmt::format("a {} tokenizer has no tokvec model file form; keep the file it was loaded from ({})",
                    tokvec::ModelTypeName(tokenizer.type()), tokenizer.spec().source));
  }
  // tiktoken's rule merges any two tokens whose bytes join into a token, by rank; the model file holds a merge
  // list, which cannot say that (tokvec_model_format.cc), so such a file would encode differently.
  if (tokenizer.bpe().rule() == BpeModel::Rule::kRanks) {
    return absl::FailedPreconditionError(fmt::format(
        "a tokenizer with tiktoken ranks has no tokvec model file form (it holds a merge list); keep {}",
        tokenizer.spec().source));
  }
  // The file is read back before it is written, so that a tokenizer the format cannot hold (a tokenizer.json whose
  // special token is also a vocabulary token, say) gets an error here, not a file no tokvec command can load.
  const std::string text = WriteTokvecModel(tokenizer);
  absl::StatusOr<TokenizerSpec> spec = ReadTokvecModel(text, path);
  absl::Status readable = spec.ok() ? tokvec::Tokenizer::Create(std::move(*spec)).status() : spec.status();
  if (!readable.ok()) {
    return absl::FailedPreconditionError(fmt::format("{} cannot be saved as a tokvec model file ({}); keep it as it is",
                                                     tokenizer.spec().source, std::string(readable.message())));
  }
  return WriteFileAtomically(path, text);
}

}  // namespace tokvec::api
