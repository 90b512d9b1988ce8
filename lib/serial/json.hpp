// A small strict JSON (RFC 8259) reader and a canonical writer, for the graph JSON of
// docs/graph-json.md. The reader keeps the line of every value so that errors can name it; it
// refuses what RFC 8259 refuses (trailing commas, comments, leading zeros, bare control
// characters, invalid UTF-8 escapes, duplicate keys) and nests at most kMaxDepth levels.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fe::json {

enum class Type { Null, Bool, Number, String, Array, Object };

struct Value {
    Type type = Type::Null;
    int line = 1;
    bool boolean = false;
    // Numbers: `number` always; `integer` too when the text has no fraction or exponent and
    // fits an int64 (then is_integer is true).
    double number = 0.0;
    int64_t integer = 0;
    bool is_integer = false;
    std::string string;
    std::vector<Value> array;
    std::vector<std::pair<std::string, Value>> object;  // in document order, keys unique

    const Value *find(std::string_view key) const;
};

const char *type_name(Type type);

constexpr int kMaxDepth = 64;

// Parse exactly one JSON value (surrounded by optional whitespace). Throws fe::Error
// FE_STATUS_INVALID_ARGUMENT "line N: <cause>", also for a text whose values would take more
// than 8 times its size in memory, or 64 MiB for a shorter one (refused as soon as they would).
Value parse(std::string_view text);
// Checks that the text is exactly one JSON value, as parse() reads them, without keeping any (nor
// looking for duplicate member names): linear time, memory independent of the text. Returns the
// value's type.
Type check(std::string_view text);

// Appends canonical JSON to a string: no insignificant whitespace except where the caller asks
// for a newline, members in the order written, numbers in their shortest round-trip form. The
// caller keeps objects and arrays balanced; commas are inserted here.
class Writer {
  public:
    explicit Writer(std::string &out) : out_(out) {}

    Writer &begin_object();
    Writer &end_object();
    Writer &begin_array();
    Writer &end_array();
    Writer &key(std::string_view name);  // the next value is this member's
    Writer &string(std::string_view text);
    Writer &integer(int64_t value);
    // Finite values as JSON numbers (shortest text that reads back to the same double);
    // infinities and NaN, which JSON lacks, as the strings "inf", "-inf" and "nan".
    Writer &number(double value);
    Writer &boolean(bool value);
    Writer &null();
    Writer &integers(const int64_t *values, size_t count);
    Writer &integers(const std::vector<int64_t> &values) { return integers(values.data(), values.size()); }
    // A line break before the next value or member, never before a closing bracket (layout
    // only: the same graph always gets the same breaks).
    Writer &newline(int indent);

    // key + value shorthands.
    Writer &field(std::string_view name, std::string_view text) { return key(name).string(text); }
    Writer &field(std::string_view name, const char *text) { return key(name).string(text); }
    Writer &field(std::string_view name, int64_t value) { return key(name).integer(value); }
    Writer &field(std::string_view name, int32_t value) { return key(name).integer(value); }
    Writer &field(std::string_view name, double value) { return key(name).number(value); }
    Writer &field(std::string_view name, bool value) { return key(name).boolean(value); }
    Writer &field(std::string_view name, const std::vector<int64_t> &values) { return key(name).integers(values); }

  private:
    void before_value();
    std::string &out_;
    // One bit per open container: whether it already holds a value (a comma comes next).
    uint64_t nonempty_ = 0;
    int depth_ = 0;
    bool after_key_ = false;
    bool comma_written_ = false;  // by newline(), for the next value
};

// Append `text` as a JSON string literal (quotes, escapes; bytes >= 0x80 copied as they are).
void append_string(std::string &out, std::string_view text);

}  // namespace fe::json
