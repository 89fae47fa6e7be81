#include "tokenizer/trainers/bpe_trainer.h"

#include <algorithm>
#include <cstring>
#include <cwchar>
#include <limits>
#include <string_view>
#include <thread>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "tokenizer/pre_tokenizers/whitespace_pre_tokenizer.h"
#include "tokenizer/text/utf8.h"

namespace tokvec {
namespace {

constexpr std::string_view kUnkText = "<unk>";
constexpr size_t kProgressEvery = 256;
// A merge step goes parallel only with at least this many words per worker (thread start-up is ~20 us).
constexpr size_t kWordsPerWorker = 2048;
// A spread training hands over to the root once the last kHandOverWindow steps merged in fewer than
// kHandOverStepWords words each on average (over every process) while at least kHandOverStepsLeft merges may be
// left: each step then costs its messages (several collectives) more than the work it shares.
constexpr uint64_t kHandOverStepWords = 1024;
constexpr size_t kHandOverWindow = 8;
constexpr size_t kHandOverStepsLeft = 1024;
// Below this many symbols a word is scanned by a plain loop rather than wmemchr.
constexpr uint32_t kShortScan = 16;

uint64_t PairKey(TokenId left, TokenId right) { return (uint64_t{left} << 32) | right; }
TokenId LeftOf(uint64_t key) { return static_cast<TokenId>(key >> 32); }
TokenId RightOf(uint64_t key) { return static_cast<TokenId>(key & 0xFFFFFFFFu); }

// Length of the UTF-8 sequence starting with `lead` (the text is valid).
size_t Utf8Length(unsigned char lead) {
  if (lead < 0x80) return 1;
  if (lead < 0xE0) return 2;
  if (lead < 0xF0) return 3;
  return 4;
}

// What the trainer knows about one pair of adjacent symbols.
struct PairStats {
  int64_t count = 0;            // Weighted occurrences now.
  std::vector<uint32_t> words;  // Words that gained the pair at some point (may be stale; repeats possible).
  size_t touched_at = std::numeric_limits<size_t>::max();  // Last merge step whose count increase is queued.
};

// A pair's count changed by `delta`, as a spread training's processes send them to the root.
struct PairCountChange {
  uint64_t pair;
  int64_t delta;
};

// A max-heap entry: a pair and its count when pushed.
struct HeapEntry {
  int64_t count;
  uint64_t pair;
};

class Trainer {
 public:
  explicit Trainer(const BpeTrainerOptions& options) : options_(options) {}

  absl::StatusOr<TrainedBpe> Run(std::vector<WordCount> words);

 private:
  absl::Status AssignBaseIds(const std::vector<WordCount>& words);
  // Word models: the non-ASCII characters and ASCII characters of `words` as symbols, sorted by bytes.
  absl::StatusOr<std::vector<std::string>> Alphabet(const std::vector<WordCount>& words) const;
  absl::Status LoadWords(std::vector<WordCount> words);
  void CountPairs();
  void Learn();
  // Learn() spread over processes (options_.exchange): the root sums the counts and picks, all merge.
  absl::Status LearnTogether();
  // A spread training's hand-over: this process's words as bytes (count, size, symbols), and the root's adding
  // of them (with their pairs).
  std::string EncodeWords() const;
  void AddEncodedWords(const std::string& bytes);
  // The next merge by `count_of(pair)` (the current count), popping stale heap entries; nullopt (and maybe a
  // note) when training stops.
  template <typename CountOf>
  std::optional<uint64_t> PickMerge(CountOf&& count_of);
  // Adds the merged token and merges `pair` in every word of this process that holds it; returns how many
  // words it visited.
  size_t ApplyMerge(uint64_t pair);
  // Merges (left, right) in `word`, calling emit(pair_left, pair_right, delta, word) for each count change.
  template <typename Emit>
  void MergeWord(uint32_t word, TokenId left, TokenId right, TokenId merged, Emit&& emit);
  void MergeWords(const std::vector<uint32_t>& words, TokenId left, TokenId right, TokenId merged);
  void Add(TokenId left, TokenId right, int64_t delta, uint32_t word);
  PairStats& Stats(uint64_t key);
  TokenId AddToken(std::string bytes);
  // Heap order: higher count first; on a tie the smaller (left spelling, right spelling) first.
  bool LowerPriority(const HeapEntry& a, const HeapEntry& b) const;
  void Push(HeapEntry entry);

  const BpeTrainerOptions& options_;
  TrainedBpe out_;
  std::vector<std::string> spelling_;                    // id -> spelling for the tie-break rule.
  absl::flat_hash_map<std::string, TokenId> token_ids_;  // bytes -> id of every BPE token.
  absl::flat_hash_map<uint32_t, TokenId> code_point_ids_;  // Word models: code point -> id.
  // Words, stored back to back: word w is symbols_[word_begin_[w] .. + word_size_[w]).
  std::vector<TokenId> symbols_;
  std::vector<size_t> word_begin_;
  std::vector<uint32_t> word_size_;
  std::vector<int64_t> word_count_;
  // pair -> stats, one hash lookup per count change (a separate index vector cost a second cache miss).
  absl::flat_hash_map<uint64_t, PairStats> pairs_;
  std::vector<HeapEntry> heap_;
  std::vector<uint64_t> touched_;  // Pairs whose count rose during this merge step.
  size_t step_ = 0;
  // Spread training: this step's count changes by pair, for the root.
  bool record_changes_ = false;
  absl::flat_hash_map<uint64_t, int64_t> step_changes_;
};

absl::Status Trainer::AssignBaseIds(const std::vector<WordCount>& words) {
  // 1. Special tokens.
  absl::flat_hash_set<std::string> seen;
  for (const std::string& text : options_.special_tokens) {
    if (text.empty()) return absl::InvalidArgumentError("a special token is empty; give its text, e.g. '<|endoftext|>'");
    if (!seen.insert(text).second) {
      return absl::InvalidArgumentError(fmt::format("special token '{}' is given twice", text));
    }
    if (options_.type == ModelType::kWord && text == kUnkText) {
      return absl::InvalidArgumentError(
          "special token '<unk>' is reserved: word models always have `<unk>` for unknown symbols");
    }
    out_.special_tokens.push_back({text, static_cast<TokenId>(out_.tokens.size())});
    out_.tokens.emplace_back();
    spelling_.emplace_back();
  }
  if (options_.start_tokens != nullptr) {
    // 2. Continuing a model: its ids as they are.
    for (const std::string& bytes : *options_.start_tokens) {
      if (!bytes.empty()) token_ids_.emplace(bytes, static_cast<TokenId>(out_.tokens.size()));
      spelling_.push_back(bytes);
      out_.tokens.push_back(bytes);
    }
    return absl::OkStatus();
  }
  if (options_.type == ModelType::kByte) {
    // 2. Byte models: the 256 bytes.
    for (int b = 0; b < 256; ++b) AddToken(std::string(1, static_cast<char>(b)));
    return absl::OkStatus();
  }
  // 2. Word models: `<unk>`, `</w>`, then the code points of the corpus in byte order (code-point models: the code
  //    points only).
  if (options_.type == ModelType::kWord) {
    out_.unk_id = static_cast<TokenId>(out_.tokens.size());
    out_.tokens.emplace_back();
    spelling_.emplace_back();
    out_.end_of_word_id = AddToken(std::string(1, kEndOfWordByte));
  }
  absl::StatusOr<std::vector<std::string>> alphabet = Alphabet(words);
  if (MergeExchange* exchange = options_.exchange) {  // every process's characters, on every process
    if (!exchange->AllOk(alphabet.ok())) {
      return alphabet.ok() ? absl::AbortedError("another process found invalid UTF-8 (its error is above)")
                           : alphabet.status();
    }
    alphabet = exchange->UnionOfSymbols(*alphabet);
  }
  if (!alphabet.ok()) return alphabet.status();
  for (std::string& symbol : *alphabet) AddToken(std::move(symbol));
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::string>> Trainer::Alphabet(const std::vector<WordCount>& words) const {
  // ASCII characters in a table, the others as views into `words` (a million words hold ten million characters:
  // a string per character was most of this pass).
  bool ascii[128] = {};
  absl::flat_hash_set<std::string_view> others;
  for (const WordCount& word : words) {
    if (std::optional<size_t> bad = FindInvalidUtf8(word.word)) {
      return absl::InvalidArgumentError(
          fmt::format("word '{}' holds invalid UTF-8 at byte {}; word models need UTF-8 text", word.word, *bad));
    }
    for (size_t i = 0; i < word.word.size();) {
      const unsigned char lead = static_cast<unsigned char>(word.word[i]);
      if (lead < 0x80) {
        ascii[lead] = true;
        ++i;
        continue;
      }
      const size_t len = Utf8Length(lead);
      others.emplace(std::string_view(word.word).substr(i, len));
      i += len;
    }
  }
  std::vector<std::string> sorted(others.begin(), others.end());
  for (int c = 0; c < 128; ++c) {
    if (ascii[c]) sorted.emplace_back(1, static_cast<char>(c));
  }
  std::sort(sorted.begin(), sorted.end());
  return sorted;
}

TokenId Trainer::AddToken(std::string bytes) {
  auto [it, inserted] = token_ids_.emplace(bytes, static_cast<TokenId>(out_.tokens.size()));
  if (!inserted) return it->second;
  spelling_.push_back(TrainerSpelling(options_.type, bytes));
  out_.tokens.push_back(std::move(bytes));
  return it->second;
}

absl::Status Trainer::LoadWords(std::vector<WordCount> words) {
  size_t total = 0;
  for (const WordCount& word : words) total += word.word.size() + 1;
  unsigned __int128 pair_total = 0;
  symbols_.reserve(total);
  word_begin_.reserve(words.size());
  // The ids of single bytes (byte models) and of ASCII characters (word models) from a table, not a hash lookup
  // per character; kNone where no token is (only other characters are looked up by their bytes).
  constexpr TokenId kNone = std::numeric_limits<TokenId>::max();
  TokenId byte_ids[256];
  for (int b = 0; b < 256; ++b) {
    const char byte = static_cast<char>(b);
    auto it = token_ids_.find(absl::string_view(&byte, 1));
    byte_ids[b] = it == token_ids_.end() ? kNone : it->second;
  }
  std::vector<TokenId> split;  // continuing a model: a word's tokens
  for (WordCount& word : words) {
    if (word.count == 0 || word.word.empty()) continue;
    if (word.count > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return absl::OutOfRangeError(fmt::format("word '{}' has a count of {}, too large", word.word, word.count));
    }
    if (word_begin_.size() >= std::numeric_limits<uint32_t>::max()) {
      return absl::OutOfRangeError("more than 4 billion unique words");
    }
    word_begin_.push_back(symbols_.size());
    const std::string& bytes = word.word;
    if (options_.start_split) {
      split.clear();
      TOKVEC_RETURN_IF_ERROR(options_.start_split(bytes, &split));
      for (TokenId id : split) {
        if (id >= out_.tokens.size() || out_.tokens[id].empty()) {
          return absl::InternalError(fmt::format("word '{}' was cut into id {}, which is no token", bytes, id));
        }
      }
      symbols_.insert(symbols_.end(), split.begin(), split.end());
    } else if (options_.type == ModelType::kByte) {
      for (unsigned char byte : bytes) symbols_.push_back(byte_ids[byte]);
    } else {
      for (size_t i = 0; i < bytes.size();) {
        const unsigned char lead = static_cast<unsigned char>(bytes[i]);
        if (lead < 0x80) {
          symbols_.push_back(byte_ids[lead]);
          ++i;
          continue;
        }
        const size_t len = Utf8Length(lead);
        symbols_.push_back(token_ids_.find(absl::string_view(bytes.data() + i, len))->second);
        i += len;
      }
      if (out_.end_of_word_id) symbols_.push_back(*out_.end_of_word_id);
    }
    word_size_.push_back(static_cast<uint32_t>(symbols_.size() - word_begin_.back()));
    word_count_.push_back(static_cast<int64_t>(word.count));
    // Every pair count is at most the sum of count · (symbols - 1) over the words: keep that within int64_t, so
    // no pair count can overflow (counts from count files reach 2^64 - 1).
    pair_total += static_cast<unsigned __int128>(word.count) * (word_size_.back() - 1);
    if (pair_total > static_cast<unsigned __int128>(std::numeric_limits<int64_t>::max())) {
      return absl::OutOfRangeError(
          "the words' counts add up to more than 2^63 - 1 adjacent pairs; tokvec's pair counts are 63-bit");
    }
    std::string().swap(word.word);  // Free as we go: memory follows the symbols, not two copies.
  }
  return absl::OkStatus();
}

PairStats& Trainer::Stats(uint64_t key) {
  return pairs_[key];
}

void Trainer::Add(TokenId left, TokenId right, int64_t delta, uint32_t word) {
  const uint64_t key = PairKey(left, right);
  PairStats& stats = Stats(key);
  stats.count += delta;
  if (record_changes_) step_changes_[key] += delta;
  if (delta <= 0) return;
  if (stats.words.empty() || stats.words.back() != word) stats.words.push_back(word);
  if (stats.touched_at != step_) {
    stats.touched_at = step_;
    touched_.push_back(key);
  }
}

void Trainer::CountPairs() {
  for (uint32_t w = 0; w < word_begin_.size(); ++w) {
    const TokenId* symbols = &symbols_[word_begin_[w]];
    for (uint32_t i = 0; i + 1 < word_size_[w]; ++i) Add(symbols[i], symbols[i + 1], word_count_[w], w);
  }
  if (options_.exchange != nullptr) {  // the root's heap holds the summed counts (LearnTogether)
    touched_.clear();
    return;
  }
  heap_.reserve(touched_.size());
  for (uint64_t key : touched_) heap_.push_back({pairs_.find(key)->second.count, key});
  touched_.clear();
  std::make_heap(heap_.begin(), heap_.end(),
                 [this](const HeapEntry& a, const HeapEntry& b) { return LowerPriority(a, b); });
}

bool Trainer::LowerPriority(const HeapEntry& a, const HeapEntry& b) const {
  if (a.count != b.count) return a.count < b.count;
  const TokenId a_left = LeftOf(a.pair), b_left = LeftOf(b.pair);
  const TokenId a_right = RightOf(a.pair), b_right = RightOf(b.pair);
  if (int c = spelling_[a_left].compare(spelling_[b_left]); c != 0) return c > 0;
  if (int c = spelling_[a_right].compare(spelling_[b_right]); c != 0) return c > 0;
  // Equal spellings of different tokens (word models: a literal "</w>" in text and the end-of-word symbol):
  // the raw bytes decide, so the order is total and never depends on the heap's history.
  if (int c = out_.tokens[a_left].compare(out_.tokens[b_left]); c != 0) return c > 0;
  return out_.tokens[a_right].compare(out_.tokens[b_right]) > 0;
}

void Trainer::Push(HeapEntry entry) {
  heap_.push_back(entry);
  std::push_heap(heap_.begin(), heap_.end(),
                 [this](const HeapEntry& a, const HeapEntry& b) { return LowerPriority(a, b); });
}

// Merges every occurrence of (left, right) in `word`, left to right, and moves the pair counts by the change
// at each occurrence: with neighbours p and n, p left right n becomes p merged n, so (p, left), (left, right)
// and (right, n) lose the word's count and (p, merged), (merged, n) gain it. Because p is read from the
// already-merged output, back-to-back occurrences (`a b a b`, `a a a a`) come out right.
template <typename Emit>
void Trainer::MergeWord(uint32_t word, TokenId left, TokenId right, TokenId merged, Emit&& emit) {
  TokenId* symbols = &symbols_[word_begin_[word]];
  const uint32_t n = word_size_[word];
  const int64_t count = word_count_[word];
  // Occurrences are found with wmemchr (wchar_t is 32 bits on Linux; glibc's is vectorized) and the symbols
  // between them move with memmove: long pieces (CJK runs) are visited once per merge that touches them, and
  // the symbol-by-symbol scan was 40% of training time.
  static_assert(sizeof(wchar_t) == sizeof(TokenId));
  const auto* base = reinterpret_cast<const wchar_t*>(symbols);
  auto find_from = [&](uint32_t from) -> uint32_t {
    if (n - from <= kShortScan) {  // Most words are short: a plain loop beats the call (-12% samples, 15 MB).
      for (uint32_t at = from; at + 1 < n; ++at) {
        if (symbols[at] == left && symbols[at + 1] == right) return at;
      }
      return n;
    }
    const wchar_t* end = base + n;
    for (const wchar_t* p = base + from; p < end && (p = std::wmemchr(p, static_cast<wchar_t>(left), end - p));
         ++p) {
      const auto at = static_cast<uint32_t>(p - base);
      if (at + 1 < n && symbols[at + 1] == right) return at;
    }
    return n;
  };
  uint32_t in = find_from(0);
  uint32_t out = in;
  while (in < n) {
    // symbols[in], symbols[in + 1] is an occurrence; symbols[out - 1] is its (already merged) left neighbour.
    if (out > 0) {
      emit(symbols[out - 1], left, -count, word);
      emit(symbols[out - 1], merged, count, word);
    }
    if (in + 2 < n) {
      emit(right, symbols[in + 2], -count, word);
      emit(merged, symbols[in + 2], count, word);
    }
    // (left, right) itself drops to zero once every word is merged; Learn() sets it.
    symbols[out++] = merged;
    in += 2;
    const uint32_t next = find_from(in);
    if (out != in) std::memmove(symbols + out, symbols + in, (next - in) * sizeof(TokenId));
    out += next - in;
    in = next;
  }
  word_size_[word] = out;
}

// One merge step over the words holding the pair (sorted). Big steps (the early merges touch a large share of
// the corpus) merge the words on `threads` workers, each recording its count changes; the changes are then
// applied in word order, exactly the calls the serial loop makes, so the result never depends on the thread
// count.
void Trainer::MergeWords(const std::vector<uint32_t>& words, TokenId left, TokenId right, TokenId merged) {
  auto add = [this](TokenId l, TokenId r, int64_t delta, uint32_t word) { Add(l, r, delta, word); };
  const size_t parts = std::min(options_.threads, words.size() / kWordsPerWorker);
  if (parts <= 1) {
    for (uint32_t word : words) MergeWord(word, left, right, merged, add);
    return;
  }
  struct Change {
    TokenId left, right;
    int64_t delta;
    uint32_t word;
  };
  std::vector<std::vector<Change>> changes(parts);
  auto run = [&](size_t part) {
    const size_t begin = words.size() * part / parts, end = words.size() * (part + 1) / parts;
    auto record = [&changes, part](TokenId l, TokenId r, int64_t delta, uint32_t word) {
      changes[part].push_back({l, r, delta, word});
    };
    for (size_t i = begin; i < end; ++i) MergeWord(words[i], left, right, merged, record);
  };
  std::vector<std::thread> workers;
  for (size_t part = 1; part < parts; ++part) workers.emplace_back(run, part);
  run(0);
  for (std::thread& worker : workers) worker.join();
  for (const std::vector<Change>& part : changes) {
    for (const Change& c : part) Add(c.left, c.right, c.delta, c.word);
  }
}

template <typename CountOf>
std::optional<uint64_t> Trainer::PickMerge(CountOf&& count_of) {
  const size_t max_merges = options_.merges.value_or(std::numeric_limits<size_t>::max());
  const size_t max_ids = options_.vocab_size.value_or(std::numeric_limits<size_t>::max());
  auto lower = [this](const HeapEntry& a, const HeapEntry& b) { return LowerPriority(a, b); };
  if (out_.merges.size() >= max_merges || out_.tokens.size() >= max_ids) return std::nullopt;
  while (true) {
    if (heap_.empty()) {
      out_.note = fmt::format("stopped after {} merges: no pair of symbols is left to merge", out_.merges.size());
      return std::nullopt;
    }
    std::pop_heap(heap_.begin(), heap_.end(), lower);
    const HeapEntry top = heap_.back();
    heap_.pop_back();
    const int64_t count = count_of(top.pair);
    if (count != top.count) {  // stale: back with the current count
      if (count > 0) Push({count, top.pair});
      continue;
    }
    if (options_.start_tokens != nullptr && token_ids_.contains(out_.tokens[LeftOf(top.pair)] +
                                                                  out_.tokens[RightOf(top.pair)])) {
      // Continuing a model: a pair that spells an existing token is left alone. The old merges that token takes
      // part in would apply after it at encode time, which these counts do not see.
      continue;
    }
    if (options_.max_token_chars > 0 &&
        Utf8Characters(out_.tokens[LeftOf(top.pair)]) + Utf8Characters(out_.tokens[RightOf(top.pair)]) >
            options_.max_token_chars) {
      continue;  // too long: never merged (its count may change, and it comes back only to be dropped again)
    }
    if (static_cast<uint64_t>(count) < options_.min_frequency) {
      out_.note = fmt::format("stopped after {} merges: the most frequent pair occurs {} times, fewer than the "
                              "minimum frequency {}",
                              out_.merges.size(), count, options_.min_frequency);
      return std::nullopt;
    }
    return top.pair;
  }
}

size_t Trainer::ApplyMerge(uint64_t pair) {
  // 1. The merged token (an existing token of the same spelling keeps its id).
  const TokenId left = LeftOf(pair);
  const TokenId right = RightOf(pair);
  const TokenId merged = AddToken(out_.tokens[left] + out_.tokens[right]);
  out_.merges.push_back({left, right});
  ++step_;
  // 2. Merge it in every word that holds it.
  const auto found = pairs_.find(pair);
  if (found == pairs_.end()) return 0;  // spread training: none of this process's words holds it
  std::vector<uint32_t> words = std::move(found->second.words);
  found->second.words = {};
  std::sort(words.begin(), words.end());
  words.erase(std::unique(words.begin(), words.end()), words.end());
  MergeWords(words, left, right, merged);
  pairs_.find(pair)->second.count = 0;  // MergeWords may have rehashed the map.
  return words.size();
}

void Trainer::Learn() {
  // After a hand-over the heap may name a pair that no word here ever held (its count is 0 now).
  auto count_of = [this](uint64_t pair) {
    const auto it = pairs_.find(pair);
    return it == pairs_.end() ? int64_t{0} : it->second.count;
  };
  while (std::optional<uint64_t> pair = PickMerge(count_of)) {
    ApplyMerge(*pair);
    // Pairs that gained occurrences get a fresh heap entry.
    for (uint64_t key : touched_) {
      const int64_t now = pairs_.find(key)->second.count;
      if (now > 0) Push({now, key});
    }
    touched_.clear();
    if (options_.progress && out_.merges.size() % kProgressEvery == 0) options_.progress(out_.merges.size());
  }
  if (options_.progress) options_.progress(out_.merges.size());
}

namespace {

// A step's message to the root: how many words the process merged in (u64), then its count changes, 16 bytes
// each, in the byte order of the machine (every rank runs the same build).
std::string EncodeChanges(uint64_t words, const std::vector<PairCountChange>& changes) {
  std::string out(reinterpret_cast<const char*>(&words), sizeof(words));
  out.append(reinterpret_cast<const char*>(changes.data()), changes.size() * sizeof(PairCountChange));
  return out;
}

// Appends the changes of `bytes` to `out`; returns its number of words.
uint64_t DecodeChanges(const std::string& bytes, std::vector<PairCountChange>* out) {
  uint64_t words = 0;
  if (bytes.size() < sizeof(words)) return 0;
  std::memcpy(&words, bytes.data(), sizeof(words));
  const size_t n = (bytes.size() - sizeof(words)) / sizeof(PairCountChange);
  const size_t at = out->size();
  out->resize(at + n);
  std::memcpy(out->data() + at, bytes.data() + sizeof(words), n * sizeof(PairCountChange));
  return words;
}

}  // namespace

std::string Trainer::EncodeWords() const {
  std::string out;
  for (uint32_t w = 0; w < word_begin_.size(); ++w) {
    const uint32_t size = word_size_[w];
    const int64_t count = word_count_[w];
    out.append(reinterpret_cast<const char*>(&count), sizeof(count));
    out.append(reinterpret_cast<const char*>(&size), sizeof(size));
    out.append(reinterpret_cast<const char*>(&symbols_[word_begin_[w]]), size * sizeof(TokenId));
  }
  return out;
}

void Trainer::AddEncodedWords(const std::string& bytes) {
  size_t at = 0;
  while (at + sizeof(int64_t) + sizeof(uint32_t) <= bytes.size()) {
    int64_t count = 0;
    uint32_t size = 0;
    std::memcpy(&count, bytes.data() + at, sizeof(count));
    std::memcpy(&size, bytes.data() + at + sizeof(count), sizeof(size));
    at += sizeof(count) + sizeof(size);
    const uint32_t w = static_cast<uint32_t>(word_begin_.size());
    word_begin_.push_back(symbols_.size());
    symbols_.resize(symbols_.size() + size);
    std::memcpy(&symbols_[word_begin_.back()], bytes.data() + at, size * sizeof(TokenId));
    at += size * sizeof(TokenId);
    word_size_.push_back(size);
    word_count_.push_back(count);
    const TokenId* symbols = &symbols_[word_begin_[w]];
    for (uint32_t i = 0; i + 1 < size; ++i) Add(symbols[i], symbols[i + 1], count, w);
  }
}

absl::Status Trainer::LearnTogether() {
  MergeExchange& exchange = *options_.exchange;
  const bool root = exchange.IsRoot();
  // 1. The root sums every process's pair counts; the heap holds the sums. Their total bounds every pair count
  //    (LoadWords): past 2^63 - 1 it is refused, as one process refuses it.
  std::vector<PairCountChange> changes;
  changes.reserve(pairs_.size());
  for (const auto& [key, stats] : pairs_) {
    if (stats.count != 0) changes.push_back({key, stats.count});
  }
  TOKVEC_ASSIGN_OR_RETURN(std::vector<std::string> parts,
                          exchange.GatherOnRoot(EncodeChanges(word_begin_.size(), changes)));
  changes.clear();
  for (const std::string& part : parts) DecodeChanges(part, &changes);
  parts.clear();
  absl::flat_hash_map<uint64_t, int64_t> sums;  // the root's: pair -> count over every process
  unsigned __int128 total = 0;
  for (const PairCountChange& change : changes) {
    total += static_cast<uint64_t>(change.delta);
    if (total > static_cast<unsigned __int128>(std::numeric_limits<int64_t>::max())) break;
    sums[change.pair] += change.delta;
  }
  std::vector<PairCountChange>().swap(changes);
  const bool fits = total <= static_cast<unsigned __int128>(std::numeric_limits<int64_t>::max());
  if (!exchange.AllOk(fits)) {
    return absl::OutOfRangeError(
        "the words' counts add up to more than 2^63 - 1 adjacent pairs; tokvec's pair counts are 63-bit");
  }
  if (root) {
    heap_.reserve(sums.size());
    for (const auto& [key, count] : sums) heap_.push_back({count, key});
    std::make_heap(heap_.begin(), heap_.end(),
                   [this](const HeapEntry& a, const HeapEntry& b) { return LowerPriority(a, b); });
  }
  // 2. Each step: the root picks, every process merges in its words and sends its changes, the root adds them.
  auto count_of = [&sums](uint64_t pair) {
    const auto it = sums.find(pair);
    return it == sums.end() ? int64_t{0} : it->second;
  };
  const size_t max_steps = std::min(options_.merges.value_or(std::numeric_limits<size_t>::max()),
                                    options_.vocab_size.value_or(std::numeric_limits<size_t>::max()));
  std::vector<uint64_t> step_words(kHandOverWindow, kHandOverStepWords);  // the last steps', over every process
  uint64_t window_words = kHandOverWindow * kHandOverStepWords;             // their sum
  std::vector<uint64_t> rose;
  while (true) {
    MergeStep step;
    if (root) {
      // Hand over when steps have become small and many may be left (the root finishes alone, as Learn).
      const size_t left = max_steps - std::min(max_steps, out_.merges.size());
      if (window_words < kHandOverWindow * kHandOverStepWords && left >= kHandOverStepsLeft) {
        step.kind = MergeStep::kHandOver;
      } else if (std::optional<uint64_t> pair = PickMerge(count_of)) {
        step = {MergeStep::kMerge, *pair};
      }
    }
    TOKVEC_ASSIGN_OR_RETURN(step, exchange.BroadcastStep(step));
    if (step.kind == MergeStep::kStop) break;
    if (step.kind == MergeStep::kHandOver) {
      // Every other process's words (their symbols now) to the root, whose counts then become the sums.
      TOKVEC_ASSIGN_OR_RETURN(parts, exchange.GatherOnRoot(root ? std::string() : EncodeWords()));
      if (!root) return absl::OkStatus();
      for (const std::string& part : parts) AddEncodedWords(part);
      touched_.clear();  // the heap's entries already hold the sums
      Learn();
      return absl::OkStatus();
    }
    record_changes_ = true;
    const uint64_t words = ApplyMerge(step.pair);
    record_changes_ = false;
    touched_.clear();
    for (const auto& [key, delta] : step_changes_) {
      if (delta != 0) changes.push_back({key, delta});
    }
    step_changes_.clear();
    TOKVEC_ASSIGN_OR_RETURN(parts, exchange.GatherOnRoot(EncodeChanges(words, changes)));
    changes.clear();
    if (!root) continue;
    uint64_t words_merged = 0;
    for (const std::string& part : parts) words_merged += DecodeChanges(part, &changes);
    uint64_t& oldest = step_words[out_.merges.size() % kHandOverWindow];
    window_words += words_merged - oldest;
    oldest = words_merged;
    // A pair whose count rose on some process gets a fresh heap entry (as Learn's touched pairs do).
    for (const PairCountChange& change : changes) {
      sums[change.pair] += change.delta;
      if (change.delta > 0) rose.push_back(change.pair);
    }
    changes.clear();
    sums[step.pair] = 0;
    std::sort(rose.begin(), rose.end());
    rose.erase(std::unique(rose.begin(), rose.end()), rose.end());
    for (uint64_t key : rose) {
      const int64_t now = sums[key];
      if (now > 0) Push({now, key});
    }
    rose.clear();
    if (options_.progress && out_.merges.size() % kProgressEvery == 0) options_.progress(out_.merges.size());
  }
  if (root && options_.progress) options_.progress(out_.merges.size());
  return absl::OkStatus();
}

absl::StatusOr<TrainedBpe> Trainer::Run(std::vector<WordCount> words) {
  if (options_.merges.has_value() == options_.vocab_size.has_value()) {
    return absl::InvalidArgumentError("give exactly one training target: a number of merges or a vocabulary size");
  }
  out_.type = options_.type;
  if (options_.start_tokens != nullptr) {
    if (options_.type != ModelType::kByte || !options_.start_split || options_.exchange != nullptr ||
        !options_.special_tokens.empty()) {
      return absl::InvalidArgumentError(
          "continuing a model needs a byte model, a split, one process and no special tokens");
    }
    if (options_.vocab_size && *options_.vocab_size <= options_.start_tokens->size()) {
      return absl::InvalidArgumentError(fmt::format(
          "vocabulary size {} is not above the {} ids the tokenizer already has; give a larger size (or a number "
          "of merges)",
          *options_.vocab_size, options_.start_tokens->size()));
    }
  }
  TOKVEC_RETURN_IF_ERROR(AssignBaseIds(words));
  if (options_.vocab_size && *options_.vocab_size < out_.tokens.size()) {
    return absl::InvalidArgumentError(fmt::format(
        "vocabulary size {} is smaller than the {} ids this corpus needs before any merge ({} special tokens{}, "
        "{} alphabet symbols); use a vocabulary size of at least {}",
        *options_.vocab_size, out_.tokens.size(), out_.special_tokens.size(),
        options_.type == ModelType::kWord ? ", <unk>, </w>" : "",
        out_.tokens.size() - out_.special_tokens.size() - (options_.type == ModelType::kWord ? 2 : 0),
        out_.tokens.size()));
  }
  absl::Status loaded = LoadWords(std::move(words));
  if (options_.exchange != nullptr && !options_.exchange->AllOk(loaded.ok())) {
    return loaded.ok() ? absl::AbortedError("another process could not load its words (its error is above)")
                       : loaded;
  }
  TOKVEC_RETURN_IF_ERROR(loaded);
  CountPairs();
  if (options_.exchange != nullptr) {
    TOKVEC_RETURN_IF_ERROR(LearnTogether());
  } else {
    Learn();
  }
  return std::move(out_);
}

}  // namespace

std::string TrainerSpelling(ModelType type, const std::string& bytes) {
  if (type == ModelType::kWord && !bytes.empty() && bytes.back() == kEndOfWordByte) {
    return bytes.substr(0, bytes.size() - 1) + std::string(kEndOfWordSpelling);
  }
  return bytes;
}

absl::StatusOr<TrainedBpe> TrainBpe(std::vector<WordCount> words, const BpeTrainerOptions& options) {
  Trainer trainer(options);
  return trainer.Run(std::move(words));
}

absl::StatusOr<std::unique_ptr<Tokenizer>> MakeTrainedTokenizer(TrainedBpe trained,
                                                                std::unique_ptr<PreTokenizer> pre_tokenizer,
                                                                std::unique_ptr<Normalizer> normalizer) {
  TOKVEC_ASSIGN_OR_RETURN(BpeModel bpe, BpeModel::FromMerges(std::move(trained.tokens), std::move(trained.merges)));
  TokenizerSpec spec{.type = trained.type,
                     .bpe = std::move(bpe),
                     .pre_tokenizer = std::move(pre_tokenizer),
                     .normalizer = std::move(normalizer),
                     .special_tokens = std::move(trained.special_tokens),
                     .unk_id = trained.unk_id,
                     .end_of_word_id = trained.end_of_word_id,
                     .ignore_merges = false,
                     .source = "trained"};
  return Tokenizer::Create(std::move(spec));
}

}  // namespace tokvec
