//! CSV files written row by row into one reused buffer: numbers and times
//! are formatted in place, so a million-row `jobs.csv` costs no `String` per
//! cell. Output is byte-identical to what the `csv` crate writes.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use crate::error::{Error, Result};
use crate::model::{TenantId, Tenants};
#[cfg(test)]
use crate::time::fmt_secs;
use crate::time::Time;

/// A CSV file written row by row into one reused buffer: numbers and times
/// are formatted in place (no `String` per cell), text is quoted only when
/// it holds a comma, a quote or a line break (RFC 4180, as the `csv` crate
/// writes it).
pub(crate) struct Csv {
    w: BufWriter<File>,
    /// The file, named in every write error (a full disk says which file).
    path: std::path::PathBuf,
    row: Vec<u8>,
    fields: u32,
    /// Scratch for a tenant's name.
    name: String,
}

pub(crate) fn open_csv(dir: &Path, name: &str, header: &[&str]) -> Result<Csv> {
    create_csv(&dir.join(name), header)
}

/// [`open_csv`] of a whole path.
pub(crate) fn create_csv(path: &Path, header: &[&str]) -> Result<Csv> {
    let file = File::create(path).map_err(|e| Error::io(format!("cannot create {}", path.display()), e))?;
    open_on(file, path.to_path_buf(), header)
}

/// A CSV file on an open `file` at `path` (a test gives /dev/full).
fn open_on(file: File, path: std::path::PathBuf, header: &[&str]) -> Result<Csv> {
    let mut w = Csv {
        w: BufWriter::with_capacity(1 << 16, file),
        path,
        row: Vec::with_capacity(256),
        fields: 0,
        name: String::new(),
    };
    for h in header {
        w.text(h);
    }
    w.end()?;
    Ok(w)
}

fn needs_quotes(b: &[u8]) -> bool {
    b.iter().any(|&c| matches!(c, b',' | b'"' | b'\r' | b'\n'))
}

impl Csv {
    fn sep(&mut self) {
        if self.fields > 0 {
            self.row.push(b',');
        }
        self.fields += 1;
    }

    /// A text cell.
    pub(crate) fn text(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }

    pub(crate) fn bytes(&mut self, b: &[u8]) {
        self.sep();
        if needs_quotes(b) {
            self.row.push(b'"');
            for &c in b {
                if c == b'"' {
                    self.row.push(b'"');
                }
                self.row.push(c);
            }
            self.row.push(b'"');
        } else {
            self.row.extend_from_slice(b);
        }
    }

    /// A tenant's name (generated names are written without allocating).
    pub(crate) fn tenant(&mut self, tenants: &Tenants, id: TenantId) {
        let mut name = std::mem::take(&mut self.name);
        name.clear();
        tenants.write_name(id, &mut name);
        self.text(&name);
        self.name = name;
    }

    pub(crate) fn empty(&mut self) {
        self.sep();
    }

    pub(crate) fn int(&mut self, v: u64) {
        self.sep();
        push_u64(&mut self.row, v);
    }

    pub(crate) fn secs(&mut self, t: Time) {
        self.sep();
        push_secs(&mut self.row, t);
    }

    pub(crate) fn end(&mut self) -> Result<()> {
        self.row.push(b'\n');
        self.w.write_all(&self.row).map_err(|e| Error::io(format!("writing {}", self.path.display()), e))?;
        self.row.clear();
        self.fields = 0;
        Ok(())
    }

    /// Flushes the buffer; the error names the file (callers add what
    /// they were doing).
    pub(crate) fn flush(&mut self) -> std::io::Result<()> {
        self.w.flush().map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", self.path.display())))
    }
}

/// Appends the decimal digits of `v`.
pub(crate) fn push_u64(out: &mut Vec<u8>, mut v: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    out.extend_from_slice(&buf[i..]);
}

/// Appends `t` as decimal seconds, exactly as [`fmt_secs`] writes it.
fn push_secs(out: &mut Vec<u8>, t: Time) {
    push_u64(out, t / 1_000_000);
    let mut frac = t % 1_000_000;
    if frac == 0 {
        return;
    }
    let mut digits = 6;
    while frac.is_multiple_of(10) {
        frac /= 10;
        digits -= 1;
    }
    out.push(b'.');
    let mut buf = [b'0'; 6];
    for k in (0..digits).rev() {
        buf[k] = b'0' + (frac % 10) as u8;
        frac /= 10;
    }
    out.extend_from_slice(&buf[..digits]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn push_secs_writes_what_fmt_secs_writes() {
        for t in [0, 1, 3, 10, 999_999, 1_000_000, 1_500_000, 2_000_001, 123_456_789, u64::MAX] {
            let mut b = Vec::new();
            push_secs(&mut b, t);
            assert_eq!(String::from_utf8(b).unwrap(), fmt_secs(t), "{t}");
        }
    }

    #[test]
    fn a_full_disk_names_the_file() {
        // /dev/full takes the open and refuses every write with ENOSPC
        let Ok(file) = File::create("/dev/full") else { return };
        let path = std::path::PathBuf::from("/tmp/r/fifo/jobs.csv");
        let mut w = open_on(file, path, &["job", "tenant"]).expect("the header is buffered");
        let mut err = None;
        for i in 0..100_000 {
            w.int(i);
            w.text("A");
            if let Err(e) = w.end() {
                err = Some(e.to_string());
                break;
            }
        }
        let err = err.unwrap_or_else(|| w.flush().expect_err("a full disk").to_string());
        assert!(err.contains("/tmp/r/fifo/jobs.csv") && err.contains("No space left"), "{err}");
        let flushed = w.flush().map_err(|e| e.to_string()).err().unwrap_or_default();
        assert!(flushed.is_empty() || flushed.contains("/tmp/r/fifo/jobs.csv"), "{flushed}");
    }
}
