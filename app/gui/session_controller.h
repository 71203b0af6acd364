// SessionController: owns the worker thread, what is loaded and the one shared selection; every
// view implements SessionView and is told about loads, closes and selection changes.
#pragma once
#include <QObject>
#include <QStringList>
#include <QThread>
#include <array>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "app/gui/diff_request.h"
#include "views/query_runner.h"
#include "views/session_view.h"

namespace ks {

class SessionController : public QObject, public SessionContext {
  Q_OBJECT
 public:
  explicit SessionController(QObject* parent = nullptr);
  ~SessionController() override;

  void addView(SessionView* v);
  void removeView(SessionView* v);

  const SessionSnapshot* snapshot() const override { return snapshot_ ? snapshot_.get() : nullptr; }
  const Selection& selection() const override { return selection_; }
  void select(const Selection& s, SessionView* origin) override;
  void compileSource(const QString& text, const QString& name) override;
  QueryRunner& queries() override { return queries_; }
  int queriesInFlight() const { return queries_.inFlight(); }

  // Loads a .ks or .onnx program on the worker (a .kss.json needs the engine Session).
  void loadProgramFile(const QString& path);
  // Runs the whole pipeline (match, kernelize, tune, extract, plan) on the loaded program on the
  // worker, executes the plan once (verified against host), with progress; views then get the
  // Session. Cancel stops it between units of work.
  void compile();
  // Compiles and runs the loaded program once per device selection ("host", "opencl:0:0",
  // "opencl:0:0,openblas"), each plan restricted to its selection, `repeats` runs each (medians),
  // on the worker with progress and Cancel; the results join the comparison (views get
  // comparisonChanged; the current session stays).
  void compareDevices(const QStringList& selections, int repeats = 3);
  // Compiles the shown session's program again with its own options and `rule` switched off,
  // plans it and runs it once, on the worker with progress and Cancel; the shown session stays and
  // every view gets ruleAblated.
  void recompileWithoutRule(const QString& rule) override;
  // Sets the shown session beside another: loads the .kss.json `r` names, or compiles the shown
  // program again with `r`'s options (planned and run once), then diffs the two, all on the
  // worker with progress and Cancel; the shown session stays and every view gets sessionsDiffed
  // (pending first).
  void compareWith(const DiffRequest& r);
  std::shared_ptr<const DeviceComparison> comparison() const { return comparison_; }
  // Writes the current Session (.kss.json) on the worker; false when there is none.
  bool saveSession(const QString& path);
  SessionOptions& compileOptions() { return options_; }
  void close();
  // Drops the results of every running job; the worker finishes what it cannot interrupt.
  void cancel();
  // A load, compile or comparison is running (view queries do not count: they show no progress).
  bool isBusy() const { return busy_; }
  bool isRunning(RequestKind kind) const { return jobs_[static_cast<std::size_t>(kind)].running; }
  QThread* workerThread() { return &worker_; }

 signals:
  void busyChanged(bool busy, const QString& what);
  void progress(double fraction, const QString& what);
  void saved(const QString& path, const QString& error);
  void loaded(const QString& path);
  void failed(const CompileFailure& failure);
  void selectionChanged(const Selection& s);
  void closed();
  void comparisonChanged();
  // A comparison with another session finished ("" when it worked, else why not).
  void diffed(const QString& error);

 private:
  Progress workerProgress(const std::atomic<bool>& cancel);
  struct Outcome {
    std::shared_ptr<const Program> program;
    std::shared_ptr<const Session> session;
    CompileFailure failure;
    QString source;
    uint64_t programKey = 0;                 // of the program as loaded (before any stage)
    std::vector<DeviceInfo> devicesFound;    // discovered (with peaks after a compile)
    QString devicesNote;                     // why devicesFound has no OpenCL device
    std::vector<ComparisonEntry> entries;    // compile: its own run; compare: one per selection
    bool comparisonOnly = false;             // a compare job: keep the snapshot, update the comparison
    std::optional<RuleAblation> ablation;    // an ablation job: keep the snapshot, tell the views
    std::optional<SessionPair> pair;         // a diff job: keep the snapshot, tell the views
  };
  // Runs `job` on the worker. It replaces a queued or running job of the same kind only (RenderDoc's
  // rule): loading a program cancels a compile, but a comparison leaves it running.
  void runJob(RequestKind kind, const QString& what, std::function<Outcome(const std::atomic<bool>&)> job, QString path);
  void finishJob(RequestKind kind, quint64 generation, const Outcome& outcome, const QString& path);
  void finishComparison(const Outcome& o);
  // Every device into o.devicesFound, and why none is an OpenCL device into o.devicesNote.
  static void discover(Outcome& o);
  void updateBusy(const QString& what);
  std::shared_ptr<const Program> programToCompile() const;
  // Starts a new comparison when `key` is another program's; then adds `entries`.
  void mergeComparison(uint64_t key, const std::string& name, const std::vector<ComparisonEntry>& entries);

  QThread worker_;
  QObject* workerContext_ = nullptr;
  std::vector<SessionView*> views_;
  std::unique_ptr<SessionSnapshot> snapshot_;
  Selection selection_;
  struct Job {
    quint64 generation = 0;  // of the newest request of this kind
    std::shared_ptr<std::atomic<bool>> cancel;
    bool running = false;
  };
  std::array<Job, kNumRequestKinds> jobs_;
  static std::shared_ptr<const Session> compileOther(std::shared_ptr<const Program> program, const QString& source,
                                                     const SessionOptions& options, Progress& progress);
  QString diffName_;  // B of the running diff, so the views waiting for it hear of a cancel
  QString ablationRule_;  // of the running "without this rule" compile, told to the views on cancel
  bool busy_ = false;
  QueryRunner queries_;
  SessionOptions options_;
  std::shared_ptr<const Program> loadedProgram_;  // before compile; null for a session file
  std::shared_ptr<const DeviceComparison> comparison_;
  std::vector<DeviceInfo> devicesFound_;
  QString devicesNote_;
};

}  // namespace ks
