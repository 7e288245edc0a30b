// daidrv runs one libDAI inference method on a UAI network with evidence
// and writes its answer: the reference of bench/approx_ref.sh. It is not
// part of pbl's build; build it against a built libDAI (see
// bench/approx_ref.sh):
//
//	g++ -O2 -I$LIBDAI/include -DDAI_WITH_BP -DDAI_WITH_HAK -DDAI_WITH_GIBBS \
//	    -DDAI_WITH_TREEEP -DDAI_WITH_JTREE -DDAI_WITH_TRWBP \
//	    -o $LIBDAI/daidrv daidrv.cpp -L$LIBDAI/lib -ldai -lgmpxx -lgmp
//
// Usage: daidrv NET.uai NET.uai.evid METHOD SECONDS OUT
//
// METHOD is JTREE (exact), BP (loopy BP, residual schedule), BPD (loopy BP,
// damped 0.5), HAK (generalised BP, double loop, clusters of the loops of
// length ≤ 4), GIBBS or TREEEP; SECONDS bounds the method's run (libDAI's
// maxtime; construction is not bounded, but it is timed). The evidence is
// applied by slicing the factors (see main), so log Z is ln P(e) for a
// Bayesian network.
// OUT receives a first line "logz L seconds T" (L is nan where the method
// has no estimate, as Gibbs) and then one line per variable with its
// marginal, in the file's variable order.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <vector>
#include <dai/alldai.h>
#include <dai/io.h>

using namespace dai;
using namespace std;

// readEvidence reads a UAI evidence file in the 2014 form ("n v1 s1 ...")
// or the 2010 form ("1 n v1 s1 ...").
static vector<pair<size_t, size_t>> readEvidence(const char *path) {
    ifstream in(path);
    vector<long> tok;
    long x;
    while (in >> x) tok.push_back(x);
    vector<pair<size_t, size_t>> ev;
    if (tok.empty()) return ev;
    size_t start = 1;
    if (tok.size() != 1 + 2 * (size_t)tok[0]) {
        if (tok.size() >= 2 && tok[0] == 1 && tok.size() == 2 + 2 * (size_t)tok[1]) start = 2;
        else { cerr << "daidrv: cannot read evidence " << path << endl; exit(1); }
    }
    for (size_t i = start; i + 1 < tok.size(); i += 2) ev.push_back({(size_t)tok[i], (size_t)tok[i + 1]});
    return ev;
}

int main(int argc, char *argv[]) {
    if (argc != 6) {
        cerr << "usage: daidrv NET.uai NET.uai.evid METHOD SECONDS OUT" << endl;
        return 2;
    }
    string method = argv[3];
    double secs = atof(argv[4]);
    auto t0 = chrono::steady_clock::now();
    vector<Var> vars;
    vector<Factor> facs;
    vector<Permute> perms;
    ReadUaiAieFactorGraphFile(argv[1], 0, vars, facs, perms);
    // Evidence: each factor is sliced at the observed states (the
    // observed variables leave every scope, which lowers the junction
    // tree's width), the constant factors left are multiplied into the
    // first factor, and each observed variable gets a delta factor (so its
    // belief is a point mass and log Z is ln P(e)).
    auto ev = readEvidence(argv[2]);
    for (auto &f : facs)
        for (auto &e : ev)
            if (f.vars() >> vars[e.first]) f = f.slice(vars[e.first], e.second);
    Real konst = 1;
    vector<Factor> kept;
    for (auto &f : facs) {
        if (f.vars().size() == 0) konst *= f[0];
        else kept.push_back(f);
    }
    if (kept.empty()) kept.push_back(Factor(VarSet(), konst));
    else kept.front() *= konst;
    facs = kept;
    for (auto &e : ev) facs.push_back(createFactorDelta(vars[e.first], e.second));
    FactorGraph fg(facs.begin(), facs.end(), vars.begin(), vars.end(), facs.size(), vars.size());

    PropertySet opts;
    opts.set("verbose", (size_t)0);
    InfAlg *ia = nullptr;
    auto t1 = chrono::steady_clock::now();
    if (method == "JTREE") {
        ia = new JTree(fg, opts("updates", string("HUGIN")));
    } else if (method == "BP" || method == "BPD") {
        opts.set("updates", string("SEQMAX"));
        opts.set("logdomain", false);
        opts.set("tol", (Real)1e-9);
        opts.set("maxiter", (size_t)100000000);
        opts.set("maxtime", secs);
        opts.set("damping", (Real)(method == "BPD" ? 0.5 : 0.0));
        ia = new BP(fg, opts);
    } else if (method == "HAK") {
        opts.set("clusters", string("LOOP"));
        opts.set("loopdepth", (size_t)4);
        opts.set("doubleloop", true);
        opts.set("init", string("UNIFORM"));
        opts.set("tol", (Real)1e-9);
        opts.set("maxiter", (size_t)100000000);
        opts.set("maxtime", secs);
        ia = new HAK(fg, opts);
    } else if (method == "GIBBS") {
        opts.set("maxiter", (size_t)2000000000);
        opts.set("maxtime", secs);
        opts.set("burnin", (size_t)100);
        opts.set("restart", (size_t)2000000000);
        ia = new Gibbs(fg, opts);
    } else if (method == "TREEEP") {
        opts.set("type", string("ORG"));
        opts.set("tol", (Real)1e-9);
        opts.set("maxiter", (size_t)100000000);
        opts.set("maxtime", secs);
        ia = new TreeEP(fg, opts);
    } else {
        cerr << "daidrv: unknown method " << method << endl;
        return 2;
    }
    ia->init();
    ia->run();
    auto t2 = chrono::steady_clock::now();
    double logz = NAN;
    try {
        logz = ia->logZ();
    } catch (Exception &) {
    }
    FILE *out = fopen(argv[5], "w");
    if (!out) { cerr << "daidrv: cannot write " << argv[5] << endl; return 1; }
    fprintf(out, "logz %.17g seconds %.3f build %.3f\n", logz,
            chrono::duration<double>(t2 - t0).count(), chrono::duration<double>(t1 - t0).count());
    for (size_t i = 0; i < fg.nrVars(); i++) {
        Factor b = ia->beliefV(i);
        for (size_t s = 0; s < b.nrStates(); s++) fprintf(out, s ? " %.17g" : "%.17g", (double)b[s]);
        fprintf(out, "\n");
    }
    fclose(out);
    delete ia;
    return 0;
}
