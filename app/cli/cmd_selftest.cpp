// `selftest [--devices L] [--programs N] [--seed S]`: the random-program differential test.
#include <cstdio>
#include <sstream>

#include "app/cli/commands.h"
#include "engine/devices/device_info.h"
#include "engine/session/selftest.h"

namespace ks::cli {

int cmdSelftest(int argc, char** argv) {
  Args args(argc, argv, {});
  args.allowOnly({"devices", "programs", "seed", "max-ops"});
  if (!args.positional().empty()) throw UsageError{"takes no positional arguments"};
  SelftestOptions o;
  try {
    o.programs = std::stoi(args.getOr("programs", "100"));
    o.seed = std::stoull(args.getOr("seed", "1"));
    if (auto m = args.get("max-ops")) o.generator.maxOps = std::stoi(*m);
  } catch (const std::exception&) {
    throw UsageError{"--programs, --seed and --max-ops take numbers"};
  }
  // Default: the interpreter and every OpenCL device found.
  o.devices.clear();
  const std::string spec = args.getOr("devices", "all");
  if (spec == "all") {
    o.devices.push_back("interpreter");
    for (const DeviceInfo& d : discoverDevices())
      if (d.compiles()) o.devices.push_back(d.name);
  } else {
    std::stringstream ss(spec);
    std::string name;
    while (std::getline(ss, name, ','))
      if (!name.empty()) o.devices.push_back(name);
  }
  const SelftestReport r = runSelftest(o);
  std::printf("%s", r.summary().c_str());
  return r.failed == 0 ? 0 : 1;
}

}  // namespace ks::cli
