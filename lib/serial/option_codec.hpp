// The graph JSON of an op's options, field by field from the op schema (lib/schema): the writer
// writes every attribute the op takes, in the struct's order, and the reader reads them (and the
// tensor options, as inputs) back into the struct. What an op writes and reads is then its
// description, not a second list typed by hand.
#pragma once

#include <cstddef>
#include <string>

#include "schema/schema.hpp"
#include "serial/json.hpp"

namespace fe {

class OpReader;

// The attributes of `options` (a struct of op.options' type) that `op` takes: every field but
// the name, the compute type (an op member of its own), tensors (inputs) and counts (the arrays'
// lengths). Spatial arrays are written with `spatial_dims` entries.
void write_option_attributes(json::Writer &out, const schema::Op &op, const void *options, size_t spatial_dims);

// The inverse: fills `options` (which holds the struct's defaults) from the attributes and
// inputs the op takes, with the name and compute type of the reader. Refuses a compute type for
// ops that take none, and arrays of unequal length.
void read_option_fields(OpReader &reader, const schema::Op &op, void *options);

// An attribute that names a value of `e` (an enum parameter of a call, like a reduction's mode).
int32_t read_enum(OpReader &reader, const char *key, const schema::Enum &e, int32_t fallback);

// The input port of entry i of a tensor array field: "<field>_<i>" (peer_stats_0), which the
// op's node names its inputs too.
std::string tensor_array_port(const schema::Field &field, size_t i);

// The op's description; an internal error when the kind has none (every op has one: the schema
// test says so).
const schema::Op &op_schema(const char *kind);

}  // namespace fe
