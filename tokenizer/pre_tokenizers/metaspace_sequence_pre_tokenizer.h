// A Hugging Face pre_tokenizer Sequence holding one Metaspace between steps that only split (Split, Digits,
// Punctuation, WhitespaceSplit, ...): e.g. Sequence [Metaspace {split}, Digits {individual_digits}] or
// Sequence [WhitespaceSplit, Punctuation, Metaspace]. Hugging Face's semantics (pre_tokenizers/sequence.rs,
// metaspace.rs): each step re-splits every piece of the step before, so
//   - the steps before the Metaspace cut the text;
//   - the Metaspace rewrites each of those pieces on its own: spaces become the replacement, one is prepended to
//     each piece (prepend_scheme "always") or only to a piece at input offset 0 ("first": Hugging Face tests the
//     piece's original offset, so not after a special token), and with split each piece is cut before every
//     replacement;
//   - the steps after it cut the rewritten pieces (they see "▁", not " ").
//
//   MetaspaceSequencePreTokenizer pre({.split = true}, /*before=*/nullptr, std::move(digits));
//   NormalizedText out; std::vector<Piece> pieces;
//   TOKVEC_RETURN_IF_ERROR(pre.Rewrite("a 12", true, &out, &pieces));  // out.text "▁a▁12": "▁a" "▁" "1" "2"
//
// Metaspace alone is MetaspacePreTokenizer (metaspace_pre_tokenizer.h); this composes it with the splitters.
#ifndef TOKVEC_TOKENIZER_PRE_TOKENIZERS_METASPACE_SEQUENCE_PRE_TOKENIZER_H_
#define TOKVEC_TOKENIZER_PRE_TOKENIZERS_METASPACE_SEQUENCE_PRE_TOKENIZER_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/pre_tokenizers/metaspace_pre_tokenizer.h"
#include "tokenizer/pre_tokenizers/pre_tokenizer.h"

namespace tokvec {

class MetaspaceSequencePreTokenizer : public PreTokenizer {
 public:
  // `before` and `after` split pieces (null: no step there); options.whitespace_split must be false.
  MetaspaceSequencePreTokenizer(MetaspacePreTokenizer::Options options, std::unique_ptr<PreTokenizer> before,
                                std::unique_ptr<PreTokenizer> after)
      : metaspace_(std::move(options)), before_(std::move(before)), after_(std::move(after)) {}

  absl::Status Split(std::string_view text, std::vector<Piece>* pieces) const override;
  bool Rewrites() const override { return true; }
  absl::Status Rewrite(std::string_view text, bool at_start, NormalizedText* out,
                       std::vector<Piece>* pieces) const override;
  // e.g. "sequence(hf:[...], metaspace(▁,first,split), none)".
  std::string name() const override;

 private:
  MetaspacePreTokenizer metaspace_;
  std::unique_ptr<PreTokenizer> before_;
  std::unique_ptr<PreTokenizer> after_;
};

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_PRE_TOKENIZERS_METASPACE_SEQUENCE_PRE_TOKENIZER_H_
