#include "common/json.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <new>
#include <utility>
#include <vector>

#include "common/error.hpp"

namespace fe::json {


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

// ---- values --------------------------------------------------------------------------------

double Value::number() const {
    if (type() != Type::Number) return 0.0;
    return is_integer() ? static_cast<double>(payload_.integer) : payload_.number;
}

std::string_view Value::string() const {
    if (type() != Type::String) return {};
    return std::string_view(reinterpret_cast<const char *>(this) + payload_.text.offset, payload_.text.length);
}

Value::Elements Value::array() const {
    if (type() != Type::Array) return Elements(this, 0, this);
    return Elements(this + 1, payload_.span.count, next());
}

Value::Members Value::object() const {
    if (type() != Type::Object) return Members(this, 0, this);
    return Members(this + 1, payload_.span.count, next());
}

const Value *Value::find(std::string_view key) const {
    for (const Member member : object())
        if (member.first == key) return &member.second;
    return nullptr;
}

const Value &empty_object() {
    static const Document empty = parse("{}");
    return empty.root();
}

// ---- reading -------------------------------------------------------------------------------

namespace {

// Texts past this are refused unread: a document's offsets are 32-bit, and no text the library
// reads (graphs, plans, device descriptions) comes near it.
constexpr size_t kMaxText = size_t(256) << 20;

// Where a string's unescaped bytes go: counted only (the first pass), or written too.
struct Sink {
    char *at = nullptr;
    size_t count = 0;
    void append(const char *bytes, size_t n) {
        if (at) std::memcpy(at + count, bytes, n);
        count += n;
    }
    void push(char c) {
        if (at) at[count] = c;
        ++count;
    }
};

}  // namespace

// Reads one text in one of two passes: without a document, it checks the text and counts the
// values and string bytes a document needs; with one sized by that count, it fills it.
class Parser {
  public:
    Parser(std::string_view text, Value *values, char *strings)
        : p_(text.data()), end_(text.data() + text.size()), values_(values), strings_{strings, 0} {}

    Type document() {
        skip_space();
        Type type = value(0);
        skip_space();
        if (p_ != end_) fail("unexpected %s after the JSON value", what_is_here().c_str());
        return type;
    }
    size_t value_count() const { return count_; }
    size_t string_bytes() const { return strings_.count; }

  private:
    template <typename... Args>
    [[noreturn]] void fail(const char *fmt, Args... args) const {
        fail_at(line_, format(fmt, args...));
    }
    [[noreturn]] void fail(const char *text) const { fail_at(line_, text); }
    [[noreturn]] static void fail_at(uint32_t line, const std::string &cause) {
        throw Error(FE_STATUS_INVALID_ARGUMENT, format("line %u: %s", line, cause.c_str()));
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

    // The next value of the document (nullptr in the counting pass).
    Value *add(Type type) {
        Value *v = nullptr;
        if (values_) {
            v = new (values_ + count_) Value();
            v->type_ = static_cast<uint8_t>(type);
            v->line_ = line_;
        }
        ++count_;
        return v;
    }

    Type value(int depth) {
        if (depth >= kMaxDepth) fail("values nest deeper than %d levels", kMaxDepth);
        if (p_ == end_) fail("expected a JSON value, found end of text");
        switch (*p_) {
            case '{': object(depth); return Type::Object;
            case '[': array(depth); return Type::Array;
            case '"': string(add(Type::String)); return Type::String;
            case 't': {
                expect_literal("true");
                if (Value *v = add(Type::Bool)) v->flags_ = 1;
                return Type::Bool;
            }
            case 'f': expect_literal("false"); add(Type::Bool); return Type::Bool;
            case 'n': expect_literal("null"); add(Type::Null); return Type::Null;
            default:
                if (*p_ == '-' || (*p_ >= '0' && *p_ <= '9')) {
                    number(add(Type::Number));
                    return Type::Number;
                }
                fail("expected a JSON value, found %s", what_is_here().c_str());
        }
    }

    // A container's count and extent, once its elements are read.
    void close(size_t at, uint32_t count) {
        if (!values_) return;
        Value &v = values_[at];
        v.payload_.span.count = count;
        v.payload_.span.extent = static_cast<uint32_t>(count_ - at);
    }

    void object(int depth) {
        const auto [at, members] = container(Type::Object, '}', "an object", [&] {
            if (p_ == end_ || *p_ != '"') fail("expected a member name in quotes, found %s", what_is_here().c_str());
            const char *name = p_;
            string(add(Type::String));
            const std::string_view written(name + 1, static_cast<size_t>(p_ - name - 2));
            skip_space();
            if (!consume(':'))
                fail("expected ':' after \"%s\", found %s", printable(written).c_str(), what_is_here().c_str());
            skip_space();
            value(depth + 1);
        });
        if (values_ && members > 0) refuse_duplicate_names(values_[at]);
    }

    void array(int depth) { container(Type::Array, ']', "an array", [&] { value(depth + 1); }); }

    // An object or array: its opening bracket stepped over, `element` reads each element (spaces
    // before it skipped) up to `closing`. Returns where the value is and how many elements it has.
    template <typename Element>
    std::pair<size_t, uint32_t> container(Type type, char closing, const char *what, Element element) {
        const size_t at = count_;
        add(type);
        ++p_;
        skip_space();
        uint32_t elements = 0;
        if (!consume(closing)) {
            do {
                skip_space();
                element();
                ++elements;
            } while (separator(closing, what));
        }
        close(at, elements);
        return {at, elements};
    }

    // Steps over `c` when it is next.
    bool consume(char c) {
        if (p_ == end_ || *p_ != c) return false;
        ++p_;
        return true;
    }

    // After a container's element: true on ',' (another follows), false on `closing` (the end).
    bool separator(char closing, const char *container) {
        skip_space();
        if (consume(',')) return true;
        if (consume(closing)) return false;
        fail("expected ',' or '%c' in %s, found %s", closing, container, what_is_here().c_str());
    }

    // Small objects (nearly all) are scanned; wider ones sorted by name, 4 bytes a member, so that
    // a wide object costs n log n time.
    static void refuse_duplicate_names(const Value &object) {
        const Value *first = &object + 1;
        if (object.size() < kScanLimit) {
            for (const Value *a = first; a != object.next(); a = (a + 1)->next())
                for (const Value *b = first; b != a; b = (b + 1)->next())
                    if (a->string() == b->string()) duplicate(*a);
            return;
        }
        std::vector<uint32_t> names;
        names.reserve(object.size());
        for (const Value *a = first; a != object.next(); a = (a + 1)->next())
            names.push_back(static_cast<uint32_t>(a - &object));
        auto name = [&object](uint32_t at) { return (&object + at)->string(); };
        std::sort(names.begin(), names.end(), [&](uint32_t a, uint32_t b) {
            return name(a) != name(b) ? name(a) < name(b) : a < b;
        });
        for (size_t i = 1; i < names.size(); ++i)
            if (name(names[i]) == name(names[i - 1])) duplicate(*(&object + names[i]));
    }
    [[noreturn]] static void duplicate(const Value &name) {
        fail_at(name.line_, format("the member \"%s\" appears twice", printable(name.string()).c_str()));
    }
    static constexpr size_t kScanLimit = 16;

    static std::string printable(std::string_view s) {
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

    static void append_utf8(Sink &out, uint32_t cp) {
        if (cp < 0x80) {
            out.push(static_cast<char>(cp));
        } else if (cp < 0x800) {
            out.push(static_cast<char>(0xc0 | (cp >> 6)));
            out.push(static_cast<char>(0x80 | (cp & 0x3f)));
        } else if (cp < 0x10000) {
            out.push(static_cast<char>(0xe0 | (cp >> 12)));
            out.push(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
            out.push(static_cast<char>(0x80 | (cp & 0x3f)));
        } else {
            out.push(static_cast<char>(0xf0 | (cp >> 18)));
            out.push(static_cast<char>(0x80 | ((cp >> 12) & 0x3f)));
            out.push(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
            out.push(static_cast<char>(0x80 | (cp & 0x3f)));
        }
    }

    // One UTF-8 sequence starting at p_ (a byte >= 0x80), copied after checking it.
    void utf8(Sink &out) {
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

    // A string's bytes, unescaped, after the strings read before it; `v` (when filling) points
    // to them.
    void string(Value *v) {
        const size_t start = strings_.count;
        ++p_;  // '"'
        for (;;) {
            const char *run = p_;
            while (p_ != end_ && *p_ != '"' && *p_ != '\\' && static_cast<unsigned char>(*p_) >= 0x20 &&
                   static_cast<unsigned char>(*p_) < 0x80)
                ++p_;
            strings_.append(run, static_cast<size_t>(p_ - run));
            if (p_ == end_) fail("a string is not closed");
            unsigned char c = static_cast<unsigned char>(*p_);
            if (c == '"') {
                ++p_;
                break;
            }
            if (c < 0x20) fail("a string holds control character 0x%02x; escape it", c);
            if (c >= 0x80) {
                utf8(strings_);
                continue;
            }
            ++p_;  // backslash
            if (p_ == end_) fail("a string is not closed");
            char e = *p_++;
            switch (e) {
                case '"': strings_.push('"'); break;
                case '\\': strings_.push('\\'); break;
                case '/': strings_.push('/'); break;
                case 'b': strings_.push('\b'); break;
                case 'f': strings_.push('\f'); break;
                case 'n': strings_.push('\n'); break;
                case 'r': strings_.push('\r'); break;
                case 't': strings_.push('\t'); break;
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
                    append_utf8(strings_, cp);
                    break;
                }
                default: fail("unknown escape '\\%c' in a string", e >= 0x20 && e < 0x7f ? e : '?');
            }
        }
        if (v) {
            v->payload_.text.offset =
                static_cast<uint32_t>(strings_.at + start - reinterpret_cast<const char *>(v));
            v->payload_.text.length = static_cast<uint32_t>(strings_.count - start);
        }
    }

    void number(Value *v) {
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
        double number = 0;
        auto result = std::from_chars(start, p_, number);
        if (result.ec == std::errc::result_out_of_range) {
            // Magnitudes beyond double: refuse rather than keep an infinity the text did not say.
            fail("the number %.*s is out of range", static_cast<int>(p_ - start > 40 ? 40 : p_ - start), start);
        }
        if (!v) return;
        int64_t integer = 0;
        if (integral) {
            auto r = std::from_chars(start, p_, integer);
            if (r.ec == std::errc() && r.ptr == p_) {
                v->flags_ = 1;
                v->payload_.integer = integer;
                return;
            }
        }
        v->payload_.number = number;
    }

    const char *p_;
    const char *end_;
    uint32_t line_ = 1;
    Value *values_;  // the document's values (nullptr: counting)
    size_t count_ = 0;
    Sink strings_;
};

namespace {

void refuse_oversized(std::string_view text) {
    if (text.size() > kMaxText)
        throw Error(FE_STATUS_INVALID_ARGUMENT,
                    format("a JSON text of %zu bytes is over the %zu MiB this reader takes", text.size(), kMaxText >> 20));
}

}  // namespace

Document parse(std::string_view text) {
    refuse_oversized(text);
    Parser counting(text, nullptr, nullptr);
    counting.document();
    const size_t values = counting.value_count(), strings = counting.string_bytes();
    static_assert(sizeof(Value) == 16, "a value takes 16 bytes");
    Document doc;
    doc.bytes_ = values * sizeof(Value) + strings;
    doc.block_.reset(new uint64_t[(doc.bytes_ + 7) / 8]);
    Value *first = reinterpret_cast<Value *>(doc.block_.get());
    Parser filling(text, first, reinterpret_cast<char *>(first + values));
    filling.document();
    return doc;
}

Type check(std::string_view text) {
    refuse_oversized(text);
    return Parser(text, nullptr, nullptr).document();
}


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

Writer &Writer::begin_object() { return open('{'); }
Writer &Writer::end_object() { return close('}'); }
Writer &Writer::begin_array() { return open('['); }
Writer &Writer::end_array() { return close(']'); }

Writer &Writer::open(char bracket) {
    before_value();
    out_ += bracket;
    FE_CHECK(depth_ < 63, FE_STATUS_INTERNAL, "JSON nests too deep");
    ++depth_;
    nonempty_ &= ~(uint64_t(1) << (depth_ - 1));
    return *this;
}

Writer &Writer::close(char bracket) {
    --depth_;
    out_ += bracket;
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

// A number in its shortest form that reads back exactly (std::to_chars).
template <typename Number>
static void append_number(std::string &out, Number value) {
    char buf[32];
    auto r = std::to_chars(buf, buf + sizeof buf, value);
    out.append(buf, static_cast<size_t>(r.ptr - buf));
}

Writer &Writer::integer(int64_t value) {
    before_value();
    append_number(out_, value);
    return *this;
}

Writer &Writer::number(double value) {
    if (std::isnan(value)) return string("nan");
    if (std::isinf(value)) return string(value > 0 ? "inf" : "-inf");
    before_value();
    append_number(out_, value);
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
