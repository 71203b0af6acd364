// The main window: opens a sample (program view and e-graph filled), survives bad files with a
// message, follows one selection across views, and can grab a screenshot.
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QDockWidget>
#include <QSettings>
#include <QTabWidget>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QFile>
#include <QLabel>
#include <QTreeWidget>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTableView>
#include <QStandardItemModel>
#include <QTemporaryDir>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>

#include <fstream>
#include <tuple>
#include <nlohmann/json.hpp>

#include "app/gui/main_window.h"
#include "engine/tune/tuning_cache.h"
#include "tests/require_opencl.h"
#include "views/compare_view.h"
#include "views/devices_view.h"
#include "views/diff_kernels_model.h"
#include "views/egraph_view.h"
#include "views/graph_view.h"
#include "views/plan_view.h"
#include "views/program_view.h"
#include "views/rewrites_view.h"

using namespace ks;

namespace {
QString sample(const QString& name) { return QString(KS_SOURCE_DIR) + "/samples/" + name; }
// Shows the window with the softmax sample open, compiling without tuning or a cache file.
void openSoftmaxUntuned(MainWindow& w) {
  w.show();
  w.controller().compileOptions().tune = TuneLevel::None;
  w.controller().compileOptions().cache = "none";
  w.openFile(sample("softmax.ks"));
}
bool waitIdle(MainWindow& w, int ms = 30000) {
  QTest::qWait(50);
  QElapsedTimer t;
  t.start();
  while (w.isBusy() && t.elapsed() < ms) QTest::qWait(20);
  return !w.isBusy();
}
bool writeFile(const QString& path, const char* bytes) {
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly)) return false;
  f.write(bytes);
  return true;
}
// A 10 ms timer on the GUI thread from construction to stop(); the longest gap between its ticks
// is the worst stall while work runs on the worker.
class StallWatchdog {
 public:
  StallWatchdog() {
    clock_.start();
    QObject::connect(&timer_, &QTimer::timeout, [this] {
      const qint64 now = clock_.elapsed();
      worst_ = std::max(worst_, now - last_);
      last_ = now;
    });
    timer_.start(10);
  }
  // Stops the timer, logs "<what> took N ms; worst GUI-thread stall M ms" and returns M.
  qint64 stop(const char* what) {
    timer_.stop();
    qInfo("%s took %lld ms; worst GUI-thread stall %lld ms", what, static_cast<long long>(clock_.elapsed()),
          static_cast<long long>(worst_));
    return worst_;
  }

 private:
  QElapsedTimer clock_;
  qint64 last_ = 0, worst_ = 0;
  QTimer timer_;
};
}  // namespace

class TestMainWindow : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QCoreApplication::setOrganizationName("KernelscopeTest");
    QCoreApplication::setApplicationName("KernelscopeTest");
    QSettings().clear();
  }
  void cleanupTestCase() { QSettings().clear(); }

  // The default layout: the e-graph has the centre, the analysis views are tabbed on the right,
  // fusion, outputs and log at the bottom; Reset layout puts moved, floated and closed docks back;
  // raising the Plan dock brings the plan graph to the centre and raising another the e-graph.
  void defaultLayoutAndReset() {
    QSettings().clear();
    MainWindow w;
    w.resize(1600, 1000);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(!w.restoredLayout());
    auto checkDefault = [&w] {
      QCOMPARE(w.centralTabs()->currentWidget(), static_cast<QWidget*>(w.egraphView()));
      QCOMPARE(w.dockWidgetArea(w.dock("Program")), Qt::LeftDockWidgetArea);
      for (const char* n : {"Autotune", "Rewrites", "Kernel", "Plan", "Devices"}) {
        QCOMPARE(w.dockWidgetArea(w.dock(n)), Qt::RightDockWidgetArea);
        QVERIFY(!w.dock(n)->isFloating());
        QVERIFY(w.dock(n)->toggleViewAction()->isChecked());
      }
      QVERIFY(w.tabifiedDockWidgets(w.dock("Autotune")).contains(w.dock("Plan")));
      QVERIFY(w.tabifiedDockWidgets(w.dock("Autotune")).contains(w.dock("Rewrites")));
      QVERIFY(w.tabifiedDockWidgets(w.dock("Fusion")).contains(w.dock("Log")));
      QCOMPARE(w.dockWidgetArea(w.dock("Log")), Qt::BottomDockWidgetArea);
    };
    checkDefault();
    if (QTest::currentTestFailed()) return;
    // The centre is the largest part of the window, not a column between docks.
    QApplication::processEvents();
    const QWidget* centre = w.centralTabs();
    QVERIFY2(centre->width() >= w.width() * 45 / 100, qPrintable(QString::number(centre->width())));
    QVERIFY2(centre->height() >= w.height() * 55 / 100, qPrintable(QString::number(centre->height())));
    QVERIFY(w.dock("Program")->width() <= w.width() / 4);
    QVERIFY(w.dock("Autotune")->width() <= w.width() / 3);

    w.addDockWidget(Qt::LeftDockWidgetArea, w.dock("Plan"));
    w.dock("Autotune")->setFloating(true);
    w.dock("Kernel")->close();
    QCOMPARE(w.dockWidgetArea(w.dock("Plan")), Qt::LeftDockWidgetArea);
    QAction* reset = w.findChild<QAction*>("ResetLayoutAction");
    QVERIFY(reset);
    reset->trigger();
    checkDefault();
    if (QTest::currentTestFailed()) return;

    QTest::qWait(1200);  // past the first show's settling
    auto* plan = qobject_cast<PlanView*>(w.dock("Plan")->widget());
    QVERIFY(plan);
    w.dock("Plan")->raise();
    QTRY_COMPARE(w.centralTabs()->currentWidget(), static_cast<QWidget*>(plan->graphView()));
    w.dock("Devices")->raise();
    QTRY_COMPARE(w.centralTabs()->currentWidget(), static_cast<QWidget*>(w.egraphView()));
  }

  // A saved layout comes back only when it was saved under the current layout version.
  // All docks together still fit a 1280x800 screen (a dock's minimum width is the column's).
  void fitsALaptopScreen() {
    MainWindow w;
    // Before the first show too: a window resized then shown must get the size asked for.
    QVERIFY2(w.minimumSize().height() <= 740, qPrintable(QString::number(w.minimumSize().height())));
    w.show();
    const QSize min = w.minimumSizeHint();
    QVERIFY2(min.width() <= 1280 && min.height() <= 740, qPrintable(QString("%1x%2").arg(min.width()).arg(min.height())));
  }

  void layoutVersioned() {
    QSettings settings;
    settings.clear();
    QByteArray stale, current;
    {
      MainWindow a;
      a.resize(1200, 800);
      a.show();
      QVERIFY(QTest::qWaitForWindowExposed(&a));
      a.addDockWidget(Qt::LeftDockWidgetArea, a.dock("Plan"));
      stale = a.saveState(MainWindow::kLayoutVersion - 1);
      current = a.saveState(MainWindow::kLayoutVersion);
    }
    settings.setValue("window/state", stale);
    {
      MainWindow b;
      QVERIFY(!b.restoredLayout());
      QCOMPARE(b.dockWidgetArea(b.dock("Plan")), Qt::RightDockWidgetArea);
    }
    settings.setValue("window/state", current);
    {
      MainWindow c;
      QVERIFY(c.restoredLayout());
      QCOMPARE(c.dockWidgetArea(c.dock("Plan")), Qt::LeftDockWidgetArea);
    }
    settings.clear();
  }

  // The first start opens maximized; later starts open as the window was closed.
  void firstStartMaximized() {
    QSettings().clear();
    {
      MainWindow w;
      w.showAsSaved();
      QVERIFY(w.windowState() & Qt::WindowMaximized);
    }
    {
      MainWindow w;
      w.resize(1000, 700);
      w.show();
      QVERIFY(QTest::qWaitForWindowExposed(&w));
      w.close();  // saves geometry and state
    }
    QVERIFY(QSettings().contains("window/geometry"));
    MainWindow w;
    w.showAsSaved();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(!(w.windowState() & Qt::WindowMaximized));
    QCOMPARE(w.size(), QSize(1000, 700));
    QVERIFY(w.restoredLayout());
    QSettings().clear();
  }

  void opensSample() {
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    w.openFile(sample("mlp.ks"));
    QVERIFY(waitIdle(w));
    QVERIFY2(w.lastError().isEmpty(), qPrintable(w.lastError()));
    const SessionSnapshot* s = w.controller().snapshot();
    QVERIFY(s && s->program);
    const Program& p = *s->program;
    // Program view: the text and one row per input, parameter and output.
    QVERIFY(w.programView()->editor()->toPlainText().contains("output"));
    QCOMPARE(w.programView()->ioModel()->rowCount(), static_cast<int>(p.inputs.size() + p.params.size() + p.outputs.size()));
    // E-graph: one cluster per class and one box per e-node (the sample is small: not collapsed).
    GraphView* gv = w.egraphView()->graphView();
    QVERIFY(!gv->isCollapsed());
    QCOMPARE(gv->clusterItemCount(), static_cast<int>(p.graph.classCount()));
    QCOMPARE(gv->nodeItemCount(), static_cast<int>(p.graph.nodeCount()));
    QVERIFY(w.windowTitle().contains("mlp.ks"));
  }

  // Opening a program lists the devices; without an OpenCL device the Devices view says why (the
  // note of `kernelscope-cli devices`), with one it shows no note. ctest runs this once more with
  // the OpenCL loader pointed at an empty folder (KS_EXPECT_NO_OPENCL).
  void devicesSayWhyNoOpenCL() {
    MainWindow w;
    w.show();
    w.openFile(sample("softmax.ks"));
    QVERIFY(waitIdle(w));
    QVERIFY2(w.lastError().isEmpty(), qPrintable(w.lastError()));
    bool opencl = false;
    for (const DeviceInfo& d : w.controller().snapshot()->devicesFound) opencl = opencl || d.kind == DeviceKind::OpenCL;
    const QLabel* note = w.devicesView()->noteLabel();
    if (qEnvironmentVariableIsSet("KS_EXPECT_NO_OPENCL")) {
      QVERIFY(!opencl);
      QVERIFY2(note->text().contains("no OpenCL platform: the OpenCL loader found no driver (no .icd file in " +
                                     qEnvironmentVariable("OCL_ICD_VENDORS")),
               qPrintable(note->text()));
    }
    QCOMPARE(note->isVisibleTo(w.devicesView()), !opencl);
    QCOMPARE(note->text().isEmpty(), opencl);
    // The rows are still there: host and openblas run without OpenCL.
    QVERIFY(w.devicesView()->devicesModel()->rowCount() >= 1);
  }

  void selectionFollowsAcrossViews() {
    MainWindow w;
    w.show();
    w.openFile(sample("mlp.ks"));
    QVERIFY(waitIdle(w));
    const Program& p = *w.controller().snapshot()->program;
    const uint32_t out = p.outputs.front().cls.v;
    // Selecting in the graph updates the controller and the program view's table.
    GraphView* gv = w.egraphView()->graphView();
    QVERIFY(gv->selectSubject({viz::SubjectKind::ENode, p.graph.eclass(ClassId(out)).nodes.front().v}));
    QVERIFY(w.controller().selection().eclass.has_value());
    QCOMPARE(*w.controller().selection().eclass, out);
    // Selecting through the controller (as any other view would) moves the e-graph's side panel.
    Selection sel;
    sel.eclass = p.inputs.front().cls.v;
    w.controller().select(sel, nullptr);
    QCOMPARE(w.egraphView()->detailsPanel()->topLevelItemCount(),
             static_cast<int>(p.graph.eclass(p.inputs.front().cls).nodes.size()));
  }

  void survivesBadFiles() {
    MainWindow w;
    w.show();
    QTemporaryDir dir;
    const QString bad = dir.filePath("bad.ks");
    QVERIFY(writeFile(bad, "input x: f32[2, 3]\ny = relu(x\noutput y\n"));
    w.openFile(bad);
    QVERIFY(waitIdle(w));
    QVERIFY(!w.lastError().isEmpty());
    QVERIFY(w.controller().snapshot() == nullptr);
    // A .ks error is marked in the editor at its line, no dialog.
    QVERIFY(w.programView()->errorLine() >= 2);
    QVERIFY(!w.programView()->errorText().isEmpty());
    QVERIFY(w.findChild<QMessageBox*>("OpenErrorBox") == nullptr);

    // A corrupt ONNX model and a missing file: a message box, and the window stays usable.
    const QString onnx = dir.filePath("broken.onnx");
    QVERIFY(writeFile(onnx, "\x08\x07 this is not a protobuf \xff\xff\xff"));
    w.openFile(onnx);
    QVERIFY(waitIdle(w));
    QVERIFY(!w.lastError().isEmpty());
    QVERIFY(w.findChild<QMessageBox*>("OpenErrorBox") != nullptr);
    w.openFile(dir.filePath("missing.ks"));
    QVERIFY(waitIdle(w));
    QVERIFY(w.lastError().contains("no such file"));

    // Then a good file still opens, and a fix recompiled from the editor clears the error.
    w.openFile(sample("softmax.ks"));
    QVERIFY(waitIdle(w));
    QVERIFY(w.lastError().isEmpty());
    w.programView()->editor()->setPlainText("input x: f32[2, 3]\ny = relu(x\noutput y\n");
    w.programView()->recompile();
    QVERIFY(waitIdle(w));
    QVERIFY(w.programView()->errorLine() >= 2);
    w.programView()->editor()->setPlainText("input x: f32[2, 3]\ny = relu(x)\noutput y\n");
    w.programView()->recompile();
    QVERIFY(waitIdle(w));
    QVERIFY2(w.lastError().isEmpty(), qPrintable(w.lastError()));
    QCOMPARE(w.programView()->errorLine(), 0);
    QCOMPARE(w.controller().snapshot()->program->outputs.size(), std::size_t(1));
  }

  // An edited session is refused with the JSON pointer of the bad value and what was expected:
  // a plan step reading buffer 99999, a plan without buffers (the plan view indexed past them),
  // a kernel store whose rank differs from its value's (the kernel view's source crashed
  // lowering), a schedule_json that is not JSON, an e-graph node of op code 255 (its label read
  // past the op names). The window stays usable and opens the unedited file.
  void survivesEditedSessions() {
    MainWindow w;
    w.show();
    const QString fixture = QString(KS_SOURCE_DIR) + "/tests/data/sessions/softmax.kss.json";
    std::ifstream in(fixture.toStdString());
    const nlohmann::json original = nlohmann::json::parse(in);
    QTemporaryDir dir;
    using Edit = void (*)(nlohmann::json&);
    const std::vector<std::tuple<Edit, const char*, const char*>> edits = {
        {[](nlohmann::json& j) { j["trace"]["plan"]["steps"][2]["inputs"] = {99999}; }, "/trace/plan/steps/2/inputs/0",
         "buffer of the plan"},
        {[](nlohmann::json& j) { j["trace"]["plan"]["buffers"] = nlohmann::json::array(); }, "/trace/plan/steps/0/",
         "buffer of the plan"},
        {[](nlohmann::json& j) { j["trace"]["kernels"][1]["fused"]["kernel"][4]["shape"] = {4096}; },
         "/trace/kernels/1/fused/kernel", "shape [4096] differs from the [4096, 1] its operands give"},
        {[](nlohmann::json& j) { j["trace"]["entries"][0]["schedule_json"] = "{\"wg_n\": 0,"; }, "/trace/entries/0/schedule_json",
         "expected a schedule as JSON text"},
        {[](nlohmann::json& j) { j["graph"]["nodes"][5]["op"] = 255; }, "/graph/nodes/5/op", "expected an op code 0..20"},
    };
    for (const auto& [edit, pointer, expected] : edits) {
      nlohmann::json j = original;
      edit(j);
      const QString path = dir.filePath("edited.kss.json");
      std::ofstream(path.toStdString()) << j.dump();
      w.openFile(path);
      QVERIFY(waitIdle(w));
      QVERIFY2(w.lastError().contains(pointer), qPrintable(w.lastError()));
      QVERIFY2(w.lastError().contains(expected), qPrintable(w.lastError()));
      QVERIFY(w.findChild<QMessageBox*>("OpenErrorBox") != nullptr);
    }
    w.openFile(fixture);
    QVERIFY(waitIdle(w));
    QVERIFY2(w.lastError().isEmpty(), qPrintable(w.lastError()));
    QVERIFY(w.controller().snapshot() && w.controller().snapshot()->session);
    QVERIFY(w.controller().snapshot()->session->hasStage(Stage::Planned));
  }

  // A directory given as the tuning cache stays as it was; the compile goes on with an in-memory
  // cache and the window shows the warning naming the path.
  void cacheThatIsNotOursIsLeftAndWarned() {
    QTemporaryDir dir;
    const QString mine = dir.filePath("mydata");
    QVERIFY(QDir().mkpath(mine));
    QVERIFY(writeFile(mine + "/notes.txt", "mine"));
    MainWindow w;
    w.show();
    w.controller().compileOptions().tune = TuneLevel::None;
    w.controller().compileOptions().cache = mine.toStdString();
    w.openFile(sample("softmax.ks"));
    QVERIFY(waitIdle(w));
    w.controller().compile();
    QVERIFY(waitIdle(w, 120000));
    QVERIFY2(w.lastError().isEmpty(), qPrintable(w.lastError()));
    QCOMPARE(w.warnings().size(), 1);
    QVERIFY2(w.warnings().front().contains(mine) && w.warnings().front().contains("not a file"), qPrintable(w.warnings().front()));
    QVERIFY(w.statusMessage().contains("warning"));
    QVERIFY(QFileInfo(mine).isDir());
    QFile notes(mine + "/notes.txt");
    QVERIFY(notes.open(QIODevice::ReadOnly));
    QCOMPARE(notes.readAll(), QByteArray("mine"));
  }

#ifdef KS_WITH_SQLITE
  // The default tuning cache ($XDG_CACHE_HOME/kernelscope/tuning.sqlite), a cache of ours with
  // damaged pages: it is moved aside to tuning.sqlite.corrupt, the window's log says so (naming
  // both paths) and the compile goes on with a new cache.
  void damagedDefaultCacheIsMovedAsideAndLogged() {
    QTemporaryDir home;
    const QByteArray before = qgetenv("XDG_CACHE_HOME");
    qputenv("XDG_CACHE_HOME", home.path().toUtf8());
    const std::string path = TuningCache::defaultPath();
    QVERIFY2(path.rfind(home.path().toStdString(), 0) == 0, path.c_str());
    {
      std::string w;
      auto c = TuningCache::open(path, &w);
      QVERIFY2(w.empty() && c->persistent(), w.c_str());
      for (int i = 0; i < 120; ++i) c->putMeasurement(uint64_t(i), "dev", {"schedule " + std::to_string(i), "ok", 5.0 + i, std::string(600, 'x')});
    }
    std::string bytes;
    {
      std::ifstream f(path, std::ios::binary);
      bytes.assign(std::istreambuf_iterator<char>(f), {});
    }
    QVERIFY(bytes.size() > 6 * 4096);
    for (std::size_t i = bytes.size() - 3 * 4096; i < bytes.size() - 2 * 4096; ++i) bytes[i] = char(0xA5);
    std::ofstream(path, std::ios::binary) << bytes;
    MainWindow w;
    w.show();
    w.controller().compileOptions().tune = TuneLevel::None;
    w.controller().compileOptions().cache = "";
    w.openFile(sample("softmax.ks"));
    QVERIFY(waitIdle(w));
    w.controller().compile();
    QVERIFY(waitIdle(w, 120000));
    qputenv("XDG_CACHE_HOME", before);
    QVERIFY2(w.lastError().isEmpty(), qPrintable(w.lastError()));
    const QString aside = QString::fromStdString(path + ".corrupt");
    QVERIFY(QFileInfo::exists(aside));
    bool logged = false;
    for (const QString& m : w.warnings()) logged = logged || (m.contains("damaged") && m.contains(aside));
    QVERIFY2(logged, qPrintable(w.warnings().join(" | ")));
    QVERIFY(w.statusMessage().contains("warning"));
  }
#endif

  void compileSaveReopen() {
    MainWindow w;
    openSoftmaxUntuned(w);
    QVERIFY(waitIdle(w));
    const std::size_t classesBefore = w.controller().snapshot()->program->graph.classCount();
    StallWatchdog watchdog;
    w.controller().compile();
    QVERIFY(w.controller().isBusy());
    QVERIFY(waitIdle(w, 120000));
    const qint64 worst = watchdog.stop("compile");
    QVERIFY2(worst < 1000, qPrintable(QString("GUI thread stalled %1 ms").arg(worst)));
    QVERIFY2(w.lastError().isEmpty(), qPrintable(w.lastError()));
    const SessionSnapshot* s = w.controller().snapshot();
    QVERIFY(s && s->session);
    QVERIFY(s->session->hasStage(Stage::Planned));
    // The e-graph now shows the session's graph (kernel nodes joined it) with the extraction.
    QVERIFY(s->program->graph.nodeCount() > classesBefore);
    const viz::ExtractionIndex extraction(&s->session->trace().extraction);
    QVERIFY(!extraction.empty());
    QCOMPARE(w.egraphView()->graphView()->model().nodes.size(), s->program->graph.nodeCount());
    int chosen = 0;
    for (const auto& n : w.egraphView()->graphView()->model().nodes) chosen += n.style == viz::Style::Chosen;
    QCOMPARE(chosen, static_cast<int>(extraction.chosen.size()));

    QTemporaryDir dir;
    const QString path = dir.filePath("s.kss.json");
    QSignalSpy saved(&w.controller(), &SessionController::saved);
    QVERIFY(w.controller().saveSession(path));
    QVERIFY(saved.wait(30000));
    QCOMPARE(saved.front().at(1).toString(), QString());
    const std::size_t nodes = s->program->graph.nodeCount();
    w.openFile(path);
    QVERIFY(waitIdle(w));
    QVERIFY2(w.lastError().isEmpty(), qPrintable(w.lastError()));
    QVERIFY(w.controller().snapshot()->session);
    QCOMPARE(w.controller().snapshot()->program->graph.nodeCount(), nodes);
  }

  // Devices comparison through the controller: compile (its run joins the comparison), compare
  // host and an OpenCL device (run on the worker; the session shown stays), recompile the same
  // program (the comparison stays), cancel a comparison (nothing changes), open another program
  // (the comparison is dropped).
  void compareKeptAcrossRecompiles() {
    std::string ocl;
    for (const DeviceInfo& d : discoverDevices())
      if (d.compiles() && ocl.empty()) ocl = d.name;
    if (ocl.empty()) KS_SKIP_WITHOUT_OPENCL();
    MainWindow w;
    openSoftmaxUntuned(w);
    QVERIFY(waitIdle(w));
    w.controller().compile();
    QVERIFY(waitIdle(w, 120000));
    QVERIFY2(w.lastError().isEmpty(), qPrintable(w.lastError()));
    auto first = w.controller().comparison();
    QVERIFY(first && first->entries.size() == 1);
    std::string own;
    for (const DeviceInfo& d : w.controller().snapshot()->session->devices()) own += (own.empty() ? "" : ",") + d.name;
    QCOMPARE(first->entries[0].selection, own);
    const Session* session = w.controller().snapshot()->session.get();

    QSignalSpy changed(&w.controller(), &SessionController::comparisonChanged);
    StallWatchdog watchdog;  // the comparison compiles and runs on the worker
    w.controller().compareDevices({"host", QString::fromStdString(ocl)}, 2);
    QVERIFY(w.controller().isBusy());
    QVERIFY(waitIdle(w, 120000));
    const qint64 worst = watchdog.stop("comparison");
    QVERIFY2(worst < 1000, qPrintable(QString("GUI thread stalled %1 ms").arg(worst)));
    QVERIFY2(w.lastError().isEmpty(), qPrintable(w.lastError()));
    QCOMPARE(changed.count(), 1);
    auto c = w.controller().comparison();
    const std::size_t n = own == ocl ? 2 : 3;
    QCOMPARE(c->entries.size(), n);
    QCOMPARE(c->entries.front().selection, std::string("host"));  // the order the view lists them
    QVERIFY(c->find(ocl) && c->find(ocl)->error.empty() && c->find(ocl)->repeats == 2);
    QCOMPARE(w.controller().snapshot()->session.get(), session);  // the session shown stays
    QCOMPARE(w.devicesView()->comparisonModel()->columnCount(), 2 + DevicesView::kColumnsPerSelection * int(n));

    w.controller().compile();  // the same program again: the comparison goes on
    QVERIFY(waitIdle(w, 120000));
    QCOMPARE(w.controller().comparison()->entries.size(), n);
    QVERIFY(w.controller().comparison()->find("host"));

    w.controller().compareDevices({"host"}, 1);
    w.controller().cancel();
    QVERIFY(waitIdle(w));
    QCOMPARE(w.controller().comparison()->entries.size(), n);

    w.openFile(sample("layer_norm.ks"));
    QVERIFY(waitIdle(w));
    QVERIFY(!w.controller().comparison() || w.controller().comparison()->empty());
    QCOMPARE(w.devicesView()->comparisonModel()->rowCount(), 0);
  }

  // "Recompile without this rule" from the Rewrites dock: the program compiles again on the worker
  // with the rule off, the GUI thread stays free, the shown session stays, and the dock sets the
  // two plans side by side.
  void recompileWithoutARule() {
    MainWindow w;
    w.show();
    w.controller().compileOptions().tune = TuneLevel::None;
    w.controller().compileOptions().cache = "none";
    w.controller().compileOptions().rewrite.mode = RewriteMode::Default;
    w.openFile(sample("matmul_chain.ks"));
    QVERIFY(waitIdle(w));
    w.controller().compile();
    QVERIFY(waitIdle(w, 120000));
    QVERIFY2(w.lastError().isEmpty(), qPrintable(w.lastError()));
    auto* view = qobject_cast<RewritesView*>(w.dock("Rewrites")->widget());
    QVERIFY(view);
    const Session* session = w.controller().snapshot()->session.get();
    const auto& rules = session->trace().rewrite.report.rules;
    int row = -1;
    for (std::size_t i = 0; i < rules.size() && row < 0; ++i)
      if (rules[i].nodesAdded > 0) row = int(i);
    QVERIFY(row >= 0);
    const QString rule = QString::fromStdString(rules[std::size_t(row)].rule);
    view->hideIdleBox()->setChecked(false);  // table rows are the report's rows
    view->table()->selectRow(row);
    StallWatchdog watchdog;
    view->recompileButton()->click();
    QVERIFY(w.controller().isRunning(RequestKind::Ablation));
    QVERIFY(waitIdle(w, 120000));
    const qint64 worst = watchdog.stop("recompile without a rule");
    QVERIFY2(worst < 1000, qPrintable(QString("GUI thread stalled %1 ms").arg(worst)));
    QCOMPARE(w.controller().snapshot()->session.get(), session);
    const QString text = view->comparison()->text();
    QVERIFY2(text.contains("without " + rule) && text.contains("all rules"), qPrintable(text));
    QVERIFY(view->recompileButton()->isEnabled());
    // The two sessions are in the Compare view too, which comes to the front.
    QCOMPARE(w.compareView()->pair().otherName, "without " + rule);
    QVERIFY(w.compareView()->pair().diff);
    QCOMPARE(w.compareView()->pair().a.get(), session);
    QVERIFY(w.dock("Compare")->isVisible());

    // Cancelled, it answers at once: the dock says so and can be asked again.
    view->recompileButton()->click();
    QVERIFY(!view->recompileButton()->isEnabled());
    w.controller().cancel();
    QVERIFY2(view->comparison()->text().contains("cancelled"), qPrintable(view->comparison()->text()));
    QVERIFY(view->recompileButton()->isEnabled());
    QVERIFY(waitIdle(w, 120000));
  }

  // Compare with the program compiled under another tune level: B compiles on the worker (the GUI
  // thread never stalls), the dock lists the kernels that changed, the e-graph and plan views
  // keep the shown session; a cancel answers at once.
  void compareWithAnotherTuneLevel() {
    MainWindow w;
    w.show();
    w.controller().compileOptions().tune = TuneLevel::None;
    w.controller().compileOptions().cache = "none";
    w.controller().compileOptions().budgetCount = 2;
    w.openFile(sample("mlp.ks"));
    QVERIFY(waitIdle(w));
    w.controller().compile();
    QVERIFY(waitIdle(w, 120000));
    QVERIFY2(w.lastError().isEmpty(), qPrintable(w.lastError()));
    QAction* act = w.findChild<QAction*>("CompareWithAction");
    QVERIFY(act && act->isEnabled());
    const Session* shown = w.controller().snapshot()->session.get();
    DiffRequest r;
    r.tune = TuneLevel::Quick;
    QSignalSpy diffed(&w.controller(), &SessionController::diffed);
    StallWatchdog watchdog;
    w.controller().compareWith(r);
    QVERIFY(w.controller().isRunning(RequestKind::Diff));
    QVERIFY(w.compareView()->summary()->text().contains("tune quick"));
    QVERIFY(waitIdle(w, 120000));
    const qint64 worst = watchdog.stop("compare with tune quick");
    QVERIFY2(worst < 1000, qPrintable(QString("GUI thread stalled %1 ms").arg(worst)));
    QCOMPARE(diffed.count(), 1);
    QVERIFY2(diffed.front().front().toString().isEmpty(), qPrintable(diffed.front().front().toString()));
    QCOMPARE(w.controller().snapshot()->session.get(), shown);
    QVERIFY(w.compareView()->kernelsModel()->rowCount() > 0);

    w.controller().compareWith(r);
    w.controller().cancel();
    QVERIFY2(w.compareView()->summary()->text().contains("cancelled"), qPrintable(w.compareView()->summary()->text()));
    QCOMPARE(w.compareView()->kernelsModel()->rowCount(), 0);
    QVERIFY(waitIdle(w, 120000));
  }

  // Requests carry a kind: a comparison asked for while a compile runs leaves it running (both
  // deliver), and a second compile replaces the first (one session arrives).
  void requestsReplaceOnlyTheirKind() {
    MainWindow w;
    openSoftmaxUntuned(w);
    QVERIFY(waitIdle(w));
    QSignalSpy loaded(&w.controller(), &SessionController::loaded);
    QSignalSpy compared(&w.controller(), &SessionController::comparisonChanged);
    w.controller().compile();
    w.controller().compareDevices({"host"}, 1);
    QVERIFY(w.controller().isRunning(RequestKind::Program));
    QVERIFY(w.controller().isRunning(RequestKind::Comparison));
    QVERIFY(waitIdle(w, 120000));
    QVERIFY2(w.lastError().isEmpty(), qPrintable(w.lastError()));
    QCOMPARE(loaded.count(), 1);
    QCOMPARE(compared.count(), 1);
    QVERIFY(w.controller().snapshot()->session);
    loaded.clear();
    w.controller().compile();
    w.controller().compile();
    QVERIFY(waitIdle(w, 120000));
    QCOMPARE(loaded.count(), 1);
  }

  void screenshot() {
    MainWindow w;
    w.resize(1200, 800);
    w.show();
    w.openFile(sample("softmax.ks"));
    QTemporaryDir dir;
    const QString path = dir.filePath("shot.png");
    bool finished = false, ok = false;
    w.screenshotWhenIdle(path, 30000, [&](bool r) {
      ok = r;
      finished = true;
    });
    QTRY_VERIFY_WITH_TIMEOUT(finished, 40000);
    QVERIFY(ok);
    QImage img(path);
    QVERIFY(!img.isNull());
    QVERIFY(img.width() >= 1000);
  }
};

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
