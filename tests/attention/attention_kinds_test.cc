// Kinds of attention (docs/attention_kinds.md): parsing, the sparse patterns, and every kind against
//   - PyTorch goldens (tests/data/attention/kind_*.json: the defining formula in float64), max abs diff <= 1e-5;
//   - a dense reference built here (the pattern as a blocked mask for the dense softmax; the implied weights · V
//     for the kernel kinds) on lengths that span many tiles and chunks;
// and properties: window:W with W >= T is exact attention bit for bit, causal prefixes do not see later tokens,
// results do not depend on the thread count.
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "attention/attention_kind.h"
#include "attention/flash_attention.h"
#include "attention/kernel_attention.h"
#include "attention/kind_attention.h"
#include "attention/scaled_dot_product.h"
#include "attention/sparse_attention.h"
#include "attention/sparse_pattern.h"
#include "gtest/gtest.h"
#include "tests/golden.h"

namespace tokvec {
namespace {

Matrix Random(int64_t rows, int64_t cols, uint32_t seed, float scale = 1.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, scale);
  Matrix m(rows, cols);
  for (float& x : m.storage()) x = normal(rng);
  return m;
}

AttentionKind Kind(const std::string& text) {
  absl::StatusOr<AttentionKind> kind = ParseAttentionKind(text);
  EXPECT_TRUE(kind.ok()) << kind.status();
  return kind.ok() ? *kind : AttentionKind{};
}

TEST(AttentionKindTest, ParsesEveryFormAndPrintsItBack) {
  for (const char* text : {"full", "window:256", "longformer:128,2", "bigbird:64,3,2", "linformer:256",
                           "performer:128", "linear", "longformer:4,0", "bigbird:8,0,0"}) {
    absl::StatusOr<AttentionKind> kind = ParseAttentionKind(text);
    ASSERT_TRUE(kind.ok()) << text << ": " << kind.status();
    EXPECT_EQ(AttentionKindName(*kind), text);
  }
  const AttentionKind b = Kind("bigbird:64,3,2");
  EXPECT_EQ(b.block, 64);
  EXPECT_EQ(b.random_blocks, 3);
  EXPECT_EQ(b.globals, 2);
}

TEST(AttentionKindTest, RejectsMalformedKindsWithTheAcceptedForms) {
  for (const char* text : {"", "window", "window:", "window:0", "window:-3", "window:2,3", "longformer:4",
                           "bigbird:0,1,1", "linformer:0", "performer:x", "linear:3", "full:1", "sparse:4",
                           "window:99999999999", "window:1.5", "WINDOW:4"}) {
    absl::StatusOr<AttentionKind> kind = ParseAttentionKind(text);
    ASSERT_FALSE(kind.ok()) << "accepted '" << text << "'";
    EXPECT_EQ(kind.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(kind.status().message().find("expected one of"), std::string::npos) << kind.status();
  }
}

TEST(SparsePatternTest, WindowIntervals) {
  absl::StatusOr<SparsePattern> causal = SparsePattern::Make(Kind("window:64"), 4096, true, 0);
  ASSERT_TRUE(causal.ok());
  std::vector<KeyInterval> row;
  causal->RowIntervals(100, &row);
  ASSERT_EQ(row.size(), 1u);
  EXPECT_EQ(row[0].begin, 37);
  EXPECT_EQ(row[0].end, 101);
  causal->RowIntervals(3, &row);
  EXPECT_EQ(row[0].begin, 0);
  EXPECT_EQ(row[0].end, 4);
  absl::StatusOr<SparsePattern> bidir = SparsePattern::Make(Kind("window:6"), 10, false, 0);
  bidir->RowIntervals(8, &row);
  EXPECT_EQ(row[0].begin, 5);
  EXPECT_EQ(row[0].end, 10);
  EXPECT_FALSE(SparsePattern::Make(Kind("linear"), 10, false, 0).ok());
}

TEST(SparsePatternTest, BigBirdRandomBlocksAreSeededDistinctAndAvoidNeighboursAndGlobals) {
  const int64_t n_blocks = 40, r = 3, g = 2;
  for (int64_t a = g; a < n_blocks; ++a) {
    const std::vector<int64_t> blocks = BigBirdRandomBlocks(a, n_blocks, r, g, false, 11);
    EXPECT_EQ(blocks, BigBirdRandomBlocks(a, n_blocks, r, g, false, 11));
    ASSERT_EQ(blocks.size(), 3u);
    for (size_t i = 0; i < blocks.size(); ++i) {
      EXPECT_GE(blocks[i], g);
      EXPECT_TRUE(blocks[i] < a - 1 || blocks[i] > a + 1) << "neighbour " << blocks[i] << " of " << a;
      if (i > 0) EXPECT_LT(blocks[i - 1], blocks[i]);
    }
    for (int64_t b : BigBirdRandomBlocks(a, n_blocks, r, g, true, 11)) EXPECT_LT(b, a - 1);
  }
  int differ = 0;
  for (int64_t a = g; a < n_blocks; ++a) {
    differ += BigBirdRandomBlocks(a, n_blocks, r, g, false, 11) != BigBirdRandomBlocks(a, n_blocks, r, g, false, 12);
  }
  EXPECT_GT(differ, 20);
}

// The golden cases: each kind's output and head 0's weights against the float64 torch formula.
class KindGoldenTest : public ::testing::TestWithParam<std::string> {};

TEST_P(KindGoldenTest, MatchesTorch) {
  const Golden g = Golden::Load(GetParam());
  const AttentionKind kind = Kind(g.config.at("kind").get<std::string>());
  const int64_t t = g.config.at("seq_len").get<int64_t>();
  AttentionKindWeights w{.kind = kind, .seed = g.config.value("seed", uint64_t{0})};
  Matrix features;
  if (g.Has("E")) {
    w.linformer_e = g.View("E");
    w.linformer_f = g.View("F");
  }
  if (g.Has("W")) w.performer_features = std::make_shared<Matrix>(ToMatrix(g.View("W")));
  KindAttentionOptions options{.n_heads = g.config.at("n_heads").get<int64_t>(),
                               .causal = g.config.at("causal").get<bool>(),
                               .threads = 2,
                               .scale = g.config.at("scale").get<float>()};
  if (g.Has("key_padding")) options.key_padding = g.Mask("key_padding", 0, t);
  if (g.Has("blocked") && kind.sparse()) {  // the pattern itself (causal cut + padding included in the golden)
    absl::StatusOr<SparsePattern> pattern = SparsePattern::Make(kind, t, options.causal, w.seed);
    ASSERT_TRUE(pattern.ok());
    std::vector<uint8_t> mine = pattern->BlockedMask();
    for (int64_t j = 0; j < t && !options.key_padding.empty(); ++j) {
      if (options.key_padding[static_cast<size_t>(j)] == 0) continue;
      for (int64_t i = 0; i < t; ++i) mine[static_cast<size_t>(i * t + j)] = 1;
    }
    EXPECT_EQ(mine, g.Mask("blocked", 0, t * t)) << GetParam() << ": pattern differs";
  }
  // Fast path (tiled / chunked), then the path that also returns weights.
  absl::StatusOr<Matrix> out = AttentionOfKind(g.View("q"), g.View("k"), g.View("v"), w, options);
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectClose(GetParam() + " output", out->view(), g.View("output"), 1e-5);
  options.keep_weights = true;
  std::vector<Matrix> weights;
  absl::StatusOr<Matrix> out2 = AttentionOfKind(g.View("q"), g.View("k"), g.View("v"), w, options, &weights);
  ASSERT_TRUE(out2.ok()) << out2.status();
  ExpectClose(GetParam() + " output (weights path)", out2->view(), g.View("output"), 1e-5);
  ExpectClose(GetParam() + " weights of head 0", weights[0].view(), g.View("weights_head0"), 1e-5);
  if (g.Has("full_output")) ExpectClose(GetParam() + " = full attention", out->view(), g.View("full_output"), 1e-5);
}

INSTANTIATE_TEST_SUITE_P(Kinds, KindGoldenTest,
                         ::testing::Values("kind_window_causal", "kind_window_bidir", "kind_window_wide",
                                           "kind_longformer_causal", "kind_longformer_bidir", "kind_bigbird_bidir",
                                           "kind_bigbird_causal", "kind_linformer", "kind_performer_bidir",
                                           "kind_performer_causal", "kind_linear_bidir", "kind_linear_causal"));

// Long sequences (many query blocks, key tiles and kernel chunks) against the dense reference built here.
struct LongCase {
  std::string kind;
  bool causal;
  bool padded;
};

class KindLongTest : public ::testing::TestWithParam<LongCase> {};

TEST_P(KindLongTest, EqualsTheDenseReference) {
  const LongCase c = GetParam();
  const int64_t t = 1100, heads = 2, dh = 64;
  const Matrix q = Random(t, heads * dh, 1, 0.5f), k = Random(t, heads * dh, 2, 0.5f), v = Random(t, heads * dh, 3);
  AttentionKindWeights w{.kind = Kind(c.kind), .seed = 5};
  Matrix e, f;
  if (w.kind.type == AttentionKindType::kLinformer) {
    e = Random(w.kind.rank, t, 4, 0.05f);
    f = Random(w.kind.rank, t, 5, 0.05f);
    w.linformer_e = e.view();
    w.linformer_f = f.view();
  }
  if (w.kind.type == AttentionKindType::kPerformer) {
    absl::StatusOr<Matrix> features = PerformerFeatures(w.kind.features, dh, 9);
    ASSERT_TRUE(features.ok());
    w.performer_features = std::make_shared<Matrix>(std::move(*features));
  }
  KindAttentionOptions options{.n_heads = heads, .causal = c.causal, .threads = 1};
  if (c.padded) {
    options.key_padding.assign(static_cast<size_t>(t), 0);
    for (int64_t j = 1000; j < t; ++j) options.key_padding[static_cast<size_t>(j)] = 1;
    options.key_padding[40] = 1;
  }
  absl::StatusOr<Matrix> fast = AttentionOfKind(q.view(), k.view(), v.view(), w, options);
  ASSERT_TRUE(fast.ok()) << fast.status();
  // Reference: head weights (dense) · V.
  options.keep_weights = true;
  std::vector<Matrix> weights;
  ASSERT_TRUE(AttentionOfKind(q.view(), k.view(), v.view(), w, options, &weights).ok());
  Matrix expected(t, heads * dh);
  for (int64_t h = 0; h < heads; ++h) {
    for (int64_t i = 0; i < t; ++i) {
      double row_sum = 0.0;
      for (int64_t j = 0; j < t; ++j) row_sum += weights[h].at(i, j);
      if (!w.kind.kernel() && w.kind.type != AttentionKindType::kLinformer) {
        EXPECT_TRUE(std::fabs(row_sum - 1.0) < 1e-4 || row_sum == 0.0) << "row " << i << " sums to " << row_sum;
      }
      for (int64_t d = 0; d < dh; ++d) {
        double acc = 0.0;
        for (int64_t j = 0; j < t; ++j) acc += static_cast<double>(weights[h].at(i, j)) * v.at(j, h * dh + d);
        expected.row(i)[h * dh + d] = static_cast<float>(acc);
      }
    }
  }
  const double diff = MaxAbsDiff(fast->storage(), expected.storage());
  std::printf("[ dense    ] %-24s causal=%d padded=%d max abs diff %.3g\n", c.kind.c_str(), c.causal, c.padded, diff);
  EXPECT_LE(diff, 1e-5);
  // Independent of the thread count, bit for bit.
  options.keep_weights = false;
  options.threads = 3;
  absl::StatusOr<Matrix> threaded = AttentionOfKind(q.view(), k.view(), v.view(), w, options);
  ASSERT_TRUE(threaded.ok());
  EXPECT_EQ(threaded->storage(), fast->storage());
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, KindLongTest,
    ::testing::Values(LongCase{"window:100", true, false}, LongCase{"window:100", false, true},
                      LongCase{"window:600", true, true}, LongCase{"longformer:64,3", true, false},
                      LongCase{"longformer:64,3", false, true}, LongCase{"bigbird:32,2,1", false, false},
                      LongCase{"bigbird:64,3,2", true, true}, LongCase{"bigbird:200,1,1", false, true},
                      LongCase{"linformer:48", false, true}, LongCase{"performer:96", false, true},
                      LongCase{"performer:96", true, false}, LongCase{"linear", false, true},
                      LongCase{"linear", true, true}),
    [](const ::testing::TestParamInfo<LongCase>& info) {
      std::string name = info.param.kind + (info.param.causal ? "_causal" : "_bidir") +
                         (info.param.padded ? "_padded" : "");
      for (char& ch : name) {
        if (ch == ':' || ch == ',') ch = '_';
      }
      return name;
    });

TEST(KindPropertyTest, WideWindowIsExactAttentionBitForBit) {
  const int64_t t = 700, dh = 64;
  const Matrix q = Random(t, dh, 11), k = Random(t, dh, 12), v = Random(t, dh, 13);
  for (bool causal : {true, false}) {
    absl::StatusOr<SparsePattern> pattern = SparsePattern::Make(Kind("window:2000"), t, causal, 0);
    ASSERT_TRUE(pattern.ok());
    Matrix sparse(t, dh), flash(t, dh);
    FlashScratch s1, s2;
    SparseAttendHead(*pattern, {q.data(), t, dh, dh}, {k.data(), t, dh, dh}, {v.data(), t, dh, dh}, {}, 0.125f, &s1,
                     sparse.data(), dh);
    FlashAttendHead({q.data(), t, dh, dh}, {k.data(), t, dh, dh}, {v.data(), t, dh, dh}, causal, 0.125f, &s2,
                    flash.data(), dh);
    EXPECT_EQ(sparse.storage(), flash.storage()) << "causal=" << causal;
  }
}

TEST(KindPropertyTest, CausalKindsDoNotSeeLaterTokens) {
  const int64_t t = 300, heads = 2, dh = 32, prefix = 170;
  const Matrix q = Random(t, heads * dh, 21), k = Random(t, heads * dh, 22), v = Random(t, heads * dh, 23);
  for (const char* text : {"window:40", "longformer:20,2", "bigbird:16,2,1", "performer:64", "linear"}) {
    AttentionKindWeights w{.kind = Kind(text), .seed = 3};
    if (w.kind.type == AttentionKindType::kPerformer) {
      w.performer_features = std::make_shared<Matrix>(*PerformerFeatures(64, dh, 1));
    }
    const KindAttentionOptions options{.n_heads = heads, .causal = true};
    absl::StatusOr<Matrix> whole = AttentionOfKind(q.view(), k.view(), v.view(), w, options);
    const MatrixView qp{q.data(), prefix, heads * dh}, kp{k.data(), prefix, heads * dh}, vp{v.data(), prefix, heads * dh};
    absl::StatusOr<Matrix> part = AttentionOfKind(qp, kp, vp, w, options);
    ASSERT_TRUE(whole.ok() && part.ok());
    double diff = 0.0;
    for (int64_t i = 0; i < prefix * heads * dh; ++i) {
      diff = std::max(diff, std::fabs(static_cast<double>(whole->data()[i]) - part->data()[i]));
    }
    // (BigBird's causal random blocks are drawn from the blocks before a query's own, so they do not depend on
    // the sequence's length either.)
    EXPECT_LE(diff, 1e-5) << text;
  }
}

TEST(KindPropertyTest, PerformerFeaturesAreOrthogonalBlocksWithChiNorms) {
  absl::StatusOr<Matrix> w = PerformerFeatures(40, 16, 7);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->rows(), 40);
  EXPECT_EQ(w->cols(), 16);
  for (int64_t a = 0; a < 16; ++a) {
    for (int64_t b = a + 1; b < 16; ++b) {
      double dot = 0.0;
      for (int64_t c = 0; c < 16; ++c) dot += static_cast<double>(w->at(a, c)) * w->at(b, c);
      EXPECT_NEAR(dot, 0.0, 1e-4) << a << "," << b;
    }
  }
  double mean_norm2 = 0.0;
  for (int64_t r = 0; r < 40; ++r) {
    for (int64_t c = 0; c < 16; ++c) mean_norm2 += static_cast<double>(w->at(r, c)) * w->at(r, c) / 40.0;
  }
  EXPECT_NEAR(mean_norm2, 16.0, 6.0);  // E|g|² = Dh for a Gaussian vector
  EXPECT_EQ(PerformerFeatures(40, 16, 7)->storage(), w->storage());
  EXPECT_NE(PerformerFeatures(40, 16, 8)->storage(), w->storage());
  EXPECT_FALSE(PerformerFeatures(0, 16, 1).ok());
}

TEST(KindPropertyTest, LinformerRefusesCausalAndLongInputs) {
  const Matrix e = Random(4, 16, 1), x = Random(20, 8, 2);
  AttentionKindWeights w{.kind = Kind("linformer:4"), .linformer_e = e.view(), .linformer_f = e.view()};
  absl::StatusOr<Matrix> causal = AttentionOfKind(x.view(), x.view(), x.view(), w, {.n_heads = 2, .causal = true});
  ASSERT_FALSE(causal.ok());
  EXPECT_NE(causal.status().message().find("bidirectional"), std::string::npos) << causal.status();
  absl::StatusOr<Matrix> long_input = AttentionOfKind(x.view(), x.view(), x.view(), w, {.n_heads = 2});
  ASSERT_FALSE(long_input.ok());
  EXPECT_EQ(long_input.status().code(), absl::StatusCode::kOutOfRange) << long_input.status();
}

}  // namespace
}  // namespace tokvec
