// SessionController: jobs on the worker thread, results delivered to every view on the GUI thread.
#include "app/gui/session_controller.h"

#include <QFile>
#include <QFileInfo>
#include <QMetaObject>
#include <algorithm>

#include "engine/core/error.h"
#include "engine/io/program_source.h"

namespace ks {

SessionController::SessionController(QObject* parent) : QObject(parent) {
  worker_.setObjectName("ks-session-worker");
  workerContext_ = new QObject;
  workerContext_->moveToThread(&worker_);
  connect(&worker_, &QThread::finished, workerContext_, &QObject::deleteLater);
  worker_.start();
}

SessionController::~SessionController() {
  if (cancelFlag_) cancelFlag_->store(true);
  worker_.quit();
  worker_.wait();
}

void SessionController::addView(SessionView* v) {
  views_.push_back(v);
  if (snapshot_) v->sessionLoaded(*snapshot_);
}

void SessionController::removeView(SessionView* v) { views_.erase(std::remove(views_.begin(), views_.end(), v), views_.end()); }

void SessionController::select(const Selection& s, SessionView* origin) {
  if (s == selection_) return;
  selection_ = s;
  for (SessionView* v : views_)
    if (v != origin) v->selectionChanged(s);
  emit selectionChanged(s);
}

namespace {
CompileFailure failureOf(const Error& e, const QString& path, const QString& source) {
  CompileFailure f;
  f.path = path;
  f.source = source;
  f.message = QString::fromStdString(e.what());
  f.line = e.where().line;
  f.column = e.where().column;
  return f;
}
}  // namespace

void SessionController::loadProgramFile(const QString& path) {
  runJob(tr("Loading %1").arg(QFileInfo(path).fileName()), [path](const std::atomic<bool>&) {
    Outcome o;
    const QString lower = path.toLower();
    try {
      if (!QFileInfo(path).isFile()) throw Error(ErrorCode::Io, "no such file: " + path.toStdString());
      if (lower.endsWith(".ks")) {
        QFile f(path);
        if (f.open(QIODevice::ReadOnly)) o.source = QString::fromUtf8(f.readAll());
      }
      if (lower.endsWith(".kss.json"))
        throw Error(ErrorCode::Unsupported, "session files (.kss.json) open once the engine Session is built in; "
                                            "this build opens .ks and .onnx programs");
      o.program = std::make_shared<Program>(ks::loadProgramFile(path.toStdString()));
    } catch (const Error& e) {
      o.failure = failureOf(e, path, o.source);
    } catch (const std::exception& e) {
      o.failure.path = path;
      o.failure.source = o.source;
      o.failure.message = QString::fromStdString(e.what());
    }
    return o;
  }, path);
}

void SessionController::compileSource(const QString& text, const QString& name) {
  const QString path = snapshot_ ? snapshot_->path : QString();
  runJob(tr("Compiling %1").arg(name), [text, name](const std::atomic<bool>&) {
    Outcome o;
    o.source = text;
    try {
      Program p = parseKs(text.toStdString(), name.toStdString() + ".ks");
      p.name = name.toStdString();
      o.program = std::make_shared<Program>(std::move(p));
    } catch (const Error& e) {
      o.failure = failureOf(e, QString(), text);
    } catch (const std::exception& e) {
      o.failure.source = text;
      o.failure.message = QString::fromStdString(e.what());
    }
    return o;
  }, path);
}

void SessionController::runJob(const QString& what, std::function<Outcome(const std::atomic<bool>&)> job, QString path) {
  if (cancelFlag_) cancelFlag_->store(true);  // a newer request replaces the running one
  const quint64 gen = ++generation_;
  auto flag = std::make_shared<std::atomic<bool>>(false);
  cancelFlag_ = flag;
  setBusy(true, what);
  QMetaObject::invokeMethod(
      workerContext_,
      [this, gen, flag, job = std::move(job), path]() {
        if (flag->load()) return;
        Outcome o = job(*flag);
        if (flag->load()) return;
        QMetaObject::invokeMethod(this, [this, gen, o, path]() { finishJob(gen, o, path); }, Qt::QueuedConnection);
      },
      Qt::QueuedConnection);
}

void SessionController::finishJob(quint64 generation, const Outcome& o, const QString& path) {
  if (generation != generation_) return;  // superseded or cancelled
  cancelFlag_.reset();
  setBusy(false, QString());
  if (!o.program) {
    for (SessionView* v : views_) v->compileFailed(o.failure);
    emit failed(o.failure);
    return;
  }
  auto snap = std::make_unique<SessionSnapshot>();
  snap->path = path;
  snap->source = o.source;
  snap->program = o.program;
  snapshot_ = std::move(snap);
  selection_ = Selection{};
  for (SessionView* v : views_) v->sessionLoaded(*snapshot_);
  emit loaded(path);
}

void SessionController::close() {
  cancel();
  snapshot_.reset();
  selection_ = Selection{};
  for (SessionView* v : views_) v->sessionClosed();
  emit closed();
}

void SessionController::cancel() {
  if (!busy_) return;
  if (cancelFlag_) cancelFlag_->store(true);
  cancelFlag_.reset();
  ++generation_;
  setBusy(false, tr("Cancelled"));
}

void SessionController::setBusy(bool busy, const QString& what) {
  busy_ = busy;
  emit busyChanged(busy, what);
}

}  // namespace ks
