// Growth chart: the report's rows regrouped per rule, drawn as stacked bars per round.
#include "views/rewrite_growth_chart.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QStackedBarSeries>
#include <QValueAxis>
#include <algorithm>
#include <map>

namespace ks {

GrowthChartData growthChartData(const RewriteReport& r) {
  GrowthChartData d;
  d.rounds = r.rounds;
  std::map<std::string, std::size_t> at;
  for (const RuleRound& row : r.rules) {
    if (row.round < 1 || row.round > r.rounds || row.nodesAdded == 0) continue;
    auto [it, fresh] = at.try_emplace(row.rule, d.rules.size());
    if (fresh) d.rules.push_back({QString::fromStdString(row.rule), std::vector<double>(static_cast<std::size_t>(r.rounds), 0.0)});
    d.rules[it->second].nodesPerRound[static_cast<std::size_t>(row.round - 1)] += static_cast<double>(row.nodesAdded);
  }
  return d;
}

void drawGrowthChart(QChart* chart, const GrowthChartData& data) {
  chart->setTitle(QObject::tr("E-nodes added per round, by rule"));
  if (data.rules.empty()) {
    chart->setTitle(QObject::tr("No rule added an e-node"));
    return;
  }
  auto* series = new QStackedBarSeries;
  double top = 0;
  std::vector<double> total(static_cast<std::size_t>(data.rounds), 0.0);
  for (const RuleGrowth& g : data.rules) {
    auto* set = new QBarSet(g.rule);
    for (std::size_t i = 0; i < g.nodesPerRound.size(); ++i) {
      *set << g.nodesPerRound[i];
      total[i] += g.nodesPerRound[i];
    }
    series->append(set);
  }
  for (double t : total) top = std::max(top, t);
  chart->addSeries(series);
  auto* rounds = new QBarCategoryAxis;
  for (int i = 1; i <= data.rounds; ++i) rounds->append(QString::number(i));
  rounds->setTitleText(QObject::tr("round"));
  auto* nodes = new QValueAxis;
  nodes->setRange(0, top > 0 ? top * 1.05 : 1);
  nodes->setLabelFormat("%d");
  nodes->setTitleText(QObject::tr("e-nodes added"));
  chart->addAxis(rounds, Qt::AlignBottom);
  chart->addAxis(nodes, Qt::AlignLeft);
  series->attachAxis(rounds);
  series->attachAxis(nodes);
  chart->legend()->setAlignment(Qt::AlignRight);
}

}  // namespace ks
