// The Rewrites view's chart: e-nodes each rule added in each round, stacked per round, so the rule
// that grows the e-graph (associativity, distributivity) stands out.
#pragma once
#include <QString>
#include <vector>

#include "engine/rewrite/runner.h"

class QChart;

namespace ks {

struct RuleGrowth {
  QString rule;
  std::vector<double> nodesPerRound;  // index round - 1
};

struct GrowthChartData {
  int rounds = 0;
  std::vector<RuleGrowth> rules;  // rules that added e-nodes in some round, in the report's order
};

GrowthChartData growthChartData(const RewriteReport& r);

// Fills an empty chart: one stacked bar per round, one bar set per rule.
void drawGrowthChart(QChart* chart, const GrowthChartData& data);

}  // namespace ks
