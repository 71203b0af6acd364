// Flag parsing for kernelscope-cli on top of CLI11.
#include "app/cli/args.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace ks::cli {

Args::Args(const std::string& command) : app_("kernelscope-cli " + command, "kernelscope-cli " + command) {
  // A repeated single-value flag keeps its last value, as it always did.
  app_.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
}

void Args::positionals(const std::string& name, const std::string& help) { app_.add_option(name, positional_, help); }

CLI::Option* Args::repeatable(const std::string& flag, std::vector<std::string>& values, const std::string& help) {
  // One value per occurrence: `--input a=x.npy FILE` must not swallow FILE.
  return app_.add_option(flag, values, help)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)->allow_extra_args(false);
}

bool Args::parse(int argc, char** argv) {
  // CLI11 wants the program name first and takes the rest in order.
  std::vector<std::string> words(argv, argv + argc);
  std::reverse(words.begin(), words.end());
  try {
    app_.parse(words);
  } catch (const CLI::CallForHelp&) {
    std::fputs(app_.help().c_str(), stdout);
    return false;
  } catch (const CLI::ExtrasError& e) {
    std::string msg = e.what();
    if (const auto colon = msg.find(": "); colon != std::string::npos) msg = msg.substr(colon + 2);
    throw UsageError{(msg.rfind("--", 0) == 0 ? "unknown flag " : "unexpected argument ") + msg};
  } catch (const CLI::ArgumentMismatch& e) {
    // "--input: 1 required TEXT missing" says less than this.
    std::string msg = e.what();
    const auto colon = msg.find(':');
    if (msg.find("missing") != std::string::npos && colon != std::string::npos)
      throw UsageError{msg.substr(0, colon) + " needs a value"};
    throw UsageError{msg};
  } catch (const CLI::ParseError& e) {
    throw UsageError{e.what()};
  }
  return true;
}

CLI::Validator atLeast(long long lowest) {
  // Decimal only, written back in canonical form: CLI11 would read "010" as octal and "0x10" as hex.
  return CLI::Validator(
      [lowest](std::string& v) -> std::string {
        const bool digits = !v.empty() && std::all_of(v.begin() + (v[0] == '-' ? 1 : 0), v.end(), ::isdigit) &&
                            v != "-";
        if (!digits) return "'" + v + "' is not an integer";
        errno = 0;
        if (v[0] != '-') {
          const unsigned long long n = std::strtoull(v.c_str(), nullptr, 10);
          if (errno) return "'" + v + "' is too large";
          if (lowest > 0 && n < static_cast<unsigned long long>(lowest))
            return "'" + v + "' is below " + std::to_string(lowest);
          v = std::to_string(n);
          return {};
        }
        const long long n = std::strtoll(v.c_str(), nullptr, 10);
        if (errno || n < lowest) return "'" + v + "' is below " + std::to_string(lowest);
        v = std::to_string(n);
        return {};
      },
      "");
}

CLI::Validator finiteAtLeast(double lowest, bool strictly) {
  return CLI::Validator(
      [lowest, strictly](std::string& v) -> std::string {
        char* end = nullptr;
        const double x = std::strtod(v.c_str(), &end);
        if (v.empty() || *end) return "'" + v + "' is not a number";
        if (!std::isfinite(x)) return "'" + v + "' is not a finite number";
        if (strictly ? x <= lowest : x < lowest)
          return "'" + v + "' must be " + (strictly ? "above " : "at least ") + CLI::detail::to_string(lowest);
        return {};
      },
      "");
}

CLI::Validator deviceList() {
  return CLI::Validator(
      [](std::string& v) -> std::string {
        if (v.empty()) return "the device list is empty (give a comma list such as opencl:0:0,openblas, or all)";
        std::size_t start = 0;
        while (true) {
          const std::size_t comma = v.find(',', start);
          if (comma == start || (comma == std::string::npos && start == v.size()))
            return "'" + v + "' has an empty device name (at character " + std::to_string(start + 1) + ")";
          if (comma == std::string::npos) return {};
          start = comma + 1;
        }
      },
      "");
}

}  // namespace ks::cli
