// Every ranged option of every op with an example graph, one step outside its described range
// in the graph JSON: refused by the one range check, naming the option. Made from the op schema,
// so a range added to a description is tested with no edit here.
#include <cmath>
#include <map>
#include <string>

#include "common/json.hpp"
#include "schema_conformance.hpp"
#include "test_support.hpp"

namespace {

std::string schema_text() {
    size_t n = 0;
    fe_op_schema_json(nullptr, 0, &n);
    std::string text(n + 1, '\0');
    EXPECT_FE_OK(fe_op_schema_json(&text[0], text.size(), &n));
    text.resize(n);
    return text;
}

// A value one step outside the field's range, as JSON; "" when the range has no such value the
// field's type can hold.
std::string outside(const fe::json::Value &field) {
    const fe::json::Value *min = field.find("min"), *max = field.find("max");
    const bool integer = field.find("type")->str() == "integer";
    if (min && std::fabs(min->number()) < 1e15) return integer ? std::to_string(min->integer() - 1) : std::to_string(min->number() - 0.5);
    if (max && std::fabs(max->number()) < 1e15) return integer ? std::to_string(max->integer() + 1) : std::to_string(max->number() + 0.5);
    return "";
}

// The example graph with its op's attribute `name` set to `value` (replaced when the example sets
// it already).
std::string with_attribute(std::string json, const std::string &name, const std::string &value) {
    const std::string at = "\"attributes\":{", key = "\"" + name + "\":";
    size_t start = json.find(at);
    EXPECT_NE(start, std::string::npos);
    start += at.size();
    size_t existing = json.find(key, start);
    if (existing != std::string::npos && existing < json.find('}', start)) {
        size_t from = existing + key.size(), to = json.find_first_of(",}", from);
        return json.replace(from, to - from, value);
    }
    return json.insert(start, key + value + (json[start] == '}' ? "" : ","));
}

TEST(OptionRanges, EveryRangedOptionIsRefusedOutsideItsRange) {
    fe::json::Document document = fe::json::parse(schema_text());
    const fe::json::Value &schema = document.root();
    std::map<std::string, const fe::json::Value *> structs, ops;
    for (const fe::json::Value &s : schema.find("structs")->array()) structs[s.find("c_type")->str()] = &s;
    for (const fe::json::Value &op : schema.find("ops")->array()) ops[op.find("kind")->str()] = &op;
    int tested = 0;
    for (const cudnnfe_test::ExampleGraph &example : cudnnfe_test::example_graphs()) {
        const fe::json::Value &op = *ops.at(example.kind);
        const fe::json::Value *options = op.find("options");
        if (!options) continue;
        std::map<std::string, bool> takes;
        for (const fe::json::Value &t : op.find("takes")->array()) takes[t.str()] = true;
        for (const fe::json::Value &field : structs.at(options->str())->find("fields")->array()) {
            const std::string name = field.find("name")->str(), type = field.find("type")->str();
            if ((type != "integer" && type != "number") || (!takes.empty() && !takes.count(name))) continue;
            const std::string value = outside(field);
            if (value.empty()) continue;
            SCOPED_TRACE(example.kind + "." + name + " = " + value);
            std::string json = with_attribute(example.json, name, value);
            fe_graph *g = nullptr;
            EXPECT_FE_STATUS(fe_graph_from_json(json.data(), json.size(), &g), FE_STATUS_INVALID_ARGUMENT);
            EXPECT_TRUE(LastErrorContains("options." + name + " is ")) << fe_last_error_message();
            fe_graph_destroy(g);
            ++tested;
        }
    }
    std::printf("    %d ranged options refused one step outside their ranges\n", tested);
    EXPECT_GE(tested, 5) << "the examples reach too few ranged options to say anything";
}

}  // namespace
