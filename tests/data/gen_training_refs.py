#!/usr/bin/python3
"""Generates tests/data/training_refs.json: loss curves of the training samples, from PyTorch.

Each sample (samples/mlp_train.ks, mlp_momentum.ks, mlp_adam.ks) is written again here in PyTorch
(Debian's python3-torch, 1.13, float32, one thread). Parameters and the random inputs of run seed 0
are drawn with Kernelscope's documented generator (docs/program-format.md, "The random generator"),
reimplemented below, so both sides start from the same numbers; nothing comes from Kernelscope.

    /usr/bin/python3 tests/data/gen_training_refs.py

The file maps a sample name to {"steps": N, "loss": [loss before step 1, ..., before step N]}
(the loss output of each `run --steps` step, which reads the params the step starts from).
"""
import json
import math
import os

os.environ["OPENBLAS_NUM_THREADS"] = "1"
import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

torch.set_num_threads(1)
M = (1 << 64) - 1


class Random:
    """SplitMix64-seeded xoshiro256**, uniform doubles and Box-Muller normals in pairs."""

    def __init__(self, seed):
        self.s = []
        x = seed & M
        for _ in range(4):
            x = (x + 0x9E3779B97F4A7C15) & M
            z = x
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
            self.s.append(z ^ (z >> 31))
        self.spare = None

    @staticmethod
    def rotl(x, k):
        return ((x << k) | (x >> (64 - k))) & M

    def next(self):
        s = self.s
        result = (self.rotl((s[1] * 5) & M, 7) * 9) & M
        t = (s[1] << 17) & M
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = self.rotl(s[3], 45)
        return result

    def uniform(self):
        return (self.next() >> 11) * 2.0 ** -53

    def normal(self, mean, std):
        if self.spare is not None:
            z, self.spare = self.spare, None
            return mean + std * z
        u1 = self.uniform()
        while u1 <= 0.0:
            u1 = self.uniform()
        u2 = self.uniform()
        r, t = math.sqrt(-2.0 * math.log(u1)), 2.0 * math.pi * u2
        self.spare = r * math.sin(t)
        return mean + std * r * math.cos(t)


def normal(shape, std, seed):
    rng = Random(seed)
    n = int(np.prod(shape))
    return torch.tensor(np.array([rng.normal(0.0, std) for _ in range(n)], dtype=np.float32).reshape(shape))


def zeros(shape):
    return torch.zeros(shape, dtype=torch.float32)


def float_input(k, shape, run_seed=0):
    rng = Random(run_seed * 1000003 + k)
    n = int(np.prod(shape))
    return torch.tensor(np.array([-1.0 + 2.0 * rng.uniform() for _ in range(n)], dtype=np.float32).reshape(shape))


def int_input(k, shape, run_seed=0):
    rng = Random(run_seed * 1000003 + k)
    return torch.tensor([rng.next() % 10 for _ in range(int(np.prod(shape)))], dtype=torch.int64).reshape(shape)


def sgd_mlp(steps):
    x, y = float_input(0, [64, 784]), int_input(1, [64])
    p = [normal([784, 512], 0.05, 1), zeros([512]), normal([512, 512], 0.044, 2), zeros([512]),
         normal([512, 10], 0.044, 3), zeros([10])]
    losses = []
    for _ in range(steps):
        p = [q.detach().requires_grad_() for q in p]
        h1 = F.relu(x @ p[0] + p[1])
        h2 = F.relu(h1 @ p[2] + p[3])
        loss = F.cross_entropy(h2 @ p[4] + p[5], y)
        g = torch.autograd.grad(loss, p)
        losses.append(loss.item())
        p = [q - 0.1 * gq for q, gq in zip(p, g)]
    return losses


def momentum_mlp(steps):
    x, y = float_input(0, [16, 32]), int_input(1, [16])
    p = [normal([32, 64], 0.18, 11), zeros([64]), normal([64, 10], 0.125, 12), zeros([10])]
    v = [zeros(q.shape) for q in p]
    losses = []
    for _ in range(steps):
        p = [q.detach().requires_grad_() for q in p]
        loss = F.cross_entropy(torch.tanh(x @ p[0] + p[1]) @ p[2] + p[3], y)
        g = torch.autograd.grad(loss, p)
        losses.append(loss.item())
        v = [0.9 * vq + gq for vq, gq in zip(v, g)]
        p = [q - 0.05 * vq for q, vq in zip(p, v)]
    return losses


def adam_mlp(steps):
    x, y = float_input(0, [16, 32]), int_input(1, [16])
    w1, b1, w2, b2 = normal([32, 64], 0.18, 21), zeros([64]), normal([64, 10], 0.125, 22), zeros([10])
    m = [zeros(w1.shape), zeros(w2.shape)]
    s = [zeros(w1.shape), zeros(w2.shape)]
    losses = []
    for t in range(1, steps + 1):
        w1, w2 = w1.detach().requires_grad_(), w2.detach().requires_grad_()
        h = F.gelu(F.layer_norm(x @ w1 + b1, [64]))
        loss = F.cross_entropy(h @ w2 + b2, y)
        g = torch.autograd.grad(loss, [w1, w2])
        losses.append(loss.item())
        c1, c2 = 1 - 0.9 ** t, 1 - 0.999 ** t
        m = [0.9 * mq + 0.1 * gq for mq, gq in zip(m, g)]
        s = [0.999 * sq + 0.001 * gq * gq for sq, gq in zip(s, g)]
        w1, w2 = [w - 0.01 * (mq / c1) / (torch.sqrt(sq / c2) + 1e-8) for w, mq, sq in zip([w1, w2], m, s)]
    return losses


refs = {
    "mlp_train": {"steps": 5, "loss": sgd_mlp(5)},
    "mlp_momentum": {"steps": 20, "loss": momentum_mlp(20)},
    "mlp_adam": {"steps": 20, "loss": adam_mlp(20)},
}
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "training_refs.json")
with open(out, "w") as f:
    json.dump(refs, f, indent=1)
    f.write("\n")
for k, v in refs.items():
    print(k, ["%.5f" % x for x in v["loss"]])
