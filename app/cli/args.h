// Command-line arguments of kernelscope-cli: positionals, --flag value pairs, repeated flags.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ks::cli {

class Args {
 public:
  // Parses argv after the command name. Flags listed in `booleans` take no value.
  Args(int argc, char** argv, const std::vector<std::string>& booleans);
  const std::vector<std::string>& positional() const { return positional_; }
  bool has(const std::string& flag) const { return flags_.count(flag) > 0; }
  std::optional<std::string> get(const std::string& flag) const;  // last value
  std::vector<std::string> all(const std::string& flag) const;    // every value, in order
  std::string getOr(const std::string& flag, const std::string& fallback) const;
  // Throws UsageError when a flag outside `known` was given.
  void allowOnly(const std::vector<std::string>& known) const;

 private:
  std::vector<std::string> positional_;
  std::multimap<std::string, std::string> flags_;
};

// Thrown for bad usage; main() prints it with the usage text and exits 2.
struct UsageError {
  std::string message;
};

}  // namespace ks::cli
