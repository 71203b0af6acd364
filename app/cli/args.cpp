// Flag parsing for kernelscope-cli.
#include "app/cli/args.h"

#include <algorithm>

namespace ks::cli {

Args::Args(int argc, char** argv, const std::vector<std::string>& booleans) {
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--", 0) == 0 && a.size() > 2) {
      std::string name = a.substr(2), value;
      if (auto eq = name.find('='); eq != std::string::npos) {
        value = name.substr(eq + 1);
        name = name.substr(0, eq);
      } else if (std::find(booleans.begin(), booleans.end(), name) == booleans.end()) {
        if (i + 1 >= argc) throw UsageError{"flag --" + name + " needs a value"};
        value = argv[++i];
      }
      flags_.emplace(name, value);
    } else {
      positional_.push_back(a);
    }
  }
}

std::optional<std::string> Args::get(const std::string& flag) const {
  auto range = flags_.equal_range(flag);
  if (range.first == range.second) return std::nullopt;
  return std::prev(range.second)->second;
}

std::vector<std::string> Args::all(const std::string& flag) const {
  std::vector<std::string> r;
  auto range = flags_.equal_range(flag);
  for (auto it = range.first; it != range.second; ++it) r.push_back(it->second);
  return r;
}

std::string Args::getOr(const std::string& flag, const std::string& fallback) const {
  return get(flag).value_or(fallback);
}

void Args::allowOnly(const std::vector<std::string>& known) const {
  for (auto& [name, value] : flags_)
    if (std::find(known.begin(), known.end(), name) == known.end()) throw UsageError{"unknown flag --" + name};
}

}  // namespace ks::cli
