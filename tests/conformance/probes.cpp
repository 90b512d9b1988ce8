#include "probes.hpp"

#include "families.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace conformance {

const std::vector<Probe> &probes() {
    static const std::vector<Probe> all = [] {
        std::vector<Probe> p;
        register_attention_probes(p);
        register_conv_probes(p);
        register_matmul_probes(p);
        register_norm_probes(p);
        register_pointwise_probes(p);
        register_replay_probes(p);
        return p;
    }();
    return all;
}

Probe replay(const char *feature, const char *family, uint64_t seed, int64_t index) {
    Probe p{feature, std::string(family) + " case " + std::to_string(index) + " of seed " + std::to_string(seed),
            nullptr, family, seed, index};
    p.run = [family](Case &k) {
        for (const Family &f : families())
            if (k.family == f.name) return f.run(k);
        k.fail(std::string("no conformance family ") + family);
    };
    return p;
}

namespace {

const Probe *find_probe(const std::string &name) {
    for (const Probe &p : probes())
        if (name == p.feature) return &p;
    return nullptr;
}

// What a probe's case came to, in the words of the results table.
std::string outcome(const Case &c) {
    switch (c.verdict()) {
    case Verdict::right: return "right: " + c.detail();
    case Verdict::wrong: return "wrong values: " + c.detail();
    case Verdict::error: return "fault: " + c.detail();
    case Verdict::supported: return "supported (deviceless)";
    case Verdict::refused:
        if (c.detail().find("refused with cuDNN") != std::string::npos)
            return "still refused by the table (the bypass did not reach it): " + c.detail();
        return "no engine: " + c.detail();
    }
    return "?";
}

std::string one_line(std::string text) {
    for (char &ch : text)
        if (ch == '\n' || ch == '|') ch = ch == '|' ? '/' : ' ';
    return text;
}

}  // namespace

int run_one_probe(const std::string &name, uint64_t seed) {
    const Probe *p = find_probe(name);
    if (!p) {
        std::printf("probe %s => unknown probe\n", name.c_str());
        return 2;
    }
    // Without a GPU the probe's graph is checked as the deviceless suite checks a case
    // (validation, JSON, support for the described GPU): its code can be tried anywhere.
    fe_handle *handle = nullptr;
    std::string json;
    int32_t devices = 0;
    if (fe_device_count(&devices) != FE_OK || devices < 1) {
        const char *path = std::getenv("CUDNNFE_DEVICE_JSON");
        std::ifstream in(path ? path : "");
        std::stringstream text;
        text << in.rdbuf();
        json = text.str();
        if (json.empty()) {
            std::printf("probe %s: no GPU and no device description (CUDNNFE_DEVICE_JSON) => skipped\n", name.c_str());
            return 1;
        }
    } else if (fe_handle_create(0, &handle) != FE_OK) {
        std::printf("probe %s: => fault: fe_handle_create: %s\n", name.c_str(), fe_last_error_message());
        return 1;
    }
    std::string text;
    {
        Case c(p->family ? std::string(p->family) : "probe_" + name, p->family ? p->seed : seed, p->index, handle,
               json.empty() ? nullptr : &json);
        p->run(c);
        text = c.config() + " => " + outcome(c);
    }
    fe_handle_destroy(handle);
    std::printf("probe %s: %s\n", name.c_str(), one_line(text).c_str());
    return 0;
}

int run_probes(const std::string &names, uint64_t seed, const std::string &summary, int64_t timeout_seconds) {
    std::vector<const Probe *> chosen;
    if (names == "all") {
        for (const Probe &p : probes()) chosen.push_back(&p);
    } else {
        std::stringstream list(names);
        std::string name;
        while (std::getline(list, name, ',')) {
            const Probe *p = find_probe(name);
            if (!p) {
                std::fprintf(stderr, "cudnnfe_conformance: unknown probe %s\n", name.c_str());
                return 2;
            }
            chosen.push_back(p);
        }
    }
    int32_t devices = 0;
    if (fe_device_count(&devices) != FE_OK || devices < 1) {
        std::printf("skipped: the probes run on a GPU, and there is none here\n");
        return 0;
    }
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return 2;
    self[n] = '\0';
    std::ostringstream md;
    md << "| entry | what the probe runs | what this cuDNN does |\n|---|---|---|\n";
    for (const Probe *p : chosen) {
        // A child per probe, the entry's refusal lifted there; a fault or a hang ends only it.
        // "entry:variant" probes the entry's other forms: the bypass names the entry.
        const std::string entry = std::string(p->feature).substr(0, std::string(p->feature).find(':'));
        const std::string bypass = entry + (p->also_bypass ? std::string(",") + p->also_bypass : std::string());
        const std::string timeout = std::to_string(timeout_seconds);
        std::string command = "CUDNNFE_PROBE_BYPASS=" + bypass + " timeout " + timeout + " '" + self +
                              "' --probe-one " + p->feature + " --seed " + std::to_string(seed) + " 2>&1";
        FILE *pipe = popen(command.c_str(), "r");
        std::string output;
        char buf[4096];
        while (pipe && fgets(buf, sizeof buf, pipe)) output += buf;
        int status = pipe ? pclose(pipe) : -1;
        std::string line, runs = p->runs;
        size_t at = output.rfind("probe " + std::string(p->feature) + ": ");
        if (at != std::string::npos) {
            line = output.substr(at);
            line = line.substr(0, line.find('\n'));
            line = line.substr(line.find(": ") + 2);
            // A replay's configuration is drawn by the case: the table shows it.
            if (p->family) runs += ": " + line.substr(0, line.find(" => "));
            line = line.substr(line.find(" => ") + 4);
        } else if (WIFEXITED(status) && WEXITSTATUS(status) == 124) {
            line = "hang: no result in " + timeout + " s";
        } else {
            std::string tail = output.size() > 300 ? output.substr(output.size() - 300) : output;
            line = "fault: the process ended (status " + std::to_string(status) + ") with: " + one_line(tail);
        }
        std::printf("probe %s => %s\n", p->feature, line.c_str());
        std::fflush(stdout);
        md << "| `" << p->feature << "` | " << one_line(runs) << " | " << one_line(line) << " |\n";
    }
    std::printf("\n%s", md.str().c_str());
    if (!summary.empty()) std::ofstream(summary) << md.str();
    return 0;
}

}  // namespace conformance
