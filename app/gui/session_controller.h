// SessionController: owns the worker thread, what is loaded and the one shared selection; every
// view implements SessionView and is told about loads, closes and selection changes.
#pragma once
#include <QObject>
#include <QThread>
#include <atomic>
#include <functional>
#include <memory>
#include <vector>

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

  // Loads a .ks or .onnx program on the worker (a .kss.json needs the engine Session).
  void loadProgramFile(const QString& path);
  // Runs the whole pipeline (match, kernelize, tune, extract, plan) on the loaded program on the
  // worker, executes the plan once (verified against host), with progress; views then get the
  // Session. Cancel stops it between units of work.
  void compile();
  // Writes the current Session (.kss.json) on the worker; false when there is none.
  bool saveSession(const QString& path);
  SessionOptions& compileOptions() { return options_; }
  void close();
  // Drops the running job's result; the worker finishes what it cannot interrupt.
  void cancel();
  bool isBusy() const { return busy_; }
  QThread* workerThread() { return &worker_; }

 signals:
  void busyChanged(bool busy, const QString& what);
  void progress(double fraction, const QString& what);
  void saved(const QString& path, const QString& error);
  void loaded(const QString& path);
  void failed(const CompileFailure& failure);
  void selectionChanged(const Selection& s);
  void closed();

 private:
  struct Outcome {
    std::shared_ptr<const Program> program;
    std::shared_ptr<const Session> session;
    CompileFailure failure;
    QString source;
  };
  void runJob(const QString& what, std::function<Outcome(const std::atomic<bool>&)> job, QString path);
  void finishJob(quint64 generation, const Outcome& outcome, const QString& path);
  void setBusy(bool busy, const QString& what);

  QThread worker_;
  QObject* workerContext_ = nullptr;
  std::vector<SessionView*> views_;
  std::unique_ptr<SessionSnapshot> snapshot_;
  Selection selection_;
  quint64 generation_ = 0;
  std::shared_ptr<std::atomic<bool>> cancelFlag_;
  bool busy_ = false;
  SessionOptions options_;
  std::shared_ptr<const Program> loadedProgram_;  // before compile; null for a session file
};

}  // namespace ks
