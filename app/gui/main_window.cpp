// MainWindow: wiring of views, controller, menus and status; no engine logic here.
#include "app/gui/main_window.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDirIterator>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <algorithm>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLayout>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QScreen>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTime>
#include <QThread>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>

#include "app/gui/compare_dialog.h"
#include "views/autotune_view.h"
#include "views/compare_view.h"
#include "views/devices_view.h"
#include "views/egraph_view.h"
#include "views/fusion_view.h"
#include "views/output_view.h"
#include "views/graph_view.h"
#include "views/kernel_view.h"
#include "views/plan_view.h"
#include "views/program_view.h"
#include "views/rewrites_view.h"

namespace ks {

namespace {
constexpr int kMaxRecent = 10;
}

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle("Kernelscope");
  setWindowIcon(QIcon(":/icons/kernelscope.svg"));
  setAcceptDrops(true);
  setDockNestingEnabled(true);
  setObjectName("MainWindow");
  buildViews();
  buildStatusBar();
  connectController();
  buildMenus();
  QSettings settings;
  restoreGeometry(settings.value("window/geometry").toByteArray());
  restoredLayout_ = restoreState(settings.value("window/state").toByteArray(), kLayoutVersion);
  if (restoredLayout_) settling_ = false;
  if (!settings.contains("window/geometry")) {
    // Un-maximizing the first window should still leave a sensible size.
    const QSize avail = screen() ? screen()->availableGeometry().size() : QSize(1600, 1000);
    resize(avail * 0.85);
  }
}

void MainWindow::buildViews() {
  egraph_ = new EGraphView(&controller_, this);
  program_ = new ProgramView(&controller_, this);
  log_ = new QPlainTextEdit(this);
  log_->setReadOnly(true);
  log_->setMaximumBlockCount(2000);
  auto* fusion = new FusionView(&controller_, this);
  auto* outputs = new OutputView(&controller_, this);
  auto* autotune = new AutotuneView(&controller_, this);
  auto* rewrites = new RewritesView(&controller_, this);
  auto* kernel = new KernelView(&controller_, this);
  auto* plan = new PlanView(&controller_, this);
  auto* devicesView = new DevicesView(&controller_, this);
  devicesView_ = devicesView;
  compareView_ = new CompareView(&controller_, this);
  for (SessionView* v : std::initializer_list<SessionView*>{fusion, outputs, program_, egraph_, autotune, rewrites, kernel, plan,
                                                           devicesView, compareView_})
    controller_.addView(v);

  // The graph being inspected gets the centre; the Plan and Fusion docks keep their tables and
  // hand their graphs to it.
  central_ = new QTabWidget(this);
  central_->setObjectName("CentralGraphs");
  central_->setDocumentMode(true);
  central_->addTab(egraph_, tr("E-graph"));
  central_->addTab(plan->graphView(), tr("Plan graph"));
  central_->addTab(fusion->graphView(), tr("Fusion state"));
  setCentralWidget(central_);

  addDock(program_, tr("Program"), "ProgramDock");
  addDock(autotune, tr("Autotune"), "AutotuneDock");
  addDock(rewrites, tr("Rewrites"), "RewritesDock");  // tabbed beside Autotune: both are searches with a stop reason
  addDock(kernel, tr("Kernel"), "KernelDock");
  followDock(addDock(plan, tr("Plan"), "PlanDock"), plan->graphView());
  addDock(devicesView, tr("Devices"), "DevicesDock");
  addDock(compareView_, tr("Compare"), "CompareDock");
  followDock(addDock(fusion, tr("Fusion"), "FusionDock"), fusion->graphView());
  addDock(outputs, tr("Outputs"), "OutputDock");
  addDock(log_, tr("Log"), "LogDock");
  applyDefaultLayout();
}

void MainWindow::buildStatusBar() {
  status_ = new QLabel(tr("Ready"), this);
  progress_ = new QProgressBar(this);
  progress_->setRange(0, 0);
  progress_->setMaximumWidth(160);
  progress_->hide();
  cancel_ = new QToolButton(this);
  cancel_->setText(tr("Cancel"));
  cancel_->setToolTip(tr("Stop waiting for the running job (Esc)"));
  cancel_->hide();
  statusBar()->addWidget(status_, 1);
  statusBar()->addPermanentWidget(progress_);
  statusBar()->addPermanentWidget(cancel_);
  connect(cancel_, &QToolButton::clicked, this, [this] {
    controller_.cancel();
    log(tr("cancelled"));
  });

  connect(&controller_, &SessionController::busyChanged, this, [this](bool busy, const QString& what) {
    progress_->setVisible(busy);
    if (busy) progress_->setRange(0, 0);  // indeterminate until the first report
    cancel_->setVisible(busy);
    if (!what.isEmpty()) status_->setText(what + (busy ? "…" : ""));
  });
  connect(&controller_, &SessionController::progress, this, [this](double f, const QString& what) {
    progress_->setRange(0, 1000);
    progress_->setValue(static_cast<int>(f * 1000));
    if (!what.isEmpty()) status_->setText(what);
  });
}

// What the controller reports goes to the status bar and the log.
void MainWindow::connectController() {
  // "Compare checked": compile and run once per checked selection; the session shown stays.
  connect(devicesView_, &DevicesView::compareRequested, this, [this](const QStringList& selections) {
    log(tr("comparing on %1").arg(selections.join("; ")));
    controller_.compareDevices(selections);
  });
  connect(compareView_, &CompareView::compareRequested, this, &MainWindow::compareDialog);
  connect(&controller_, &SessionController::diffed, this, [this](const QString& error) {
    status_->setText(error.isEmpty() ? tr("Compared with %1 (the Compare view)").arg(compareView_->pair().otherName)
                                     : tr("Comparison failed: %1").arg(error));
    log(status_->text());
    if (error.isEmpty()) raiseDock("Compare");  // also when a recompile without a rule asked for it
  });
  connect(&controller_, &SessionController::comparisonChanged, this, [this] {
    if (auto c = controller_.comparison()) {
      QStringList parts;
      for (const ComparisonEntry& e : c->entries)
        parts << (e.error.empty() ? QString("%1 %2 us").arg(QString::fromStdString(e.selection)).arg(e.run.totalNs / 1e3, 0, 'f', 1)
                                  : QString("%1 failed").arg(QString::fromStdString(e.selection)));
      status_->setText(tr("Compared: %1").arg(parts.join(", ")));
      log(status_->text());
    }
  });
  connect(&controller_, &SessionController::loaded, this, [this](const QString& path) {
    const SessionSnapshot* s = controller_.snapshot();
    lastError_.clear();
    const QString name = path.isEmpty() ? tr("edited program") : QFileInfo(path).fileName();
    setWindowTitle(QString("%1 — Kernelscope").arg(name));
    status_->setText(tr("Loaded %1: %2 e-classes").arg(name, QString::number(s && s->program ? s->program->graph.classCount() : 0)));
    if (s && s->session) {
      const CompileTrace& t = s->session->trace();
      status_->setText(tr("%1 compiled: %2 e-classes, %3 kernels, plan %4 us (%5 ms to compile)")
                           .arg(name)
                           .arg(s->program->graph.classCount())
                           .arg(t.kernels.size())
                           .arg(t.extraction.totalNs / 1e3, 0, 'f', 1)
                           .arg(t.compileMs, 0, 'f', 0));
    }
    warnings_.clear();
    if (s && s->session)
      for (const std::string& w : s->session->trace().warnings) warnings_ << QString::fromStdString(w);
    if (!warnings_.isEmpty()) status_->setText(status_->text() + tr(" — %n warning(s), see the log", nullptr, int(warnings_.size())));
    log(status_->text());
    for (const QString& w : warnings_) log(tr("warning: %1").arg(w));
    if (!path.isEmpty()) addRecent(path);
  });
  connect(&controller_, &SessionController::failed, this, [this](const CompileFailure& f) {
    lastError_ = f.message;
    status_->setText(tr("Error: %1").arg(f.message));
    log(tr("error: %1").arg(f.message));
    if (f.source.isEmpty()) {
      // Not a program text (binary model, missing file): the editor cannot mark it, so say it here.
      auto* box = new QMessageBox(QMessageBox::Warning, tr("Could not open"), f.message, QMessageBox::Ok, this);
      box->setObjectName("OpenErrorBox");
      box->setAttribute(Qt::WA_DeleteOnClose);
      box->open();
    }
  });
  connect(egraph_->graphView(), &GraphView::statusChanged, this, [this](const QString& s) {
    if (!controller_.isBusy() && !s.isEmpty()) statusBar()->showMessage(s, 8000);
  });
  connect(egraph_->graphView(), &GraphView::layoutFailed, this, [this](const QString& m) { log(tr("layout: %1").arg(m)); });
  connect(egraph_->graphView(), &GraphView::layoutFinished, this, [this](double ms) {
    log(tr("graph laid out in %1 ms").arg(ms, 0, 'f', 0));
  });
}

MainWindow::~MainWindow() = default;

QDockWidget* MainWindow::addDock(QWidget* view, const QString& title, const char* objectName) {
  auto* d = new QDockWidget(title, this);
  d->setObjectName(objectName);
  d->setWidget(view);
  addDockWidget(Qt::RightDockWidgetArea, d);
  return d;
}

QDockWidget* MainWindow::dock(const QString& name) const {
  for (QDockWidget* d : findChildren<QDockWidget*>())
    if (d->objectName().compare(name + "Dock", Qt::CaseInsensitive) == 0 || d->windowTitle().compare(name, Qt::CaseInsensitive) == 0)
      return d;
  return nullptr;
}

void MainWindow::applyDefaultLayout() {
  const bool wasSettling = settling_;
  settling_ = true;
  // Side docks run the full height; the bottom tabs sit under the central graph only.
  setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
  setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
  QDockWidget* program = dock("Program");
  QDockWidget* rightFirst = dock("Autotune");
  const QList<QDockWidget*> bottom{dock("Fusion"), dock("Outputs"), dock("Log")};
  QDockWidget* bottomFirst = bottom.front();
  for (QDockWidget* d : findChildren<QDockWidget*>()) {
    d->setFloating(false);
    d->show();
  }
  addDockWidget(Qt::LeftDockWidgetArea, program);
  addDockWidget(Qt::RightDockWidgetArea, rightFirst);
  addDockWidget(Qt::BottomDockWidgetArea, bottomFirst);
  for (QDockWidget* d : bottom.mid(1)) tabifyDockWidget(bottomFirst, d);
  // Every other dock (the known ones and any added later) competes for the right column.
  for (QDockWidget* d : findChildren<QDockWidget*>())
    if (d != rightFirst && d != program && !bottom.contains(d)) tabifyDockWidget(rightFirst, d);
  rightFirst->raise();
  bottomFirst->raise();
  central_->setCurrentIndex(0);
  // The minimum size was computed while the docks were still stacked, not tabbed: a resize
  // before the first show would be held to it.
  layout()->invalidate();
  layout()->activate();
  sizeDefaultDocks();
  settling_ = wasSettling;
}

void MainWindow::sizeDefaultDocks() {
  const int w = width(), h = height();
  resizeDocks({dock("Program"), dock("Autotune")}, {std::clamp(w / 5, 260, 400), std::clamp(w * 3 / 10, 360, 600)}, Qt::Horizontal);
  resizeDocks({dock("Fusion")}, {std::clamp(h / 4, 170, 300)}, Qt::Vertical);
}

void MainWindow::resetLayout() {
  applyDefaultLayout();
  log(tr("layout reset"));
}

void MainWindow::followDock(QDockWidget* d, QWidget* centralPage) {
  centralPageOf_.insert(d, centralPage);
  connect(d, &QDockWidget::visibilityChanged, this, [this, centralPage](bool visible) {
    if (settling_) return;
    if (visible) central_->setCurrentWidget(centralPage);
    else if (central_->currentWidget() == centralPage) central_->setCurrentIndex(0);
  });
}

void MainWindow::showAsSaved() {
  if (QSettings().contains("window/geometry")) {
    show();
    return;
  }
  showMaximized();
  // Maximizing is the window manager's job; without one (Xvfb, a bare X session) the window
  // would keep its constructor's size, so it takes the screen's available area itself.
  QTimer::singleShot(300, this, [this] {
    if (!screen() || !(windowState() & Qt::WindowMaximized)) return;
    const QRect avail = screen()->availableGeometry();
    if (frameGeometry().width() < avail.width() * 95 / 100 || frameGeometry().height() < avail.height() * 90 / 100)
      setGeometry(avail);
  });
}

void MainWindow::showEvent(QShowEvent* e) {
  QMainWindow::showEvent(e);
  if (!settling_) return;
  // The first show (possibly maximized by the window manager a little later) decides the sizes.
  QTimer::singleShot(1000, this, [this] { settling_ = false; });
}

void MainWindow::resizeEvent(QResizeEvent* e) {
  QMainWindow::resizeEvent(e);
  if (settling_ && !restoredLayout_) sizeDefaultDocks();
}

QString MainWindow::samplesDir() {
  const QString env = qEnvironmentVariable("KS_SOURCE_DIR");
  for (const QString& d : {env.isEmpty() ? QString() : env + "/samples", QCoreApplication::applicationDirPath() + "/../samples",
                           QCoreApplication::applicationDirPath() + "/../share/kernelscope/samples", QString(KS_SAMPLES_DIR)}) {
    if (!d.isEmpty() && QDir(d).exists()) return QDir(d).canonicalPath();
  }
  return QString();
}

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  QAction* open = file->addAction(QIcon::fromTheme("document-open"), tr("&Open…"), this, &MainWindow::openDialog);
  open->setShortcut(QKeySequence::Open);
  sampleMenu_ = file->addMenu(tr("Open &Sample"));
  rebuildSampleMenu();
  recentMenu_ = file->addMenu(tr("Open &Recent"));
  rebuildRecentMenu();
  file->addSeparator();
  QAction* save = file->addAction(tr("Save &Session…"), this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Save session"), "session.kss.json", tr("Sessions (*.kss.json)"));
    if (!path.isEmpty()) controller_.saveSession(path);
  });
  save->setShortcut(QKeySequence::Save);
  save->setEnabled(false);
  save->setToolTip(tr("Compile first: a session holds the whole pipeline's results"));
  connect(&controller_, &SessionController::loaded, save, [this, save] {
    save->setEnabled(controller_.snapshot() && controller_.snapshot()->session);
  });
  connect(&controller_, &SessionController::saved, this, [this](const QString& path, const QString& error) {
    if (error.isEmpty()) log(tr("saved session %1").arg(path));
    else {
      lastError_ = error;
      log(tr("error: %1").arg(error));
      QMessageBox::warning(this, tr("Save session"), error);
    }
  });
  QAction* compareAct = file->addAction(tr("Compare &With…"), this, &MainWindow::compareDialog);
  compareAct->setObjectName("CompareWithAction");
  compareAct->setEnabled(false);
  compareAct->setToolTip(tr("Set this session beside a saved one, or beside its program compiled under other options"));
  connect(&controller_, &SessionController::loaded, compareAct, [this, compareAct] {
    compareAct->setEnabled(controller_.snapshot() && controller_.snapshot()->session);
  });
  connect(&controller_, &SessionController::closed, compareAct, [compareAct] { compareAct->setEnabled(false); });
  QAction* exportAct = file->addAction(tr("&Export Graph…"), this, &MainWindow::exportGraph);
  exportAct->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
  file->addSeparator();
  file->addAction(tr("&Close"), this, [this] { controller_.close(); })->setShortcut(QKeySequence::Close);
  file->addAction(tr("&Quit"), this, &QWidget::close)->setShortcut(QKeySequence::Quit);

  QMenu* pipeline = menuBar()->addMenu(tr("&Pipeline"));
  QAction* compile = pipeline->addAction(tr("&Compile"), &controller_, &SessionController::compile);
  compile->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_B));
  compile->setToolTip(tr("Match, kernelize, autotune, extract and plan on the selected devices"));
  QAction* cancelAct = pipeline->addAction(tr("C&ancel"), this, [this] { cancel_->click(); });
  cancelAct->setShortcut(QKeySequence(Qt::Key_Escape));
  // The same choice as the CLI's --rewrite: it applies to the next compile.
  QMenu* rewrites = pipeline->addMenu(tr("&Rewrites"));
  auto* rewriteGroup = new QActionGroup(this);
  for (RewriteMode m : {RewriteMode::None, RewriteMode::Default, RewriteMode::Aggressive}) {
    QAction* a = rewrites->addAction(QString::fromLatin1(rewriteModeName(m)));
    a->setCheckable(true);
    a->setChecked(controller_.compileOptions().rewrite.mode == m);
    a->setObjectName(QStringLiteral("rewrite-") + QString::fromLatin1(rewriteModeName(m)));
    rewriteGroup->addAction(a);
    connect(a, &QAction::triggered, this, [this, m] { controller_.compileOptions().rewrite.mode = m; });
    // Options set after construction (the --rewrite command-line option) show when the menu opens.
    connect(rewrites, &QMenu::aboutToShow, a, [this, a, m] { a->setChecked(controller_.compileOptions().rewrite.mode == m); });
  }

  viewMenu_ = menuBar()->addMenu(tr("&View"));
  GraphView* gv = egraph_->graphView();
  viewMenu_->addAction(tr("Zoom &In"), this, [gv] { gv->zoomBy(1.25); })->setShortcut(QKeySequence::ZoomIn);
  viewMenu_->addAction(tr("Zoom &Out"), this, [gv] { gv->zoomBy(0.8); })->setShortcut(QKeySequence::ZoomOut);
  viewMenu_->addAction(tr("&Fit"), this, [gv] { gv->fit(); })->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
  viewMenu_->addAction(tr("F&ind in Graph…"), this, [gv] {
    gv->setFocus();
    QKeyEvent ev(QEvent::KeyPress, Qt::Key_F, Qt::ControlModifier);
    QApplication::sendEvent(gv, &ev);
  })->setShortcut(QKeySequence::Find);
  viewMenu_->addSeparator();
  QAction* reset = viewMenu_->addAction(tr("&Reset Layout"), this, &MainWindow::resetLayout);
  reset->setObjectName("ResetLayoutAction");
  reset->setToolTip(tr("Every view back to its default place and size"));
  viewMenu_->addSeparator();
  for (QDockWidget* d : findChildren<QDockWidget*>()) viewMenu_->addAction(d->toggleViewAction());

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&About Kernelscope"), this, &MainWindow::about);
  help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);

  QToolBar* tb = addToolBar(tr("Main"));
  tb->setObjectName("MainToolBar");
  tb->addAction(open);
  tb->addAction(tr("Recompile"), program_, &ProgramView::recompile)->setToolTip(tr("Build the edited program (Ctrl+Return)"));
  tb->addAction(compile);
  tb->addSeparator();
  tb->addAction(tr("Fit"), this, [gv] { gv->fit(); });
  tb->addAction(tr("Export…"), this, &MainWindow::exportGraph);
}

void MainWindow::rebuildSampleMenu() {
  sampleMenu_->clear();
  const QString dir = samplesDir();
  if (dir.isEmpty()) {
    sampleMenu_->addAction(tr("(samples folder not found)"))->setEnabled(false);
    return;
  }
  QStringList files;
  QDirIterator it(dir, {"*.ks", "*.onnx"}, QDir::Files, QDirIterator::Subdirectories);
  while (it.hasNext()) files << it.next();
  files.sort();
  for (const QString& f : files) {
    sampleMenu_->addAction(QDir(dir).relativeFilePath(f), this, [this, f] { openFile(f); });
  }
}

void MainWindow::rebuildRecentMenu() {
  recentMenu_->clear();
  const QStringList recent = QSettings().value("recentFiles").toStringList();
  for (const QString& f : recent) recentMenu_->addAction(f, this, [this, f] { openFile(f); });
  recentMenu_->setEnabled(!recent.isEmpty());
}

void MainWindow::addRecent(const QString& path) {
  QSettings s;
  QStringList recent = s.value("recentFiles").toStringList();
  const QString abs = QFileInfo(path).absoluteFilePath();
  recent.removeAll(abs);
  recent.prepend(abs);
  while (recent.size() > kMaxRecent) recent.removeLast();
  s.setValue("recentFiles", recent);
  rebuildRecentMenu();
}

void MainWindow::openDialog() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Open"), samplesDir(),
                                                    tr("Programs and sessions (*.ks *.onnx *.kss.json);;All files (*)"));
  if (!path.isEmpty()) openFile(path);
}

void MainWindow::compareDialog() {
  const SessionSnapshot* s = controller_.snapshot();
  if (!s || !s->session) return;
  CompareDialog dialog(s->session->options(), this);
  if (dialog.exec() != QDialog::Accepted) return;
  const DiffRequest r = dialog.request();
  log(tr("comparing with %1").arg(r.name()));
  controller_.compareWith(r);
  raiseDock("Compare");
}

void MainWindow::openFile(const QString& path) {
  log(tr("open %1").arg(path));
  controller_.loadProgramFile(path);
}

void MainWindow::exportGraph() {
  const QString path = QFileDialog::getSaveFileName(this, tr("Export graph"), "egraph.svg", tr("SVG (*.svg);;PNG (*.png);;DOT (*.dot)"));
  if (path.isEmpty()) return;
  if (!egraph_->graphView()->exportAny(path)) QMessageBox::warning(this, tr("Export"), tr("Could not write %1").arg(path));
  else log(tr("exported %1").arg(path));
}

void MainWindow::about() {
  QMessageBox::about(this, tr("About Kernelscope"),
                     tr("<h3>Kernelscope %1</h3><p>A workbench for a tensor compiler: every stage, visible.</p>"
                        "<p>E-graph layout by Graphviz; built with Qt %2.</p>")
                         .arg(QCoreApplication::applicationVersion(), qVersion()));
}

QString MainWindow::statusMessage() const { return status_->text(); }

bool MainWindow::isBusy() const {
  if (controller_.isBusy() || controller_.queriesInFlight() > 0) return true;
  // Every graph view (e-graph, fusion, plan) lays out on the layout worker.
  for (GraphView* g : findChildren<GraphView*>())
    if (g->isBusy()) return true;
  return false;
}

bool MainWindow::raiseDock(const QString& name, int width) {
  QDockWidget* d = dock(name);
  if (!d) return false;
  d->show();
  d->raise();
  if (width > 0) resizeDocks({d}, {width}, Qt::Horizontal);
  // Its graph too, even while the first show is settling.
  if (QWidget* page = centralPageOf_.value(d)) central_->setCurrentWidget(page);
  return true;
}

void MainWindow::screenshotWhenIdle(const QString& path, int timeoutMs, std::function<void(bool)> done,
                                    std::function<void()> prepare) {
  auto* timer = new QTimer(this);
  auto* clock = new QElapsedTimer;
  clock->start();
  connect(timer, &QTimer::timeout, this, [=, this] {
    if (isBusy() && clock->elapsed() < timeoutMs) return;
    timer->stop();
    // A picture with something selected says more: the first output's class.
    if (const SessionSnapshot* s = controller_.snapshot(); s && s->program && !s->program->outputs.empty() &&
                                                         !controller_.selection().eclass) {
      Selection sel;
      sel.eclass = s->program->outputs.front().cls.v;
      controller_.select(sel, nullptr);
    }
    if (prepare) prepare();
    timer->deleteLater();
    delete clock;
    // Let views that lay out or animate (charts) settle before the grab.
    for (int i = 0; i < 5; ++i) {
      QApplication::processEvents();
      QThread::msleep(40);
    }
    const bool ok = grab().save(path);
    done(ok);
  });
  timer->start(100);
}

void MainWindow::log(const QString& line) {
  log_->appendPlainText(QTime::currentTime().toString("HH:mm:ss ") + line);
}

void MainWindow::closeEvent(QCloseEvent* e) {
  QSettings s;
  s.setValue("window/geometry", saveGeometry());
  s.setValue("window/state", saveState(kLayoutVersion));
  QMainWindow::closeEvent(e);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
  if (e->mimeData()->hasUrls()) e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* e) {
  const QList<QUrl> urls = e->mimeData()->urls();
  if (!urls.isEmpty() && urls.front().isLocalFile()) openFile(urls.front().toLocalFile());
}

}  // namespace ks
