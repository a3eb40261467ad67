//! A zip archive of stored (uncompressed) files, as `torch.save` writes its checkpoints and a
//! browser download of a folder needs: no compression library, nothing to build for wasm.

/// The archive holding `files` (name, bytes) in order. Each file and the whole archive must stay
/// under 4 GiB (no zip64).
pub fn stored(files: &[(String, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data) in files {
        let offset = out.len() as u32;
        let (crc, size) = (crc32(data), data.len() as u32);
        // Version 2.0, no flags, stored, 1980-01-01 00:00.
        let common = |out: &mut Vec<u8>| {
            for field in [20u16, 0, 0, 0, 0x21] {
                out.extend_from_slice(&field.to_le_bytes());
            }
            for field in [crc, size, size] {
                out.extend_from_slice(&field.to_le_bytes());
            }
            out.extend_from_slice(&(name.len() as u16).to_le_bytes());
            out.extend_from_slice(&0u16.to_le_bytes()); // no extra field
        };
        out.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        common(&mut out);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(data);
        central.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        central.extend_from_slice(&20u16.to_le_bytes()); // made by
        common(&mut central);
        for field in [0u16, 0, 0] {
            central.extend_from_slice(&field.to_le_bytes()); // comment, disk, internal attributes
        }
        central.extend_from_slice(&0u32.to_le_bytes()); // external attributes
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(name.as_bytes());
    }
    let start = out.len() as u32;
    out.extend_from_slice(&central);
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    for field in [0u16, 0, files.len() as u16, files.len() as u16] {
        out.extend_from_slice(&field.to_le_bytes());
    }
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&start.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes()); // no comment
    out
}

/// CRC-32 (IEEE), as zip checks each file.
fn crc32(data: &[u8]) -> u32 {
    let table: [u32; 256] =
        std::array::from_fn(|n| (0..8).fold(n as u32, |c, _| if c & 1 == 1 { 0xedb8_8320 ^ (c >> 1) } else { c >> 1 }));
    !data.iter().fold(!0u32, |c, &b| table[((c ^ b as u32) & 0xff) as usize] ^ (c >> 8))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_is_the_standard_one() {
        assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
        assert_eq!(crc32(b""), 0);
    }

    #[test]
    fn an_archive_lists_its_files_where_they_are() {
        let zip = stored(&[("a/x".into(), b"hello"), ("a/y".into(), b"")]);
        // The end record: two files, and the central directory where it says.
        let end = zip.len() - 22;
        assert_eq!(&zip[end..end + 4], &0x0605_4b50u32.to_le_bytes());
        assert_eq!(u16::from_le_bytes([zip[end + 10], zip[end + 11]]), 2);
        let start = u32::from_le_bytes(zip[end + 16..end + 20].try_into().unwrap()) as usize;
        assert_eq!(&zip[start..start + 4], &0x0201_4b50u32.to_le_bytes());
        assert_eq!(&zip[30..33], b"a/x");
        assert_eq!(&zip[33..38], b"hello");
    }
}
