#include "schema_conformance.hpp"

#include <cctype>
#include <map>
#include <vector>

#include "common/json.hpp"
#include "test_support.hpp"

namespace cudnnfe_test {

namespace {

struct Allowed {
    std::set<std::string> attributes, inputs, outputs;
    std::map<std::string, std::string> output_types;  // port -> the type its description gives
};

const fe::json::Value &schema_value() {
    static const fe::json::Document document = [] {
        size_t n = 0;
        fe_op_schema_json(nullptr, 0, &n);
        std::string text(n + 1, '\0');
        EXPECT_FE_OK(fe_op_schema_json(&text[0], text.size(), &n));
        text.resize(n);
        return fe::json::parse(text);
    }();
    return document.root();
}

// Fields that are no attribute: the op's name and compute type are op members, tensors are
// inputs, and the counts travel as the arrays' lengths.
bool is_attribute(const fe::json::Value &field) {
    const std::string &type = field.find("type")->str(), &name = field.find("name")->str();
    return type != "name" && type != "tensor" && type != "spatial_count" && type != "dims_count" &&
           name != "compute_data_type";
}

const std::map<std::string, Allowed> &allowed_by_kind() {
    static const std::map<std::string, Allowed> all = [] {
        std::map<std::string, const fe::json::Value *> structs, enums;
        for (const fe::json::Value &s : schema_value().find("structs")->array()) structs[s.find("c_type")->str()] = &s;
        for (const fe::json::Value &e : schema_value().find("enums")->array()) enums[e.find("c_type")->str()] = &e;
        std::map<std::string, Allowed> out;
        for (const fe::json::Value &op : schema_value().find("ops")->array()) {
            Allowed a;
            for (const fe::json::Value &p : op.find("inputs")->array()) a.inputs.insert(p.find("name")->str());
            for (const fe::json::Value &p : op.find("outputs")->array()) {
                a.outputs.insert(p.find("name")->str());
                if (const fe::json::Value *type = p.find("type")) a.output_types[p.find("name")->str()] = type->str();
            }
            for (const fe::json::Value &p : op.find("params")->array()) a.attributes.insert(p.find("name")->str());
            if (const fe::json::Value *options = op.find("options")) {
                std::set<std::string> takes;
                for (const fe::json::Value &t : op.find("takes")->array()) takes.insert(t.str());
                for (const fe::json::Value &f : structs.at(options->str())->find("fields")->array()) {
                    if (!takes.count(f.find("name")->str())) continue;
                    if (f.find("type")->str() == "tensor") {
                        const fe::json::Value *port = f.find("port");
                        a.inputs.insert(port ? port->str() : f.find("name")->str());
                    } else if (is_attribute(f)) {
                        a.attributes.insert(f.find("name")->str());
                    }
                }
            }
            if (const fe::json::Value *scales = op.find("scales"))
                for (const fe::json::Value &f : structs.at(scales->str())->find("fields")->array())
                    a.inputs.insert(f.find("name")->str());
            if (const fe::json::Value *kinds = op.find("kinds")) {
                for (const fe::json::Value &v : enums.at(kinds->str())->find("values")->array())
                    out[v.find("json_name")->str()] = a;
            } else {
                out[op.find("kind")->str()] = a;
            }
        }
        return out;
    }();
    return all;
}

void expect_members_allowed(const fe::json::Value *object, const std::set<std::string> &allowed,
                            const std::string &kind, const char *what) {
    if (!object) return;
    for (const auto &member : object->object())
        EXPECT_TRUE(allowed.count(std::string(member.first)))
            << kind << " writes " << what << " '" << member.first << "', which its schema description lacks";
}

}  // namespace

void expect_ops_match_schema(const std::string &graph_json, std::set<std::string> *kinds) {
    fe::json::Document document = fe::json::parse(graph_json);
    const fe::json::Value &graph = document.root();
    std::map<std::string, std::string> tensor_types;
    for (const fe::json::Value &t : graph.find("tensors")->array())
        if (const fe::json::Value *type = t.find("data_type")) tensor_types[t.find("name")->str()] = type->str();
    for (const fe::json::Value &op : graph.find("ops")->array()) {
        const std::string &kind = op.find("op")->str();
        kinds->insert(kind);
        auto it = allowed_by_kind().find(kind);
        if (it == allowed_by_kind().end()) {
            ADD_FAILURE() << "op kind '" << kind << "' has no schema description";
            continue;
        }
        expect_members_allowed(op.find("attributes"), it->second.attributes, kind, "the attribute");
        expect_members_allowed(op.find("inputs"), it->second.inputs, kind, "the input");
        expect_members_allowed(op.find("outputs"), it->second.outputs, kind, "the output");
        // An output whose port gives its type has it (the graphs here never set another).
        if (const fe::json::Value *outputs = op.find("outputs"))
            for (const auto &member : outputs->object()) {
                auto type = it->second.output_types.find(std::string(member.first));
                if (type != it->second.output_types.end())
                    EXPECT_EQ(tensor_types[member.second.str()], type->second)
                        << kind << "'s output " << member.first << " is not of the type its description gives";
            }
    }
}

std::set<std::string> schema_kinds() {
    std::set<std::string> kinds;
    for (const auto &entry : allowed_by_kind()) kinds.insert(entry.first);
    return kinds;
}

std::vector<ExampleGraph> example_graphs() {
    auto lower = [](std::string s) {
        for (char &c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return s;
    };
    std::vector<ExampleGraph> out;
    for (const fe::json::Value &op : schema_value().find("ops")->array()) {
        if (op.find("kinds") || op.find("scales")) continue;
        bool complete = true;
        for (const fe::json::Value &p : op.find("params")->array()) complete = complete && !p.find("required")->boolean();
        std::string tensors, inputs, outputs, names;
        for (const fe::json::Value &p : op.find("inputs")->array()) {
            if (p.find("when")) continue;  // optional inputs stay out
            const fe::json::Value *example = p.find("example");
            if (!example) {
                complete = false;
                break;
            }
            std::string name = lower(p.find("name")->str()), dims;
            for (const fe::json::Value &d : example->array()) dims += (dims.empty() ? "" : ",") + std::to_string(d.integer());
            tensors += (tensors.empty() ? "" : ",") + ("{\"name\":\"" + name + "\",\"dims\":[" + dims + "]}");
            inputs += (inputs.empty() ? "" : ",") + ("\"" + p.find("name")->str() + "\":\"" + name + "\"");
        }
        if (!complete) continue;
        for (const fe::json::Value &p : op.find("outputs")->array()) {
            if (p.find("when")) continue;
            std::string name = "out_" + lower(p.find("name")->str());
            outputs += (outputs.empty() ? "" : ",") + ("\"" + p.find("name")->str() + "\":\"" + name + "\"");
            names += (names.empty() ? "" : ",") + ("\"" + name + "\"");
        }
        std::string attributes;
        if (const fe::json::Value *example = op.find("example_attributes")) {
            for (const auto &member : example->object()) {
                const fe::json::Value &v = member.second;
                std::string value = v.type() == fe::json::Type::String ? "\"" + v.str() + "\""
                                    : v.type() == fe::json::Type::Bool ? (v.boolean() ? "true" : "false")
                                    : v.is_integer()                   ? std::to_string(v.integer())
                                                                     : std::to_string(v.number());
                attributes += (attributes.empty() ? "" : ",") + ("\"" + std::string(member.first) + "\":" + value);
            }
        }
        const std::string &kind = op.find("kind")->str();
        out.push_back({kind, "{\"format\":\"cudnnfe.graph\",\"version\":1,\"name\":\"example_" + kind +
                                 "\",\"io_data_type\":\"float\",\"tensors\":[" + tensors + "],\"ops\":[{\"op\":\"" + kind +
                                 "\",\"inputs\":{" + inputs + "},\"outputs\":{" + outputs + "},\"attributes\":{" + attributes +
                                 "}}],\"outputs\":[" + names +
                                 "]}"});
    }
    return out;
}

}  // namespace cudnnfe_test
