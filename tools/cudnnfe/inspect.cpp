// cudnnfe inspect: what a serialized plan holds, as text or as JSON.
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "notes.hpp"
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

// Names of the enum values the library writes as numbers in a plan's build options (the
// values of cudnnfe.h's enums, by their names there without the prefix).
const std::pair<int, const char *> kHeurModes[] = {
    {FE_HEUR_MODE_INSTANT, "INSTANT"}, {FE_HEUR_MODE_B, "B"}, {FE_HEUR_MODE_FALLBACK, "FALLBACK"}, {FE_HEUR_MODE_A, "A"}};
const std::pair<int, const char *> kPolicies[] = {{FE_BUILD_POLICY_HEURISTICS_CHOICE, "HEURISTICS_CHOICE"},
                                                  {FE_BUILD_POLICY_ALL, "ALL"}};
template <size_t N>
std::string enum_name(const std::pair<int, const char *> (&names)[N], long long value) {
    for (const auto &n : names)
        if (n.first == value) return n.second;
    return std::to_string(value);  // a value this tool does not know (a newer library's)
}

std::string joined(const std::vector<std::string> &items, const char *separator) {
    std::string out;
    for (size_t i = 0; i < items.size(); ++i) out += (i ? separator : "") + items[i];
    return out;
}

// A whole number that is all of `text`.
bool whole_number(const std::string &text, int base, long long *out) {
    if (text.empty()) return false;
    errno = 0;
    char *end = nullptr;
    long long v = std::strtoll(text.c_str(), &end, base);
    if (*end != '\0' || errno == ERANGE) return false;
    *out = v;
    return true;
}

// The plan's build options, which the library writes with numbers ("modes 3 2; policy 0; max
// workspace -1; notes -10 -0 +0 +0"), read into names. A part this tool does not recognise is
// kept as it is (in `other`).
struct BuildOptions {
    std::vector<std::string> parts;  // the text, part by part, with names
    JsonWriter fields;               // the same as a JSON object
};

BuildOptions named_build_options(const std::string &line) {
    BuildOptions b;
    std::vector<std::string> other;
    std::set<std::string> seen;
    b.fields.begin_object();
    size_t from = 0;
    while (from <= line.size() && !line.empty()) {
        size_t end = line.find("; ", from);
        if (end == std::string::npos) end = line.size();
        std::string part = line.substr(from, end - from);
        from = end + 2;
        auto after = [&](const char *prefix, std::string *rest) {
            size_t n = std::strlen(prefix);
            if (part.compare(0, n, prefix) != 0) return false;
            *rest = part.substr(n);
            return true;
        };
        std::string rest;
        long long v = 0;
        // A part of a kind seen already (the library writes each once) is left as it is.
        std::string kind = part.substr(0, part.find_first_of("-+0123456789"));
        if (!seen.insert(kind).second) {
            b.parts.push_back(part);
            other.push_back(part);
            continue;
        }
        if (after("modes ", &rest)) {
            std::vector<std::string> names;
            std::istringstream words(rest);
            std::string word;
            bool ok = true;
            while (words >> word) {
                ok = ok && whole_number(word, 10, &v);
                names.push_back(ok ? enum_name(kHeurModes, v) : word);
            }
            if (ok && !names.empty()) {
                b.parts.push_back("heuristics " + joined(names, ", "));
                b.fields.key("heuristic_modes").begin_array(true);
                for (const std::string &name : names) b.fields.string(name);
                b.fields.end();
                continue;
            }
        } else if (after("policy ", &rest) && whole_number(rest, 10, &v)) {
            b.parts.push_back("policy " + enum_name(kPolicies, v));
            b.fields.key("policy").string(enum_name(kPolicies, v));
            continue;
        } else if (after("max workspace ", &rest) && whole_number(rest, 10, &v)) {
            b.parts.push_back(v < 0 ? "no workspace limit" : "max workspace " + std::to_string(v) + " bytes");
            if (v < 0) b.fields.key("max_workspace_bytes").null();
            else b.fields.key("max_workspace_bytes").integer(v);
            continue;
        } else if (after("autotune ", &rest) && whole_number(rest, 10, &v)) {
            b.parts.push_back("autotune " + std::to_string(v) + " candidates");
            b.fields.key("autotune_candidates").integer(v);
            continue;
        } else if (after("knob search ", &rest) && whole_number(rest, 10, &v)) {
            b.parts.push_back("knob search " + std::to_string(v) + " rounds");
            b.fields.key("knob_search_rounds").integer(v);
            continue;
        } else if (after("notes ", &rest)) {
            // "-%llx -%llx +%llx +%llx": deselected numerical and behaviour notes, required ones.
            std::istringstream words(rest);
            std::string word[4];
            long long mask[4] = {0, 0, 0, 0};
            bool ok = static_cast<bool>(words >> word[0] >> word[1] >> word[2] >> word[3]) && !(words >> rest);
            for (int i = 0; ok && i < 4; ++i)
                ok = word[i].size() > 1 && word[i][0] == (i < 2 ? '-' : '+') && whole_number(word[i].substr(1), 16, &mask[i]);
            if (ok) {
                std::vector<std::string> lists[4] = {numerical_note_names(mask[0]), behavior_note_names(mask[1]),
                                                     numerical_note_names(mask[2]), behavior_note_names(mask[3])};
                const char *keys[4] = {"deselected_numerical_notes", "deselected_behavior_notes",
                                       "required_numerical_notes", "required_behavior_notes"};
                std::vector<std::string> deselected = lists[0], required = lists[2];
                deselected.insert(deselected.end(), lists[1].begin(), lists[1].end());
                required.insert(required.end(), lists[3].begin(), lists[3].end());
                if (!deselected.empty()) b.parts.push_back("not notes " + joined(deselected, ", "));
                if (!required.empty()) b.parts.push_back("only notes " + joined(required, ", "));
                for (int i = 0; i < 4; ++i) {
                    b.fields.key(keys[i]).begin_array(true);
                    for (const std::string &name : lists[i]) b.fields.string(name);
                    b.fields.end();
                }
                continue;
            }
        } else if (after("not engines ", &rest)) {
            b.parts.push_back(part);
            b.fields.key("deselected_engines").string(rest);
            continue;
        } else if (after("max shared memory ", &rest) && whole_number(rest, 10, &v)) {
            b.parts.push_back("max shared memory " + std::to_string(v) + " bytes");
            b.fields.key("max_shared_memory_bytes").integer(v);
            continue;
        } else if (after("sm count ", &rest) && whole_number(rest, 10, &v)) {
            b.parts.push_back("sm count " + std::to_string(v));
            b.fields.key("sm_count_target").integer(v);
            continue;
        } else if (part == "dynamic shapes") {
            b.parts.push_back(part);
            b.fields.key("dynamic_shapes").boolean(true);
            continue;
        } else if (part == "step by step") {
            // Built by the step-by-step calls, whose choices the plan does not record.
            b.parts.push_back(part);
            b.fields.key("step_by_step").boolean(true);
            continue;
        }
        b.parts.push_back(part);
        other.push_back(part);
    }
    if (!other.empty()) {
        b.fields.key("other").begin_array(true);
        for (const std::string &part : other) b.fields.string(part);
        b.fields.end();
    }
    b.fields.end();
    return b;
}

// The description with its build options line in names.
std::string with_named_build_options(const std::string &description) {
    const std::string prefix = "\nbuild options: ";
    size_t at = description.find(prefix);
    if (at == std::string::npos || at > description.find("\ngraph:\n")) return description;
    size_t start = at + prefix.size(), end = description.find('\n', start);
    return description.substr(0, start) + joined(named_build_options(description.substr(start, end - start)).parts, "; ") +
           description.substr(end);
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
    BuildOptions options = named_build_options(line_after(description, "build options: "));
    out += "  \"build_options\": " + quote(joined(options.parts, "; ")) + ",\n";
    // The same, field by field (the JSON writer's text ends in a line break, and is indented
    // for the top level: indent it one level more).
    std::string fields = options.fields.text();
    fields.pop_back();
    for (size_t i = 0; (i = fields.find('\n', i)) != std::string::npos; i += 3) fields.insert(i + 1, "  ");
    out += "  \"build\": " + fields + ",\n";
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
    std::fputs(terminal_safe(with_named_build_options(description), EscapeStyle::Text).c_str(), stdout);
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
