// EncodeIdText (the ids of `tokvec encode` written as text through the short-piece tables) must give exactly the
// formatted ids of EncodeIds with every cache off, however the tables fill, grow and replace their slots.
#include "tokenizer/id_text.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "base/file_io.h"
#include "tokenizer/tokenizer.h"

namespace tokvec {
namespace {

std::string ReadText(const std::filesystem::path& path) {
  absl::StatusOr<std::string> text = ReadFile(path.string());
  EXPECT_TRUE(text.ok()) << text.status();
  return text.value_or("");
}

// " id id ..." by the plain route: EncodeIds with the piece caches off, formatted with std::to_string.
std::string Expected(const Tokenizer& tokenizer, std::string_view text, const EncodeOptions& options = {}) {
  PieceCache::SetEnabledForTesting(false);
  std::vector<TokenId> ids;
  absl::Status status = tokenizer.EncodeIds(text, options, &ids);
  PieceCache::SetEnabledForTesting(true);
  EXPECT_TRUE(status.ok()) << status;
  std::string out;
  for (TokenId id : ids) out += " " + std::to_string(id);
  return out;
}

TEST(WriteSpaceAndIdTest, WritesEveryDigitCount) {
  for (uint32_t id : {0u, 7u, 9u, 10u, 99u, 100u, 999u, 1000u, 50256u, 100255u, 199998u, 1000000u, 99999999u,
                      100000000u, 4294967295u}) {
    char buffer[16];
    char* end = WriteSpaceAndId(buffer, id);
    EXPECT_EQ(std::string(buffer, end), " " + std::to_string(id));
  }
}

TEST(IdTextCacheTest, KeyNearTheEndEqualsKeyInside) {
  const std::string text = "abcdefghijklmnopqrstuvwxyz";
  for (size_t size = 1; size <= kMaxHotPieceBytes; ++size) {
    // The same bytes at offset 0 (whole words read) and at the end of a view (copied byte by byte).
    const std::string_view tail = std::string_view(text).substr(0, size);
    const IdTextCache::Key inside = IdTextCache::KeyOf(text, 0, size);
    const IdTextCache::Key at_end = IdTextCache::KeyOf(tail, 0, size);
    EXPECT_EQ(inside.lo, at_end.lo) << size;
    EXPECT_EQ(inside.hi, at_end.hi) << size;
    // Bytes past the piece do not count.
    const IdTextCache::Key other = IdTextCache::KeyOf("abcdefghijklmnop!!!!!!!!!!!!!!!!!", 0, size);
    EXPECT_EQ(inside.lo, other.lo) << size;
    EXPECT_EQ(inside.hi, other.hi) << size;
  }
}

// The long-piece table: what goes in comes out, through rehashes and a merge; bytes decide, not the hash; a
// piece past kMaxPieceBytes is not kept; Clear forgets.
TEST(LongIdTextTableTest, FindsWhatWasInsertedThroughRehashesAndMerges) {
  LongIdTextTable table, other;
  auto piece = [](int i) { return "piece number " + std::to_string(i) + " of the long table"; };
  auto text = [](int i) { return " " + std::to_string(i) + " " + std::to_string(i * 7); };
  for (int i = 0; i < 20000; ++i) {
    const std::string bytes = piece(i);
    (i % 2 == 0 ? table : other).Insert(PieceCache::Hash(bytes), bytes, text(i));
  }
  EXPECT_EQ(table.size(), 10000u);
  table.Insert(PieceCache::Hash(piece(0)), piece(0), " 999");  // already there: kept as it was
  EXPECT_EQ(table.size(), 10000u);
  for (int i = 0; i < 20000; i += 2) {
    const LongIdTextTable::Entry* entry = table.Find(PieceCache::Hash(piece(i)), piece(i));
    ASSERT_NE(entry, nullptr) << i;
    EXPECT_EQ(table.text(*entry), text(i));
    EXPECT_EQ(table.Find(PieceCache::Hash(piece(i + 1)), piece(i + 1)), nullptr) << i + 1;
  }
  // The same hash with other bytes of the same size is not a match.
  std::string changed = piece(4);
  changed[0] = 'P';
  EXPECT_EQ(table.Find(PieceCache::Hash(piece(4)), changed), nullptr);
  const std::string huge(LongIdTextTable::kMaxPieceBytes + 1, 'x');
  table.Insert(PieceCache::Hash(huge), huge, " 1");
  EXPECT_EQ(table.Find(PieceCache::Hash(huge), huge), nullptr);
  table.MergeFrom(other);
  EXPECT_EQ(table.size(), 20000u);
  for (int i = 0; i < 20000; ++i) {
    const LongIdTextTable::Entry* entry = table.Find(PieceCache::Hash(piece(i)), piece(i));
    ASSERT_NE(entry, nullptr) << i;
    EXPECT_EQ(table.text(*entry), text(i));
  }
  table.Clear();
  EXPECT_EQ(table.size(), 0u);
  EXPECT_EQ(table.Find(PieceCache::Hash(piece(2)), piece(2)), nullptr);
}

class IdTextTest : public ::testing::Test {
 protected:
  void SetUp() override {
    shared_ = TOKVEC_SHARED_DIR;
    if (!std::filesystem::exists(shared_ / "vocab" / "gpt2.tiktoken") ||
        !std::filesystem::is_directory(shared_ / "corpora")) {
      GTEST_SKIP() << "shared vocab/corpora not found under " << shared_;
    }
    for (const char* name : {"gpt2", "cl100k_base", "o200k_base"}) {
      absl::StatusOr<std::unique_ptr<Tokenizer>> t =
          Tokenizer::Load((shared_ / "vocab" / (std::string(name) + ".tiktoken")).string());
      ASSERT_TRUE(t.ok()) << t.status();
      tokenizers_.push_back(std::move(*t));
    }
  }
  void TearDown() override { PieceCache::SetEnabledForTesting(true); }

  std::filesystem::path shared_;
  std::vector<std::unique_ptr<Tokenizer>> tokenizers_;
};

// Every corpus file (English, Wikipedia, Japanese, a sample of the UDHR's languages) in 64 KB chunks through one
// pair of tables per tokenizer: the main table grows from 16,384 slots, pieces of a block replace front slots
// that later pieces of the same block looked up, and pieces come back in later chunks.
TEST_F(IdTextTest, EqualsEncodeIdsOnTheSharedCorpora) {
  std::string text;
  size_t udhr = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(shared_ / "corpora")) {
    if (!entry.is_regular_file() || entry.path().extension() != ".txt") continue;
    const bool is_udhr = entry.path().parent_path().filename() == "udhr";
    if (is_udhr && udhr++ % 8 != 0) continue;
    text += ReadText(entry.path()).substr(0, 400000);
  }
  // Pieces past LongIdTextTable::kMaxPieceBytes too (merged at each occurrence).
  text += "\xFF\xC3 ok " + std::string(300, 'a') + " aaaa 1234567 's 'LL \r\n\n  \t" + std::string(3000, 'b') + " " +
          std::string(3000, 'b');
  for (const auto& tokenizer : tokenizers_) {
    std::unique_ptr<IdTextCache> hot = tokenizer->NewIdTextCache();
    std::unique_ptr<PieceCache> local = tokenizer->NewPieceCache();
    std::string got, expected;
    IdTextBuffer out;
    constexpr size_t kChunk = 1 << 16;
    for (size_t at = 0; at < text.size();) {
      const size_t cut = tokenizer->FindCut(std::string_view(text).substr(at), kChunk, {});
      const size_t size = cut == 0 ? text.size() - at : cut;
      const std::string_view chunk = std::string_view(text).substr(at, size);
      out.Clear();
      const IdTextCaches caches{.local_pieces = local.get(), .local_text = hot.get()};
      ASSERT_TRUE(tokenizer->EncodeIdText(chunk, {}, at, caches, &out).ok());
      got += out.view();
      expected += Expected(*tokenizer, chunk);
      at += size;
    }
    EXPECT_GT(hot->size(), IdTextCache::kInitialSlots * 3 / 4) << "the main table never grew";
    EXPECT_GT(hot->long_texts().size(), size_t{1000}) << "few long pieces";
    ASSERT_EQ(got.size(), expected.size());
    EXPECT_TRUE(got == expected);
    // Warm: the same text again, all from the tables.
    out.Clear();
    const IdTextCaches caches{.local_pieces = local.get(), .local_text = hot.get()};
    ASSERT_TRUE(tokenizer->EncodeIdText(text.substr(0, 300000), {}, 0, caches, &out).ok());
    EXPECT_EQ(out.view(), Expected(*tokenizer, text.substr(0, 300000)));
  }
}

// Tables made for another tokenizer are not used (gpt2's and cl100k's ids differ for the same pieces), and a
// null table means the thread's own.
TEST_F(IdTextTest, IgnoresTablesOfAnotherTokenizer) {
  const std::string text = "The quick brown fox jumps over the lazy dog. Die Straße, 東京タワー, 12345.";
  std::unique_ptr<IdTextCache> gpt2_hot = tokenizers_[0]->NewIdTextCache();
  IdTextBuffer out;
  ASSERT_TRUE(tokenizers_[0]->EncodeIdText(text, {}, 0, {.local_text = gpt2_hot.get()}, &out).ok());
  EXPECT_EQ(out.view(), Expected(*tokenizers_[0], text));
  for (int round = 0; round < 2; ++round) {
    out.Clear();
    ASSERT_TRUE(tokenizers_[1]->EncodeIdText(text, {}, 0, {.local_text = gpt2_hot.get()}, &out).ok());
    EXPECT_EQ(out.view(), Expected(*tokenizers_[1], text));
    out.Clear();
    ASSERT_TRUE(tokenizers_[1]->EncodeIdText(text, {}, 0, {}, &out).ok());
    EXPECT_EQ(out.view(), Expected(*tokenizers_[1], text));
  }
}

// As `tokvec encode --threads 2` uses them: two workers learn into their own tables, which are folded into a
// shared one between batches; a worker then finds pieces in the shared table, its own, or neither.
TEST_F(IdTextTest, SharedTablesFoldedBetweenBatches) {
  const std::string text = ReadText(shared_ / "corpora" / "botchan.txt").substr(0, 120000) +
                           ReadText(shared_ / "corpora" / "wagahaiwa_nekodearu.txt").substr(0, 120000);
  const Tokenizer& tokenizer = *tokenizers_[2];
  std::unique_ptr<IdTextCache> shared_text = tokenizer.NewIdTextCache();
  std::unique_ptr<PieceCache> shared_pieces = tokenizer.NewPieceCache();
  std::unique_ptr<IdTextCache> texts[2] = {tokenizer.NewIdTextCache(), tokenizer.NewIdTextCache()};
  std::unique_ptr<PieceCache> pieces[2] = {tokenizer.NewPieceCache(), tokenizer.NewPieceCache()};
  std::string got;
  constexpr size_t kChunk = 20000;
  size_t chunk_number = 0;
  for (size_t at = 0; at < text.size(); ++chunk_number) {
    const size_t cut = tokenizer.FindCut(std::string_view(text).substr(at), kChunk, {});
    const size_t size = cut == 0 ? text.size() - at : cut;
    const size_t w = chunk_number % 2;
    IdTextBuffer out;
    ASSERT_TRUE(tokenizer
                    .EncodeIdText(std::string_view(text).substr(at, size), {}, at,
                                  {shared_pieces.get(), pieces[w].get(), shared_text.get(), texts[w].get()}, &out)
                    .ok());
    got += out.view();
    at += size;
    if (w == 1) {  // a batch of two chunks is done
      for (int i = 0; i < 2; ++i) {
        shared_text->MergeFrom(*texts[i]);
        texts[i]->ClearMain();
        shared_pieces->MergeFrom(*pieces[i]);
        pieces[i]->Clear();
      }
    }
  }
  EXPECT_GT(shared_text->size(), size_t{1000});
  EXPECT_GT(shared_text->long_texts().size(), size_t{100});
  EXPECT_EQ(got, Expected(tokenizer, text));
}

// Special tokens (allowed, or refused) take the general route with the same ids and errors as EncodeIds.
TEST_F(IdTextTest, SpecialTokensAsEncodeIds) {
  const std::string text = "hello <|endoftext|> world";
  EncodeOptions allow;
  allow.allow_all_special = true;
  IdTextBuffer out;
  ASSERT_TRUE(tokenizers_[1]->EncodeIdText(text, allow, 0, {}, &out).ok());
  EXPECT_EQ(out.view(), Expected(*tokenizers_[1], text, allow));
  EXPECT_NE(out.view().find(" 100257"), std::string_view::npos);
  EncodeOptions unknown;
  unknown.allowed_special = {"<|nope|>"};
  std::vector<TokenId> ids;
  const absl::Status expected = tokenizers_[1]->EncodeIds(text, unknown, &ids);
  const absl::Status got = tokenizers_[1]->EncodeIdText(text, unknown, 0, {}, &out);
  EXPECT_FALSE(got.ok());
  EXPECT_EQ(got, expected);
}

}  // namespace
}  // namespace tokvec
