#include "harness.hpp"

#include <algorithm>
#include <cstdint>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common/half.hpp"
#include "plan_round_trip.hpp"

namespace conformance {

int64_t Bound::span() const {
    int64_t last = 0;
    for (size_t i = 0; i < dims.size(); ++i) last += (dims[i] - 1) * strides[i];
    return last + 1;
}

int64_t Bound::offset(const std::vector<int64_t> &index) const {
    int64_t o = 0;
    for (size_t i = 0; i < index.size(); ++i)
        o += i == 0 && !ragged.empty() ? ragged[static_cast<size_t>(index[0])] : index[i] * strides[i];
    return o;
}

int64_t Bound::elements() const {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
}

std::vector<int64_t> strides_in_order(const std::vector<int64_t> &dims, const std::vector<size_t> &outer_to_inner,
                                      const std::vector<int64_t> &gaps) {
    std::vector<int64_t> strides(dims.size());
    int64_t step = 1;
    for (size_t k = outer_to_inner.size(); k-- > 0;) {
        size_t d = outer_to_inner[k];
        strides[d] = step;
        step *= dims[d] + (gaps.empty() ? 0 : gaps[d]);
    }
    return strides;
}

std::vector<size_t> order_of(const std::vector<int64_t> &dims, const std::vector<int64_t> &strides) {
    std::vector<size_t> order(dims.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    auto key = [&](size_t i) { return dims[i] == 1 ? 0 : strides[i]; };
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return key(a) > key(b); });
    return order;
}

std::vector<double> logical(const Bound &b) {
    std::vector<double> v(static_cast<size_t>(b.elements()));
    std::vector<int64_t> index(b.dims.size(), 0);
    for (size_t i = 0; i < v.size(); ++i) {
        v[i] = b.at(index);
        for (size_t d = index.size(); d-- > 0;) {
            if (++index[d] < b.dims[d]) break;
            index[d] = 0;
        }
    }
    return v;
}

float round_to(fe_data_type type, float v) {
    if (type == FE_DATA_HALF) return fe::half_to_float(fe::float_to_half(v));
    if (type == FE_DATA_BFLOAT16) return fe::bfloat16_to_float(fe::float_to_bfloat16(v));
    if (type == FE_DATA_FP8_E4M3) return fe::fp8_e4m3_to_float(fe::float_to_fp8_e4m3(v));
    if (type == FE_DATA_FP8_E5M2) return fe::fp8_e5m2_to_float(fe::float_to_fp8_e5m2(v));
    return v;
}

const char *verdict_name(Verdict v) {
    switch (v) {
    case Verdict::right: return "right";
    case Verdict::wrong: return "WRONG";
    case Verdict::refused: return "refused";
    case Verdict::error: return "ERROR";
    case Verdict::supported: return "supported";
    }
    return "?";
}

namespace {
uint64_t mix(uint64_t seed, const std::string &family, int64_t index) {
    uint64_t h = 1469598103934665603ull ^ seed;
    for (char c : family) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    h ^= static_cast<uint64_t>(index) * 0x9E3779B97F4A7C15ull;
    return h;
}
// The graph's JSON text (sized by a first call with no buffer).
fe_status to_json(const fe_graph *graph, std::string &out) {
    size_t length = 0;
    fe_status s = fe_graph_to_json(graph, nullptr, 0, &length);
    if (s != FE_OK && s != FE_STATUS_BUFFER_TOO_SMALL) return s;
    out.assign(length + 1, '\0');
    s = fe_graph_to_json(graph, &out[0], out.size(), &length);
    out.resize(length);
    return s;
}
}  // namespace

namespace {
thread_local std::atomic<const char *> *phase_slot = nullptr;
const char *current_phase() { return phase_slot ? phase_slot->load() : nullptr; }
}  // namespace

void watch_phase(std::atomic<const char *> *slot) { phase_slot = slot; }

void phase(const char *what) {
    if (phase_slot && what) phase_slot->store(what);
}

Case::Case(std::string family_name, uint64_t run_seed, int64_t case_index, fe_handle *handle,
           const std::string *device_json)
    : rng(mix(run_seed, family_name, case_index)), family(std::move(family_name)), index(case_index),
      run_seed_(run_seed), handle_(handle), device_json_(device_json) {
    phase("making the graph and its inputs");
}

Case::~Case() {
    // A companion ends inside its case: what that case was doing goes on after.
    const char *was = current_phase();
    phase("freeing the buffers");
    for (auto &b : bound_) fe_buffer_destroy(b->buffer);
    fe_graph_destroy(graph_);
    phase(was);
}

fe_graph *Case::graph(fe_data_type io, fe_data_type intermediate, fe_data_type compute) {
    fe_graph_options o = FE_GRAPH_OPTIONS_INIT;
    o.name = family.c_str();
    o.io_data_type = io;
    o.intermediate_data_type = intermediate;
    o.compute_data_type = compute;
    if (fe_graph_create(&o, &graph_) != FE_OK) fail(std::string("fe_graph_create: ") + fe_last_error_message());
    return graph_;
}

fe_tensor *Case::tensor(const char *name, const std::vector<int64_t> &dims, const std::vector<int64_t> &strides,
                        fe_data_type type) {
    fe_tensor *t = nullptr;
    ok(fe_graph_tensor(graph_, name, dims.size(), dims.data(), strides.data(), type, &t), "fe_graph_tensor");
    return t;
}

fe_tensor *Case::packed(const char *name, const std::vector<int64_t> &dims, fe_data_type type) {
    std::vector<size_t> order(dims.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    return tensor(name, dims, strides_in_order(dims, order, {}), type);
}

bool Case::ok(fe_status s, const char *call) {
    if (s == FE_OK) return true;
    if (verdict_ != Verdict::error) fail(std::string(call) + ": " + fe_last_error_message());
    return false;
}

void Case::refuse(const std::string &reason) {
    if (verdict_ == Verdict::right || verdict_ == Verdict::supported) {
        verdict_ = Verdict::refused;
        detail_ = reason;
    }
}

std::unique_ptr<Case> Case::companion(const std::string &what) {
    const uint64_t seed = static_cast<uint64_t>(rng.range(0, INT64_MAX));
    return std::make_unique<Case>(family + " (" + what + ")", seed, index, handle_, device_json_);
}

void Case::fail(const std::string &why) {
    if (verdict_ == Verdict::error) return;
    verdict_ = Verdict::error;
    detail_ = why;
}

// With CUDNNFE_CONFORMANCE_GRAPHS set to a folder, each case's graph is written there as JSON
// (FAMILY-SEED-CASE.json) before it is built: the input of `cudnnfe bench` and `cudnnfe compile`,
// to vary a wrong or faulting case by hand.
static void write_graph_json(const fe_graph *graph, const std::string &family, uint64_t seed, int64_t index) {
    const char *dir = std::getenv("CUDNNFE_CONFORMANCE_GRAPHS");
    if (!dir || !*dir) return;
    std::string json;
    if (to_json(graph, json) != FE_OK) return;
    write_case_file(dir, family, seed, index, ".json", json.data(), json.size());
}

void write_case_file(const std::string &dir, const std::string &family, uint64_t seed, int64_t index,
                     const char *suffix, const void *data, size_t size) {
    std::string name = family;
    for (char &c : name)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '-';
    std::string path = dir + "/" + name + "-" + std::to_string(seed) + "-" + std::to_string(index) + suffix;
    if (FILE *f = std::fopen(path.c_str(), "wb")) {
        std::fwrite(data, 1, size, f);
        std::fclose(f);
    }
}

bool Case::build() {
    if (verdict_ == Verdict::error) return false;
    write_graph_json(graph_, family, run_seed_, index);
    if (!device_json_) {
        phase("building the plan");
        fe_status s = fe_graph_build(graph_, handle_, nullptr);
        if (s == FE_OK) {
            phase("loading the plan back");
            // Reported on a line of its own, and the case still runs: a plan that does not load
            // back says nothing about the values the built one computes.
            std::string why = plan_round_trip(graph_, handle_, family, run_seed_, index);
            if (!why.empty())
                std::printf("PLAN ROUND TRIP FAILED family=%s seed=%llu case=%lld: %s\n", family.c_str(),
                            static_cast<unsigned long long>(run_seed_), static_cast<long long>(index), why.c_str());
            return true;
        }
        std::string message = fe_last_error_message();
        if (s == FE_STATUS_NOT_SUPPORTED)
            refuse(message);
        else
            fail("fe_graph_build: " + message);
        return false;
    }
    // Deviceless: the graph validates, reads back from its JSON as the same graph, and passes
    // cuDNN's support check for the described GPU (or is refused with a reason).
    phase("checking support");
    if (!ok(fe_graph_validate(graph_), "fe_graph_validate")) return false;
    std::string json, again;
    if (!ok(to_json(graph_, json), "fe_graph_to_json")) return false;
    fe_graph *copy = nullptr;
    if (!ok(fe_graph_from_json(json.data(), json.size(), &copy), "fe_graph_from_json")) return false;
    fe_status s = to_json(copy, again);
    fe_graph_destroy(copy);
    if (!ok(s, "fe_graph_to_json (read back)")) return false;
    if (again != json) {
        size_t at = 0;
        while (at < json.size() && at < again.size() && json[at] == again[at]) ++at;
        fail("the graph read back from its JSON differs from it at byte " + std::to_string(at));
        return false;
    }
    if (!ok(fe_graph_set_device_properties(graph_, device_json_->c_str()), "fe_graph_set_device_properties"))
        return false;
    s = fe_graph_build_operation_graph(graph_, nullptr);
    if (s == FE_OK) s = fe_graph_create_execution_plans(graph_, nullptr, 0);
    if (s == FE_OK) s = fe_graph_check_support(graph_);
    if (s == FE_STATUS_NOT_SUPPORTED)
        refuse(fe_last_error_message());
    else if (s != FE_OK)
        fail(std::string("support check: ") + fe_last_error_message());
    else
        verdict_ = Verdict::supported;
    return false;
}

Bound &Case::allocate(fe_tensor *t) {
    auto b = std::make_unique<Bound>();
    b->tensor = t;
    size_t n = 0;
    ok(fe_tensor_get_ndims(t, &n), "fe_tensor_get_ndims");
    b->dims.resize(n);
    b->strides.resize(n);
    ok(fe_tensor_get_dims(t, b->dims.data(), n), "fe_tensor_get_dims");
    ok(fe_tensor_get_strides(t, b->strides.data(), n), "fe_tensor_get_strides");
    ok(fe_tensor_get_data_type(t, &b->type), "fe_tensor_get_data_type");
    int32_t device = 0;
    fe_handle_get_device(handle_, &device);
    ok(fe_buffer_create_for_tensor(device, t, &b->buffer), "fe_buffer_create_for_tensor");
    // A complex element is two floats (real, imaginary), a vectorized one `vector_count` values:
    // all are kept.
    int32_t vector_count = 1;
    ok(fe_tensor_get_vector_count(t, &vector_count), "fe_tensor_get_vector_count");
    const size_t per_element = b->type == FE_DATA_COMPLEX_FP32 ? 2 : static_cast<size_t>(vector_count);
    b->host.assign(static_cast<size_t>(b->span()) * per_element, 0.f);
    bound_.push_back(std::move(b));
    return *bound_.back();
}

Bound &Case::input(fe_tensor *t, float lo, float hi) {
    Bound &b = allocate(t);
    std::uniform_real_distribution<float> dist(lo, hi);
    for (float &v : b.host) v = round_to(b.type, dist(rng.engine()));
    if (b.buffer) ok(fe_buffer_upload_float(b.buffer, b.host.data(), b.span(), b.type), "fe_buffer_upload_float");
    return b;
}

Bound &Case::input_complex(fe_tensor *t) {
    Bound &b = allocate(t);
    std::uniform_real_distribution<float> dist(-1.f, 1.f);
    for (float &v : b.host) v = dist(rng.engine());
    if (b.buffer)
        ok(fe_buffer_upload(b.buffer, b.host.data(), static_cast<int64_t>(b.host.size() * sizeof(float))),
           "fe_buffer_upload");
    return b;
}

Bound complex_part(const Bound &b, int part) {
    Bound out = b;
    out.type = FE_DATA_FLOAT;
    out.host.resize(static_cast<size_t>(b.span()));
    for (size_t e = 0; e < out.host.size(); ++e) out.host[e] = b.host[2 * e + static_cast<size_t>(part)];
    return out;
}

Bound &Case::input_values(fe_tensor *t, const std::vector<float> &values) {
    Bound &b = allocate(t);
    for (size_t i = 0; i < b.host.size() && i < values.size(); ++i) b.host[i] = round_to(b.type, values[i]);
    if (b.buffer) ok(fe_buffer_upload_float(b.buffer, b.host.data(), b.span(), b.type), "fe_buffer_upload_float");
    return b;
}

Bound &Case::input_int4(fe_tensor *t) {
    std::vector<int32_t> none;
    none.reserve(1);
    Bound &b = input_int32(t, none);
    std::vector<uint8_t> bytes((b.host.size() + 1) / 2, 0);
    for (size_t i = 0; i < b.host.size(); ++i) {
        const int v = static_cast<int>(rng.range(-8, 7));
        b.host[i] = static_cast<float>(v);
        bytes[i / 2] |= static_cast<uint8_t>((v & 0xF) << (i % 2 ? 4 : 0));
    }
    if (b.buffer) ok(fe_buffer_upload(b.buffer, bytes.data(), static_cast<int64_t>(bytes.size())), "fe_buffer_upload");
    return b;
}

Bound &Case::input_int8(fe_tensor *t, int64_t range) {
    std::vector<int32_t> none;
    none.reserve(1);  // data() must not be null for an upload of no bytes
    Bound &b = input_int32(t, none);
    std::vector<int8_t> bytes(b.host.size());
    for (size_t i = 0; i < bytes.size(); ++i) {
        bytes[i] = static_cast<int8_t>(rng.range(-range, range));
        b.host[i] = bytes[i];
    }
    if (b.buffer) ok(fe_buffer_upload(b.buffer, bytes.data(), static_cast<int64_t>(bytes.size())), "fe_buffer_upload");
    return b;
}

Bound &Case::input_int32(fe_tensor *t, const std::vector<int32_t> &values) {
    Bound &b = allocate(t);
    for (size_t i = 0; i < b.host.size() && i < values.size(); ++i) b.host[i] = static_cast<float>(values[i]);
    if (b.buffer)
        ok(fe_buffer_upload(b.buffer, values.data(), static_cast<int64_t>(values.size() * 4)), "fe_buffer_upload");
    return b;
}

Bound &Case::input_int64(fe_tensor *t, const std::vector<int64_t> &values) {
    Bound &b = allocate(t);
    for (size_t i = 0; i < b.host.size() && i < values.size(); ++i) b.host[i] = static_cast<float>(values[i]);
    if (b.buffer)
        ok(fe_buffer_upload(b.buffer, values.data(), static_cast<int64_t>(values.size() * 8)), "fe_buffer_upload");
    return b;
}

Bound &Case::output(fe_tensor *t) {
    Bound &b = allocate(t);
    b.is_output = true;
    if (b.buffer) ok(fe_buffer_fill_bytes(b.buffer, 0xFF), "fe_buffer_fill_bytes");
    return b;
}

// An output's memory as float: converted by the library for floating types, read as integers
// (int8, uint8, bool, int32, int64) here.
bool Case::download(Bound &b) {
    if (b.type == FE_DATA_COMPLEX_FP32)
        return ok(fe_buffer_download(b.buffer, b.host.data(), static_cast<int64_t>(b.host.size() * sizeof(float))),
                  "fe_buffer_download");
    if (fe_buffer_download_float(b.buffer, b.host.data(), b.span(), b.type) == FE_OK) return true;
    const size_t bytes = fe_data_type_size(b.type), n = b.host.size();
    if (bytes == 0) return ok(FE_STATUS_INVALID_ARGUMENT, "fe_buffer_download_float");
    std::vector<unsigned char> raw(n * bytes);
    if (!ok(fe_buffer_download(b.buffer, raw.data(), static_cast<int64_t>(raw.size())), "fe_buffer_download"))
        return false;
    for (size_t i = 0; i < n; ++i) {
        const unsigned char *p = raw.data() + i * bytes;
        switch (b.type) {
        case FE_DATA_INT8: b.host[i] = static_cast<float>(static_cast<int8_t>(*p)); break;
        case FE_DATA_UINT8:
        case FE_DATA_BOOLEAN: b.host[i] = static_cast<float>(*p); break;
        case FE_DATA_INT32: {
            int32_t v;
            std::memcpy(&v, p, 4);
            b.host[i] = static_cast<float>(v);
            break;
        }
        case FE_DATA_INT64: {
            int64_t v;
            std::memcpy(&v, p, 8);
            b.host[i] = static_cast<float>(v);
            break;
        }
        default: return ok(FE_STATUS_INVALID_ARGUMENT, "fe_buffer_download_float");
        }
    }
    return true;
}

bool Case::execute() {
    if (verdict_ == Verdict::error) return false;
    std::vector<fe_tensor *> tensors;
    std::vector<fe_buffer *> buffers;
    for (auto &b : bound_) {
        tensors.push_back(b->tensor);
        buffers.push_back(b->buffer);
    }
    int64_t bytes = 0;
    if (!ok(fe_graph_workspace_size(graph_, &bytes), "fe_graph_workspace_size")) return false;
    fe_buffer *workspace = nullptr;
    void *pointer = nullptr;
    if (bytes > 0) {
        int32_t device = 0;
        fe_handle_get_device(handle_, &device);
        // Poisoned: a plan that needs part of its workspace cleared must clear it itself.
        if (!ok(fe_buffer_create(device, bytes, &workspace), "fe_buffer_create (workspace)")) return false;
        fe_buffer_fill_bytes(workspace, 0xFF);
        fe_buffer_device_pointer(workspace, &pointer);
    }
    phase("executing");
    fe_status s = fe_graph_execute_buffers(graph_, handle_, tensors.data(), buffers.data(), tensors.size(), pointer);
    std::string message = s == FE_OK ? "" : fe_last_error_message();
    phase("waiting for the GPU");
    fe_status synced = fe_handle_synchronize(handle_);
    fe_buffer_destroy(workspace);
    if (s != FE_OK) {
        fail("fe_graph_execute_buffers: " + message);
        return false;
    }
    if (!ok(synced, "fe_handle_synchronize")) return false;
    phase("downloading the outputs");
    for (auto &b : bound_)
        if (b->is_output && !download(*b)) return false;
    phase("computing the reference");
    return true;
}

void Case::check(const char *what, const Bound &out, const std::vector<double> &ref, double atol, double rtol,
                 double max_norm, const std::vector<char> *defined) {
    check_sums(what, out, ref, {}, 0.0, atol, rtol, max_norm, defined);
}

void Case::check_sums(const char *what, const Bound &out, const std::vector<double> &ref,
                      const std::vector<double> &magnitudes, double eps, double atol, double rtol, double max_norm,
                      const std::vector<char> *defined) {
    if (verdict_ == Verdict::error) return;
    double diff2 = 0, ref2 = 0;
    int64_t count = 0, outside = 0, non_finite = 0, reference_non_finite = 0;
    std::string first;
    std::vector<int64_t> index(out.dims.size(), 0);
    for (size_t i = 0; i < ref.size(); ++i) {
        if (!defined || (*defined)[i]) {
            double got = out.at(index), want = ref[i];
            ++count;
            if (!std::isfinite(want)) {
                ++reference_non_finite;
            } else if (!std::isfinite(got)) {
                if (non_finite++ == 0 && first.empty())
                    first = "element " + std::to_string(i) + " is " + std::to_string(got);
            } else {
                double d = std::fabs(got - want);
                double slack = magnitudes.empty() ? 0.0 : eps * magnitudes[i];
                // An error within the rounding bound of the sum is no error, in the norm either.
                double excess = std::max(0.0, d - slack);
                diff2 += excess * excess;
                ref2 += want * want;
                if (d > atol + slack + rtol * std::fabs(want) && outside++ == 0 && first.empty())
                    first = "element " + std::to_string(i) + ": got " + std::to_string(got) + ", want " +
                            std::to_string(want);
            }
        }
        for (size_t d = index.size(); d-- > 0;) {
            if (++index[d] < out.dims[d]) break;
            index[d] = 0;
        }
    }
    // A non-finite reference compares with nothing: it would let any value pass.
    if (reference_non_finite > 0) {
        fail(std::string(what) + ": the reference has " + std::to_string(reference_non_finite) +
             " non-finite values where the output is defined");
        return;
    }
    // Relative to the reference, or to the absolute tolerance where the reference is smaller: the
    // relative error of a few values near zero (one log-sum-exp of a single key, say) says nothing
    // the element tolerance does not.
    const double floor2 = static_cast<double>(count) * atol * atol;
    const double scale2 = std::max(ref2, floor2);
    double norm = scale2 > 0 ? std::sqrt(diff2 / scale2) : std::sqrt(diff2);
    worst_norm_ = std::max(worst_norm_, norm);
    // A tiny fraction of elements (one in 2000, and one of a hundred or more) may exceed the element
    // tolerance (rounding at its edge), as the reference frontend's own comparisons allow; none may
    // be non-finite, and the relative norm bounds the whole.
    int64_t allowed = count / 2000 + (count >= 128 ? 1 : 0);
    bool bad = non_finite > 0 || outside > allowed || norm > max_norm;
    char text[512];
    std::snprintf(text, sizeof text, "%s: %lld of %lld outside, %lld non-finite, rel %.2e%s%s", what,
                  static_cast<long long>(outside), static_cast<long long>(count), static_cast<long long>(non_finite),
                  norm, first.empty() ? "" : "; first ", first.c_str());
    if (bad) {
        if (verdict_ != Verdict::wrong) detail_.clear();
        verdict_ = Verdict::wrong;
        detail_ += (detail_.empty() ? "" : " | ") + std::string(text);
    } else if (verdict_ == Verdict::right) {
        char brief[96];
        std::snprintf(brief, sizeof brief, "%s rel %.1e", what, norm);
        detail_ += (detail_.empty() ? "" : ", ") + std::string(brief);
    }
    checked_ = true;
}

}  // namespace conformance
