// The op schema as JSON (fe_op_schema_json).
#include "api/guard.hpp"
#include "schema/schema.hpp"

using namespace fe;

FE_EXPORT fe_status fe_op_schema_json(char *buf, size_t buf_size, size_t *out_length) {
    return guard("fe_op_schema_json", [&] {
        FE_REQUIRE(out_length);
        static const std::string text = schema::to_json();
        copy_out(text, buf, buf_size, out_length);
    });
}
