#include "tokenizer/trainers/unigram_trainer.h"

#include <divsufsort.h>
#include <unicode/uchar.h>
#include <unicode/uscript.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <limits>
#include <memory>
#include <string_view>
#include <thread>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "tokenizer/normalizers/normalizer_json.h"
#include "tokenizer/pre_tokenizers/pre_tokenizer.h"
#include "tokenizer/pre_tokenizers/whitespace_pre_tokenizer.h"
#include "tokenizer/text/utf8.h"
#include "tokenizer/trainers/sentencepiece_json.h"
#include "tokenizer/trainers/unigram_lattice.h"

namespace tokvec {
namespace {

constexpr std::string_view kMeta = "\xE2\x96\x81";  // U+2581 "▁"
constexpr char32_t kMetaChar = 0x2581;
constexpr double kUnkPenalty = 10;          // unk scores this far below the lowest piece (as Hugging Face)
constexpr double kMinExpected = 0.5;        // the M step drops pieces expected less often
constexpr double kFixedPointScale = 16777216.0;  // 2^24: expected counts are summed as integers of this unit
constexpr size_t kWordsPerTask = 512;

using OrderedJson = nlohmann::ordered_json;

// The code point at text[pos] (valid UTF-8) and its length.
char32_t CodePointAt(std::string_view text, size_t pos, size_t* len) {
  return DecodeUtf8OrReplacement(text, pos, len);
}

// True when `piece` is one character (the only one-character pieces are the required characters).
bool IsOneCharacter(std::string_view piece) {
  size_t len = 0;
  return !piece.empty() && (CodePointAt(piece, 0, &len), len == piece.size());
}

// The script class a piece may hold only one of: ICU's script, with Hiragana, Katakana and U+30FC (the prolonged
// sound mark, "Common" to ICU) as Han (SentencePiece's rule: Japanese words mix them).
int ScriptClass(char32_t c) {
  if (c == 0x30FC) return USCRIPT_HAN;
  UErrorCode error = U_ZERO_ERROR;
  const UScriptCode script = uscript_getScript(static_cast<UChar32>(c), &error);
  if (U_FAILURE(error)) return USCRIPT_INVALID_CODE;
  if (script == USCRIPT_HIRAGANA || script == USCRIPT_KATAKANA) return USCRIPT_HAN;
  return script;
}

struct CharCount {
  char32_t c;
  uint64_t count;
};

// The workers RunSliced uses for n items in slices of per_task: at most one per slice.
size_t Workers(size_t n, size_t per_task, size_t threads) {
  return std::max<size_t>(1, std::min(threads, (n + per_task - 1) / per_task));
}

// Runs `task(begin, end, worker)` over [0, n) in slices of `per_task` on Workers(n, per_task, threads) threads
// (worker in [0, Workers(...))); slices are taken in any order.
template <typename Task>
void RunSliced(size_t n, size_t per_task, size_t threads, const Task& task) {
  threads = Workers(n, per_task, threads);
  std::atomic<size_t> next{0};
  auto work = [&](size_t worker) {
    for (size_t begin; (begin = next.fetch_add(per_task)) < n;) task(begin, std::min(n, begin + per_task), worker);
  };
  std::vector<std::thread> pool;
  for (size_t w = 1; w < threads; ++w) pool.emplace_back(work, w);
  work(0);
  for (std::thread& t : pool) t.join();
}

class Trainer {
 public:
  Trainer(const std::vector<WordCount>& words, size_t piece_budget, const UnigramTrainerOptions& options,
          const std::vector<std::string>& reserved)
      : budget_(piece_budget), options_(options), reserved_(reserved.begin(), reserved.end()) {
    // A word counted with a final '\n' ends its line, with '\r' comes before an added token
    // (WordCounterOptions::mark_line_ends); else another word follows it.
    absl::flat_hash_map<std::string_view, size_t> index;
    for (const WordCount& w : words) {
      std::string_view word = w.word;
      const Ending ending = word.ends_with('\n')   ? kLineEnd
                            : word.ends_with('\r') ? kBeforeAdded
                                                   : kBeforeWord;
      if (ending != kBeforeWord) word.remove_suffix(1);
      auto [it, inserted] = index.emplace(word, words_.size());
      if (inserted) {
        words_.push_back({std::string(word), 0});
        endings_.push_back({});
      }
      words_[it->second].count += w.count;
      endings_[it->second][ending] += w.count;
    }
  }

  absl::StatusOr<std::vector<UnigramPiece>> Run(UnigramReport* report);

 private:
  void ChooseCharacters();
  bool IsValidPiece(std::string_view piece) const;
  absl::Status MakeSeeds();
  // One E step: expected counts (by id) and the log-likelihood per word occurrence.
  std::vector<double> ExpectedCounts(double* log_likelihood) const;
  void MaximizationStep(const std::vector<double>& expected);
  void Prune();
  std::vector<UnigramPiece> Finalize() const;
  double UnkScore() const;

  // How an occurrence of a word ends (what follows it in the running text).
  enum Ending { kBeforeWord, kLineEnd, kBeforeAdded, kEndings };
  std::vector<WordCount> words_;                           // distinct, with every occurrence counted
  std::vector<std::array<uint64_t, kEndings>> endings_;  // words_[i]'s occurrences by how they end
  const size_t budget_;
  const UnigramTrainerOptions& options_;
  const absl::flat_hash_set<std::string_view> reserved_;  // special and byte tokens: never pieces
  std::vector<CharCount> required_;                 // by count, most frequent first
  absl::flat_hash_set<char32_t> required_set_;
  size_t dropped_characters_ = 0;
  uint64_t occurrences_ = 0;  // word occurrences
  std::vector<std::string> pieces_;
  std::vector<double> scores_;
};

void Trainer::ChooseCharacters() {
  absl::flat_hash_map<char32_t, uint64_t> counts;
  for (const WordCount& w : words_) {
    occurrences_ += w.count;
    for (size_t i = 0, len; i < w.word.size(); i += len) counts[CodePointAt(w.word, i, &len)] += w.count;
  }
  std::vector<CharCount> ranked;
  ranked.reserve(counts.size());
  long double total = 0;
  for (const auto& [c, n] : counts) {
    ranked.push_back({c, n});
    total += n;
  }
  std::sort(ranked.begin(), ranked.end(),
            [](const CharCount& a, const CharCount& b) { return a.count != b.count ? a.count > b.count : a.c < b.c; });
  long double covered = 0;
  for (const CharCount& cc : ranked) {
    if (covered >= options_.character_coverage * total && cc.c != kMetaChar) continue;
    std::string spelling;
    AppendUtf8(cc.c, &spelling);
    if (reserved_.contains(spelling)) continue;  // a special token: matched before the model sees the text
    required_.push_back(cc);
    required_set_.insert(cc.c);
    covered += cc.count;
  }
  dropped_characters_ = ranked.size() - required_.size();
}

bool Trainer::IsValidPiece(std::string_view piece) const {
  if (reserved_.contains(piece)) return false;
  size_t chars = 0;
  bool digit = false;
  int script = -1;
  for (size_t i = 0, len; i < piece.size(); i += len) {
    const char32_t c = CodePointAt(piece, i, &len);
    if (++chars > options_.max_piece_length) return false;
    if (c == kMetaChar) {
      if (i > 0) return false;
      continue;
    }
    if (c == 0 || c == ' ' || c == '\t' || c == '\n' || c == '\r' || !required_set_.contains(c)) return false;
    if (u_isdigit(static_cast<UChar32>(c))) digit = true;
    if (options_.split_by_script) {
      int s = ScriptClass(c);
      if (s == USCRIPT_INHERITED && script >= 0) s = script;  // a combining mark takes its base's script
      if (script >= 0 && s != script) return false;
      script = s;
    }
  }
  return chars >= 2 && !(options_.split_digits && digit);
}

absl::Status Trainer::MakeSeeds() {
  // SentencePiece's seeds are the nodes of the suffix tree of the running text, its characters outside the
  // required ones each made one unknown character: the substrings that occur at least twice and are followed by
  // two different characters. Within a word those are the same in a suffix tree of the distinct words; at a word's
  // end the running text goes on with `▁` (another word on the line), the line's end or an added token. So each
  // distinct word is here once per way it ends, its bytes (an unknown character as the byte 0xFC) and then a
  // terminal, 0xFD, 0xFE or 0xFF (no byte from 0xF8 up is ever in UTF-8); a substring that holds one of these
  // bytes is not a piece.
  constexpr unsigned char kUnknown = 0xFC, kFirstNonUtf8 = 0xF8;
  constexpr unsigned char kTerminal[kEndings] = {0xFE, 0xFF, 0xFD};
  std::string text;
  std::vector<uint64_t> entry_starts, entry_counts;
  std::string masked;
  for (size_t w = 0; w < words_.size(); ++w) {
    masked.clear();
    const std::string& word = words_[w].word;
    for (size_t i = 0, len; i < word.size(); i += len) {
      const char32_t c = CodePointAt(word, i, &len);
      if (c == kMetaChar || required_set_.contains(c)) {
        masked.append(word, i, len);
      } else {
        masked.push_back(static_cast<char>(kUnknown));
      }
    }
    for (int ending = 0; ending < kEndings; ++ending) {
      if (endings_[w][ending] == 0) continue;
      entry_starts.push_back(text.size());
      entry_counts.push_back(endings_[w][ending]);
      text += masked;
      text.push_back(static_cast<char>(kTerminal[ending]));
    }
  }
  if (text.size() >= static_cast<size_t>(std::numeric_limits<saidx_t>::max())) {
    return absl::ResourceExhaustedError(fmt::format(
        "the distinct words hold {} bytes, more than the suffix array of the seed step takes (2 GiB)", text.size()));
  }
  const saidx_t n = static_cast<saidx_t>(text.size());
  std::vector<saidx_t> sa(n);
  if (divsufsort(reinterpret_cast<const sauchar_t*>(text.data()), sa.data(), n) != 0) {
    return absl::InternalError("libdivsufsort failed to build the suffix array");
  }
  // lcp[i]: the common prefix of suffixes sa[i - 1] and sa[i] (Kasai et al. 2001); lcp[0] = lcp[n] = 0.
  std::vector<saidx_t> lcp(n + 1, 0);
  {
    std::vector<saidx_t> rank(n);
    for (saidx_t i = 0; i < n; ++i) rank[sa[i]] = i;
    saidx_t h = 0;
    for (saidx_t i = 0; i < n; ++i) {
      if (rank[i] == 0) {
        h = 0;
        continue;
      }
      const saidx_t j = sa[rank[i] - 1];
      while (i + h < n && j + h < n && text[i + h] == text[j + h]) ++h;
      lcp[rank[i]] = h;
      if (h > 0) --h;
    }
  }
  // weight[i]: the summed counts of the entries of suffixes sa[0, i).
  std::vector<uint64_t> weight(n + 1, 0);
  for (saidx_t i = 0; i < n; ++i) {
    const size_t entry = std::upper_bound(entry_starts.begin(), entry_starts.end(), uint64_t(sa[i])) -
                         entry_starts.begin() - 1;
    weight[i + 1] = weight[i] + entry_counts[entry];
  }
  struct Candidate {
    uint32_t pos, len;
    double score;
  };
  std::vector<Candidate> candidates;
  // The substring text[pos, pos + depth) cut before its last partial character, if it starts a character, holds no
  // unknown character or terminal and is at most the longest piece; its length in bytes and characters (0 when it
  // is not).
  auto spelled = [&](saidx_t pos, saidx_t depth, size_t* chars) -> size_t {
    if ((static_cast<unsigned char>(text[pos]) & 0xC0) == 0x80) return 0;
    size_t end = 0;
    *chars = 0;
    for (size_t i = pos, len; i - pos < static_cast<size_t>(depth); i += len) {
      if (static_cast<unsigned char>(text[i]) >= kFirstNonUtf8) return 0;
      len = Utf8SequenceLength(text, i);
      if (len == 0) len = 1;
      if (i + len - pos > static_cast<size_t>(depth)) break;
      if (++*chars > options_.max_piece_length) return 0;
      end = i + len - pos;
    }
    return end;
  };
  // Every lcp interval [lb, rb] of depth h (a node of the suffix tree) whose spelling, cut as above, is longer
  // than its parent's depth: a node of the tree over characters, whose occurrences are exactly the interval.
  struct Open {
    saidx_t depth, lb;
  };
  std::vector<Open> stack = {{0, 0}};
  for (saidx_t i = 1; i <= n; ++i) {
    const saidx_t h = i < n ? lcp[i] : 0;
    saidx_t lb = i - 1;
    while (h < stack.back().depth) {
      const Open node = stack.back();
      stack.pop_back();
      const saidx_t parent = std::max(h, stack.back().depth);
      size_t chars = 0;
      const size_t bytes = spelled(sa[node.lb], node.depth, &chars);
      if (static_cast<saidx_t>(bytes) > parent && chars >= 2 && chars <= options_.max_piece_length &&
          IsValidPiece(std::string_view(text).substr(sa[node.lb], bytes))) {
        const uint64_t count = weight[i] - weight[node.lb];
        candidates.push_back({static_cast<uint32_t>(sa[node.lb]), static_cast<uint32_t>(bytes),
                              double(count) * double(chars)});
      }
      lb = node.lb;
    }
    if (h > stack.back().depth) stack.push_back({h, lb});
  }
  std::vector<saidx_t>().swap(sa);
  std::vector<saidx_t>().swap(lcp);
  std::vector<uint64_t>().swap(weight);
  // The best candidates (ties by spelling), then the required characters scored by their counts.
  auto spelling = [&](const Candidate& c) { return std::string_view(text).substr(c.pos, c.len); };
  auto better = [&](const Candidate& a, const Candidate& b) {
    return a.score != b.score ? a.score > b.score : spelling(a) < spelling(b);
  };
  const size_t keep = options_.seed_size > required_.size() ? options_.seed_size - required_.size() : 0;
  if (candidates.size() > keep) {
    std::nth_element(candidates.begin(), candidates.begin() + keep, candidates.end(), better);
    candidates.resize(keep);
  }
  std::sort(candidates.begin(), candidates.end(), better);
  long double total = 0;
  for (const CharCount& cc : required_) {
    std::string piece;
    AppendUtf8(cc.c, &piece);
    pieces_.push_back(std::move(piece));
    scores_.push_back(static_cast<double>(cc.count));
  }
  for (const Candidate& c : candidates) {
    if (!pieces_.empty() && pieces_.back() == spelling(c)) continue;
    pieces_.emplace_back(spelling(c));
    scores_.push_back(c.score);
  }
  for (double s : scores_) total += s;
  const double log_total = std::log(static_cast<double>(total));
  for (double& s : scores_) s = std::log(s) - log_total;
  return absl::OkStatus();
}

double Trainer::UnkScore() const {
  double lowest = 0;
  for (double s : scores_) lowest = std::min(lowest, s);
  return lowest - kUnkPenalty;
}

std::vector<double> Trainer::ExpectedCounts(double* log_likelihood) const {
  const PieceTrie trie(pieces_);
  const double unk = UnkScore();
  const size_t threads = Workers(words_.size(), kWordsPerTask, options_.threads);
  std::vector<std::vector<int64_t>> fixed(threads, std::vector<int64_t>(pieces_.size(), 0));
  // Log-likelihood by task, summed in task order: the same sum for any thread count.
  std::vector<double> task_likelihood((words_.size() + kWordsPerTask - 1) / kWordsPerTask, 0);
  RunSliced(words_.size(), kWordsPerTask, threads, [&](size_t begin, size_t end, size_t worker) {
    UnigramLattice lattice;
    std::vector<double> probs;
    int64_t* counts = fixed[worker].data();
    double likelihood = 0;
    for (size_t w = begin; w < end; ++w) {
      const WordCount& word = words_[w];
      lattice.Build(word.word, trie);
      likelihood += static_cast<double>(word.count) * lattice.Marginals(scores_, unk, &probs);
      const double weight = static_cast<double>(word.count) * kFixedPointScale;
      const auto& edges = lattice.edges();
      for (size_t e = 0; e < edges.size(); ++e) {
        if (edges[e].id >= 0) counts[edges[e].id] += std::llround(weight * probs[e]);
      }
    }
    task_likelihood[begin / kWordsPerTask] = likelihood;
  });
  std::vector<double> expected(pieces_.size(), 0);
  for (size_t id = 0; id < pieces_.size(); ++id) {
    int64_t sum = 0;
    for (const auto& f : fixed) sum += f[id];
    expected[id] = static_cast<double>(sum) / kFixedPointScale;
  }
  double likelihood = 0;
  for (double l : task_likelihood) likelihood += l;
  *log_likelihood = likelihood / static_cast<double>(std::max<uint64_t>(1, occurrences_));
  return expected;
}

void Trainer::MaximizationStep(const std::vector<double>& expected) {
  std::vector<std::string> pieces;
  std::vector<double> counts;
  double sum = 0;
  for (size_t id = 0; id < pieces_.size(); ++id) {
    // A required character stays (counted as at least kMinExpected): SentencePiece drops it and puts it back at
    // the end, but meanwhile every piece holding it has only unk for a second-best cut and could not be pruned.
    if (expected[id] < kMinExpected && !IsOneCharacter(pieces_[id])) continue;
    const double count = std::max(expected[id], kMinExpected);
    pieces.push_back(std::move(pieces_[id]));
    counts.push_back(count);
    sum += count;
  }
  // The Bayesian (Dirichlet-process) M step of SentencePiece: digamma in place of log.
  const double log_sum = Digamma(sum);
  for (double& c : counts) c = Digamma(c) - log_sum;
  pieces_ = std::move(pieces);
  scores_ = std::move(counts);
}

void Trainer::Prune() {
  const PieceTrie trie(pieces_);
  const double unk = UnkScore();
  const size_t threads = Workers(words_.size(), kWordsPerTask, options_.threads);
  const size_t size = pieces_.size();
  // How often each piece is on the best path of the corpus' words.
  std::vector<std::vector<uint64_t>> counts(threads, std::vector<uint64_t>(size, 0));
  RunSliced(words_.size(), kWordsPerTask, threads, [&](size_t begin, size_t end, size_t worker) {
    UnigramLattice lattice;
    std::vector<int32_t> ids;
    for (size_t w = begin; w < end; ++w) {
      lattice.Build(words_[w].word, trie);
      lattice.Viterbi(scores_, unk, &ids);
      for (int32_t id : ids) {
        if (id >= 0) counts[worker][id] += words_[w].count;
      }
    }
  });
  std::vector<uint64_t> freq(size, 0);
  for (const auto& c : counts) {
    for (size_t id = 0; id < size; ++id) freq[id] += c[id];
  }
  counts.clear();
  // Each piece's best segmentation other than itself: none (one character), better than itself (the piece is
  // never used whole: dropped), or the alternative its occurrences would go to.
  enum class Kind : uint8_t { kKeep, kDrop, kAlternative };
  std::vector<Kind> kind(size, Kind::kKeep);
  std::vector<std::vector<int32_t>> alternatives(size);
  RunSliced(size, 256, options_.threads, [&](size_t begin, size_t end, size_t) {
    UnigramLattice lattice;
    std::vector<int32_t> ids;
    for (size_t id = begin; id < end; ++id) {
      if (IsOneCharacter(pieces_[id])) continue;
      lattice.Build(pieces_[id], trie, static_cast<int32_t>(id));
      const double other = lattice.Viterbi(scores_, unk, &ids);
      if (other > scores_[id]) {
        kind[id] = Kind::kDrop;
      } else if (std::find(ids.begin(), ids.end(), UnigramLattice::kUnkEdge) == ids.end()) {
        kind[id] = Kind::kAlternative;
        alternatives[id] = ids;
      }
    }
  });
  double sum = 0;
  for (uint64_t f : freq) sum += static_cast<double>(f);
  const double log_sum = std::log(std::max(sum, 1.0));
  std::vector<size_t> kept;
  std::vector<std::pair<double, size_t>> candidates;  // (loss, id)
  for (size_t id = 0; id < size; ++id) {
    if (kind[id] == Kind::kDrop) continue;
    if (freq[id] == 0) {
      // On no best path: dropped, but a required character stays (as in MaximizationStep).
      if (IsOneCharacter(pieces_[id])) kept.push_back(id);
      continue;
    }
    if (kind[id] == Kind::kKeep) {
      kept.push_back(id);
      continue;
    }
    // The corpus log-likelihood lost when the piece's occurrences use its alternative instead, weighted by how
    // often the piece occurs.
    const double f = static_cast<double>(freq[id]);
    const double log_prob = std::log(f) - log_sum;
    const double log_sum_alt = std::log(sum + f * (static_cast<double>(alternatives[id].size()) - 1));
    double log_prob_alt = 0;
    for (int32_t alt : alternatives[id]) log_prob_alt += std::log(static_cast<double>(freq[alt]) + f) - log_sum_alt;
    candidates.push_back({f / sum * (log_prob - log_prob_alt), id});
  }
  std::sort(candidates.begin(), candidates.end(), [&](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : pieces_[a.second] < pieces_[b.second];
  });
  const size_t target = std::max(static_cast<size_t>(static_cast<double>(budget_) * 1.1),
                                 static_cast<size_t>(options_.shrinking_factor * static_cast<double>(size)));
  for (const auto& [loss, id] : candidates) {
    if (kept.size() >= target) break;
    kept.push_back(id);
  }
  std::sort(kept.begin(), kept.end());
  std::vector<std::string> pieces;
  std::vector<double> scores;
  for (size_t id : kept) {
    pieces.push_back(std::move(pieces_[id]));
    scores.push_back(scores_[id]);
  }
  pieces_ = std::move(pieces);
  scores_ = std::move(scores);
}

std::vector<UnigramPiece> Trainer::Finalize() const {
  absl::flat_hash_map<std::string_view, double> score_of;
  double lowest = 0;
  for (size_t id = 0; id < pieces_.size(); ++id) {
    score_of[pieces_[id]] = scores_[id];
    lowest = std::min(lowest, scores_[id]);
  }
  std::vector<UnigramPiece> out;
  absl::flat_hash_set<std::string> taken;
  // Every required character; one the EM dropped scores just below the lowest piece, rarer ones lower.
  double penalty = 0;
  for (const CharCount& cc : required_) {
    std::string c;
    AppendUtf8(cc.c, &c);
    auto it = score_of.find(c);
    double score = 0;
    if (it != score_of.end()) {
      score = it->second;
    } else {
      penalty += 1e-4;
      score = lowest - penalty;
    }
    taken.insert(c);
    out.push_back({std::move(c), score});
  }
  std::vector<size_t> order(pieces_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return scores_[a] != scores_[b] ? scores_[a] > scores_[b] : pieces_[a] < pieces_[b];
  });
  for (size_t id : order) {
    if (out.size() >= budget_) break;
    if (taken.contains(pieces_[id])) continue;
    out.push_back({pieces_[id], scores_[id]});
  }
  std::sort(out.begin(), out.end(), [](const UnigramPiece& a, const UnigramPiece& b) {
    return a.score != b.score ? a.score > b.score : a.piece < b.piece;
  });
  return out;
}

absl::StatusOr<std::vector<UnigramPiece>> Trainer::Run(UnigramReport* report) {
  ChooseCharacters();
  if (required_.size() > budget_) {
    return absl::InvalidArgumentError(fmt::format(
        "the vocabulary has room for {} pieces but the corpus needs {} characters; use a larger --vocab-size or a "
        "lower --character-coverage",
        budget_, required_.size()));
  }
  TOKVEC_RETURN_IF_ERROR(MakeSeeds());
  UnigramReport local;
  local.alphabet = required_.size();
  local.dropped_characters = dropped_characters_;
  local.words = words_.size();
  local.seeds = pieces_.size();
  const size_t desired = static_cast<size_t>(static_cast<double>(budget_) * 1.1);
  for (size_t round = 1;; ++round) {
    double log_likelihood = 0;
    for (size_t step = 0; step < std::max<size_t>(1, options_.sub_iterations); ++step) {
      MaximizationStep(ExpectedCounts(&log_likelihood));
    }
    local.rounds = round;
    local.log_likelihood = log_likelihood;
    bool done = pieces_.size() <= desired;
    if (!done) {
      const size_t before = pieces_.size();
      Prune();
      done = pieces_.size() == before;  // nothing left that can go
    }
    if (options_.round_progress) options_.round_progress({round, pieces_.size(), log_likelihood});
    if (done) break;
  }
  std::vector<UnigramPiece> out = Finalize();
  if (out.size() < budget_) {
    local.note = fmt::format("the corpus gave {} pieces, fewer than the {} the vocabulary size leaves room for",
                             out.size(), budget_);
  }
  if (report != nullptr) *report = local;
  return out;
}

// Metaspace's cuts, for counting: a word ends at each space (dropped) and before each `▁`, and an added token
// (dropped: Hugging Face matches it before the model sees the text) cuts it too. The word counter takes pieces of
// the text as it is; Metaspace's rewrite (space to `▁`, one `▁` first) is then one `▁` before each counted word
// that does not start with one.
class MetaspaceCuts : public PreTokenizer {
 public:
  explicit MetaspaceCuts(const std::vector<std::string>& added) {
    for (const std::string& token : added) {
      if (token.empty()) continue;
      added_.push_back(token);
      starts_[static_cast<unsigned char>(token[0])] = true;
    }
  }

  absl::Status Split(std::string_view text, std::vector<Piece>* pieces) const override {
    size_t begin = 0;
    for (size_t i = 0; i <= text.size();) {
      const bool end = i == text.size();
      const bool space = !end && text[i] == ' ';
      const bool meta = !end && text.substr(i, kMeta.size()) == kMeta;
      const size_t added = end || space || meta ? 0 : AddedTokenAt(text, i);
      if ((end || space || meta || added > 0) && i > begin) pieces->push_back({begin, i});
      if (end) break;
      if (space) {
        begin = ++i;
      } else if (meta) {
        begin = i;
        i += kMeta.size();
      } else if (added > 0) {
        begin = i += added;
      } else {
        ++i;
      }
    }
    return absl::OkStatus();
  }
  std::string name() const override { return "metaspace-cuts"; }

 private:
  // The length of the longest added token at text[i], or 0.
  size_t AddedTokenAt(std::string_view text, size_t i) const {
    if (!starts_[static_cast<unsigned char>(text[i])]) return 0;
    size_t longest = 0;
    for (const std::string& token : added_) {
      if (token.size() > longest && text.substr(i).starts_with(token)) longest = token.size();
    }
    return longest;
  }

  std::vector<std::string> added_;
  bool starts_[256] = {};
};

// The normalizer and pre-tokenizer the words are counted with and the file is written with.
OrderedJson NormalizerJson() {
  auto replace = [](const char* kind, const char* pattern, const char* content) {
    return OrderedJson{{"type", "Replace"}, {"pattern", {{kind, pattern}}}, {"content", content}};
  };
  return {{"type", "Sequence"},
          {"normalizers",
           {{{"type", "NFKC"}},
            replace("String", "\t", " "),
            replace("String", "\r", " "),
            replace("String", "\n", " "),
            replace("Regex", " {2,}", " "),
            {{"type", "Strip"}, {"strip_left", true}, {"strip_right", true}}}}};
}

OrderedJson PreTokenizerJson() {
  return {{"type", "Metaspace"}, {"replacement", std::string(kMeta)}, {"prepend_scheme", "always"}, {"split", true}};
}

}  // namespace

double Digamma(double x) {
  double result = 0;
  for (; x < 10; x += 1) result -= 1 / x;  // the series below is then good to 1e-14
  const double inv = 1 / x;
  const double inv2 = inv * inv;
  return result + std::log(x) - 0.5 * inv -
         inv2 * (1.0 / 12 - inv2 * (1.0 / 120 - inv2 * (1.0 / 252 - inv2 * (1.0 / 240 - inv2 / 132))));
}

namespace {

absl::Status CheckOptions(const UnigramTrainerOptions& options) {
  if (!(options.character_coverage > 0.0 && options.character_coverage <= 1.0)) {
    return absl::InvalidArgumentError(
        fmt::format("the character coverage must be in (0, 1], not {}", options.character_coverage));
  }
  if (!(options.shrinking_factor > 0.0 && options.shrinking_factor < 1.0)) {
    return absl::InvalidArgumentError(
        fmt::format("the shrinking factor must be in (0, 1), not {}", options.shrinking_factor));
  }
  if (options.max_piece_length < 1 || options.max_piece_length > 64) {
    return absl::InvalidArgumentError(
        fmt::format("the longest piece must be 1 to 64 characters, not {}", options.max_piece_length));
  }
  if (options.vocab_size > (size_t{1} << 31)) {
    return absl::InvalidArgumentError(fmt::format("vocabulary size {} is above 2^31", options.vocab_size));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<UnigramPiece>> TrainUnigramPieces(const std::vector<WordCount>& words,
                                                             size_t piece_budget,
                                                             const UnigramTrainerOptions& options,
                                                             UnigramReport* report,
                                                             const std::vector<std::string>& reserved) {
  TOKVEC_RETURN_IF_ERROR(CheckOptions(options));
  if (words.empty()) return absl::InvalidArgumentError("no text to learn from: the input holds no words");
  Trainer trainer(words, piece_budget, options, reserved);
  return trainer.Run(report);
}

namespace {

// The added tokens (the special ones, then the user-defined symbols), every reserved spelling (those, then the
// byte tokens), and the added tokens the text is cut at when counting, after the options' checks.
struct Reserved {
  std::vector<std::string> added;
  size_t specials = 0;
  std::vector<std::string> all;
  // Hugging Face matches added tokens in the raw text; the words are counted in normalized text, where a token
  // is found as it is only if the normalizer leaves it alone and it holds no space or `▁` (which cut words first).
  std::vector<std::string> cut;
};

absl::StatusOr<Reserved> ReservedSpellings(const UnigramTrainerOptions& options) {
  TOKVEC_RETURN_IF_ERROR(CheckOptions(options));
  const nlohmann::json normalizer_node = nlohmann::json::parse(NormalizerJson().dump());
  TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<Normalizer> normalizer,
                          ReadHfNormalizer(&normalizer_node, "<unigram normalizer>", {}));
  auto normalized = [&](const std::string& s) -> std::string {
    absl::StatusOr<NormalizedText> n = normalizer->Normalize(s);
    return n.ok() ? n->text : std::string();
  };
  auto cuttable = [&](const std::string& s) {
    return s.find_first_of(" \t\r\n") == std::string::npos && s.find(kMeta) == std::string::npos &&
           normalized(s) == s;
  };
  Reserved out;
  std::vector<std::string>& added = out.added;
  added = {"<unk>", "<s>", "</s>"};
  for (const std::string& s : options.extra_special_tokens) {
    if (s.empty()) return absl::InvalidArgumentError("a special token is empty");
    if (FindInvalidUtf8(s)) {
      return absl::InvalidArgumentError(fmt::format("the special token '{}' is not valid UTF-8", s));
    }
    if (std::find(added.begin(), added.end(), s) != added.end()) {
      return absl::InvalidArgumentError(fmt::format("the special token '{}' is given twice", s));
    }
    if (options.byte_fallback && s.size() == 6 && s.starts_with("<0x") && s.back() == '>') {
      return absl::InvalidArgumentError(fmt::format(
          "the special token '{}' looks like a byte token, which --byte-fallback adds (<0x00> to <0xFF>)", s));
    }
    added.push_back(s);
  }
  out.specials = added.size();
  for (const std::string& s : options.user_defined_symbols) {
    if (s.empty()) return absl::InvalidArgumentError("a user-defined symbol is empty");
    if (std::find(added.begin(), added.end(), s) != added.end()) {
      return absl::InvalidArgumentError(fmt::format(
          "'{}' is given twice (as a special token or a user-defined symbol)", s));
    }
    if (s.find_first_of(" \t\r\n") != std::string::npos) {
      return absl::InvalidArgumentError(fmt::format(
          "the user-defined symbol '{}' holds white space, which cuts the words it would be matched in", s));
    }
    if (FindInvalidUtf8(s)) {
      return absl::InvalidArgumentError(fmt::format("the user-defined symbol '{}' is not valid UTF-8", s));
    }
    if (s.find(kMeta) != std::string::npos) {
      return absl::InvalidArgumentError(fmt::format(
          "the user-defined symbol '{}' holds '▁', which stands for the space before a word", s));
    }
    if (const std::string n = normalized(s); n != s) {
      return absl::InvalidArgumentError(fmt::format(
          "the user-defined symbol '{}' changes under the normalizer (NFKC) to '{}'; Hugging Face matches it in "
          "the raw text and the words are learned from normalized text: give '{}'",
          s, n, n));
    }
    if (options.byte_fallback && s.size() == 6 && s.starts_with("<0x") && s.back() == '>') {
      return absl::InvalidArgumentError(fmt::format(
          "the user-defined symbol '{}' looks like a byte token, which --byte-fallback adds (<0x00> to <0xFF>)", s));
    }
    added.push_back(s);
  }
  for (const std::string& s : added) {
    if (cuttable(s)) out.cut.push_back(s);
  }
  out.all = added;
  if (options.byte_fallback) {
    for (int b = 0; b < 256; ++b) out.all.push_back(fmt::format("<0x{:02X}>", b));
  }
  if (options.vocab_size <= out.all.size()) {
    return absl::InvalidArgumentError(fmt::format(
        "vocabulary size {} leaves no room for pieces after the {} special{} tokens", options.vocab_size,
        out.all.size(), options.byte_fallback ? ", user-defined and byte" : " and user-defined"));
  }
  return out;
}

}  // namespace

absl::StatusOr<std::vector<WordCount>> CountUnigramWords(const std::vector<std::string>& paths,
                                                         const UnigramTrainerOptions& options, uint64_t share,
                                                         uint64_t shares) {
  TOKVEC_ASSIGN_OR_RETURN(const Reserved reserved, ReservedSpellings(options));
  const nlohmann::json normalizer_node = nlohmann::json::parse(NormalizerJson().dump());
  TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<Normalizer> normalizer,
                          ReadHfNormalizer(&normalizer_node, "<unigram normalizer>", {}));
  MetaspaceCuts pre_tokenizer(reserved.cut);
  WordCounterOptions counter{.pre_tokenizer = &pre_tokenizer,
                             .normalizer = normalizer.get(),
                             .require_utf8 = true,
                             .threads = std::max<size_t>(1, options.threads),
                             .split_lines = true,
                             .mark_line_ends = true,
                             .progress = options.count_progress};
  TOKVEC_ASSIGN_OR_RETURN(std::vector<WordCount> words, shares > 1 ? CountWordsInShare(paths, share, shares, counter)
                                                                   : CountWords(paths, counter));
  // "x" and "▁x" are the same word once Metaspace has put its `▁` first (a line's last word keeps its '\n').
  absl::flat_hash_map<std::string, uint64_t> merged;
  for (WordCount& w : words) {
    if (!w.word.starts_with(kMeta)) w.word.insert(0, kMeta);
    merged[std::move(w.word)] += w.count;
  }
  words.clear();
  for (auto& [word, count] : merged) words.push_back({word, count});
  return words;
}

absl::StatusOr<std::string> TrainUnigram(const std::vector<std::string>& paths, const UnigramTrainerOptions& options,
                                         UnigramReport* report) {
  TOKVEC_ASSIGN_OR_RETURN(std::vector<WordCount> words, CountUnigramWords(paths, options));  // options checked first
  return TrainUnigramOnWords(std::move(words), options, report);
}

absl::StatusOr<std::string> TrainUnigramOnWords(std::vector<WordCount> words, const UnigramTrainerOptions& options,
                                                UnigramReport* report) {
  TOKVEC_ASSIGN_OR_RETURN(const Reserved reserved_spellings, ReservedSpellings(options));
  const std::vector<std::string>& added = reserved_spellings.added;
  const std::vector<std::string>& reserved = reserved_spellings.all;
  if (words.empty()) return absl::InvalidArgumentError("no text to learn from: the input holds no words");
  // In one order whatever order the counts came in (summed over ranks, read from files).
  std::sort(words.begin(), words.end(), [](const WordCount& a, const WordCount& b) { return a.word < b.word; });
  // 2. The pieces (never a reserved spelling: TrainUnigramPieces leaves them out).
  TOKVEC_ASSIGN_OR_RETURN(std::vector<UnigramPiece> pieces,
                          TrainUnigramPieces(words, options.vocab_size - reserved.size(), options, report, reserved));
  // 3. The tokenizer.json.
  OrderedJson vocab = OrderedJson::array();
  for (const std::string& r : reserved) vocab.push_back(OrderedJson::array({r, 0.0}));
  for (const UnigramPiece& p : pieces) {
    // Six decimals: a short decimal reads as the same double in every JSON reader (Hugging Face's serde_json
    // rounds some 17-digit ones differently), so Viterbi ties break the same way.
    vocab.push_back(OrderedJson::array({p.piece, std::round(p.score * 1e6) / 1e6}));
  }
  OrderedJson added_json = OrderedJson::array();
  for (size_t i = 0; i < added.size(); ++i) {
    added_json.push_back(AddedTokenJson(i, added[i], i < reserved_spellings.specials));
  }
  OrderedJson json = {
      {"version", "1.0"},
      {"truncation", nullptr},
      {"padding", nullptr},
      {"added_tokens", added_json},
      {"normalizer", NormalizerJson()},
      {"pre_tokenizer", PreTokenizerJson()},
      {"post_processor", nullptr},
      {"decoder", SentencePieceDecoderJson()},
      {"model", {{"type", "Unigram"}, {"unk_id", 0}, {"vocab", vocab}, {"byte_fallback", options.byte_fallback}}}};
  return json.dump(1) + "\n";
}

}  // namespace tokvec
