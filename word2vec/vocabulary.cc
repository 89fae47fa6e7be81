#include "word2vec/vocabulary.h"

#include <algorithm>
#include <deque>
#include <memory>
#include <numeric>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "base/file_io.h"
#include "base/status_macros.h"
#include "fmt/format.h"

namespace tokvec::word2vec {
namespace {

// Word ids are int32 and the vocabulary hash map holds every distinct word: refuse inputs past these sizes.
constexpr int64_t kMaxTokens = int64_t{1} << 31;

// Calls `word(view)` for each word of `text` and `line_end()` for each '\n', splitting as word2vec.c does.
template <typename WordFn, typename LineEndFn>
void ForEachWord(std::string_view text, WordFn word, LineEndFn line_end) {
  size_t begin = 0;
  const size_t n = text.size();
  while (begin < n) {
    const char c = text[begin];
    if (c == ' ' || c == '\t' || c == '\r') {
      ++begin;
      continue;
    }
    if (c == '\n') {
      line_end();
      ++begin;
      continue;
    }
    size_t end = begin;
    bool has_cr = false;
    while (end < n && text[end] != ' ' && text[end] != '\t' && text[end] != '\n') {
      has_cr |= text[end] == '\r';
      ++end;
    }
    if (!has_cr) {
      word(text.substr(begin, end - begin));
    } else {  // word2vec.c skips '\r' inside a word too: "a\rb" is "ab"
      std::string joined;
      for (char x : text.substr(begin, end - begin)) {
        if (x != '\r') joined.push_back(x);
      }
      if (!joined.empty()) word(std::string_view(joined));
    }
    begin = end;
  }
}

// Sorts the counted words (count descending, then bytes), applies min_count and max_vocab, and puts "</s>" first.
// `order` receives, for each kept word, its key in `counts`.
template <typename Key>
Vocabulary SortVocabulary(const absl::flat_hash_map<Key, int64_t>& counts, int64_t line_ends,
                          const VocabularyOptions& options, std::vector<Key>* order) {
  std::vector<std::pair<Key, int64_t>> entries;
  entries.reserve(counts.size());
  for (const auto& [key, count] : counts) {
    if (count >= options.min_count) entries.emplace_back(key, count);
  }
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  if (options.max_vocab > 0 && static_cast<int64_t>(entries.size()) > options.max_vocab) {
    entries.resize(static_cast<size_t>(options.max_vocab));
  }
  Vocabulary vocab;
  vocab.words.push_back(kLineEnd);
  vocab.counts.push_back(line_ends);
  order->clear();
  for (const auto& [key, count] : entries) {
    order->push_back(key);
    vocab.counts.push_back(count);
  }
  return vocab;
}

absl::Status CheckSize(int64_t tokens, const std::string& path) {
  if (tokens >= kMaxTokens) {
    return absl::ResourceExhaustedError(
        fmt::format("'{}': more than {} words; word2vec reads at most 2^31 words in one run", path, kMaxTokens - 1));
  }
  return absl::OkStatus();
}

}  // namespace

int64_t Vocabulary::total() const { return std::accumulate(counts.begin(), counts.end(), int64_t{0}); }

absl::StatusOr<Corpus> ReadWordCorpus(const std::vector<std::string>& paths, const VocabularyOptions& options) {
  // 1. Count words over every file (the files stay mapped so the map can key on views into them).
  std::vector<std::unique_ptr<MappedFile>> files;
  for (const std::string& path : paths) {
    TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<MappedFile> file, MappedFile::Open(path));
    files.push_back(std::move(file));
  }
  std::deque<std::string> owned;  // words that had a '\r' removed (a deque: views into it stay valid)
  absl::flat_hash_map<std::string_view, int64_t> counts;
  int64_t line_ends = 0, tokens = 0;
  for (size_t f = 0; f < files.size(); ++f) {
    ForEachWord(
        files[f]->data(),
        [&](std::string_view word) {
          auto it = counts.find(word);
          if (it == counts.end()) {
            if (word.data() < files[f]->data().data() ||
                word.data() >= files[f]->data().data() + files[f]->data().size()) {
              owned.emplace_back(word);  // a joined temporary: keep a copy alive
              word = owned.back();
            }
            it = counts.emplace(word, 0).first;
          }
          ++it->second;
          ++tokens;
        },
        [&] {
          ++line_ends;
          ++tokens;
        });
    TOKVEC_RETURN_IF_ERROR(CheckSize(tokens, paths[f]));
  }

  // 2. The vocabulary, then the ids of the kept words.
  std::vector<std::string_view> order;
  Corpus corpus;
  corpus.vocab = SortVocabulary(counts, line_ends, options, &order);
  absl::flat_hash_map<std::string_view, int32_t> index;
  index.reserve(order.size());
  for (size_t i = 0; i < order.size(); ++i) {
    corpus.vocab.words.emplace_back(order[i]);
    index.emplace(order[i], static_cast<int32_t>(i + 1));
  }
  corpus.ids.reserve(static_cast<size_t>(corpus.vocab.total()));
  for (const auto& file : files) {
    ForEachWord(
        file->data(),
        [&](std::string_view word) {
          auto it = index.find(word);
          if (it != index.end()) corpus.ids.push_back(it->second);
        },
        [&] { corpus.ids.push_back(0); });
  }
  return corpus;
}

absl::StatusOr<Corpus> ReadTokenCorpus(const std::vector<std::string>& paths, const Tokenizer& tokenizer,
                                       const VocabularyOptions& options) {
  // 1. Encode every line; -1 marks a line end.
  std::vector<int64_t> stream;
  for (const std::string& path : paths) {
    TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<MappedFile> file, MappedFile::Open(path));
    std::string_view text = file->data();
    std::vector<TokenId> ids;
    size_t begin = 0;
    while (begin < text.size()) {
      size_t end = text.find('\n', begin);
      const bool has_newline = end != std::string_view::npos;
      if (!has_newline) end = text.size();
      std::string_view line = text.substr(begin, end - begin);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      ids.clear();
      TOKVEC_RETURN_IF_ERROR(tokenizer.EncodeIds(line, {}, &ids, begin));
      stream.insert(stream.end(), ids.begin(), ids.end());
      if (has_newline) stream.push_back(-1);
      TOKVEC_RETURN_IF_ERROR(CheckSize(static_cast<int64_t>(stream.size()), path));
      begin = end + 1;
    }
  }
  // 2. Count tokens, sort, and map token ids to vocabulary ids.
  absl::flat_hash_map<int64_t, int64_t> counts;
  int64_t line_ends = 0;
  for (int64_t id : stream) {
    if (id < 0) {
      ++line_ends;
    } else {
      ++counts[id];
    }
  }
  std::vector<int64_t> order;
  Corpus corpus;
  corpus.vocab = SortVocabulary(counts, line_ends, options, &order);
  corpus.vocab.token_ids.push_back(-1);
  absl::flat_hash_map<int64_t, int32_t> index;
  for (size_t i = 0; i < order.size(); ++i) {
    corpus.vocab.words.push_back(tokenizer.TokenSpelling(static_cast<TokenId>(order[i])));
    corpus.vocab.token_ids.push_back(order[i]);
    index.emplace(order[i], static_cast<int32_t>(i + 1));
  }
  corpus.ids.reserve(static_cast<size_t>(corpus.vocab.total()));
  for (int64_t id : stream) {
    if (id < 0) {
      corpus.ids.push_back(0);
    } else if (auto it = index.find(id); it != index.end()) {
      corpus.ids.push_back(it->second);
    }
  }
  return corpus;
}

}  // namespace tokvec::word2vec
