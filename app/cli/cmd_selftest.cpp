// `selftest [--devices L] [--programs N] [--seed S] [--rewrite MODE]`: the random-program differential test.
#include <cstdio>
#include <sstream>

#include "app/cli/commands.h"
#include "engine/check/selftest.h"
#include "engine/devices/device_info.h"

namespace ks::cli {

int cmdSelftest(int argc, char** argv) {
  Args args("selftest");
  SelftestOptions o;
  o.programs = 100;
  o.seed = 1;
  std::string spec = "all";
  args.app().add_option("--devices", spec, "interpreter, opencl:P:D, a comma list of them, or all")->check(deviceList());
  args.app().add_option("--programs", o.programs, "how many random programs")->check(atLeast(1));
  args.app().add_option("--seed", o.seed, "seed of the first program")->check(atLeast(0));
  args.app().add_option("--max-ops", o.generator.maxOps, "ops per program at most")->check(atLeast(1));
  o.generator.gradPercent = 25;
  args.app()
      .add_option("--grad-percent", o.generator.gradPercent,
                  "percent of programs that also output gradients of a random scalar (0-100, default 25)")
      ->check(CLI::Range(0, 100));
  std::string rewrite = "default";
  args.app()
      .add_option("--rewrite", rewrite,
                  "rules saturating each program before it is kernelized: none, default (the default) or aggressive")
      ->check(CLI::IsMember({"none", "default", "aggressive"}));
  if (!args.parse(argc, argv)) return 0;
  o.rewrite.mode = *parseRewriteMode(rewrite);
  // Default: the interpreter and every OpenCL device found.
  o.devices.clear();
  if (spec == "all") {
    o.devices.push_back("interpreter");
    for (const DeviceInfo& d : discoverDevices())
      if (d.compiles()) o.devices.push_back(d.name);
  } else {
    std::stringstream ss(spec);
    std::string name;
    while (std::getline(ss, name, ',')) o.devices.push_back(name);
  }
  const SelftestReport r = runSelftest(o);
  std::printf("%s", r.summary().c_str());
  return r.failed == 0 ? 0 : 1;
}

}  // namespace ks::cli
