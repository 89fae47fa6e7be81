// Placeholder registration until the subcommand lands; it reports that it is not built yet.
#include "cli/command.h"

namespace tokvec::cli {

void RegisterInspectCommand(CLI::App& app, CommandAction* action) {
  CLI::App* sub = app.add_subcommand("inspect", "(not built yet)");
  sub->callback([action] { *action = [] { return absl::UnimplementedError("'inspect' is not built yet"); }; });
}

}  // namespace tokvec::cli
