// A small JSON reader and string quoting for the tool's own needs: fields of a GPU description,
// operation attributes for FLOP counts, and checking text before it is embedded in --json output.
// Graph files are never judged by this reader: the library parses them and its messages (with
// line and field) are what users see.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tool {

struct Json {
    enum class Kind { Null, Bool, Number, String, Array, Object } kind = Kind::Null;
    bool boolean = false;
    double number = 0;
    std::string text;
    std::vector<Json> items;                         // Array
    std::vector<std::pair<std::string, Json>> fields; // Object, in file order

    // The member `key` of an object, or nullptr.
    const Json *get(const std::string &key) const;
    bool is_number() const { return kind == Kind::Number; }
    bool is_string() const { return kind == Kind::String; }
    bool is_array() const { return kind == Kind::Array; }
    bool is_object() const { return kind == Kind::Object; }
};

// false with `error` ("line 3: expected ':'") when the text is not one JSON value.
bool parse_json(const std::string &text, Json &out, std::string &error);

// The string as a quoted JSON string literal.
std::string quote(const std::string &text);

// The --json outputs: one value, two-space indents, a member or item per line (arrays opened
// with `inline_items` keep theirs on one line). Numbers that are not finite are written null.
class JsonWriter {
  public:
    JsonWriter &begin_object();
    JsonWriter &begin_array(bool inline_items = false);
    JsonWriter &end();
    JsonWriter &key(const std::string &name);
    JsonWriter &string(const std::string &text);
    JsonWriter &number(double value);
    JsonWriter &integer(long long value);
    JsonWriter &boolean(bool value);
    JsonWriter &null();
    // Text that is JSON already.
    JsonWriter &raw(const std::string &json);
    // The document with a final line break, escaped for a terminal (EscapeStyle::Json).
    std::string text() const;

  private:
    struct Level {
        bool object;
        bool inline_items;
        int count;
    };
    void before_value();
    void new_line();
    std::string out_;
    std::vector<Level> levels_;
    bool after_key_ = false;
};

}  // namespace tool
