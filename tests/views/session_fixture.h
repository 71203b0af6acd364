// Shared by the analysis-view tests: a real compiled-and-run Session of a sample and a minimal
// SessionContext that records the selections the views make.
#pragma once
#include <QString>
#include <memory>

#include "engine/io/program_source.h"
#include "engine/session/session.h"
#include "views/session_view.h"

namespace ks::testing {

// A column softmax (several kernels; a last-axis softmax is one row kernel) compiled with a quick, two-schedule tune and no tuning cache, then run once (verified).
inline std::shared_ptr<Session> sampleSession(const char* sample = "../tests/data/softmax_columns.ks") {
  SessionOptions o;
  o.tune = TuneLevel::Quick;
  o.budgetCount = 2;
  o.cache = "none";
  auto s = std::make_shared<Session>(loadProgramFile(std::string(KS_SOURCE_DIR "/samples/") + sample), o);
  s->run({}, true);
  return s;
}

inline SessionSnapshot snapshotOf(const std::shared_ptr<Session>& s) {
  SessionSnapshot snap;
  snap.path = "softmax.ks";
  snap.program = std::shared_ptr<const Program>(s, &s->program());
  snap.session = s;
  return snap;
}

class RecordingContext : public SessionContext {
 public:
  const SessionSnapshot* snapshot() const override { return snap_.session ? &snap_ : nullptr; }
  const Selection& selection() const override { return selection_; }
  void select(const Selection& s, SessionView*) override {
    selection_ = s;
    ++selects;
  }
  void compileSource(const QString&, const QString&) override {}
  QueryRunner& queries() override { return queries_; }
  void setSnapshot(SessionSnapshot s) { snap_ = std::move(s); }
  void setSelection(const Selection& s) { selection_ = s; }
  int selects = 0;

 private:
  SessionSnapshot snap_;
  Selection selection_;
  QueryRunner queries_;
};

}  // namespace ks::testing
