#!/usr/bin/python3
"""Errors of approximate marginals and log Z against exact ones (issue 29's
acceptance measures), for bench/approx_ref.sh and bench/approx_pome.py.

    approx_err.py EXACT ANSWER NET.uai.evid [ANSWER.PR]

EXACT is a file in daidrv's form (bench/approxref/daidrv.cpp): a first line
"logz L seconds T ...", then one line per variable with its marginal. ANSWER
is in the same form, or a UAI MAR answer (as `pbl uai --task MAR` prints
it), whose log Z comes from the UAI PR answer ANSWER.PR if given (as `pbl uai
--task PR` prints it). Prints one line: the mean and largest Hellinger
distance over the unobserved variables' marginals, |log10 Z - log10
Z_exact| (nan when the answer has no log Z), and the answer's seconds (nan
for a UAI answer).

The Hellinger distance of p and q is sqrt(1/2 sum_s (sqrt p_s - sqrt q_s)^2),
in [0, 1]; a marginal that is not a distribution (NaN, negative, not summing
to 1 within 1e-6) counts as 1.
"""
import math
import sys


def after_line(text, word):
    """Returns the tokens after the line that is word alone (lines before
    it, such as a label of the answer, are skipped), or None."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.strip() == word:
            return ' '.join(lines[i + 1:]).split()
    return None


def read_answer(path, pr=None):
    with open(path) as f:
        text = f.read()
    tok = after_line(text, 'MAR')
    if tok is not None:
        n, i, marg = int(tok[0]), 1, []
        for _ in range(n):
            k = int(tok[i])
            marg.append([float(x) for x in tok[i + 1:i + 1 + k]])
            i += 1 + k
        logz = float('nan')
        if pr:
            with open(pr) as g:
                t = after_line(g.read(), 'PR')
            logz = float(t[0]) * math.log(10)
        return logz, float('nan'), marg
    with open(path) as f:
        head = f.readline().split()
        info = dict(zip(head[0::2], head[1::2]))
        marg = [[float(x) for x in line.split()] for line in f if line.strip()]
    return float(info.get('logz', 'nan')), float(info.get('seconds', 'nan')), marg


def read_evidence(path):
    with open(path) as f:
        tok = [int(x) for x in f.read().split()]
    if not tok:
        return {}
    start = 1
    if len(tok) != 1 + 2 * tok[0] and len(tok) >= 2 and tok[0] == 1 and len(tok) == 2 + 2 * tok[1]:
        start = 2
    return {tok[i]: tok[i + 1] for i in range(start, len(tok) - 1, 2)}


def hellinger(p, q):
    if len(p) != len(q) or any(not (x >= 0) for x in q) or not abs(sum(q) - 1) <= 1e-6:
        return 1.0
    return math.sqrt(max(0.0, 0.5 * sum((math.sqrt(a) - math.sqrt(b)) ** 2 for a, b in zip(p, q))))


def errors(exact, answer, evid):
    """Returns (mean Hellinger, max Hellinger, |dlog10 Z|) of answer
    (logz, marg) against exact (logz, marg) over the variables not in evid."""
    lz0, m0 = exact
    lz, m = answer
    hs = [hellinger(m0[v], m[v]) for v in range(len(m0)) if v not in evid]
    dz = abs(lz - lz0) / math.log(10) if not math.isnan(lz) else float('nan')
    if not hs:
        return 0.0, 0.0, dz
    return sum(hs) / len(hs), max(hs), dz


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit('usage: approx_err.py EXACT ANSWER NET.uai.evid [ANSWER.PR]')
    lz0, _, m0 = read_answer(sys.argv[1])
    lz, secs, m = read_answer(sys.argv[2], sys.argv[4] if len(sys.argv) == 5 else None)
    mean, worst, dz = errors((lz0, m0), (lz, m), read_evidence(sys.argv[3]))
    print('%.3g %.3g %.3g %.2f' % (mean, worst, dz, secs))


if __name__ == '__main__':
    main()
