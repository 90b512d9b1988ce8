#include "serial/json.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <unordered_set>

#include "common/error.hpp"

namespace fe::json {

const Value *Value::find(std::string_view key) const {
    for (const auto &member : object)
        if (member.first == key) return &member.second;
    return nullptr;
}

const char *type_name(Type type) {
    switch (type) {
        case Type::Null: return "null";
        case Type::Bool: return "a boolean";
        case Type::Number: return "a number";
        case Type::String: return "a string";
        case Type::Array: return "an array";
        case Type::Object: return "an object";
    }
    return "a value";
}

// ---- reading -------------------------------------------------------------------------------

namespace {

// The member names of one object seen so far. Small objects (nearly all) are scanned; past
// kScanLimit members the names go into a hash set, so a wide object costs linear time.
class MemberNames {
  public:
    // False when `key` was seen already; `members` are the object's members before it.
    bool insert(const std::string &key, const std::vector<std::pair<std::string, Value>> &members) {
        if (members.size() < kScanLimit) {
            for (const auto &member : members)
                if (member.first == key) return false;
            return true;
        }
        if (hashed_.empty())
            for (const auto &member : members) hashed_.insert(member.first);
        return hashed_.insert(key).second;
    }

  private:
    static constexpr size_t kScanLimit = 16;
    std::unordered_set<std::string> hashed_;
};

// What reading a text into values may take: 8 times the text, or 256 MiB for a shorter one (a
// value takes about 120 bytes: a dense text of a few MiB, such as a graph of 60,000 operations,
// needs more than 8 times its size).
constexpr size_t kMemoryPerTextByte = 8, kMemoryFloor = size_t(256) << 20;

// What appending one element to `v` allocates: its vector's next block when it is full (the
// standard library's vectors double).
template <typename T>
size_t growth_of(const std::vector<T> &v) {
    return v.size() < v.capacity() ? 0 : (v.capacity() ? v.capacity() : 1) * sizeof(T);
}

// Heap bytes a string holds beyond its own object (short strings live inside it).
size_t heap_of(const std::string &s) { return s.capacity() > 15 ? s.capacity() + 1 : 0; }

class Parser {
  public:
    // keep: build the values (memory bounded as above); otherwise only check the text, in memory
    // that does not grow with it (no values kept, duplicate member names not looked for).
    Parser(std::string_view text, bool keep)
        : p_(text.data()), end_(text.data() + text.size()), text_size_(text.size()), keep_(keep),
          budget_(std::max(kMemoryFloor, kMemoryPerTextByte * text.size())) {}

    Value document() {
        skip_space();
        Value v = value(0);
        skip_space();
        if (p_ != end_) fail("unexpected %s after the JSON value", what_is_here().c_str());
        return v;
    }

  private:
    template <typename... Args>
    [[noreturn]] void fail(const char *fmt, Args... args) const {
        std::string cause = format(fmt, args...);
        throw Error(FE_STATUS_INVALID_ARGUMENT, format("line %d: ", line_) + cause);
    }
    [[noreturn]] void fail(const char *text) const {
        throw Error(FE_STATUS_INVALID_ARGUMENT, format("line %d: %s", line_, text));
    }

    // Counts memory the values will hold; past the budget the text is refused, so a text built to
    // expand (a long array of one-digit numbers, of empty arrays) costs at most the budget.
    void charge(size_t bytes) {
        used_ += bytes;
        if (used_ > budget_)
            fail("reading this %zu-byte JSON text would take more than %zu bytes of memory (the reader holds at most "
                 "%zu times a text, or %zu MiB)",
                 text_size_, budget_, kMemoryPerTextByte, kMemoryFloor >> 20);
    }

    std::string what_is_here() const {
        if (p_ == end_) return "end of text";
        unsigned char c = static_cast<unsigned char>(*p_);
        if (c >= 0x20 && c < 0x7f) return format("'%c'", c);
        return format("byte 0x%02x", c);
    }

    void skip_space() {
        while (p_ != end_) {
            char c = *p_;
            if (c == '\n') {
                ++line_;
            } else if (c != ' ' && c != '\t' && c != '\r') {
                return;
            }
            ++p_;
        }
    }

    void expect_literal(const char *word) {
        size_t n = std::strlen(word);
        if (static_cast<size_t>(end_ - p_) < n || std::memcmp(p_, word, n) != 0)
            fail("expected a JSON value, found %s", what_is_here().c_str());
        p_ += n;
    }

    Value value(int depth) {
        if (depth >= kMaxDepth) fail("values nest deeper than %d levels", kMaxDepth);
        Value v;
        v.line = line_;
        if (p_ == end_) fail("expected a JSON value, found end of text");
        switch (*p_) {
            case '{': object(v, depth); break;
            case '[': array(v, depth); break;
            case '"':
                v.type = Type::String;
                string(v.string);
                if (keep_) charge(heap_of(v.string));
                break;
            case 't':
                expect_literal("true");
                v.type = Type::Bool;
                v.boolean = true;
                break;
            case 'f':
                expect_literal("false");
                v.type = Type::Bool;
                break;
            case 'n': expect_literal("null"); break;
            default:
                if (*p_ == '-' || (*p_ >= '0' && *p_ <= '9'))
                    number(v);
                else
                    fail("expected a JSON value, found %s", what_is_here().c_str());
        }
        return v;
    }

    void object(Value &v, int depth) {
        v.type = Type::Object;
        ++p_;  // '{'
        skip_space();
        if (p_ != end_ && *p_ == '}') {
            ++p_;
            return;
        }
        MemberNames names;
        for (;;) {
            skip_space();
            if (p_ == end_ || *p_ != '"') fail("expected a member name in quotes, found %s", what_is_here().c_str());
            std::string key;
            string(key);
            if (keep_ && !names.insert(key, v.object)) fail("the member \"%s\" appears twice", printable(key).c_str());
            skip_space();
            if (p_ == end_ || *p_ != ':') fail("expected ':' after \"%s\", found %s", printable(key).c_str(), what_is_here().c_str());
            ++p_;
            skip_space();
            if (!keep_) {
                value(depth + 1);
            } else {
                // The members' vector as it grows, the name, and its place in the names' hash
                // set once the object is wide (a node: the name and two pointers).
                charge(growth_of(v.object) + 2 * heap_of(key) + (v.object.size() >= 16 ? sizeof(std::string) + 24 : 0));
                v.object.emplace_back(std::move(key), value(depth + 1));
            }
            skip_space();
            if (p_ != end_ && *p_ == ',') {
                ++p_;
                continue;
            }
            if (p_ != end_ && *p_ == '}') {
                ++p_;
                return;
            }
            fail("expected ',' or '}' in an object, found %s", what_is_here().c_str());
        }
    }

    void array(Value &v, int depth) {
        v.type = Type::Array;
        ++p_;  // '['
        skip_space();
        if (p_ != end_ && *p_ == ']') {
            ++p_;
            return;
        }
        for (;;) {
            skip_space();
            if (!keep_) {
                value(depth + 1);
            } else {
                charge(growth_of(v.array));
                v.array.push_back(value(depth + 1));
            }
            skip_space();
            if (p_ != end_ && *p_ == ',') {
                ++p_;
                continue;
            }
            if (p_ != end_ && *p_ == ']') {
                ++p_;
                return;
            }
            fail("expected ',' or ']' in an array, found %s", what_is_here().c_str());
        }
    }

    static std::string printable(const std::string &s) {
        std::string out;
        for (char c : s.size() > 40 ? s.substr(0, 40) : s)
            out += (static_cast<unsigned char>(c) < 0x20 || c == '"') ? '?' : c;
        return s.size() > 40 ? out + "..." : out;
    }

    int hex4() {
        if (end_ - p_ < 4) fail("a \\u escape needs four hex digits");
        int value = 0;
        for (int i = 0; i < 4; ++i) {
            char c = *p_++;
            int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
            if (digit < 0) fail("a \\u escape needs four hex digits");
            value = value * 16 + digit;
        }
        return value;
    }

    static void append_utf8(std::string &out, uint32_t cp) {
        if (cp < 0x80) {
            out += static_cast<char>(cp);
        } else if (cp < 0x800) {
            out += static_cast<char>(0xc0 | (cp >> 6));
            out += static_cast<char>(0x80 | (cp & 0x3f));
        } else if (cp < 0x10000) {
            out += static_cast<char>(0xe0 | (cp >> 12));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
            out += static_cast<char>(0x80 | (cp & 0x3f));
        } else {
            out += static_cast<char>(0xf0 | (cp >> 18));
            out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
            out += static_cast<char>(0x80 | (cp & 0x3f));
        }
    }

    // One UTF-8 sequence starting at p_ (a byte >= 0x80), copied after checking it.
    void utf8(std::string &out) {
        unsigned char c = static_cast<unsigned char>(*p_);
        int extra = c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : -1;
        if (extra < 0 || end_ - p_ <= extra) fail("a string holds invalid UTF-8 (byte 0x%02x)", c);
        uint32_t cp = c & (0x3f >> extra);
        for (int i = 1; i <= extra; ++i) {
            unsigned char d = static_cast<unsigned char>(p_[i]);
            if ((d & 0xc0) != 0x80) fail("a string holds invalid UTF-8 (byte 0x%02x)", c);
            cp = (cp << 6) | (d & 0x3f);
        }
        bool overlong = (extra == 2 && cp < 0x800) || (extra == 3 && cp < 0x10000);
        if (overlong || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
            fail("a string holds invalid UTF-8 (byte 0x%02x)", c);
        out.append(p_, static_cast<size_t>(extra + 1));
        p_ += extra + 1;
    }

    void string(std::string &out) {
        ++p_;  // '"'
        for (;;) {
            const char *run = p_;
            while (p_ != end_ && *p_ != '"' && *p_ != '\\' && static_cast<unsigned char>(*p_) >= 0x20 &&
                   static_cast<unsigned char>(*p_) < 0x80)
                ++p_;
            out.append(run, static_cast<size_t>(p_ - run));
            if (p_ == end_) fail("a string is not closed");
            unsigned char c = static_cast<unsigned char>(*p_);
            if (c == '"') {
                ++p_;
                return;
            }
            if (c < 0x20) fail("a string holds control character 0x%02x; escape it", c);
            if (c >= 0x80) {
                utf8(out);
                continue;
            }
            ++p_;  // backslash
            if (p_ == end_) fail("a string is not closed");
            char e = *p_++;
            switch (e) {
                case '"': out += '"'; break;
                case '\\': out += '\\'; break;
                case '/': out += '/'; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'n': out += '\n'; break;
                case 'r': out += '\r'; break;
                case 't': out += '\t'; break;
                case 'u': {
                    uint32_t cp = static_cast<uint32_t>(hex4());
                    if (cp >= 0xd800 && cp <= 0xdbff) {
                        if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') fail("a \\u escape holds half a surrogate pair");
                        p_ += 2;
                        uint32_t low = static_cast<uint32_t>(hex4());
                        if (low < 0xdc00 || low > 0xdfff) fail("a \\u escape holds half a surrogate pair");
                        cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
                    } else if (cp >= 0xdc00 && cp <= 0xdfff) {
                        fail("a \\u escape holds half a surrogate pair");
                    }
                    append_utf8(out, cp);
                    break;
                }
                default: fail("unknown escape '\\%c' in a string", e >= 0x20 && e < 0x7f ? e : '?');
            }
        }
    }

    void number(Value &v) {
        v.type = Type::Number;
        const char *start = p_;
        bool integral = true;
        if (*p_ == '-') ++p_;
        if (p_ == end_ || *p_ < '0' || *p_ > '9') fail("a number needs a digit after '-'");
        if (*p_ == '0') {
            ++p_;
            if (p_ != end_ && *p_ >= '0' && *p_ <= '9') fail("a number has a leading zero");
        } else {
            while (p_ != end_ && *p_ >= '0' && *p_ <= '9') ++p_;
        }
        if (p_ != end_ && *p_ == '.') {
            integral = false;
            ++p_;
            if (p_ == end_ || *p_ < '0' || *p_ > '9') fail("a number needs a digit after '.'");
            while (p_ != end_ && *p_ >= '0' && *p_ <= '9') ++p_;
        }
        if (p_ != end_ && (*p_ == 'e' || *p_ == 'E')) {
            integral = false;
            ++p_;
            if (p_ != end_ && (*p_ == '+' || *p_ == '-')) ++p_;
            if (p_ == end_ || *p_ < '0' || *p_ > '9') fail("a number needs a digit in its exponent");
            while (p_ != end_ && *p_ >= '0' && *p_ <= '9') ++p_;
        }
        auto result = std::from_chars(start, p_, v.number);
        if (result.ec == std::errc::result_out_of_range) {
            // Magnitudes beyond double: refuse rather than keep an infinity the text did not say.
            fail("the number %.*s is out of range", static_cast<int>(p_ - start > 40 ? 40 : p_ - start), start);
        }
        if (integral) {
            auto r = std::from_chars(start, p_, v.integer);
            v.is_integer = r.ec == std::errc() && r.ptr == p_;
        }
    }

    const char *p_;
    const char *end_;
    int line_ = 1;
    size_t text_size_;
    bool keep_;
    size_t budget_, used_ = 0;
};

}  // namespace

Value parse(std::string_view text) { return Parser(text, true).document(); }

Type check(std::string_view text) { return Parser(text, false).document().type; }

// ---- writing -------------------------------------------------------------------------------

void append_string(std::string &out, std::string_view text) {
    static const char hex[] = "0123456789abcdef";
    out += '"';
    const char *run = text.data();
    const char *end = run + text.size();
    for (const char *p = run; p != end; ++p) {
        unsigned char c = static_cast<unsigned char>(*p);
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        out.append(run, static_cast<size_t>(p - run));
        run = p + 1;
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            case '\b': out += "\\b"; break;
            case '\f': out += "\\f"; break;
            default:
                out += "\\u00";
                out += hex[c >> 4];
                out += hex[c & 15];
        }
    }
    out.append(run, static_cast<size_t>(end - run));
    out += '"';
}

void Writer::before_value() {
    if (after_key_) {
        after_key_ = false;
        return;
    }
    if (depth_ > 0) {
        uint64_t bit = uint64_t(1) << (depth_ - 1);
        if ((nonempty_ & bit) && !comma_written_) out_ += ',';
        nonempty_ |= bit;
    }
    comma_written_ = false;
}

Writer &Writer::begin_object() {
    before_value();
    out_ += '{';
    FE_CHECK(depth_ < 63, FE_STATUS_INTERNAL, "JSON nests too deep");
    ++depth_;
    nonempty_ &= ~(uint64_t(1) << (depth_ - 1));
    return *this;
}

Writer &Writer::end_object() {
    --depth_;
    out_ += '}';
    return *this;
}

Writer &Writer::begin_array() {
    before_value();
    out_ += '[';
    FE_CHECK(depth_ < 63, FE_STATUS_INTERNAL, "JSON nests too deep");
    ++depth_;
    nonempty_ &= ~(uint64_t(1) << (depth_ - 1));
    return *this;
}

Writer &Writer::end_array() {
    --depth_;
    out_ += ']';
    return *this;
}

Writer &Writer::key(std::string_view name) {
    before_value();
    append_string(out_, name);
    out_ += ':';
    after_key_ = true;
    return *this;
}

Writer &Writer::newline(int indent) {
    // A comma that is due goes before the break, so lines end with their comma.
    if (depth_ > 0 && !after_key_ && !comma_written_ && (nonempty_ & (uint64_t(1) << (depth_ - 1)))) {
        out_ += ',';
        comma_written_ = true;
    }
    out_ += '\n';
    out_.append(static_cast<size_t>(indent), ' ');
    return *this;
}

Writer &Writer::string(std::string_view text) {
    before_value();
    append_string(out_, text);
    return *this;
}

Writer &Writer::integer(int64_t value) {
    before_value();
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, value);
    out_.append(buf, static_cast<size_t>(r.ptr - buf));
    return *this;
}

Writer &Writer::number(double value) {
    if (std::isnan(value)) return string("nan");
    if (std::isinf(value)) return string(value > 0 ? "inf" : "-inf");
    before_value();
    char buf[32];
    auto r = std::to_chars(buf, buf + sizeof buf, value);
    out_.append(buf, static_cast<size_t>(r.ptr - buf));
    return *this;
}

Writer &Writer::boolean(bool value) {
    before_value();
    out_ += value ? "true" : "false";
    return *this;
}

Writer &Writer::null() {
    before_value();
    out_ += "null";
    return *this;
}

Writer &Writer::integers(const int64_t *values, size_t count) {
    before_value();
    out_ += '[';
    char buf[24];
    for (size_t i = 0; i < count; ++i) {
        if (i) out_ += ',';
        auto r = std::to_chars(buf, buf + sizeof buf, values[i]);
        out_.append(buf, static_cast<size_t>(r.ptr - buf));
    }
    out_ += ']';
    return *this;
}

}  // namespace fe::json
