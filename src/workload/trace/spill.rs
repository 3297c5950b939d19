//! The binary spill of a trace: the rows the first pass accepted, already
//! checked, shifted and resolved to tenant and class ids, so that each
//! policy run streams them back without parsing text or looking up names.
//!
//! One record per row, little-endian: arrival (u64), service (u64), tenant
//! (u32), class (u16), flags (u8: 1 deadline, 2 cost, 4 id), then the
//! deadline (u64), the cost (one u64 per declared resource) and the id
//! (u32 length, UTF-8 bytes) when flagged: 23 bytes for a plain row.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::core::Arrival;
use crate::model::{ClassId, Res, Spill, TenantId, MAX_RESOURCES};
use crate::time::Time;

const DEADLINE: u8 = 1;
const COST: u8 = 2;
const ID: u8 = 4;

/// Writes the spill of one trace during the first pass.
pub struct SpillWriter {
    out: BufWriter<File>,
    /// Owns the file from its creation, so it is removed on any error.
    spill: Arc<Spill>,
    dims: usize,
    ok: bool,
}

/// A fresh file name in the temporary folder, unique within the process.
fn fresh_path() -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!("fairsim-trace-{}-{n}.bin", std::process::id()))
}

impl SpillWriter {
    /// `None` when no temporary file can be created (the runs then read the text).
    pub fn create(dims: usize) -> Option<Self> {
        let path = fresh_path();
        let file = File::create(&path).ok()?;
        let spill = Arc::new(Spill { path });
        Some(SpillWriter { out: BufWriter::with_capacity(1 << 20, file), spill, dims, ok: true })
    }

    /// Appends one accepted row.
    pub fn push(&mut self, a: &Arrival, id: &str) {
        if !self.ok {
            return;
        }
        let mut flags = 0;
        flags |= if a.deadline.is_some() { DEADLINE } else { 0 };
        flags |= if a.cost.iter().any(|&c| c > 0) { COST } else { 0 };
        flags |= if id.is_empty() { 0 } else { ID };
        let mut rec = [0u8; 23];
        rec[0..8].copy_from_slice(&a.time.to_le_bytes());
        rec[8..16].copy_from_slice(&a.service.to_le_bytes());
        rec[16..20].copy_from_slice(&a.tenant.to_le_bytes());
        rec[20..22].copy_from_slice(&a.class.to_le_bytes());
        rec[22] = flags;
        let mut ok = self.out.write_all(&rec).is_ok();
        if let Some(d) = a.deadline {
            ok &= self.out.write_all(&d.to_le_bytes()).is_ok();
        }
        if flags & COST != 0 {
            for c in &a.cost[..self.dims] {
                ok &= self.out.write_all(&c.to_le_bytes()).is_ok();
            }
        }
        if flags & ID != 0 {
            ok &= self.out.write_all(&(id.len() as u32).to_le_bytes()).is_ok();
            ok &= self.out.write_all(id.as_bytes()).is_ok();
        }
        self.ok = ok;
    }

    /// The finished spill; `None` if a write failed (a full disk): the file
    /// is removed and the runs read the text.
    pub fn finish(mut self) -> Option<Arc<Spill>> {
        (self.ok && self.out.flush().is_ok()).then_some(self.spill)
    }
}

/// Streams a spill back as arrivals.
pub struct SpillReader {
    input: BufReader<File>,
    dims: usize,
    /// The id of the row last read (empty when it had none). Kept as bytes:
    /// most runs never ask for it (only `jobs.csv` shows it), so it is
    /// checked as text only when asked.
    id: Vec<u8>,
}

impl SpillReader {
    pub fn open(path: &Path, dims: usize) -> std::io::Result<Self> {
        Self::with_buffer(path, dims, 1 << 18)
    }

    /// [`Self::open`] with a read buffer of `bytes`.
    fn with_buffer(path: &Path, dims: usize, bytes: usize) -> std::io::Result<Self> {
        let input = BufReader::with_capacity(bytes, File::open(path)?);
        Ok(SpillReader { input, dims: dims.min(MAX_RESOURCES), id: Vec::new() })
    }

    /// The trace's own id of the row last read; empty when it had none (or
    /// when the spill no longer holds text there, which this process wrote).
    pub fn id(&self) -> &str {
        std::str::from_utf8(&self.id).unwrap_or("")
    }

    fn u64(&mut self) -> std::io::Result<u64> {
        let mut b = [0u8; 8];
        self.input.read_exact(&mut b)?;
        Ok(u64::from_le_bytes(b))
    }

    /// The next row; `Ok(None)` at the end.
    #[inline]
    pub fn next(&mut self) -> std::io::Result<Option<Arrival>> {
        // the usual case: the whole record is in the buffer, read in place
        // (no copy through `read_exact` per field)
        let buf = self.input.fill_buf()?;
        if buf.is_empty() {
            return Ok(None);
        }
        if let Some((a, len)) = Self::parse(buf, self.dims, &mut self.id) {
            self.input.consume(len);
            return Ok(Some(a));
        }
        self.next_split()
    }

    /// The record at the start of `buf` and its length, when `buf` holds
    /// all of it; its id goes into `id` (cleared when it has none).
    #[inline]
    fn parse(buf: &[u8], dims: usize, id: &mut Vec<u8>) -> Option<(Arrival, usize)> {
        let rec = buf.get(..23)?;
        let flags = rec[22];
        let word = |b: &[u8]| {
            let mut w = [0u8; 8];
            w[..b.len()].copy_from_slice(b);
            u64::from_le_bytes(w)
        };
        let mut at = 23;
        let deadline = if flags & DEADLINE != 0 {
            at += 8;
            Some(word(buf.get(at - 8..at)?) as Time)
        } else {
            None
        };
        let mut cost: Res = [0; MAX_RESOURCES];
        if flags & COST != 0 {
            for c in cost.iter_mut().take(dims) {
                at += 8;
                *c = word(buf.get(at - 8..at)?);
            }
        }
        let id_at = if flags & ID != 0 {
            let len = word(buf.get(at..at + 4)?) as usize;
            at += 4 + len;
            Some(buf.get(at - len..at)?)
        } else {
            None
        };
        id.clear();
        if let Some(b) = id_at {
            id.extend_from_slice(b);
        }
        let a = Arrival {
            time: word(&rec[0..8]),
            service: word(&rec[8..16]),
            tenant: word(&rec[16..20]) as TenantId,
            class: word(&rec[20..22]) as ClassId,
            deadline,
            cost,
            failures: 0,
            max_attempts: 1,
            slicing: 0,
            declared_entry: 0,
        };
        Some((a, at))
    }

    /// [`Self::next`] of a record split across the buffer's end.
    fn next_split(&mut self) -> std::io::Result<Option<Arrival>> {
        let mut rec = [0u8; 23];
        // the end of the file is allowed only between records
        let first = self.input.read(&mut rec)?;
        if first == 0 {
            return Ok(None);
        }
        self.input.read_exact(&mut rec[first..])?;
        let word = |r: std::ops::Range<usize>| {
            let mut b = [0u8; 8];
            b[..r.len()].copy_from_slice(&rec[r]);
            u64::from_le_bytes(b)
        };
        let flags = rec[22];
        let deadline = if flags & DEADLINE != 0 { Some(self.u64()? as Time) } else { None };
        let mut cost: Res = [0; MAX_RESOURCES];
        if flags & COST != 0 {
            for c in cost.iter_mut().take(self.dims) {
                *c = self.u64()?;
            }
        }
        self.id.clear();
        if flags & ID != 0 {
            let mut len = [0u8; 4];
            self.input.read_exact(&mut len)?;
            // the last id's buffer, reused: no allocation per row
            self.id.resize(u32::from_le_bytes(len) as usize, 0);
            self.input.read_exact(&mut self.id)?;
        }
        Ok(Some(Arrival {
            time: word(0..8),
            service: word(8..16),
            tenant: word(16..20) as TenantId,
            class: word(20..22) as ClassId,
            deadline,
            cost,
            failures: 0,
            max_attempts: 1,
            slicing: 0,
            declared_entry: 0,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Row `i` of the test spill: every combination of deadline, cost and
    /// id, ids of 0 to 40 bytes, so records are 23 to 91 bytes long.
    fn row(i: u64) -> (Arrival, String) {
        let mut cost: Res = [0; MAX_RESOURCES];
        if i % 3 == 1 {
            cost[0] = i;
            cost[1] = 7;
        }
        let a = Arrival {
            time: i * 1_000_003,
            service: i ^ 0xABCD,
            tenant: (i % 70_000) as TenantId,
            class: (i % 5) as ClassId,
            deadline: (i % 2 == 1).then_some(i * 3),
            cost,
            failures: 0,
            max_attempts: 1,
            slicing: 0,
            declared_entry: 0,
        };
        let id = if i.is_multiple_of(4) { String::new() } else { "x".repeat((i % 41) as usize) };
        (a, id)
    }

    #[test]
    fn every_record_reads_back_whole_wherever_the_buffer_splits_it() {
        let mut w = SpillWriter::create(2).expect("a temporary file");
        for i in 0..5_000 {
            let (a, id) = row(i);
            w.push(&a, &id);
        }
        let spill = w.finish().expect("written");
        // buffers shorter than a record, and lengths prime to every record's
        for bytes in [7, 23, 64, 97, 1 << 18] {
            let mut r = SpillReader::with_buffer(&spill.path, 2, bytes).expect("open");
            for i in 0..5_000 {
                let (a, id) = row(i);
                assert_eq!(r.next().expect("read"), Some(a), "row {i}, buffer {bytes}");
                assert_eq!(r.id(), id, "row {i}, buffer {bytes}");
            }
            assert_eq!(r.next().expect("the end"), None);
        }
    }
}
