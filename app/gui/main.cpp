// kernelscope: the GUI. `kernelscope [FILE] [--compile] [--compare LIST] [--compare-with SPEC] [--raise VIEWS] [--screenshot PATH]`.
#include <QApplication>
#include <QDockWidget>
#include <QCommandLineParser>
#include <QIcon>
#include <QStandardItemModel>
#include <QTimer>
#include <cstdio>
#include <map>
#include <memory>

#include "app/gui/diff_request.h"
#include "app/gui/main_window.h"
#include "views/devices_view.h"
#include "views/graph_view.h"
#include "views/overlay_controls.h"

namespace {
// --colour-by and --values for every graph view that has the overlay (e-graph, plan); the choice
// stays across the compile that follows, as a user's would.
bool applyOverlay(ks::MainWindow& w, const QString& name, bool values) {
  static const std::map<QString, ks::viz::Metric> kByName = {{"none", ks::viz::Metric::None},
                                                            {"time", ks::viz::Metric::Time},
                                                            {"gbs", ks::viz::Metric::GBs},
                                                            {"gflops", ks::viz::Metric::GFlops},
                                                            {"peak", ks::viz::Metric::PeakPct}};
  auto it = kByName.find(name.toLower());
  if (it == kByName.end()) return false;
  for (ks::GraphView* g : w.findChildren<ks::GraphView*>()) {
    if (!g->overlayControls()) continue;
    g->overlayControls()->setMetric(it->second);
    g->overlayControls()->setShowValues(values);
  }
  return true;
}
// --compare-with: once a compiled session is shown (after --compile, or a .kss.json opened).
bool startDiffOnceCompiled(ks::MainWindow& w, const QString& spec) {
  QString error;
  const std::optional<ks::DiffRequest> r = ks::parseDiffRequest(spec, &error);
  if (!r) {
    std::fprintf(stderr, "%s\n", qPrintable(error));
    return false;
  }
  auto conn = std::make_shared<QMetaObject::Connection>();
  *conn = QObject::connect(&w.controller(), &ks::SessionController::loaded, &w, [&w, conn, req = *r] {
    if (!w.controller().snapshot() || !w.controller().snapshot()->session) return;
    QObject::disconnect(*conn);
    QTimer::singleShot(0, &w, [&w, req] { w.controller().compareWith(req); });
  });
  return true;
}
}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setOrganizationName("Kernelscope");
  QApplication::setApplicationName("Kernelscope");
  QApplication::setApplicationVersion("0.1.0");
  QApplication::setWindowIcon(QIcon(":/icons/kernelscope.svg"));

  QCommandLineParser parser;
  parser.setApplicationDescription("Kernelscope: a workbench that runs a tensor compiler and shows every stage.");
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument("file", "A .ks program, an .onnx model or a sample to open.");
  QCommandLineOption shot("screenshot", "Save a picture of the window to PATH once loading is done, then quit.", "PATH");
  QCommandLineOption size("size", "Window size for --screenshot, e.g. 1600x1000.", "WxH", "1600x1000");
  QCommandLineOption compile("compile", "Compile the opened program (all pipeline stages) once it is loaded.");
  QCommandLineOption tune("tune", "Autotuning level for compiles: none, quick or full.", "LEVEL", "quick");
  QCommandLineOption rewrite("rewrite", "Rewrite rules for compiles: none, default or aggressive.", "MODE", "default");
  QCommandLineOption devices("devices", "Devices for compiles, a comma list (default: all).", "LIST", "all");
  QCommandLineOption compare("compare",
                             "After compiling, compare these device selections (';'-separated, each a --devices list, "
                             "e.g. \"host;opencl:0:0;opencl:0:0,openblas\"; \"all\": every selection found).",
                             "LIST");
  QCommandLineOption compareWith("compare-with",
                                 "Once compiled, compare the session with SPEC (the Compare view): a .kss.json, or "
                                 "options to compile the program again with, e.g. \"tune=quick\", \"rewrite=none\", "
                                 "\"devices=host\" (';' between devices), comma-separated.",
                                 "SPEC");
  QCommandLineOption raise("raise", "Views to show in front, comma-separated (Autotune, Rewrites, Kernel, Plan, Devices, Compare, Fusion, Outputs, Log).",
                           "NAMES");
  QCommandLineOption hide("hide", "Views to close, comma-separated (e.g. Program,Log), to give the others room.", "NAMES");
  QCommandLineOption dockWidth("dock-width", "Width in pixels of the raised views' dock area (with --raise).", "PX", "0");
  QCommandLineOption colourBy("colour-by", "Colour e-graph and plan nodes by: none, time, gbs, gflops or peak.", "METRIC", "none");
  QCommandLineOption values("values", "Show each node's measured value (with --colour-by).");
  QCommandLineOption selectKernel("select-kernel", "Select this kernel (index) before --screenshot.", "N");
  QCommandLineOption fusionStep("fusion-step", "Show the kernels after this fusion step (index) before --screenshot.", "N");
  parser.addOption(compare);
  parser.addOption(compareWith);
  parser.addOption(raise);
  parser.addOption(dockWidth);
  parser.addOption(hide);
  parser.addOption(selectKernel);
  parser.addOption(fusionStep);
  parser.addOption(colourBy);
  parser.addOption(values);
  parser.addOption(compile);
  parser.addOption(tune);
  parser.addOption(devices);
  parser.addOption(rewrite);
  parser.addOption(shot);
  parser.addOption(size);
  parser.process(app);

  ks::MainWindow w;
  if (parser.isSet(shot)) {
    // A picture of the default layout at the asked size, whatever was saved last time.
    const QStringList wh = parser.value(size).split('x');
    w.setWindowState(Qt::WindowNoState);
    if (wh.size() == 2) w.resize(wh[0].toInt(), wh[1].toInt());
    w.resetLayout();
  }
  const QString level = parser.value(tune);
  w.controller().compileOptions().tune = level == "none" ? ks::TuneLevel::None : level == "full" ? ks::TuneLevel::Full : ks::TuneLevel::Quick;
  w.controller().compileOptions().devices = parser.value(devices).toStdString();
  if (auto mode = ks::parseRewriteMode(parser.value(rewrite).toStdString())) w.controller().compileOptions().rewrite.mode = *mode;
  if (parser.isSet(shot)) w.show();
  else w.showAsSaved();
  if (!parser.positionalArguments().isEmpty()) w.openFile(parser.positionalArguments().front());
  if (parser.isSet(compile) || parser.isSet(compare)) {
    // Once, after the first successful load; then, after the compile, the comparison (started
    // from the loaded signal itself, so the window never looks idle in between).
    auto loads = std::make_shared<int>(0);
    const QString list = parser.value(compare);
    auto conn = std::make_shared<QMetaObject::Connection>();
    *conn = QObject::connect(&w.controller(), &ks::SessionController::loaded, &w, [&w, conn, loads, list] {
      if (++*loads == 1) {
        QTimer::singleShot(0, &w, [&w] { w.controller().compile(); });
        if (!list.isEmpty()) return;
      } else if (!list.isEmpty()) {
        QStringList sels = list.split(';', Qt::SkipEmptyParts);
        if (list == "all") {
          sels.clear();
          for (int r = 0; r < w.devicesView()->devicesModel()->rowCount(); ++r)
            sels << w.devicesView()->devicesModel()->item(r, 0)->text();
        }
        w.devicesView()->setChecked(sels);
        w.controller().compareDevices(sels);
      }
      QObject::disconnect(*conn);
    });
  }
  if (parser.isSet(compareWith) && !startDiffOnceCompiled(w, parser.value(compareWith))) return 2;
  if (!applyOverlay(w, parser.value(colourBy), parser.isSet(values)))
    std::fprintf(stderr, "unknown --colour-by %s (none, time, gbs, gflops, peak)\n", qPrintable(parser.value(colourBy)));
  for (const QString& name : parser.value(hide).split(',', Qt::SkipEmptyParts))
    for (QDockWidget* d : w.findChildren<QDockWidget*>())
      if (d->objectName().compare(name.trimmed() + "Dock", Qt::CaseInsensitive) == 0) d->close();
  for (const QString& name : parser.value(raise).split(',', Qt::SkipEmptyParts))
    if (!w.raiseDock(name.trimmed(), parser.value(dockWidth).toInt()))
      std::fprintf(stderr, "no view named %s\n", qPrintable(name));
  if (parser.isSet(shot)) {
    const QString path = parser.value(shot);
    const QString kernel = parser.value(selectKernel), step = parser.value(fusionStep);
    // Give the load a moment to start before waiting for idle.
    QTimer::singleShot(200, &w, [&w, path, kernel, step] {
      w.screenshotWhenIdle(path, 600000, [path](bool ok) {
        std::fprintf(ok ? stdout : stderr, "%s %s\n", ok ? "saved" : "could not save", qPrintable(path));
        QApplication::exit(ok ? 0 : 1);
      }, [&w, kernel, step] {
        ks::Selection s = w.controller().selection();
        if (!kernel.isEmpty()) s.kernel = kernel.toUInt();
        if (!step.isEmpty()) s.fusionStep = step.toUInt();
        w.controller().select(s, nullptr);
      });
    });
  }
  return app.exec();
}
