// Placeholder registration until the subcommand lands; it reports that it is not built yet.
#include "cli/command.h"

namespace tokvec::cli {

void RegisterBenchCommand(CLI::App& app, CommandAction* action) {
  CLI::App* sub = app.add_subcommand("bench", "(not built yet)");
  sub->callback([action] { *action = [] { return absl::UnimplementedError("'bench' is not built yet"); }; });
}

}  // namespace tokvec::cli
