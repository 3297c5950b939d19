//! Splits a CSV trace into records: by hand while no record has a quote
//! character, by the csv crate from the first one that has.
//!
//! A job-table export rarely quotes anything, and the csv crate's
//! tokeniser (a state machine run on every byte) was a sixth of the first
//! pass. For a record without `"` the crate's rules reduce to: records end
//! at `\r`, `\n` or `\r\n`, blank lines are skipped, fields end at `,`. The
//! hand path applies exactly those; at a record with a quote the rest of
//! the file goes to the crate, so quoted fields (which may hold commas and
//! line breaks) keep the crate's meaning. Line numbers follow the crate's
//! too: a record's line is the crate's count of `\n` read before the
//! record, taken before the blank lines ahead of it are skipped (so in a
//! CRLF file it is one less than the line an editor shows; kept identical
//! so that messages do not depend on which path read the row).

use std::io::{Chain, Cursor, Read};
use std::ops::Range;

const BOM: &[u8] = b"\xef\xbb\xbf";

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `word` that is `c`. Exact: no carry
/// crosses a byte, since each byte's sum is at most 0x7f + 0x7f.
fn bytes_equal(word: u64, c: u8) -> u64 {
    let x = word ^ (ONES * u64::from(c));
    !(((x & !HIGH) + !HIGH) | x) & HIGH
}

/// What [`Splitter::next`] read.
pub(super) enum Split<'a> {
    /// A record: its 1-based line, its bytes and each field's range in them;
    /// `ascii` when every byte is known to be ASCII (so the text is UTF-8).
    Record {
        line: u64,
        text: &'a [u8],
        fields: &'a [Range<usize>],
        ascii: bool,
    },
    /// A record whose field count is not the header's.
    Ragged {
        line: u64,
        len: usize,
    },
    End,
}

pub(super) type Header = (::csv::StringRecord, ::csv::ByteRecord);

type Rest<R> = Chain<Cursor<Vec<u8>>, R>;

/// The csv crate reading from some record on: its line numbers shifted to
/// the file's, and the header length checked here (it reads flexibly).
struct Fallback<R: Read> {
    reader: ::csv::Reader<Rest<R>>,
    rec: ::csv::ByteRecord,
    /// Added to the crate's line numbers.
    shift: i64,
    /// The line of the first record, taken before a `\n` the crate did not see.
    first: Option<u64>,
}

/// Streaming record splitter of a CSV file after its header.
pub(super) struct Splitter<R: Read> {
    input: Option<R>,
    buf: Vec<u8>,
    /// Unread bytes are `buf[pos..end]`.
    pos: usize,
    end: usize,
    eof: bool,
    /// 1 + the `\n` consumed, as the crate counts.
    line: u64,
    header_len: usize,
    fields: Vec<Range<usize>>,
    fallback: Option<Fallback<R>>,
}

fn reader_builder() -> ::csv::ReaderBuilder {
    let mut b = ::csv::ReaderBuilder::new();
    b.trim(::csv::Trim::Headers);
    b
}

impl<R: Read> Splitter<R> {
    /// Reads the header (with the csv crate, so its text, trimming and
    /// errors are the crate's) and readies the records after it.
    /// Returns the header as text and as bytes (both trimmed, as the crate trims them).
    pub(super) fn new(input: R) -> Result<(Self, Header), ::csv::Error> {
        let mut s = Splitter {
            input: Some(input),
            buf: vec![0; 1 << 16],
            pos: 0,
            end: 0,
            eof: false,
            line: 1,
            header_len: 0,
            fields: Vec::new(),
            fallback: None,
        };
        s.fill()?;
        // the crate strips a BOM at the very start only, then skips blank lines
        // nothing is consumed before the header's end, so indices into `buf` stay valid
        while s.end < BOM.len() && !s.eof {
            s.fill()?;
        }
        let mut at = if s.buf[..s.end].starts_with(BOM) { BOM.len() } else { 0 };
        loop {
            while at < s.end && matches!(s.buf[at], b'\r' | b'\n') {
                at += 1;
            }
            if at < s.end || s.eof {
                break;
            }
            s.fill()?;
        }
        let stop = loop {
            match memchr::memchr3(b'\r', b'\n', b'"', &s.buf[at..s.end]) {
                Some(i) => break Some(at + i),
                None if s.eof => break None,
                None => {
                    at = s.end;
                    s.fill()?;
                }
            }
        };
        if stop.is_some_and(|i| s.buf[i] == b'"') {
            // a quoted header: the crate reads the whole file, as it always did
            let mut reader = reader_builder().flexible(true).from_reader(s.rest(0));
            let header = (reader.headers()?.clone(), reader.byte_headers()?.clone());
            s.header_len = header.0.len();
            s.fallback = Some(Fallback { reader, rec: ::csv::ByteRecord::new(), shift: 0, first: None });
            return Ok((s, header));
        }
        let header_end = stop.map_or(s.end, |i| i + 1);
        let mut reader = reader_builder().from_reader(&s.buf[..header_end]);
        let header = (reader.headers()?.clone(), reader.byte_headers()?.clone());
        drop(reader);
        s.line += memchr::memchr_iter(b'\n', &s.buf[..header_end]).count() as u64;
        s.pos = header_end;
        s.header_len = header.0.len();
        Ok((s, header))
    }

    /// The unread bytes from `buf[from..]` on, then the rest of the input.
    fn rest(&mut self, from: usize) -> Rest<R> {
        let head = self.buf[from..self.end].to_vec();
        let input = self.input.take().expect("the input is handed over once");
        Cursor::new(head).chain(input)
    }

    /// Moves the unread bytes to the front and reads more after them.
    fn fill(&mut self) -> std::io::Result<()> {
        self.buf.copy_within(self.pos..self.end, 0);
        self.end -= self.pos;
        self.pos = 0;
        if self.end == self.buf.len() {
            // a record longer than the buffer
            self.buf.resize(self.buf.len() * 2, 0);
        }
        let input = self.input.as_mut().expect("reading by hand");
        loop {
            match input.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(());
                }
                Ok(n) => {
                    self.end += n;
                    return Ok(());
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// The next record.
    pub(super) fn next(&mut self) -> Result<Split<'_>, ::csv::Error> {
        if self.fallback.is_none() {
            // the record's line is taken before blank lines are skipped
            let line = self.line;
            loop {
                while self.pos < self.end && matches!(self.buf[self.pos], b'\r' | b'\n') {
                    self.line += u64::from(self.buf[self.pos] == b'\n');
                    self.pos += 1;
                }
                if self.pos < self.end {
                    break;
                }
                if self.eof {
                    return Ok(Split::End);
                }
                self.fill()?;
            }
            // Eight bytes a step: the commas and the first stop byte (`\r`,
            // `\n`, `"`) of each word at once, and whether every byte is
            // ASCII (then the record is UTF-8 without a check). Offsets are
            // from the record's start, which a refill moves.
            self.fields.clear();
            let (mut scanned, mut field, mut high) = (0, 0, 0u64);
            let stop = loop {
                let at = self.pos + scanned;
                let word = match self.buf[..self.end].get(at..at + 8) {
                    Some(w) => u64::from_le_bytes(w.try_into().expect("8 bytes")),
                    None if self.eof => {
                        // the last bytes of the file, padded with NULs (no stop, no comma)
                        let mut w = [0u8; 8];
                        w[..self.end - at].copy_from_slice(&self.buf[at..self.end]);
                        u64::from_le_bytes(w)
                    }
                    None => {
                        self.fill()?;
                        continue;
                    }
                };
                let stops = bytes_equal(word, b'\n') | bytes_equal(word, b'\r') | bytes_equal(word, b'"');
                // the bits of the bytes before the first stop (all, without one)
                let before = stops.wrapping_sub(1) & !stops;
                let mut commas = bytes_equal(word, b',') & before;
                while commas != 0 {
                    let comma = scanned + commas.trailing_zeros() as usize / 8;
                    self.fields.push(field..comma);
                    field = comma + 1;
                    commas &= commas - 1;
                }
                high |= word & before;
                if stops != 0 {
                    break self.pos + scanned + stops.trailing_zeros() as usize / 8;
                }
                if at + 8 >= self.end && self.eof {
                    break self.end;
                }
                scanned += 8;
            };
            let start = self.pos;
            if stop < self.end && self.buf[stop] == b'"' {
                self.hand_over(start, line);
            } else {
                self.pos = (stop + 1).min(self.end);
                self.line += u64::from(stop < self.end && self.buf[stop] == b'\n');
                let text = &self.buf[start..stop];
                self.fields.push(field..text.len());
                if self.fields.len() != self.header_len {
                    return Ok(Split::Ragged { line, len: self.fields.len() });
                }
                let ascii = high & HIGH == 0;
                return Ok(Split::Record { line, text, fields: &self.fields, ascii });
            }
        }
        let f = self.fallback.as_mut().expect("handed over");
        if !f.reader.read_byte_record(&mut f.rec)? {
            return Ok(Split::End);
        }
        let at = f.rec.position().map_or(0, |p| p.line());
        let line = f.first.take().unwrap_or((at as i64 + f.shift) as u64);
        self.fields.clear();
        self.fields.extend((0..f.rec.len()).filter_map(|i| f.rec.range(i)));
        if self.fields.len() != self.header_len {
            return Ok(Split::Ragged { line, len: self.fields.len() });
        }
        Ok(Split::Record { line, text: f.rec.as_slice(), fields: &self.fields, ascii: false })
    }

    /// Gives the rest of the file, from the record at `buf[start..]` (whose
    /// line is `line`), to the csv crate.
    fn hand_over(&mut self, start: usize, line: u64) {
        // a `\n` ahead keeps the crate from stripping a BOM that starts the
        // record; it counts it, so its line 2 is `self.line` here
        let mut head = Vec::with_capacity(self.end - start + 1);
        head.push(b'\n');
        head.extend_from_slice(&self.buf[start..self.end]);
        let input = self.input.take().expect("the input is handed over once");
        let reader =
            reader_builder().has_headers(false).flexible(true).from_reader(Cursor::new(head).chain(input));
        self.fallback = Some(Fallback {
            reader,
            rec: ::csv::ByteRecord::new(),
            shift: self.line as i64 - 2,
            first: Some(line),
        });
        self.buf = Vec::new();
    }
}

#[cfg(test)]
#[path = "split_tests.rs"]
mod tests;
