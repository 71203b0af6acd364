// `export FILE|SESSION --view egraph|fusion|plan|timeline --format svg|png|dot|json|csv [--step N]
// --out PATH`: the pictures and tables of the GUI, headless.
#include <cstdio>
#include <fstream>

#include "app/cli/cli_common.h"
#include "app/cli/commands.h"
#include "app/cli/program_loader.h"
#include "engine/session/exporters.h"

namespace ks::cli {

int cmdExport(int argc, char** argv) {
  Args args(argc, argv, {});
  args.allowOnly({"view", "format", "step", "out", "devices", "tune", "cache", "seed"});
  if (args.positional().size() != 1) throw UsageError{"expects one FILE (.ks, .onnx) or SESSION (.kss.json)"};
  const std::string view = args.getOr("view", ""), format = args.getOr("format", ""), out = args.getOr("out", "");
  if (view.empty() || format.empty() || out.empty()) throw UsageError{"--view, --format and --out are required"};
  ExportView v;
  if (view == "egraph") v = ExportView::EGraph;
  else if (view == "fusion") v = ExportView::Fusion;
  else if (view == "plan") v = ExportView::Plan;
  else if (view == "timeline") v = ExportView::Timeline;
  else throw UsageError{"--view takes egraph, fusion, plan or timeline"};
  int step = -1;
  try {
    step = std::stoi(args.getOr("step", "-1"));
  } catch (const std::exception&) {
    throw UsageError{"--step takes a number"};
  }
  const std::string path = args.positional()[0];
  const bool isSession = path.size() > 9 && path.substr(path.size() - 9) == ".kss.json";
  Session s = isSession ? Session::load(path) : Session(loadProgram(path), sessionOptions(args));
  if (!isSession) {
    if (v == ExportView::Timeline) s.run({}, false);
    else s.runTo(Stage::Planned);
  }
  const std::string data = exportView(s, v, format, step);
  std::ofstream f(out, std::ios::binary);
  if (!f || !(f << data)) throw Error(ErrorCode::Io, "cannot write", {out});
  std::printf("wrote %s (%zu bytes)\n", out.c_str(), data.size());
  return 0;
}

}  // namespace ks::cli
