// A complete tokenizer: normalize -> split special tokens -> pre-tokenize -> BPE -> ids with byte offsets.
//
//   TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<Tokenizer> tokenizer, Tokenizer::Load("cl100k_base.tiktoken"));
//   TOKVEC_ASSIGN_OR_RETURN(Encoding encoding, tokenizer->Encode("hello world"));   // ids {15339, 1917}
//   TOKVEC_ASSIGN_OR_RETURN(std::string text, tokenizer->Decode(encoding.ids));     // "hello world"
//
// A Tokenizer is immutable after construction; Encode and Decode keep their scratch per call, so one
// tokenizer may be shared by any number of threads.
//
// Six model kinds, each a TokenizerModel (tokenizer/models/tokenizer_model.h) built by MakeTokenizerModel
// (models/model_factory.h) from the spec:
//   - kWord (classic BPE, Sennrich et al. 2016): words are maximal runs of non-White_Space code points; the
//     symbols are code points plus an end-of-word symbol spelled `</w>` after each word; a code point outside
//     the alphabet encodes as `<unk>`. Decode joins token spellings and turns each `</w>` into one space.
//   - kByte (byte-level BPE, GPT-2): a split pattern cuts the text into pieces; the symbols are bytes, so any
//     input encodes, and Decode gives back the same bytes.
//   - kWordPiece (BERT, Hugging Face tokenizer.json): pre-tokenizer pieces are cut by WordPieceModel (greedy
//     longest match, "##" continuations, unk for a word that cannot be cut); Decode runs the WordPiece decoder.
//   - kChar (SentencePiece-style BPE over code points, Hugging Face tokenizer.json: Llama-2, Mistral, Yi): the
//     symbols are code points spelled in plain UTF-8 (spaces usually "▁" by the normalizer), with "<0xNN>"
//     byte fallback and an optional unk (char_symbols.h); Decode runs the tokenizer.json decoder chain
//     (decoders.h).
//   - kUnigram (SentencePiece's Unigram, Hugging Face tokenizer.json: T5, XLM-R): pieces are cut by UnigramModel
//     (best-scoring segmentation); Decode runs the tokenizer.json decoder chain, as for kChar.
//   - kWordLevel (Hugging Face tokenizer.json: word-level and custom tokenizers): each pre-tokenizer piece is one
//     token looked up whole (WordLevelModel), unk for a word outside the vocabulary; Decode as for kChar.
// The facade does the stages around the model (added tokens, normalizer, pre-tokenizer, offsets, post-processor,
// the decoder chain) the same way for every kind.
#ifndef TOKVEC_TOKENIZER_TOKENIZER_H_
#define TOKVEC_TOKENIZER_TOKENIZER_H_

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "tokenizer/added_token_matcher.h"
#include "tokenizer/decoders/decoders.h"
#include "tokenizer/decoders/wordpiece_decoder.h"
#include "tokenizer/id_text.h"
#include "tokenizer/models/bpe/bpe_affixes.h"
#include "tokenizer/models/bpe/bpe_model.h"
#include "tokenizer/models/bpe/bpe_tokenizer_models.h"
#include "tokenizer/models/bpe/char_symbols.h"
#include "tokenizer/models/bpe/piece_cache.h"
#include "tokenizer/models/tokenizer_model.h"
#include "tokenizer/models/unigram/unigram_model.h"
#include "tokenizer/models/wordlevel/wordlevel_model.h"
#include "tokenizer/models/wordpiece/wordpiece_model.h"
#include "tokenizer/normalizers/normalizer.h"
#include "tokenizer/pre_tokenizers/pre_tokenizer.h"
#include "tokenizer/processors/padding.h"
#include "tokenizer/processors/post_processor.h"
#include "tokenizer/processors/truncation.h"

namespace tokvec {

// A token reserved for a fixed id, found in the text before the model sees it (e.g. `<|endoftext|>`). A special
// one (`special`, the default; all of tiktoken's and tokvec model files') is matched only when EncodeOptions
// allows it; a non-special one (Hugging Face's added tokens with "special": false, e.g. Qwen's `<think>`) is
// always matched. The flags are Hugging Face's (tokenizer/added_token_matcher.h); `normalized` tokens are
// matched in the normalized text, the others in the input.
struct SpecialToken {
  std::string text;
  TokenId id;
  bool special = true;
  bool single_word = false;
  bool lstrip = false;
  bool rstrip = false;
  bool normalized = false;
};

struct Encoding {
  std::vector<TokenId> ids;
  std::vector<Offset> offsets;  // [ids.size()] bytes of the input each token covers.
  // With EncodeOptions::words, [ids.size()]: the word each token came from (Hugging Face's word ids): pieces of the
  // pre-tokenizer and added tokens matched in the text, numbered from 0 in order; -1 for the post-processor's
  // tokens. Empty otherwise.
  std::vector<int32_t> words;
};

struct EncodeOptions {
  // Text that spells a special token is ordinary text unless allowed here (then it becomes the special id).
  bool allow_all_special = false;
  std::vector<std::string> allowed_special;
  // Encode (not EncodeIds) only: add the tokens of the tokenizer's post-processor around the text (Hugging Face's
  // add_special_tokens=True, e.g. [CLS] ... [SEP]); none when it has no post-processor.
  bool add_special_tokens = false;
  // Encode only: fill Encoding::words (costs a model call per piece).
  bool words = false;
  // Encode only: the post-processor trims offsets (ByteLevel's and RobertaProcessing's trim_offsets). Sequence
  // encoding turns it off and trims each truncation window on its own, as Hugging Face post-processes after
  // truncation (Tokenizer::TrimOffsets).
  bool trim_offsets = true;
};

struct DecodeOptions {
  // Leave out special tokens before decoding (Hugging Face's skip_special_tokens=True): the ids of the special
  // tokens (SpecialToken::special; a tokenizer.json's non-special added tokens stay), and vocabulary tokens
  // spelled as one (Hugging Face compares spellings).
  bool skip_special_tokens = false;
};

// The sections of the Hugging Face tokenizer.json a spec was read from, as JSON text ("null" when null or absent):
// WriteHfTokenizerJson (formats.h) writes them back as they were, so that a file keeps the shapes Hugging Face read.
struct HfJsonSections {
  std::string normalizer = "null";
  std::string pre_tokenizer = "null";
  std::string post_processor = "null";
  std::string decoder = "null";
};

// Everything a Tokenizer is made of; loaders fill it, Tokenizer::Create checks it.
struct TokenizerSpec {
  ModelType type = ModelType::kByte;
  BpeModel bpe;                                  // kWord, kByte: the vocabulary and merge rule.
  WordPieceModel wordpiece;                      // kWordPiece: the vocabulary.
  UnigramModel unigram;                          // kUnigram: the vocabulary and scores.
  WordLevelModel wordlevel;                      // kWordLevel: the vocabulary.
  std::optional<WordPieceDecoder> decoder;       // kWordPiece: none joins token spellings with spaces.
  std::unique_ptr<PreTokenizer> pre_tokenizer;   // Required.
  std::unique_ptr<Normalizer> normalizer;        // Optional.
  std::vector<SpecialToken> special_tokens;      // Ids outside or inside the BPE vocabulary.
  std::shared_ptr<const PostProcessor> post_processor;  // Optional (Hugging Face's post_processor).
  std::optional<TokenId> unk_id;                 // Word models: the id of `<unk>`.
  std::optional<TokenId> end_of_word_id;         // Word models: the id of the `</w>` symbol.
  bool ignore_merges = false;                    // Hugging Face: a piece that is itself a token skips merging.
  CharBpeOptions char_bpe;                       // kChar: unk, fuse_unk, byte_fallback.
  std::unique_ptr<TokenDecoder> token_decoder;   // kChar, kUnigram, kWordLevel: the decoder chain (required);
                                                 // kByte: optional.
  std::optional<BpeAffixes> affixes;             // kByte, kChar: Hugging Face's word prefix/suffix (bpe_affixes.h).
  std::string source;                            // Where it came from (file path), for messages.
  std::vector<UnreachableToken> unreachable_tokens;  // kByte from tokenizer.json: ids that are gaps of `bpe`.
  bool whole_character_offsets = false;  // Encode rounds offsets to characters (character_offsets.h; tokenizer.json).
  // Hugging Face's truncation and padding sections (processors/length_json.h): not applied by Encode, but by
  // EncodeSequences (tokenizer/sequence_encoding.h) when the caller asks for the tokenizer's own.
  std::optional<TruncationParams> truncation;
  std::optional<PaddingParams> padding;
  std::optional<HfJsonSections> hf_sections;  // Read from a tokenizer.json: its sections as they were.
};

class Tokenizer {
 public:
  // Loads any supported format by looking at the path: tokvec's model file, a `.tiktoken` rank file,
  // GPT-2's vocab.json (+ merges.txt beside it), Hugging Face tokenizer.json, or a directory holding one.
  struct LoadOptions {
    std::string pattern;  // Split pattern (preset name or ICU regex) for a .tiktoken file of unknown name.
  };
  static absl::StatusOr<std::unique_ptr<Tokenizer>> Load(const std::string& path, const LoadOptions& options);
  static absl::StatusOr<std::unique_ptr<Tokenizer>> Load(const std::string& path) { return Load(path, {}); }
  // What Load reads, before Create: for callers that change a tokenizer (added_tokens.h) and write it back.
  static absl::StatusOr<TokenizerSpec> LoadSpec(const std::string& path, const LoadOptions& options);
  static absl::StatusOr<std::unique_ptr<Tokenizer>> Create(TokenizerSpec spec);

  // The post-processor's offset trimming (none without one) on tokens `ids` of `text` at `offsets` (bytes of
  // `text`, untrimmed), the first of them as the first of an encoding: what Encode does unless told not to.
  void TrimOffsets(std::string_view text, absl::Span<const TokenId> ids, std::vector<Offset>* offsets) const;
  absl::StatusOr<Encoding> Encode(std::string_view text, const EncodeOptions& options = {}) const;
  // The ids of Encode(text, options), appended to `ids`, without computing offsets: the fast path of
  // `tokvec encode`. `base` is where `text` starts in a larger input; error messages count bytes from there.
  absl::Status EncodeIds(std::string_view text, const EncodeOptions& options, std::vector<TokenId>* ids,
                         size_t base = 0) const;
  // EncodeIds with piece caches the caller holds, for callers that encode on several threads: each piece is
  // looked up in `shared` (only read here, so threads may pass the same one while none changes it), then in
  // `local` (this thread's), which gets what is merged. Between calls the caller may fold the local caches into
  // the shared one (PieceCache::MergeFrom), so that a piece is merged once, not once per thread. Caches made by
  // NewPieceCache of another tokenizer are not used. The ids are those of EncodeIds.
  absl::Status EncodeIds(std::string_view text, const EncodeOptions& options, std::vector<TokenId>* ids, size_t base,
                         const PieceCache* shared, PieceCache* local) const;
  // An empty piece cache for this tokenizer (byte models; word models do not cache).
  std::unique_ptr<PieceCache> NewPieceCache() const { return std::make_unique<PieceCache>(cache_serial_); }
  // EncodeIds written as text, " <id>" per token, appended to `out` (tokenizer/id_text.h): the fast path of
  // `tokvec encode`'s ids. Byte models with a preset splitter and nothing to match or normalize look each short
  // piece up in the id-text caches, then the piece caches, then merge it; the rest formats EncodeIds. The text
  // is that of EncodeIds's ids, and so are the errors.
  absl::Status EncodeIdText(std::string_view text, const EncodeOptions& options, size_t base,
                            const IdTextCaches& caches, IdTextBuffer* out) const;
  // An empty short-piece cache for EncodeIdText.
  std::unique_ptr<IdTextCache> NewIdTextCache() const { return std::make_unique<IdTextCache>(cache_serial_); }
  // A position p in [1, limit] where `text` may be cut so that encoding text[0, p) and text[p, ...) on their own
  // gives the ids of the whole (for splitting a large input into chunks, e.g. over threads), from the
  // pre-tokenizer's PreTokenizer::FindCut. 0 when there is none, or when this tokenizer cannot be cut: a
  // pre-tokenizer that cannot tell (an arbitrary regex), a normalizer (for WordPiece models: one that cannot be
  // cut before white space), or an allowed special token holding white space.
  size_t FindCut(std::string_view text, size_t limit, const EncodeOptions& options) const;
  // Errors: an id outside the vocabulary (OutOfRange, naming the id).
  absl::StatusOr<std::string> Decode(absl::Span<const TokenId> ids) const;
  // Decode with options (tokenizer/tokenizer_decode.cc).
  absl::StatusOr<std::string> Decode(absl::Span<const TokenId> ids, const DecodeOptions& options) const;

  // How a token is shown: `er</w>` for word models, GPT-2's byte-to-unicode spelling for byte models
  // (`Ġt`), the vocabulary spelling for WordPiece models (`##ing`), the text of a special token.
  std::string TokenSpelling(TokenId id) const;
  // One past the largest id (model tokens and special tokens).
  size_t vocab_size() const { return vocab_size_; }
  ModelType type() const { return model_->type(); }
  // The model behind this tokenizer (models/tokenizer_model.h), and the same when it is byte-level BPE (else null).
  const TokenizerModel& model() const { return *model_; }
  const ByteBpeTokenizerModel* byte_level() const { return byte_model_; }
  const BpeModel& bpe() const { return spec_.bpe; }  // Empty for WordPiece models.
  const TokenizerSpec& spec() const { return spec_; }
  const std::vector<SpecialToken>& special_tokens() const { return spec_.special_tokens; }
  std::optional<TokenId> FindSpecial(std::string_view text) const;
  // The added token (special or not) with id `id`, or null when `id` is none's.
  const SpecialToken* FindAdded(TokenId id) const;

 private:
  explicit Tokenizer(TokenizerSpec spec);
  // Where tokens go (tokenizer/models/tokenizer_model.h) and the piece caches of one call: `shared` (may be null)
  // is only read; `local` (null: the thread's own) learns (models/bpe/bpe_tokenizer_models.h).
  using Sink = TokenSink;
  using Caches = PieceCaches;
  // Cuts `text` at allowed special tokens and encodes the rest; offsets and messages count from `base`.
  absl::Status EncodeInto(std::string_view text, const EncodeOptions& options, size_t base, Caches caches,
                          Sink out) const;
  // Encodes ordinary text (no special tokens) starting at input offset `base`.
  // `at_start`: `text` begins the caller's text (for Metaspace's prepend_scheme "first").
  absl::Status EncodeOrdinary(std::string_view text, size_t base, Caches caches, Sink out,
                              bool at_start = true) const;
  // The model's tokens of `pieces`: byte models through the piece caches (`caches.local` set), the others
  // through TokenizerModel::EncodePieces.
  absl::Status EncodePieces(std::string_view text, const std::vector<Piece>& pieces, size_t base, Caches caches,
                            Sink out) const;
  // Models of spelled tokens, and byte models with affixes: the spellings through decoder_.
  absl::StatusOr<std::string> DecodeSpellings(absl::Span<const TokenId> ids) const;
  // Runs the post-processor on Encode's result: trims offsets (with `trim`), adds its tokens when
  // `add_special_tokens`.
  void PostProcess(std::string_view text, bool add_special_tokens, bool trim, Encoding* encoding) const;

  // The added tokens one EncodeOptions lets match: those matched in the input and in the normalized text.
  struct AddedMatchers {
    AddedTokenMatcher raw;
    AddedTokenMatcher normalized;
    bool cuttable = true;  // No token holds or strips white space (FindCut may cut the text).
  };
  std::shared_ptr<const AddedMatchers> BuildMatchers(const std::vector<const SpecialToken*>& tokens) const;
  // Null when nothing is to be matched (the fast path); built once per distinct allowed list.
  absl::StatusOr<std::shared_ptr<const AddedMatchers>> MatchersFor(const EncodeOptions& options) const;
  // Encodes text between added tokens: matches `normalized` tokens in its normalization, the rest as ordinary.
  // `at_start`: `text` begins the input (EncodeOrdinary).
  absl::Status EncodeBetween(std::string_view text, const AddedMatchers& matchers, size_t base, Caches caches,
                             Sink out, bool at_start) const;

  TokenizerSpec spec_;
  size_t vocab_size_ = 0;
  std::vector<bool> is_special_;                   // [vocab_size_]
  uint64_t cache_serial_ = NewPieceCacheSerial();  // This tokenizer in the per-thread piece caches.
  std::unique_ptr<TokenizerModel> model_;          // Over spec_'s engines (MakeTokenizerModel).
  const ByteBpeTokenizerModel* byte_model_ = nullptr;  // model_ when it is byte-level: the cached fast path.
  // The decoder chain Decode runs on spellings: spec_.token_decoder, else one made for WordPiece's decoder or
  // Hugging Face's "no decoder" (default_decoder_); null: the model's tokens are bytes (AppendDecoded).
  std::unique_ptr<TokenDecoder> default_decoder_;
  const TokenDecoder* decoder_ = nullptr;
  std::unique_ptr<Normalizer> match_normalizer_;   // The normalizer without prefix_space (Hugging Face's order).
  std::shared_ptr<const AddedMatchers> default_matchers_;  // Non-special tokens only (null: none).
  std::shared_ptr<const AddedMatchers> all_matchers_;      // Every added token.
  mutable std::mutex list_matchers_mutex_;
  mutable std::map<std::string, std::shared_ptr<const AddedMatchers>> list_matchers_;  // By allowed list.
};

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_TOKENIZER_H_
