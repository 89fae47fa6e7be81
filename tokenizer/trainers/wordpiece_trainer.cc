#include "tokenizer/trainers/wordpiece_trainer.h"

#include <algorithm>
#include <cmath>
#include <queue>
#include <string_view>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "tokenizer/normalizers/normalizer_json.h"
#include "tokenizer/pre_tokenizers/bert_pre_tokenizer.h"
#include "tokenizer/text/bert_unicode.h"

namespace tokvec {
namespace {

constexpr std::string_view kPrefix = "##";
constexpr size_t kMaxWordChars = 100;  // WordPiece's max_input_chars_per_word
const std::vector<std::string> kBertSpecials = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};

using Id = uint32_t;
constexpr Id kNoId = ~Id{0};

uint64_t PairKey(Id left, Id right) { return (uint64_t{left} << 32) | right; }
Id LeftOf(uint64_t key) { return static_cast<Id>(key >> 32); }
Id RightOf(uint64_t key) { return static_cast<Id>(key & 0xFFFFFFFFu); }

// The code points of a valid UTF-8 word, as byte strings.
std::vector<std::string_view> Characters(std::string_view word) {
  std::vector<std::string_view> chars;
  for (size_t i = 0; i < word.size();) {
    const unsigned char lead = static_cast<unsigned char>(word[i]);
    const size_t n = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
    chars.push_back(word.substr(i, std::min(n, word.size() - i)));
    i += n;
  }
  return chars;
}

// The code point of one UTF-8 character, for ordering the alphabet.
uint32_t CodePoint(std::string_view c) {
  const unsigned char lead = static_cast<unsigned char>(c[0]);
  if (c.size() == 1) return lead;
  uint32_t cp = lead & (c.size() == 2 ? 0x1F : c.size() == 3 ? 0x0F : 0x07);
  for (size_t i = 1; i < c.size(); ++i) cp = (cp << 6) | (static_cast<unsigned char>(c[i]) & 0x3F);
  return cp;
}

// Adds `count` · ⌊r / 2⌋ to (*merges)[(x, x)] for every run of r ≥ 2 equal symbols x in s[0, n).
void AddRunMerges(const Id* s, uint32_t n, int64_t count, absl::flat_hash_map<uint64_t, int64_t>* merges) {
  for (uint32_t i = 0; i < n;) {
    uint32_t j = i + 1;
    while (j < n && s[j] == s[i]) ++j;
    if (j - i >= 2) (*merges)[PairKey(s[i], s[i])] += count * ((j - i) / 2);
    i = j;
  }
}

// A pair's score inputs when it was pushed; the entry is current while they still hold (kBpe: the count alone,
// the symbol counts are 0). kLikelihood also keeps the gain computed then (the symbol total moves at every
// merge, so it is re-scored when it reaches the top).
struct HeapEntry {
  uint64_t pair;
  uint64_t count;        // count(xy)
  uint64_t left_count;   // count(x)
  uint64_t right_count;  // count(y)
  double gain = 0;       // kLikelihood
};

// x log(x / total), 0 for x = 0.
double XLogX(double x, double total) { return x > 0 ? x * std::log(x / total) : 0.0; }

// How much the corpus' log-likelihood under a unigram model of the symbols grows when every occurrence of the pair
// becomes one symbol: `total` symbols before, count(xy) fewer after; x and y lose count(xy) occurrences each (2
// for x = y). Exact for a merge that makes a new symbol.
double LikelihoodGain(double pair, double left, double right, bool same, double total) {
  const double after = total - pair;
  const double shrink = std::log1p(pair / after);  // log(total / after)
  if (same) {
    const double rest = total - left;
    return rest * shrink + XLogX(left - 2 * pair, after) - XLogX(left, total) + XLogX(pair, after);
  }
  // (x_term + y_term) first: swapping x and y gives the same bits, so equal gains tie exactly.
  const double rest = total - left - right;
  const double x_term = XLogX(left - pair, after) - XLogX(left, total);
  const double y_term = XLogX(right - pair, after) - XLogX(right, total);
  return rest * shrink + (x_term + y_term) + XLogX(pair, after);
}

struct PairStats {
  int64_t count = 0;   // adjacent positions holding the pair, times the words' counts
  int64_t merges = 0;  // (x, x) only: the occurrences a left-to-right merge takes, Σ ⌊run / 2⌋ over runs of x
  std::vector<uint32_t> words;  // words that held the pair when it was added (may repeat or be stale)
  bool listed = false;          // in pairs_with_ of both symbols
};

class Trainer {
 public:
  Trainer(const WordPieceOptions& options, const std::vector<std::string>& specials)
      : options_(options), heap_([this](const HeapEntry& a, const HeapEntry& b) { return Worse(a, b); }) {
    for (const std::string& special : specials) {
      reserved_.insert(special);
      tokens_.push_back(special);
    }
  }

  // Cuts the words into symbols over the alphabet; counts pairs and symbols.
  absl::Status Load(std::vector<WordCount> words, WordPieceReport* report);
  // Merges until the vocabulary is full; the note when it stopped short.
  std::string Learn();
  std::vector<std::string> TakeTokens() { return std::move(tokens_); }

 private:
  Id Intern(std::string spelling);
  // True when `a` ranks below `b` (the heap's top is the best pair).
  bool Worse(const HeapEntry& a, const HeapEntry& b) const;
  HeapEntry Current(uint64_t pair) const;
  void PushIfMergeable(uint64_t pair);
  void Merge(uint64_t pair, Id merged);
  std::string_view Spelling(Id id) const { return tokens_[id]; }

  const WordPieceOptions& options_;
  std::vector<std::string> tokens_;
  absl::flat_hash_map<std::string, Id> index_;
  absl::flat_hash_set<std::string> reserved_;  // special tokens: no merge may spell one
  std::vector<Id> symbols_;                    // every word's symbols end to end
  std::vector<uint64_t> begin_;                // word w: symbols_[begin_[w], begin_[w] + length_[w])
  std::vector<uint32_t> length_;
  std::vector<uint64_t> word_count_;
  std::vector<int64_t> symbol_count_;  // by id
  int64_t total_ = 0;                  // the sum of symbol_count_
  absl::flat_hash_map<uint64_t, PairStats> pairs_;
  std::vector<std::vector<uint64_t>> pairs_with_;  // by id: pairs the symbol is part of (likelihood rescoring)
  std::priority_queue<HeapEntry, std::vector<HeapEntry>, std::function<bool(const HeapEntry&, const HeapEntry&)>>
      heap_;
};

Id Trainer::Intern(std::string spelling) {
  auto [it, inserted] = index_.try_emplace(spelling, static_cast<Id>(tokens_.size()));
  if (inserted) {
    tokens_.push_back(std::move(spelling));
    symbol_count_.resize(tokens_.size(), 0);
    pairs_with_.resize(tokens_.size());
  }
  return it->second;
}

bool Trainer::Worse(const HeapEntry& a, const HeapEntry& b) const {
  switch (options_.criterion) {
    case WordPieceCriterion::kBpe:
      if (a.count != b.count) return a.count < b.count;
      break;
    case WordPieceCriterion::kRatio: {
      // a.count / (a.left · a.right) < b.count / (b.left · b.right), exactly (counts stay far below 2^42).
      using U128 = unsigned __int128;
      const U128 lhs = U128{a.count} * b.left_count * b.right_count;
      const U128 rhs = U128{b.count} * a.left_count * a.right_count;
      if (lhs != rhs) return lhs < rhs;
      break;
    }
    case WordPieceCriterion::kLikelihood:
      if (a.gain != b.gain) return a.gain < b.gain;
      break;
  }
  // Ties: the pair of smaller ids (left, then right) wins, as in Hugging Face's trainer; a is worse when larger.
  return a.pair > b.pair;
}

HeapEntry Trainer::Current(uint64_t pair) const {
  auto it = pairs_.find(pair);
  const int64_t count = it == pairs_.end() ? 0 : it->second.count;
  if (options_.criterion == WordPieceCriterion::kBpe) return {pair, static_cast<uint64_t>(count), 0, 0};
  HeapEntry entry{pair, static_cast<uint64_t>(count), static_cast<uint64_t>(symbol_count_[LeftOf(pair)]),
                  static_cast<uint64_t>(symbol_count_[RightOf(pair)])};
  if (options_.criterion == WordPieceCriterion::kLikelihood && count > 0) {
    const bool same = LeftOf(pair) == RightOf(pair);
    const double merged = static_cast<double>(same ? it->second.merges : count);
    entry.gain = LikelihoodGain(merged, static_cast<double>(entry.left_count), static_cast<double>(entry.right_count),
                                same, static_cast<double>(total_));
  }
  return entry;
}

void Trainer::PushIfMergeable(uint64_t pair) {
  const HeapEntry entry = Current(pair);
  if (entry.count == 0 || entry.count < options_.min_frequency) return;
  heap_.push(entry);
}

absl::Status Trainer::Load(std::vector<WordCount> words, WordPieceReport* report) {
  // The alphabet: characters by weighted count, the most frequent `limit_alphabet` kept.
  absl::flat_hash_map<std::string_view, uint64_t> char_counts;
  std::vector<bool> usable(words.size(), true);
  for (size_t w = 0; w < words.size(); ++w) {
    const std::vector<std::string_view> chars = Characters(words[w].word);
    if (chars.empty() || chars.size() > kMaxWordChars) {
      usable[w] = false;
      continue;
    }
    for (std::string_view c : chars) char_counts[c] += words[w].count;
  }
  std::vector<std::pair<std::string_view, uint64_t>> alphabet(char_counts.begin(), char_counts.end());
  std::sort(alphabet.begin(), alphabet.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : CodePoint(a.first) < CodePoint(b.first);
  });
  if (options_.limit_alphabet > 0 && alphabet.size() > options_.limit_alphabet) {
    alphabet.resize(options_.limit_alphabet);
  }
  std::sort(alphabet.begin(), alphabet.end(),
            [](const auto& a, const auto& b) { return CodePoint(a.first) < CodePoint(b.first); });
  // character -> (initial, continuing); punctuation and CJK ideographs are words of their own after BERT's
  // pre-tokenizer and normalizer, so they never continue a word and get no continuing form.
  absl::flat_hash_map<std::string_view, std::pair<Id, Id>> forms;
  for (const auto& [c, count] : alphabet) forms[c] = {Intern(std::string(c)), kNoId};
  for (const auto& [c, count] : alphabet) {
    const char32_t cp = CodePoint(c);
    if (IsBertPunctuation(cp) || IsChineseChar(cp)) continue;
    forms[c].second = Intern(std::string(kPrefix) + std::string(c));
    if (report != nullptr) ++report->continuing_forms;
  }
  if (report != nullptr) report->alphabet = alphabet.size();
  for (const std::string& special : reserved_) {
    if (index_.contains(special)) {
      return absl::InvalidArgumentError(fmt::format(
          "special token '{}' is also a piece of the corpus' alphabet; choose another special token", special));
    }
  }
  // The words as symbols.
  std::vector<Id> word_symbols;
  for (size_t w = 0; w < words.size(); ++w) {
    if (!usable[w]) {
      if (report != nullptr) ++report->dropped_words;
      continue;
    }
    word_symbols.clear();
    bool kept = true;
    for (std::string_view c : Characters(words[w].word)) {
      auto it = forms.find(c);
      const Id id = it == forms.end() ? kNoId : word_symbols.empty() ? it->second.first : it->second.second;
      if (id == kNoId) {
        kept = false;
        break;
      }
      word_symbols.push_back(id);
    }
    if (!kept) {
      if (report != nullptr) ++report->dropped_words;
      continue;
    }
    begin_.push_back(symbols_.size());
    length_.push_back(static_cast<uint32_t>(word_symbols.size()));
    word_count_.push_back(words[w].count);
    symbols_.insert(symbols_.end(), word_symbols.begin(), word_symbols.end());
  }
  std::vector<WordCount>().swap(words);
  // Counts of symbols and pairs, each pair's words.
  absl::flat_hash_map<uint64_t, int64_t> runs;
  for (uint32_t w = 0; w < begin_.size(); ++w) {
    const Id* s = &symbols_[begin_[w]];
    const int64_t count = static_cast<int64_t>(word_count_[w]);
    for (uint32_t i = 0; i < length_[w]; ++i) symbol_count_[s[i]] += count;
    total_ += count * length_[w];
    for (uint32_t i = 0; i + 1 < length_[w]; ++i) {
      PairStats& stats = pairs_[PairKey(s[i], s[i + 1])];
      stats.count += count;
      if (stats.words.empty() || stats.words.back() != w) stats.words.push_back(w);
    }
    runs.clear();
    AddRunMerges(s, length_[w], count, &runs);
    for (const auto& [p, merges] : runs) pairs_[p].merges += merges;
  }
  for (auto& [pair, stats] : pairs_) {
    stats.listed = true;
    pairs_with_[LeftOf(pair)].push_back(pair);
    if (RightOf(pair) != LeftOf(pair)) pairs_with_[RightOf(pair)].push_back(pair);
  }
  for (const auto& [pair, stats] : pairs_) PushIfMergeable(pair);
  return absl::OkStatus();
}

void Trainer::Merge(uint64_t pair, Id merged) {
  const Id left = LeftOf(pair), right = RightOf(pair);
  std::vector<uint32_t> words = std::move(pairs_[pair].words);
  std::sort(words.begin(), words.end());
  words.erase(std::unique(words.begin(), words.end()), words.end());
  absl::flat_hash_map<uint64_t, int64_t> delta;        // net pair count changes
  absl::flat_hash_map<uint64_t, int64_t> run_delta;    // net changes of PairStats::merges
  std::vector<uint64_t> before, after;
  for (uint32_t w : words) {
    Id* s = &symbols_[begin_[w]];
    const uint32_t n = length_[w];
    bool holds = false;
    for (uint32_t i = 0; i + 1 < n && !holds; ++i) holds = s[i] == left && s[i + 1] == right;
    if (!holds) continue;
    const int64_t count = static_cast<int64_t>(word_count_[w]);
    before.clear();
    for (uint32_t i = 0; i + 1 < n; ++i) before.push_back(PairKey(s[i], s[i + 1]));
    AddRunMerges(s, n, -count, &run_delta);
    uint32_t out = 0;
    for (uint32_t in = 0; in < n;) {
      if (in + 1 < n && s[in] == left && s[in + 1] == right) {
        symbol_count_[left] -= count;
        symbol_count_[right] -= count;
        symbol_count_[merged] += count;
        total_ -= count;
        s[out++] = merged;
        in += 2;
      } else {
        s[out++] = s[in++];
      }
    }
    length_[w] = out;
    AddRunMerges(s, out, count, &run_delta);
    after.clear();
    for (uint32_t i = 0; i + 1 < out; ++i) after.push_back(PairKey(s[i], s[i + 1]));
    for (uint64_t p : before) delta[p] -= count;
    for (uint64_t p : after) delta[p] += count;
    // The word joins the word lists of the pairs it did not hold before.
    std::sort(before.begin(), before.end());
    std::sort(after.begin(), after.end());
    after.erase(std::unique(after.begin(), after.end()), after.end());
    for (uint64_t p : after) {
      if (!std::binary_search(before.begin(), before.end(), p)) pairs_[p].words.push_back(w);
    }
  }
  for (const auto& [p, d] : run_delta) pairs_[p].merges += d;
  std::vector<uint64_t> changed;
  for (const auto& [p, d] : delta) {
    if (d == 0) continue;
    PairStats& stats = pairs_[p];
    stats.count += d;
    if (!stats.listed && stats.count > 0) {
      stats.listed = true;
      pairs_with_[LeftOf(p)].push_back(p);
      if (RightOf(p) != LeftOf(p)) pairs_with_[RightOf(p)].push_back(p);
    }
    changed.push_back(p);
  }
  pairs_[pair].count = 0;
  if (options_.criterion != WordPieceCriterion::kBpe) {
    // count(x) fell for both halves: every pair holding one of them scores differently now.
    // A merge whose result already existed raised that symbol's count too.
    for (Id symbol : {left, right, merged}) {
      for (uint64_t p : pairs_with_[symbol]) changed.push_back(p);
    }
  }
  std::sort(changed.begin(), changed.end());
  changed.erase(std::unique(changed.begin(), changed.end()), changed.end());
  for (uint64_t p : changed) PushIfMergeable(p);
}

std::string Trainer::Learn() {
  size_t merges = 0;
  absl::flat_hash_set<uint64_t> refused;  // pairs that would spell a special token
  while (tokens_.size() < options_.vocab_size) {
    if (heap_.empty()) {
      return fmt::format("no pair left to merge{} after {} merges: the vocabulary has {} of {} ids",
                         options_.min_frequency > 1 ? fmt::format(" (occurring at least {} times)",
                                                                  options_.min_frequency)
                                                    : "",
                         merges, tokens_.size(), options_.vocab_size);
    }
    if (heap_.size() > 2 * pairs_.size() + 65536) {
      // Mostly stale entries (each change pushes a fresh one): start again from one current entry per pair.
      std::vector<HeapEntry> live;
      for (const auto& [pair, stats] : pairs_) {
        if (stats.count > 0 && static_cast<uint64_t>(stats.count) >= options_.min_frequency) {
          live.push_back(Current(pair));
        }
      }
      heap_ = decltype(heap_)([this](const HeapEntry& a, const HeapEntry& b) { return Worse(a, b); }, std::move(live));
      if (heap_.empty()) continue;
    }
    const HeapEntry top = heap_.top();
    heap_.pop();
    const HeapEntry now = Current(top.pair);
    if (now.count != top.count || now.left_count != top.left_count || now.right_count != top.right_count) {
      continue;  // stale: a fresh entry was pushed when its inputs changed
    }
    if (now.gain != top.gain && !heap_.empty() && Worse(now, heap_.top())) {
      heap_.push(now);  // the symbol total moved since: re-scored, it no longer leads
      continue;
    }
    if (refused.contains(top.pair)) continue;
    std::string_view right = Spelling(RightOf(top.pair));
    right.remove_prefix(kPrefix.size());  // a right symbol is never word-initial
    std::string spelling = std::string(Spelling(LeftOf(top.pair))) + std::string(right);
    if (reserved_.contains(spelling)) {
      refused.insert(top.pair);
      continue;
    }
    const Id merged = Intern(std::move(spelling));
    Merge(top.pair, merged);
    ++merges;
    if (options_.merge_progress && merges % 256 == 0) options_.merge_progress(merges);
  }
  if (options_.merge_progress) options_.merge_progress(merges);
  return "";
}

std::vector<std::string> SpecialTokens(const WordPieceOptions& options) {
  std::vector<std::string> specials = kBertSpecials;
  specials.insert(specials.end(), options.extra_special_tokens.begin(), options.extra_special_tokens.end());
  return specials;
}

absl::Status CheckSpecials(const std::vector<std::string>& specials) {
  absl::flat_hash_set<std::string> seen;
  for (const std::string& special : specials) {
    if (special.empty()) return absl::InvalidArgumentError("a special token is empty");
    if (!seen.insert(special).second) {
      return absl::InvalidArgumentError(fmt::format(
          "special token '{}' is given twice ([PAD] [UNK] [CLS] [SEP] [MASK] are always there)", special));
    }
  }
  return absl::OkStatus();
}

nlohmann::ordered_json NormalizerJson(const WordPieceOptions& options) {
  nlohmann::ordered_json strip = nullptr;
  if (options.strip_accents.has_value()) strip = *options.strip_accents;
  return {{"type", "BertNormalizer"},
          {"clean_text", true},
          {"handle_chinese_chars", true},
          {"strip_accents", strip},
          {"lowercase", options.lowercase}};
}

}  // namespace

absl::StatusOr<std::vector<std::string>> TrainWordPieceVocab(std::vector<WordCount> words,
                                                             const WordPieceOptions& options,
                                                             WordPieceReport* report) {
  const std::vector<std::string> specials = SpecialTokens(options);
  TOKVEC_RETURN_IF_ERROR(CheckSpecials(specials));
  WordPieceReport local;
  if (report == nullptr) report = &local;
  *report = WordPieceReport{};
  Trainer trainer(options, specials);
  TOKVEC_RETURN_IF_ERROR(trainer.Load(std::move(words), report));
  const size_t base = specials.size() + report->alphabet + report->continuing_forms;
  if (report->alphabet == 0) {
    return absl::InvalidArgumentError("no words to learn from (every word was longer than 100 characters)");
  }
  if (options.vocab_size < base) {
    return absl::InvalidArgumentError(fmt::format(
        "vocabulary size {} is smaller than the {} ids this corpus needs before any merge ({} special tokens, "
        "{} characters, {} continuing ## forms); use at least {} or a --limit-alphabet",
        options.vocab_size, base, specials.size(), report->alphabet, report->continuing_forms, base));
  }
  report->note = trainer.Learn();
  std::vector<std::string> tokens = trainer.TakeTokens();
  report->merges = tokens.size() - base;  // ids added by merges (a merge reusing an id adds none)
  return tokens;
}

absl::StatusOr<std::string> TrainWordPiece(const std::vector<std::string>& paths, const WordPieceOptions& options,
                                           WordPieceReport* report) {
  TOKVEC_RETURN_IF_ERROR(CheckSpecials(SpecialTokens(options)));
  const nlohmann::ordered_json normalizer_json = NormalizerJson(options);
  const nlohmann::json normalizer_node = nlohmann::json::parse(normalizer_json.dump());
  TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<Normalizer> normalizer,
                          ReadHfNormalizer(&normalizer_node, "<wordpiece normalizer>", {}));
  BertPreTokenizer pre_tokenizer;
  WordCounterOptions counter{.pre_tokenizer = &pre_tokenizer,
                             .normalizer = normalizer.get(),
                             .require_utf8 = true,
                             .threads = std::max<size_t>(1, options.threads),
                             .split_lines = options.split_lines,
                             .progress = options.count_progress};
  TOKVEC_ASSIGN_OR_RETURN(std::vector<WordCount> words, CountWords(paths, counter));
  if (words.empty()) return absl::InvalidArgumentError("no text to learn from: the input holds no words");
  TOKVEC_ASSIGN_OR_RETURN(std::vector<std::string> tokens, TrainWordPieceVocab(std::move(words), options, report));
  const std::vector<std::string> specials = SpecialTokens(options);
  using OrderedJson = nlohmann::ordered_json;
  OrderedJson vocab = OrderedJson::object();
  auto& entries = vocab.get_ref<OrderedJson::object_t&>();  // distinct keys: appended without operator[]'s search
  entries.reserve(tokens.size());
  for (size_t id = 0; id < tokens.size(); ++id) entries.emplace_back(tokens[id], id);
  OrderedJson added = OrderedJson::array();
  for (size_t id = 0; id < specials.size(); ++id) {
    added.push_back({{"id", id},
                     {"content", specials[id]},
                     {"single_word", false},
                     {"lstrip", false},
                     {"rstrip", false},
                     {"normalized", false},
                     {"special", true}});
  }
  auto special = [](const char* id, int type_id) {
    return OrderedJson{{"SpecialToken", {{"id", id}, {"type_id", type_id}}}};
  };
  auto sequence = [](const char* id, int type_id) {
    return OrderedJson{{"Sequence", {{"id", id}, {"type_id", type_id}}}};
  };
  constexpr size_t kCls = 2, kSep = 3;  // ids of [CLS] and [SEP] (kBertSpecials)
  OrderedJson json = {
      {"version", "1.0"},
      {"truncation", nullptr},
      {"padding", nullptr},
      {"added_tokens", added},
      {"normalizer", normalizer_json},
      {"pre_tokenizer", {{"type", "BertPreTokenizer"}}},
      {"post_processor",
       {{"type", "TemplateProcessing"},
        {"single", OrderedJson::array({special("[CLS]", 0), sequence("A", 0), special("[SEP]", 0)})},
        {"pair", OrderedJson::array({special("[CLS]", 0), sequence("A", 0), special("[SEP]", 0), sequence("B", 1),
                                     special("[SEP]", 1)})},
        {"special_tokens",
         {{"[CLS]", {{"id", "[CLS]"}, {"ids", {kCls}}, {"tokens", {"[CLS]"}}}},
          {"[SEP]", {{"id", "[SEP]"}, {"ids", {kSep}}, {"tokens", {"[SEP]"}}}}}}}},
      {"decoder", {{"type", "WordPiece"}, {"prefix", kPrefix}, {"cleanup", true}}},
      {"model",
       {{"type", "WordPiece"},
        {"unk_token", "[UNK]"},
        {"continuing_subword_prefix", kPrefix},
        {"max_input_chars_per_word", kMaxWordChars},
        {"vocab", vocab}}}};
  return json.dump(1) + "\n";
}

}  // namespace tokvec
