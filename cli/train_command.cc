// Placeholder registration until the subcommand lands; it reports that it is not built yet.
#include "cli/command.h"

namespace tokvec::cli {

void RegisterTrainCommand(CLI::App& app, CommandAction* action) {
  CLI::App* sub = app.add_subcommand("train", "(not built yet)");
  sub->callback([action] { *action = [] { return absl::UnimplementedError("'train' is not built yet"); }; });
}

}  // namespace tokvec::cli
