// Reading an op's options from the graph JSON, field by field from the op schema: the inverse of
// write_option_attributes (schema/option_fields.hpp).
#pragma once

#include <cstdint>

#include "schema/schema.hpp"

namespace fe {

class OpReader;

// Fills `options` (which holds the struct's defaults) from the attributes and inputs the op
// takes, with the name and compute type of the reader. Refuses a compute type for ops that take
// none, and arrays of unequal length.
void read_option_fields(OpReader &reader, const schema::Op &op, void *options, int32_t kind = schema::kAnyKind);

// An attribute that names a value of `e` (an enum parameter of a call, like a reduction's mode).
int32_t read_enum(OpReader &reader, const char *key, const schema::Enum &e, int32_t fallback);

}  // namespace fe
