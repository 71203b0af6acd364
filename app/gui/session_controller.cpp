// SessionController: jobs on the worker thread, results delivered to every view on the GUI thread.
#include "app/gui/session_controller.h"

#include <QFile>
#include <QFileInfo>
#include <QMetaObject>
#include <algorithm>

#include "engine/core/error.h"
#include "engine/devices/device_peaks.h"
#include "engine/devices/opencl_platforms.h"
#include "engine/io/program_source.h"
#include "engine/session/session_diff.h"

namespace ks {

SessionController::SessionController(QObject* parent) : QObject(parent) {
  worker_.setObjectName("ks-session-worker");
  workerContext_ = new QObject;
  workerContext_->moveToThread(&worker_);
  connect(&worker_, &QThread::finished, workerContext_, &QObject::deleteLater);
  worker_.start();
}

SessionController::~SessionController() {
  for (Job& j : jobs_)
    if (j.cancel) j.cancel->store(true);
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

void SessionController::discover(Outcome& o) {
  o.devicesFound = discoverDevices();
  o.devicesNote = QString::fromStdString(openclAbsenceNote());
}

void SessionController::loadProgramFile(const QString& path) {
  runJob(RequestKind::Program, tr("Loading %1").arg(QFileInfo(path).fileName()), [path](const std::atomic<bool>&) {
    Outcome o;
    const QString lower = path.toLower();
    try {
      if (!QFileInfo(path).isFile()) throw Error(ErrorCode::Io, "no such file: " + path.toStdString());
      if (lower.endsWith(".ks")) {
        QFile f(path);
        if (f.open(QIODevice::ReadOnly)) o.source = QString::fromUtf8(f.readAll());
      }
      if (lower.endsWith(".json")) {
        auto session = std::make_shared<Session>(Session::load(path.toStdString()));
        o.program = std::shared_ptr<const Program>(session, &session->program());
        o.source = QString::fromStdString(session->program().source);
        o.session = session;
        o.programKey = session->program().cacheKey();
        return o;
      }
      o.program = std::make_shared<Program>(ks::loadProgramFile(path.toStdString()));
      o.programKey = o.program->cacheKey();
      discover(o);  // the Devices view offers them before any compile
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
  runJob(RequestKind::Program, tr("Compiling %1").arg(name), [text, name](const std::atomic<bool>&) {
    Outcome o;
    o.source = text;
    try {
      Program p = parseKs(text.toStdString(), name.toStdString() + ".ks");
      p.name = name.toStdString();
      o.programKey = p.cacheKey();
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

std::shared_ptr<const Program> SessionController::programToCompile() const {
  // The program as loaded, before any stage added kernel or copy nodes to its graph.
  return snapshot_->session ? loadedProgram_ : snapshot_->program;
}

void SessionController::compile() {
  if (!snapshot_ || !snapshot_->program) return;
  std::shared_ptr<const Program> program = programToCompile();
  const QString source = snapshot_->source;
  const bool fromSource = !program;
  const SessionOptions options = options_;
  runJob(RequestKind::Program, tr("Compiling %1").arg(QString::fromStdString(program->name)), [this, program, source, options, fromSource](const std::atomic<bool>& cancel) {
    Outcome o;
    o.source = source;
    try {
      // A session file holds the compiled graph: start again from its program text.
      if (fromSource && source.isEmpty())
        throw Error(ErrorCode::Usage, "this session has no program text to compile again");
      Program p = fromSource ? parseKs(source.toStdString(), "session.ks") : Program(*program);
      o.programKey = p.cacheKey();
      auto session = std::make_shared<Session>(std::move(p), options);
      Progress progress = workerProgress(cancel);
      session->runTo(Stage::Planned, progress);
      // Execute the plan once and check it against host, so the plan timeline, the device
      // comparison and the output values have a run to show.
      session->run({}, true, progress);
      // The run joins the device comparison under its selection ("opencl:0:0,openblas"), with
      // every device's peak (measured once per process).
      progress.report(1.0, "measuring device peaks");
      std::string selection;
      for (const DeviceInfo& d : session->devices()) selection += (selection.empty() ? "" : ",") + d.name;
      o.entries.push_back(comparisonEntryOf(*session, selection));
      discover(o);
      fillPeaks(o.devicesFound);
      o.program = std::shared_ptr<const Program>(session, &session->program());
      o.session = session;
    } catch (const Error& e) {
      o.failure = failureOf(e, QString(), QString());
      o.failure.message = QString::fromStdString(e.what());
    } catch (const std::exception& e) {
      o.failure.message = QString::fromStdString(e.what());
    }
    return o;
  }, snapshot_->path);
}

void SessionController::compareDevices(const QStringList& selections, int repeats) {
  if (!snapshot_ || !snapshot_->program || selections.isEmpty()) return;
  std::shared_ptr<const Program> program = programToCompile();
  const QString source = snapshot_->source;
  const SessionOptions options = options_;
  std::vector<std::string> sels;
  for (const QString& s : selections) sels.push_back(s.toStdString());
  runJob(RequestKind::Comparison, tr("Comparing %1 device selections").arg(selections.size()), [this, program, source, options, sels, repeats](const std::atomic<bool>& cancel) {
    Outcome o;
    o.comparisonOnly = true;
    o.source = source;
    try {
      if (!program && source.isEmpty()) throw Error(ErrorCode::Usage, "this session has no program text to compile again");
      const Program p = program ? Program(*program) : parseKs(source.toStdString(), "session.ks");
      o.programKey = p.cacheKey();
      discover(o);
      for (std::size_t i = 0; i < sels.size(); ++i) {
        auto report = [this, i, n = sels.size()](double f, const std::string& what) {
          QMetaObject::invokeMethod(
              this, [this, v = (double(i) + f) / double(n), w = QString::fromStdString(what)] { emit this->progress(v, w); },
              Qt::QueuedConnection);
        };
        o.entries.push_back(measureSelection(p, options, sels[i], repeats, report, const_cast<std::atomic<bool>*>(&cancel)));
      }
      fillPeaks(o.devicesFound);
    } catch (const Error& e) {
      o.failure = failureOf(e, QString(), QString());
    } catch (const std::exception& e) {
      o.failure.message = QString::fromStdString(e.what());
    }
    return o;
  }, snapshot_->path);
}

// A worker job's progress, reported on the GUI thread, stopping when its cancel flag is set.
Progress SessionController::workerProgress(const std::atomic<bool>& cancel) {
  return Progress(
      [this](double f, const std::string& what) {
        QMetaObject::invokeMethod(this, [this, f, w = QString::fromStdString(what)] { emit this->progress(f, w); },
                                  Qt::QueuedConnection);
      },
      const_cast<std::atomic<bool>*>(&cancel));
}

void SessionController::recompileWithoutRule(const QString& rule) {
  if (!snapshot_ || !snapshot_->session) return;
  std::shared_ptr<const Program> program = programToCompile();
  const QString source = snapshot_->source;
  SessionOptions options = snapshot_->session->options();
  options.rewrite.off.push_back(rule.toStdString());
  ablationRule_ = rule;
  std::shared_ptr<const Session> a = snapshot_->session;
  const QString nameA = QFileInfo(snapshot_->path).fileName(), nameB = tr("without %1").arg(rule);
  runJob(RequestKind::Ablation, tr("Compiling without %1").arg(rule), [this, a, program, source, options, rule, nameA, nameB](const std::atomic<bool>& cancel) {
    Outcome o;
    o.ablation = RuleAblation{rule, nullptr, QString()};
    try {
      Progress progress = workerProgress(cancel);
      // A measured plan time beside the shown session's.
      std::shared_ptr<const Session> without = compileOther(program, source, options, progress);
      o.ablation->without = without;
      // The two also go to the Compare view, kernel by kernel and step by step.
      progress.report(1.0, "diffing the two sessions");
      auto diff = std::make_shared<SessionDiff>(diffSessions(*a, *without, nameA.toStdString(), nameB.toStdString()));
      o.pair = SessionPair{nameB, false, a, without, diff, QString()};
    } catch (const std::exception& e) {
      o.ablation->error = QString::fromStdString(e.what());
    }
    return o;
  }, snapshot_->path);
}

// B of a diff: the shown program under other options, planned and run once, so both sides have
// measured step times.
std::shared_ptr<const Session> SessionController::compileOther(std::shared_ptr<const Program> program, const QString& source,
                                                               const SessionOptions& options, Progress& progress) {
  if (!program && source.isEmpty()) throw Error(ErrorCode::Usage, "this session has no program text to compile again");
  Program p = program ? Program(*program) : parseKs(source.toStdString(), "session.ks");
  auto session = std::make_shared<Session>(std::move(p), options);
  session->runTo(Stage::Planned, progress);
  session->run({}, false, progress);
  return session;
}

void SessionController::compareWith(const DiffRequest& r) {
  if (!snapshot_ || !snapshot_->session) return;
  std::shared_ptr<const Session> a = snapshot_->session;
  std::shared_ptr<const Program> program = programToCompile();
  const QString source = snapshot_->source;
  const SessionOptions options = r.applyTo(a->options());
  const QString name = r.name(), file = r.file, nameA = QFileInfo(snapshot_->path).fileName();
  diffName_ = name;
  SessionPair pending;
  pending.otherName = name;
  pending.pending = true;
  for (SessionView* v : views_) v->sessionsDiffed(pending);
  runJob(RequestKind::Diff, tr("Comparing with %1").arg(name), [this, a, program, source, options, name, file, nameA](const std::atomic<bool>& cancel) {
    Outcome o;
    o.pair = SessionPair{name, false, a, nullptr, nullptr, QString()};
    try {
      Progress progress = workerProgress(cancel);
      if (!file.isEmpty()) o.pair->b = std::make_shared<Session>(Session::load(file.toStdString()));
      else o.pair->b = compileOther(program, source, options, progress);
      progress.report(1.0, "diffing the two sessions");
      o.pair->diff = std::make_shared<SessionDiff>(diffSessions(*a, *o.pair->b, nameA.toStdString(), name.toStdString()));
    } catch (const std::exception& e) {
      o.pair->error = QString::fromStdString(e.what());
      o.pair->diff.reset();
    }
    return o;
  }, snapshot_->path);
}

void SessionController::mergeComparison(uint64_t key, const std::string& name, const std::vector<ComparisonEntry>& entries) {
  auto next = std::make_shared<DeviceComparison>();
  if (comparison_ && comparison_->programKey == key) {
    *next = *comparison_;
  } else {
    next->programKey = key;
    next->programName = name;
  }
  for (const ComparisonEntry& e : entries) next->add(e);
  // Columns in the order the Devices view lists the selections (host first), whatever order
  // they were run in.
  const std::vector<std::string> order = comparisonSelections(devicesFound_);
  auto rank = [&order](const ComparisonEntry& e) {
    return std::find(order.begin(), order.end(), e.selection) - order.begin();
  };
  std::stable_sort(next->entries.begin(), next->entries.end(),
                   [&rank](const ComparisonEntry& a, const ComparisonEntry& b) { return rank(a) < rank(b); });
  comparison_ = next;
}

bool SessionController::saveSession(const QString& path) {
  if (!snapshot_ || !snapshot_->session) return false;
  std::shared_ptr<const Session> session = snapshot_->session;
  QMetaObject::invokeMethod(workerContext_, [this, session, path] {
    QString error;
    try {
      session->save(path.toStdString());
    } catch (const std::exception& e) {
      error = QString::fromStdString(e.what());
    }
    QMetaObject::invokeMethod(this, [this, path, error] { emit saved(path, error); }, Qt::QueuedConnection);
  }, Qt::QueuedConnection);
  return true;
}

void SessionController::runJob(RequestKind kind, const QString& what, std::function<Outcome(const std::atomic<bool>&)> job,
                               QString path) {
  Job& j = jobs_[static_cast<std::size_t>(kind)];
  if (j.cancel) j.cancel->store(true);  // a newer request replaces the one of its kind
  const quint64 gen = ++j.generation;
  auto flag = std::make_shared<std::atomic<bool>>(false);
  j.cancel = flag;
  j.running = true;
  updateBusy(what);
  QMetaObject::invokeMethod(
      workerContext_,
      [this, kind, gen, flag, job = std::move(job), path]() {
        if (flag->load()) return;
        Outcome o = job(*flag);
        if (flag->load()) return;
        QMetaObject::invokeMethod(this, [this, kind, gen, o, path]() { finishJob(kind, gen, o, path); }, Qt::QueuedConnection);
      },
      Qt::QueuedConnection);
}

void SessionController::finishJob(RequestKind kind, quint64 generation, const Outcome& o, const QString& path) {
  Job& j = jobs_[static_cast<std::size_t>(kind)];
  if (generation != j.generation) return;  // superseded or cancelled
  j.cancel.reset();
  j.running = false;
  updateBusy(QString());
  if (!o.devicesFound.empty()) {
    devicesFound_ = o.devicesFound;
    devicesNote_ = o.devicesNote;
  }
  if (o.comparisonOnly) {
    finishComparison(o);
    return;
  }
  if (o.ablation) {
    for (SessionView* v : views_) v->ruleAblated(*o.ablation);
    if (!o.pair) return;
  }
  if (o.pair) {
    // A diff against a session no longer shown is of no use to anyone.
    if (!snapshot_ || snapshot_->session != o.pair->a) return;
    for (SessionView* v : views_) v->sessionsDiffed(*o.pair);
    emit diffed(o.pair->error);
    return;
  }
  if (!o.program) {
    for (SessionView* v : views_) v->compileFailed(o.failure);
    emit failed(o.failure);
    return;
  }
  auto snap = std::make_unique<SessionSnapshot>();
  snap->path = path;
  snap->source = o.source;
  snap->program = o.program;
  snap->session = o.session;
  if (!o.session) loadedProgram_ = o.program;
  else if (o.session && path != (snapshot_ ? snapshot_->path : QString())) loadedProgram_.reset();
  // Same program (same graph key): the comparison goes on; another program starts a new one.
  mergeComparison(o.programKey, o.program->name, o.entries);
  snap->comparison = comparison_;
  snap->devicesFound = devicesFound_;
  snap->devicesNote = devicesNote_;
  snapshot_ = std::move(snap);
  selection_ = Selection{};
  queries_.clear();  // kernel sources and explanations were of the previous session
  for (SessionView* v : views_) v->sessionLoaded(*snapshot_);
  emit loaded(path);
}

void SessionController::finishComparison(const Outcome& o) {
  if (!o.failure.message.isEmpty() || !snapshot_) {
    for (SessionView* v : views_) v->compileFailed(o.failure);
    emit failed(o.failure);
    return;
  }
  mergeComparison(o.programKey, snapshot_->program ? snapshot_->program->name : std::string(), o.entries);
  snapshot_->comparison = comparison_;
  snapshot_->devicesFound = devicesFound_;
  snapshot_->devicesNote = devicesNote_;
  for (SessionView* v : views_) v->comparisonChanged(*snapshot_);
  emit comparisonChanged();
}

void SessionController::close() {
  cancel();
  queries_.clear();
  snapshot_.reset();
  comparison_.reset();
  selection_ = Selection{};
  for (SessionView* v : views_) v->sessionClosed();
  emit closed();
}

void SessionController::cancel() {
  if (!busy_) return;
  const bool ablating = jobs_[static_cast<std::size_t>(RequestKind::Ablation)].running;
  const bool diffing = jobs_[static_cast<std::size_t>(RequestKind::Diff)].running;
  for (Job& j : jobs_) {
    if (j.cancel) j.cancel->store(true);
    j.cancel.reset();
    ++j.generation;
    j.running = false;
  }
  busy_ = false;
  // The cancelled job never delivers: the views waiting for its answer get one now.
  if (ablating)
    for (SessionView* v : views_) v->ruleAblated(RuleAblation{ablationRule_, nullptr, tr("cancelled")});
  if (diffing)
    for (SessionView* v : views_) v->sessionsDiffed(SessionPair{diffName_, false, nullptr, nullptr, nullptr, tr("cancelled")});
  emit busyChanged(false, tr("Cancelled"));
}

// Busy while any job runs; `what` names the one that just started (empty: keep the text).
void SessionController::updateBusy(const QString& what) {
  bool any = false;
  for (const Job& j : jobs_) any = any || j.running;
  busy_ = any;
  emit busyChanged(busy_, what);
}

}  // namespace ks
