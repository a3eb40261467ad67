//! Zip archives, written with stored (uncompressed) files, as `torch.save` writes its checkpoints
//! and a browser download of a folder needs; read stored or deflated (as every system's own zip
//! tool compresses), the deflated ones inflated by `miniz_oxide`.

use crate::error::{Error, Result};
use crate::words::files;
use std::borrow::Cow;

/// The most a deflated file may inflate to: above any model the page trains.
const MAX_INFLATED: usize = 1 << 31;

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

/// The files of the zip `bytes` (name, contents), each checked against its CRC. Only stored files
/// (as `torch.save` writes), borrowed from `bytes`: a compressed one is refused.
pub fn read(bytes: &[u8]) -> Result<Vec<(String, &[u8])>> {
    entries(bytes)?
        .into_iter()
        .map(|entry| match entry.method {
            0 => entry.checked(entry.raw).map(|data| (entry.name, data)),
            8 => Err(bad(&format!("compresses {}, which torch.save never does", entry.name))),
            _ => Err(entry.unknown_method()),
        })
        .collect()
}

/// The files of the zip `bytes`, stored or deflated, each checked against its CRC.
pub fn unpack(bytes: &[u8]) -> Result<Vec<(String, Cow<'_, [u8]>)>> {
    entries(bytes)?
        .into_iter()
        .map(|entry| {
            let data = match entry.method {
                0 => Cow::Borrowed(entry.raw),
                8 => miniz_oxide::inflate::decompress_to_vec_with_limit(entry.raw, entry.size.min(MAX_INFLATED))
                    .map(Cow::Owned)
                    .map_err(|e| bad(&format!("is damaged: {} does not inflate ({:?})", entry.name, e.status)))?,
                _ => return Err(entry.unknown_method()),
            };
            entry.checked(data).map(|data| (entry.name, data))
        })
        .collect()
}

fn bad(why: &str) -> Error {
    Error::Format(files::zip(why))
}

/// A file as the central directory lists it, its bytes as stored (compressed or not).
struct Entry<'a> {
    name: String,
    method: usize,
    raw: &'a [u8],
    crc: u32,
    size: usize,
}

impl Entry<'_> {
    /// `data`, this file's contents, if its length and CRC are the ones listed.
    fn checked<D: AsRef<[u8]>>(&self, data: D) -> Result<D> {
        let bytes = data.as_ref();
        if bytes.len() != self.size || crc32(bytes) != self.crc {
            return Err(bad(&format!("is damaged: {} does not match its checksum", self.name)));
        }
        Ok(data)
    }

    fn unknown_method(&self) -> Error {
        bad(&format!(
            "compresses {} with method {}; zip it again with deflate, or choose its files instead",
            self.name, self.method
        ))
    }
}

/// Every file of the zip `bytes`, but folders' own entries (as system zip tools write).
fn entries(bytes: &[u8]) -> Result<Vec<Entry<'_>>> {
    let u16_at = |at: usize| bytes.get(at..at + 2).map(|b| u16::from_le_bytes([b[0], b[1]]) as usize);
    let u32_at = |at: usize| bytes.get(at..at + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    // The end record is the last thing in the file, but for a comment of up to 64 KiB.
    let end = (0..bytes.len().saturating_sub(21))
        .rev()
        .take(1 << 16)
        .find(|&at| u32_at(at) == Some(0x0605_4b50))
        .ok_or_else(|| bad("is cut short or is not a zip: it has no end record"))?;
    let count = u16_at(end + 10).ok_or_else(|| bad("has a cut end record"))?;
    let mut at = u32_at(end + 16).ok_or_else(|| bad("has a cut end record"))? as usize;
    let mut files = Vec::with_capacity(count);
    for _ in 0..count {
        let field = |offset: usize| u32_at(at + offset).ok_or_else(|| bad("has a cut central directory"));
        if field(0)? != 0x0201_4b50 {
            return Err(bad("has a damaged central directory"));
        }
        let method = u16_at(at + 10).ok_or_else(|| bad("has a cut central directory"))?;
        let (crc, packed, size, local) = (field(16)?, field(20)? as usize, field(24)? as usize, field(42)? as usize);
        let name_len = u16_at(at + 28).ok_or_else(|| bad("has a cut central directory"))?;
        let skip = name_len + u16_at(at + 30).unwrap_or(0) + u16_at(at + 32).unwrap_or(0);
        let name = bytes.get(at + 46..at + 46 + name_len).ok_or_else(|| bad("has a cut central directory"))?;
        let name = String::from_utf8_lossy(name).into_owned();
        at += 46 + skip;
        if [packed, size, local].contains(&(u32::MAX as usize)) {
            return Err(bad(&format!("holds {name} over 4 GiB (zip64), which is not read here")));
        }
        let header = u16_at(local + 26).zip(u16_at(local + 28)).filter(|_| u32_at(local) == Some(0x0403_4b50));
        let (n, e) = header.ok_or_else(|| bad(&format!("has a damaged header for {name}")))?;
        let start = local + 30 + n + e;
        let raw = bytes.get(start..start + packed).ok_or_else(|| bad(&format!("is cut short inside {name}")))?;
        if !(name.ends_with('/') && size == 0) {
            files.push(Entry { name, method, raw, crc, size });
        }
    }
    Ok(files)
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
        let back = read(&zip).unwrap();
        assert_eq!(back, [("a/x".to_string(), &b"hello"[..]), ("a/y".to_string(), &b""[..])]);
    }

    #[test]
    fn a_damaged_archive_says_how() {
        let zip = stored(&[("x".into(), b"hello")]);
        let message = |bytes: &[u8]| read(bytes).unwrap_err().to_string();
        assert!(message(&zip[..zip.len() - 30]).contains("no end record"));
        let mut flipped = zip.clone();
        flipped[31] ^= 1; // inside "hello"
        assert!(message(&flipped).contains("x does not match its checksum"));
        let mut compressed = zip;
        let central = compressed.len() - 22 - 47;
        compressed[central + 10] = 12; // bzip2
        assert!(message(&compressed).contains("compresses x with method 12"));
    }

    /// A zip as Python's zipfile writes with ZIP_DEFLATED, folder entry included.
    fn deflated() -> Vec<u8> {
        let hex = concat!(
            "504b03041400000000000000210000000000000000000000000002000000612f504b030414000000080000002100",
            "2fcaf3cb110000003b00000003000000612f78cb48cdc9c95728cf2fca4951c8208d0d00504b0102140314000000",
            "000000002100000000000000000000000000020000000000000000000000800100000000612f504b010214031400",
            "00000800000021002fcaf3cb110000003b000000030000000000000000000000800120000000612f78504b050600",
            "0000000200020061000000520000000000",
        );
        (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect()
    }

    #[test]
    fn a_deflated_archive_unpacks_and_torch_reading_refuses_it() {
        let zip = deflated();
        let files = unpack(&zip).unwrap();
        assert_eq!(files.len(), 1, "the folder's own entry is skipped");
        assert_eq!(files[0].0, "a/x");
        assert_eq!(&*files[0].1, "hello world ".repeat(5).trim_end().as_bytes());
        assert!(read(&zip).unwrap_err().to_string().contains("compresses a/x"));
        let mut broken = zip.clone();
        broken[60] ^= 0x55; // inside the deflated stream
        assert!(unpack(&broken).unwrap_err().to_string().contains("a/x"));
    }
}
