// Hugging Face's text-editing normalizers, as Normalizer steps that keep the byte-offset map of normalizer.h:
//   Prepend {prepend}             puts `prepend` before the text, unless the text is empty (Llama-2: "▁").
//   Replace {pattern, content}    every match of a String or Regex pattern (text_pattern.h) becomes `content`
//                                 (Llama-2: " " -> "▁").
//   Strip {strip_left, strip_right}  drops Unicode White_Space at the start and/or the end.
// and a chain that runs normalizers one after the other (Hugging Face's Sequence), composing their offset maps,
// so these mix with the ICU steps of icu_normalizer.h.
//
//   std::vector<std::unique_ptr<Normalizer>> steps;
//   steps.push_back(MakePrependNormalizer("▁"));
//   steps.push_back(MakeReplaceNormalizer(*TextPattern::Literal(" "), "▁"));
//   std::unique_ptr<Normalizer> llama = MakeNormalizerChain(std::move(steps));
//   llama->Normalize("Hi there")->text == "▁Hi▁there"
//
// Offsets: inserted text (the prepended string) maps to an empty span where it was inserted; each byte of a
// replacement maps to the whole match it replaced; kept bytes map to themselves.
#ifndef TOKVEC_TOKENIZER_NORMALIZERS_EDIT_NORMALIZERS_H_
#define TOKVEC_TOKENIZER_NORMALIZERS_EDIT_NORMALIZERS_H_

#include <memory>
#include <string>
#include <vector>

#include "tokenizer/normalizers/normalizer.h"
#include "tokenizer/text/text_pattern.h"

namespace tokvec {

std::unique_ptr<Normalizer> MakePrependNormalizer(std::string prepend);
std::unique_ptr<Normalizer> MakeReplaceNormalizer(TextPattern pattern, std::string content);
std::unique_ptr<Normalizer> MakeStripNormalizer(bool strip_left, bool strip_right);
// Runs `steps` in order (null steps are skipped); nullptr when none is left, the step itself when one is.
std::unique_ptr<Normalizer> MakeNormalizerChain(std::vector<std::unique_ptr<Normalizer>> steps);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_NORMALIZERS_EDIT_NORMALIZERS_H_
