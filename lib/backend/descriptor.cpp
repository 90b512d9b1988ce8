#include "backend/descriptor.hpp"

#include "backend/loader.hpp"
#include "common/error.hpp"

namespace fe {

void check_cudnn(cudnnStatus_t code, const char *what, int status) {
    if (code == CUDNN_STATUS_SUCCESS) return;
    const Cudnn &api = cudnn();
    std::string reason = cudnn_last_error_text();
    std::string text = format("%s failed: %s", what, api.cudnnGetErrorString(code));
    if (!reason.empty()) text += " (" + reason + ")";
    fe_status s = status >= 0 ? static_cast<fe_status>(status) : FE_STATUS_CUDNN_ERROR;
    if (status < 0 && (code / 1000) * 1000 == CUDNN_STATUS_NOT_SUPPORTED) s = FE_STATUS_NOT_SUPPORTED;
    fail(s, text);
}

Descriptor::Descriptor(cudnnBackendDescriptorType_t type) : type_(type) {
    check_cudnn(cudnn().cudnnBackendCreateDescriptor(type, &raw_), "cudnnBackendCreateDescriptor");
}

Descriptor::~Descriptor() {
    if (raw_) cudnn().cudnnBackendDestroyDescriptor(raw_);
}

Descriptor &Descriptor::operator=(Descriptor &&other) noexcept {
    if (this != &other) {
        if (raw_) cudnn().cudnnBackendDestroyDescriptor(raw_);
        raw_ = other.raw_;
        type_ = other.type_;
        references_ = std::move(other.references_);
        values_ = std::move(other.values_);
        other.raw_ = nullptr;
    }
    return *this;
}

Descriptor &Descriptor::set(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
                            int64_t count, const void *values, const char *label) {
    cudnnStatus_t st = cudnn().cudnnBackendSetAttribute(raw_, name, type, count, values);
    if (st != CUDNN_STATUS_SUCCESS) {
        std::string what = std::string("setting ") + label;
        check_cudnn(st, what.c_str());
    }
    if (type == CUDNN_TYPE_BACKEND_DESCRIPTOR) {
        const auto *raw = static_cast<const cudnnBackendDescriptor_t *>(values);
        for (int64_t i = 0; i < count; ++i) references_.push_back(Reference{name, raw[i]});
    } else {
        record(name, type, count, values);
    }
    return *this;
}

namespace {

// The elements of a set attribute as numbers; false for a type that holds none (text, pointers).
bool as_numbers(cudnnBackendAttributeType_t type, int64_t count, const void *values, std::vector<double> *out) {
    auto copy = [&](auto *typed) {
        out->assign(typed, typed + count);
        return true;
    };
    switch (type) {
        case CUDNN_TYPE_INT64: return copy(static_cast<const int64_t *>(values));
        case CUDNN_TYPE_INT32: return copy(static_cast<const int32_t *>(values));
        case CUDNN_TYPE_DOUBLE: return copy(static_cast<const double *>(values));
        case CUDNN_TYPE_FLOAT: return copy(static_cast<const float *>(values));
        case CUDNN_TYPE_BOOLEAN: return copy(static_cast<const bool *>(values));
        case CUDNN_TYPE_FRACTION: {  // numerator, denominator of each
            const auto *fractions = static_cast<const cudnnFraction_t *>(values);
            out->clear();
            for (int64_t i = 0; i < count; ++i) {
                out->push_back(static_cast<double>(fractions[i].numerator));
                out->push_back(static_cast<double>(fractions[i].denominator));
            }
            return true;
        }
        case CUDNN_TYPE_HANDLE:
        case CUDNN_TYPE_VOID_PTR:
        case CUDNN_TYPE_CHAR:
        case CUDNN_TYPE_BACKEND_DESCRIPTOR: return false;
        default:  // the enum types: int-sized values
            static_assert(sizeof(cudnnPointwiseMode_t) == sizeof(int32_t), "cuDNN enums are int-sized");
            return copy(static_cast<const int32_t *>(values));
    }
}

}  // namespace

void Descriptor::record(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, int64_t count,
                        const void *values) {
    std::vector<double> numbers;
    if (count < 0 || count > 64 || !values || !as_numbers(type, count, values, &numbers)) return;
    for (Value &v : values_)
        if (v.name == name) {
            v.numbers = std::move(numbers);
            return;
        }
    values_.push_back(Value{name, std::move(numbers)});
}

const Descriptor::Value *Descriptor::value(cudnnBackendAttributeName_t name) const {
    for (const Value &v : values_)
        if (v.name == name) return &v;
    return nullptr;
}

cudnnStatus_t Descriptor::try_finalize() { return cudnn().cudnnBackendFinalize(raw_); }

void Descriptor::finalize(const char *what, int status_on_failure) {
    cudnnStatus_t st = try_finalize();
    if (st != CUDNN_STATUS_SUCCESS) check_cudnn(st, what, status_on_failure);
}

int64_t Descriptor::get_int64(cudnnBackendAttributeName_t name, const char *label) const {
    int64_t value = 0, count = 0;
    cudnnStatus_t st = cudnn().cudnnBackendGetAttribute(raw_, name, CUDNN_TYPE_INT64, 1, &count, &value);
    if (st != CUDNN_STATUS_SUCCESS) {
        std::string what = std::string("reading ") + label;
        check_cudnn(st, what.c_str());
    }
    return value;
}

}  // namespace fe
