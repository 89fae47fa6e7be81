#include "models/model_config.h"

#include <string>
#include <tuple>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace tokvec {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

// GPT-2 small's published config.json (huggingface.co/gpt2), abridged to the keys tokvec reads plus two it ignores.
constexpr char kGpt2Small[] = R"({"activation_function": "gelu_new", "model_type": "gpt2", "n_ctx": 1024,
  "n_embd": 768, "n_head": 12, "n_layer": 12, "n_positions": 1024, "vocab_size": 50257,
  "layer_norm_epsilon": 1e-05, "resid_pdrop": 0.1})";

// roberta-base's published config.json, abridged likewise.
constexpr char kRobertaBase[] = R"({"model_type": "roberta", "hidden_act": "gelu", "hidden_size": 768,
  "num_attention_heads": 12, "num_hidden_layers": 12, "intermediate_size": 3072, "max_position_embeddings": 514,
  "vocab_size": 50265, "type_vocab_size": 1, "pad_token_id": 1, "bos_token_id": 0, "eos_token_id": 2,
  "layer_norm_eps": 1e-05, "position_embedding_type": "absolute"})";

TEST(ModelConfigTest, Gpt2Small) {
  absl::StatusOr<ModelConfig> c = ParseModelConfig(kGpt2Small, "gpt2/config.json");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->arch, Architecture::kGpt2);
  EXPECT_EQ(c->d_model, 768);
  EXPECT_EQ(c->n_heads, 12);
  EXPECT_EQ(c->head_dim(), 64);
  EXPECT_EQ(c->n_layers, 12);
  EXPECT_EQ(c->d_ff, 3072);  // n_inner absent: 4 * n_embd
  EXPECT_EQ(c->max_len, 1024);
  EXPECT_EQ(c->vocab_size, 50257);
  EXPECT_DOUBLE_EQ(c->layer_norm_eps, 1e-5);
  EXPECT_EQ(c->activation, Activation::kGeluTanh);
}

TEST(ModelConfigTest, RobertaBaseLeaves512Positions) {
  absl::StatusOr<ModelConfig> c = ParseModelConfig(kRobertaBase, "roberta/config.json");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->arch, Architecture::kRoberta);
  EXPECT_EQ(c->max_position_rows, 514);
  EXPECT_EQ(c->max_len, 512);  // positions 2..513
  EXPECT_EQ(c->activation, Activation::kGeluExact);
  EXPECT_EQ(c->bos_token_id, 0);
  EXPECT_EQ(c->eos_token_id, 2);
}

// sentence-transformers/all-MiniLM-L6-v2's published config.json (a BertModel), abridged likewise.
constexpr char kMiniLm[] = R"({"architectures": ["BertModel"], "model_type": "bert", "hidden_act": "gelu",
  "hidden_size": 384, "num_attention_heads": 12, "num_hidden_layers": 6, "intermediate_size": 1536,
  "max_position_embeddings": 512, "vocab_size": 30522, "type_vocab_size": 2, "pad_token_id": 0,
  "layer_norm_eps": 1e-12, "position_embedding_type": "absolute", "gradient_checkpointing": false})";

TEST(ModelConfigTest, MiniLmIsBertWithPositionsFromZero) {
  absl::StatusOr<ModelConfig> c = ParseModelConfig(kMiniLm, "minilm/config.json");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->arch, Architecture::kBert);
  EXPECT_EQ(ArchitectureName(c->arch), "bert");
  EXPECT_EQ(c->d_model, 384);
  EXPECT_EQ(c->head_dim(), 32);
  EXPECT_EQ(c->n_layers, 6);
  EXPECT_EQ(c->d_ff, 1536);
  EXPECT_EQ(c->max_position_rows, 512);
  EXPECT_EQ(c->max_len, 512);  // positions 0..511: no RoBERTa offset
  EXPECT_EQ(c->type_vocab_size, 2);
  EXPECT_DOUBLE_EQ(c->layer_norm_eps, 1e-12);
  EXPECT_EQ(c->activation, Activation::kGeluExact);
  EXPECT_FALSE(c->causal());
}

TEST(ModelConfigTest, BertKeysAreChecked) {
  for (const char* key : {"hidden_size", "num_attention_heads", "num_hidden_layers", "intermediate_size",
                          "max_position_embeddings", "vocab_size", "type_vocab_size", "layer_norm_eps", "hidden_act"}) {
    nlohmann::json j = nlohmann::json::parse(kMiniLm);
    j.erase(key);
    absl::StatusOr<ModelConfig> c = ParseModelConfig(j.dump(), "b/config.json");
    ASSERT_FALSE(c.ok()) << key;
    EXPECT_THAT(std::string(c.status().message()),
                AllOf(HasSubstr("b/config.json"), HasSubstr(std::string("'") + key + "'"), HasSubstr("missing")));
  }
  nlohmann::json j = nlohmann::json::parse(kMiniLm);
  j.erase("pad_token_id");  // optional for BERT
  EXPECT_TRUE(ParseModelConfig(j.dump(), "b/config.json").ok());
  for (const char* relative : {"relative_key", "relative_key_query"}) {
    j["position_embedding_type"] = relative;
    absl::StatusOr<ModelConfig> c = ParseModelConfig(j.dump(), "b/config.json");
    ASSERT_FALSE(c.ok());
    EXPECT_THAT(std::string(c.status().message()),
                AllOf(HasSubstr("'position_embedding_type'"), HasSubstr(relative), HasSubstr("only \"absolute\"")));
  }
  j = nlohmann::json::parse(kMiniLm);
  j["pad_token_id"] = 30522;
  EXPECT_THAT(std::string(ParseModelConfig(j.dump(), "b/config.json").status().message()),
              HasSubstr("outside the vocabulary"));
  j = nlohmann::json::parse(kMiniLm);
  j["hidden_size"] = 380;
  EXPECT_THAT(std::string(ParseModelConfig(j.dump(), "b/config.json").status().message()),
              HasSubstr("not divisible by 12 heads"));
  j = nlohmann::json::parse(kMiniLm);
  j["hidden_act"] = "swish";
  EXPECT_THAT(std::string(ParseModelConfig(j.dump(), "b/config.json").status().message()),
              AllOf(HasSubstr("'hidden_act'"), HasSubstr("swish")));
}

// A small tokvec config of `arch`.
ModelConfig SmallConfig(Architecture arch) {
  ModelConfig c;
  c.arch = arch;
  c.vocab_size = 300;
  c.d_model = 64;
  c.n_heads = 4;
  c.n_layers = 2;
  c.d_ff = 128;
  c.max_len = 77;
  return c;
}

TEST(ModelConfigTest, TokvecConfigRoundTrips) {
  ModelConfig c = SmallConfig(Architecture::kEncoder);
  c.activation = Activation::kRelu;
  absl::StatusOr<ModelConfig> back = ParseModelConfig(ModelConfigToJson(c), "x");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->arch, Architecture::kEncoder);
  EXPECT_EQ(back->d_ff, 128);
  EXPECT_EQ(back->max_len, 77);
  EXPECT_EQ(back->activation, Activation::kRelu);
}

TEST(ModelConfigTest, RotaryPositionsRoundTripAndAreChecked) {
  ModelConfig c = SmallConfig(Architecture::kGpt2);
  c.rotary = RotaryOptions{.base = 500000.0f, .pairing = RotaryPairing::kHalves};
  absl::StatusOr<ModelConfig> back = ParseModelConfig(ModelConfigToJson(c), "x");
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_TRUE(back->rotary.has_value());
  EXPECT_EQ(back->rotary->base, 500000.0f);
  EXPECT_EQ(back->rotary->pairing, RotaryPairing::kHalves);
  // Without the key, "absolute", and the default base.
  auto j = nlohmann::json::parse(kGpt2Small);
  EXPECT_FALSE(ParseModelConfig(j.dump(), "x")->rotary.has_value());
  j["position_embedding_type"] = "absolute";
  EXPECT_FALSE(ParseModelConfig(j.dump(), "x")->rotary.has_value());
  j["position_embedding_type"] = "rotary";
  EXPECT_EQ(ParseModelConfig(j.dump(), "x")->rotary->base, 10000.0f);
  for (auto [key, value, message] : {std::tuple<const char*, nlohmann::json, const char*>{
                                         "position_embedding_type", "alibi", "supported: \"absolute\""},
                                     {"position_embedding_type", 3, "supported"},
                                     {"rope_theta", 0.5, "must be in (1, 1e30)"},
                                     {"rope_theta", "big", "positive number"},
                                     {"n_head", 7, "not divisible"}}) {
    auto bad = j;
    bad[key] = value;
    absl::StatusOr<ModelConfig> parsed = ParseModelConfig(bad.dump(), "x");
    EXPECT_FALSE(parsed.ok()) << key << " = " << value.dump();
    EXPECT_THAT(std::string(parsed.status().message()), HasSubstr(message)) << key;
  }
  // An odd head_dim cannot be rotated in pairs.
  auto odd = j;
  odd["n_embd"] = 30;
  odd["n_head"] = 6;  // head_dim 5
  EXPECT_THAT(std::string(ParseModelConfig(odd.dump(), "x").status().message()), HasSubstr("even head_dim"));
}

TEST(ModelConfigTest, EveryMissingKeyIsNamed) {
  for (const char* key : {"n_embd", "n_head", "n_layer", "n_positions", "vocab_size", "layer_norm_epsilon"}) {
    nlohmann::json j = nlohmann::json::parse(kGpt2Small);
    j.erase(key);
    absl::StatusOr<ModelConfig> c = ParseModelConfig(j.dump(), "dir/config.json");
    ASSERT_FALSE(c.ok()) << key;
    EXPECT_THAT(std::string(c.status().message()),
                AllOf(HasSubstr("dir/config.json"), HasSubstr(std::string("'") + key + "'"), HasSubstr("missing")));
  }
  for (const char* key : {"hidden_size", "num_attention_heads", "num_hidden_layers", "intermediate_size",
                          "max_position_embeddings", "vocab_size", "type_vocab_size", "pad_token_id", "bos_token_id",
                          "eos_token_id", "layer_norm_eps", "hidden_act"}) {
    nlohmann::json j = nlohmann::json::parse(kRobertaBase);
    j.erase(key);
    absl::StatusOr<ModelConfig> c = ParseModelConfig(j.dump(), "r/config.json");
    ASSERT_FALSE(c.ok()) << key;
    EXPECT_THAT(std::string(c.status().message()),
                AllOf(HasSubstr("r/config.json"), HasSubstr(std::string("'") + key + "'")));
  }
}

// ModernBERT-base's config.json keys (ModernBertConfig).
constexpr char kModernBertBase[] = R"({"architectures": ["ModernBertForMaskedLM"], "attention_bias": false,
  "attention_dropout": 0.0, "bos_token_id": 50281, "classifier_activation": "gelu", "classifier_bias": false,
  "classifier_dropout": 0.0, "classifier_pooling": "mean", "cls_token_id": 50281, "decoder_bias": true,
  "deterministic_flash_attn": false, "embedding_dropout": 0.0, "eos_token_id": 50282, "global_attn_every_n_layers": 3,
  "global_rope_theta": 160000.0, "gradient_checkpointing": false, "hidden_activation": "gelu", "hidden_size": 768,
  "initializer_cutoff_factor": 2.0, "initializer_range": 0.02, "intermediate_size": 1152, "layer_norm_eps": 1e-05,
  "local_attention": 128, "local_rope_theta": 10000.0, "max_position_embeddings": 8192, "mlp_bias": false,
  "mlp_dropout": 0.0, "model_type": "modernbert", "norm_bias": false, "norm_eps": 1e-05, "num_attention_heads": 12,
  "num_hidden_layers": 22, "pad_token_id": 50283, "position_embedding_type": "absolute", "sep_token_id": 50282,
  "tie_word_embeddings": true, "torch_dtype": "float32", "transformers_version": "4.47.0.dev0",
  "vocab_size": 50368})";

TEST(ModelConfigTest, ModernBertKeys) {
  absl::StatusOr<ModelConfig> c = ParseModelConfig(kModernBertBase, "m/config.json");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->arch, Architecture::kModernBert);
  EXPECT_EQ(ArchitectureName(c->arch), "modernbert");
  EXPECT_EQ(c->d_model, 768);
  EXPECT_EQ(c->n_heads, 12);
  EXPECT_EQ(c->n_layers, 22);
  EXPECT_EQ(c->d_ff, 1152);
  EXPECT_EQ(c->max_len, 8192);
  EXPECT_EQ(c->activation, Activation::kGeluExact);
  EXPECT_FALSE(c->norm_bias);
  EXPECT_FALSE(c->qkv_bias);
  EXPECT_FALSE(c->mlp_bias);
  ASSERT_TRUE(c->rotary.has_value());
  EXPECT_FLOAT_EQ(c->rotary->base, 160000.0f);
  EXPECT_DOUBLE_EQ(c->local_rope_theta, 10000.0);
  EXPECT_EQ(c->pad_token_id, 50283);
  EXPECT_EQ(c->cls_token_id, 50281);
  EXPECT_EQ(c->sep_token_id, 50282);
  ASSERT_EQ(c->attention.size(), 22u);
  for (size_t l = 0; l < c->attention.size(); ++l) {
    if (l % 3 == 0) {
      EXPECT_EQ(c->attention[l].type, AttentionKindType::kFull) << l;
    } else {
      EXPECT_EQ(c->attention[l].type, AttentionKindType::kWindow) << l;
      EXPECT_EQ(c->attention[l].window, 128) << l;
    }
  }
  EXPECT_FALSE(c->causal());
  for (const char* key : {"hidden_size", "num_attention_heads", "num_hidden_layers", "intermediate_size",
                          "max_position_embeddings", "vocab_size"}) {
    nlohmann::json j = nlohmann::json::parse(kModernBertBase);
    j.erase(key);
    absl::StatusOr<ModelConfig> missing = ParseModelConfig(j.dump(), "m/config.json");
    ASSERT_FALSE(missing.ok()) << key;
    EXPECT_THAT(std::string(missing.status().message()), HasSubstr(std::string("'") + key + "'")) << key;
  }
}

TEST(ModelConfigTest, ModernBertRefusesWhatItDoesNotRun) {
  const std::pair<const char*, const char*> bad[] = {
      {"local_attention", "127"},       {"hidden_activation", "\"silu\""}, {"norm_bias", "\"yes\""},
      {"rope_scaling", "{\"type\": \"linear\", \"factor\": 2.0}"}, {"global_attn_every_n_layers", "0"},
      {"layer_types", "[\"full_attention\"]"}, {"cls_token_id", "50368"}, {"num_attention_heads", "256"}};
  for (const auto& [key, value] : bad) {
    nlohmann::json j = nlohmann::json::parse(kModernBertBase);
    j[key] = nlohmann::json::parse(value);
    absl::StatusOr<ModelConfig> c = ParseModelConfig(j.dump(), "m/config.json");
    ASSERT_FALSE(c.ok()) << key;
    EXPECT_THAT(std::string(c.status().message()), HasSubstr(std::string("'") + key + "'")) << key;
  }
  // local_rope_theta null: local layers use the global base, as ModernBertModel does.
  nlohmann::json j = nlohmann::json::parse(kModernBertBase);
  j["local_rope_theta"] = nullptr;
  absl::StatusOr<ModelConfig> c = ParseModelConfig(j.dump(), "m/config.json");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_DOUBLE_EQ(c->local_rope_theta, 160000.0);
}

// distilbert-base-uncased's config.json keys (DistilBertConfig).
constexpr char kDistilBertBase[] = R"({"activation": "gelu", "architectures": ["DistilBertForMaskedLM"],
  "attention_dropout": 0.1, "dim": 768, "dropout": 0.1, "hidden_dim": 3072, "initializer_range": 0.02,
  "max_position_embeddings": 512, "model_type": "distilbert", "n_heads": 12, "n_layers": 6, "pad_token_id": 0,
  "qa_dropout": 0.1, "seq_classif_dropout": 0.2, "sinusoidal_pos_embds": false, "tie_weights_": true,
  "vocab_size": 30522})";

TEST(ModelConfigTest, DistilBertKeys) {
  absl::StatusOr<ModelConfig> c = ParseModelConfig(kDistilBertBase, "d/config.json");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->arch, Architecture::kBert);
  EXPECT_EQ(c->model_type, "distilbert");
  EXPECT_EQ(c->d_model, 768);
  EXPECT_EQ(c->n_heads, 12);
  EXPECT_EQ(c->n_layers, 6);
  EXPECT_EQ(c->d_ff, 3072);
  EXPECT_EQ(c->max_len, 512);
  EXPECT_EQ(c->type_vocab_size, 0);
  EXPECT_DOUBLE_EQ(c->layer_norm_eps, 1e-12);
  EXPECT_EQ(c->activation, Activation::kGeluExact);
  EXPECT_FALSE(c->sinusoidal_position_table);
  for (const char* key : {"dim", "n_heads", "n_layers", "hidden_dim", "max_position_embeddings", "vocab_size",
                          "activation"}) {
    nlohmann::json j = nlohmann::json::parse(kDistilBertBase);
    j.erase(key);
    absl::StatusOr<ModelConfig> missing = ParseModelConfig(j.dump(), "d/config.json");
    ASSERT_FALSE(missing.ok()) << key;
    EXPECT_THAT(std::string(missing.status().message()),
                AllOf(HasSubstr("d/config.json"), HasSubstr(std::string("'") + key + "'")));
  }
  nlohmann::json j = nlohmann::json::parse(kDistilBertBase);
  j["sinusoidal_pos_embds"] = "yes";
  absl::StatusOr<ModelConfig> bad = ParseModelConfig(j.dump(), "d/config.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("'sinusoidal_pos_embds'"));
  j["sinusoidal_pos_embds"] = true;
  j["n_heads"] = 7;
  bad = ParseModelConfig(j.dump(), "d/config.json");
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("not divisible by 7 heads"));
}

// sentence-transformers/all-mpnet-base-v2's config.json keys (MPNetConfig).
constexpr char kAllMpnetBase[] = R"({"architectures": ["MPNetForMaskedLM"], "attention_probs_dropout_prob": 0.1,
  "bos_token_id": 0, "eos_token_id": 2, "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "hidden_size": 768,
  "initializer_range": 0.02, "intermediate_size": 3072, "layer_norm_eps": 1e-05, "max_position_embeddings": 514,
  "model_type": "mpnet", "num_attention_heads": 12, "num_hidden_layers": 12, "pad_token_id": 1,
  "relative_attention_num_buckets": 32, "torch_dtype": "float32", "vocab_size": 30527})";

TEST(ModelConfigTest, MpnetKeys) {
  absl::StatusOr<ModelConfig> c = ParseModelConfig(kAllMpnetBase, "m/config.json");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->arch, Architecture::kRoberta);  // <s> ... </s>, positions from pad_token_id + 1
  EXPECT_EQ(c->model_type, "mpnet");
  EXPECT_EQ(c->d_model, 768);
  EXPECT_EQ(c->n_heads, 12);
  EXPECT_EQ(c->n_layers, 12);
  EXPECT_EQ(c->d_ff, 3072);
  EXPECT_EQ(c->max_position_rows, 514);
  EXPECT_EQ(c->max_len, 512);
  EXPECT_EQ(c->type_vocab_size, 0);
  EXPECT_EQ(c->relative_attention_buckets, 32);
  EXPECT_EQ(c->pad_token_id, 1);
  EXPECT_EQ(c->bos_token_id, 0);
  EXPECT_EQ(c->eos_token_id, 2);
  EXPECT_DOUBLE_EQ(c->layer_norm_eps, 1e-5);
  EXPECT_EQ(c->activation, Activation::kGeluExact);
  for (const char* key : {"hidden_size", "num_attention_heads", "num_hidden_layers", "intermediate_size",
                          "max_position_embeddings", "vocab_size", "layer_norm_eps", "hidden_act", "pad_token_id",
                          "bos_token_id", "eos_token_id", "relative_attention_num_buckets"}) {
    nlohmann::json j = nlohmann::json::parse(kAllMpnetBase);
    j.erase(key);
    absl::StatusOr<ModelConfig> missing = ParseModelConfig(j.dump(), "m/config.json");
    ASSERT_FALSE(missing.ok()) << key;
    EXPECT_THAT(std::string(missing.status().message()),
                AllOf(HasSubstr("m/config.json"), HasSubstr(std::string("'") + key + "'")));
  }
  nlohmann::json j = nlohmann::json::parse(kAllMpnetBase);
  j["relative_attention_num_buckets"] = 64;  // relative_position_bucket makes 32 whatever the table holds
  absl::StatusOr<ModelConfig> bad = ParseModelConfig(j.dump(), "m/config.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()),
              AllOf(HasSubstr("'relative_attention_num_buckets'"), HasSubstr("is 64"), HasSubstr("32 only")));
  j = nlohmann::json::parse(kAllMpnetBase);
  j["hidden_act"] = "swish";
  bad = ParseModelConfig(j.dump(), "m/config.json");
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("'hidden_act'"));
  j = nlohmann::json::parse(kAllMpnetBase);
  j["pad_token_id"] = 40000;
  bad = ParseModelConfig(j.dump(), "m/config.json");
  EXPECT_THAT(std::string(bad.status().message()), AllOf(HasSubstr("'pad_token_id'"), HasSubstr("outside")));
}

TEST(ModelConfigTest, BadValues) {
  absl::StatusOr<ModelConfig> c = ParseModelConfig(R"({"model_type": "t5"})", "c.json");
  EXPECT_THAT(std::string(c.status().message()), AllOf(HasSubstr("unsupported model_type \"t5\""), HasSubstr("c.json")));
  nlohmann::json j = nlohmann::json::parse(kGpt2Small);
  j["n_head"] = 7;
  c = ParseModelConfig(j.dump(), "c.json");
  EXPECT_THAT(std::string(c.status().message()), HasSubstr("not divisible by 7 heads"));
  j = nlohmann::json::parse(kGpt2Small);
  j["n_embd"] = "768";
  c = ParseModelConfig(j.dump(), "c.json");
  EXPECT_THAT(std::string(c.status().message()), HasSubstr("'n_embd' must be an integer"));
  j = nlohmann::json::parse(kGpt2Small);
  j["activation_function"] = "swish";
  c = ParseModelConfig(j.dump(), "c.json");
  EXPECT_THAT(std::string(c.status().message()), HasSubstr("'activation_function' is \"swish\""));
  c = ParseModelConfig("[1, 2]", "c.json");
  EXPECT_THAT(std::string(c.status().message()), HasSubstr("not a JSON object"));
}

}  // namespace
}  // namespace tokvec
