// Reading a user's JSON file with the place of every value: JsonPath keeps the JSON pointer of the
// value being read ("/trace/plan/steps/2/inputs/0"), so that an error names it (nlohmann's type
// errors know no place), and the readers below enter keys and indices and check integer ranges.
#pragma once
#include <cstddef>
#include <cstdint>
#include <exception>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "engine/core/error.h"

namespace ks {

// Enters one key or index for its lifetime. Left by an exception, it keeps its part, so the
// handler reads the pointer of the value that failed.
class JsonPath {
 public:
  explicit JsonPath(const std::string& key) : before_(current().size()), unwinding_(std::uncaught_exceptions()) {
    current() += "/" + key;
  }
  explicit JsonPath(std::size_t index) : JsonPath(std::to_string(index)) {}
  ~JsonPath() {
    if (std::uncaught_exceptions() == unwinding_) current().resize(before_);
  }
  JsonPath(const JsonPath&) = delete;
  JsonPath& operator=(const JsonPath&) = delete;

  // The pointer on this thread ("" at the document's root).
  static std::string& current() {
    thread_local std::string path;
    return path;
  }

 private:
  std::size_t before_;
  int unwinding_;
};

// The message of an error met while reading: "<pointer>: <what>", without nlohmann's bracketed
// code. The reader that started at the root (`outermost`) clears the pointer for the next one.
// nlohmann's message without its bracketed code ("[json.exception.parse_error.101] ").
inline std::string jsonErrorText(std::string m) {
  if (m.rfind("[json.exception.", 0) == 0 && m.find("] ") != std::string::npos) m = m.substr(m.find("] ") + 2);
  return m;
}

inline std::string readErrorText(std::string m, bool outermost) {
  m = jsonErrorText(std::move(m));
  if (!JsonPath::current().empty() && m.rfind('/', 0) != 0) m = JsonPath::current() + ": " + m;
  if (outermost) JsonPath::current().clear();
  return m;
}

// Deeper than any file of ours nests (a session reaches 10 levels). nlohmann's parser is iterative,
// but dump(), copies, comparisons and conversions recurse once per level: a file of 100,000 '['
// would overflow the stack of whatever reads it.
constexpr int kMaxJsonDepth = 128;

// json::parse that refuses a value nested deeper than kMaxJsonDepth (Error(Parse) naming the limit).
inline nlohmann::json parseJson(const std::string& text) {
  return nlohmann::json::parse(text, [](int depth, nlohmann::json::parse_event_t, const nlohmann::json&) {
    if (depth > kMaxJsonDepth)
      throw Error(ErrorCode::Parse, "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels (the limit for a Kernelscope file)");
    return true;
  });
}

template <class T>
struct IsVector : std::false_type {};
template <class T>
struct IsVector<std::vector<T>> : std::true_type {};

// `j` as a T: integers must be whole numbers in T's range, lists are read element by element.
template <class T>
T jsonAs(const nlohmann::json& j) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    if (j.is_number_unsigned() && std::in_range<T>(j.get<uint64_t>())) return static_cast<T>(j.get<uint64_t>());
    if (j.is_number_integer() && !j.is_number_unsigned() && std::in_range<T>(j.get<int64_t>())) return static_cast<T>(j.get<int64_t>());
    throw Error(ErrorCode::Parse, "expected an integer in " + std::to_string(std::numeric_limits<T>::min()) + ".." +
                                      std::to_string(std::numeric_limits<T>::max()) + ", found " + j.dump());
  } else if constexpr (IsVector<T>::value) {
    if (!j.is_array()) throw Error(ErrorCode::Parse, "expected a list, found " + std::string(j.type_name()));
    T r;
    r.reserve(j.size());
    for (std::size_t i = 0; i < j.size(); ++i) {
      JsonPath at(i);
      r.push_back(jsonAs<typename T::value_type>(j[i]));
    }
    return r;
  } else {
    return j.get<T>();
  }
}

// The value under `key` (which must be there).
template <class T>
T jsonGet(const nlohmann::json& j, const char* key) {
  JsonPath at(key);
  if (!j.is_object()) throw Error(ErrorCode::Parse, "expected an object, found " + std::string(j.type_name()));
  const auto it = j.find(key);
  if (it == j.end()) throw Error(ErrorCode::Parse, "missing (expected a value here)");
  return jsonAs<T>(*it);
}

// The value under `key`, or `fallback` when there is none.
template <class T>
T jsonGet(const nlohmann::json& j, const char* key, T fallback) {
  if (!j.is_object() || !j.contains(key)) return fallback;
  return jsonGet<T>(j, key);
}

// Calls f(element) for each element of the list under `key` (none when the key is absent).
template <class F>
void jsonEach(const nlohmann::json& j, const char* key, F&& f) {
  if (!j.is_object() || !j.contains(key)) return;
  JsonPath at(key);
  const nlohmann::json& list = j.at(key);
  if (!list.is_array()) throw Error(ErrorCode::Parse, "expected a list, found " + std::string(list.type_name()));
  for (std::size_t i = 0; i < list.size(); ++i) {
    JsonPath ai(i);
    f(list[i]);
  }
}

}  // namespace ks
