#include "serial/option_reader.hpp"

#include <cstring>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "graph/tensor.hpp"
#include "schema/option_fields.hpp"
#include "serial/readers/reader.hpp"

namespace fe {

using schema::Field;
using schema::Type;

int32_t read_enum(OpReader &r, const char *key, const schema::Enum &e, int32_t fallback) {
    std::vector<const char *> names;
    std::vector<int> values;
    for (const schema::EnumValue &v : e.values) {
        names.push_back(v.json_name);
        values.push_back(v.value);
    }
    return r.choice(key, names.data(), values.data(), names.size(), fallback);
}

void read_option_fields(OpReader &r, const schema::Op &op, void *options, int32_t kind) {
    const schema::Struct &s = *op.options;
    if (!op.takes_compute_data_type) r.no_compute_data_type();
    size_t spatial = 0;
    const char *spatial_key = nullptr;
    for (const Field &f : s.fields) {
        if (!op.takes_field(f.name, kind)) continue;
        switch (f.type) {
            case Type::name: {
                const char *name = r.name();
                std::memcpy(static_cast<unsigned char *>(options) + f.offset, &name, sizeof name);
                break;
            }
            case Type::tensor: f.set_tensor(options, r.optional_input(f.json_name())); break;
            case Type::flag: f.set_integer(options, r.flag(f.name, f.integer_of(options) != 0) ? 1 : 0); break;
            case Type::integer: {
                int64_t value = r.integer(f.name, f.integer_of(options));
                if (f.size == 4 && (value < INT32_MIN || value > INT32_MAX)) r.fail(f.name, "expected a 32-bit integer");
                f.set_integer(options, value);
                break;
            }
            case Type::number: f.set_number(options, r.number(f.name, f.number_of(options))); break;
            case Type::data_type:
                if (std::strcmp(f.name, "compute_data_type") == 0)
                    f.set_integer(options, op.takes_compute_data_type ? r.compute_data_type() : FE_DATA_NOT_SET);
                else
                    f.set_integer(options, r.data_type(f.name, static_cast<fe_data_type>(f.integer_of(options))));
                break;
            case Type::enumeration:
                f.set_integer(options, read_enum(r, f.name, *f.enumeration, static_cast<int32_t>(f.integer_of(options))));
                break;
            case Type::axes: {
                std::vector<int64_t> axes;
                if (!r.integers(f.name, &axes, 32)) break;
                uint32_t mask = 0;
                for (int64_t a : axes) {
                    if (a < 0 || a >= 32) r.fail(f.name, format("dim %lld is not in 0..31", static_cast<long long>(a)));
                    if (mask & (1u << a)) r.fail(f.name, format("dim %lld is listed twice", static_cast<long long>(a)));
                    mask |= 1u << a;
                }
                f.set_integer(options, mask);
                break;
            }
            case Type::spatial_array: {
                std::vector<int64_t> values;
                if (!r.integers(f.name, &values, FE_MAX_SPATIAL_DIMS)) break;
                if (spatial_key && values.size() != spatial)
                    r.fail(f.name, format("%zu values, but the other spatial options have %zu", values.size(), spatial));
                spatial = values.size();
                spatial_key = f.name;
                for (size_t i = 0; i < values.size(); ++i) f.array_of(options)[i] = values[i];
                break;
            }
            case Type::dims_array: {
                std::vector<int64_t> values;
                const Field *count = count_field(s, Type::dims_count);
                if (!r.integers(f.name, &values, FE_MAX_DIMS)) {
                    // A count whose default is below its range: the caller must give the dims.
                    if (count && count->integer_of(options) < count->min)
                        r.fail(f.name, std::string("missing (") + f.doc + ")");
                    break;
                }
                for (size_t i = 0; i < values.size(); ++i) f.array_of(options)[i] = values[i];
                if (count) count->set_integer(options, static_cast<int64_t>(values.size()));
                break;
            }
            case Type::tensor_array: {
                // <field>_0, <field>_1, ... up to the first absent port.
                size_t n = 0;
                for (; n < f.capacity(); ++n) {
                    fe_tensor *t = r.optional_input(tensor_array_port(f, n).c_str());
                    if (!t) break;
                    f.set_tensor_at(options, n, t);
                }
                if (const Field *count = count_field(s, Type::tensor_count))
                    count->set_integer(options, static_cast<int64_t>(n));
                break;
            }
            case Type::spatial_count:
            case Type::dims_count:
            case Type::tensor_count:
            case Type::enum_list:
            case Type::list_count:
            case Type::flags:
            case Type::name_list:
            case Type::kernel_cache: break;  // not in an op's options
        }
    }
    if (const Field *count = count_field(s, Type::spatial_count))
        if (spatial) count->set_integer(options, static_cast<int64_t>(spatial));
}

}  // namespace fe
