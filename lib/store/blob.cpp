#include "store/blob.hpp"

#include <cstring>

#include "common/error.hpp"

namespace fe {

namespace {

constexpr char kMagic[8] = {'C', 'U', 'D', 'N', 'N', 'F', 'E', '\0'};

enum SectionTag : uint32_t {
    kFingerprint = 0x46505254,  // "FPRT"
    kDeviceJson = 0x44455649,   // "DEVI"
    kGraphJson = 0x47525048,    // "GRPH"
    kBuildOptions = 0x4F505453, // "OPTS"
    kPlanJson = 0x504C414E,     // "PLAN"
    kLayout = 0x4C41594F,       // "LAYO"
};

class Writer {
  public:
    void u32(uint32_t v) { for (int i = 0; i < 4; ++i) out.push_back(static_cast<unsigned char>(v >> (8 * i))); }
    void u64(uint64_t v) { for (int i = 0; i < 8; ++i) out.push_back(static_cast<unsigned char>(v >> (8 * i))); }
    void i64(int64_t v) { u64(static_cast<uint64_t>(v)); }
    void f64(double v) { uint64_t b; std::memcpy(&b, &v, 8); u64(b); }
    void bytes(const void *p, size_t n) { auto c = static_cast<const unsigned char *>(p); out.insert(out.end(), c, c + n); }
    void str(const std::string &s) { u64(s.size()); bytes(s.data(), s.size()); }
    void section(uint32_t tag, const std::vector<unsigned char> &body) { u32(tag); u64(body.size()); bytes(body.data(), body.size()); }
    void section(uint32_t tag, const std::string &body) { u32(tag); str(body); }
    std::vector<unsigned char> out;
};

class Reader {
  public:
    Reader(const unsigned char *p, size_t n, const char *what) : p_(p), left_(n), what_(what) {}
    void need(size_t n) const {
        FE_CHECK(n <= left_, FE_STATUS_INVALID_ARGUMENT, "the serialized graph is truncated (%s needs %zu more bytes, %zu left)",
                 what_, n, left_);
    }
    uint32_t u32() { need(4); uint32_t v = 0; for (int i = 0; i < 4; ++i) v |= uint32_t(p_[i]) << (8 * i); advance(4); return v; }
    uint64_t u64() { need(8); uint64_t v = 0; for (int i = 0; i < 8; ++i) v |= uint64_t(p_[i]) << (8 * i); advance(8); return v; }
    int64_t i64() { return static_cast<int64_t>(u64()); }
    double f64() { uint64_t b = u64(); double v; std::memcpy(&v, &b, 8); return v; }
    std::string str() { uint64_t n = u64(); need(n); std::string s(reinterpret_cast<const char *>(p_), n); advance(n); return s; }
    Reader sub(uint64_t n, const char *what) { need(n); Reader r(p_, n, what); advance(n); return r; }
    void copy(void *dst, size_t n) { need(n); std::memcpy(dst, p_, n); advance(n); }
    size_t left() const { return left_; }
    // A count read from the input, bounded by the bytes that its elements need.
    size_t count(size_t element_bytes) {
        uint64_t n = u64();
        FE_CHECK(n <= left_ / element_bytes, FE_STATUS_INVALID_ARGUMENT,
                 "the serialized graph is corrupted (%s claims %llu elements in %zu bytes)", what_,
                 static_cast<unsigned long long>(n), left_);
        return static_cast<size_t>(n);
    }

  private:
    void advance(size_t n) { p_ += n; left_ -= n; }
    const unsigned char *p_;
    size_t left_;
    const char *what_;
};

// A recorded size in [0, FE_SERIALIZED_MAX_WORKSPACE_BYTES): execution would allocate it.
void check_workspace_bound(int64_t bytes, const char *what) {
    FE_CHECK(bytes >= 0 && bytes < FE_SERIALIZED_MAX_WORKSPACE_BYTES, FE_STATUS_INVALID_ARGUMENT,
             "the serialized graph is corrupted (it records %s of %lld bytes; the bound is 0 to %lld)", what,
             static_cast<long long>(bytes), static_cast<long long>(FE_SERIALIZED_MAX_WORKSPACE_BYTES));
}

std::vector<unsigned char> write_layout(const PlanRecord &r) {
    Writer w;
    w.i64(r.workspace);
    w.i64(r.engine_index);
    w.str(r.tag);
    w.u64(r.by_value_uids.size());
    for (int64_t uid : r.by_value_uids) w.i64(uid);
    w.u64(r.internal_scalars.size());
    for (const InternalScalar &s : r.internal_scalars) { w.i64(s.uid); w.bytes(s.bytes, sizeof s.bytes); }
    w.u64(r.workspace_tensors.size());
    for (const WorkspaceTensor &t : r.workspace_tensors) { w.i64(t.uid); w.i64(t.offset); w.i64(t.bytes); w.u32(t.zero_before_run); }
    w.i64(r.workspace_tensor_bytes);
    w.u64(r.attention.size());
    for (const auto &a : r.attention) { w.str(a.first); w.u32(a.second); }
    w.u32(r.autotuned);
    w.f64(r.time_us);
    w.i64(r.candidates);
    w.i64(r.viable);
    // Appended in format 1 without a version change: a layout that ends here has no slices.
    w.u64(r.slice_views.size());
    for (const SliceView &v : r.slice_views) { w.i64(v.uid); w.i64(v.source_uid); w.i64(v.byte_offset); }
    return w.out;
}

void read_layout(Reader r, PlanRecord &out) {
    out.workspace = r.i64();
    out.engine_index = r.i64();
    out.tag = r.str();
    for (size_t n = r.count(8); n > 0; --n) out.by_value_uids.push_back(r.i64());
    for (size_t n = r.count(16); n > 0; --n) {
        InternalScalar s;
        s.uid = r.i64();
        r.copy(s.bytes, sizeof s.bytes);
        out.internal_scalars.push_back(s);
    }
    for (size_t n = r.count(28); n > 0; --n) {
        WorkspaceTensor t;
        t.uid = r.i64();
        t.offset = r.i64();
        t.bytes = r.i64();
        t.zero_before_run = r.u32() != 0;
        out.workspace_tensors.push_back(t);
    }
    out.workspace_tensor_bytes = r.i64();
    for (size_t n = r.count(12); n > 0; --n) {
        std::string name = r.str();
        bool native = r.u32() != 0;
        out.attention.emplace_back(std::move(name), native);
    }
    out.autotuned = r.u32() != 0;
    out.time_us = r.f64();
    out.candidates = r.i64();
    out.viable = r.i64();
    if (r.left() > 0)
        for (size_t n = r.count(24); n > 0; --n) {
            SliceView v;
            v.uid = r.i64();
            v.source_uid = r.i64();
            v.byte_offset = r.i64();
            FE_CHECK(v.byte_offset >= 0, FE_STATUS_INVALID_ARGUMENT,
                     "the serialized graph is corrupted (a negative slice offset)");
            out.slice_views.push_back(v);
        }
    check_workspace_bound(out.workspace, "a workspace");
    check_workspace_bound(out.workspace_tensor_bytes, "workspace tensors");
    for (const WorkspaceTensor &t : out.workspace_tensors)
        FE_CHECK(t.offset >= 0 && t.bytes >= 0 && t.offset <= out.workspace_tensor_bytes &&
                     t.bytes <= out.workspace_tensor_bytes - t.offset,
                 FE_STATUS_INVALID_ARGUMENT, "the serialized graph is corrupted (a workspace tensor out of bounds)");
}

}  // namespace

uint64_t fnv1a64(const void *data, size_t size, uint64_t seed) {
    uint64_t h = seed;
    auto p = static_cast<const unsigned char *>(data);
    for (size_t i = 0; i < size; ++i) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h;
}

std::vector<unsigned char> write_blob(const Blob &blob) {
    Writer w;
    w.bytes(kMagic, sizeof kMagic);
    w.u32(blob.format);
    w.u32(blob.library_version);
    w.u64(blob.cudnn_version);
    w.section(kFingerprint, blob.fingerprint);
    w.section(kDeviceJson, blob.device_json);
    w.section(kGraphJson, blob.graph_json);
    w.section(kBuildOptions, blob.build_options);
    w.section(kPlanJson, blob.plan_json);
    w.section(kLayout, write_layout(blob.record));
    w.u64(fnv1a64(w.out.data(), w.out.size()));
    return w.out;
}

// The most each section may hold. Reading a section costs time and memory in proportion to its
// size (the plan is parsed twice: checked, then by cuDNN), and these are far above what any build
// writes (plans of composite attention are under 100 KB), so a larger one is refused unread.
uint64_t section_limit(uint32_t tag) {
    switch (tag) {
        case kFingerprint: return uint64_t(4) << 10;
        case kDeviceJson: return uint64_t(1) << 20;
        case kGraphJson: return FE_GRAPH_JSON_MAX_BYTES;
        case kBuildOptions: return uint64_t(64) << 10;
        case kPlanJson: return FE_SERIALIZED_MAX_PLAN_BYTES;
        case kLayout: return uint64_t(16) << 20;
        default: return uint64_t(1) << 20;  // a section a later format added, skipped
    }
}

const char *section_name(uint32_t tag) {
    switch (tag) {
        case kFingerprint: return "fingerprint";
        case kDeviceJson: return "device";
        case kGraphJson: return "graph";
        case kBuildOptions: return "build options";
        case kPlanJson: return "plan";
        case kLayout: return "layout";
        default: return "unknown";
    }
}

Blob read_blob(const unsigned char *data, size_t size) {
    FE_CHECK(size >= sizeof kMagic && std::memcmp(data, kMagic, sizeof kMagic) == 0, FE_STATUS_INVALID_ARGUMENT,
             "the bytes are not a serialized cudnnfe graph (no CUDNNFE magic)");
    FE_CHECK(size >= sizeof kMagic + 16 + 8, FE_STATUS_INVALID_ARGUMENT, "the serialized graph is truncated (%zu bytes)",
             size);
    Reader header(data + sizeof kMagic, size - sizeof kMagic, "the header");
    Blob blob;
    blob.format = header.u32();
    FE_CHECK(blob.format == kBlobFormat, FE_STATUS_NOT_SUPPORTED,
             "the serialized graph has format version %u; this cudnnfe reads version %u", blob.format, kBlobFormat);
    uint64_t stored = 0;
    for (int i = 0; i < 8; ++i) stored |= uint64_t(data[size - 8 + i]) << (8 * i);
    FE_CHECK(stored == fnv1a64(data, size - 8), FE_STATUS_INVALID_ARGUMENT,
             "the serialized graph is corrupted or truncated (checksum mismatch over %zu bytes)", size);
    blob.library_version = header.u32();
    blob.cudnn_version = header.u64();
    Reader body(data + sizeof kMagic + 16, size - sizeof kMagic - 16 - 8, "a section");
    bool have_graph = false, have_plan = false, have_layout = false;
    while (body.left() > 0) {
        uint32_t tag = body.u32();
        uint64_t length = body.u64();
        FE_CHECK(length <= section_limit(tag), FE_STATUS_INVALID_ARGUMENT,
                 "the serialized graph's %s section is %llu bytes, over the %llu it may hold", section_name(tag),
                 static_cast<unsigned long long>(length), static_cast<unsigned long long>(section_limit(tag)));
        body.need(length);
        Reader section = body.sub(length, "a section");
        auto text = [&] {
            std::string s(static_cast<size_t>(length), '\0');
            section.copy(&s[0], s.size());
            return s;
        };
        switch (tag) {
            case kFingerprint: blob.fingerprint = text(); break;
            case kDeviceJson: blob.device_json = text(); break;
            case kGraphJson: blob.graph_json = text(); have_graph = true; break;
            case kBuildOptions: blob.build_options = text(); break;
            case kPlanJson: blob.plan_json = text(); have_plan = true; break;
            case kLayout: read_layout(section, blob.record); have_layout = true; break;
            default: break;  // a section a later format added
        }
    }
    FE_CHECK(have_graph && have_plan && have_layout, FE_STATUS_INVALID_ARGUMENT,
             "the serialized graph lacks its %s section", !have_graph ? "graph" : !have_plan ? "plan" : "layout");
    return blob;
}

}  // namespace fe
