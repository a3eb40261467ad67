//! Python values from a pickle (protocols 2 to 5), as `torch.load(weights_only=True)` reads them:
//! plain data, `OrderedDict`, and float32 tensors over a `torch.save` archive's storages. Any
//! other callable is refused rather than run, so a crafted file can do nothing but fail.

use super::pickle::Py;
use crate::error::{Error, Result};
use crate::words::files;
use std::collections::HashMap;

/// What the machine's stack holds: values, and the markers and callables that build them.
#[derive(Clone, Debug)]
enum Item {
    Value(Py),
    Mark,
    Global(String),
    /// A storage named by a persistent id: its key in the archive and its length in elements.
    Storage {
        key: usize,
        numel: usize,
    },
    /// A tuple, which may hold callables and storages (a persistent id, a call's arguments).
    Tuple(Vec<Item>),
}

fn bad(why: impl std::fmt::Display) -> Error {
    Error::Format(files::pickle(why.to_string()))
}

/// The value `bytes` pickles.
pub fn unpickle(bytes: &[u8]) -> Result<Py> {
    let mut stack: Vec<Item> = Vec::new();
    let mut memo: HashMap<u32, Item> = HashMap::new();
    // Each reference to a stored value copies it here (Python shares it), so a few bytes of
    // nested references could ask for more memory than any tab has: copies are counted.
    let mut copied = 0usize;
    let mut r = Reader { bytes, at: 0 };
    macro_rules! int {
        ($t:ty) => {
            <$t>::from_le_bytes(r.take(std::mem::size_of::<$t>())?.try_into().expect("sized"))
        };
    }
    loop {
        let op = r.take(1)?[0];
        let item = match op {
            0x80 => {
                r.take(1)?; // PROTO
                continue;
            }
            0x95 => {
                r.take(8)?; // FRAME
                continue;
            }
            b'.' => break,
            b'(' => Item::Mark,
            b'}' => Item::Value(Py::Dict(vec![])),
            b']' => Item::Value(Py::List(vec![])),
            b')' => Item::Tuple(vec![]),
            b'N' => Item::Value(Py::None),
            0x88 | 0x89 => Item::Value(Py::Bool(op == 0x88)),
            b'J' => Item::Value(Py::Int(int!(i32) as i64)),
            b'K' => Item::Value(Py::Int(int!(u8) as i64)),
            b'M' => Item::Value(Py::Int(int!(u16) as i64)),
            0x8a => {
                let n = int!(u8) as usize;
                Item::Value(Py::Int(long(r.take(n)?)?))
            }
            b'G' => Item::Value(Py::Float(f64::from_be_bytes(r.take(8)?.try_into().expect("8 bytes")))),
            b'X' | b'T' => {
                let n = int!(u32) as usize;
                Item::Value(Py::Str(text(r.take(n)?)?))
            }
            0x8c | b'U' => {
                let n = int!(u8) as usize;
                Item::Value(Py::Str(text(r.take(n)?)?))
            }
            0x8d => {
                let n = usize::try_from(int!(u64)).map_err(|_| bad("has a string too long"))?;
                Item::Value(Py::Str(text(r.take(n)?)?))
            }
            b'c' => {
                let module = r.line()?;
                Item::Global(format!("{module}.{}", r.line()?))
            }
            0x93 => {
                let name = pop_str(&mut stack)?;
                Item::Global(format!("{}.{name}", pop_str(&mut stack)?))
            }
            b'q' => {
                let key = int!(u8) as u32;
                memo.insert(key, stack.last().cloned().ok_or_else(|| bad("memoizes nothing"))?);
                continue;
            }
            b'r' => {
                let key = int!(u32);
                memo.insert(key, stack.last().cloned().ok_or_else(|| bad("memoizes nothing"))?);
                continue;
            }
            0x94 => {
                let key = memo.len() as u32;
                memo.insert(key, stack.last().cloned().ok_or_else(|| bad("memoizes nothing"))?);
                continue;
            }
            b'h' | b'j' => {
                let key = if op == b'h' { int!(u8) as u32 } else { int!(u32) };
                let item = memo.get(&key).ok_or_else(|| bad("refers to a value it never stored"))?;
                copied += weight(item);
                if copied > MAX_COPIED {
                    return Err(bad("refers to its values so often that copying them would not fit in memory"));
                }
                item.clone()
            }
            b't' => {
                let mark = stack.iter().rposition(|i| matches!(i, Item::Mark)).ok_or_else(|| bad("has no mark"))?;
                let items = stack.split_off(mark + 1);
                stack.pop();
                Item::Tuple(items)
            }
            0x85..=0x87 => {
                let n = (op - 0x84) as usize;
                let start = stack.len().checked_sub(n).ok_or_else(|| bad("builds a tuple from nothing"))?;
                Item::Tuple(stack.split_off(start))
            }
            b'a' | b'e' | b's' | b'u' => {
                let items = if op == b'a' || op == b's' {
                    let n = if op == b'a' { 1 } else { 2 };
                    let start = stack.len().checked_sub(n).ok_or_else(|| bad("adds nothing"))?;
                    stack.split_off(start).into_iter().map(value).collect::<Result<Vec<_>>>()?
                } else {
                    let mark = stack.iter().rposition(|i| matches!(i, Item::Mark)).ok_or_else(|| bad("has no mark"))?;
                    let items = stack.split_off(mark + 1).into_iter().map(value).collect::<Result<Vec<_>>>()?;
                    stack.pop();
                    items
                };
                match stack.last_mut() {
                    Some(Item::Value(Py::List(list))) if op == b'a' || op == b'e' => list.extend(items),
                    Some(Item::Value(Py::Dict(dict))) if op == b's' || op == b'u' => {
                        let mut items = items.into_iter();
                        while let (Some(k), Some(v)) = (items.next(), items.next()) {
                            dict.push((k, v));
                        }
                    }
                    _ => return Err(bad("adds items to something that is not a list or dict")),
                }
                continue;
            }
            b'b' => {
                // BUILD: an object's attributes (a state_dict's `_metadata`), which no weight needs.
                stack.pop().ok_or_else(|| bad("builds nothing"))?;
                continue;
            }
            b'Q' => storage(stack.pop().ok_or_else(|| bad("has an empty persistent id"))?)?,
            b'R' => {
                let args = stack.pop();
                let Some(Item::Global(name)) = stack.pop() else {
                    return Err(bad("calls something that is not a function"));
                };
                let Some(Item::Tuple(args)) = args else { return Err(bad(format!("calls {name} without arguments"))) };
                call(&name, args)?
            }
            _ => {
                return Err(bad(format!(
                    "uses opcode {op:#04x} at byte {}, which a checkpoint does not need",
                    r.at - 1
                )))
            }
        };
        stack.push(item);
    }
    match stack.pop() {
        Some(item) if stack.is_empty() => value(item),
        _ => Err(bad("does not end with one value")),
    }
}

/// The most values references may copy: far beyond any checkpoint's, far below a tab's memory.
const MAX_COPIED: usize = 1 << 20;

/// How many values `item` holds, itself included.
fn weight(item: &Item) -> usize {
    match item {
        Item::Value(v) => value_weight(v),
        Item::Tuple(items) => 1 + items.iter().map(weight).sum::<usize>(),
        _ => 1,
    }
}

fn value_weight(value: &Py) -> usize {
    match value {
        Py::Tuple(items) | Py::List(items) => 1 + items.iter().map(value_weight).sum::<usize>(),
        Py::Dict(items) => 1 + items.iter().map(|(k, v)| value_weight(k) + value_weight(v)).sum::<usize>(),
        _ => 1,
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let slice = self.bytes.get(self.at..self.at.saturating_add(n)).ok_or_else(|| bad("is cut short"))?;
        self.at += n;
        Ok(slice)
    }

    /// Up to the next newline, which is skipped (GLOBAL's module and name).
    fn line(&mut self) -> Result<String> {
        let rest = &self.bytes[self.at..];
        let n = rest.iter().position(|&b| b == b'\n').ok_or_else(|| bad("is cut short"))?;
        self.at += n + 1;
        text(&rest[..n])
    }
}

/// A Python int from LONG1's little-endian two's-complement bytes.
fn long(b: &[u8]) -> Result<i64> {
    if b.len() > 8 {
        return Err(bad("has an integer too large"));
    }
    let fill = if b.last().is_some_and(|&x| x & 0x80 != 0) { 0xff } else { 0 };
    let mut eight = [fill; 8];
    eight[..b.len()].copy_from_slice(b);
    Ok(i64::from_le_bytes(eight))
}

fn text(b: &[u8]) -> Result<String> {
    String::from_utf8(b.to_vec()).map_err(|_| bad("has a string that is not UTF-8"))
}

fn value(item: Item) -> Result<Py> {
    match item {
        Item::Value(v) => Ok(v),
        Item::Mark => Err(bad("uses a mark as a value")),
        Item::Global(name) => Err(bad(format!("uses {name} as a value"))),
        Item::Storage { .. } => Err(bad("uses a storage outside a tensor")),
        Item::Tuple(items) => Ok(Py::Tuple(items.into_iter().map(value).collect::<Result<_>>()?)),
    }
}

fn pop_str(stack: &mut Vec<Item>) -> Result<String> {
    match stack.pop() {
        Some(Item::Value(Py::Str(s))) => Ok(s),
        _ => Err(bad("names a global with something that is not a string")),
    }
}

/// torch.save's persistent id: ('storage', torch.FloatStorage, key, location, numel).
fn storage(pid: Item) -> Result<Item> {
    let Item::Tuple(parts) = pid else { return Err(bad("has a persistent id that is not a tuple")) };
    match parts.as_slice() {
        [Item::Value(Py::Str(kind)), Item::Global(dtype), Item::Value(Py::Str(key)), _, Item::Value(Py::Int(numel))]
            if kind == "storage" =>
        {
            if dtype != "torch.FloatStorage" {
                return Err(Error::Format(files::not_float32(dtype.as_str())));
            }
            let key = key.parse().map_err(|_| bad(format!("names a storage {key:?}")))?;
            Ok(Item::Storage {
                key,
                numel: usize::try_from(*numel).map_err(|_| bad("has a storage of negative size"))?,
            })
        }
        _ => Err(bad("has a persistent id that is not torch.save's")),
    }
}

/// The few callables a checkpoint needs; anything else is refused, not run.
fn call(name: &str, args: Vec<Item>) -> Result<Item> {
    let ints = |item: &Item| -> Option<Vec<usize>> {
        let Item::Tuple(items) = item else { return None };
        items.iter().map(|i| if let Item::Value(Py::Int(n)) = i { usize::try_from(*n).ok() } else { None }).collect()
    };
    match (name, args.as_slice()) {
        ("collections.OrderedDict", []) => Ok(Item::Value(Py::Dict(vec![]))),
        (
            "torch._utils._rebuild_tensor_v2",
            [Item::Storage { key, numel }, Item::Value(Py::Int(offset)), shape, stride, ..],
        ) => {
            let (shape, stride) = ints(shape).zip(ints(stride)).ok_or_else(|| bad("has a tensor of an odd shape"))?;
            if stride != super::pickle::contiguous_strides(&shape) {
                return Err(bad("has a tensor that is not contiguous"));
            }
            let offset = usize::try_from(*offset).map_err(|_| bad("has a tensor at a negative offset"))?;
            Ok(Item::Value(Py::Tensor { storage: *key, numel: *numel, offset, shape }))
        }
        ("torch._utils._rebuild_parameter", [tensor @ Item::Value(Py::Tensor { .. }), ..]) => Ok(tensor.clone()),
        _ => Err(bad(format!("calls {name}, which a checkpoint does not need; it is not run"))),
    }
}

#[cfg(test)]
#[path = "unpickle_tests.rs"]
mod tests;
