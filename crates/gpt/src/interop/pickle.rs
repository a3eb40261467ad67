//! Python values as `pickle` protocol 2 writes them, opcode by opcode: enough for what
//! `torch.save` and nanoGPT's `meta.pkl` hold, and only what `torch.load(weights_only=True)` allows.

/// A Python value.
#[derive(Clone, Debug, PartialEq)]
pub enum Py {
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Tuple(Vec<Py>),
    List(Vec<Py>),
    /// A dict, its items in order.
    Dict(Vec<(Py, Py)>),
    /// A float32 tensor over storage `storage` (`data/<storage>` in a torch archive) of `numel`
    /// elements, contiguous from element `offset`.
    Tensor {
        storage: usize,
        numel: usize,
        offset: usize,
        shape: Vec<usize>,
    },
}

impl Py {
    pub fn str(s: impl Into<String>) -> Py {
        Py::Str(s.into())
    }

    /// A scalar as Python source writes it (a config file's values).
    pub fn literal(&self) -> String {
        match self {
            Py::None => "None".into(),
            Py::Bool(b) => (if *b { "True" } else { "False" }).into(),
            Py::Int(i) => i.to_string(),
            Py::Float(f) => format!("{f:?}"),
            Py::Str(s) => format!("{s:?}"),
            _ => unreachable!("only scalars are written as literals"),
        }
    }

    /// The value under the string `key`, if this is a dict that has it.
    pub fn get(&self, key: &str) -> Option<&Py> {
        let Py::Dict(items) = self else { return None };
        items.iter().find(|(k, _)| matches!(k, Py::Str(s) if s == key)).map(|(_, v)| v)
    }

    /// The value under the int `key`, if this is a dict that has it.
    pub fn at(&self, key: i64) -> Option<&Py> {
        let Py::Dict(items) = self else { return None };
        items.iter().find(|(k, _)| *k == Py::Int(key)).map(|(_, v)| v)
    }

    pub fn as_int(&self) -> Option<i64> {
        if let Py::Int(i) = self {
            Some(*i)
        } else {
            None
        }
    }

    /// A dict with string keys.
    pub fn dict<'a>(items: impl IntoIterator<Item = (&'a str, Py)>) -> Py {
        Py::Dict(items.into_iter().map(|(k, v)| (Py::str(k), v)).collect())
    }
}

/// The pickle of `value`: protocol 2, its tensors as persistent ids the way `torch.save` writes them.
pub fn pickle(value: &Py) -> Vec<u8> {
    let mut out = vec![0x80, 2];
    write(&mut out, value);
    out.push(b'.');
    out
}

fn global(out: &mut Vec<u8>, module: &str, name: &str) {
    out.push(b'c');
    out.extend_from_slice(format!("{module}\n{name}\n").as_bytes());
}

fn write(out: &mut Vec<u8>, value: &Py) {
    match value {
        Py::None => out.push(b'N'),
        Py::Bool(b) => out.push(if *b { 0x88 } else { 0x89 }),
        Py::Int(i) => match i32::try_from(*i) {
            Ok(small) => {
                out.push(b'J');
                out.extend_from_slice(&small.to_le_bytes());
            }
            Err(_) => {
                out.extend_from_slice(&[0x8a, 8]); // LONG1: 8 little-endian two's-complement bytes
                out.extend_from_slice(&i.to_le_bytes());
            }
        },
        Py::Float(f) => {
            out.push(b'G');
            out.extend_from_slice(&f.to_be_bytes());
        }
        Py::Str(s) => {
            out.push(b'X');
            out.extend_from_slice(&(s.len() as u32).to_le_bytes());
            out.extend_from_slice(s.as_bytes());
        }
        Py::Tuple(items) => {
            out.push(b'(');
            items.iter().for_each(|item| write(out, item));
            out.push(b't');
        }
        Py::List(items) => {
            out.extend_from_slice(b"](");
            items.iter().for_each(|item| write(out, item));
            out.push(b'e');
        }
        Py::Dict(items) => {
            out.extend_from_slice(b"}(");
            for (k, v) in items {
                write(out, k);
                write(out, v);
            }
            out.push(b'u');
        }
        Py::Tensor { storage, numel, offset, shape } => {
            // torch._utils._rebuild_tensor_v2(storage, offset, shape, strides, False, OrderedDict())
            global(out, "torch._utils", "_rebuild_tensor_v2");
            out.push(b'(');
            out.push(b'(');
            write(out, &Py::str("storage"));
            global(out, "torch", "FloatStorage");
            write(out, &Py::Str(storage.to_string()));
            write(out, &Py::str("cpu"));
            write(out, &Py::Int(*numel as i64));
            out.extend_from_slice(b"tQ"); // the tuple is a persistent id: BINPERSID
            write(out, &Py::Int(*offset as i64));
            let strides = contiguous_strides(shape);
            write(out, &Py::Tuple(shape.iter().map(|&d| Py::Int(d as i64)).collect()));
            write(out, &Py::Tuple(strides.into_iter().map(|s| Py::Int(s as i64)).collect()));
            write(out, &Py::Bool(false));
            global(out, "collections", "OrderedDict");
            out.extend_from_slice(b"(tR"); // OrderedDict()
            out.extend_from_slice(b"tR");
        }
    }
}

/// Row-major strides of `shape`, in elements.
pub(super) fn contiguous_strides(shape: &[usize]) -> Vec<usize> {
    let mut strides = vec![1; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * shape[i + 1];
    }
    strides
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_what_pythons_pickle_reads() {
        // Python 3: pickle.loads of these bytes gives {'a': [1, -2, 2**40, 1.5, None, True], 'b': ('x', 'é')}.
        let value = Py::dict([
            ("a", Py::List(vec![Py::Int(1), Py::Int(-2), Py::Int(1 << 40), Py::Float(1.5), Py::None, Py::Bool(true)])),
            ("b", Py::Tuple(vec![Py::str("x"), Py::str("é")])),
        ]);
        let bytes = pickle(&value);
        let expected: &[u8] = b"\x80\x02}(X\x01\x00\x00\x00a](J\x01\x00\x00\x00J\xfe\xff\xff\xff\x8a\x08\x00\x00\x00\x00\x00\x01\x00\x00G?\xf8\x00\x00\x00\x00\x00\x00N\x88eX\x01\x00\x00\x00b(X\x01\x00\x00\x00xX\x02\x00\x00\x00\xc3\xa9tu.";
        assert_eq!(bytes, expected);
    }

    #[test]
    fn strides_are_row_major() {
        assert_eq!(contiguous_strides(&[2, 3, 4]), vec![12, 4, 1]);
        assert_eq!(contiguous_strides(&[5]), vec![1]);
        assert!(contiguous_strides(&[]).is_empty());
    }
}
