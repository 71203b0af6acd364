// `cache clear [--cache PATH]`: empties the tuning cache.
#include <cstdio>

#include "app/cli/commands.h"
#include "engine/core/error.h"
#include "engine/tune/tuning_cache.h"

namespace ks::cli {

int cmdCache(int argc, char** argv) {
  Args args("cache");
  std::string path;
  args.app().add_option("--cache", path, "tuning cache file (default: the user's cache)");
  args.positionals("ACTION", "clear");
  if (!args.parse(argc, argv)) return 0;
  if (args.positional().size() != 1 || args.positional()[0] != "clear") throw UsageError{"expects `cache clear`"};
  std::string warning;
  auto cache = TuningCache::open(path, &warning);
  // Clearing something that is not a cache of ours (left as it was) would report a success.
  if (!path.empty() && path != "none" && !cache->persistent()) throw Error(ErrorCode::Io, warning, {path});
  if (!warning.empty()) std::fprintf(stderr, "warning: %s\n", warning.c_str());
  cache->clear();
  std::printf("cleared the tuning cache at %s\n", cache->location().c_str());
  return 0;
}

}  // namespace ks::cli
