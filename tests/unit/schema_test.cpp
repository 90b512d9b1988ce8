// The op schema (fe_op_schema_json) against the header it describes: every option struct's
// fields in order, every enum's values, every op entry point; and each pointwise mode's op kind
// against the kind the library's node writes. A field added to the header without its
// description, or a description of a field that moved, fails here.
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/json.hpp"
#include "test_support.hpp"

namespace {

std::string header_text() {
    std::ifstream in(std::string(CUDNNFE_SOURCE_ROOT) + "/include/cudnnfe.h");
    std::stringstream text;
    text << in.rdbuf();
    // Comments out: they may hold anything.
    return std::regex_replace(text.str(), std::regex(R"(/\*[\s\S]*?\*/|//[^\n]*)"), " ");
}

const fe::json::Value &schema() {
    static const fe::json::Document document = [] {
        size_t n = 0;
        EXPECT_EQ(fe_op_schema_json(nullptr, 0, &n), FE_STATUS_BUFFER_TOO_SMALL);
        std::string text(n + 1, '\0');
        EXPECT_FE_OK(fe_op_schema_json(&text[0], text.size(), &n));
        text.resize(n);
        return fe::json::parse(text);
    }();
    return document.root();
}

// The member names of `typedef struct name { ... } name;` in order ("double min, max;" gives two).
std::vector<std::string> header_fields(const std::string &header, const std::string &name) {
    std::smatch m;
    std::regex pattern("typedef struct " + name + R"(\s*\{([^}]*)\}\s*)" + name + ";");
    if (!std::regex_search(header, m, pattern)) return {};
    std::vector<std::string> fields;
    std::stringstream body(m[1].str());
    std::string declaration;
    std::regex declarator(R"((\w+)\s*(\[[^\]]*\])?\s*$)");
    while (std::getline(body, declaration, ';')) {
        std::stringstream parts(declaration);
        std::string part;
        while (std::getline(parts, part, ',')) {
            std::smatch d;
            if (std::regex_search(part, d, declarator)) fields.push_back(d[1].str());
        }
    }
    return fields;
}

std::map<std::string, int> header_enum(const std::string &header, const std::string &name) {
    std::smatch m;
    std::regex pattern("typedef enum " + name + R"(\s+FE_ENUM_BASE\s*\{([^}]*)\})");
    std::map<std::string, int> values;
    if (!std::regex_search(header, m, pattern)) return values;
    std::string body = m[1].str();
    std::regex entry(R"((FE_\w+)\s*=\s*(-?\d+))");
    for (std::sregex_iterator it(body.begin(), body.end(), entry), end; it != end; ++it)
        values[(*it)[1].str()] = std::stoi((*it)[2].str());
    return values;
}

TEST(Schema, EveryStructDescribesTheHeadersFieldsInOrder) {
    std::string header = header_text();
    const fe::json::Value *structs = schema().find("structs");
    ASSERT_NE(structs, nullptr);
    ASSERT_GE(structs->array().size(), 15u);
    for (const fe::json::Value &s : structs->array()) {
        std::string name = s.find("c_type")->str();
        std::vector<std::string> described;
        int64_t previous_end = 0;
        for (const fe::json::Value &f : s.find("fields")->array()) {
            described.push_back(f.find("name")->str());
            int64_t offset = f.find("offset")->integer(), size = f.find("size")->integer();
            EXPECT_GE(offset, previous_end) << name << "." << described.back() << " overlaps the field before it";
            previous_end = offset + size;
        }
        EXPECT_LE(previous_end, s.find("size")->integer()) << name;
        std::vector<std::string> declared = header_fields(header, name);
        ASSERT_FALSE(declared.empty()) << name << " is not in cudnnfe.h";
        ASSERT_EQ(declared.front(), "struct_size") << name;
        declared.erase(declared.begin());
        EXPECT_EQ(described, declared) << name << ": its description (lib/ops/) and cudnnfe.h differ";
    }
}

TEST(Schema, EveryEnumHasTheHeadersValues) {
    std::string header = header_text();
    const fe::json::Value *enums = schema().find("enums");
    ASSERT_NE(enums, nullptr);
    for (const fe::json::Value &e : enums->array()) {
        std::string name = e.find("c_type")->str();
        std::map<std::string, int> described;
        std::set<std::string> json_names;
        for (const fe::json::Value &v : e.find("values")->array()) {
            described[v.find("c_name")->str()] = static_cast<int>(v.find("value")->integer());
            EXPECT_TRUE(json_names.insert(v.find("json_name")->str()).second) << name << ": a JSON name twice";
        }
        EXPECT_EQ(described, header_enum(header, name)) << name;
    }
}

TEST(Schema, EveryOpEntryPointOfTheHeaderIsDescribed) {
    std::string header = header_text();
    std::set<std::string> described;
    for (const fe::json::Value &op : schema().find("ops")->array()) {
        std::string entry = op.find("entry_point")->str();
        described.insert(entry);
        // A family's conveniences (fe_graph_bias: pointwise's add) are described with it.
        if (const fe::json::Value *conveniences = op.find("conveniences"))
            for (const fe::json::Value &c : conveniences->array()) described.insert(c.find("entry_point")->str());
        std::smatch m;
        ASSERT_TRUE(std::regex_search(header, m, std::regex("FE_API fe_status " + entry + R"(\(([^)]*)\))")))
            << entry << " is described but not declared";
        // The option and scale structs the entry point takes are the ones described.
        std::string parameters = m[1].str();
        std::smatch p;
        std::string options = std::regex_search(parameters, p, std::regex(R"(const (fe_\w+_options) \*options)"))
                                  ? p[1].str() : "";
        const fe::json::Value *described_options = op.find("options");
        EXPECT_EQ(options, described_options ? described_options->str() : "") << entry;
        std::string scales =
            std::regex_search(parameters, p, std::regex(R"(const (fe_\w+_scales) \*scales)")) ? p[1].str() : "";
        const fe::json::Value *described_scales = op.find("scales");
        EXPECT_EQ(scales, described_scales ? described_scales->str() : "") << entry;
    }
    // Functions that add an operation return its result through a `fe_tensor **out_...`.
    std::regex function(R"(FE_API fe_status (fe_graph_\w+)\(([^)]*)\))");
    const std::set<std::string> not_ops = {"fe_graph_tensor", "fe_graph_tensor_like", "fe_graph_scalar", "fe_graph_constant", "fe_graph_tensor_by_name", "fe_graph_tensor_by_uid",
                                           "fe_graph_input",   "fe_graph_output"};
    int ops = 0;
    for (std::sregex_iterator it(header.begin(), header.end(), function), end; it != end; ++it) {
        std::string name = (*it)[1].str(), parameters = (*it)[2].str();
        if (parameters.find("fe_tensor **") == std::string::npos || not_ops.count(name)) continue;
        ++ops;
        EXPECT_TRUE(described.count(name)) << name << " adds an operation but has no description";
    }
    EXPECT_GE(ops, 40);
}

// Each pointwise mode's JSON name is the kind its node writes (lib/ops/pointwise.cpp).
TEST(Schema, PointwiseKindsAreTheKindsNodesWrite) {
    const fe::json::Value *modes = nullptr;
    for (const fe::json::Value &e : schema().find("enums")->array())
        if (e.find("c_type")->str() == "fe_pointwise_mode") modes = e.find("values");
    ASSERT_NE(modes, nullptr);
    for (const fe::json::Value &v : modes->array()) {
        fe_graph_options go = FE_GRAPH_OPTIONS_INIT;
        go.io_data_type = FE_DATA_FLOAT;
        fe_graph *g = nullptr;
        ASSERT_FE_OK(fe_graph_create(&go, &g));
        fe_tensor *in[3] = {}, *y = nullptr;
        const int64_t dims[2] = {4, 4};
        const char *names[3] = {"a", "b", "c"};
        for (int i = 0; i < 3; ++i) fe_graph_tensor(g, names[i], 2, dims, nullptr, FE_DATA_NOT_SET, &in[i]);
        auto mode = static_cast<fe_pointwise_mode>(v.find("value")->integer());
        fe_status status = FE_STATUS_INVALID_ARGUMENT;
        for (int arity = 1; arity <= 3 && status != FE_OK; ++arity)
            status = fe_graph_pointwise(g, mode, in[0], arity > 1 ? in[1] : nullptr, arity > 2 ? in[2] : nullptr,
                                        nullptr, &y);
        ASSERT_FE_OK(status) << v.find("c_name")->str();
        fe_tensor_set_output(y, 1);
        size_t n = 0;
        fe_graph_to_json(g, nullptr, 0, &n);
        std::string text(n + 1, '\0');
        ASSERT_FE_OK(fe_graph_to_json(g, &text[0], text.size(), &n));
        text.resize(n);
        EXPECT_NE(text.find("\"op\":\"" + v.find("json_name")->str() + "\""), std::string::npos)
            << v.find("c_name")->str() << " writes another kind:\n" << text;
        fe_graph_destroy(g);
    }
}

TEST(Schema, ErrorsOfTheCall) {
    EXPECT_FE_REFUSED(fe_op_schema_json(nullptr, 0, nullptr), FE_STATUS_NULL_POINTER,
                      "fe_op_schema_json: argument 'out_length' is NULL");
    char small[4];
    size_t n = 0;
    EXPECT_FE_STATUS(fe_op_schema_json(small, sizeof small, &n), FE_STATUS_BUFFER_TOO_SMALL);
    EXPECT_GT(n, 1000u);
}

}  // namespace

namespace {

// Data type fields are spelled as the graph JSON spells tensor types.
TEST(Schema, DataTypeNamesAreTheLibrarysNames) {
    for (const fe::json::Value &e : schema().find("enums")->array()) {
        if (e.find("c_type")->str() != "fe_data_type") continue;
        for (const fe::json::Value &v : e.find("values")->array())
            EXPECT_EQ(v.find("json_name")->str(),
                      fe_data_type_string(static_cast<fe_data_type>(v.find("value")->integer())));
        return;
    }
    FAIL() << "no fe_data_type in the schema";
}

}  // namespace
