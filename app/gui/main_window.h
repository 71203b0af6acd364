// The Kernelscope main window: dockable views around the e-graph, menus, toolbar, status bar with
// progress and Cancel, recent files, drag and drop, window state kept in QSettings.
#pragma once
#include <QMainWindow>
#include <QStringList>
#include <functional>

#include "app/gui/session_controller.h"

class QLabel;
class QProgressBar;
class QToolButton;
class QMenu;
class QPlainTextEdit;

namespace ks {

class DevicesView;
class EGraphView;
class ProgramView;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  SessionController& controller() { return controller_; }
  EGraphView* egraphView() const { return egraph_; }
  ProgramView* programView() const { return program_; }
  QString lastError() const { return lastError_; }
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
  static QString samplesDir();

 protected:
  void closeEvent(QCloseEvent* e) override;
  void dragEnterEvent(QDragEnterEvent* e) override;
  void dropEvent(QDropEvent* e) override;

 private:
  void buildStatusBar();
  void connectController();
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
  QPlainTextEdit* log_;
  QLabel* status_;
  QProgressBar* progress_;
  QToolButton* cancel_;
  QMenu* recentMenu_ = nullptr;
  QMenu* sampleMenu_ = nullptr;
  QMenu* viewMenu_ = nullptr;
  QString lastError_;
};

}  // namespace ks
