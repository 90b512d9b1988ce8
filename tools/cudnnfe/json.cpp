#include "json.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "cli.hpp"

namespace tool {

const Json *Json::get(const std::string &key) const {
    for (const auto &f : fields)
        if (f.first == key) return &f.second;
    return nullptr;
}

namespace {

class Reader {
  public:
    explicit Reader(const std::string &text) : s_(text) {}

    bool document(Json &out, std::string &error) {
        bool ok = value(out, 0) && (space(), at_end() || fail("text after the JSON value"));
        if (!ok) error = "line " + std::to_string(line()) + ": " + error_;
        return ok;
    }

  private:
    const std::string &s_;
    size_t i_ = 0;
    std::string error_;

    bool at_end() const { return i_ >= s_.size(); }
    bool fail(const std::string &why) {
        if (error_.empty()) error_ = why;
        return false;
    }
    int line() const {
        int n = 1;
        for (size_t k = 0; k < i_ && k < s_.size(); ++k) n += s_[k] == '\n';
        return n;
    }
    void space() {
        while (!at_end() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
    }
    bool literal(const char *word) {
        size_t n = std::char_traits<char>::length(word);
        if (s_.compare(i_, n, word) != 0) return fail("unexpected character");
        i_ += n;
        return true;
    }

    bool value(Json &out, int depth) {
        if (depth > 200) return fail("nesting is too deep");
        space();
        if (at_end()) return fail("unexpected end of text");
        char c = s_[i_];
        if (c == '{') return object(out, depth);
        if (c == '[') return array(out, depth);
        if (c == '"') {
            out.kind = Json::Kind::String;
            return string(out.text);
        }
        if (c == 't' || c == 'f') {
            out.kind = Json::Kind::Bool;
            out.boolean = c == 't';
            return literal(c == 't' ? "true" : "false");
        }
        if (c == 'n') {
            out.kind = Json::Kind::Null;
            return literal("null");
        }
        return number(out);
    }

    bool number(Json &out) {
        const char *start = s_.c_str() + i_;
        if (*start != '-' && (*start < '0' || *start > '9')) return fail("unexpected character");
        char *end = nullptr;
        out.number = std::strtod(start, &end);
        if (end == start) return fail("bad number");
        out.kind = Json::Kind::Number;
        i_ += static_cast<size_t>(end - start);
        return true;
    }

    bool string(std::string &out) {
        ++i_;  // opening quote
        while (!at_end()) {
            char c = s_[i_++];
            if (c == '"') return true;
            if (c != '\\') {
                out += c;
                continue;
            }
            if (at_end()) break;
            char e = s_[i_++];
            switch (e) {
                case 'n': out += '\n'; break;
                case 't': out += '\t'; break;
                case 'r': out += '\r'; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'u': {
                    if (i_ + 4 > s_.size()) return fail("bad \\u escape");
                    unsigned code = static_cast<unsigned>(std::strtoul(s_.substr(i_, 4).c_str(), nullptr, 16));
                    i_ += 4;
                    // UTF-8 of the basic plane (surrogate pairs are kept as two code units).
                    if (code < 0x80) {
                        out += static_cast<char>(code);
                    } else if (code < 0x800) {
                        out += static_cast<char>(0xC0 | (code >> 6));
                        out += static_cast<char>(0x80 | (code & 0x3F));
                    } else {
                        out += static_cast<char>(0xE0 | (code >> 12));
                        out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
                        out += static_cast<char>(0x80 | (code & 0x3F));
                    }
                    break;
                }
                default: out += e;
            }
        }
        return fail("unterminated string");
    }

    bool array(Json &out, int depth) {
        out.kind = Json::Kind::Array;
        ++i_;
        space();
        if (!at_end() && s_[i_] == ']') return ++i_, true;
        for (;;) {
            out.items.emplace_back();
            if (!value(out.items.back(), depth + 1)) return false;
            space();
            if (at_end()) return fail("unterminated array");
            if (s_[i_] == ',') {
                ++i_;
                continue;
            }
            if (s_[i_] == ']') return ++i_, true;
            return fail("expected ',' or ']'");
        }
    }

    bool object(Json &out, int depth) {
        out.kind = Json::Kind::Object;
        ++i_;
        space();
        if (!at_end() && s_[i_] == '}') return ++i_, true;
        for (;;) {
            space();
            if (at_end() || s_[i_] != '"') return fail("expected a quoted key");
            std::string key;
            if (!string(key)) return false;
            space();
            if (at_end() || s_[i_] != ':') return fail("expected ':'");
            ++i_;
            out.fields.emplace_back(key, Json());
            if (!value(out.fields.back().second, depth + 1)) return false;
            space();
            if (at_end()) return fail("unterminated object");
            if (s_[i_] == ',') {
                ++i_;
                continue;
            }
            if (s_[i_] == '}') return ++i_, true;
            return fail("expected ',' or '}'");
        }
    }
};

}  // namespace

bool parse_json(const std::string &text, Json &out, std::string &error) {
    Json result;
    if (!Reader(text).document(result, error)) return false;
    out = std::move(result);
    return true;
}

std::string quote(const std::string &text) {
    std::string out = "\"";
    for (unsigned char c : text) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\t': out += "\\t"; break;
            case '\r': out += "\\r"; break;
            default:
                if (c < 0x20) {
                    char hex[8];
                    std::snprintf(hex, sizeof hex, "\\u%04x", c);
                    out += hex;
                } else {
                    out += static_cast<char>(c);
                }
        }
    }
    return out + "\"";
}

void JsonWriter::new_line() {
    out_ += '\n';
    out_.append(2 * levels_.size(), ' ');
}

void JsonWriter::before_value() {
    if (after_key_ || levels_.empty()) {
        after_key_ = false;
        return;
    }
    Level &level = levels_.back();
    if (level.count++) out_ += level.inline_items ? ", " : ",";
    if (!level.inline_items) new_line();
}

JsonWriter &JsonWriter::begin_object() {
    before_value();
    out_ += '{';
    levels_.push_back({true, false, 0});
    return *this;
}

JsonWriter &JsonWriter::begin_array(bool inline_items) {
    before_value();
    out_ += '[';
    levels_.push_back({false, inline_items, 0});
    return *this;
}

JsonWriter &JsonWriter::end() {
    Level level = levels_.back();
    levels_.pop_back();
    if (level.count && !level.inline_items) new_line();
    out_ += level.object ? '}' : ']';
    return *this;
}

JsonWriter &JsonWriter::key(const std::string &name) {
    Level &level = levels_.back();
    if (level.count++) out_ += ',';
    new_line();
    out_ += quote(name) + ": ";
    after_key_ = true;
    return *this;
}

JsonWriter &JsonWriter::string(const std::string &text) { return raw(quote(text)); }

JsonWriter &JsonWriter::number(double value) {
    if (!std::isfinite(value)) return null();
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", value);
    return raw(text);
}

JsonWriter &JsonWriter::integer(long long value) { return raw(std::to_string(value)); }

JsonWriter &JsonWriter::boolean(bool value) { return raw(value ? "true" : "false"); }

JsonWriter &JsonWriter::null() { return raw("null"); }

JsonWriter &JsonWriter::raw(const std::string &json) {
    before_value();
    out_ += json;
    return *this;
}

std::string JsonWriter::text() const { return terminal_safe(out_, EscapeStyle::Json) + "\n"; }

}  // namespace tool
