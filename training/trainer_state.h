// trainer_state.json: where a `tokvec fit` run stands, so `--resume` continues it bit for bit.
//
//   {"step": 3, "total_steps": 6, "seq_len": 64, "batch": 8, "grad_accum": 1, "seed": 1, "shuffle": true,
//    "dropout": 0.1, "optimizer": "adamw", "tokens_seen": 1536, "objective": "clm"}
// plus "lines": true for --lines runs and "pooling", "temperature" for simcse.
//
// The data position and every random draw follow from (seed, step) (training/token_stream.h), so no generator
// state is stored. A missing or mistyped key is InvalidArgument naming it and the file.
#ifndef TOKVEC_TRAINING_TRAINER_STATE_H_
#define TOKVEC_TRAINING_TRAINER_STATE_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace tokvec::training {

struct TrainerState {
  int64_t step = 0;         // optimizer steps done; the next step to run
  int64_t total_steps = 0;  // the run's --steps (the schedule depends on it)
  int64_t seq_len = 0;      // T
  int64_t batch = 0;        // B
  int64_t grad_accum = 1;   // K
  uint64_t seed = 0;
  bool shuffle = true;
  double dropout = 0.0;     // optional in the file (0 when absent)
  std::string optimizer;    // "adamw" | "sgd"
  int64_t tokens_seen = 0;  // input tokens trained on so far
  std::string objective = "clm";  // "clm" | "mlm" | "simcse"; optional in the file (clm when absent)
  // --lines runs (optional in the file: false, "", 0 when absent): one line per row; simcse's pooling and τ.
  bool lines = false;
  std::string pooling;
  double temperature = 0.0;
};

absl::StatusOr<TrainerState> ParseTrainerState(std::string_view json_text, std::string_view path);
std::string TrainerStateToJson(const TrainerState& state);

}  // namespace tokvec::training

#endif  // TOKVEC_TRAINING_TRAINER_STATE_H_
