// Cross-encoders and classifiers against PyTorch (tests/attention/testdata/hf_bert_cross, hf_distilbert_nli and
// hf_cross_reference.json, from scripts/gen_hf_checkpoints.py: BertForSequenceClassification with one label,
// DistilBertForSequenceClassification with three, their heads written from transformers' modeling files): the
// pairs' ids and type ids, the logits, and the scores CrossEncoder.predict gives.
#include "pipeline/cross_encoder.h"

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "base/file_io.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tokenizer/sequence_encoding.h"

namespace tokvec {
namespace {

using ::testing::HasSubstr;

const std::string kTestdata = std::string(TOKVEC_SOURCE_DIR) + "/tests/attention/testdata";

struct Reference {
  nlohmann::json json;
  std::vector<std::string> a, b;
};

Reference LoadReference() {
  Reference r;
  r.json = nlohmann::json::parse(*ReadFile(kTestdata + "/hf_cross_reference.json"));
  for (const auto& pair : r.json["pairs"]) {
    r.a.push_back(pair[0].get<std::string>());
    r.b.push_back(pair[1].get<std::string>());
  }
  return r;
}

std::vector<std::string_view> Views(const std::vector<std::string>& texts) {
  return std::vector<std::string_view>(texts.begin(), texts.end());
}

// max |logits - expected| over every pair and label; a shape mismatch is a test failure (and infinity).
double MaxLogitError(const std::vector<std::vector<float>>& logits, const nlohmann::json& expected) {
  EXPECT_EQ(logits.size(), expected.size());
  if (logits.size() != expected.size()) return INFINITY;
  double worst = 0.0;
  for (size_t i = 0; i < logits.size(); ++i) {
    EXPECT_EQ(logits[i].size(), expected[i].size());
    if (logits[i].size() != expected[i].size()) return INFINITY;
    for (size_t l = 0; l < expected[i].size(); ++l) {
      worst = std::max(worst, std::abs(logits[i][l] - expected[i][l].get<double>()));
    }
  }
  return worst;
}

void ExpectLogits(const std::string& dir, const std::string& key, int threads) {
  Reference r = LoadReference();
  absl::StatusOr<CrossEncoder> ranker = CrossEncoder::Load(kTestdata + "/" + dir);
  ASSERT_TRUE(ranker.ok()) << ranker.status();
  for (size_t i = 0; i < r.a.size(); ++i) {  // the pair layout: [CLS] a [SEP] b [SEP], types 0 then 1
    absl::StatusOr<EncodedTokens> pair =
        EncodePair(ranker->directory().tokenizer(), r.a[i], r.b[i], {.add_special_tokens = true});
    ASSERT_TRUE(pair.ok()) << pair.status();
    EXPECT_EQ(std::vector<uint32_t>(pair->ids.begin(), pair->ids.end()),
              r.json["ids"][i].get<std::vector<uint32_t>>());
    EXPECT_EQ(pair->type_ids, r.json["type_ids"][i].get<std::vector<uint32_t>>());
  }
  const std::vector<std::string_view> a = Views(r.a), b = Views(r.b);
  absl::StatusOr<std::vector<std::vector<float>>> logits = ranker->Logits(a, b, threads);
  ASSERT_TRUE(logits.ok()) << logits.status();
  const double worst = MaxLogitError(*logits, r.json[key]["logits"]);
  EXPECT_LE(worst, 1e-5);
  std::printf("[ measured ] %s, %d thread(s): max |tokvec - torch| logits %.3g\n", dir.c_str(), threads, worst);
}

TEST(CrossEncoderTest, BertCrossEncoderLogitsMatchTorch) {
  ExpectLogits("hf_bert_cross", "bert_cross", 1);
  ExpectLogits("hf_bert_cross", "bert_cross", 2);
}

// The same cross-encoder with only vocab.txt + tokenizer_config.json (as older checkpoints ship; hf_bert_bf16's
// files: the same vocabulary): pairs get BertTokenizerFast's [CLS] A [SEP] B [SEP] and the same logits.
TEST(CrossEncoderTest, VocabTxtOnlyCrossEncoderGetsThePairTemplate) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(::testing::TempDir()) / "cross_vocab_txt";
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const char* name : {"config.json", "model.safetensors"}) {
    fs::copy(kTestdata + "/hf_bert_cross/" + name, dir / name);
  }
  for (const char* name : {"vocab.txt", "tokenizer_config.json"}) {
    fs::copy(kTestdata + "/hf_bert_bf16/" + name, dir / name);
  }
  Reference r = LoadReference();
  absl::StatusOr<CrossEncoder> ranker = CrossEncoder::Load(dir.string());
  ASSERT_TRUE(ranker.ok()) << ranker.status();
  absl::StatusOr<std::vector<std::vector<float>>> logits = ranker->Logits(Views(r.a), Views(r.b), 1);
  ASSERT_TRUE(logits.ok()) << logits.status();
  for (size_t i = 0; i < r.a.size(); ++i) {
    EXPECT_NEAR((*logits)[i][0], r.json["bert_cross"]["logits"][i][0].get<double>(), 1e-5) << "pair " << i;
  }
  fs::remove_all(dir);
}

TEST(CrossEncoderTest, DistilBertClassifierLogitsMatchTorch) {
  ExpectLogits("hf_distilbert_nli", "distilbert_nli", 2);
  absl::StatusOr<CrossEncoder> classifier = CrossEncoder::Load(kTestdata + "/hf_distilbert_nli");
  ASSERT_TRUE(classifier.ok()) << classifier.status();
  EXPECT_EQ(classifier->head().labels(), LoadReference().json["distilbert_nli"]["labels"].get<std::vector<std::string>>());
  EXPECT_EQ(classifier->head().architecture(), "DistilBertForSequenceClassification");
}

// A one-label cross-encoder whose tokenizer.json lays pairs out as <s> A </s></s> B </s> (RobertaProcessing):
// ids and logits against <name>_reference.json within 1e-5; `architecture` is the head config.json names.
void ExpectPairTemplateCrossEncoderMatchesTorch(const std::string& name, const std::string& architecture) {
  const nlohmann::json r = nlohmann::json::parse(*ReadFile(kTestdata + "/" + name + "_reference.json"));
  absl::StatusOr<CrossEncoder> ranker = CrossEncoder::Load(kTestdata + "/" + name);
  ASSERT_TRUE(ranker.ok()) << ranker.status();
  EXPECT_EQ(ranker->head().architecture(), architecture);
  std::vector<std::string> a, b;
  for (const auto& pair : r["pairs"]) a.push_back(pair[0]), b.push_back(pair[1]);
  for (size_t i = 0; i < a.size(); ++i) {
    absl::StatusOr<EncodedTokens> pair =
        EncodePair(ranker->directory().tokenizer(), a[i], b[i], {.add_special_tokens = true});
    ASSERT_TRUE(pair.ok()) << pair.status();
    EXPECT_EQ(std::vector<uint32_t>(pair->ids.begin(), pair->ids.end()), r["ids"][i].get<std::vector<uint32_t>>());
  }
  absl::StatusOr<std::vector<std::vector<float>>> logits = ranker->Logits(Views(a), Views(b), 2);
  ASSERT_TRUE(logits.ok()) << logits.status();
  ASSERT_EQ(logits->size(), a.size());
  double worst = 0.0;
  for (size_t i = 0; i < logits->size(); ++i) {
    worst = std::max(worst, std::abs((*logits)[i][0] - r["logits"][i][0].get<double>()));
  }
  EXPECT_LE(worst, 1e-5);
  std::printf("[ measured ] %s: max |tokvec - torch| logits %.3g\n", name.c_str(), worst);
}

// RobertaForSequenceClassification (bge-reranker's head) with a tokenizer.json whose RobertaProcessing lays pairs
// out as <s> A </s></s> B </s>: hf_roberta_cross_reference.json.
TEST(CrossEncoderTest, RobertaCrossEncoderLogitsMatchTorch) {
  ExpectPairTemplateCrossEncoderMatchesTorch("hf_roberta_cross", "RobertaForSequenceClassification");
}

// MPNetForSequenceClassification ("mpnet." base names, RoBERTa's head) with MPNet's tokenizer.json:
// hf_mpnet_cross_reference.json. One pair is long enough for the logarithmic buckets.
TEST(CrossEncoderTest, MpnetCrossEncoderLogitsMatchTorch) {
  ExpectPairTemplateCrossEncoderMatchesTorch("hf_mpnet_cross", "MPNetForSequenceClassification");
}

// ModernBertForSequenceClassification (hf_modernbert_cross: classifier_pooling mean, one label;
// hf_modernbert_cross_cls: cls, two labels): [CLS] A [SEP] B [SEP] with every type id 0 (ModernBERT's
// TemplateProcessing; the model has no token types), head.norm(gelu(head.dense(pooled))) then classifier.
TEST(CrossEncoderTest, ModernBertClassifierLogitsMatchTorch) {
  const nlohmann::json r = nlohmann::json::parse(*ReadFile(kTestdata + "/hf_modernbert_cross_reference.json"));
  std::vector<std::string> a, b;
  for (const auto& pair : r["pairs"]) a.push_back(pair[0]), b.push_back(pair[1]);
  for (const char* name : {"hf_modernbert_cross", "hf_modernbert_cross_cls"}) {
    absl::StatusOr<CrossEncoder> ranker = CrossEncoder::Load(kTestdata + "/" + name);
    ASSERT_TRUE(ranker.ok()) << ranker.status();
    EXPECT_EQ(ranker->head().architecture(), "ModernBertForSequenceClassification");
    for (size_t i = 0; i < a.size(); ++i) {
      absl::StatusOr<EncodedTokens> pair =
          EncodePair(ranker->directory().tokenizer(), a[i], b[i], {.add_special_tokens = true});
      ASSERT_TRUE(pair.ok()) << pair.status();
      EXPECT_EQ(std::vector<uint32_t>(pair->ids.begin(), pair->ids.end()), r["ids"][i].get<std::vector<uint32_t>>());
      EXPECT_EQ(pair->type_ids, std::vector<uint32_t>(pair->ids.size(), 0));
    }
    for (int threads : {1, 2}) {
      absl::StatusOr<std::vector<std::vector<float>>> logits = ranker->Logits(Views(a), Views(b), threads);
      ASSERT_TRUE(logits.ok()) << logits.status();
      const double worst = MaxLogitError(*logits, r[name]["logits"]);
      EXPECT_LE(worst, 1e-5);
      std::printf("[ measured ] %s, %d thread(s): max |tokvec - torch| logits %.3g\n", name, threads, worst);
    }
  }
}

TEST(CrossEncoderTest, ModernBertUnknownClassifierPoolingIsAnError) {
  const std::string dir = ::testing::TempDir() + "/tokvec_modernbert_pooling_" + std::to_string(::getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::copy(kTestdata + "/hf_modernbert_cross", dir, std::filesystem::copy_options::recursive);
  nlohmann::json config = nlohmann::json::parse(*ReadFile(dir + "/config.json"));
  config["classifier_pooling"] = "max";
  ASSERT_TRUE(WriteFileAtomically(dir + "/config.json", config.dump()).ok());
  absl::StatusOr<CrossEncoder> ranker = CrossEncoder::Load(dir);
  ASSERT_FALSE(ranker.ok());
  EXPECT_THAT(std::string(ranker.status().message()), HasSubstr("'classifier_pooling' is \"max\""));
  std::filesystem::remove_all(dir);
}

// An MPNet directory with vocab.txt + tokenizer_config.json ("MPNetTokenizer") instead of tokenizer.json: texts get
// <s> ... </s> (the reference's ids) and pairs MPNetConverter's <s> A </s></s> B </s>, type ids 0 then 1.
TEST(CrossEncoderTest, VocabTxtMpnetDirectoryKeepsItsSpecialTokens) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(::testing::TempDir()) / "mpnet_vocab_txt";
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const char* name : {"config.json", "model.safetensors"}) {
    fs::copy(kTestdata + "/hf_mpnet_f32/" + name, dir / name);
  }
  const nlohmann::json tokenizer = nlohmann::json::parse(*ReadFile(kTestdata + "/hf_mpnet_f32/tokenizer.json"));
  std::vector<std::string> tokens(tokenizer["model"]["vocab"].size());
  for (const auto& [token, id] : tokenizer["model"]["vocab"].items()) tokens[id.get<size_t>()] = token;
  std::string vocab_txt;
  for (const std::string& token : tokens) vocab_txt += token + "\n";
  ASSERT_TRUE(WriteFileAtomically((dir / "vocab.txt").string(), vocab_txt).ok());
  const nlohmann::json config = {{"tokenizer_class", "MPNetTokenizer"}, {"do_lower_case", true},
                                 {"cls_token", "<s>"},  {"sep_token", "</s>"}, {"unk_token", "<unk>"},
                                 {"pad_token", "<pad>"}, {"mask_token", "<mask>"}};
  ASSERT_TRUE(WriteFileAtomically((dir / "tokenizer_config.json").string(), config.dump()).ok());
  absl::StatusOr<ModelDirectory> loaded = ModelDirectory::Load(dir.string());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const nlohmann::json reference = nlohmann::json::parse(*ReadFile(kTestdata + "/hf_mpnet_reference.json"));
  for (size_t i = 0; i < reference["texts"].size(); ++i) {
    absl::StatusOr<std::vector<uint32_t>> ids = loaded->Tokenize(reference["texts"][i].get<std::string>());
    ASSERT_TRUE(ids.ok()) << ids.status();
    EXPECT_EQ(*ids, reference["ids"][i].get<std::vector<uint32_t>>()) << "text " << i;
  }
  absl::StatusOr<EncodedTokens> pair = EncodePair(loaded->tokenizer(), "a cat", "the dog", {.add_special_tokens = true});
  ASSERT_TRUE(pair.ok()) << pair.status();
  absl::StatusOr<std::vector<uint32_t>> a = loaded->Tokenize("a cat"), b = loaded->Tokenize("the dog");
  ASSERT_TRUE(a.ok() && b.ok());
  std::vector<uint32_t> expected = *a;  // <s> a cat </s>
  expected.push_back(expected.back());  // </s>
  expected.insert(expected.end(), b->begin() + 1, b->end());  // the dog </s>
  EXPECT_EQ(std::vector<uint32_t>(pair->ids.begin(), pair->ids.end()), expected);
  std::vector<uint32_t> types(a->size() + 1, 0);
  types.resize(expected.size(), 1);
  EXPECT_EQ(pair->type_ids, types);
  fs::remove_all(dir);
}

// Head keys of the wrong type are errors naming the key (they threw before); null reads as the default.
TEST(CrossEncoderTest, ModernBertHeadKeysOfTheWrongTypeAreErrors) {
  const std::string dir = ::testing::TempDir() + "/tokvec_modernbert_keys_" + std::to_string(::getpid());
  const nlohmann::json original = nlohmann::json::parse(*ReadFile(kTestdata + "/hf_modernbert_cross/config.json"));
  for (const auto& [key, value, message] :
       std::vector<std::tuple<std::string, nlohmann::json, std::string>>{
           {"classifier_pooling", 1, "'classifier_pooling' must be \"cls\" or \"mean\", not 1"},
           {"norm_bias", "yes", "'norm_bias' must be true or false"},
           {"classifier_bias", 0, "'classifier_bias' must be true or false"},
           {"classifier_bias", nullptr, ""}}) {
    std::filesystem::remove_all(dir);
    std::filesystem::copy(kTestdata + "/hf_modernbert_cross", dir, std::filesystem::copy_options::recursive);
    nlohmann::json config = original;
    config[key] = value;
    ASSERT_TRUE(WriteFileAtomically(dir + "/config.json", config.dump()).ok());
    absl::StatusOr<CrossEncoder> ranker = CrossEncoder::Load(dir);
    if (message.empty()) {
      EXPECT_TRUE(ranker.ok()) << key << ": " << ranker.status();
    } else {
      ASSERT_FALSE(ranker.ok()) << key;
      EXPECT_THAT(std::string(ranker.status().message()), HasSubstr(message));
    }
  }
  std::filesystem::remove_all(dir);
}

// The type ids matter: the same pair with every type 0 gives another logit (BERT has two token types).
TEST(CrossEncoderTest, TypeIdsReachTheModel) {
  absl::StatusOr<CrossEncoder> ranker = CrossEncoder::Load(kTestdata + "/hf_bert_cross");
  ASSERT_TRUE(ranker.ok()) << ranker.status();
  Reference r = LoadReference();
  const std::vector<uint32_t> ids = r.json["ids"][1].get<std::vector<uint32_t>>();
  const std::vector<uint8_t> types(ids.size(), 0);
  const std::vector<uint8_t> wrong(ids.size(), 2);
  absl::StatusOr<ModelOutput> zeros = ranker->directory().model().Forward(ids, {.type_ids = types});
  ASSERT_TRUE(zeros.ok()) << zeros.status();
  const float zero_logit = ranker->head().Logits(zeros->hidden.view())[0];
  EXPECT_GT(std::abs(zero_logit - r.json["bert_cross"]["logits"][1][0].get<double>()), 1e-3);
  absl::StatusOr<ModelOutput> bad = ranker->directory().model().Forward(ids, {.type_ids = wrong});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("type id 2, but the model has 2 token types"));
}

TEST(CrossEncoderTest, ScoresAndRanking) {
  EXPECT_FLOAT_EQ(ScoresOf({0.0f}, false)[0], 0.5f);
  EXPECT_NEAR(ScoresOf({2.0f}, false)[0], 1.0 / (1.0 + std::exp(-2.0)), 1e-7);
  EXPECT_FLOAT_EQ(ScoresOf({2.0f}, true)[0], 2.0f);
  const std::vector<float> softmax = ScoresOf({1.0f, 2.0f, 3.0f}, false);
  const double sum = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
  EXPECT_NEAR(softmax[2], std::exp(3.0) / sum, 1e-7);
  EXPECT_NEAR(softmax[0] + softmax[1] + softmax[2], 1.0, 1e-6);
  const std::vector<RankedDocument> ranked = RankDocuments({{0.1f}, {2.0f}, {0.1f}, {-3.0f}}, false, 3);
  ASSERT_EQ(ranked.size(), 3u);
  EXPECT_EQ(ranked[0].index, 1u);
  EXPECT_EQ(ranked[1].index, 0u);  // ties keep input order
  EXPECT_EQ(ranked[2].index, 2u);
}

TEST(CrossEncoderTest, AModelWithoutAHeadIsRefusedByName) {
  absl::StatusOr<CrossEncoder> plain = CrossEncoder::Load(kTestdata + "/hf_bert_f32");
  ASSERT_FALSE(plain.ok());
  EXPECT_THAT(std::string(plain.status().message()),
              AllOf(HasSubstr("names no classification head"), HasSubstr("\"BertModel\""),
                    HasSubstr("BertForSequenceClassification")));
}

}  // namespace
}  // namespace tokvec
