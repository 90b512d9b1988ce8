// A tensor of a graph: what the user declared, what inference filled in, and (after build)
// where it sits in the binding order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cudnnfe.h"

namespace fe {
struct Node;
}

struct fe_tensor {
    fe_graph *graph = nullptr;
    std::string name;
    std::vector<int64_t> dims;
    std::vector<int64_t> strides;
    fe_data_type data_type = FE_DATA_NOT_SET;

    // Which attributes the user fixed (inference leaves those alone and checks them).
    bool user_dims = false;
    bool user_strides = false;
    bool user_data_type = false;

    bool has_uid = false;
    bool user_uid = false;
    int64_t uid = 0;

    bool is_output = false;       // op result marked as graph output
    fe_tensor *ragged_offset = nullptr;  // packed variable-length layout: per-batch element offsets
    fe::Node *producer = nullptr; // nullptr: a graph input
    bool by_value = false;        // a host scalar baked into the variant pack
    bool compile_time_constant = false;  // by value, and compiled into the kernels (not in the variant pack)
    // The byte alignment every pointer bound to it has (fe_tensor_set_alignment): cuDNN may pick
    // kernels that rely on it, and execution refuses a pointer that breaks it.
    int64_t alignment = 16;
    // cuDNN's vectorized layout (fe_tensor_set_vectorization): `vector_count` values of dim
    // `vector_dim` form one element of dims and strides; 1 and -1 when it is not vectorized.
    int32_t vector_count = 1;
    int32_t vector_dim = -1;
    // Values stored in the order cuDNN's INT8x32 kernels read (fe_tensor_set_reordering).
    fe_tensor_reordering reordering = FE_TENSOR_REORDERING_NONE;
    // A synchronized batchnorm's exchange buffer: bound to memory of any GPU of the group.
    bool peer_memory = false;
    double scalar_value = 0.0;
    unsigned char scalar_bytes[8] = {0};  // the scalar in its data type, bound by address

    // A score modifier's input (fe_sdpa_options.score_mod_input): it stands for values this
    // attention op computes inside its fused kernel, so it is neither bound nor lowered alone.
    const fe::Node *stands_in_for = nullptr;

    // Binding slot for execution (inputs then outputs); -1 for virtual and by-value tensors.
    int32_t slot = -1;

    bool is_virtual() const { return producer != nullptr && !is_output; }
    bool is_input() const { return producer == nullptr; }
};

namespace fe {

// Bytes of one element; 0 for the 4-bit types, which data_type_bits sizes.
size_t data_type_size(fe_data_type type);
size_t data_type_bits(fe_data_type type);
const char *data_type_name(fe_data_type type);
bool data_type_valid(fe_data_type type);

std::vector<int64_t> packed_strides(const std::vector<int64_t> &dims);
// Packed strides for `dims` in the memory order of `like` (same rank): the dimension with the
// largest stride in `like` is outermost. Keeps channels-last channels-last.
std::vector<int64_t> strides_in_order_of(const std::vector<int64_t> &dims,
                                         const std::vector<int64_t> &like);
// Give an op result its inferred dims (or check the user's), and strides laid out like
// `layout_like` unless the user set them.
void assign_inferred_shape(fe_tensor *tensor, const std::vector<int64_t> &dims,
                           const std::vector<int64_t> &layout_like);
// Channels-last strides (N, spatial..., C in memory) for dims given as [N, C, spatial...].
std::vector<int64_t> channels_last_strides(const std::vector<int64_t> &dims);
// Throws INVALID_ARGUMENT unless every dim is positive ("dim 1 is -3; dims must be positive").
void require_positive_dims(const std::vector<int64_t> &dims);
// The number of elements, INT64_MAX when the product does not fit (overlapping strides let a
// tensor's dims multiply past int64 while its span stays small).
int64_t element_count(const std::vector<int64_t> &dims);
// Whether dims [N, C, spatial...] (rank 3 or more) are an image of a single pixel: every spatial
// dim 1 (with `channels`, C above 1 too).
bool single_pixel(const std::vector<int64_t> &dims, bool channels);
// The layout of an image [N, C, spatial...] of rank `rank`: 1 for channels innermost
// (channels-last), 0 for another layout, -1 when there is nothing to tell (one channel, or no
// spatial extent, as a bias or a scale [1, C, 1, 1] has).
int image_layout_class(const fe_tensor *t, size_t rank);
// Throws INVALID_ARGUMENT when two distinct elements of an output with these dims and strides
// would share an address (`name` names it in the message).
void require_distinct_elements(const std::string &name, const std::vector<int64_t> &dims,
                               const std::vector<int64_t> &strides);
// The bytes a buffer for the tensor needs: its span, times the values a vector holds.
int64_t tensor_bytes(const fe_tensor &t);
// Bytes a buffer needs for these dims and strides.
int64_t span_bytes(const std::vector<int64_t> &dims, const std::vector<int64_t> &strides,
                   fe_data_type type);
std::string dims_string(const std::vector<int64_t> &dims);
// A scale-like operand (a descale, an attention scale): it must hold one element, and it takes
// `rank` unit dims, the rank of the tensors it combines with (cuDNN wants equal ranks).
// `what` names the port in the message ("descale_q 'dq' must hold one element, not 8").
void shape_single_element(fe_tensor *tensor, const char *what, size_t rank);

}  // namespace fe
