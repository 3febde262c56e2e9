"""Load and run a model file (tests/packaging: run with no compiler on PATH
and a read-only HOME)."""

import shutil
import sys

import numpy as np

from ge.graph import Tensor
from ge.offline import load_model

assert shutil.which("gcc") is None and shutil.which("cc") is None
model = load_model(sys.argv[1])
a = np.arange(256, dtype=np.float32)
b = np.full(256, 0.5, dtype=np.float32)
z = Tensor(np.zeros(256, dtype=np.float32))
for _ in range(2):
    model.execute([Tensor(a), Tensor(b)], [z])
    assert np.array_equal(z.numpy(), 2 * a + b), z.numpy()
print("offline ok")
