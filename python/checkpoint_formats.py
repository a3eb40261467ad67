"""The two checkpoint formats read with the Python standard library alone: safetensors, and
torch.save's archive.

- gpt-playground: one safetensors file (little-endian f32 tensors, JSON header, string metadata).
- PyTorch/nanoGPT: `torch.save`'s zip archive: `data.pkl` (a pickle whose tensors point at
  storages by key) and one raw file per storage under `data/`, read here as
  `torch.load(weights_only=True)` reads it. The core writes it (`gpt export --nanogpt`).

Tensors here are `Tensor(shape, data)`, `data` being the raw little-endian bytes.
"""

import io
import json
import pickle
import struct
import zipfile
from dataclasses import dataclass


@dataclass
class Tensor:
    shape: tuple
    data: bytes  # little-endian float32

    def numel(self):
        n = 1
        for d in self.shape:
            n *= d
        return n


def read_safetensors(path):
    """(tensors by name, metadata by key) of a safetensors file of f32 tensors."""
    with open(path, "rb") as f:
        raw = f.read()
    (length,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + length])
    meta = header.pop("__metadata__", {})
    body = raw[8 + length:]
    tensors = {}
    for name, info in header.items():
        if info["dtype"] != "F32":
            raise ValueError(f"{path}: {name} is {info['dtype']}; only float32 tensors are supported")
        start, end = info["data_offsets"]
        tensors[name] = Tensor(tuple(info["shape"]), body[start:end])
    return tensors, meta


# ---- torch.save's format, read without torch (the core writes it: `gpt export --nanogpt`) ----

class _OrderedDict(dict):
    """collections.OrderedDict as torch pickles it: a dict that also takes attributes (a
    state_dict carries `_metadata`)."""


class _TorchUnpickler(pickle.Unpickler):
    """Reads torch.save's data.pkl into plain dicts and Tensors, allowing only what PyTorch's
    weights_only loading allows."""

    def __init__(self, data, storage_bytes):
        super().__init__(io.BytesIO(data))
        self.storage_bytes = storage_bytes

    def find_class(self, module, name):
        if (module, name) == ("torch._utils", "_rebuild_tensor_v2"):
            return self.rebuild_tensor
        if (module, name) == ("collections", "OrderedDict"):
            return _OrderedDict
        if module == "torch" and name == "FloatStorage":
            return "float32"
        if module == "torch" and name.endswith("Storage"):
            raise ValueError(f"this checkpoint has {name} tensors; only float32 ones are supported")
        if (module, name) == ("torch", "float32"):
            return "float32"
        raise pickle.UnpicklingError(f"a checkpoint may not contain {module}.{name}")

    def persistent_load(self, pid):
        _, dtype, key, _location, _numel = pid
        if dtype != "float32":
            raise ValueError(f"storage {key} is {dtype}; only float32 is supported")
        return self.storage_bytes(key)

    @staticmethod
    def rebuild_tensor(storage, offset, shape, stride, *_):
        expected, step = [], 1
        for d in reversed(shape):
            expected.append(step)
            step *= d
        if tuple(stride) != tuple(reversed(expected)):
            raise ValueError("a tensor in this checkpoint is not contiguous")
        n = step
        return Tensor(tuple(shape), storage[4 * offset:4 * (offset + n)])


def load_torch(path):
    """torch.load(`path`) for checkpoints of float32 tensors, dicts and scalars, without torch."""
    with zipfile.ZipFile(path) as z:
        (pkl,) = [n for n in z.namelist() if n.endswith("data.pkl")]
        root = pkl[: -len("data.pkl")]
        return _TorchUnpickler(z.read(pkl), lambda key: z.read(f"{root}data/{key}")).load()
