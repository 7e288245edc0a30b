# One EM iteration, by hand in arbitrary precision (mpmath), for
# TestEMFarTails (emtail_test.go): a network Mode -> Check, Mode -> each
# real variable (a normal density per state of Mode), rows whose real
# values lie far in the tails (ln densities beyond float64's range apart).
# Prints, per case, the log-likelihood under the model and under the
# learned parameters, and the learned parameters.
import mpmath as mp

mp.mp.dps = 50
REG = mp.mpf('1e-6')  # learn.DefaultRegCovar


def lnorm(x, m, s):
    x, m, s = mp.mpf(x), mp.mpf(m), mp.mpf(s)
    return -((x - m) / s) ** 2 / 2 - mp.log(s) - mp.log(2 * mp.pi) / 2


def estep(pm, pc, dens, rows):
    """pm: P(Mode); pc[u]: P(Check | Mode=u); dens[j][u]: (mean, sd).
    rows: (mode, check, values...), '' or None for missing."""
    ll = mp.mpf(0)
    resp = []
    for row in rows:
        mode, check, vals = row[0], row[1], row[2:]
        lw = []
        for u in range(2):
            if mode is not None and mode != u:
                lw.append(None)
                continue
            w = mp.log(pm[u]) if pm[u] > 0 else None
            if w is not None and check is not None:
                w = w + mp.log(pc[u][check]) if pc[u][check] > 0 else None
            if w is not None:
                for j, x in enumerate(vals):
                    if x is not None:
                        w += lnorm(x, *dens[j][u])
            lw.append(w)
        top = max(w for w in lw if w is not None)
        z = top + mp.log(sum(mp.exp(w - top) for w in lw if w is not None))
        ll += z
        resp.append([mp.exp(w - z) if w is not None else mp.mpf(0) for w in lw])
    return ll, resp


def mstep(pc, rows, resp, nreal):
    n = len(rows)
    pm = [sum(r[u] for r in resp) / n for u in range(2)]
    cnt = [[mp.mpf(0)] * 2 for _ in range(2)]
    for row, r in zip(rows, resp):
        for u in range(2):
            for c in range(2):
                if row[1] is None:
                    cnt[u][c] += r[u] * pc[u][c]
                elif row[1] == c:
                    cnt[u][c] += r[u]
    npc = [[cnt[u][c] / sum(cnt[u]) for c in range(2)] for u in range(2)]
    dens = []
    for j in range(nreal):
        dj = []
        for u in range(2):
            w = sum(r[u] for row, r in zip(rows, resp) if row[2 + j] is not None)
            mean = sum(r[u] * mp.mpf(row[2 + j]) for row, r in zip(rows, resp) if row[2 + j] is not None) / w
            var = sum(r[u] * (mp.mpf(row[2 + j]) - mean) ** 2 for row, r in zip(rows, resp) if row[2 + j] is not None) / w
            dj.append((mean, mp.sqrt(var + REG)))
        dens.append(dj)
    return pm, npc, dens


def run(name, pm, pc, dens, rows):
    ll0, resp = estep(pm, pc, dens, rows)
    pm1, pc1, dens1 = mstep(pc, rows, resp, len(dens))
    ll1, _ = estep(pm1, pc1, dens1, rows)
    f = lambda x: mp.nstr(x, 17, min_fixed=-mp.inf, max_fixed=mp.inf) if abs(x) < 1e15 else mp.nstr(x, 17)
    print(name)
    print('  ll0', f(ll0), 'll1', f(ll1))
    print('  P(Mode)', f(pm1[0]), f(pm1[1]))
    print('  P(Check|Mode)', f(pc1[0][0]), f(pc1[0][1]), f(pc1[1][0]), f(pc1[1][1]))
    for j, dj in enumerate(dens1):
        print('  real', j, ' '.join('(%s, %s)' % (f(m), f(s)) for m, s in dj))


def rows(csv):
    """The rows of a CSV text as TestEMFarTails gives it."""
    states = [{'calibrated': 0, 'drifting': 1}, {'yes': 0, 'no': 1}]
    out = []
    for line in csv.strip().split('\n')[1:]:
        cells = line.split(',')
        out.append(tuple(states[k][c] if k < 2 and c else (c or None) for k, c in enumerate(cells)))
    return out


pm = [mp.mpf('0.9'), mp.mpf('0.1')]
pc = [[mp.mpf('0.7'), mp.mpf('0.3')], [mp.mpf(0), mp.mpf(1)]]
reading = [('0', '0.01'), ('0.5', '1')]
level = [('0', '1'), ('0.5', '0.01')]
run('forced', pm, pc, [reading], rows("Mode,Check,reading\n,yes,0.5\n,no,0.3\ncalibrated,,0.002\n,,0.02\ndrifting,no,0.7\n,yes,0.001\n,,0.5\n"))
run('two', pm, pc, [reading, level], rows("Mode,Check,reading,level\n,yes,0.5,0.0001\n,no,0.5,0.0001\n,,0.5,0.0001\n,,0.01,0.45\ncalibrated,,0.02,\n,yes,,0.3\ndrifting,no,0.6,0.49\n"))
run('every', pm, pc, [reading], rows("Mode,Check,reading\n,yes,1000\n,,-1000\n,no,3\n,,0.01\ncalibrated,,0.003\n"))
