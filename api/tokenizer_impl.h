// What a public tokvec::api::Tokenizer holds (include/tokvec/tokenizer.h), for the library's entry points that
// make one (Load, a Model's tokenizer, the trainer). Not installed: it includes the library's own headers.
#ifndef TOKVEC_API_TOKENIZER_IMPL_H_
#define TOKVEC_API_TOKENIZER_IMPL_H_

#include <memory>
#include <utility>

#include "tokenizer/tokenizer.h"
#include "tokvec/tokenizer.h"

namespace tokvec::api {

struct Tokenizer::Impl {
  // Shared, never changed: a Model's tokenizer aliases the model directory's (std::shared_ptr's aliasing
  // constructor), so the directory lives as long as any Tokenizer taken from it.
  std::shared_ptr<const tokvec::Tokenizer> tokenizer;
};

// The one door to Tokenizer's private constructor and state (a friend of Tokenizer).
struct TokenizerAccess {
  static Tokenizer Make(std::shared_ptr<const tokvec::Tokenizer> tokenizer) {
    return Tokenizer(std::make_shared<const Tokenizer::Impl>(Tokenizer::Impl{std::move(tokenizer)}));
  }
  static const tokvec::Tokenizer& Internal(const Tokenizer& tokenizer) { return *tokenizer.impl_->tokenizer; }
};

}  // namespace tokvec::api

#endif  // TOKVEC_API_TOKENIZER_IMPL_H_
