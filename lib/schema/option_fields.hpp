// The attributes of an op's options, field by field from the op schema, for the graph JSON and
// the graph's facts (the plan cache's key): the writer gets every attribute the op takes, in the
// struct's order (serial/option_reader.hpp reads them back). What an op writes and reads is then its
// description, not a second list typed by hand.
#pragma once

#include <cstddef>
#include <string>

#include "graph/attribute_writer.hpp"
#include "schema/schema.hpp"

namespace fe {

// The attributes of `options` (a struct of op.options' type) that `op` takes: every field but
// the name, the compute type (an op member of its own), tensors (inputs) and counts (the arrays'
// lengths). Spatial arrays are written with `spatial_dims` entries.
void write_option_attributes(AttributeWriter &out, const schema::Op &op, const void *options, size_t spatial_dims,
                             int32_t kind = schema::kAnyKind);

// Whether a field is written as an attribute (rather than as the op's name, its compute type, an
// input or an array's length).
bool is_option_attribute(const schema::Field &f);
// The struct's field holding the length of its arrays of kind `count`, or nullptr.
const schema::Field *count_field(const schema::Struct &s, schema::Type count);

// The input port of entry i of a tensor array field: "<field>_<i>" (peer_stats_0), which the
// op's node names its inputs too.
std::string tensor_array_port(const schema::Field &field, size_t i);

// The op's description; an internal error when the kind has none (every op has one: the schema
// test says so).
const schema::Op &op_schema(const char *kind);

}  // namespace fe
