"""Reading and writing the two checkpoint formats, with the Python standard library alone.

- gpt-playground: one safetensors file (little-endian f32 tensors, JSON header, string metadata).
- PyTorch/nanoGPT: `torch.save`'s zip archive: `data.pkl` (a pickle whose tensors point at
  storages by key) and one raw file per storage under `data/`. The pickle uses only what
  `torch.load(weights_only=True)` allows, so PyTorch loads it either way.

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


def write_safetensors(path, tensors, meta):
    """Writes f32 `tensors` (name → Tensor) and string `meta` as one safetensors file."""
    header, offset = {"__metadata__": meta}, 0
    for name, t in tensors.items():
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + len(t.data)]}
        offset += len(t.data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # the data starts 8-byte aligned
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        for t in tensors.values():
            f.write(t.data)


# ---- torch.save's format, written opcode by opcode so no torch module need be importable ----

class _Global:
    """A reference to `module.name` in a pickle."""

    def __init__(self, module, name):
        self.module, self.name = module, name


class _Call:
    """`fn(*args)` in a pickle: the REDUCE opcode."""

    def __init__(self, fn, args):
        self.fn, self.args = fn, args


class _Storage:
    """A storage written as data/<key>, referred to by a persistent id."""

    def __init__(self, key, numel):
        self.key, self.numel = key, numel


def _write(out, obj):
    """Appends the pickle (protocol 2) opcodes that rebuild `obj`."""
    w = out.write
    if obj is None:
        w(b"N")
    elif obj is True or obj is False:
        w(b"\x88" if obj else b"\x89")
    elif isinstance(obj, int):
        if 0 <= obj < 2**31:
            w(b"J" + struct.pack("<i", obj))
        else:
            body = obj.to_bytes((obj.bit_length() + 8) // 8, "little", signed=True)
            w(b"\x8a" + bytes([len(body)]) + body)
    elif isinstance(obj, float):
        w(b"G" + struct.pack(">d", obj))
    elif isinstance(obj, str):
        body = obj.encode("utf-8")
        w(b"X" + struct.pack("<I", len(body)) + body)
    elif isinstance(obj, tuple):
        w(b"(")
        for item in obj:
            _write(out, item)
        w(b"t")
    elif isinstance(obj, list):
        w(b"](")
        for item in obj:
            _write(out, item)
        w(b"e")
    elif isinstance(obj, dict):
        w(b"}(")
        for k, v in obj.items():
            _write(out, k)
            _write(out, v)
        w(b"u")
    elif isinstance(obj, _Global):
        w(b"c" + f"{obj.module}\n{obj.name}\n".encode())
    elif isinstance(obj, _Call):
        _write(out, obj.fn)
        _write(out, obj.args)
        w(b"R")
    elif isinstance(obj, _Storage):
        _write(out, ("storage", _Global("torch", "FloatStorage"), obj.key, "cpu", obj.numel))
        w(b"Q")
    else:
        raise TypeError(f"cannot write {type(obj).__name__} into a PyTorch checkpoint")


def _torch_tensor(storage, shape):
    """`torch._utils._rebuild_tensor_v2(storage, 0, shape, contiguous strides, False, OrderedDict())`."""
    strides, step = [], 1
    for d in reversed(shape):
        strides.append(step)
        step *= d
    hooks = _Call(_Global("collections", "OrderedDict"), ())
    return _Call(_Global("torch._utils", "_rebuild_tensor_v2"), (storage, 0, tuple(shape), tuple(reversed(strides)), False, hooks))


def save_torch(path, obj):
    """torch.save(`obj`) where `obj` holds dicts, lists, tuples, scalars, strings and Tensors;
    Tensors with the same data share one storage, as tied weights do."""
    storages, blobs = {}, []

    def convert(x):
        if isinstance(x, Tensor):
            if id(x.data) not in storages:
                storages[id(x.data)] = _Storage(str(len(blobs)), x.numel())
                blobs.append(x.data)
            return _torch_tensor(storages[id(x.data)], x.shape)
        if isinstance(x, dict):
            return {k: convert(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return type(x)(convert(v) for v in x)
        return x

    out = io.BytesIO()
    out.write(b"\x80\x02")
    _write(out, convert(obj))
    out.write(b".")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        z.writestr("archive/data.pkl", out.getvalue())
        z.writestr("archive/byteorder", "little")
        for key, blob in enumerate(blobs):
            z.writestr(f"archive/data/{key}", blob)
        z.writestr("archive/version", "3\n")


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
