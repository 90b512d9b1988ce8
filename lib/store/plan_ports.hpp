// The keys under which cuDNN's plan JSON names an operation's tensors, by the backend attribute
// (the port) lowering set: what lets a plan read from disk be checked port by port, not only by
// the set of tensors each operation touches.
#pragma once

#include <cudnn_graph.h>

#include <string>

namespace fe {

struct PortKey {
    const char *key;                        // as cuDNN writes it ("X", "matA", "dY")
    cudnnBackendAttributeName_t attribute;  // the port
    // Seen in plans cuDNN 9.19 wrote on an H100 or H200. A confirmed port must be under its key; an
    // unconfirmed one is checked under its key when the key is there, and otherwise with the
    // operation's other unnamed tensors, as a set.
    bool confirmed;
};

// The port of `operation` (cuDNN's name, "CUDNN_BACKEND_OPERATION_..._DESCRIPTOR") that cuDNN
// writes under `key`, or the key of `attribute`; null when the table does not know it.
const PortKey *port_by_key(const std::string &operation, const std::string &key);
const PortKey *port_by_attribute(const std::string &operation, cudnnBackendAttributeName_t attribute);

}  // namespace fe
