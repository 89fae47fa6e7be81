// Placeholder registration until the subcommand lands; it reports that it is not built yet.
#include "cli/command.h"

namespace tokvec::cli {

void RegisterAttendCommand(CLI::App& app, CommandAction* action) {
  CLI::App* sub = app.add_subcommand("attend", "(not built yet)");
  sub->callback([action] { *action = [] { return absl::UnimplementedError("'attend' is not built yet"); }; });
}

}  // namespace tokvec::cli
