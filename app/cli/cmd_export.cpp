// `export FILE|SESSION --view egraph|fusion|plan|timeline --format svg|png|dot|json|csv [--step N]
// [--expand GROUPS] --out PATH`: the pictures and tables of the GUI, headless.
#include <cstdio>

#include "app/cli/cli_common.h"
#include "app/cli/commands.h"
#include "app/cli/program_loader.h"
#include "engine/core/file_io.h"
#include "engine/session/exporters.h"

namespace ks::cli {

int cmdExport(int argc, char** argv) {
  Args args("export");
  SessionFlags flags;
  addSessionFlags(args, flags, false);
  std::string view, format, out;
  ExportOptions options;
  args.app().add_option("--view", view, "the picture or table")->required()
      ->check(CLI::IsMember({"egraph", "fusion", "plan", "timeline"}));
  args.app().add_option("--format", format, "svg, png, dot, json or csv")->required()
      ->check(CLI::IsMember({"svg", "png", "dot", "json", "csv"}));
  args.app().add_option("--step", options.step, "fusion view: the state after step N (default: the last)")->check(atLeast(0));
  args.app().add_option("--expand", options.expand, "groups shown open: g0,g3 (ids from the JSON) or all");
  args.app().add_option("--out", out, "the file to write")->required();
  args.positionals("FILE|SESSION", "a .ks program, an .onnx model or a .kss.json session");
  if (!args.parse(argc, argv)) return 0;
  if (args.positional().size() != 1) throw UsageError{"expects one FILE (.ks, .onnx) or SESSION (.kss.json)"};
  const ExportView v = view == "egraph" ? ExportView::EGraph
                       : view == "fusion" ? ExportView::Fusion
                       : view == "plan"   ? ExportView::Plan
                                          : ExportView::Timeline;
  const std::string path = args.positional()[0];
  const bool isSession = path.size() > 9 && path.substr(path.size() - 9) == ".kss.json";
  Session s = isSession ? Session::load(path) : Session(loadProgram(path), sessionOptions(flags));
  if (!isSession) {
    if (v == ExportView::Timeline) s.run({}, false);
    else s.runTo(Stage::Planned);
  }
  for (const std::string& w : s.trace().warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
  const std::size_t steps = s.trace().shownRun() ? s.trace().shownRun()->trace.steps.size() : 0;
  if (options.step >= 0 && v != ExportView::Fusion) throw UsageError{"--step applies to --view fusion only"};
  if (options.step >= 0 && static_cast<std::size_t>(options.step) >= steps)
    throw UsageError{"--step " + std::to_string(options.step) + " is past the last fusion step (" +
                     (steps ? "0 to " + std::to_string(steps - 1) : std::string("the trace has no steps")) + ")"};
  const std::string data = exportView(s, v, format, options);
  writeFileAtomically(out, data, "the exported view");
  std::printf("wrote %s (%zu bytes)\n", out.c_str(), data.size());
  return 0;
}

}  // namespace ks::cli
