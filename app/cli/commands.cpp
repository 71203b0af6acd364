// The command table. Add a command: write cmd_<name>.cpp defining int cmd<Name>(int, char**),
// declare it here and add a row.
#include "app/cli/commands.h"

namespace ks::cli {

int cmdPrint(int argc, char** argv);
int cmdCheck(int argc, char** argv);
int cmdDevices(int argc, char** argv);
int cmdRun(int argc, char** argv);
int cmdBench(int argc, char** argv);
int cmdSelftest(int argc, char** argv);
int cmdExport(int argc, char** argv);
int cmdExplainFusion(int argc, char** argv);
int cmdExplainPlan(int argc, char** argv);
int cmdCache(int argc, char** argv);
int cmdDiff(int argc, char** argv);

const Command kCommands[] = {
    {"devices", "devices [--json]   list every device: host, opencl:P:D, openblas", cmdDevices},
    {"run",
     "run FILE [--devices L] [--input NAME=FILE]... [--seed N] [--verify] [--save-outputs DIR] [--tune none|quick|full] "
     "[--cache PATH|none] [--session OUT.kss.json] [--steps N] [--json]   compile, tune, plan, execute (N steps of a training program)",
     cmdRun},
    {"bench", "bench FILE [--devices L]... [--compare] [--baseline SEL] [--repeat N] [--json|--csv]   one plan per device and the mixed plan, medians and ratios; several --devices (or --compare): those selections side by side",
     cmdBench},
    {"selftest", "selftest [--devices L] [--programs N] [--seed S]   random programs on every device vs the host oracle",
     cmdSelftest},
    {"export",
     "export FILE|SESSION --view egraph|fusion|plan|timeline --format svg|png|dot|json|csv [--step N] [--expand GROUPS] --out PATH",
     cmdExport},
    {"explain-fusion", "explain-fusion FILE CLASS_A CLASS_B [--run N]   the step and rule that put two classes in different kernels, in the plan's kernelizer run or run N",
     cmdExplainFusion},
    {"explain-plan", "explain-plan FILE CLASS [--json] [--devices L] [--tune none|quick|full] [--rewrite MODE]   the chosen producer of a class, its measured time, the runner-up's and the plan cost without it",
     cmdExplainPlan},
    {"diff", "diff A.kss.json B.kss.json [--json]   two sessions matched by structure: per-kernel times, plan steps changed, the decisions that differ",
     cmdDiff},
    {"cache", "cache clear [--cache PATH]   empty the tuning cache", cmdCache},
    {"check", "check [--devices L] [--min-pass P] [--summary] [--verbose] [--timeout S] DIR...   run ONNX backend-test folders",
     cmdCheck},
    {"print", "print FILE [--dump] [--ks] [--ks-graph]   parse a .ks/.onnx program and print its e-graph, or (--ks) the program as .ks text", cmdPrint},
};
const int kNumCommands = sizeof(kCommands) / sizeof(kCommands[0]);

}  // namespace ks::cli
