// RAII over cudnnBackendDescriptor_t with checked attribute setters. Every failure carries
// the attribute that failed and cuDNN's own error text.
#pragma once

#include <cudnn_graph.h>

#include <cstdint>
#include <string>
#include <vector>

namespace fe {

class Descriptor {
  public:
    Descriptor() = default;
    explicit Descriptor(cudnnBackendDescriptorType_t type);
    ~Descriptor();
    Descriptor(Descriptor &&other) noexcept
        : raw_(other.raw_), type_(other.type_), references_(std::move(other.references_)),
          values_(std::move(other.values_)) {
        other.raw_ = nullptr;
    }
    Descriptor &operator=(Descriptor &&other) noexcept;
    Descriptor(const Descriptor &) = delete;
    Descriptor &operator=(const Descriptor &) = delete;

    cudnnBackendDescriptor_t get() const { return raw_; }
    cudnnBackendDescriptorType_t type() const { return type_; }
    // The descriptors set as attributes of this one, in the order set, each with the attribute
    // it was set as (an operation's tensors on their ports): what a plan read from disk is
    // compared with.
    struct Reference {
        cudnnBackendAttributeName_t name;
        cudnnBackendDescriptor_t raw;
    };
    const std::vector<Reference> &references() const { return references_; }
    explicit operator bool() const { return raw_ != nullptr; }
    // The numbers and enum values set on this descriptor, by attribute: what a plan read from
    // disk is compared with.
    struct Value {
        cudnnBackendAttributeName_t name;
        std::vector<double> numbers;
    };
    const std::vector<Value> &values() const { return values_; }
    const Value *value(cudnnBackendAttributeName_t name) const;

    Descriptor &set(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
                    int64_t count, const void *values, const char *label);
    Descriptor &set_int64(cudnnBackendAttributeName_t name, int64_t value, const char *label) {
        return set(name, CUDNN_TYPE_INT64, 1, &value, label);
    }
    Descriptor &set_int64s(cudnnBackendAttributeName_t name, const std::vector<int64_t> &values,
                           const char *label) {
        return set(name, CUDNN_TYPE_INT64, static_cast<int64_t>(values.size()), values.data(), label);
    }
    Descriptor &set_desc(cudnnBackendAttributeName_t name, const Descriptor &d, const char *label) {
        cudnnBackendDescriptor_t raw = d.get();
        return set(name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &raw, label);
    }
    Descriptor &set_data_type(cudnnBackendAttributeName_t name, int32_t type, const char *label) {
        cudnnDataType_t t = static_cast<cudnnDataType_t>(type);
        return set(name, CUDNN_TYPE_DATA_TYPE, 1, &t, label);
    }
    // Finalize; on failure raise `status_on_failure` with `what` and cuDNN's reason.
    void finalize(const char *what, int status_on_failure);
    // Finalize, returning cuDNN's status instead of raising.
    cudnnStatus_t try_finalize();

    int64_t get_int64(cudnnBackendAttributeName_t name, const char *label) const;

  private:
    void record(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, int64_t count,
                const void *values);

    cudnnBackendDescriptor_t raw_ = nullptr;
    cudnnBackendDescriptorType_t type_ = CUDNN_BACKEND_POINTWISE_DESCRIPTOR;
    std::vector<Reference> references_;
    std::vector<Value> values_;
};

// Raise FE_STATUS_CUDNN_ERROR (or `status`) for a failing cuDNN call.
void check_cudnn(cudnnStatus_t code, const char *what, int status = -1);

}  // namespace fe
