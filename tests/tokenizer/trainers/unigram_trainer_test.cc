// Unigram training (tokenizer/trainers/unigram_trainer.h, unigram_lattice.h): the lattice's forward-backward and
// Viterbi against every segmentation enumerated by brute force, ψ against published values, the rules a trained
// vocabulary keeps (piece validity, required characters, special and byte tokens), thread independence, the file
// loading and encoding in tokvec, and errors. Hugging Face's ids on trained files are checked by
// `make conformance` (hf/trained-unigram/*); tokens per byte against spm_train by bench/unigram.sh.
#include "tokenizer/trainers/unigram_trainer.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "base/file_io.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tokenizer/text/utf8.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/trainers/unigram_lattice.h"

namespace tokvec {
namespace {

using ::testing::HasSubstr;

TEST(UnigramTrainerTest, DigammaMatchesPublishedValues) {
  EXPECT_NEAR(Digamma(1.0), -0.5772156649015329, 1e-12);  // −γ
  EXPECT_NEAR(Digamma(0.5), -1.9635100260214235, 1e-12);  // −γ − 2 ln 2
  EXPECT_NEAR(Digamma(10.0), 2.251752589066721, 1e-12);
  EXPECT_NEAR(Digamma(1e6), std::log(1e6) - 0.5e-6, 1e-12);
}

// Every segmentation of `word` as the lattice defines it: a piece wherever its spelling is, and an unk step over
// one character where no one-character piece is. Sums e^score into log Z, each edge's probability, and the best.
struct BruteForce {
  double log_z;
  std::map<std::tuple<size_t, size_t, int>, double> probs;  // (begin, end, id) -> P
  double best;
};

BruteForce Enumerate(const std::string& word, const std::vector<std::string>& pieces,
                     const std::vector<double>& scores, double unk) {
  std::vector<std::vector<std::tuple<size_t, size_t, int, double>>> paths;
  std::vector<std::tuple<size_t, size_t, int, double>> path;
  std::function<void(size_t)> walk = [&](size_t pos) {
    if (pos == word.size()) {
      paths.push_back(path);
      return;
    }
    size_t len = Utf8SequenceLength(word, pos);
    bool single = false;
    for (size_t id = 0; id < pieces.size(); ++id) {
      if (word.compare(pos, pieces[id].size(), pieces[id]) != 0) continue;
      if (pieces[id].size() == len) single = true;
      path.emplace_back(pos, pos + pieces[id].size(), static_cast<int>(id), scores[id]);
      walk(pos + pieces[id].size());
      path.pop_back();
    }
    if (!single) {
      path.emplace_back(pos, pos + len, UnigramLattice::kUnkEdge, unk);
      walk(pos + len);
      path.pop_back();
    }
  };
  walk(0);
  BruteForce out{0, {}, -INFINITY};
  double z = 0;
  for (const auto& p : paths) {
    double s = 0;
    for (const auto& step : p) s += std::get<3>(step);
    z += std::exp(s);
    out.best = std::max(out.best, s);
  }
  for (const auto& p : paths) {
    double s = 0;
    for (const auto& step : p) s += std::get<3>(step);
    for (const auto& [b, e, id, score] : p) out.probs[{b, e, id}] += std::exp(s) / z;
  }
  out.log_z = std::log(z);
  return out;
}

TEST(UnigramLatticeTest, MarginalsAndViterbiEqualTheBruteForceSums) {
  std::mt19937 rng(7);
  const std::vector<std::string> alphabet = {"a", "b", "é", "\xE2\x96\x81"};
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<std::string> pieces;
    std::vector<double> scores;
    const int n = 2 + static_cast<int>(rng() % 8);
    for (int i = 0; i < n; ++i) {
      std::string piece;
      for (int k = 0, len = 1 + static_cast<int>(rng() % 3); k < len; ++k) piece += alphabet[rng() % 4];
      if (std::find(pieces.begin(), pieces.end(), piece) != pieces.end()) continue;
      pieces.push_back(piece);
      scores.push_back(-0.5 - static_cast<double>(rng() % 1000) / 100.0);
    }
    std::string word = alphabet[3];
    for (int k = 0, len = 1 + static_cast<int>(rng() % 6); k < len; ++k) word += alphabet[rng() % 4];
    const BruteForce expected = Enumerate(word, pieces, scores, -15.0);

    UnigramLattice lattice;
    lattice.Build(word, PieceTrie(pieces));
    std::vector<double> probs;
    EXPECT_NEAR(lattice.Marginals(scores, -15.0, &probs), expected.log_z, 1e-9) << word;
    std::map<std::tuple<size_t, size_t, int>, double> got;
    for (size_t i = 0; i < lattice.edges().size(); ++i) {
      const UnigramLattice::Edge& e = lattice.edges()[i];
      got[{e.begin, e.end, e.id}] += probs[i];
    }
    for (const auto& [key, p] : expected.probs) EXPECT_NEAR(got[key], p, 1e-9) << word;
    for (const auto& [key, p] : got) EXPECT_NEAR(expected.probs.count(key) ? expected.probs.at(key) : 0, p, 1e-9);
    std::vector<int32_t> ids;
    EXPECT_NEAR(lattice.Viterbi(scores, -15.0, &ids), expected.best, 1e-9) << word;
    double sum = 0;
    for (int32_t id : ids) sum += id == UnigramLattice::kUnkEdge ? -15.0 : scores[id];
    EXPECT_NEAR(sum, expected.best, 1e-9) << "the ids are the best path";
  }
}

TEST(UnigramLatticeTest, SkipLeavesOutTheWholeWordEdge) {
  const std::vector<std::string> pieces = {"ab", "a", "b"};
  UnigramLattice lattice;
  lattice.Build("ab", PieceTrie(pieces), /*skip_id=*/0);
  std::vector<int32_t> ids;
  lattice.Viterbi({-1.0, -3.0, -3.0}, -20.0, &ids);
  EXPECT_EQ(ids, (std::vector<int32_t>{1, 2}));
}

// 450 kB of English and Japanese from ../shared/corpora (thousands of distinct words, so the E step and the
// pruning run as many tasks on several threads); empty when the corpora are absent.
std::string CorpusFile() {
  const std::string path = ::testing::TempDir() + "/unigram_corpus.txt";
  std::string text;
  for (const char* name : {"botchan.txt", "wikitext2-valid.txt", "wagahaiwa_nekodearu.txt"}) {
    absl::StatusOr<std::string> part = ReadFile(std::string(TOKVEC_SHARED_DIR) + "/corpora/" + name);
    if (!part.ok()) return "";
    text += part->substr(0, 150000);
  }
  EXPECT_TRUE(WriteFileAtomically(path, text).ok());
  return path;
}

#define TOKVEC_CORPUS_OR_SKIP(corpus)                                          \
  const std::string corpus = CorpusFile();                                     \
  if (corpus.empty()) GTEST_SKIP() << "../shared/corpora is absent (TOKVEC_SHARED_DIR)"

TEST(UnigramTrainerTest, WritesAUnigramFileThatEncodesAndKeepsThePieceRules) {
  TOKVEC_CORPUS_OR_SKIP(corpus);
  UnigramReport report;
  absl::StatusOr<std::string> json =
      TrainUnigram({corpus}, {.vocab_size = 2000, .max_piece_length = 8, .threads = 1}, &report);
  ASSERT_TRUE(json.ok()) << json.status();
  const nlohmann::json j = nlohmann::json::parse(*json);
  const nlohmann::json& vocab = j["model"]["vocab"];
  ASSERT_EQ(vocab.size(), 2000u);
  EXPECT_EQ(j["model"]["type"], "Unigram");
  EXPECT_EQ(j["model"]["unk_id"], 0);
  EXPECT_EQ(vocab[0][0], "<unk>");
  EXPECT_EQ(vocab[1][0], "<s>");
  EXPECT_EQ(vocab[2][0], "</s>");
  EXPECT_EQ(j["pre_tokenizer"]["type"], "Metaspace");
  EXPECT_GT(report.rounds, 1u);
  EXPECT_GT(report.seeds, 2000u);
  std::map<std::string, double> score;
  double previous = 0;
  for (size_t id = 3; id < vocab.size(); ++id) {
    const std::string piece = vocab[id][0];
    const double s = vocab[id][1];
    EXPECT_LE(s, previous) << "pieces in order of score";
    EXPECT_LT(s, 0.0);
    previous = s;
    EXPECT_TRUE(score.emplace(piece, s).second) << "twice: " << piece;
    size_t chars = 0, len = 0;
    for (size_t i = 0; i < piece.size(); i += len) {
      const char32_t c = DecodeUtf8OrReplacement(piece, i, &len);
      EXPECT_FALSE(c == U'\u2581' && i > 0) << piece;
      EXPECT_NE(c, U' ') << piece;
      ++chars;
    }
    EXPECT_LE(chars, 8u) << piece;
  }
  EXPECT_TRUE(score.count("\xE2\x96\x81the")) << "▁the";
  EXPECT_FALSE(score.count("e.")) << "letters and punctuation are different scripts";
  EXPECT_FALSE(score.count("\xE2\x96\x81" "the.")) << "▁the.";
  // Every character the corpus uses often is a piece.
  for (const char* c : {"a", "z", "Q", ".", "\xE3\x81\xAE" /* の */}) EXPECT_TRUE(score.count(c)) << c;

  const std::string path = ::testing::TempDir() + "/unigram.json";
  ASSERT_TRUE(WriteFileAtomically(path, *json).ok());
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Load(path);
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
  absl::StatusOr<Encoding> encoded = (*tokenizer)->Encode("The cat sat on the mat.");
  ASSERT_TRUE(encoded.ok()) << encoded.status();
  EXPECT_GE(encoded->ids.size(), 6u);
  EXPECT_EQ(std::count(encoded->ids.begin(), encoded->ids.end(), 0u), 0) << "no <unk> in plain English";
  absl::StatusOr<std::string> decoded = (*tokenizer)->Decode(encoded->ids, {});
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(*decoded, "The cat sat on the mat.");

  // Threads do not change a byte.
  absl::StatusOr<std::string> three = TrainUnigram({corpus}, {.vocab_size = 2000, .max_piece_length = 8, .threads = 3});
  ASSERT_TRUE(three.ok());
  EXPECT_EQ(*three, *json);
}

TEST(UnigramTrainerTest, ByteFallbackDigitsAndSpecialTokens) {
  TOKVEC_CORPUS_OR_SKIP(corpus);
  absl::StatusOr<std::string> json = TrainUnigram({corpus}, {.vocab_size = 1500,
                                                             .character_coverage = 0.98,
                                                             .byte_fallback = true,
                                                             .split_digits = true,
                                                             .extra_special_tokens = {"<mask>"},
                                                             .threads = 2});
  ASSERT_TRUE(json.ok()) << json.status();
  const nlohmann::json j = nlohmann::json::parse(*json);
  const nlohmann::json& vocab = j["model"]["vocab"];
  ASSERT_EQ(vocab.size(), 1500u);
  EXPECT_TRUE(j["model"]["byte_fallback"].get<bool>());
  EXPECT_EQ(vocab[3][0], "<mask>");
  EXPECT_EQ(vocab[4][0], "<0x00>");
  EXPECT_EQ(vocab[4 + 255][0], "<0xFF>");
  for (size_t id = 4 + 256; id < vocab.size(); ++id) {
    const std::string piece = vocab[id][0];
    if (piece.size() > 1) {
      EXPECT_EQ(piece.find_first_of("0123456789"), std::string::npos) << "a digit stays alone: " << piece;
    }
  }
  EXPECT_EQ(j["added_tokens"].size(), 4u);

  const std::string path = ::testing::TempDir() + "/unigram_bytes.json";
  ASSERT_TRUE(WriteFileAtomically(path, *json).ok());
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Load(path);
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
  // A character the corpus never has is its UTF-8 bytes, and decodes back.
  absl::StatusOr<Encoding> encoded = (*tokenizer)->Encode("snow \xE2\x98\x83 1984");
  ASSERT_TRUE(encoded.ok()) << encoded.status();
  EXPECT_EQ(std::count(encoded->ids.begin(), encoded->ids.end(), 0u), 0) << "bytes, not <unk>";
  absl::StatusOr<std::string> decoded = (*tokenizer)->Decode(encoded->ids, {});
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(*decoded, "snow \xE2\x98\x83 1984");
}

// A vocabulary large enough for every word keeps each frequent word whole; the EM drops what the words do not
// need.
TEST(UnigramTrainerTest, SmallCorpusLearnsItsWords) {
  const std::vector<WordCount> words = {{"\xE2\x96\x81lower", 50}, {"\xE2\x96\x81lowest", 40},
                                        {"\xE2\x96\x81newer", 30}, {"\xE2\x96\x81wider", 20},
                                        {"\xE2\x96\x81wider\n", 5}, {"\xE2\x96\x81low", 60}};
  UnigramReport report;
  absl::StatusOr<std::vector<UnigramPiece>> pieces = TrainUnigramPieces(words, 24, {}, &report);
  ASSERT_TRUE(pieces.ok()) << pieces.status();
  std::map<std::string, double> score;
  for (const UnigramPiece& p : *pieces) score[p.piece] = p.score;
  EXPECT_TRUE(score.count("\xE2\x96\x81low"));
  EXPECT_TRUE(score.count("er"));
  for (const char* c : {"l", "o", "w", "e", "r", "s", "t", "n", "i", "d", "\xE2\x96\x81"}) {
    EXPECT_TRUE(score.count(c)) << "required character " << c;
  }
  EXPECT_EQ(report.alphabet, 11u);
  EXPECT_LE(pieces->size(), 24u);
}

// Seeds are the substrings SentencePiece's suffix array over the running text finds: followed by two different
// things. A word always followed by another word (and starting no longer word) is not one; a word that also ends a
// line is, and so is a word's ending that comes before both.
TEST(UnigramTrainerTest, WholeWordsSeedOnlyWhenFollowedByDifferentThings) {
  const std::vector<WordCount> words = {{"\xE2\x96\x81" "ab", 10}, {"\xE2\x96\x81" "cd", 6},
                                        {"\xE2\x96\x81" "cd\n", 4}, {"\xE2\x96\x81" "xyz", 5},
                                        {"\xE2\x96\x81" "wyz\n", 5}};
  UnigramReport report;
  absl::StatusOr<std::vector<UnigramPiece>> pieces = TrainUnigramPieces(words, 30, {}, &report);
  ASSERT_TRUE(pieces.ok()) << pieces.status();
  EXPECT_EQ(report.words, 4u) << "a word and its line-end form are one word";
  std::set<std::string> got;
  for (const UnigramPiece& p : *pieces) got.insert(p.piece);
  EXPECT_FALSE(got.count("\xE2\x96\x81" "ab")) << "only ever before another word";
  EXPECT_TRUE(got.count("\xE2\x96\x81" "cd")) << "before a word and at a line's end";
  EXPECT_TRUE(got.count("yz")) << "ends a word before a word and a word at a line's end";
  EXPECT_FALSE(got.count("\xE2\x96\x81" "xyz"));
}

// From text: a word before an added token (a special token the text is cut at) is not at a line's end; glued to
// one it ends a third way. "foo" before "bar" and before " <mask>" is followed by `▁` both times: no seed; before
// "bar" and at a line's end, or before "bar" and glued to "<mask>", it is.
TEST(UnigramTrainerTest, WordsBeforeAddedTokensEndTheirOwnWay) {
  auto has_foo = [](const std::string& lines) {
    std::string text;
    for (int i = 0; i < 50; ++i) text += lines;
    const std::string path = ::testing::TempDir() + "/unigram_endings.txt";
    EXPECT_TRUE(WriteFileAtomically(path, text).ok());
    absl::StatusOr<std::string> json = TrainUnigram({path}, {.vocab_size = 40, .extra_special_tokens = {"<mask>"}});
    EXPECT_TRUE(json.ok()) << json.status();
    if (!json.ok()) return false;
    const nlohmann::json parsed = nlohmann::json::parse(*json);
    for (const auto& entry : parsed["model"]["vocab"]) {
      if (entry[0] == "\xE2\x96\x81" "foo") return true;
    }
    return false;
  };
  EXPECT_FALSE(has_foo("foo bar\nfoo <mask>\n"));
  EXPECT_TRUE(has_foo("foo bar\nfoo\n"));
  EXPECT_TRUE(has_foo("foo bar\nfoo<mask>\n"));
}

// User-defined symbols are added tokens after the special ones, not special: kept whole wherever they occur (inside
// a word too), never part of a piece, decoded as text. The words are counted with the text cut at them.
TEST(UnigramTrainerTest, UserDefinedSymbolsAreKeptWhole) {
  std::string text;
  const std::vector<std::string> words = {"alpha", "beta", "gamma", "delta", "alphabet", "gammas", "betamax"};
  for (int line = 0; line < 400; ++line) {
    text += words[line % words.size()] + " @-@ " + words[(line * 3 + 1) % words.size()] + "@-@" +
            words[(line * 5 + 2) % words.size()] + "\n";
  }
  const std::string corpus = ::testing::TempDir() + "/unigram_user_defined.txt";
  ASSERT_TRUE(WriteFileAtomically(corpus, text).ok());
  absl::StatusOr<std::string> json = TrainUnigram(
      {corpus}, {.vocab_size = 60, .extra_special_tokens = {"<mask>"}, .user_defined_symbols = {"@-@"}});
  ASSERT_TRUE(json.ok()) << json.status();
  const nlohmann::json j = nlohmann::json::parse(*json);
  ASSERT_EQ(j["added_tokens"].size(), 5u);
  EXPECT_EQ(j["added_tokens"][3]["content"], "<mask>");
  EXPECT_TRUE(j["added_tokens"][3]["special"].get<bool>());
  EXPECT_EQ(j["added_tokens"][4]["content"], "@-@");
  EXPECT_EQ(j["added_tokens"][4]["id"], 4);
  EXPECT_FALSE(j["added_tokens"][4]["special"].get<bool>());
  const nlohmann::json& vocab = j["model"]["vocab"];
  EXPECT_EQ(vocab[4][0], "@-@");
  for (size_t id = 5; id < vocab.size(); ++id) {
    const std::string piece = vocab[id][0];
    EXPECT_EQ(piece.find('@'), std::string::npos) << "no piece holds a cut symbol: " << piece;
  }
  const std::string path = ::testing::TempDir() + "/unigram_user_defined.json";
  ASSERT_TRUE(WriteFileAtomically(path, *json).ok());
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Load(path);
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
  absl::StatusOr<Encoding> encoded = (*tokenizer)->Encode("gamma@-@delta");
  ASSERT_TRUE(encoded.ok()) << encoded.status();
  EXPECT_EQ(std::count(encoded->ids.begin(), encoded->ids.end(), 4u), 1);
  absl::StatusOr<std::string> decoded = (*tokenizer)->Decode(encoded->ids, {});
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(*decoded, "gamma@-@ delta") << "the word after a symbol starts with ▁, as in Hugging Face";

  auto error = [&](UnigramTrainerOptions options) {
    absl::StatusOr<std::string> out = TrainUnigram({corpus}, options);
    return out.ok() ? std::string("ok") : std::string(out.status().message());
  };
  EXPECT_THAT(error({.user_defined_symbols = {"a b"}}), HasSubstr("holds white space"));
  EXPECT_THAT(error({.user_defined_symbols = {""}}), HasSubstr("user-defined symbol is empty"));
  EXPECT_THAT(error({.user_defined_symbols = {"</s>"}}), HasSubstr("given twice"));
  EXPECT_THAT(error({.user_defined_symbols = {"@", "@"}}), HasSubstr("given twice"));
  EXPECT_THAT(error({.user_defined_symbols = {"\xFF"}}), HasSubstr("not valid UTF-8"));
  EXPECT_THAT(error({.extra_special_tokens = {"\xFF"}}), HasSubstr("special token '\xFF' is not valid UTF-8"));
  EXPECT_THAT(error({.user_defined_symbols = {"\xE2\x96\x81x"}}), HasSubstr("holds '\xE2\x96\x81'"));
  EXPECT_THAT(error({.user_defined_symbols = {"\xE2\x80\xA6"}}),  // U+2026, "..." after NFKC
              HasSubstr("changes under the normalizer (NFKC) to '...'"));
  EXPECT_THAT(error({.byte_fallback = true, .user_defined_symbols = {"<0x41>"}}), HasSubstr("looks like a byte"));
}

// A reserved spelling (a special token) is never a piece, and a one-character special token is not a required
// character (Hugging Face matches it in text before the model).
TEST(UnigramTrainerTest, ReservedSpellingsAreNeverPieces) {
  const std::vector<WordCount> words = {{"\xE2\x96\x81" "a|b", 50}, {"\xE2\x96\x81" "ab", 40}, {"\xE2\x96\x81|", 30}};
  absl::StatusOr<std::vector<UnigramPiece>> pieces = TrainUnigramPieces(words, 20, {}, nullptr, {"|", "ab"});
  ASSERT_TRUE(pieces.ok()) << pieces.status();
  for (const UnigramPiece& p : *pieces) {
    EXPECT_EQ(p.piece.find('|'), std::string::npos) << p.piece;
    EXPECT_NE(p.piece, "ab");
  }
}

// What mpirun does: each share counted on its own, the counts summed by word (in any order), one training. The
// shares' counts add up to the whole's (a line's last word marked the same), and the file is TrainUnigram's.
TEST(UnigramTrainerTest, SharesCountedApartTrainTheSameFile) {
  TOKVEC_CORPUS_OR_SKIP(corpus);
  const UnigramTrainerOptions options{.vocab_size = 3000, .user_defined_symbols = {"--"}, .threads = 2};
  absl::StatusOr<std::vector<WordCount>> whole = CountUnigramWords({corpus}, options);
  ASSERT_TRUE(whole.ok()) << whole.status();
  std::map<std::string, uint64_t> expected, summed;
  for (const WordCount& w : *whole) expected[w.word] += w.count;
  std::vector<WordCount> gathered;
  for (uint64_t share = 0; share < 3; ++share) {
    absl::StatusOr<std::vector<WordCount>> part = CountUnigramWords({corpus}, options, share, 3);
    ASSERT_TRUE(part.ok()) << part.status();
    for (const WordCount& w : *part) summed[w.word] += w.count;
  }
  EXPECT_EQ(summed, expected);
  for (const auto& [word, count] : summed) gathered.push_back({word, count});
  std::shuffle(gathered.begin(), gathered.end(), std::mt19937(3));
  absl::StatusOr<std::string> spread = TrainUnigramOnWords(gathered, options);
  absl::StatusOr<std::string> single = TrainUnigram({corpus}, options);
  ASSERT_TRUE(spread.ok() && single.ok()) << spread.status() << single.status();
  EXPECT_EQ(*spread, *single);
}

TEST(UnigramTrainerTest, Errors) {
  TOKVEC_CORPUS_OR_SKIP(corpus);
  auto error = [](const std::vector<std::string>& paths, UnigramTrainerOptions options) {
    absl::StatusOr<std::string> json = TrainUnigram(paths, options);
    return json.ok() ? std::string("ok") : std::string(json.status().message());
  };
  EXPECT_THAT(error({corpus}, {.vocab_size = 50}), HasSubstr("characters; use a larger --vocab-size"));
  EXPECT_THAT(error({corpus}, {.vocab_size = 200, .byte_fallback = true}), HasSubstr("leaves no room"));
  EXPECT_THAT(error({corpus}, {.character_coverage = 0}), HasSubstr("character coverage must be in (0, 1]"));
  EXPECT_THAT(error({corpus}, {.shrinking_factor = 1}), HasSubstr("shrinking factor must be in (0, 1)"));
  EXPECT_THAT(error({corpus}, {.max_piece_length = 0}), HasSubstr("longest piece"));
  EXPECT_THAT(error({corpus}, {.extra_special_tokens = {"</s>"}}), HasSubstr("'</s>' is given twice"));
  EXPECT_THAT(error({corpus}, {.extra_special_tokens = {""}}), HasSubstr("a special token is empty"));
  EXPECT_THAT(error({corpus}, {.byte_fallback = true, .extra_special_tokens = {"<0x41>"}}),
              HasSubstr("looks like a byte token"));
  const std::string empty = ::testing::TempDir() + "/unigram_empty.txt";
  ASSERT_TRUE(WriteFileAtomically(empty, " \n\t\n").ok());
  EXPECT_THAT(error({empty}, {}), HasSubstr("no text to learn from"));
  const std::string bad = ::testing::TempDir() + "/unigram_bad.txt";
  ASSERT_TRUE(WriteFileAtomically(bad, "ok \xFF\xFE bad\n").ok());
  EXPECT_THAT(error({bad}, {}), HasSubstr("unigram_bad.txt"));
}

}  // namespace
}  // namespace tokvec
