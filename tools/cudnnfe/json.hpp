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

}  // namespace tool
