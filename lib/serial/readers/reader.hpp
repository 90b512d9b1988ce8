// What an op's JSON reader sees: its entry of "ops", the graph being rebuilt, and typed access
// to its inputs and attributes with errors that name the line and the field. A reader reads
// what the op's write_json wrote and adds the op through add() and lib/ops/graph_ops.hpp, the
// functions the C entry points use too, so the rebuilt node passes the same checks and
// inference as one made by a caller. Fields it does not read are refused afterwards as unknown.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "cudnnfe.h"
#include "graph/graph.hpp"
#include "serial/fields.hpp"
#include "common/json.hpp"

namespace fe {

class OpReader {
  public:
    // `op` is the entry of "ops" at `path` ("ops[3]"); kind and name are already read.
    OpReader(fe_graph *graph, const json::Value &op, const std::string &path, std::string kind, std::string name,
             fe_data_type compute);

    fe_graph *graph() const { return graph_; }
    const std::string &kind() const { return kind_; }
    const std::string &path() const { return path_; }
    // The op's "name", or nullptr for an automatic one.
    const char *name() const { return name_.empty() ? nullptr : name_.c_str(); }
    // "compute_data_type". Readers of ops whose entry point takes none call
    // no_compute_data_type(), which refuses any value but not_set.
    fe_data_type compute_data_type() const { return compute_; }
    void no_compute_data_type() const;

    // Inputs by port: `input` fails when the port is missing, `optional_input` gives nullptr.
    fe_tensor *input(const char *port);
    fe_tensor *optional_input(const char *port);

    // Attributes: each returns `fallback` when the attribute is absent.
    bool has(const char *key) const { return attributes_.has(key); }
    int64_t integer(const char *key, int64_t fallback);
    int32_t int32(const char *key, int32_t fallback);
    double number(const char *key, double fallback);
    bool flag(const char *key, bool fallback);
    // An array of 1 to max_count integers; false when absent.
    bool integers(const char *key, std::vector<int64_t> *out, size_t max_count);
    fe_data_type data_type(const char *key, fe_data_type fallback);
    // One of `count` names, returned as values[i].
    int choice(const char *key, const char *const *names, const int *values, size_t count, int fallback);
    // An error at attributes.<key>.
    [[noreturn]] void fail(const char *key, const std::string &cause) const;

    // Adds the op through lib/ops/graph_ops.hpp (as its C entry point does); a failure throws
    // with its status and the message the entry point would give, after the line and path.
    template <typename Add>
    void add(Add &&add_op) const {
        try {
            add_op(*graph_);
        } catch (const Error &e) {
            rethrow(e);
        }
    }

    // Says why a tensor name the op reads does not exist yet ("" when there is no better reason
    // than its absence); set by the graph reader.
    std::function<std::string(const std::string &)> explain_missing;

    // After the reader ran: refuse inputs and attributes it did not read.
    void refuse_unread() const;

  private:
    [[noreturn]] void rethrow(const Error &e) const;
    fe_tensor *lookup(const char *port, bool required);
    void note(std::vector<std::string> &known, const char *key);

    fe_graph *graph_;
    const json::Value &op_;
    std::string path_, kind_, name_;
    fe_data_type compute_;
    Fields inputs_, attributes_;
    std::vector<std::string> known_inputs_, known_attributes_;
};

using OpReadFunction = void (*)(OpReader &reader);

// The reader of an op kind (as Node::kind() spells it), or nullptr (lib/serial/readers/registry.cpp).
OpReadFunction find_op_reader(const std::string &kind);

}  // namespace fe
