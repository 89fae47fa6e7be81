// LauncherWorldSize (distributed/world.h): read in every build, with or without MPI.
#include <cstdlib>

#include "absl/strings/numbers.h"
#include "distributed/world.h"

namespace tokvec::distributed {

int LauncherWorldSize() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    const char* value = std::getenv(name);
    int size = 0;
    if (value != nullptr && absl::SimpleAtoi(value, &size) && size > 0) return size;
  }
  return 1;
}

}  // namespace tokvec::distributed
