// Which attention a layer computes (docs/attention_kinds.md): exact softmax attention over every allowed key
// (`full`), a sparse pattern of keys (`window:W`, `longformer:W,G`, `bigbird:B,R,G`), keys projected along the
// sequence (`linformer:K`) or a kernel feature map instead of the softmax (`performer:M`, `linear`).
//
//   TOKVEC_ASSIGN_OR_RETURN(AttentionKind kind, ParseAttentionKind("longformer:256,2"));
//   // kind.type == AttentionKindType::kLongformer, kind.window == 256, kind.globals == 2
//   AttentionKindName(kind);  // "longformer:256,2"
//
// The string is what config.json's "attention" holds, what `tokvec init --attention` and
// `tokvec bench attention --kind` take.
#ifndef TOKVEC_ATTENTION_ATTENTION_KIND_H_
#define TOKVEC_ATTENTION_ATTENTION_KIND_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace tokvec {

enum class AttentionKindType {
  kFull,        // every allowed key (softmax)
  kWindow,      // window:W
  kLongformer,  // longformer:W,G
  kBigBird,     // bigbird:B,R,G
  kLinformer,   // linformer:K
  kPerformer,   // performer:M
  kLinear,      // linear
};

struct AttentionKind {
  AttentionKindType type = AttentionKindType::kFull;
  int64_t window = 0;         // window, longformer: W
  int64_t globals = 0;        // longformer: G global tokens; bigbird: G global blocks
  int64_t block = 0;          // bigbird: B
  int64_t random_blocks = 0;  // bigbird: R
  int64_t rank = 0;           // linformer: K
  int64_t features = 0;       // performer: M

  // window, longformer, bigbird: a softmax over a subset of the keys (sparse_pattern.h).
  bool sparse() const {
    return type == AttentionKindType::kWindow || type == AttentionKindType::kLongformer ||
           type == AttentionKindType::kBigBird;
  }
  // performer, linear: a feature map instead of the softmax (kernel_attention.h).
  bool kernel() const { return type == AttentionKindType::kPerformer || type == AttentionKindType::kLinear; }
  // Whether the kind can be causal (linformer's projection mixes every position).
  bool supports_causal() const { return type != AttentionKindType::kLinformer; }

  friend bool operator==(const AttentionKind&, const AttentionKind&) = default;
};

// Parameters are positive integers (G and R may be 0) up to 2^30. InvalidArgument naming the text and the
// accepted forms otherwise.
absl::StatusOr<AttentionKind> ParseAttentionKind(std::string_view text);

// The canonical string ("window:256"); ParseAttentionKind(AttentionKindName(k)) == k.
std::string AttentionKindName(const AttentionKind& kind);

}  // namespace tokvec

#endif  // TOKVEC_ATTENTION_ATTENTION_KIND_H_
