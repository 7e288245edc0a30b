"""Generates the data of examples/line_fit.pbl, sigmoid_unit.pbl and
mdl_degree.pbl (numpy; run from examples/data: /usr/bin/python3 make_spaces.py)."""
import numpy as np
rng = np.random.default_rng(13)
# Mitchell's Figure 6.2: d = w0 + w1*x + e, e ~ N(0, 1); w0 = 1.3, w1 = 0.7.
n = 1000
x = rng.uniform(-5, 5, size=n)
d = 1.3 + 0.7 * x + rng.normal(size=n)
np.savetxt('line_fit.csv', np.c_[x, d], delimiter=',', header='x,d', comments='', fmt='%.4f')
# A sigmoid unit (Mitchell §6.5): d = 1 with probability sigmoid(-1 + 2x).
n = 200
x = rng.uniform(-3, 3, size=n)
d = (rng.uniform(size=n) < 1 / (1 + np.exp(-(-1 + 2 * x)))).astype(int)
np.savetxt('sigmoid.csv', np.c_[x, d], delimiter=',', header='x,d', comments='', fmt=['%.4f', '%d'])
# MDL's polynomial degree: a line, d = 0.5 + 0.8x + N(0, 1), 40 points.
n = 40
x = rng.uniform(-2, 2, size=n)
d = 0.5 + 0.8 * x + rng.normal(size=n)
np.savetxt('degree.csv', np.c_[x, d], delimiter=',', header='x,d', comments='', fmt='%.4f')
