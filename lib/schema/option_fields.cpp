#include "schema/option_fields.hpp"

#include <cstring>
#include <string>

#include "common/error.hpp"
#include "graph/tensor.hpp"

namespace fe {

using schema::Field;
using schema::Type;

bool is_option_attribute(const Field &f) {
    return f.type != Type::name && f.type != Type::tensor && f.type != Type::spatial_count &&
           f.type != Type::dims_count && f.type != Type::tensor_count && f.type != Type::tensor_array &&
           std::strcmp(f.name, "compute_data_type") != 0;
}

const Field *count_field(const schema::Struct &s, Type count) {
    for (const Field &f : s.fields)
        if (f.type == count) return &f;
    return nullptr;
}

std::string tensor_array_port(const schema::Field &f, size_t i) { return std::string(f.json_name()) + "_" + std::to_string(i); }

const schema::Op &op_schema(const char *kind) {
    const schema::Op *op = schema::find_op(kind);
    FE_CHECK(op != nullptr, FE_STATUS_INTERNAL, "op kind '%s' has no schema description", kind);
    return *op;
}

void write_option_attributes(AttributeWriter &out, const schema::Op &op, const void *options, size_t spatial_dims,
                             int32_t kind) {
    const schema::Struct &s = *op.options;
    for (const Field &f : s.fields) {
        if (!is_option_attribute(f) || !op.takes_field(f.name, kind)) continue;
        switch (f.type) {
            case Type::flag: out.boolean(f.name, f.integer_of(options) != 0); break;
            case Type::integer: out.integer(f.name, f.integer_of(options)); break;
            case Type::number: out.number(f.name, f.number_of(options)); break;
            case Type::data_type:
                out.text(f.name, data_type_name(static_cast<fe_data_type>(f.integer_of(options))));
                break;
            case Type::enumeration: {
                const char *name = f.enumeration->json_name(static_cast<int32_t>(f.integer_of(options)));
                FE_CHECK(name != nullptr, FE_STATUS_INTERNAL, "%s.%s holds %lld, not an %s", s.c_type, f.name,
                         static_cast<long long>(f.integer_of(options)), f.enumeration->c_type);
                out.text(f.name, name);
                break;
            }
            case Type::axes: {
                int64_t axes[32];
                size_t count = 0;
                uint32_t mask = static_cast<uint32_t>(f.integer_of(options));
                for (int64_t axis = 0; axis < 32; ++axis)
                    if (mask & (1u << axis)) axes[count++] = axis;
                out.integers(f.name, axes, count);
                break;
            }
            case Type::spatial_array: out.integers(f.name, f.array_of(options), spatial_dims); break;
            case Type::dims_array: {
                const Field *count = count_field(s, Type::dims_count);
                out.integers(f.name, f.array_of(options), count ? static_cast<size_t>(count->integer_of(options)) : 0);
                break;
            }
            case Type::name:
            case Type::tensor:
            case Type::spatial_count:
            case Type::dims_count:
            case Type::tensor_count:
            case Type::tensor_array:
            case Type::enum_list:
            case Type::list_count:
            case Type::flags:
            case Type::name_list:
            case Type::kernel_cache: break;  // not in an op's options
        }
    }
}

}  // namespace fe
