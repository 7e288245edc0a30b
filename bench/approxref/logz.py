#!/usr/bin/python3
"""Exact ln Z of a UAI network, with and without its evidence: the reference
of P(e) for bench/approx_pe.sh, independent of pbl and of libDAI.

    logz.py NET.uai [NET.uai.evid] [--no-prior]

Prints one line: "logz_e L1 logz L0 log10_pe P seconds T width W", where L1
is ln Z(e) = ln sum over the assignments consistent with the evidence of the
product of the factors (the UAI competition's PR, times ln 10), L0 is ln Z
without evidence (0 for a Bayesian network, whose tables sum to 1; computed
for a Markov network unless --no-prior), and P = (L1 - L0) / ln 10 is
log10 P(e). W is the induced width of the elimination order used.

Variable elimination on numpy arrays: the evidence sliced out of every
factor, then the variables eliminated in greedy min-fill order (ties by
fewest neighbours, then lowest index) or in the file's order, whichever is
narrower (a grid's file order, row by row, is), each bucket's product formed by
numpy.einsum and summed over the variable; every intermediate table is
divided by its largest entry and the logarithm kept aside, so that
products of thousands of factors neither overflow nor underflow. It is
exact up to floating point; it needs memory for tables over the width
plus one variables (2^W doubles on a binary network): W = 26 needs about
1 GiB.
"""
import heapq
import math
import string
import sys
import time

import numpy as np

LETTERS = string.ascii_letters


def read_uai(path):
    with open(path) as f:
        tok = f.read().split()
    kind = tok[0]
    n = int(tok[1])
    card = [int(x) for x in tok[2:2 + n]]
    i = 2 + n
    nf = int(tok[i])
    i += 1
    scopes = []
    for _ in range(nf):
        k = int(tok[i])
        scopes.append(tuple(int(x) for x in tok[i + 1:i + 1 + k]))
        i += 1 + k
    tables = []
    for sc in scopes:
        k = int(tok[i])
        vals = np.array([float(x) for x in tok[i + 1:i + 1 + k]])
        i += 1 + k
        shape = tuple(card[v] for v in sc)
        tables.append(vals.reshape(shape) if sc else vals.reshape(()))
    return kind, card, list(zip(scopes, tables))


def read_evid(path):
    with open(path) as f:
        tok = [int(x) for x in f.read().split()]
    if not tok:
        return {}
    # "N v s v s ..." (the current format), or "1 N v s ..." (the old one,
    # one sample of evidence).
    if len(tok) == 2 * tok[0] + 1:
        tok = tok[1:]
    elif tok[0] == 1 and len(tok) == 2 * tok[1] + 2:
        tok = tok[2:]
    else:
        raise SystemExit(f"{path}: not an evidence file")
    return {tok[j]: tok[j + 1] for j in range(0, len(tok), 2)}


def restrict(factors, ev):
    out = []
    for sc, t in factors:
        idx = tuple(ev[v] if v in ev else slice(None) for v in sc)
        out.append((tuple(v for v in sc if v not in ev), np.asarray(t[idx], dtype=np.float64)))
    return out


def product(factors, out_vars):
    """The product of factors (each (scope, array)) summed onto out_vars."""
    factors = list(factors)
    while len(factors) > 30:
        chunk, factors = factors[:30], factors[30:]
        union = []
        for vs, _ in chunk:
            for x in vs:
                if x not in union:
                    union.append(x)
        factors.append((tuple(union), product(chunk, union)))
    allv = []
    for vs, _ in factors:
        for x in vs:
            if x not in allv:
                allv.append(x)
    assert len(allv) <= len(LETTERS), "a product over more than 52 variables"
    let = {x: LETTERS[i] for i, x in enumerate(allv)}
    spec = ",".join("".join(let[x] for x in vs) for vs, _ in factors) + "->" + "".join(let[x] for x in out_vars)
    return np.einsum(spec, *[a for _, a in factors], optimize=True)


def min_fill_order(n, scopes, alive):
    """Greedy min-fill over the interaction graph of the variables alive."""
    nb = {v: set() for v in range(n) if alive[v]}
    for sc in scopes:
        for a in sc:
            nb[a].update(x for x in sc if x != a)

    def fill(v):
        ns = list(nb[v])
        f = 0
        for i, a in enumerate(ns):
            na = nb[a]
            for b in ns[i + 1:]:
                if b not in na:
                    f += 1
        return f

    heap = [(fill(v), len(nb[v]), v) for v in nb]
    heapq.heapify(heap)
    score = {v: (s, d) for s, d, v in heap}
    order, width = [], 0
    done = set()
    while heap:
        s, d, v = heapq.heappop(heap)
        if v in done or score[v] != (s, d):
            continue
        done.add(v)
        order.append(v)
        ns = list(nb[v])
        width = max(width, len(ns))
        for a in ns:
            nb[a].discard(v)
            nb[a].update(x for x in ns if x != a)
        touched = set(ns)
        for a in ns:
            touched.update(nb[a])
        for a in touched:
            if a not in done:
                score[a] = (fill(a), len(nb[a]))
                heapq.heappush(heap, (score[a][0], score[a][1], a))
        del nb[v]
    return order, width


def order_width(n, scopes, alive, order):
    """The induced width of eliminating the variables alive in order."""
    nb = {v: set() for v in range(n) if alive[v]}
    for sc in scopes:
        for a in sc:
            nb[a].update(x for x in sc if x != a)
    width = 0
    for v in order:
        ns = nb.pop(v)
        width = max(width, len(ns))
        for a in ns:
            nb[a].discard(v)
            nb[a].update(x for x in ns if x != a)
    return width


def best_order(n, scopes, alive):
    """The narrower of greedy min-fill and the file's own order (which is
    a grid's row by row: width n on an n x n grid, where greedy min-fill
    may reach 1.5 n)."""
    order, width = min_fill_order(n, scopes, alive)
    own = [v for v in range(n) if alive[v]]
    w = order_width(n, scopes, alive, own)
    if w < width:
        return own, w
    return order, width


def log_z(card, factors, ev):
    """ln of the sum of the product of factors over the assignments
    consistent with ev, and the induced width of the order used."""
    fs = restrict(factors, ev)
    logscale = 0.0
    alive = [v not in ev for v in range(len(card))]
    order, width = best_order(len(card), [sc for sc, _ in fs], alive)
    bucket_of = {}
    pending = []
    for sc, t in fs:
        pending.append((sc, t))
    # Scale each factor by its largest entry.
    scaled = []
    for sc, t in pending:
        m = float(np.max(t)) if t.size else 0.0
        if m == 0.0:
            return -math.inf, width
        scaled.append((sc, t / m))
        logscale += math.log(m)
    pos = {v: i for i, v in enumerate(order)}
    buckets = [[] for _ in order]
    constant = []
    for sc, t in scaled:
        if not sc:
            constant.append(float(t))
            continue
        buckets[min(pos[v] for v in sc)].append((sc, t))
    for i, v in enumerate(order):
        b = buckets[i]
        if not b:
            continue  # a variable in no factor: its states sum
        union = []
        for sc, _ in b:
            for x in sc:
                if x not in union:
                    union.append(x)
        out = tuple(x for x in union if x != v)
        t = product(b, out)
        m = float(np.max(t))
        if m == 0.0:
            return -math.inf, width
        t = t / m
        logscale += math.log(m)
        if not out:
            constant.append(float(t))
            continue
        buckets[min(pos[x] for x in out)].append((out, t))
    # Variables in no factor at all (unobserved) multiply Z by their states.
    inscope = set()
    for sc, _ in fs:
        inscope.update(sc)
    for v in range(len(card)):
        if alive[v] and v not in inscope:
            logscale += math.log(card[v])
    for c in constant:
        if c <= 0:
            return -math.inf, width
        logscale += math.log(c)
    return logscale, width


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    no_prior = "--no-prior" in sys.argv
    if not args:
        raise SystemExit(__doc__)
    start = time.time()
    kind, card, factors = read_uai(args[0])
    ev = read_evid(args[1]) if len(args) > 1 else {}
    l1, w1 = log_z(card, factors, ev)
    l0, w0 = 0.0, 0
    if kind.upper() == "MARKOV" and not no_prior:
        l0, w0 = log_z(card, factors, {})
    pe = (l1 - l0) / math.log(10) if not no_prior or kind.upper() != "MARKOV" else float("nan")
    print(f"logz_e {l1!r} logz {l0!r} log10_pe {pe!r} seconds {time.time() - start:.2f} width {max(w0, w1)}")


if __name__ == "__main__":
    main()
