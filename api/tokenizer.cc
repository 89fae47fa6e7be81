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

// The public enum mirrors tokvec::ModelType value for value.
constexpr bool SameValue(ModelType a, tokvec::ModelType b) { return static_cast<int>(a) == static_cast<int>(b); }
static_assert(SameValue(ModelType::kWord, tokvec::ModelType::kWord) &&
              SameValue(ModelType::kByte, tokvec::ModelType::kByte) &&
              SameValue(ModelType::kWordPiece, tokvec::ModelType::kWordPiece) &&
              SameValue(ModelType::kChar, tokvec::ModelType::kChar) &&
              SameValue(ModelType::kUnigram, tokvec::ModelType::kUnigram) &&
              SameValue(ModelType::kWordLevel, tokvec::ModelType::kWordLevel));
ModelType PublicModelType(tokvec::ModelType type) { return static_cast<ModelType>(type); }

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

absl::Status Tokenizer::Save(const std::string& path) const { return SaveTokvecModel(*impl_->tokenizer, path); }

}  // namespace tokvec::api
