// cudnnfe inspect: what a serialized plan holds, as text or as JSON.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cli.hpp"
#include "commands.hpp"
#include "json.hpp"

namespace tool {

namespace {

const char kHelp[] =
    "usage: cudnnfe inspect FILE [--json]\n"
    "\n"
    "Describe a serialized plan (written by 'cudnnfe compile' or fe_graph_serialize) without\n"
    "loading it: format version, the cudnnfe and cuDNN versions that built it, the GPU it was\n"
    "built for, build options, the chosen engine and workspace, the uid of every input and\n"
    "output, and the graph. Needs neither a GPU nor cuDNN.\n"
    "\n"
    "options:\n"
    "  --json   one JSON object instead of text\n";

enum class EscapeStyle { Text, Json };

// The length of the UTF-8 sequence at text[at] and its code point, or 0 when the bytes there
// are not UTF-8.
size_t utf8_sequence(const std::string &text, size_t at, uint32_t *code_point) {
    unsigned char lead = static_cast<unsigned char>(text[at]);
    size_t length = lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xf0 && lead <= 0xf4 ? 4 : 0;
    if (length == 0 || at + length > text.size()) return 0;
    uint32_t cp = lead & (0x7f >> length);
    for (size_t i = 1; i < length; ++i) {
        unsigned char c = static_cast<unsigned char>(text[at + i]);
        if ((c & 0xc0) != 0x80) return 0;
        cp = (cp << 6) | (c & 0x3f);
    }
    *code_point = cp;
    return length;
}

// `text` with everything a terminal acts on written as an escape: C0 controls but the line
// break, DEL, C1 controls (however encoded) and bytes that are not UTF-8. A blob comes from
// anywhere, and printing its strings must not move the cursor, retitle the window or worse.
// Text style writes \xNN per byte; JSON style writes \u00NN (and \ufffd for a stray byte),
// which are valid inside the JSON strings where such bytes can only occur.
std::string terminal_safe(const std::string &text, EscapeStyle style) {
    std::string out;
    out.reserve(text.size());
    char escape[16];
    auto escape_byte = [&](unsigned char c) {
        std::snprintf(escape, sizeof escape, style == EscapeStyle::Text ? "\\x%02x" : "\\u%04x", c);
        out += escape;
    };
    for (size_t at = 0; at < text.size();) {
        unsigned char c = static_cast<unsigned char>(text[at]);
        if (c < 0x80) {
            if ((c < 0x20 && c != '\n') || c == 0x7f)
                escape_byte(c);
            else
                out += static_cast<char>(c);
            ++at;
            continue;
        }
        uint32_t cp = 0;
        size_t length = utf8_sequence(text, at, &cp);
        if (length == 0) {
            if (style == EscapeStyle::Text)
                escape_byte(c);
            else
                out += "\\ufffd";
            ++at;
        } else if (cp < 0xa0) {  // a C1 control, or an overlong form of a control
            if (style == EscapeStyle::Json)
                escape_byte(static_cast<unsigned char>(cp));
            else
                for (size_t i = 0; i < length; ++i) escape_byte(static_cast<unsigned char>(text[at + i]));
            at += length;
        } else {
            out.append(text, at, length);
            at += length;
        }
    }
    return out;
}

struct UidEntry {
    std::string name, role, data_type;
    long long uid = -1;
    std::vector<int64_t> dims;
};

// The graph section of fe_serialized_describe: everything after the line "graph:".
std::string graph_section(const std::string &description) {
    size_t at = description.find("\ngraph:\n");
    return at == std::string::npos ? "" : description.substr(at + 8);
}

// Inputs and outputs of the serialized graph, with the uids execution binds by.
bool uid_map(const std::string &graph_json_text, std::vector<UidEntry> &out, std::string &error) {
    fe_graph *graph = nullptr;
    if (fe_graph_from_json(graph_json_text.data(), graph_json_text.size(), &graph) != FE_OK) {
        error = fe_last_error_message();
        return false;
    }
    size_t inputs = 0, outputs = 0;
    fe_graph_input_count(graph, &inputs);
    fe_graph_output_count(graph, &outputs);
    for (size_t i = 0; i < inputs + outputs; ++i) {
        fe_tensor *t = nullptr;
        if ((i < inputs ? fe_graph_input(graph, i, &t) : fe_graph_output(graph, i - inputs, &t)) != FE_OK) continue;
        UidEntry e;
        const char *name = "?";
        fe_tensor_get_name(t, &name);
        e.name = name;
        e.role = i < inputs ? "input" : "output";
        int64_t uid = 0;
        if (fe_tensor_get_uid(t, &uid) == FE_OK) e.uid = uid;
        fe_data_type type = FE_DATA_NOT_SET;
        fe_tensor_get_data_type(t, &type);
        e.data_type = fe_data_type_string(type);
        size_t ndims = 0;
        fe_tensor_get_ndims(t, &ndims);
        e.dims.resize(ndims);
        if (ndims) fe_tensor_get_dims(t, e.dims.data(), ndims);
        out.push_back(e);
    }
    fe_graph_destroy(graph);
    return true;
}

std::string dims_text(const std::vector<int64_t> &dims, const char *open, const char *close, const char *sep) {
    std::string s = open;
    for (size_t i = 0; i < dims.size(); ++i) s += (i ? sep : "") + std::to_string(dims[i]);
    return s + close;
}

// The text after `prefix` on the header line that starts with it ("" when absent).
std::string line_after(const std::string &description, const std::string &prefix) {
    size_t header_end = description.find("\ngraph:\n");
    size_t start = 0;
    while (start < description.size() && start <= header_end) {
        size_t end = description.find('\n', start);
        if (end == std::string::npos) end = description.size();
        if (description.compare(start, prefix.size(), prefix) == 0)
            return description.substr(start + prefix.size(), end - start - prefix.size());
        start = end + 1;
    }
    return "";
}

// A number that follows `after` in `text`, as JSON ("null" when absent).
std::string number_after(const std::string &text, const std::string &after) {
    size_t at = text.find(after);
    if (at == std::string::npos) return "null";
    const char *start = text.c_str() + at + after.size();
    char *end = nullptr;
    double v = std::strtod(start, &end);
    if (end == start) return "null";
    char out[64];
    std::snprintf(out, sizeof out, "%.17g", v);
    return out;
}

std::string json_report(const std::string &path, const std::string &description, const std::vector<UidEntry> &uids,
                        const std::string &uid_error) {
    std::string first = description.substr(0, description.find('\n'));
    std::string built = line_after(description, "built by: ");
    std::string plan = line_after(description, "plan: ");
    std::string out = "{\n";
    out += "  \"file\": " + quote(path) + ",\n";
    out += "  \"format\": " + number_after(first, "format ") + ",\n";
    out += "  \"size_bytes\": " + number_after(first.substr(first.rfind(", ") + 1), " ") + ",\n";
    // "cudnnfe 1.0.0 with cuDNN 9.19.0"
    size_t with = built.find(" with cuDNN ");
    out += "  \"library_version\": " +
           (with == std::string::npos ? "null" : quote(built.substr(std::strlen("cudnnfe "), with - std::strlen("cudnnfe ")))) +
           ",\n";
    out += "  \"cudnn_version\": " + (with == std::string::npos ? "null" : quote(built.substr(with + 12))) + ",\n";
    out += "  \"device\": " + quote(line_after(description, "target: ")) + ",\n";
    out += "  \"build_options\": " + quote(line_after(description, "build options: ")) + ",\n";
    out += "  \"engine\": " + quote(plan.substr(0, plan.find(" (engine"))) + ",\n";
    out += "  \"engine_index\": " + number_after(plan, "(engine ") + ",\n";
    out += "  \"workspace_bytes\": " + number_after(plan, "workspace ") + ",\n";
    std::string tuned = line_after(description, "autotuned: ");
    out += "  \"autotuned_us\": " + (tuned.empty() ? std::string("null") : number_after(tuned, "")) + ",\n";
    // "attention 'NODE': native|composite", one line per attention operation.
    out += "  \"attention\": [";
    size_t from = 0, count = 0;
    while ((from = description.find("\nattention '", from)) != std::string::npos && from < description.find("\ngraph:\n")) {
        size_t name_start = from + 12, name_end = description.find("': ", name_start);
        size_t end = description.find('\n', name_start);
        if (name_end == std::string::npos || name_end > end) break;
        out += std::string(count++ ? ", " : "") + "{\"node\": " + quote(description.substr(name_start, name_end - name_start)) +
               ", \"implementation\": " + quote(description.substr(name_end + 3, end - name_end - 3)) + "}";
        from = end;
    }
    out += "],\n";
    out += "  \"cudnn_plan_json_bytes\": " + number_after(line_after(description, "cuDNN plan: "), "") + ",\n";
    out += "  \"uids\": [";
    for (size_t i = 0; i < uids.size(); ++i) {
        const UidEntry &e = uids[i];
        out += std::string(i ? "," : "") + "\n    {\"name\": " + quote(e.name) + ", \"role\": \"" + e.role +
               "\", \"uid\": " + (e.uid >= 0 ? std::to_string(e.uid) : "null") + ", \"data_type\": " +
               quote(e.data_type) + ", \"dims\": " + dims_text(e.dims, "[", "]", ", ") + "}";
    }
    out += uids.empty() ? "],\n" : "\n  ],\n";
    if (!uid_error.empty()) out += "  \"uids_error\": " + quote(uid_error) + ",\n";
    // The graph as it was serialized: embedded as JSON when it is JSON, else as a string.
    std::string graph = graph_section(description);
    Json parsed;
    std::string ignored;
    while (!graph.empty() && (graph.back() == '\n' || graph.back() == ' ')) graph.pop_back();
    out += "  \"graph\": " + (parse_json(graph, parsed, ignored) ? graph : quote(graph)) + "\n";
    return out + "}\n";
}

}  // namespace

int inspect_command(int argc, char **argv) {
    Args args;
    int rc = parse_or_exit("inspect", kHelp, argc, argv, {{"--json", nullptr, false}}, args);
    if (rc >= 0) return rc;
    if (args.positional.size() != 1)
        return fail("inspect", kExitBadInput,
                    args.positional.empty() ? "give a serialized plan file (see 'cudnnfe inspect --help')"
                                            : "unexpected argument '" + args.positional[1] + "'");
    const std::string &path = args.positional[0];
    std::string blob, error, description;
    if (!read_file(path, blob, error)) return fail("inspect", kExitBadInput, error);
    fe_status status = serialized_description(blob, description);
    if (status != FE_OK) return fail_status("inspect", status, path);
    std::vector<UidEntry> uids;
    std::string uid_error;
    uid_map(graph_section(description), uids, uid_error);
    if (args.has("--json")) {
        std::fputs(terminal_safe(json_report(path, description, uids, uid_error), EscapeStyle::Json).c_str(), stdout);
        return kExitOk;
    }
    std::printf("%s: ", path.c_str());
    std::fputs(terminal_safe(description, EscapeStyle::Text).c_str(), stdout);
    if (description.empty() || description.back() != '\n') std::putchar('\n');
    std::printf("uid map:\n");
    if (!uid_error.empty()) std::printf("  not available (%s)\n", terminal_safe(uid_error, EscapeStyle::Text).c_str());
    for (const UidEntry &e : uids)
        std::printf("  %-6s %-24s uid=%-4s %-9s %s\n", e.role.c_str(), terminal_safe(e.name, EscapeStyle::Text).c_str(),
                    e.uid >= 0 ? std::to_string(e.uid).c_str() : "-", e.data_type.c_str(),
                    dims_text(e.dims, "[", "]", ", ").c_str());
    return kExitOk;
}

}  // namespace tool
