"""Generates the data of examples/two_means.pbl, clusters.pbl and anomaly.pbl
(numpy; run from examples/data: /usr/bin/python3 make_mixtures.py)."""
import numpy as np
rng = np.random.default_rng(6)
# Mitchell's two means: a known standard deviation of 1, means 3 and 8.
z = rng.integers(2, size=200)
x = np.where(z == 0, 3.0, 8.0) + rng.normal(size=200)
np.savetxt('two_means.csv', x, header='x', comments='', fmt='%.4f')
# Three clusters in the plane, shares 0.5, 0.3, 0.2.
n = 600
z = rng.choice(3, size=n, p=[0.5, 0.3, 0.2])
means = np.array([[0, 0], [4, 1], [-2, 5]])
sd = np.array([[1, 0.5], [0.7, 1.2], [0.5, 0.5]])
X = means[z] + rng.normal(size=(n, 2)) * sd[z]
np.savetxt('points.csv', X, delimiter=',', header='x,y', comments='', fmt='%.4f')
# Servers: latency (ms) and throughput (MB/s), correlated; 1,000 normal rows.
n = 1000
cov = np.array([[4.0, 2.4], [2.4, 9.0]])
X = rng.multivariate_normal([20, 50], cov, size=n)
np.savetxt('servers.csv', X, delimiter=',', header='latency,throughput', comments='', fmt='%.3f')
# A labelled validation set: 300 normal rows and 15 anomalies.
Xn = rng.multivariate_normal([20, 50], cov, size=300)
Xa = np.column_stack([rng.uniform(5, 40, 20), rng.uniform(20, 80, 20)])
Xa = Xa[np.abs((Xa[:, 0] - 20) / 2) + np.abs((Xa[:, 1] - 50) / 3) > 4][:15]
V = np.vstack([Xn, Xa])
lab = np.array(['no'] * len(Xn) + ['yes'] * len(Xa))
idx = rng.permutation(len(V))
with open('servers_validation.csv', 'w') as f:
    f.write('latency,throughput,anomaly\n')
    for (a, b), l in zip(V[idx], lab[idx]):
        f.write('%.3f,%.3f,%s\n' % (a, b, l))
