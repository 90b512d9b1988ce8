// A small strict JSON (RFC 8259) reader and a canonical writer, for the graph JSON of
// docs/graph-json.md. The reader keeps the line of every value so that errors can name it; it
// refuses what RFC 8259 refuses (trailing commas, comments, leading zeros, bare control
// characters, invalid UTF-8 escapes, duplicate keys) and nests at most kMaxDepth levels.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fe::json {

enum class Type { Null, Bool, Number, String, Array, Object };

class Value;
class Parser;
class Document;
Document parse(std::string_view text);

// An object's member: its name and its value (which lives in the document).
struct Member {
    std::string_view first;
    const Value &second;
};

// One JSON value inside a Document: 16 bytes in one array with every other value of the
// document, in document order. A container's elements follow it, each followed by its own; an
// object's members are each a name (a string) and a value. Strings are kept unescaped after the
// values, in the same block. Values are only ever referred to, never copied.
class Value {
  public:
    Value(const Value &) = delete;
    Value &operator=(const Value &) = delete;

    Type type() const { return static_cast<Type>(type_); }
    int line() const { return static_cast<int>(line_); }
    bool boolean() const { return type() == Type::Bool && flags_ != 0; }
    // Numbers: number() always; integer() too when the text has no fraction or exponent and fits
    // an int64 (then is_integer() is true).
    double number() const;
    int64_t integer() const { return is_integer() ? payload_.integer : 0; }
    bool is_integer() const { return type() == Type::Number && flags_ != 0; }
    std::string_view string() const;
    std::string str() const { return std::string(string()); }  // string(), copied

    // The elements of an array, or the members of an object, in document order; empty for
    // other values.
    template <typename Step>
    class Range;
    struct ElementStep;
    struct MemberStep;
    using Elements = Range<ElementStep>;
    using Members = Range<MemberStep>;
    Elements array() const;
    Members object() const;
    size_t size() const { return type() == Type::Array || type() == Type::Object ? payload_.span.count : 0; }

    // The member named `key`, or nullptr.
    const Value *find(std::string_view key) const;

  private:
    friend class Parser;
    Value() = default;
    // The values this one spans: itself and, for a container, every value inside it.
    uint32_t extent() const { return type() == Type::Array || type() == Type::Object ? payload_.span.extent : 1; }
    const Value *next() const { return this + extent(); }

    uint8_t type_ = 0;
    uint8_t flags_ = 0;  // Bool: true; Number: an integer
    uint16_t unused_ = 0;
    uint32_t line_ = 1;
    union Payload {
        double number;
        int64_t integer;
        struct {
            uint32_t count, extent;  // containers: elements or members; values spanned
        } span;
        struct {
            uint32_t offset, length;  // strings: bytes from this value to the text, and its length
        } text;
    } payload_{};
};

// The values a container holds, from the first to the one after its last: Step moves an
// iterator from one element (or member) to the next, and reads it.
template <typename Step>
class Value::Range {
  public:
    class iterator {
      public:
        explicit iterator(const Value *at) : at_(at) {}
        decltype(auto) operator*() const { return Step::read(at_); }
        iterator &operator++() {
            at_ = Step::next(at_);
            return *this;
        }
        bool operator!=(const iterator &other) const { return at_ != other.at_; }

      private:
        const Value *at_;
    };
    Range(const Value *first, size_t count, const Value *end) : first_(first), count_(count), end_(end) {}
    iterator begin() const { return iterator(first_); }
    iterator end() const { return iterator(end_); }
    size_t size() const { return count_; }
    bool empty() const { return count_ == 0; }

  private:
    const Value *first_;
    size_t count_;
    const Value *end_;
};

// An array's elements, each a value.
struct Value::ElementStep {
    static const Value &read(const Value *at) { return *at; }
    static const Value *next(const Value *at) { return at->next(); }
};

// An object's members, each a name (a string value) followed by its value.
struct Value::MemberStep {
    static Member read(const Value *at) { return {at->string(), *(at + 1)}; }
    static const Value *next(const Value *at) { return (at + 1)->next(); }
};

// The values of one JSON text, in one block of memory: 16 bytes per value and member name, plus
// the strings' bytes, which is at most 8 times the text and 16 bytes.
class Document {
  public:
    Document() = default;
    const Value &root() const { return *reinterpret_cast<const Value *>(block_.get()); }
    size_t bytes() const { return bytes_; }

  private:
    friend Document parse(std::string_view text);
    std::unique_ptr<uint64_t[]> block_;
    size_t bytes_ = 0;
};

const char *type_name(Type type);

// An object with no members, for a reader's absent member.
const Value &empty_object();

constexpr int kMaxDepth = 64;

// Parse exactly one JSON value (surrounded by optional whitespace), in memory of at most 8 times
// the text (and 16 bytes) and time linear in it: the text is read twice, once to check it and
// size the document, once to fill it. Throws fe::Error FE_STATUS_INVALID_ARGUMENT
// "line N: <cause>".
Document parse(std::string_view text);
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
    // An object's or array's bracket, the nesting tracked.
    Writer &open(char bracket);
    Writer &close(char bracket);
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
