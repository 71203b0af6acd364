// The one small interface every view implements (RenderDoc-style), the shared selection they all
// follow, and the context through which a view reads the session and changes the selection.
#pragma once
#include <QString>
#include <memory>
#include <optional>

#include "engine/program/program.h"
#include "engine/session/device_comparison.h"
#include "engine/session/session.h"
#include "engine/session/session_diff.h"
#include "views/query_runner.h"

namespace ks {

// The current selection, shared by every view. Unset fields mean "nothing selected there".
struct Selection {
  std::optional<uint32_t> eclass;
  std::optional<uint32_t> kernel;
  std::optional<uint32_t> fusionStep;
  std::optional<uint32_t> device;
  bool operator==(const Selection&) const = default;
};

// What is loaded: a program, and once compiled (or opened from a .kss.json) the engine Session
// with its CompileTrace. `program` always points at the program views should draw (the
// session's own, with its kernel and copy nodes, when there is a session).
struct SessionSnapshot {
  QString path;    // file it came from ("" for an edited buffer)
  QString source;  // program text (.ks) if any
  std::shared_ptr<const Program> program;
  std::shared_ptr<const Session> session;  // null until compiled
  // Runs of this program on several device selections (kept across recompiles of the same
  // program, dropped when another program is loaded), and every device found, with peaks once
  // measured. Null/empty until known.
  std::shared_ptr<const DeviceComparison> comparison;
  std::vector<DeviceInfo> devicesFound;
  // Why devicesFound holds no OpenCL device ("" when it does, or before any discovery): nothing
  // compiles fused kernels without one, so the Devices view says so.
  QString devicesNote;
};

// A failed load or compile, with the place when the engine knew it.
struct CompileFailure {
  QString path;
  QString source;
  QString message;
  int line = 0;  // 1-based, 0 = unknown
  int column = 0;
};

// The shown session's program compiled again with one rewrite rule switched off, to set the
// two plans side by side.
struct RuleAblation {
  QString rule;
  std::shared_ptr<const Session> without;  // null when the compile failed
  QString error;
};

// The shown session (A) set beside another (B): a saved session, or its program compiled under
// other options, with the engine's diff of the two.
struct SessionPair {
  QString otherName;  // what B is: "tune quick", "other.kss.json"
  bool pending = false;  // B is being compiled or loaded; nothing else is set yet
  std::shared_ptr<const Session> a, b;
  std::shared_ptr<const SessionDiff> diff;  // null when B failed or was cancelled
  QString error;
};

class SessionView;

class SessionContext {
 public:
  virtual ~SessionContext() = default;
  virtual const SessionSnapshot* snapshot() const = 0;  // null when nothing is loaded
  virtual const Selection& selection() const = 0;
  // Changes the selection and tells every view except `origin` (which already shows it).
  virtual void select(const Selection& s, SessionView* origin) = 0;
  // Compiles edited program text on the worker (the Program view's "Recompile").
  virtual void compileSource(const QString& text, const QString& name) = 0;
  // The worker for anything slow a view needs; its results are cached until the next load.
  virtual QueryRunner& queries() = 0;
  // Compiles the shown session's program again, with its options and `rule` off, on the worker
  // (progress, Cancel); views then get ruleAblated.
  virtual void recompileWithoutRule(const QString& rule) { (void)rule; }
};

class SessionView {
 public:
  virtual ~SessionView() = default;
  virtual void sessionLoaded(const SessionSnapshot& s) = 0;
  virtual void sessionClosed() = 0;
  virtual void selectionChanged(const Selection& s) = 0;
  virtual void compileFailed(const CompileFailure&) {}
  // The snapshot's comparison (or devicesFound) changed; the session did not.
  virtual void comparisonChanged(const SessionSnapshot&) {}
  virtual void ruleAblated(const RuleAblation&) {}
  // A comparison with another session started (pending), finished or failed.
  virtual void sessionsDiffed(const SessionPair&) {}
};

}  // namespace ks
