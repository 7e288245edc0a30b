#!/usr/bin/python3
"""Exact ln Z and ln Z(e) of a UAI Markov network whose factors each span a
window of consecutive variable indices (a grid written row by row: window n),
by a transfer-matrix sweep: the reference of P(e) for bench/approx_pe.sh
where logz.py's variable elimination runs out of memory (a 25×25 grid).

    gridz.py NET.uai [NET.uai.evid]

Prints one line in logz.py's format: "logz_e L1 logz L0 log10_pe P seconds
T width W" (ln Z(e), ln Z, log10 P(e) = (L1 - L0) / ln 10, W the window).

The sweep adds the variables in index order to one table over the live
window: variable k's axis is appended, every factor whose last variable is
k is multiplied in place (broadcast over the window), an observed k is
sliced at its state, and each variable no later factor names is summed
out. The table is divided by its largest entry after each step and the
logarithm kept aside. It is independent of pbl and of logz.py (no
elimination order, no einsum); it needs 2^(W+1) doubles: 512 MiB for a
25×25 grid. A factor wider than the window is refused.
"""
import math
import sys
import time

import numpy as np


def read_uai(path):
    tok = open(path).read().split()
    pos = 0

    def nxt():
        nonlocal pos
        pos += 1
        return tok[pos - 1]

    kind = nxt()
    if kind != "MARKOV" and kind != "BAYES":
        raise SystemExit(f"{path}: {kind}: want MARKOV or BAYES")
    n = int(nxt())
    card = [int(nxt()) for _ in range(n)]
    nf = int(nxt())
    scopes = []
    for _ in range(nf):
        k = int(nxt())
        scopes.append([int(nxt()) for _ in range(k)])
    tables = []
    for s in scopes:
        cnt = int(nxt())
        vals = np.array([float(nxt()) for _ in range(cnt)])
        shape = [card[v] for v in s]
        if cnt != int(np.prod(shape)):
            raise SystemExit(f"{path}: a table of {cnt} entries for a scope of {shape}")
        tables.append(vals.reshape(shape))
    return card, scopes, tables


def read_evid(path):
    tok = open(path).read().split()
    k = int(tok[0])
    return {int(tok[1 + 2 * i]): int(tok[2 + 2 * i]) for i in range(k)}


def logz(card, scopes, tables, evid):
    n = len(card)
    last = list(range(n))  # the last step that needs variable j
    byend = [[] for _ in range(n)]
    width = 0
    for f, s in enumerate(scopes):
        if not s:
            continue
        e = max(s)
        byend[e].append(f)
        width = max(width, e - min(s))
        for v in s:
            last[v] = max(last[v], e)
    phi = np.ones(())
    axes = []  # the variables of phi's axes, in order
    lz = 0.0
    for k in range(n):
        if k not in evid:
            phi = np.multiply.outer(phi, np.ones(card[k]))
            axes.append(k)
        for f in byend[k]:
            s, t = scopes[f], tables[f]
            # Slice the factor at the observed variables, then order its
            # axes as phi's and broadcast.
            idx = tuple(evid[v] if v in evid else slice(None) for v in s)
            t = t[idx]
            free = [v for v in s if v not in evid]
            order = sorted(range(len(free)), key=lambda i: axes.index(free[i]))
            t = np.transpose(t, order)
            shape = [1] * len(axes)
            for i in order:
                shape[axes.index(free[i])] = card[free[i]]
            phi *= t.reshape(shape)
        for v in [v for v in axes if last[v] <= k]:
            i = axes.index(v)
            phi = phi.sum(axis=i)
            axes.pop(i)
        m = phi.max()
        if not m > 0:
            raise SystemExit("Z(e) = 0")
        phi = phi / m
        lz += math.log(m)
    return lz + math.log(float(np.sum(phi))), width


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    start = time.time()
    card, scopes, tables = read_uai(sys.argv[1])
    evid = read_evid(sys.argv[2]) if len(sys.argv) > 2 else {}
    lze, w = logz(card, scopes, tables, evid)
    lz, _ = logz(card, scopes, tables, {})
    print(f"logz_e {lze!r} logz {lz!r} log10_pe {(lze - lz) / math.log(10)!r} seconds {time.time() - start:.2f} width {w}")


if __name__ == "__main__":
    main()
