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
        references_.insert(references_.end(), raw, raw + count);
    }
    return *this;
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
