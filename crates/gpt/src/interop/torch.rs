//! `torch.save`'s format: a zip whose `data.pkl` describes the object, its tensors pointing by
//! key at raw little-endian storages under `data/`. PyTorch loads it with `weights_only=True`;
//! [`load`] reads it back the same way.

use super::pickle::{pickle, Py};
use super::zip::stored;
use crate::error::{Error, Result};
use crate::words::files;
use std::collections::HashMap;

/// Float32 storages and the tensors that view them: tied weights share one.
#[derive(Default)]
pub struct Storages {
    blobs: Vec<Vec<u8>>,
}

impl Storages {
    /// A tensor of `shape` over a new storage holding `values`.
    pub fn tensor(&mut self, shape: &[usize], values: impl IntoIterator<Item = f32>) -> Py {
        let blob: Vec<u8> = values.into_iter().flat_map(f32::to_le_bytes).collect();
        let numel = blob.len() / 4;
        debug_assert_eq!(numel, shape.iter().product::<usize>());
        self.blobs.push(blob);
        Py::Tensor { storage: self.blobs.len() - 1, numel, offset: 0, shape: shape.to_vec() }
    }
}

/// `torch.save(value)` as bytes, `value`'s tensors over `storages`. Files sit under `archive/`.
pub fn save(value: &Py, storages: &Storages) -> Vec<u8> {
    let data = pickle(value);
    let mut files: Vec<(String, &[u8])> =
        vec![("archive/data.pkl".into(), &data), ("archive/byteorder".into(), b"little")];
    files.extend(storages.blobs.iter().enumerate().map(|(key, blob)| (format!("archive/data/{key}"), blob.as_slice())));
    files.push(("archive/version".into(), b"3\n"));
    stored(&files)
}

/// A `torch.save` archive read back: its value, and its storages by key.
pub struct Loaded<'a> {
    pub value: Py,
    storages: HashMap<usize, &'a [u8]>,
}

/// Whether `files` (a zip's) are a `torch.save` archive.
pub fn is_archive<B>(files: &[(String, B)]) -> bool {
    files.iter().any(|(name, _)| name.ends_with("data.pkl"))
}

/// Reads a `torch.save` archive (a zip of `*/data.pkl` and `*/data/<key>`).
pub fn load(bytes: &[u8]) -> Result<Loaded<'_>> {
    let files = super::zip::read(bytes)?;
    let (pickle_name, data) =
        files.iter().find(|(name, _)| name.ends_with("data.pkl")).ok_or_else(|| Error::Format(files::no_data_pkl()))?;
    let prefix = format!("{}data/", pickle_name.trim_end_matches("data.pkl"));
    let value = super::unpickle::unpickle(data)?;
    let storages =
        files.iter().filter_map(|(name, blob)| Some((name.strip_prefix(&prefix)?.parse().ok()?, *blob))).collect();
    Ok(Loaded { value, storages })
}

impl Loaded<'_> {
    /// The shape and little-endian f32 bytes of `tensor` (a `Py::Tensor` of this archive), as
    /// stored; `name` says which in errors.
    pub fn tensor(&self, tensor: &Py, name: &str) -> Result<(Vec<usize>, &[u8])> {
        let bad = |why: &str| Error::Format(files::torch_tensor(name, why));
        let Py::Tensor { storage, numel, offset, shape } = tensor else { return Err(bad("is not a tensor")) };
        let blob = self.storages.get(storage).ok_or_else(|| bad("points at a storage the archive lacks"))?;
        let len = shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d));
        let end = len.and_then(|len| offset.checked_add(len)).filter(|&end| end <= *numel);
        let (Some(end), true) = (end, numel.checked_mul(4) == Some(blob.len())) else {
            return Err(bad("does not fit its storage: the file is cut short or damaged"));
        };
        Ok((shape.clone(), &blob[4 * offset..4 * end]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tensor_is_pickled_as_torch_save_pickles_it() {
        let mut storages = Storages::default();
        let w = storages.tensor(&[2, 3], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        // What python/checkpoint_formats.py writes for {'w': a 2×3 tensor over storage '0'}.
        let expected: &[u8] = b"\x80\x02}(X\x01\x00\x00\x00wctorch._utils\n_rebuild_tensor_v2\n((X\x07\x00\x00\x00storagectorch\nFloatStorage\nX\x01\x00\x00\x000X\x03\x00\x00\x00cpuJ\x06\x00\x00\x00tQJ\x00\x00\x00\x00(J\x02\x00\x00\x00J\x03\x00\x00\x00t(J\x03\x00\x00\x00J\x01\x00\x00\x00t\x89ccollections\nOrderedDict\n(tRtRu.";
        assert_eq!(pickle(&Py::dict([("w", w)])), expected);
        let archive = save(&Py::Int(0), &storages);
        let find = |needle: &[u8]| archive.windows(needle.len()).position(|w| w == needle).is_some();
        assert!(find(b"archive/data.pkl") && find(b"archive/data/0") && find(b"archive/version"));
        assert!(find(&[1.0f32, 2.0].iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<_>>()));
    }

    #[test]
    fn load_reads_back_what_save_writes() {
        let mut storages = Storages::default();
        let w = storages.tensor(&[2, 3], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let big = Py::Int(1 << 40);
        let value =
            Py::dict([("w", w.clone()), ("tied", w), ("n", big), ("xs", Py::List(vec![Py::Float(0.5), Py::None]))]);
        let archive = save(&value, &storages);
        let loaded = load(&archive).unwrap();
        assert_eq!(loaded.value, value);
        let (shape, bytes) = loaded.tensor(loaded.value.get("tied").unwrap(), "tied").unwrap();
        let values: Vec<f32> = bytes.chunks_exact(4).map(|b| f32::from_le_bytes(b.try_into().unwrap())).collect();
        assert_eq!((shape, values), (vec![2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]));
    }
}
