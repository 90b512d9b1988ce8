// fe_graph_from_json's errors: malformed JSON, unknown ops and fields, missing and ill-typed
// fields, bad attribute values. Each is a status and one line naming the line and the field;
// the output graph is left alone.
#include <string>

#include "test_support.hpp"

namespace {

fe_graph *const kUntouched = reinterpret_cast<fe_graph *>(0x1);

// Read `text`; expect `status` and a message that contains each of `needles`.
void expect_error(const std::string &text, fe_status status, std::initializer_list<const char *> needles) {
    fe_graph *g = kUntouched;
    fe_status s = fe_graph_from_json(text.data(), text.size(), &g);
    EXPECT_EQ(s, status) << fe_last_error_message() << "\n" << text;
    if (s == FE_OK) {
        fe_graph_destroy(g);
        return;
    }
    EXPECT_EQ(g, kUntouched) << "the output was written on failure";
    std::string message = fe_last_error_message();
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    EXPECT_EQ(message.rfind("fe_graph_from_json: ", 0), 0u) << message;
    for (const char *needle : needles) EXPECT_NE(message.find(needle), std::string::npos) << message << "\n" << text;
}

// A valid graph (the seed's convolution) to break one piece at a time; the comments give
// the line numbers the errors name.
std::string seed_graph(const std::string &conv_attributes = "\"pre_padding\":[1,1],\"post_padding\":[1,1]",
                       const std::string &extra_top = "") {
    return "{\"format\":\"cudnnfe.graph\",\"version\":1,\"name\":\"seed\",\"io_data_type\":\"half\"" + extra_top +
           ",\n"                                                                         // line 1
           "\"tensors\":[\n"                                                             // line 2
           " {\"name\":\"x\",\"dims\":[8,64,56,56],\"strides\":[200704,1,3584,64]},\n"   // line 3
           " {\"name\":\"w\",\"dims\":[32,64,3,3],\"strides\":[576,1,192,64]}],\n"       // line 4
           "\"ops\":[\n"                                                                 // line 5
           " {\"op\":\"conv_fprop\",\"inputs\":{\"image\":\"x\",\"weight\":\"w\"},\"outputs\":{\"Y\":\"y\"},\n"  // 6
           "  \"attributes\":{" + conv_attributes + "}}],\n"                             // line 7
           "\"outputs\":[\"y\"]}\n";                                                     // line 8
}

TEST(GraphJsonErrors, TheSeedGraphReads) {
    std::string text = seed_graph();
    fe_graph *g = nullptr;
    ASSERT_FE_OK(fe_graph_from_json(text.data(), text.size(), &g));
    fe_tensor *y = nullptr;
    EXPECT_FE_OK(fe_graph_tensor_by_name(g, "y", &y));
    int64_t dims[4] = {};
    EXPECT_FE_OK(fe_tensor_get_dims(y, dims, 4));
    EXPECT_EQ(dims[1], 32);
    EXPECT_EQ(dims[2], 56);
    EXPECT_FE_OK(fe_graph_validate(g));
    fe_graph_destroy(g);
}

TEST(GraphJsonErrors, MalformedJsonNamesTheLine) {
    const fe_status bad = FE_STATUS_INVALID_ARGUMENT;
    expect_error("", bad, {"line 1:", "found end of text"});
    expect_error("{\"name\":\"g\",}", bad, {"line 1:", "expected a member name"});
    expect_error("{\n\"name\":\"g\"\n", bad, {"line 3:", "expected ',' or '}'"});
    expect_error("{\"tensors\":[1,]}", bad, {"expected a JSON value"});
    expect_error("{\"version\":01}", bad, {"leading zero"});
    expect_error("{\"version\":1.}", bad, {"digit after '.'"});
    expect_error("{\"version\":-}", bad, {"digit after '-'"});
    expect_error("{\"version\":1e}", bad, {"exponent"});
    expect_error("{\"version\":1e999}", bad, {"out of range"});
    expect_error("{\"name\":\"a\tb\"}", bad, {"control character"});
    expect_error("{\"name\":\"a\\qb\"}", bad, {"unknown escape"});
    expect_error("{\"name\":\"\\ud800\"}", bad, {"surrogate"});
    expect_error("{\"name\":\"\\u12\"}", bad, {"four hex digits"});
    expect_error("{\"name\":\"\xff\"}", bad, {"invalid UTF-8"});
    expect_error("{\"name\":\"\xc0\xaf\"}", bad, {"invalid UTF-8"});
    expect_error("{\"name\":\"unclosed", bad, {"not closed"});
    expect_error("{\"name\":\"g\",\"name\":\"h\"}", bad, {"appears twice"});
    expect_error("{\"name\":tru}", bad, {"expected a JSON value"});
    expect_error("{} {}", bad, {"after the JSON value"});
    expect_error("{\"name\" \"g\"}", bad, {"expected ':'"});
    expect_error(std::string(200, '[') + std::string(200, ']'), bad, {"deeper than 64"});
    expect_error("[]", bad, {"line 1, the document: expected a graph object, found an array"});
}

TEST(GraphJsonErrors, LengthIsRespected) {
    std::string text = seed_graph();
    std::string padded = text + "garbage";
    fe_graph *g = nullptr;
    ASSERT_FE_OK(fe_graph_from_json(padded.data(), text.size(), &g));
    fe_graph_destroy(g);
    expect_error(text.substr(0, text.size() / 2), FE_STATUS_INVALID_ARGUMENT, {"line 4: a string is not closed"});
}

TEST(GraphJsonErrors, UnknownOperation) {
    expect_error(with_replaced(seed_graph(), "conv_fprop", "conv_forward"), FE_STATUS_INVALID_ARGUMENT,
                 {"line 6, ops[0].op: unknown operation 'conv_forward'"});
}

TEST(GraphJsonErrors, UnknownFields) {
    const fe_status bad = FE_STATUS_INVALID_ARGUMENT;
    expect_error(seed_graph("\"pre_padding\":[1,1],\"strides\":[1,1]"), bad,
                 {"line 7, ops[0].attributes.strides: unknown field (known: pre_padding, post_padding, stride"});
    std::string top = seed_graph("\"pre_padding\":[1,1]", ",\"nmae\":\"x\"");
    expect_error(top, bad, {"line 1, nmae: unknown field"});
    std::string tensor = seed_graph();
    tensor.replace(tensor.find("\"dims\":[32"), 7, "\"dimz\":");
    expect_error(tensor, bad, {"line 4, tensors[1].dims: missing"});
    expect_error(with_replaced(seed_graph(), "{\"name\":\"w\"", "{\"name\":\"w\",\"colour\":1"), bad,
                 {"line 4, tensors[1].colour: unknown field"});
    expect_error(with_replaced(seed_graph(), "\"image\"", "\"img\""), bad,
                 {"line 6, ops[0].inputs.image: missing (conv_fprop needs it)"});
    expect_error(with_replaced(seed_graph(), "\"inputs\"", "\"operands\""), bad,
                 {"line 6, ops[0].operands: unknown field"});
    expect_error(with_replaced(seed_graph(), "{\"Y\":\"y\"}", "{\"Out\":\"y\"}"), bad,
                 {"ops[0].outputs.Out: unknown field", "has Y"});
}

TEST(GraphJsonErrors, MissingFields) {
    const fe_status bad = FE_STATUS_INVALID_ARGUMENT;
    expect_error(with_replaced(seed_graph(), "\"op\":\"conv_fprop\",", ""), bad,
                 {"line 6, ops[0].op: missing (required)"});
    expect_error(with_replaced(seed_graph(), "\"name\":\"w\",", ""), bad,
                 {"line 4, tensors[1].name: missing (required)"});
    // The right format and nothing else is no graph: every graph lists its tensors ([] for none).
    expect_error("{\"format\":\"cudnnfe.graph\"}", bad, {"line 1, tensors: missing (required)"});
    expect_error("{\"tensors\":[{\"name\":\"s\",\"by_value\":true,\"value\":1}]}", bad,
                 {"tensors[0].data_type: missing"});
    expect_error("{\"tensors\":[{\"name\":\"s\",\"by_value\":true,\"data_type\":\"float\"}]}", bad,
                 {"tensors[0].value: missing (required)"});
    expect_error("{\"tensors\":[{\"name\":\"x\",\"dims\":[4]}],\"ops\":[{\"op\":\"rng\",\"inputs\":{\"Seed\":\"x\","
                 "\"Offset\":\"x\"}}]}",
                 bad, {"ops[0].attributes.dims: missing"});
}

// Ops read from their descriptions: a pointwise mode reads only its own parameters, resampling
// needs what a written graph always holds, and a slice's start and end have one length.
TEST(GraphJsonErrors, DescribedOpsReadWhatTheirDescriptionSays) {
    const fe_status bad = FE_STATUS_INVALID_ARGUMENT;
    auto graph = [](const std::string &op) {
        return "{\"io_data_type\":\"float\",\"tensors\":[{\"name\":\"x\",\"dims\":[1,4,8,8]}],\"ops\":[" + op +
               "],\"outputs\":[\"y\"]}";
    };
    expect_error(graph("{\"op\":\"elu\",\"inputs\":{\"IN_0\":\"x\"},\"outputs\":{\"Y\":\"y\"},"
                       "\"attributes\":{\"elu_alpha\":0.5}}"),
                 FE_OK, {});
    expect_error(graph("{\"op\":\"relu\",\"inputs\":{\"IN_0\":\"x\"},\"outputs\":{\"Y\":\"y\"},"
                       "\"attributes\":{\"elu_alpha\":0.5}}"),
                 bad, {"ops[0].attributes.elu_alpha: unknown field"});
    expect_error(graph("{\"op\":\"gen_index\",\"inputs\":{\"IN_0\":\"x\"},\"outputs\":{\"Y\":\"y\"},"
                       "\"attributes\":{\"axis\":9}}"),
                 bad, {"options.axis is 9"});
    expect_error(graph("{\"op\":\"resample\",\"inputs\":{\"X\":\"x\"},\"outputs\":{\"Y\":\"y\"},"
                       "\"attributes\":{\"mode\":\"maxpool\",\"stride\":[2,2]}}"),
                 bad, {"ops[0].attributes.window: missing (a written resample always has it)"});
    expect_error(graph("{\"op\":\"slice\",\"inputs\":{\"X\":\"x\"},\"outputs\":{\"Y\":\"y\"},"
                       "\"attributes\":{\"start\":[0,0,0,0],\"end\":[1,4,8]}}"),
                 bad, {"slice: end has 3 entries, start 4"});
    const std::string three = "{\"op\":\"concatenate\",\"inputs\":{\"X0\":\"x\",\"X1\":\"x\",\"X2\":\"x\"},"
                              "\"outputs\":{\"Y\":\"y\"},\"attributes\":{\"axis\":1}}";
    std::string text = graph(three);
    fe_graph *g = nullptr;
    ASSERT_FE_OK(fe_graph_from_json(text.data(), text.size(), &g));
    fe_tensor *y = nullptr;
    ASSERT_FE_OK(fe_graph_tensor_by_name(g, "y", &y));
    int64_t dims[4] = {};
    EXPECT_FE_OK(fe_tensor_get_dims(y, dims, 4));
    EXPECT_EQ(dims[1], 12) << "three inputs of 4 channels";
    fe_graph_destroy(g);
    expect_error(graph(with_replaced(three, "\"X2\"", "\"X3\"")), bad, {"X3: unknown field"});
    expect_error(graph(with_replaced(three, "\"axis\":1", "")), bad, {"ops[0].attributes.axis: missing"});
}

TEST(GraphJsonErrors, IllTypedFields) {
    const fe_status bad = FE_STATUS_INVALID_ARGUMENT;
    expect_error(seed_graph("\"stride\":\"2\""), bad, {"line 7, ops[0].attributes.stride: expected an array of integers"});
    expect_error(seed_graph("\"stride\":[1.5,1]"), bad, {"ops[0].attributes.stride: expected an array of integers"});
    expect_error(seed_graph("\"stride\":[]"), bad, {"ops[0].attributes.stride: expected 1 to 3 integers, found 0"});
    expect_error(seed_graph("\"groups\":true"), bad, {"ops[0].attributes.groups: expected an integer, found a boolean"});
    expect_error(seed_graph("\"groups\":2.5"), bad, {"ops[0].attributes.groups: expected an integer"});
    expect_error(seed_graph("\"pre_padding\":[1,1]", ",\"io_data_type\":\"float16\""), bad, {"appears twice"});
    expect_error(with_replaced(seed_graph(), "\"half\"", "\"float16\""), bad,
                 {"line 1, io_data_type: expected a data type name"});
    expect_error(with_replaced(seed_graph(), "{\"name\":\"x\"", "{\"name\":\"x\",\"uid\":\"3\""), bad,
                 {"line 3, tensors[0].uid: expected an integer"});
    expect_error("{\"tensors\":{}}", bad, {"tensors: expected an array, found an object"});
    expect_error("{\"ops\":[3]}", bad, {"ops[0]: expected an op object, found a number"});
    expect_error("{\"outputs\":[1]}", bad, {"outputs[0]: expected a tensor name"});
    expect_error("{\"name\":5}", bad, {"name: expected a string, found a number"});
    expect_error("{\"version\":\"1\"}", bad, {"version: expected an integer, found a string"});
    expect_error(with_replaced(seed_graph(), "\"image\":\"x\"", "\"image\":[\"x\"]"), bad,
                 {"ops[0].inputs.image: expected a tensor name, found an array"});
}

// The example of include/cudnnfe.h: the second op's stride on line 12.
TEST(GraphJsonErrors, TheDocumentedExample) {
    std::string text =
        "{\n"
        "  \"io_data_type\": \"half\",\n"
        "  \"tensors\": [\n"
        "    {\"name\": \"x\", \"dims\": [1, 8, 16, 16]},\n"
        "    {\"name\": \"w\", \"dims\": [8, 8, 3, 3]},\n"
        "    {\"name\": \"w2\", \"dims\": [8, 8, 3, 3]}\n"
        "  ],\n"
        "  \"ops\": [\n"
        "    {\"op\": \"conv_fprop\", \"inputs\": {\"image\": \"x\", \"weight\": \"w\"}, \"outputs\": {\"Y\": \"y\"}},\n"
        "    {\"op\": \"conv_fprop\",\n"
        "     \"inputs\": {\"image\": \"y\", \"weight\": \"w2\"},\n"
        "     \"attributes\": {\"stride\": [2, \"2\"]}}\n"
        "  ]\n"
        "}\n";
    expect_error(text, FE_STATUS_INVALID_ARGUMENT,
                 {"fe_graph_from_json: line 12, ops[1].attributes.stride: expected an array of integers"});
}

TEST(GraphJsonErrors, BadValues) {
    const fe_status bad = FE_STATUS_INVALID_ARGUMENT;
    // The op's own checks, through its C entry point.
    expect_error(seed_graph("\"groups\":0"), bad, {"line 6, ops[0]: fe_graph_conv_fprop: options.groups is 0; it must be 1 to 2147483647"});
    expect_error(seed_graph("\"mode\":\"correlation\""), bad,
                 {"ops[0].attributes.mode: expected one of cross_correlation, convolution"});
    expect_error(seed_graph("\"pre_padding\":[1],\"post_padding\":[1,1]"), bad,
                 {"ops[0].attributes.post_padding: 2 values, but the other spatial options have 1"});
    expect_error(seed_graph("\"pre_padding\":[1]"), bad, {"ops[0]: fe_graph_conv_fprop: options give 1 spatial dims"});
    std::string dims = with_replaced(seed_graph(), "[32,64,3,3]", "[32,64,3,-3]");
    expect_error(dims, bad, {"line 4, tensors[1]: tensor 'w' has dim 3 = -3"});
    expect_error(with_replaced(seed_graph(), "\"weight\":\"w\"", "\"weight\":\"v\""), bad,
                 {"ops[0].inputs.weight: no tensor named 'v'"});
    expect_error(seed_graph("\"pre_padding\":[1,1]", ",\"version\":2"), bad, {"appears twice"});
    expect_error(with_replaced(seed_graph(), "\"version\":1", "\"version\":2"), FE_STATUS_NOT_SUPPORTED,
                 {"line 1, version: format version 2"});
    expect_error(with_replaced(seed_graph(), "cudnnfe.graph", "onnx"), bad, {"format: expected \"cudnnfe.graph\""});
    std::string output = with_replaced(seed_graph(), "[\"y\"]", "[\"z\"]");
    expect_error(output, bad, {"line 8, outputs[0]: no tensor named 'z'"});
    expect_error(with_replaced(seed_graph(), "[\"y\"]", "[\"x\"]"), bad, {"outputs[0]: 'x' is a graph input"});
    expect_error(with_replaced(seed_graph(), "[\"y\"]", "[\"y\",\"y\"]"), bad, {"outputs[1]: 'y' is listed twice"});
    expect_error(with_replaced(seed_graph(), "{\"name\":\"w\"", "{\"name\":\"x\""), bad,
                 {"tensors[1].name: tensors[0] already has the name 'x'"});
    std::string flag = seed_graph();
    flag.replace(flag.find("]}],\n\"ops"), 4, "]},\n {\"name\":\"y\",\"output\":false}],\n");
    expect_error(flag, bad, {"line 5, tensors[2].output: false, but \"outputs\" lists the tensor"});
    expect_error(with_replaced(seed_graph(), "\"tensors\":[\n", "\"tensors\":[\n {\"name\":\"y\"},\n"), bad,
                 {"ops[0].inputs.image: 'x' is declared in tensors[1], after a result of this op"});
    std::string scalar_uid = "{\"tensors\":[{\"name\":\"a\",\"dims\":[1],\"uid\":3},"
                             "{\"name\":\"s\",\"by_value\":true,\"value\":1,\"data_type\":\"float\",\"uid\":3}]}";
    expect_error(scalar_uid, bad, {"tensors[1].uid: uid 3 is already used by 'a'"});
    expect_error("{\"tensors\":[{\"name\":\"s\",\"by_value\":true,\"value\":1,\"data_type\":\"int8\"}]}", bad,
                 {"tensors[0]: scalar 's' must be float"});
    expect_error("{\"tensors\":[{\"name\":\"s\",\"by_value\":true,\"value\":\"big\",\"data_type\":\"float\"}]}", bad,
                 {"tensors[0].value: expected a number"});
    expect_error("{\"device_properties\":\"not json\"}", bad, {"device_properties: expected cuDNN's device JSON"});
    expect_error(with_replaced(seed_graph(), "{\"op\":\"conv_fprop\",", "{\"op\":\"conv_fprop\",\"name\":\"\","), bad,
                 {"ops[0].name: an op name must not be empty"});
    std::string layernorm_compute =
        "{\"tensors\":[{\"name\":\"x\",\"dims\":[8,32],\"data_type\":\"half\"},"
        "{\"name\":\"s\",\"dims\":[1,32],\"data_type\":\"float\"},{\"name\":\"b\",\"dims\":[1,32],\"data_type\":\"float\"}],"
        "\"ops\":[{\"op\":\"layernorm\",\"compute_data_type\":\"float\",\"inputs\":{\"X\":\"x\",\"scale\":\"s\",\"bias\":\"b\"}}]}";
    expect_error(layernorm_compute, bad, {"ops[0].compute_data_type: layernorm takes no compute data type"});
}

TEST(GraphJsonErrors, ResultsAreRenamedOnlyToFreeNames) {
    std::string text = with_replaced(seed_graph(), "{\"Y\":\"y\"}", "{\"Y\":\"w\"}");
    text.replace(text.find("[\"y\"]"), 5, "[\"w\"]");
    expect_error(text, FE_STATUS_INVALID_ARGUMENT, {"ops[0].inputs.weight: 'w' is named as a result of ops[0]"});
}

TEST(GraphJsonErrors, ArgumentsAndBuffers) {
    fe_graph *g = nullptr;
    EXPECT_FE_STATUS(fe_graph_from_json(nullptr, 0, &g), FE_STATUS_NULL_POINTER);
    EXPECT_FE_STATUS(fe_graph_from_json("{}", 2, nullptr), FE_STATUS_NULL_POINTER);
    size_t n = 0;
    EXPECT_FE_STATUS(fe_graph_to_json(nullptr, nullptr, 0, &n), FE_STATUS_NULL_POINTER);
    std::string text = seed_graph();
    ASSERT_FE_OK(fe_graph_from_json(text.data(), text.size(), &g));
    EXPECT_FE_STATUS(fe_graph_to_json(g, nullptr, 0, nullptr), FE_STATUS_NULL_POINTER);
    EXPECT_FE_STATUS(fe_graph_to_json(g, nullptr, 0, &n), FE_STATUS_BUFFER_TOO_SMALL);
    ASSERT_GT(n, 0u);
    std::string buf(n, 'x');  // one byte short: no room for the NUL
    size_t m = 0;
    EXPECT_FE_STATUS(fe_graph_to_json(g, &buf[0], buf.size(), &m), FE_STATUS_BUFFER_TOO_SMALL);
    EXPECT_EQ(m, n);
    buf.resize(n + 1);
    EXPECT_FE_OK(fe_graph_to_json(g, &buf[0], buf.size(), &m));
    EXPECT_EQ(m, n);
    EXPECT_EQ(buf[n], '\0');
    EXPECT_EQ(std::string(buf.c_str()).size(), n);
    fe_graph_destroy(g);
}

}  // namespace

// Through the C API a name ends at its first NUL, so "x\u0000" would pass for "x": refused in
// every name a graph file gives (graph, tensor, op, an op's result).
TEST(GraphJsonErrors, ANulCharacterInANameIsRefused) {
    const fe_status bad = FE_STATUS_INVALID_ARGUMENT;
    auto replaced = [](std::string text, const std::string &from, const std::string &to) {
        size_t at = text.find(from);
        EXPECT_NE(at, std::string::npos) << from;
        return at == std::string::npos ? text : text.replace(at, from.size(), to);
    };
    expect_error(replaced(seed_graph(), "\"name\":\"seed\"", "\"name\":\"seed\\u0000\""), bad, {"name", "NUL"});
    expect_error(replaced(seed_graph(), "{\"name\":\"x\"", "{\"name\":\"x\\u0000y\""), bad, {"line 3", "NUL"});
    expect_error(replaced(seed_graph(), "{\"op\":\"conv_fprop\",", "{\"op\":\"conv_fprop\",\"name\":\"c\\u0000\","), bad,
                 {"line 6", "NUL"});
    expect_error(replaced(seed_graph(), "\"Y\":\"y\"", "\"Y\":\"y\\u0000\""), bad, {"line 6", "outputs.Y", "NUL"});
}
