// sessionMeasures: what the graph views colour by -- viz::nodeMeasures of a picture drawn from
// the snapshot's session, its last run and the peaks the Devices view measured.
#pragma once
#include <optional>
#include <vector>

#include "engine/viz/node_measures.h"
#include "views/session_view.h"

namespace ks {

// One entry per node of `picture`; empty before a session (nothing measured yet). O(nodes): the
// views call it on the GUI thread where the session arrives.
std::vector<std::optional<viz::Measure>> sessionMeasures(const viz::Picture& picture, const SessionSnapshot& s);

}  // namespace ks
