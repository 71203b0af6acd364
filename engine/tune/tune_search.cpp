// The words of tuning statuses and stop reasons, written and read back.
#include "engine/tune/tune_search.h"

#include <array>

namespace ks {

namespace {
constexpr std::array kStatusNames{"ok", "build error", "launch error", "too slow", "skipped", "wrong result"};
constexpr std::array kStopNames{"exhausted", "count budget", "time budget", "cancelled", "cached", "nothing to compute",
                                "same kernel as", "model budget"};
constexpr const char* kNoWinner = "; no schedule ran";

bool ranCandidates(StopReason r) {
  return r == StopReason::Exhausted || r == StopReason::CountBudget || r == StopReason::TimeBudget ||
         r == StopReason::ModelBudget;
}
}  // namespace

const char* toString(TuneStatus s) { return kStatusNames.at(static_cast<std::size_t>(s)); }

std::optional<TuneStatus> tuneStatusFrom(const std::string& text) {
  for (std::size_t i = 0; i < kStatusNames.size(); ++i)
    if (text == kStatusNames[i]) return static_cast<TuneStatus>(i);
  return std::nullopt;
}

const char* toString(StopReason r) { return kStopNames.at(static_cast<std::size_t>(r)); }

std::string TuneSearch::stopText() const {
  std::string t = toString(stopReason);
  if (!stopDetail.empty()) t += stopReason == StopReason::SameKernel ? " " + stopDetail : " (" + stopDetail + ")";
  if (winner.empty() && ranCandidates(stopReason)) t += kNoWinner;
  return t;
}

bool TuneSearch::setStopFromText(const std::string& text) {
  std::string rest = text;
  const std::string noWinner = kNoWinner;
  if (rest.size() >= noWinner.size() && rest.compare(rest.size() - noWinner.size(), noWinner.size(), noWinner) == 0)
    rest.resize(rest.size() - noWinner.size());
  for (std::size_t i = 0; i < kStopNames.size(); ++i) {
    const std::string name = kStopNames[i];
    if (rest.compare(0, name.size(), name) != 0) continue;
    const std::string tail = rest.substr(name.size());
    const auto r = static_cast<StopReason>(i);
    if (tail.empty() && r != StopReason::SameKernel) {
      stopDetail.clear();
    } else if (r == StopReason::SameKernel && tail.size() > 1 && tail[0] == ' ') {
      stopDetail = tail.substr(1);
    } else if (tail.size() > 3 && tail.compare(0, 2, " (") == 0 && tail.back() == ')') {
      stopDetail = tail.substr(2, tail.size() - 3);
    } else {
      continue;
    }
    stopReason = r;
    return true;
  }
  return false;
}

}  // namespace ks
