#include "tokenizer/trainers/spbpe_trainer.h"

#include <unicode/uchar.h>

#include <algorithm>
#include <string_view>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "tokenizer/pre_tokenizers/whitespace_pre_tokenizer.h"
#include "tokenizer/text/utf8.h"
#include "tokenizer/trainers/bpe_trainer.h"
#include "tokenizer/trainers/sentencepiece_json.h"
#include "tokenizer/trainers/word_counter.h"

namespace tokvec {
namespace {

constexpr std::string_view kMeta = "\xE2\x96\x81";  // U+2581 "▁"
constexpr size_t kReserved = 3 + 256;               // <unk> <s> </s> and the byte tokens

std::string ByteToken(int byte) { return fmt::format("<0x{:02X}>", byte); }

// The characters of the words (each a UTF-8 sequence) with their weighted counts.
absl::flat_hash_map<std::string_view, uint64_t> CountCharacters(const std::vector<WordCount>& words) {
  absl::flat_hash_map<std::string_view, uint64_t> counts;
  for (const WordCount& w : words) {
    const std::string_view word = w.word;
    for (size_t i = 0; i < word.size();) {
      size_t len = Utf8SequenceLength(word, i);
      if (len == 0) len = 1;
      counts[word.substr(i, len)] += w.count;
      i += len;
    }
  }
  return counts;
}

absl::Status CheckSpBpeOptions(const SpBpeOptions& options) {
  if (!(options.character_coverage > 0.0 && options.character_coverage <= 1.0)) {
    return absl::InvalidArgumentError(
        fmt::format("the character coverage must be in (0, 1], not {}", options.character_coverage));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<WordCount>> CountSpBpeWords(const std::vector<std::string>& paths,
                                                       const SpBpeOptions& options, uint64_t share, uint64_t shares) {
  TOKVEC_RETURN_IF_ERROR(CheckSpBpeOptions(options));
  WhitespacePreTokenizer whitespace;
  WordCounterOptions counter{.pre_tokenizer = &whitespace,
                             .require_utf8 = true,
                             .threads = std::max<size_t>(1, options.threads),
                             .progress = options.count_progress};
  return shares > 1 ? CountWordsInShare(paths, share, shares, counter) : CountWords(paths, counter);
}

absl::StatusOr<std::string> TrainSpBpe(const std::vector<std::string>& paths, const SpBpeOptions& options,
                                       SpBpeReport* report) {
  TOKVEC_ASSIGN_OR_RETURN(std::vector<WordCount> words, CountSpBpeWords(paths, options));  // options checked first
  return TrainSpBpeOnWords(std::move(words), options, report);
}

absl::StatusOr<std::string> TrainSpBpeOnWords(std::vector<WordCount> words, const SpBpeOptions& options,
                                              SpBpeReport* report) {
  TOKVEC_RETURN_IF_ERROR(CheckSpBpeOptions(options));
  // 1. Words: white-space-separated runs, each counted once per occurrence; then "▁" before each (in one order
  //    whatever order the counts came in).
  if (words.empty()) return absl::InvalidArgumentError("no text to learn from: the input holds no words");
  std::sort(words.begin(), words.end(), [](const WordCount& a, const WordCount& b) { return a.word < b.word; });
  for (WordCount& w : words) w.word.insert(0, kMeta);
  // 2. The alphabet: the most frequent characters covering the share asked for (ties: by bytes, so the choice
  //    never depends on the order of the counts).
  absl::flat_hash_map<std::string_view, uint64_t> characters = CountCharacters(words);
  std::vector<std::pair<std::string_view, uint64_t>> ranked(characters.begin(), characters.end());
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  long double total = 0;
  for (const auto& [c, n] : ranked) total += n;
  absl::flat_hash_map<std::string_view, bool> kept;
  long double covered = 0;
  for (const auto& [c, n] : ranked) {
    if (covered >= options.character_coverage * total && c != kMeta) break;
    kept[c] = true;
    covered += n;
  }
  kept[kMeta] = true;  // every word starts with it
  // 3. Words cut at the characters left out (they encode as bytes); the pieces between count as words.
  absl::flat_hash_map<std::string, uint64_t> cut;
  std::vector<WordCount> pieces;
  for (const WordCount& w : words) {
    const std::string_view word = w.word;
    size_t begin = 0;
    bool whole = true;
    for (size_t i = 0; i < word.size();) {
      size_t len = Utf8SequenceLength(word, i);
      if (len == 0) len = 1;
      const std::string_view c = word.substr(i, len);
      size_t decoded = 0;
      const bool digit =
          options.split_digits && u_isdigit(static_cast<UChar32>(DecodeUtf8OrReplacement(c, 0, &decoded)));
      if (digit || !kept.contains(c)) {
        whole = false;
        if (i > begin) cut[std::string(word.substr(begin, i - begin))] += w.count;
        if (digit && kept.contains(c)) cut[std::string(c)] += w.count;  // a piece of its own, never merged
        begin = i + len;
      }
      i += len;
    }
    if (whole) {
      pieces.push_back({w.word, w.count});
    } else if (begin < word.size()) {
      cut[std::string(word.substr(begin))] += w.count;
    }
  }
  const size_t alphabet = kept.size();
  const size_t dropped = characters.size() - alphabet;
  kept.clear();
  characters.clear();
  std::vector<WordCount>().swap(words);
  for (auto& [word, count] : cut) pieces.push_back({word, count});
  cut.clear();
  if (options.vocab_size < kReserved + alphabet) {
    return absl::InvalidArgumentError(fmt::format(
        "vocabulary size {} is smaller than the {} ids this corpus needs before any merge (3 special tokens, 256 "
        "byte tokens, {} characters); use at least {} or a lower --character-coverage",
        options.vocab_size, kReserved + alphabet, alphabet, kReserved + alphabet));
  }
  // 4. Merges over code points, the reserved ids first.
  BpeTrainerOptions trainer{.type = ModelType::kChar,
                            .vocab_size = options.vocab_size,
                            .min_frequency = options.min_frequency,
                            .max_token_chars = options.max_piece_length,
                            .threads = std::max<size_t>(1, options.threads),
                            .progress = options.merge_progress};
  trainer.special_tokens = {"<unk>", "<s>", "</s>"};
  for (int b = 0; b < 256; ++b) trainer.special_tokens.push_back(ByteToken(b));
  TOKVEC_ASSIGN_OR_RETURN(TrainedBpe trained, TrainBpe(std::move(pieces), trainer));
  // 5. The tokenizer.json.
  using OrderedJson = nlohmann::ordered_json;
  OrderedJson vocab = OrderedJson::object();
  for (const SpecialToken& special : trained.special_tokens) vocab[special.text] = special.id;
  for (TokenId id = 0; id < trained.tokens.size(); ++id) {
    const std::string& piece = trained.tokens[id];
    if (piece.empty()) continue;
    if (vocab.contains(piece)) {
      return absl::InvalidArgumentError(fmt::format(
          "the corpus spells '{}' often enough for it to be learned as a piece, but that is a reserved token; "
          "remove it from the text (or train a smaller vocabulary)",
          piece));
    }
    vocab[piece] = id;
  }
  OrderedJson merges = OrderedJson::array();
  for (const BpeModel::MergePair& m : trained.merges) {
    merges.push_back(OrderedJson::array({trained.tokens[m.left], trained.tokens[m.right]}));
  }
  OrderedJson added = OrderedJson::array();
  for (size_t i = 0; i < 3; ++i) added.push_back(SpecialAddedTokenJson(i, trained.special_tokens[i].text));
  const std::string meta(kMeta);
  OrderedJson json = {
      {"version", "1.0"},
      {"truncation", nullptr},
      {"padding", nullptr},
      {"added_tokens", added},
      {"normalizer",
       {{"type", "Sequence"},
        {"normalizers",
         {{{"type", "Prepend"}, {"prepend", meta}},
          {{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", meta}}}}}},
      {"pre_tokenizer", nullptr},
      {"post_processor", nullptr},
      {"decoder", SentencePieceDecoderJson()},
      {"model",
       {{"type", "BPE"},
        {"dropout", nullptr},
        {"unk_token", "<unk>"},
        {"continuing_subword_prefix", nullptr},
        {"end_of_word_suffix", nullptr},
        {"fuse_unk", true},
        {"byte_fallback", true},
        {"ignore_merges", false},
        {"vocab", vocab},
        {"merges", merges}}}};
  if (report != nullptr) {
    report->alphabet = alphabet;
    report->dropped_characters = dropped;
    report->merges = trained.merges.size();
    report->note = trained.note;
  }
  return json.dump(1) + "\n";
}

}  // namespace tokvec
