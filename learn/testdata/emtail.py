# One EM iteration, by hand in arbitrary precision (mpmath), for
# TestEMFarTails (emtail_test.go): tiny networks (Mode -> Check, Mode ->
# each real variable, a normal density per configuration of its
# parents) and rows whose real values lie far in the tails (ln densities
# beyond float64's range apart). Prints, per case, the log-likelihood
# under the model and under the learned parameters, then the learned
# tables and densities (mean, sd per configuration), in the test's order.
import itertools

import mpmath as mp

mp.mp.dps = 50
REG = mp.mpf('1e-6')  # learn.DefaultRegCovar


def lnorm(x, m, s):
    x, m, s = mp.mpf(x), mp.mpf(m), mp.mpf(s)
    return -((x - m) / s) ** 2 / 2 - mp.log(s) - mp.log(2 * mp.pi) / 2


def general(name, discrete, cpts, dens, csv):
    """One EM iteration on any tiny network: discrete = [(name, states)],
    cpts[name] = (parents, {parent states tuple: [p per state]}),
    dens[name] = (parents, {parent states tuple: (mean, sd)}); csv as
    TestEMFarTails gives it. Prints the log-likelihoods, then each table
    and density in declaration order."""
    lines = csv.strip().split('\n')
    cols = lines[0].split(',')
    rows = [dict(zip(cols, l.split(','))) for l in lines[1:]]
    names = [n for n, _ in discrete]
    assigns = [dict(zip(names, a)) for a in itertools.product(*[s for _, s in discrete])]

    def estep(cpts, dens):
        ll, post = mp.mpf(0), []
        for row in rows:
            lw = []
            for a in assigns:
                if any(row.get(n) and row[n] != a[n] for n in names):
                    lw.append(None)
                    continue
                w = mp.mpf(0)
                for n, (pa, t) in cpts.items():
                    p = t[tuple(a[q] for q in pa)][[s for m, ss in discrete if m == n for s in ss].index(a[n])]
                    if p == 0:
                        w = None
                        break
                    w += mp.log(p)
                if w is not None:
                    for n, (pa, t) in dens.items():
                        if row.get(n):
                            w += lnorm(row[n], *t[tuple(a[q] for q in pa)])
                lw.append(w)
            top = max(w for w in lw if w is not None)
            z = top + mp.log(sum(mp.exp(w - top) for w in lw if w is not None))
            ll += z
            post.append([mp.exp(w - z) if w is not None else mp.mpf(0) for w in lw])
        return ll, post

    ll0, post = estep(cpts, dens)
    ncpts, ndens = {}, {}
    for n, (pa, t) in cpts.items():
        states = [ss for m, ss in discrete if m == n][0]
        nt = {}
        for cfg in t:
            c = [sum(r[i] for r in post for i, a in enumerate(assigns) if tuple(a[q] for q in pa) == cfg and a[n] == s) for s in states]
            nt[cfg] = [x / sum(c) for x in c]
        ncpts[n] = (pa, nt)
    for n, (pa, t) in dens.items():
        nt = {}
        for cfg in t:
            ws = [(sum(r[i] for i, a in enumerate(assigns) if tuple(a[q] for q in pa) == cfg), mp.mpf(row[n])) for row, r in zip(rows, post) if row.get(n)]
            w = sum(x for x, _ in ws)
            mean = sum(x * v for x, v in ws) / w
            var = sum(x * (v - mean) ** 2 for x, v in ws) / w
            nt[cfg] = (mean, mp.sqrt(var + REG))
        ndens[n] = (pa, nt)
    ll1, _ = estep(ncpts, ndens)
    f = lambda x: mp.nstr(x, 17, min_fixed=-mp.inf, max_fixed=mp.inf)
    print(name)
    print('  ', ', '.join(f(x) for x in [ll0, ll1]))
    for n, (pa, t) in ncpts.items():
        print('  ', ', '.join(f(x) for cfg in t for x in t[cfg]))
    for n, (pa, t) in ndens.items():
        print('  ', ', '.join(f(x) for cfg in t for x in t[cfg]))


C, D, L, H = 'calibrated', 'drifting', 'lo', 'hi'
P = lambda *xs: [mp.mpf(x) for x in xs]
mode = {'Mode': ((), {(): P('0.9', '0.1')}), 'Check': (('Mode',), {(C,): P('0.7', '0.3'), (D,): P(0, 1)})}
reading = {'reading': (('Mode',), {(C,): ('0', '0.01'), (D,): ('0.5', '1')})}
sensor = [('Mode', [C, D]), ('Check', ['yes', 'no'])]
general('forced by a child', sensor, mode, reading,
        "Mode,Check,reading\n,yes,0.5\n,no,0.3\ncalibrated,,0.002\n,,0.02\ndrifting,no,0.7\n,yes,0.001\n,,0.5\n")
general('two readings', sensor, mode, {**reading, 'level': (('Mode',), {(C,): ('0', '1'), (D,): ('0.5', '0.01')})},
        "Mode,Check,reading,level\n,yes,0.5,0.0001\n,no,0.5,0.0001\n,,0.5,0.0001\n,,0.01,0.45\ncalibrated,,0.02,\n,yes,,0.3\ndrifting,no,0.6,0.49\n")
# reading given Mode, level given Mode and Other: far rows weighed
# together over Mode and Other, in level's slot.
general("a density's parents holding the others'", [('Mode', [C, D]), ('Other', [L, H]), ('Check', ['yes', 'no'])],
        {'Mode': mode['Mode'], 'Other': ((), {(): P('0.6', '0.4')}), 'Check': mode['Check']},
        {**reading, 'level': (('Mode', 'Other'), {(C, L): ('0', '1'), (C, H): ('0.2', '1'), (D, L): ('0.5', '0.01'), (D, H): ('0.5', '0.02')})},
        "Mode,Other,Check,reading,level\n,,,0.5,0.0001\n,,yes,0.5,0.0001\n,lo,no,0.5,0.0001\n,,,0.01,0.45\ncalibrated,hi,,0.02,0.1\n,hi,yes,,0.3\ndrifting,,no,0.6,0.49\n")
general('far from every component', sensor, mode, reading,
        "Mode,Check,reading\n,yes,1000\n,,-1000\n,no,3\n,,0.01\ncalibrated,,0.003\n")
