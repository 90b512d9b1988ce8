// cudnnfe_conformance: randomized conformance runs, one line per case.
//
//   cudnnfe_conformance [--family NAME[,NAME...]] [--seed S] [--count N] [--case I[,I...]]
//                       [--deviceless] [--threads T] [--slow SECONDS] [--deadline SECONDS]
//                       [--summary FILE]
//   cudnnfe_conformance --probe ENTRY[,ENTRY...]|all [--seed S] [--summary FILE] [--probe-timeout SECONDS]
//
// On a GPU each case is built, executed on fresh random inputs with its outputs poisoned, and
// compared with a reference in double on the CPU. With --deviceless (or with no GPU) each case
// is validated, read back from its JSON and support-checked against the device description in
// CUDNNFE_DEVICE_JSON. A case reruns alone with the seed, family and index its line shows.
// --probe runs the capability table's probes (probes.hpp), each in a process of its own.
// Exit status: 0 when no case is wrong or an error, 1 otherwise, 2 on bad arguments.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "harness.hpp"
#include "plan_round_trip.hpp"
#include "probes.hpp"

using namespace conformance;

namespace {

struct Options {
    std::vector<std::string> families;
    uint64_t seed = 0;
    bool seed_given = false;
    int64_t count = -1;
    std::vector<int64_t> only_cases;
    bool deviceless = false;
    int threads = 1;
    int64_t slow_seconds = 60;  // a case still running after this long is named as it runs
    int64_t deadline_seconds = 0;
    int64_t probe_timeout_seconds = 300;  // a probe with no result by then has hung  // > 0: report what finished by then, and the rest as unfinished
    std::string summary;
    std::string probe, probe_one;
};

int usage(const char *why) {
    std::fprintf(stderr, "cudnnfe_conformance: %s\nusage: cudnnfe_conformance [--family NAME[,NAME...]] [--seed S] "
                         "[--count N] [--case I[,I...]] [--deviceless] [--threads T] [--slow SECONDS] [--deadline SECONDS] "
                         "[--summary FILE]\n"
                         "       cudnnfe_conformance --probe ENTRY[,ENTRY...]|all [--seed S] [--summary FILE] [--probe-timeout SECONDS]\nfamilies:",
                 why);
    for (const Family &f : families()) std::fprintf(stderr, " %s", f.name);
    std::fprintf(stderr, "\n");
    return 2;
}

bool parse_int(const char *text, int64_t &out) {
    char *end = nullptr;
    long long v = std::strtoll(text, &end, 10);
    if (!end || *end || end == text) return false;
    out = v;
    return true;
}

// A refusal's reason with its numbers blanked, so that one reason groups across shapes.
std::string reason_group(const std::string &reason) {
    std::string out;
    bool in_number = false;
    for (char c : reason) {
        bool digit = c >= '0' && c <= '9';
        if (digit && !in_number) out += 'N';
        if (!digit) out += c;
        in_number = digit;
    }
    return out.size() > 240 ? out.substr(0, 240) + "..." : out;
}

std::string device_json_text() {
    const char *path = std::getenv("CUDNNFE_DEVICE_JSON");
    if (!path) return "";
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// After an error on a GPU: whether the device still runs work (a kernel that faulted loses the
// process's CUDA context, and every later case would fail for it).
bool device_alive(fe_handle *handle) {
    int32_t device = 0;
    fe_handle_get_device(handle, &device);
    fe_buffer *b = nullptr;
    bool alive = fe_buffer_create(device, 256, &b) == FE_OK && fe_buffer_fill_bytes(b, 0) == FE_OK &&
                 fe_handle_synchronize(handle) == FE_OK;
    fe_buffer_destroy(b);
    return alive;
}

struct Tally {
    std::map<Verdict, int64_t> verdicts;
    std::map<std::string, int64_t> refusals;
    double worst_norm = 0;
};

}  // namespace

int main(int argc, char **argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto value = [&](const char *name) -> const char * {
            if (i + 1 >= argc) return nullptr;
            (void)name;
            return argv[++i];
        };
        int64_t n = 0;
        if (a == "--family") {
            const char *v = value("--family");
            if (!v) return usage("--family needs a name");
            std::stringstream list(v);
            std::string name;
            while (std::getline(list, name, ',')) o.families.push_back(name);
        } else if (a == "--seed") {
            const char *v = value("--seed");
            if (!v || !parse_int(v, n)) return usage("--seed needs a number");
            o.seed = static_cast<uint64_t>(n);
            o.seed_given = true;
        } else if (a == "--count") {
            const char *v = value("--count");
            if (!v || !parse_int(v, n) || n < 0) return usage("--count needs a number >= 0");
            o.count = n;
        } else if (a == "--case") {
            const char *v = value("--case");
            if (!v) return usage("--case needs case numbers");
            std::stringstream list(v);
            for (std::string item; std::getline(list, item, ',');) {
                if (!parse_int(item.c_str(), n) || n < 0) return usage("--case needs numbers >= 0, comma-separated");
                o.only_cases.push_back(n);
            }
        } else if (a == "--slow") {
            const char *v = value("--slow");
            if (!v || !parse_int(v, n) || n < 1) return usage("--slow needs a number of seconds, 1 or more");
            o.slow_seconds = n;
        } else if (a == "--deadline") {
            const char *v = value("--deadline");
            if (!v || !parse_int(v, n) || n < 1) return usage("--deadline needs a number of seconds, 1 or more");
            o.deadline_seconds = n;
        } else if (a == "--threads") {
            const char *v = value("--threads");
            if (!v || !parse_int(v, n) || n < 1 || n > 256) return usage("--threads needs 1 to 256");
            o.threads = static_cast<int>(n);
        } else if (a == "--summary") {
            const char *v = value("--summary");
            if (!v) return usage("--summary needs a file");
            o.summary = v;
        } else if (a == "--probe-timeout") {
            const char *v = value("--probe-timeout");
            if (!v || !parse_int(v, n) || n < 1) return usage("--probe-timeout needs a number of seconds, 1 or more");
            o.probe_timeout_seconds = n;
        } else if (a == "--probe" || a == "--probe-one") {
            const char *v = value("--probe");
            if (!v) return usage("--probe needs a capability entry's name, or all");
            (a == "--probe" ? o.probe : o.probe_one) = v;
        } else if (a == "--deviceless") {
            o.deviceless = true;
        } else {
            return usage(("unknown argument " + a).c_str());
        }
    }
    std::vector<const Family *> chosen;
    for (const Family &f : families())
        if (o.families.empty() || std::find(o.families.begin(), o.families.end(), f.name) != o.families.end())
            chosen.push_back(&f);
    for (const std::string &name : o.families) {
        bool known = false;
        for (const Family &f : families()) known = known || name == f.name;
        if (!known) return usage(("unknown family " + name).c_str());
    }
    if (!o.seed_given)
        o.seed = static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch().count()) % 1000000007ull;

    if (!o.probe_one.empty()) return run_one_probe(o.probe_one, o.seed);
    if (!o.probe.empty()) return run_probes(o.probe, o.seed, o.summary, o.probe_timeout_seconds);

    int64_t version = 0;
    if (fe_cudnn_version(&version) != FE_OK) {
        std::printf("skipped: cuDNN is not loadable here: %s\n", fe_last_error_message());
        return 0;
    }
    int32_t devices = 0;
    if (!o.deviceless && (fe_device_count(&devices) != FE_OK || devices < 1)) {
        std::printf("no CUDA GPU here: running deviceless\n");
        o.deviceless = true;
    }
    std::string json;
    if (o.deviceless) {
        json = device_json_text();
        if (json.empty()) {
            std::printf("skipped: no device description (set CUDNNFE_DEVICE_JSON)\n");
            return 0;
        }
    }
    std::printf("conformance: seed %llu, cuDNN %lld, %s, %d thread%s\n", static_cast<unsigned long long>(o.seed),
                static_cast<long long>(version),
                o.deviceless ? "deviceless (described GPU)" : (std::to_string(devices) + " GPU(s)").c_str(), o.threads,
                o.threads == 1 ? "" : "s");

    struct Work {
        const Family *family;
        int64_t index;
    };
    std::vector<Work> work;
    for (const Family *f : chosen) {
        if (!o.only_cases.empty()) {
            for (int64_t i : o.only_cases) work.push_back({f, i});
            continue;
        }
        int64_t count = o.count >= 0 ? o.count : f->default_count;
        for (int64_t i = 0; i < count; ++i) work.push_back({f, i});
    }

    std::mutex lock;
    std::map<std::string, Tally> tallies;
    std::atomic<size_t> next{0};
    bool context_lost = false;
    const std::string *device = o.deviceless ? &json : nullptr;
    // What each worker is running, for the monitor below: a case that never finishes (a kernel
    // that hangs) is named while the run is still going, so a run stopped from outside says which.
    using Clock = std::chrono::steady_clock;
    struct Running {
        const Work *job = nullptr;
        Clock::time_point since;
        bool reported = false;
    };
    std::vector<Running> running(static_cast<size_t>(o.threads));
    std::vector<std::atomic<const char *>> phases(static_cast<size_t>(o.threads));
    for (auto &p : phases) p = "starting";
    auto doing = [&](size_t worker) { return std::string(" (") + phases[worker].load() + ")"; };
    // Workers take the GPUs in turn, each with a handle of its own.
    auto worker = [&](int index) {
        watch_phase(&phases[static_cast<size_t>(index)]);
        fe_handle *handle = nullptr;
        if (!o.deviceless && fe_handle_create(index % std::max(devices, 1), &handle) != FE_OK) {
            std::lock_guard<std::mutex> g(lock);
            std::printf("fe_handle_create: %s\n", fe_last_error_message());
            return;
        }
        for (size_t w; (w = next++) < work.size();) {
            const Work &job = work[w];
            {
                std::lock_guard<std::mutex> g(lock);
                running[static_cast<size_t>(index)] = {&job, Clock::now(), false};
            }
            Case c(job.family->name, o.seed, job.index, handle, device);
            job.family->run(c);
            bool lost = handle && c.verdict() == Verdict::error && !device_alive(handle);
            std::lock_guard<std::mutex> g(lock);
            running[static_cast<size_t>(index)].job = nullptr;
            if (lost) {
                std::printf("the CUDA context is lost after %s case %lld: stopping (the cases not run are not "
                            "counted)\n",
                            job.family->name, static_cast<long long>(job.index));
                next = work.size();
                context_lost = true;
            }
            Tally &t = tallies[job.family->name];
            ++t.verdicts[c.verdict()];
            if (c.verdict() == Verdict::refused) ++t.refusals[reason_group(c.detail())];
            t.worst_norm = std::max(t.worst_norm, c.worst_norm());
            std::printf("%s case=%lld %s => %s %s\n", job.family->name, static_cast<long long>(job.index),
                        c.config().c_str(), verdict_name(c.verdict()), c.detail().c_str());
            if (c.verdict() == Verdict::wrong || c.verdict() == Verdict::error)
                std::printf("    rerun: cudnnfe_conformance --family %s --seed %llu --case %lld%s\n", job.family->name,
                            static_cast<unsigned long long>(o.seed), static_cast<long long>(job.index),
                            o.deviceless ? " --deviceless" : "");
            std::fflush(stdout);
        }
        fe_handle_destroy(handle);
    };
    // The tallies as a table (and the summary file). At a deadline, `unfinished` names the cases
    // still running and `not_started` counts those never begun. Called with `lock` held or after
    // the workers are done.
    auto report = [&](const std::vector<std::string> &unfinished, size_t not_started) -> int {
        int64_t bad = 0;
        std::ostringstream md;
        md << "| family | cases | right | supported (deviceless) | refused | wrong | error | worst relative norm |\n"
              "|---|---|---|---|---|---|---|---|\n";
        for (const Family *f : chosen) {
            Tally &t = tallies[f->name];
            int64_t total = 0;
            for (auto &kv : t.verdicts) total += kv.second;
            bad += t.verdicts[Verdict::wrong] + t.verdicts[Verdict::error];
            char row[256];
            std::snprintf(row, sizeof row, "| %s | %lld | %lld | %lld | %lld | %lld | %lld | %.2e |\n", f->name,
                          static_cast<long long>(total), static_cast<long long>(t.verdicts[Verdict::right]),
                          static_cast<long long>(t.verdicts[Verdict::supported]),
                          static_cast<long long>(t.verdicts[Verdict::refused]),
                          static_cast<long long>(t.verdicts[Verdict::wrong]),
                          static_cast<long long>(t.verdicts[Verdict::error]), t.worst_norm);
            md << row;
        }
        md << "\nRefusals by reason (numbers shown as N):\n\n| family | cases | reason |\n|---|---|---|\n";
        for (const Family *f : chosen)
            for (auto &kv : tallies[f->name].refusals) {
                std::string reason = kv.first;
                for (char &ch : reason)
                    if (ch == '|' || ch == '\n') ch = '/';
                md << "| " << f->name << " | " << kv.second << " | " << reason << " |\n";
            }
        std::printf("\n%s", md.str().c_str());
        if (!o.summary.empty()) {
            std::ofstream out(o.summary);
            out << "seed " << o.seed << ", cuDNN " << version
                << (o.deviceless ? std::string(", deviceless") : ", " + std::to_string(devices) + " GPU(s)") << "\n\n"
                << md.str();
        }
        std::printf("%lld wrong or error%s\n", static_cast<long long>(bad), context_lost ? " (the run stopped early)" : "");
        const int64_t unloaded = plans_not_loaded_back();
        if (unloaded > 0) std::printf("%lld plans did not load back (PLAN ROUND TRIP FAILED above)\n", static_cast<long long>(unloaded));
        if (o.deadline_seconds > 0 && (!unfinished.empty() || not_started > 0)) {
            std::string names;
            for (const std::string &u : unfinished) names += (names.empty() ? "" : ", ") + u;
            const std::string line = std::to_string(unfinished.size()) + " cases running at the deadline (" +
                                     std::to_string(o.deadline_seconds) + " s), unfinished: " +
                                     (names.empty() ? "none" : names) + "; " + std::to_string(not_started) +
                                     " cases not started";
            std::printf("%s\n", line.c_str());
            if (!o.summary.empty()) std::ofstream(o.summary, std::ios::app) << "\n" << line << "\n";
            return 3;
        }
        return bad == 0 && !context_lost && unloaded == 0 ? 0 : 1;
    };
    std::atomic<bool> finished{false};
    const Clock::time_point started = Clock::now();
    std::thread monitor([&] {
        while (!finished) {
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
            std::lock_guard<std::mutex> g(lock);
            if (o.deadline_seconds > 0 && Clock::now() - started >= std::chrono::seconds(o.deadline_seconds)) {
                // A kernel that never returns cannot be stopped from here: report what finished
                // and leave, the workers still waiting on the lock held here.
                std::vector<std::string> unfinished;
                for (size_t i = 0; i < running.size(); ++i)
                    if (running[i].job)
                        unfinished.push_back(std::string(running[i].job->family->name) + " " +
                                             std::to_string(running[i].job->index) + doing(i));
                const int code = report(unfinished, work.size() - std::min(next.load(), work.size()));
                std::fflush(stdout);
                std::_Exit(code);
            }
            for (size_t i = 0; i < running.size(); ++i) {
                Running &r = running[i];
                if (!r.job || r.reported || Clock::now() - r.since < std::chrono::seconds(o.slow_seconds)) continue;
                r.reported = true;
                std::printf("SLOW %s case=%lld: still running after %lld s%s (rerun: cudnnfe_conformance --family %s "
                            "--seed %llu --case %lld)\n",
                            r.job->family->name, static_cast<long long>(r.job->index),
                            static_cast<long long>(o.slow_seconds), doing(i).c_str(), r.job->family->name,
                            static_cast<unsigned long long>(o.seed), static_cast<long long>(r.job->index));
                std::fflush(stdout);
            }
        }
    });
    std::vector<std::thread> pool;
    for (int t = 0; t < o.threads; ++t) pool.emplace_back(worker, t);
    for (std::thread &t : pool) t.join();
    finished = true;
    monitor.join();

    return report({}, 0);
}
