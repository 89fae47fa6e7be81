// Fuzz target: trainer_state.json parsing (tokvec fit --resume). Any text gives a status naming the file, or a
// state that serializes back to text that parses to the same state.
//
//   build-fuzz/fuzz_training_trainer_state tests/fuzz/corpus/training_trainer_state -max_total_time=30
#include <cstdint>
#include <string_view>

#include "tests/fuzz/fuzz_util.h"
#include "training/trainer_state.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tokvec::training;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<TrainerState> state = ParseTrainerState(text, "fuzz/trainer_state.json");
  if (!state.ok()) {
    FUZZ_CHECK(state.status().message().find("fuzz/trainer_state.json") != std::string_view::npos);
    return 0;
  }
  FUZZ_CHECK(state->step >= 0 && state->step <= state->total_steps && state->seq_len > 0 && state->batch > 0);
  absl::StatusOr<TrainerState> again = ParseTrainerState(TrainerStateToJson(*state), "fuzz/again.json");
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(TrainerStateToJson(*again) == TrainerStateToJson(*state));
  return 0;
}
