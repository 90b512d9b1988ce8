// Typed, strict access to the members of one JSON object of the graph format, with errors
// "line N, <path>.<key>: <cause>" (FE_STATUS_INVALID_ARGUMENT). Members never read are refused
// by refuse_unread() as unknown, so a misspelled field is an error rather than a default.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cudnnfe.h"
#include "common/json.hpp"

namespace fe {

[[noreturn]] void json_fail(int line, const std::string &path, const std::string &cause,
                            fe_status status = FE_STATUS_INVALID_ARGUMENT);

class Fields {
  public:
    // `value` must be an object, else the error names `path` and says what was expected.
    Fields(const json::Value &value, std::string path, const char *what = "an object");

    const std::string &path() const { return path_; }
    std::string path_of(const char *key) const { return path_.empty() ? key : path_ + "." + key; }
    const json::Value &value() const { return value_; }

    // The member, marked as read; nullptr when absent (null counts as absent only where a
    // getter says so).
    const json::Value *get(const char *key);
    const json::Value &require(const char *key);
    bool has(const char *key) const { return value_.find(key) != nullptr; }

    std::string string(const char *key, const std::string &fallback);
    std::string required_string(const char *key);
    int64_t integer(const char *key, int64_t fallback);
    double number(const char *key, double fallback);  // also "inf", "-inf", "nan"
    bool boolean(const char *key, bool fallback);
    fe_data_type data_type(const char *key, fe_data_type fallback);
    // An array of 1 to max_count integers; false when absent.
    bool integers(const char *key, std::vector<int64_t> *out, size_t max_count);

    [[noreturn]] void fail(const char *key, const std::string &cause) const;
    [[noreturn]] void fail_at(const json::Value &at, const char *key, const std::string &cause) const;
    // Fails at `v` (a string) when it holds a NUL, which the C API could not tell from its end.
    void require_text(const json::Value &v, const char *key) const;
    // Refuse members nobody read: "unknown field (known: a, b, c)" with `known` listing them.
    void refuse_unread(const char *known) const;

  private:
    const json::Value &value_;
    std::string path_;
    std::vector<bool> read_;
};

// Numbers of the format: JSON numbers, or the strings "inf", "-inf" and "nan".
bool number_of(const json::Value &v, double *out);

}  // namespace fe
