// Hugging Face's decoders (tokenizers/src/decoders): the steps `tokvec decode` runs on token spellings to give
// text back, for models whose tokens are not plain bytes (SentencePiece-style BPE: "▁" for spaces, "<0xE3>" for
// byte-fallback tokens). Each step maps a list of token strings to a list of token strings, as Hugging Face's
// decode_chain does; the text is the concatenation of what the last step gives.
//   Replace {pattern, content}      every match of a String or Regex pattern in each token becomes `content`
//   ByteFallback                    runs of "<0xNN>" tokens become the bytes they name, when those are valid
//                                   UTF-8; otherwise each such token becomes U+FFFD
//   Fuse                            all tokens become one
//   Strip {content, start, stop}    each token loses up to `start` leading and `stop` trailing `content`
//                                   characters (never more than it has)
//   Metaspace {replacement, prepend_scheme}  `replacement` becomes ' '; in the first token it is dropped
//                                   instead, unless prepend_scheme is "never"
//   ByteLevel                       GPT-2's byte-to-unicode spelling back to bytes (a token with a character
//                                   outside that alphabet stays as it is); ill-formed UTF-8 becomes U+FFFD, one
//                                   per maximal subpart, as Rust's String::from_utf8_lossy does
//   WordPiece {prefix, cleanup}     wordpiece_decoder.h
//   BPEDecoder {suffix}             every `suffix` ("</w>" by default) in a token becomes ' ', in the last token
//                                   nothing (original GPT's and CLIP-style end_of_word_suffix, bpe_affixes.h)
//
//   std::vector<std::unique_ptr<DecoderStep>> steps;
//   steps.push_back(MakeReplaceDecoder(*TextPattern::Literal("▁"), " "));
//   steps.push_back(MakeByteFallbackDecoder());
//   steps.push_back(MakeFuseDecoder());
//   steps.push_back(MakeStripDecoder(" ", 1, 0));
//   TokenDecoder llama(std::move(steps));
//   llama.Decode({"▁Hello", "▁", "<0xE2>", "<0x82>", "<0xAC>"}) == "Hello €"
#ifndef TOKVEC_TOKENIZER_DECODERS_DECODERS_H_
#define TOKVEC_TOKENIZER_DECODERS_DECODERS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tokenizer/decoders/wordpiece_decoder.h"
#include "tokenizer/text/text_pattern.h"

namespace tokvec {

class DecoderStep {
 public:
  virtual ~DecoderStep() = default;
  virtual absl::Status Apply(std::vector<std::string>* tokens) const = 0;
  // How `tokvec inspect` shows it, e.g. "Strip( , 1, 0)".
  virtual std::string name() const = 0;
};

// Hugging Face's Sequence: the steps in order. `no_decoder`: token spellings joined by spaces, as Hugging Face
// decodes without a decoder.
class TokenDecoder {
 public:
  explicit TokenDecoder(std::vector<std::unique_ptr<DecoderStep>> steps, bool no_decoder = false)
      : steps_(std::move(steps)), no_decoder_(no_decoder) {}
  absl::StatusOr<std::string> Decode(std::vector<std::string> tokens) const;
  std::string name() const;

 private:
  std::vector<std::unique_ptr<DecoderStep>> steps_;
  bool no_decoder_;
};

std::unique_ptr<DecoderStep> MakeReplaceDecoder(TextPattern pattern, std::string content);
std::unique_ptr<DecoderStep> MakeByteFallbackDecoder();
std::unique_ptr<DecoderStep> MakeFuseDecoder();
// `content` is one character (UTF-8).
std::unique_ptr<DecoderStep> MakeStripDecoder(std::string content, size_t start, size_t stop);
// `replacement` is one character (UTF-8); `strip_first`: prepend_scheme is not "never".
std::unique_ptr<DecoderStep> MakeMetaspaceDecoder(std::string replacement, bool strip_first);
std::unique_ptr<DecoderStep> MakeByteLevelDecoder();
std::unique_ptr<DecoderStep> MakeWordPieceDecoderStep(WordPieceDecoder decoder);
std::unique_ptr<DecoderStep> MakeBpeSuffixDecoder(std::string suffix);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_DECODERS_DECODERS_H_
