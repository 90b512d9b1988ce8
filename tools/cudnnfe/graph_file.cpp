#include "graph_file.hpp"

namespace tool {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Walks the text keeping the line and column of the current position.
struct Cursor {
    const std::string &s;
    size_t i = 0;
    int line = 1, column = 1;

    bool done() const { return i >= s.size(); }
    char peek() const { return s[i]; }
    void next() {
        if (s[i] == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
        ++i;
    }
    void skip_space() {
        while (!done() && is_space(peek())) next();
    }
};

std::string at_line(int line) { return "line " + std::to_string(line) + ": "; }

}  // namespace

bool split_graph_file(const std::string &content, std::vector<GraphSource> &out, std::string &error) {
    Cursor c{content};
    // A UTF-8 byte order mark is not JSON; editors sometimes write one.
    if (content.compare(0, 3, "\xEF\xBB\xBF") == 0) c.i = 3;
    c.skip_space();
    if (c.done()) {
        error = "the file holds no JSON (it is empty)";
        return false;
    }
    std::vector<GraphSource> graphs;
    if (c.peek() != '[') {
        GraphSource one;
        one.text = content;
        graphs.push_back(one);
        out.swap(graphs);
        return true;
    }
    int open_line = c.line;
    c.next();
    for (;;) {
        c.skip_space();
        if (c.done()) {
            error = at_line(c.line) + "the array of graphs opened on line " + std::to_string(open_line) + " is not closed";
            return false;
        }
        if (c.peek() == ']' && graphs.empty()) {
            error = at_line(c.line) + "the array holds no graphs";
            return false;
        }
        if (c.peek() == ',' || c.peek() == ']') {
            error = at_line(c.line) + "a graph is missing before '" + std::string(1, c.peek()) +
                    "' in the array of graphs (a trailing comma?)";
            return false;
        }
        GraphSource g;
        g.index = static_cast<int>(graphs.size()) + 1;
        g.line = c.line;
        g.text.assign(static_cast<size_t>(c.line - 1), '\n');
        g.text.append(static_cast<size_t>(c.column - 1), ' ');
        size_t start = c.i;
        // The element ends at a ',' or ']' outside strings and brackets.
        int depth = 0;
        bool in_string = false, escaped = false;
        while (!c.done()) {
            char ch = c.peek();
            if (in_string) {
                if (escaped) escaped = false;
                else if (ch == '\\') escaped = true;
                else if (ch == '"') in_string = false;
            } else if (ch == '"') {
                in_string = true;
            } else if (ch == '{' || ch == '[') {
                ++depth;
            } else if (ch == '}' || ch == ']') {
                if (depth == 0) break;
                --depth;
            } else if (ch == ',' && depth == 0) {
                break;
            }
            c.next();
        }
        g.text += content.substr(start, c.i - start);
        graphs.push_back(g);
        if (c.done()) {
            error = at_line(c.line) + "the array of graphs opened on line " + std::to_string(open_line) + " is not closed";
            return false;
        }
        char end = c.peek();
        c.next();
        if (end == ']') break;
        if (end == '}') {
            error = at_line(c.line) + "unexpected '}' in the array of graphs";
            return false;
        }
    }
    c.skip_space();
    if (!c.done()) {
        error = at_line(c.line) + "text after the array of graphs";
        return false;
    }
    for (GraphSource &g : graphs) g.count = static_cast<int>(graphs.size());
    out.swap(graphs);
    return true;
}

std::string where(const std::string &path, const GraphSource &source) {
    if (source.count == 1) return path;
    return path + ", graph " + std::to_string(source.index) + " of " + std::to_string(source.count);
}

fe_status load_graph(const GraphSource &source, fe_graph **out) {
    return fe_graph_from_json(source.text.data(), source.text.size(), out);
}

}  // namespace tool
