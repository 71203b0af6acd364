// sessionMeasures: the MeasureSources of a snapshot.
#include "views/session_measures.h"

namespace ks {

std::vector<std::optional<viz::Measure>> sessionMeasures(const viz::Picture& picture, const SessionSnapshot& s) {
  if (!s.session) return {};
  const Session& session = *s.session;
  const CompileTrace& t = session.trace();
  // devicesFound carries peaks once the Devices view has measured them; before that, % of peak
  // uses whatever the session's own device list knows.
  const viz::MeasureSources in{session.graph(),
                               t.plan,
                               t.entries,
                               session.runs().empty() ? nullptr : &session.runs().back(),
                               session.devices(),
                               s.devicesFound.empty() ? nullptr : &s.devicesFound};
  return viz::nodeMeasures(picture, in);
}

}  // namespace ks
