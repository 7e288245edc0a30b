"""Generates data/fish.csv for examples/mixture_network.pbl (standard
library only; run from examples/data: python3 make_mixture_network.py).

Fish caught in two lakes: the lake (north or south) sets the shares of
three species, which is never recorded; each species has its own joint
normal distribution of length (cm) and weight (kg), and its own chances
of being silver or dark. The lake is missing in 10% of the rows, the
colour in 30%."""
import math
import random

rng = random.Random(7)
lakes = ['north', 'south']
p_lake = [0.45, 0.55]
p_species = {'north': [0.6, 0.3, 0.1], 'south': [0.1, 0.3, 0.6]}
# Species 1: small; 2: long and thin; 3: heavy.
mean = [(20.0, 0.5), (35.0, 1.0), (30.0, 2.5)]
sd = [(2.0, 0.1), (3.0, 0.2), (2.5, 0.3)]
rho = [0.7, 0.6, 0.5]
p_silver = [0.8, 0.5, 0.1]


def pick(p):
    u = rng.random()
    for i, x in enumerate(p):
        if u < x:
            return i
        u -= x
    return len(p) - 1


with open('fish.csv', 'w') as f:
    f.write('Lake,Colour,length,weight\n')
    for _ in range(1500):
        lake = lakes[pick(p_lake)]
        s = pick(p_species[lake])
        colour = 'silver' if rng.random() < p_silver[s] else 'dark'
        z1, z2 = rng.gauss(0, 1), rng.gauss(0, 1)
        length = mean[s][0] + sd[s][0] * z1
        weight = mean[s][1] + sd[s][1] * (rho[s] * z1 + math.sqrt(1 - rho[s] ** 2) * z2)
        if rng.random() < 0.1:
            lake = ''
        if rng.random() < 0.3:
            colour = ''
        f.write(f'{lake},{colour},{length:.2f},{weight:.3f}\n')
