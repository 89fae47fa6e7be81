// `tokvec bench layer`: one post-LN ReLU encoder layer (nn.TransformerEncoderLayer's default) with seeded random
// weights on a batch, timed as cli/bench_command.cc's file comment says; prints one JSON line.
//
//   tokvec bench layer --d-model 768 --heads 12 --ff 3072 --batch 8 --seq-len 128 --threads 2
//   {"bench":"layer","ms":80.1,"tokens_per_s":12784,...}
#ifndef TOKVEC_CLI_BENCH_LAYER_H_
#define TOKVEC_CLI_BENCH_LAYER_H_

#include "cli/command.h"

namespace tokvec::cli {

// Adds the `layer` subcommand to `bench`.
void RegisterLayerBench(CLI::App& bench, CommandAction* action);

}  // namespace tokvec::cli

#endif  // TOKVEC_CLI_BENCH_LAYER_H_
