// The conformance tier's harness: one case is a configuration drawn at random (reproducible by
// the run's seed, the family and the case's index), its graph, and on a GPU its execution checked
// against an independent reference in double on the CPU, the outputs poisoned (NaN) first.
// Without a GPU a case is validated, written to JSON and read back identically, and
// support-checked against a captured device description.
#pragma once

#include <atomic>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <cudnnfe.h>

namespace conformance {

// Draws for one case; seeded from (run seed, family, case index) so a case reruns alone.
class Rng {
  public:
    explicit Rng(uint64_t seed) : engine_(seed) {}
    int64_t range(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(engine_); }
    bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(engine_) < p; }
    double uniform(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(engine_); }
    // A size biased towards small values (log-uniform in [lo, hi]).
    int64_t size(int64_t lo, int64_t hi) {
        double l = std::log(static_cast<double>(lo)), h = std::log(static_cast<double>(hi) + 1);
        int64_t v = static_cast<int64_t>(std::exp(uniform(l, h)));
        return v < lo ? lo : (v > hi ? hi : v);
    }
    template <typename T>
    const T &pick(const std::vector<T> &choices) {
        return choices[static_cast<size_t>(range(0, static_cast<int64_t>(choices.size()) - 1))];
    }
    std::mt19937_64 &engine() { return engine_; }

  private:
    std::mt19937_64 engine_;
};

// A tensor with its device buffer and the host copy of its memory as float, indexed by element
// offset (strides applied).
struct Bound {
    fe_tensor *tensor = nullptr;
    fe_buffer *buffer = nullptr;
    std::vector<int64_t> dims, strides;
    fe_data_type type = FE_DATA_FLOAT;
    std::vector<float> host;
    // A packed variable-length tensor: batch i starts at element ragged[i] (fe_tensor_set_ragged_offset).
    std::vector<int64_t> ragged;
    bool is_output = false;  // downloaded after execute

    int64_t span() const;
    int64_t offset(const std::vector<int64_t> &index) const;
    float at(const std::vector<int64_t> &index) const { return host[static_cast<size_t>(offset(index))]; }
    int64_t elements() const;
};

// The real (part 0) or imaginary (part 1) floats of a complex tensor's bound memory, as a float
// tensor of the same dims and strides.
Bound complex_part(const Bound &b, int part);

// Strides for dims laid out in the given order (outermost first; the last dim innermost), each
// dim's extent padded by gaps[d] extra elements (0: none).
std::vector<int64_t> strides_in_order(const std::vector<int64_t> &dims, const std::vector<size_t> &outer_to_inner,
                                      const std::vector<int64_t> &gaps);

// A dim order (outermost first) read back from strides; unit dims (whose strides say nothing)
// and ties keep their positions.
std::vector<size_t> order_of(const std::vector<int64_t> &dims, const std::vector<int64_t> &strides);

// A bound tensor's host values in logical (row-major) order.
std::vector<double> logical(const Bound &b);

float round_to(fe_data_type type, float v);

// supported: deviceless, the support check passed (nothing ran).
enum class Verdict { right, wrong, refused, error, supported };

// Writes `size` bytes to DIR/FAMILY-SEED-CASE<suffix> (the family's name with other characters than
// letters, digits and '_' as '-'): a case's graph or plan, for a developer to take further.
void write_case_file(const std::string &dir, const std::string &family, uint64_t seed, int64_t index,
                     const char *suffix, const void *data, size_t size);
const char *verdict_name(Verdict v);

// One case: its line, its graph and buffers, its verdict. A family's function draws the
// configuration, describes it, makes the graph, and (when build() says so) binds, executes and
// checks.
class Case {
  public:
    Case(std::string family, uint64_t run_seed, int64_t index, fe_handle *handle, const std::string *device_json);
    ~Case();
    Case(const Case &) = delete;
    Case &operator=(const Case &) = delete;

    Rng rng;
    const std::string family;
    const int64_t index;

    // The configuration, as one line of key=value words.
    void describe(const std::string &config) { config_ = config; }
    const std::string &config() const { return config_; }

    fe_graph *graph(fe_data_type io, fe_data_type intermediate = FE_DATA_FLOAT, fe_data_type compute = FE_DATA_FLOAT);
    fe_graph *graph_handle() const { return graph_; }
    fe_handle *handle() const { return handle_; }
    fe_tensor *tensor(const char *name, const std::vector<int64_t> &dims, const std::vector<int64_t> &strides,
                      fe_data_type type = FE_DATA_NOT_SET);
    fe_tensor *packed(const char *name, const std::vector<int64_t> &dims, fe_data_type type = FE_DATA_NOT_SET);
    // Records a failed API call while making the graph (an error: the generator asked for
    // something the API refuses, or the API broke). Returns false so callers can `return`.
    bool ok(fe_status s, const char *call);

    // Deviceless: validate, JSON round trip, support check; returns false (the verdict is set).
    // On a GPU: builds; true when the case should execute (else refused, with the reason, or an
    // error).
    bool build();

    Bound &input(fe_tensor *t, float lo = -1.f, float hi = 1.f);
    Bound &input_values(fe_tensor *t, const std::vector<float> &values);  // values over the span
    Bound &input_int32(fe_tensor *t, const std::vector<int32_t> &values);
    Bound &input_int64(fe_tensor *t, const std::vector<int64_t> &values);
    Bound &input_int8(fe_tensor *t, int64_t range);
    // Complex numbers with real and imaginary parts uniform in [-1, 1]; host holds the pair of
    // floats of each element (complex_part reads one of them).
    Bound &input_complex(fe_tensor *t);  // whole numbers in [-range, range], as int8 bytes
    // Signed 4-bit values (-8 to 7), two to a byte by element offset, the even one in the low bits.
    Bound &input_int4(fe_tensor *t);
    Bound &output(fe_tensor *t);  // poisoned: all bits set
    bool execute();               // false: error recorded

    // Compares every logical element of out (row-major over its dims) where defined (null: all)
    // with ref: no non-finite value, at most a few elements outside atol + rtol * |ref|
    // (cudnn-frontend's tests allow a tiny fraction), relative error norm under max_norm.
    void check(const char *what, const Bound &out, const std::vector<double> &ref, double atol, double rtol,
               double max_norm, const std::vector<char> *defined = nullptr);
    // The same for a result each of whose elements sums many terms (a gradient over a sequence):
    // an element may also be off by `eps` times the sum of its terms' magnitudes (`magnitudes`,
    // in ref's order), the rounding of partial sums held in the output's type.
    void check_sums(const char *what, const Bound &out, const std::vector<double> &ref,
                    const std::vector<double> &magnitudes, double eps, double atol, double rtol, double max_norm,
                    const std::vector<char> *defined = nullptr);

    void refuse(const std::string &reason);
    void fail(const std::string &why);  // an error (not a wrong value)

    // A case of its own on the same GPU (or description), for a graph this case's reference
    // needs (a forward that draws what a backward reads); its draws follow from this case's.
    std::unique_ptr<Case> companion(const std::string &what);

    Verdict verdict() const { return verdict_; }
    const std::string &detail() const { return detail_; }
    double worst_norm() const { return worst_norm_; }
    bool deviceless() const { return device_json_ != nullptr; }

  private:
    Bound &allocate(fe_tensor *t);
    bool download(Bound &b);
    std::string config_;
    uint64_t run_seed_;
    fe_handle *handle_;
    const std::string *device_json_;
    fe_graph *graph_ = nullptr;
    std::vector<std::unique_ptr<Bound>> bound_;
    Verdict verdict_ = Verdict::right;
    std::string detail_;
    double worst_norm_ = 0;
    bool checked_ = false;
};

struct Family {
    const char *name;
    int64_t default_count;  // per run on a GPU
    std::function<void(Case &)> run;
};

const std::vector<Family> &families();

// What the calling thread's case is doing now ("building the plan", "waiting for the GPU", ...),
// written where watch_phase pointed this thread, so a run's monitor can say where a case that
// does not finish is stuck: in cuDNN's heuristics, in a kernel, or in the reference.
void watch_phase(std::atomic<const char *> *slot);
void phase(const char *what);

}  // namespace conformance
