#include "training/trainer_state.h"

#include "fmt/format.h"
#include "nlohmann/json.hpp"

namespace tokvec::training {
namespace {

using Json = nlohmann::json;

absl::Status Missing(std::string_view path, std::string_view key, std::string_view type) {
  return absl::InvalidArgumentError(fmt::format("{}: key '{}' is missing or not {}", path, key, type));
}

}  // namespace

absl::StatusOr<TrainerState> ParseTrainerState(std::string_view json_text, std::string_view path) {
  Json j = Json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return absl::InvalidArgumentError(fmt::format("{}: not a JSON object", path));
  }
  TrainerState state;
  auto integer = [&](const char* key, int64_t* out, int64_t min) -> absl::Status {
    auto it = j.find(key);
    if (it == j.end() || !it->is_number_integer() || it->get<int64_t>() < min) {
      return Missing(path, key, fmt::format("an integer >= {}", min));
    }
    *out = it->get<int64_t>();
    return absl::OkStatus();
  };
  for (auto [key, out, min] : {std::tuple{"step", &state.step, int64_t{0}},
                               std::tuple{"total_steps", &state.total_steps, int64_t{1}},
                               std::tuple{"seq_len", &state.seq_len, int64_t{1}},
                               std::tuple{"batch", &state.batch, int64_t{1}},
                               std::tuple{"grad_accum", &state.grad_accum, int64_t{1}},
                               std::tuple{"tokens_seen", &state.tokens_seen, int64_t{0}}}) {
    if (absl::Status s = integer(key, out, min); !s.ok()) return s;
  }
  auto seed = j.find("seed");
  if (seed == j.end() || !seed->is_number_unsigned()) {
    if (seed == j.end() || !seed->is_number_integer() || seed->get<int64_t>() < 0) {
      return Missing(path, "seed", "an unsigned integer");
    }
  }
  state.seed = seed->get<uint64_t>();
  auto shuffle = j.find("shuffle");
  if (shuffle == j.end() || !shuffle->is_boolean()) return Missing(path, "shuffle", "a boolean");
  state.shuffle = shuffle->get<bool>();
  if (auto dropout = j.find("dropout"); dropout != j.end()) {
    if (!dropout->is_number() || !(dropout->get<double>() >= 0.0 && dropout->get<double>() < 1.0)) {
      return Missing(path, "dropout", "a number in [0, 1)");
    }
    state.dropout = dropout->get<double>();
  }
  auto optimizer = j.find("optimizer");
  if (optimizer == j.end() || !optimizer->is_string() ||
      (optimizer->get<std::string>() != "adamw" && optimizer->get<std::string>() != "sgd")) {
    return Missing(path, "optimizer", "\"adamw\" or \"sgd\"");
  }
  state.optimizer = optimizer->get<std::string>();
  if (auto objective = j.find("objective"); objective != j.end()) {
    if (!objective->is_string() ||
        (objective->get<std::string>() != "clm" && objective->get<std::string>() != "mlm" &&
         objective->get<std::string>() != "simcse")) {
      return Missing(path, "objective", "\"clm\", \"mlm\" or \"simcse\"");
    }
    state.objective = objective->get<std::string>();
  }
  if (auto lines = j.find("lines"); lines != j.end()) {
    if (!lines->is_boolean()) return Missing(path, "lines", "a boolean");
    state.lines = lines->get<bool>();
  }
  if (auto pooling = j.find("pooling"); pooling != j.end()) {
    if (!pooling->is_string() || (pooling->get<std::string>() != "mean" && pooling->get<std::string>() != "cls" &&
                                  pooling->get<std::string>() != "last")) {
      return Missing(path, "pooling", "\"mean\", \"cls\" or \"last\"");
    }
    state.pooling = pooling->get<std::string>();
  }
  if (auto temperature = j.find("temperature"); temperature != j.end()) {
    if (!temperature->is_number() || !(temperature->get<double>() > 0.0 && temperature->get<double>() < 1e6)) {
      return Missing(path, "temperature", "a positive number");
    }
    state.temperature = temperature->get<double>();
  }
  if (state.step > state.total_steps) {
    return absl::InvalidArgumentError(
        fmt::format("{}: step {} is past total_steps {}", path, state.step, state.total_steps));
  }
  return state;
}

std::string TrainerStateToJson(const TrainerState& state) {
  nlohmann::ordered_json j;
  j["step"] = state.step;
  j["total_steps"] = state.total_steps;
  j["seq_len"] = state.seq_len;
  j["batch"] = state.batch;
  j["grad_accum"] = state.grad_accum;
  j["seed"] = state.seed;
  j["shuffle"] = state.shuffle;
  j["dropout"] = state.dropout;
  j["optimizer"] = state.optimizer;
  j["tokens_seen"] = state.tokens_seen;
  j["objective"] = state.objective;
  if (state.lines) j["lines"] = true;
  if (!state.pooling.empty()) j["pooling"] = state.pooling;
  if (state.temperature > 0) j["temperature"] = state.temperature;
  return j.dump(2) + "\n";
}

}  // namespace tokvec::training
