#!/usr/bin/env python3
"""MPE with pbl beside toulbar2, whole process, on the same networks and evidence.

    bench/mpe_toulbar2.py [--nets alarm,pigs,munin,link] [--sets 10] [--observed 5]
                          [--runs 3] [--seed 1] [--instructions] [--keep DIR]

For each network (corpus/bif/NET.bif or NET.bif.gz; the corpus is $PBL_CORPUS, else
../shared/corpus from the repository's root):

  1. `pbl convert NET.bif NET.uai` writes the UAI file toulbar2 reads;
  2. `pbl sample NET.bif -n SETS --seed SEED` draws rows from the network, and each
     evidence set observes OBSERVED variables (chosen with the seed) at their states in
     one row, so every evidence set has nonzero probability;
  3. each set is run RUNS times by each tool, and the best wall time is kept:
         pbl query --json NET.bif 'MPE(e)'        (pbl reads the BIF)
         toulbar2 NET.uai SET.evid -w=SOL          (toulbar2 reads the UAI)
  4. both assignments are scored here, independently of either tool, as
     ln P(x, e) = sum of ln(table entries) over the UAI file's tables; the script
     fails if pbl's is below toulbar2's by more than 1e-9 (toulbar2 rounds
     probabilities to 7 digits, so its assignment may be worse, never better).

With --instructions it also counts, with valgrind, the instructions of one more run of
each tool per set, a measure the machine's load does not disturb, and prints their medians
and ratio. It prints the load average at the start and at the end; per network, the
median over the sets of the best-of-RUNS times, the peak memory (the largest resident set
of one more run per set, by GNU time) and the ratio toulbar2/pbl (above 1 means pbl is
faster); and last the smallest ratio. toulbar2 is installed with
`apt-get install -y toulbar2` when missing. pbl is $PBL, else built from the repository
(go build ./cmd/pbl). Nothing is written into the repository.
"""
import argparse
import gzip
import json
import math
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def corpus():
    c = os.environ.get('PBL_CORPUS') or os.path.join(ROOT, '..', 'shared', 'corpus')
    if not os.path.isdir(os.path.join(c, 'bif')):
        sys.exit('no corpus at %s (set PBL_CORPUS)' % c)
    return c


def network(name):
    for ext in ('.bif', '.bif.gz'):
        p = os.path.join(corpus(), 'bif', name + ext)
        if os.path.exists(p):
            return p
    sys.exit('no network %s in %s/bif' % (name, corpus()))


def ensure_toulbar2():
    if shutil.which('toulbar2'):
        return
    print('installing toulbar2 (apt-get install -y toulbar2)', file=sys.stderr)
    subprocess.run(['apt-get', 'install', '-y', 'toulbar2'], check=True,
                   stdout=subprocess.DEVNULL)
    if not shutil.which('toulbar2'):
        sys.exit('toulbar2 is still missing')


def pbl_binary(work):
    if os.environ.get('PBL'):
        return os.environ['PBL']
    out = os.path.join(work, 'pbl')
    subprocess.run(['go', 'build', '-o', out, './cmd/pbl'], check=True, cwd=ROOT)
    return out


def run_best(argv, runs):
    """Runs argv runs times; returns the last output and the best wall time."""
    best, out = math.inf, None
    for _ in range(runs):
        t = time.perf_counter()
        p = subprocess.run(argv, capture_output=True, text=True)
        wall = time.perf_counter() - t
        if p.returncode != 0:
            sys.exit('%s failed (%d): %s' % (' '.join(argv), p.returncode, p.stderr[:2000]))
        best, out = min(best, wall), p.stdout
    return out, best


def peak_rss(argv):
    """The peak resident set of one more run of argv, in KiB, by GNU time (a child of
    python would inherit python's own peak in its ru_maxrss), or 0 without it."""
    if not os.path.exists('/usr/bin/time'):
        return 0
    with tempfile.NamedTemporaryFile('r') as f:
        subprocess.run(['/usr/bin/time', '-f', '%M', '-o', f.name] + argv,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        return int(f.read().split()[-1])


def instructions(argv):
    """Instructions executed by one run of argv (valgrind's cachegrind, no cache
    simulation): a measure that does not depend on the machine's load."""
    p = subprocess.run(['valgrind', '--tool=cachegrind', '--cache-sim=no',
                        '--cachegrind-out-file=/dev/null'] + argv,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    m = re.search(r'I\s+refs:\s+([\d,]+)', p.stderr)
    if p.returncode != 0 or not m:
        sys.exit('valgrind %s failed: %s' % (' '.join(argv), p.stderr[-2000:]))
    return int(m.group(1).replace(',', ''))


def bif_states(path):
    """The variables of a BIF file in declaration order, with their states."""
    op = gzip.open if path.endswith('.gz') else open
    with op(path, 'rt') as f:
        text = f.read()
    out = []
    for m in re.finditer(r'variable\s+("[^"]*"|[^\s{]+)\s*\{(.*?)\}\s*;?\s*\}', text, re.S):
        name = m.group(1).strip('"')
        body = m.group(2)
        s = re.search(r'\{(.*)', body, re.S)
        states = [x.strip().strip('"') for x in s.group(1).split(',')] if s else []
        out.append((name, [x for x in states if x]))
    return out


def read_uai(path):
    """The cardinalities and the tables (scope, values) of a UAI file."""
    with open(path) as f:
        tok = f.read().split()
    i = 1  # BAYES or MARKOV
    n = int(tok[i]); i += 1
    card = [int(x) for x in tok[i:i + n]]; i += n
    nf = int(tok[i]); i += 1
    scopes = []
    for _ in range(nf):
        k = int(tok[i]); i += 1
        scopes.append([int(x) for x in tok[i:i + k]]); i += k
    tables = []
    for s in scopes:
        k = int(tok[i]); i += 1
        tables.append((s, [float(x) for x in tok[i:i + k]])); i += k
    return card, tables


def log_joint(card, tables, x):
    """ln of the product of the tables at the full assignment x (-inf if 0)."""
    total = 0.0
    for scope, vals in tables:
        off = 0
        for v in scope:
            off = off * card[v] + x[v]
        p = vals[off]
        if p <= 0:
            return -math.inf
        total += math.log(p)
    return total


def quote(name):
    return name if re.fullmatch(r'[A-Za-z_][A-Za-z0-9_]*', name) else '"%s"' % name


def evidence_sets(pbl, bif, work, states, sets, observed, seed):
    csv = os.path.join(work, 'rows.csv')
    subprocess.run([pbl, 'sample', bif, '-n', str(sets), '--seed', str(seed), '-o', csv],
                   check=True, stdout=subprocess.DEVNULL)
    with open(csv) as f:
        lines = [l.rstrip('\n') for l in f if l.strip()]
    header = lines[0].split(',')
    if header != [n for n, _ in states]:
        sys.exit('%s: the sample\'s columns are not the BIF\'s variables in order' % bif)
    rng = random.Random(seed)
    out = []
    for row in lines[1:1 + sets]:
        cells = row.split(',')
        chosen = sorted(rng.sample(range(len(header)), min(observed, len(header))))
        out.append([(v, states[v][1].index(cells[v])) for v in chosen])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--nets', default='alarm,pigs,munin,link')
    ap.add_argument('--sets', type=int, default=10)
    ap.add_argument('--observed', type=int, default=5)
    ap.add_argument('--runs', type=int, default=3)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--instructions', action='store_true',
                    help='also count the instructions of one run of each (valgrind; slow)')
    ap.add_argument('--keep', help='keep the UAI, evidence, query and solution files in this folder')
    a = ap.parse_args()
    ensure_toulbar2()
    work = a.keep or tempfile.mkdtemp(prefix='pbl-mpe-')
    os.makedirs(work, exist_ok=True)
    pbl = pbl_binary(work)
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = float('nan')
    print('load average: %.2f; %d evidence sets of %d observed variables, best of %d runs each'
          % (load, a.sets, a.observed, a.runs))
    ratios = []
    for name in a.nets.split(','):
        bif = network(name)
        states = bif_states(bif)
        uai = os.path.join(work, name + '.uai')
        subprocess.run([pbl, 'convert', bif, uai], check=True, stdout=subprocess.DEVNULL)
        card, tables = read_uai(uai)
        if card != [len(s) for _, s in states]:
            sys.exit('%s: the UAI file\'s variables are not the BIF\'s in order' % name)
        index = {n: i for i, (n, _) in enumerate(states)}
        t_pbl, t_tb, m_pbl, m_tb, worst = [], [], 0, 0, math.inf
        i_pbl, i_tb = [], []
        for k, ev in enumerate(evidence_sets(pbl, bif, work, states, a.sets, a.observed, a.seed)):
            q = 'MPE(%s)' % ', '.join('%s=%s' % (quote(states[v][0]), quote(states[v][1][s])) for v, s in ev)
            with open(os.path.join(work, '%s.%d.query' % (name, k)), 'w') as f:
                f.write(q + '\n')
            argv = [pbl, 'query', '--json', bif, q]
            out, t = run_best(argv, a.runs)
            t_pbl.append(t)
            if a.instructions:
                i_pbl.append(instructions(argv))
            m_pbl = max(m_pbl, peak_rss(argv))
            res = json.loads(out.splitlines()[0])
            x = [None] * len(card)
            for v, s in ev:
                x[v] = s
            for n, st in res['assignment'].items():
                x[index[n]] = states[index[n]][1].index(st)
            if None in x:
                sys.exit('%s set %d: pbl left variables unassigned' % (name, k))
            lp_pbl = log_joint(card, tables, x)
            evid = os.path.join(work, '%s.%d.evid' % (name, k))
            with open(evid, 'w') as f:
                f.write('%d %s\n' % (len(ev), ' '.join('%d %d' % (v, s) for v, s in ev)))
            sol = os.path.join(work, '%s.%d.sol' % (name, k))
            argv = ['toulbar2', uai, evid, '-w=' + sol]
            _, t = run_best(argv, a.runs)
            t_tb.append(t)
            if a.instructions:
                i_tb.append(instructions(argv))
            m_tb = max(m_tb, peak_rss(argv))
            with open(sol) as f:
                y = [int(s) for s in f.read().split()]
            lp_tb = log_joint(card, tables, y)
            diff = lp_pbl - lp_tb
            worst = min(worst, diff)
            if not diff >= -1e-9:
                sys.exit('%s set %d: pbl ln P(x, e) = %.12g below toulbar2\'s %.12g' % (name, k, lp_pbl, lp_tb))
        mp, mt = statistics.median(t_pbl), statistics.median(t_tb)
        ratios.append(mt / mp)
        print('%-8s pbl %8.1f ms %6.1f MB   toulbar2 %8.1f ms %6.1f MB   ratio %.2f   '
              'ln P(x*,e) pbl - toulbar2 >= %.3g' % (name, mp * 1e3, m_pbl / 1024, mt * 1e3, m_tb / 1024,
                                                     mt / mp, worst))
        if a.instructions:
            ip, it = statistics.median(i_pbl), statistics.median(i_tb)
            print('%-8s instructions (median): pbl %.0fM   toulbar2 %.0fM   ratio %.2f'
                  % (name, ip / 1e6, it / 1e6, it / ip))
        sys.stdout.flush()
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)
    try:
        print('load average at the end: %.2f' % os.getloadavg()[0])
    except OSError:
        pass
    print('smallest ratio (toulbar2/pbl, above 1: pbl faster): %.2f' % min(ratios))


if __name__ == '__main__':
    main()
