// How subcommands plug into the `tokvec` binary.
//
// Each subcommand lives in cli/<name>_command.cc and defines one Register function:
//
//   void RegisterEncodeCommand(CLI::App& app, CommandAction* action) {
//     auto options = std::make_shared<EncodeOptions>();
//     CLI::App* sub = app.add_subcommand("encode", "Turn text into token ids");
//     sub->add_option("-m,--model", options->model, "...")->required();
//     sub->callback([options, action] { *action = [options] { return RunEncode(*options); }; });
//   }
//
// main() parses the command line, then runs the chosen action. An error status becomes
// `error: <message>` on stderr and exit code 1; command-line usage errors exit 2.
#ifndef TOKVEC_CLI_COMMAND_H_
#define TOKVEC_CLI_COMMAND_H_

#include <functional>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"

namespace tokvec::cli {

using CommandAction = std::function<absl::Status()>;

// A usage error found after parsing (e.g. two options that exclude each other): exit code 2.
// Return it as absl::InvalidArgumentError(UsageError("...")) — main() recognises the prefix.
inline constexpr char kUsagePrefix[] = "usage: ";

void RegisterTrainCommand(CLI::App& app, CommandAction* action);
void RegisterCountCommand(CLI::App& app, CommandAction* action);
void RegisterInspectCommand(CLI::App& app, CommandAction* action);
void RegisterEncodeCommand(CLI::App& app, CommandAction* action);
void RegisterDecodeCommand(CLI::App& app, CommandAction* action);
void RegisterConvertCommand(CLI::App& app, CommandAction* action);
void RegisterExtendCommand(CLI::App& app, CommandAction* action);
void RegisterInitCommand(CLI::App& app, CommandAction* action);
void RegisterFitCommand(CLI::App& app, CommandAction* action);
void RegisterEvalCommand(CLI::App& app, CommandAction* action);
void RegisterEmbedCommand(CLI::App& app, CommandAction* action);
void RegisterAttendCommand(CLI::App& app, CommandAction* action);
void RegisterBenchCommand(CLI::App& app, CommandAction* action);
void RegisterWord2VecCommand(CLI::App& app, CommandAction* action);
void RegisterServeCommand(CLI::App& app, CommandAction* action);
void RegisterSearchCommand(CLI::App& app, CommandAction* action);
void RegisterRerankCommand(CLI::App& app, CommandAction* action);
void RegisterClassifyCommand(CLI::App& app, CommandAction* action);

}  // namespace tokvec::cli

#endif  // TOKVEC_CLI_COMMAND_H_
