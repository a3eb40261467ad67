//! Float32 matrices read by name from a safetensors file (`--score`, `--activations`).

/// The file's tensors, and the matrix (rows × d) named `name`, flat with its `d`, or what is wrong.
pub struct MatrixFile {
    path: std::path::PathBuf,
    bytes: Vec<u8>,
}

impl MatrixFile {
    pub fn open(path: &std::path::Path) -> Result<MatrixFile, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        safetensors::SafeTensors::deserialize(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(MatrixFile { path: path.to_path_buf(), bytes })
    }

    /// Whether it holds a tensor `name`.
    pub fn has(&self, name: &str) -> bool {
        self.tensors().tensor(name).is_ok()
    }

    /// The float32 matrix `name` (rows × d), flat, and its d.
    pub fn matrix(&self, name: &str) -> Result<(Vec<f32>, usize), String> {
        let tensors = self.tensors();
        let t = tensors
            .tensor(name)
            .map_err(|_| format!("{}: no tensor {name:?} (rows × d, float32)", self.path.display()))?;
        match (t.dtype(), t.shape()) {
            (safetensors::Dtype::F32, &[_, d]) if d > 0 => {
                Ok((t.data().chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect(), d))
            }
            (dtype, shape) => Err(format!("{name}: a float32 matrix of rows × d is needed, not {dtype:?} {shape:?}")),
        }
    }

    fn tensors(&self) -> safetensors::SafeTensors<'_> {
        safetensors::SafeTensors::deserialize(&self.bytes).expect("checked when opened")
    }
}
