//! `torch.save`'s format: a zip whose `data.pkl` describes the object, its tensors pointing by
//! key at raw little-endian storages under `data/`. PyTorch loads it with `weights_only=True`.

use super::pickle::{pickle, Py};
use super::zip::stored;

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
        Py::Tensor { storage: self.blobs.len() - 1, numel, shape: shape.to_vec() }
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
}
