// cudnnfe schema: every operation's description (the op schema) as JSON, for binding
// generators, the docs and whoever wants to know what an op takes.
#include <cstdio>
#include <string>

#include "cli.hpp"
#include "commands.hpp"

namespace tool {

namespace {

const char kHelp[] =
    "usage: cudnnfe schema\n"
    "\n"
    "Print the op schema as one JSON object: for each operation its kind, C entry point, ports\n"
    "and options; for each option struct its fields (type, default, range, documentation); for\n"
    "each enum its values and JSON names (what fe_op_schema_json returns). Needs no cuDNN.\n"
    "scripts/schema/render_docs.py turns it into the op reference of docs/graph-json.md.\n";

}  // namespace

int schema_command(int argc, char **argv) {
    Args args;
    int rc = parse_or_exit("schema", kHelp, argc, argv, {}, args);
    if (rc >= 0) return rc;
    if (!args.positional.empty())
        return fail("schema", kExitBadInput, "unexpected argument '" + args.positional[0] + "'");
    size_t length = 0;
    fe_status status = fe_op_schema_json(nullptr, 0, &length);
    std::string text(length + 1, '\0');
    if (status == FE_STATUS_BUFFER_TOO_SMALL) status = fe_op_schema_json(&text[0], text.size(), &length);
    if (status != FE_OK) return fail("schema", kExitEnvironment, fe_last_error_message());
    text.resize(length);
    std::printf("%s\n", text.c_str());
    return kExitOk;
}

}  // namespace tool
