// The one small interface every view implements (RenderDoc-style), the shared selection they all
// follow, and the context through which a view reads the session and changes the selection.
#pragma once
#include <QString>
#include <memory>
#include <optional>

#include "engine/program/program.h"
#include "views/egraph_model.h"

namespace ks {

// The current selection, shared by every view. Unset fields mean "nothing selected there".
struct Selection {
  std::optional<uint32_t> eclass;
  std::optional<uint32_t> kernel;
  std::optional<uint32_t> fusionStep;
  std::optional<uint32_t> device;
  bool operator==(const Selection&) const = default;
};

// What is loaded. Until the engine Session lands this is a program (+ extraction when known);
// the Session will be added here as one more shared pointer, and views read what they need.
struct SessionSnapshot {
  QString path;    // file it came from ("" for an edited buffer)
  QString source;  // program text (.ks) if any
  std::shared_ptr<const Program> program;
  ExtractionChoice extraction;
};

// A failed load or compile, with the place when the engine knew it.
struct CompileFailure {
  QString path;
  QString source;
  QString message;
  int line = 0;  // 1-based, 0 = unknown
  int column = 0;
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
};

class SessionView {
 public:
  virtual ~SessionView() = default;
  virtual void sessionLoaded(const SessionSnapshot& s) = 0;
  virtual void sessionClosed() = 0;
  virtual void selectionChanged(const Selection& s) = 0;
  virtual void compileFailed(const CompileFailure&) {}
};

}  // namespace ks
