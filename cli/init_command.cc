// tokvec init: a model directory with seeded random weights around an existing tokenizer.
//
//   tokvec init --tokenizer data/model.tokvec --arch gpt2 --d-model 64 --heads 4 --layers 2 --max-len 128
//       --seed 1 -o models/tiny
//
// DIR gets the tokenizer file(s) (copied), config.json (GPT-2 key names) and model.safetensors (F32). Everything is
// written into DIR.tmp-XXXXXX first and renamed to DIR at the end, so an error or interrupt leaves no half model.
//
// Initialisation: GPT-2's scheme from one NormalSampler(seed), so a seed always gives the same model
// (models/random_weights.h).
//
// --positions rotary: no wpe table (and no sinusoid for the encoder); config.json gets
// "position_embedding_type": "rotary" and "rope_theta", and every layer rotates its queries and keys (RoPE).
//
// --token-embeddings VECTORS (a word2vec text or binary file, e.g. from `tokvec word2vec train --tokenizer`):
// each token whose spelling (Tokenizer::TokenSpelling, e.g. `Ġcat`) is a word of the file gets that vector as
// its wte row instead of the random one; the other rows keep the seeded init, which is drawn as without the
// option, so every other tensor is the same. The file's dim must equal --d-model.
//
// --from DIR (after `tokvec extend`): DIR's model with its token tables grown to --tokenizer's vocabulary instead of
// new random weights: every file of DIR is copied except its tokenizer files and weights, config.json gets the new
// vocab_size, and model.safetensors keeps every tensor, the token tables (and an untied LM head and its bias) with
// new rows as Hugging Face's resize_token_embeddings makes them (models/resize_token_table.h; --seed draws them,
// --token-embeddings gives new tokens their word2vec vectors). The shape flags do not apply.
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "base/file_io.h"
#include "base/status_macros.h"
#include "cli/command.h"
#include "embeddings/safetensors_shards.h"
#include "fmt/format.h"
#include "models/model_config.h"
#include "models/random_weights.h"
#include "models/resize_token_table.h"
#include "tokenizer/tokenizer.h"
#include "word2vec/vectors.h"

namespace tokvec::cli {
namespace {

namespace fs = std::filesystem;

struct InitOptions {
  std::string tokenizer;
  std::string arch = "gpt2";
  int64_t d_model = 0;
  int64_t heads = 0;
  int64_t layers = 0;
  int64_t max_len = 0;
  int64_t d_ff = 0;  // 0: 4 * d_model
  uint64_t seed = 0;
  std::string output;
  std::string token_embeddings;  // word2vec vector file for the token table, or empty
  std::string positions = "absolute";  // or "rotary"
  double rope_theta = 10000.0;
  std::vector<std::string> attention;  // one kind for every layer, or one per layer; empty: full
  std::string from;  // a model directory to grow to --tokenizer's vocabulary, or empty
  bool shape_given = false;
  bool seed_given = false;  // any of --d-model, --heads, --layers, --max-len, --ff, --arch, --positions, ...
};

// Removes a temporary directory unless released.
class TempDirGuard {
 public:
  explicit TempDirGuard(std::string path) : path_(std::move(path)) {}
  ~TempDirGuard() {
    if (!path_.empty()) {
      std::error_code ignored;
      fs::remove_all(path_, ignored);
    }
  }
  void Release() { path_.clear(); }

 private:
  std::string path_;
};

// The files that make up the tokenizer at `path` (a file or a directory holding one), and the names they get in
// the model directory.
absl::StatusOr<std::vector<std::pair<fs::path, std::string>>> TokenizerFiles(const std::string& path) {
  fs::path file = path;
  if (fs::is_directory(file)) {
    bool found = false;
    for (const char* name : {"tokenizer.tokvec", "tokenizer.json", "vocab.json"}) {
      if (fs::is_regular_file(file / name)) {
        file = file / name;
        found = true;
        break;
      }
    }
    if (!found) {
      for (const auto& entry : fs::directory_iterator(path)) {
        if (entry.path().extension() == ".tiktoken") {
          file = entry.path();
          found = true;
          break;
        }
      }
    }
    if (!found) return absl::NotFoundError(fmt::format("directory '{}' holds no tokenizer file", path));
  }
  const std::string name = file.filename().string();
  if (name == "vocab.json") return std::vector<std::pair<fs::path, std::string>>{
      {file, "vocab.json"}, {file.parent_path() / "merges.txt", "merges.txt"}};
  if (file.extension() == ".tiktoken") return std::vector<std::pair<fs::path, std::string>>{{file, name}};
  TOKVEC_ASSIGN_OR_RETURN(std::string head, ReadFile(file.string()));
  if (!head.empty() && head.front() == '{') {
    return std::vector<std::pair<fs::path, std::string>>{{file, "tokenizer.json"}};
  }
  return std::vector<std::pair<fs::path, std::string>>{{file, "tokenizer.tokvec"}};
}

// Checks that `output` is absent or an empty directory whose folder exists, and makes a temporary sibling directory
// (with the usual permissions) for everything to be written into before it is renamed to `output`.
absl::StatusOr<std::string> MakeTempBeside(const std::string& output) {
  fs::path target = fs::path(output).lexically_normal();
  if (target.filename().empty() && target.has_parent_path()) target = target.parent_path();  // "dir/"
  std::error_code error;
  if (fs::exists(target, error)) {
    if (!fs::is_directory(target) || !fs::is_empty(target)) {
      return absl::AlreadyExistsError(
          fmt::format("'{}' already exists and is not an empty directory; remove it or pick another -o", output));
    }
  }
  const fs::path parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
  if (!fs::is_directory(parent, error)) {
    return absl::NotFoundError(fmt::format("cannot create '{}': folder '{}' does not exist", output,
                                           parent.string()));
  }

  std::string temp = (parent / (target.filename().string() + ".tmp-XXXXXX")).string();
  if (mkdtemp(temp.data()) == nullptr) {
    return absl::PermissionDeniedError(fmt::format("cannot create a temporary directory in '{}'", parent.string()));
  }
  const mode_t mask = umask(0);  // mkdtemp makes 0700; give the model directory the usual permissions
  umask(mask);
  chmod(temp.c_str(), 0777 & ~mask);
  return temp;
}

// Renames the finished temporary directory to `output` (removing the empty directory checked before).
absl::Status MoveIntoPlace(const std::string& temp, const std::string& output) {
  fs::path target = fs::path(output).lexically_normal();
  if (target.filename().empty() && target.has_parent_path()) target = target.parent_path();  // "dir/"
  std::error_code error;
  if (fs::exists(target, error)) fs::remove(target, error);
  fs::rename(temp, target, error);
  if (error) return absl::InternalError(fmt::format("cannot rename '{}' to '{}': {}", temp, output, error.message()));
  return absl::OkStatus();
}

// The rows of `vectors` (a word2vec file, `path` in messages) for the tokenizer's ids from `first_id` on, matched by
// the tokenizer's spelling of each token (the first row of a word wins); their dim must be `d_model`.
absl::StatusOr<TokenRows> MatchTokenRows(const word2vec::Vectors& vectors, const Tokenizer& tokenizer, int64_t d_model,
                                         int64_t first_id, const std::string& path) {
  if (vectors.dim != d_model) {
    return absl::InvalidArgumentError(fmt::format(
        "--token-embeddings '{}' has {}-dimensional vectors but the model's d_model is {}; they must be equal", path,
        vectors.dim, d_model));
  }
  absl::flat_hash_map<std::string, size_t> rows;
  for (size_t i = 0; i < vectors.size(); ++i) rows.try_emplace(vectors.words[i], i);
  TokenRows token_rows;
  const auto vocab = static_cast<int64_t>(tokenizer.vocab_size());
  for (int64_t id = first_id; id < vocab; ++id) {
    auto it = rows.find(tokenizer.TokenSpelling(static_cast<TokenId>(id)));
    if (it != rows.end()) token_rows.emplace_back(id, vectors.row(it->second));
  }
  std::fprintf(stderr, "token embeddings: %zu of %lld tokens got a vector from %s (the others keep their init)\n",
               token_rows.size(), static_cast<long long>(vocab - first_id), path.c_str());
  return token_rows;
}

absl::Status RunInitFrom(const InitOptions& options);

absl::Status RunInit(const InitOptions& options) {
  if (!options.from.empty()) return RunInitFrom(options);
  if (options.d_model <= 0 || options.heads <= 0 || options.layers <= 0 || options.max_len <= 0 ||
      !options.seed_given) {
    return absl::InvalidArgumentError(fmt::format(
        "{}--d-model, --heads, --layers, --max-len and --seed are required (or --from DIR to grow a model)",
        kUsagePrefix));
  }
  // 1. Check the shape and the tokenizer.
  if (options.d_model % options.heads != 0) {
    return absl::InvalidArgumentError(fmt::format(
        "--d-model {} is not divisible by --heads {}; each head gets d_model / heads features (try --d-model {})",
        options.d_model, options.heads, (options.d_model / options.heads + 1) * options.heads));
  }
  TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<Tokenizer> tokenizer, Tokenizer::Load(options.tokenizer));
  TOKVEC_ASSIGN_OR_RETURN(auto files, TokenizerFiles(options.tokenizer));
  ModelConfig config;
  config.arch = options.arch == "encoder" ? Architecture::kEncoder : Architecture::kGpt2;
  config.model_type = options.arch;
  config.vocab_size = static_cast<int64_t>(tokenizer->vocab_size());
  config.d_model = options.d_model;
  config.n_heads = options.heads;
  config.n_layers = options.layers;
  config.d_ff = options.d_ff > 0 ? options.d_ff : 4 * options.d_model;
  config.max_len = options.max_len;
  config.layer_norm_eps = 1e-5;
  config.activation = config.arch == Architecture::kEncoder ? Activation::kRelu : Activation::kGeluTanh;
  if (options.positions == "rotary") {
    if (config.head_dim() % 2 != 0) {
      return absl::InvalidArgumentError(fmt::format(
          "--positions rotary needs an even head_dim; --d-model {} / --heads {} is {}", options.d_model,
          options.heads, config.head_dim()));
    }
    if (!(options.rope_theta > 1.0 && options.rope_theta < 1e30)) {
      return absl::InvalidArgumentError(fmt::format("--rope-theta must be in (1, 1e30), not {}", options.rope_theta));
    }
    config.rotary = RotaryOptions{.base = static_cast<float>(options.rope_theta), .pairing = RotaryPairing::kHalves};
  }
  config.attention_seed = options.seed;
  if (!options.attention.empty()) {
    if (options.attention.size() != 1 && static_cast<int64_t>(options.attention.size()) != config.n_layers) {
      return absl::InvalidArgumentError(fmt::format(
          "--attention was given {} times; give it once (every layer) or --layers {} times (one per layer)",
          options.attention.size(), config.n_layers));
    }
    nlohmann::json kinds = options.attention.size() == 1 ? nlohmann::json(options.attention[0])
                                                         : nlohmann::json(options.attention);
    absl::StatusOr<std::vector<AttentionKind>> parsed =
        ParseLayerAttention(kinds, config.n_layers, config.causal(), "--attention");
    if (!parsed.ok()) return absl::InvalidArgumentError(std::string(parsed.status().message()));
    config.attention = std::move(*parsed);
  }

  // Token vectors from a word2vec file, matched by the tokenizer's spelling of each token.
  word2vec::Vectors vectors;
  TokenRows token_rows;
  if (!options.token_embeddings.empty()) {
    TOKVEC_ASSIGN_OR_RETURN(vectors, word2vec::ReadVectors(options.token_embeddings));
    TOKVEC_ASSIGN_OR_RETURN(token_rows, MatchTokenRows(vectors, *tokenizer, options.d_model, 0,
                                                       options.token_embeddings));
  }

  TOKVEC_ASSIGN_OR_RETURN(std::string temp, MakeTempBeside(options.output));
  TempDirGuard guard(temp);
  for (const auto& [source, name] : files) {
    TOKVEC_ASSIGN_OR_RETURN(std::string bytes, ReadFile(source.string()));
    TOKVEC_RETURN_IF_ERROR(WriteFileAtomically((fs::path(temp) / name).string(), bytes));
  }
  TOKVEC_RETURN_IF_ERROR(WriteFileAtomically((fs::path(temp) / "config.json").string(), ModelConfigToJson(config)));
  TOKVEC_RETURN_IF_ERROR(
      WriteRandomWeights(config, options.seed, token_rows, (fs::path(temp) / "model.safetensors").string()));
  TOKVEC_RETURN_IF_ERROR(MoveIntoPlace(temp, options.output));
  guard.Release();
  std::fprintf(stderr, "wrote %s: %s, vocab_size %lld, d_model %lld, %lld heads, %lld layers, max_len %lld\n",
               options.output.c_str(), options.arch.c_str(), static_cast<long long>(config.vocab_size),
               static_cast<long long>(config.d_model), static_cast<long long>(config.n_heads),
               static_cast<long long>(config.n_layers), static_cast<long long>(config.max_len));
  return absl::OkStatus();
}

// A file of DIR that init --from does not copy: the tokenizer files and weights it replaces, weights in other
// formats (they hold the old vocabulary), hidden files and folders (.git: Git LFS copies of every weight).
bool LeftBehind(const fs::path& relative) {
  for (const fs::path& part : relative) {
    if (!part.empty() && part.string().front() == '.') return true;
  }
  const std::string top = relative.begin()->string();
  if (top == "onnx" || top == "original" || top == "openvino") return true;
  const std::string name = relative.filename().string();
  const std::string ext = relative.extension().string();
  if (ext == ".bin" || ext == ".pth" || ext == ".pt" || ext == ".h5" || ext == ".msgpack" || ext == ".gguf" ||
      ext == ".onnx" || ext == ".ckpt" || ext == ".tiktoken") {
    return true;
  }
  if (relative.has_parent_path()) return false;  // a module's folder (1_Pooling/, 2_Dense/): copied
  return name == "config.json" || name == "tokenizer.json" || name == "tokenizer.tokvec" || name == "vocab.json" ||
         name == "merges.txt" || name == "vocab.txt" || name == "tokenizer.model" || name == "added_tokens.json" ||
         name.rfind("model.safetensors", 0) == 0 || name.rfind("consolidated", 0) == 0 ||
         (name.rfind("model-", 0) == 0 && ext == ".safetensors");
}

// `output` without trailing slashes ("gpt2-ja/" names the folder gpt2-ja).
fs::path OutputPath(const std::string& output) {
  fs::path path = fs::path(output).lexically_normal();
  if (path.filename().empty() && path.has_parent_path()) path = path.parent_path();
  return path;
}

// init --from DIR: DIR's model grown to --tokenizer's vocabulary (see the file comment).
absl::Status RunInitFrom(const InitOptions& options) {
  if (options.shape_given) {
    return absl::InvalidArgumentError(fmt::format(
        "{}--from DIR keeps DIR's shape: --d-model, --heads, --layers, --max-len, --ff, --arch, --positions, "
        "--attention and --rope-theta do not apply",
        kUsagePrefix));
  }
  const fs::path from = OutputPath(options.from);
  std::error_code error;
  if (!fs::is_directory(from, error)) {
    return absl::NotFoundError(fmt::format("--from '{}' is not a model directory", options.from));
  }
  const fs::path out_abs = fs::weakly_canonical(fs::absolute(OutputPath(options.output), error), error);
  const fs::path from_abs = fs::weakly_canonical(fs::absolute(from, error), error);
  if (!error) {
    const auto [end, unused] = std::mismatch(from_abs.begin(), from_abs.end(), out_abs.begin(), out_abs.end());
    if (end == from_abs.end()) {
      return absl::InvalidArgumentError(fmt::format(
          "{}-o '{}' is inside --from '{}'; write the grown model elsewhere", kUsagePrefix, options.output,
          options.from));
    }
  }
  // 1. The sizes: the table (config.json), DIR's tokenizer, the new one (which must spell DIR's ids alike).
  TOKVEC_ASSIGN_OR_RETURN(const ModelConfig config, LoadModelConfig((from / "config.json").string()));
  TOKVEC_ASSIGN_OR_RETURN(std::string config_text, ReadFile((from / "config.json").string()));
  nlohmann::json config_json = nlohmann::json::parse(config_text, nullptr, /*allow_exceptions=*/false);
  TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<Tokenizer> old_tokenizer, Tokenizer::Load(from.string()));
  TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<Tokenizer> tokenizer, Tokenizer::Load(options.tokenizer));
  TOKVEC_ASSIGN_OR_RETURN(auto files, TokenizerFiles(options.tokenizer));
  const ResizeShape shape{.table_rows = config.vocab_size,
                          .old_ids = static_cast<int64_t>(old_tokenizer->vocab_size()),
                          .new_ids = static_cast<int64_t>(tokenizer->vocab_size()),
                          .hidden = config.d_model};
  if (shape.new_ids <= shape.old_ids) {
    return absl::InvalidArgumentError(fmt::format(
        "--tokenizer has {} ids, no more than the {} of '{}''s own tokenizer: nothing to grow (tokvec extend makes "
        "a larger one)",
        shape.new_ids, shape.old_ids, options.from));
  }
  for (TokenId id = 0; id < static_cast<TokenId>(shape.old_ids); ++id) {
    if (old_tokenizer->TokenSpelling(id) != tokenizer->TokenSpelling(id)) {
      return absl::InvalidArgumentError(fmt::format(
          "--tokenizer is not an extension of '{}''s tokenizer: id {} is '{}' there and '{}' here (tokvec extend "
          "keeps every id)",
          options.from, id, old_tokenizer->TokenSpelling(id), tokenizer->TokenSpelling(id)));
    }
  }
  std::string weights;
  for (const char* name : {"model.safetensors.index.json", "model.safetensors"}) {
    if (fs::is_regular_file(from / name, error)) weights = (from / name).string();
  }
  if (weights.empty()) {
    return absl::NotFoundError(fmt::format("'{}' holds no model.safetensors (or its index)", options.from));
  }
  // 2. The new rows for word2vec vectors, when given: the input token table's.
  word2vec::Vectors vectors;
  ResizeOptions resize{.seed = options.seed};
  if (!options.token_embeddings.empty()) {
    TOKVEC_ASSIGN_OR_RETURN(vectors, word2vec::ReadVectors(options.token_embeddings));
    TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<SafetensorsShards> shards, SafetensorsShards::Open(weights));
    for (const std::string& name : shards->Names()) {
      const bool input_table = name.find("wte") != std::string::npos ||
                               name.find("word_embeddings") != std::string::npos ||
                               name.find("embed_tokens") != std::string::npos ||
                               name.find("tok_embeddings") != std::string::npos;
      const SafetensorsEntry* entry = shards->Find(name);
      if (input_table && entry->shape.size() == 2 && entry->shape[0] == shape.table_rows) {
        resize.table_name = name;
        TOKVEC_ASSIGN_OR_RETURN(resize.given_rows, MatchTokenRows(vectors, *tokenizer, entry->shape[1],
                                                                   shape.old_ids, options.token_embeddings));
        break;
      }
    }
    if (resize.table_name.empty()) {
      return absl::InvalidArgumentError(fmt::format(
          "--token-embeddings: '{}' has no token table with {} rows by a known name (wte, word_embeddings, "
          "embed_tokens, tok_embeddings)",
          weights, shape.table_rows));
    }
  }
  // 3. Everything into a temporary sibling: DIR's other files, the tokenizer, config.json, the grown weights.
  TOKVEC_ASSIGN_OR_RETURN(std::string temp, MakeTempBeside(OutputPath(options.output).string()));
  TempDirGuard guard(temp);
  fs::recursive_directory_iterator it(from, error);
  for (; !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
    const fs::path relative = it->path().lexically_relative(from);
    if (!it->is_regular_file(error) || LeftBehind(relative)) continue;
    fs::create_directories(fs::path(temp) / relative.parent_path(), error);
    if (!error) fs::copy_file(it->path(), fs::path(temp) / relative, error);
    if (error) break;
  }
  if (error) {
    return absl::InternalError(fmt::format("cannot copy '{}' into '{}': {}", options.from, temp, error.message()));
  }
  for (const auto& [source, name] : files) {
    TOKVEC_ASSIGN_OR_RETURN(std::string bytes, ReadFile(source.string()));
    TOKVEC_RETURN_IF_ERROR(WriteFileAtomically((fs::path(temp) / name).string(), bytes));
  }
  const int64_t rows = std::max(shape.table_rows, shape.new_ids);
  config_json["vocab_size"] = rows;
  TOKVEC_RETURN_IF_ERROR(
      WriteFileAtomically((fs::path(temp) / "config.json").string(), config_json.dump(2) + "\n"));
  TOKVEC_ASSIGN_OR_RETURN(const ResizeReport report,
                          ResizeTokenTables(weights, shape, resize, (fs::path(temp) / "model.safetensors").string()));
  TOKVEC_RETURN_IF_ERROR(MoveIntoPlace(temp, OutputPath(options.output).string()));
  guard.Release();
  std::string tables;
  for (const std::string& name : report.tables) tables += (tables.empty() ? "" : ", ") + name;
  std::fprintf(stderr, "wrote %s: ids %lld -> %lld (vocab_size %lld -> %lld); grew %s (new rows %s)%s\n",
               options.output.c_str(), static_cast<long long>(shape.old_ids), static_cast<long long>(shape.new_ids),
               static_cast<long long>(shape.table_rows), static_cast<long long>(rows), tables.c_str(),
               report.sampled ? "drawn around the mean token, as Hugging Face's resize_token_embeddings"
                              : "the mean token: the covariance is not positive definite",
               report.dropped.empty() ? "" : fmt::format("; left out {} non-float tensors", report.dropped.size()).c_str());
  return absl::OkStatus();
}

}  // namespace

void RegisterInitCommand(CLI::App& app, CommandAction* action) {
  auto options = std::make_shared<InitOptions>();
  CLI::App* sub = app.add_subcommand("init", "Create a model directory with seeded random weights");
  sub->add_option("--tokenizer", options->tokenizer, "Tokenizer model (any format tokvec reads, or a directory)")
      ->required();
  sub->add_option("--from", options->from,
                  "Model directory to grow to --tokenizer's vocabulary (after tokvec extend) instead of new weights");
  sub->add_option("--arch", options->arch, "gpt2 (pre-LN, causal, learned positions) or encoder (Vaswani 2017)")
      ->check(CLI::IsMember({"gpt2", "encoder"}))
      ->capture_default_str();
  sub->add_option("--d-model", options->d_model, "Width of every vector (D)")->check(CLI::PositiveNumber);
  sub->add_option("--heads", options->heads, "Attention heads (must divide --d-model)")->check(CLI::PositiveNumber);
  sub->add_option("--layers", options->layers, "Transformer blocks")->check(CLI::PositiveNumber);
  sub->add_option("--max-len", options->max_len, "Longest input in tokens")->check(CLI::PositiveNumber);
  sub->add_option("--ff", options->d_ff, "Feed-forward width (default 4 * d_model)")->check(CLI::PositiveNumber);
  CLI::Option* seed = sub->add_option("--seed", options->seed, "Random seed");
  sub->add_option("-o,--output", options->output, "Model directory to create")->required();
  sub->add_option("--positions", options->positions,
                  "absolute (gpt2: a learned wpe table; encoder: the sinusoid) or rotary (RoPE on every layer's "
                  "queries and keys, GPT-NeoX pairing)")
      ->check(CLI::IsMember({"absolute", "rotary"}))
      ->capture_default_str();
  sub->add_option("--attention", options->attention,
                  "Kind of attention (docs/attention_kinds.md): full, window:W, longformer:W,G, bigbird:B,R,G, "
                  "linformer:K (encoder only), performer:M or linear; once for every layer or once per layer")
      ->take_all();
  sub->add_option("--rope-theta", options->rope_theta, "RoPE base θ (with --positions rotary)")->capture_default_str();
  sub->add_option("--token-embeddings", options->token_embeddings,
                  "word2vec vector file whose vectors start the token table (matched by token spelling)");
  sub->callback([sub, seed, options, action] {
    for (const char* flag : {"--arch", "--d-model", "--heads", "--layers", "--max-len", "--ff", "--positions",
                             "--attention", "--rope-theta"}) {
      options->shape_given |= sub->get_option(flag)->count() > 0;
    }
    options->seed_given = seed->count() > 0;
    *action = [options] { return RunInit(*options); };
  });
}

}  // namespace tokvec::cli
