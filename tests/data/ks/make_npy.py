# Makes the .npy files the .ks format tests read (run with /usr/bin/python3; NumPy is the oracle
# for the file format). w23.npy: float32 [[0, 0.5, 1], [1.5, 2, 2.5]]; idx4.npy: int64 [3, 1, 4, 1].
import numpy as np
import os

here = os.path.dirname(os.path.abspath(__file__))
np.save(os.path.join(here, "w23.npy"), (np.arange(6, dtype=np.float32) * 0.5).reshape(2, 3))
np.save(os.path.join(here, "idx4.npy"), np.array([3, 1, 4, 1], dtype=np.int64))
