// The Kernelscope main window: the graph being inspected in the centre (e-graph, plan or fusion
// state), dockable views around it, menus, toolbar, status bar with progress and Cancel, recent
// files, drag and drop, window state kept in QSettings under a layout version.
#pragma once
#include <QMainWindow>
#include <QHash>
#include <QStringList>
#include <functional>

#include "app/gui/session_controller.h"

class QLabel;
class QProgressBar;
class QToolButton;
class QMenu;
class QPlainTextEdit;
class QDockWidget;
class QTabWidget;

namespace ks {

class CompareView;
class DevicesView;
class EGraphView;
class ProgramView;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  // Saved dock states of another version are not restored: a new or renamed dock would
  // otherwise come back into a layout that never had it.
  static constexpr int kLayoutVersion = 4;

  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // Shows the window as it was left, or maximized on the first start (nothing saved yet).
  void showAsSaved();
  // Every dock back to its default place, size and tab group (View > Reset layout).
  void resetLayout();
  // True when the constructor restored a saved dock layout of this version.
  bool restoredLayout() const { return restoredLayout_; }
  // The central graphs: the e-graph, the plan graph and the fusion state, one tab each; raising
  // the Plan or Fusion dock brings its graph to the front.
  QTabWidget* centralTabs() const { return central_; }
  QDockWidget* dock(const QString& name) const;

  SessionController& controller() { return controller_; }
  EGraphView* egraphView() const { return egraph_; }
  ProgramView* programView() const { return program_; }
  QString lastError() const { return lastError_; }
  // The warnings of the session shown (an unusable tuning cache, ...), also in the log.
  QStringList warnings() const { return warnings_; }
  QString statusMessage() const;

  void openFile(const QString& path);
  // True while a load, compile or layout is still running.
  bool isBusy() const;
  // Calls done(ok) once nothing is running (or after timeoutMs), having saved a grab of the window;
  // `prepare` runs once idle, just before the grab (select something, raise a view).
  void screenshotWhenIdle(const QString& path, int timeoutMs, std::function<void(bool)> done,
                          std::function<void()> prepare = {});
  // Shows and raises the dock named `name` ("Devices", "Plan", ...; its title or object name
  // without "Dock"), widening its dock area to `width` pixels when > 0. False when none.
  bool raiseDock(const QString& name, int width = 0);
  DevicesView* devicesView() const { return devicesView_; }
  CompareView* compareView() const { return compareView_; }
  // File > Compare with…: asks what to compare the shown session with, then starts it.
  void compareDialog();
  static QString samplesDir();

 protected:
  void closeEvent(QCloseEvent* e) override;
  void showEvent(QShowEvent* e) override;
  void resizeEvent(QResizeEvent* e) override;
  void dragEnterEvent(QDragEnterEvent* e) override;
  void dropEvent(QDropEvent* e) override;

 private:
  void buildViews();
  void buildStatusBar();
  void connectController();
  QDockWidget* addDock(QWidget* view, const QString& title, const char* objectName);
  void applyDefaultLayout();
  void sizeDefaultDocks();
  void followDock(QDockWidget* d, QWidget* centralPage);
  void buildMenus();
  void openDialog();
  void exportGraph();
  void about();
  void addRecent(const QString& path);
  void rebuildRecentMenu();
  void rebuildSampleMenu();
  void log(const QString& line);

  SessionController controller_;
  EGraphView* egraph_;
  ProgramView* program_;
  DevicesView* devicesView_ = nullptr;
  CompareView* compareView_ = nullptr;
  QPlainTextEdit* log_;
  QLabel* status_;
  QProgressBar* progress_;
  QToolButton* cancel_;
  QMenu* recentMenu_ = nullptr;
  QMenu* sampleMenu_ = nullptr;
  QMenu* viewMenu_ = nullptr;
  QTabWidget* central_ = nullptr;
  QHash<QDockWidget*, QWidget*> centralPageOf_;  // docks whose graph lives in the centre
  QString lastError_;
  QStringList warnings_;  // of the session shown
  bool restoredLayout_ = false;
  // Until the first show has settled, the default dock sizes follow the window's size (it becomes
  // maximized after the constructor) and raised docks do not switch the central graph.
  bool settling_ = true;
};

}  // namespace ks
