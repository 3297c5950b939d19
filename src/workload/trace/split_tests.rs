//! The splitter against the csv crate read as the trace reader always read
//! it (header trimmed, field counts checked): the same header, the same
//! records with the same line numbers, the same ragged rows and errors, on
//! edge inputs and on generated ones, whole and trickled a few bytes a read.

use super::*;
use proptest::prelude::*;

#[derive(Debug, PartialEq)]
enum Out {
    Header(Vec<String>, Vec<Vec<u8>>),
    Record(u64, Vec<Vec<u8>>),
    Ragged(u64, usize),
    Error(String),
}

/// What the csv crate alone gives for `input`.
fn by_crate(input: &[u8]) -> Vec<Out> {
    let mut reader = ::csv::ReaderBuilder::new().trim(::csv::Trim::Headers).from_reader(input);
    let header = match (reader.headers().cloned(), reader.byte_headers().cloned()) {
        (Ok(h), Ok(b)) => {
            Out::Header(h.iter().map(String::from).collect(), b.iter().map(Vec::from).collect())
        }
        (Err(e), _) | (_, Err(e)) => return vec![Out::Error(e.to_string())],
    };
    let mut out = vec![header];
    let mut rec = ::csv::ByteRecord::new();
    loop {
        match reader.read_byte_record(&mut rec) {
            Ok(false) => return out,
            Ok(true) => out.push(Out::Record(
                rec.position().expect("a record has a position").line(),
                rec.iter().map(Vec::from).collect(),
            )),
            Err(e) => match e.kind() {
                ::csv::ErrorKind::UnequalLengths { pos, len, .. } => {
                    out.push(Out::Ragged(pos.as_ref().expect("a position").line(), *len as usize))
                }
                _ => {
                    out.push(Out::Error(e.to_string()));
                    return out;
                }
            },
        }
    }
}

/// Hands out at most `chunk` bytes a read, so records straddle refills.
struct Trickle<'a> {
    rest: &'a [u8],
    chunk: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.chunk.min(buf.len()).min(self.rest.len());
        buf[..n].copy_from_slice(&self.rest[..n]);
        self.rest = &self.rest[n..];
        Ok(n)
    }
}

/// What the splitter gives for `input`, read `chunk` bytes at a time.
fn by_splitter(input: &[u8], chunk: usize) -> Vec<Out> {
    let (mut split, (header, bytes)) = match Splitter::new(Trickle { rest: input, chunk }) {
        Ok(x) => x,
        Err(e) => return vec![Out::Error(e.to_string())],
    };
    let mut out =
        vec![Out::Header(header.iter().map(String::from).collect(), bytes.iter().map(Vec::from).collect())];
    loop {
        match split.next() {
            Ok(Split::End) => return out,
            Ok(Split::Record { line, text, fields, ascii }) => {
                assert!(!ascii || text.is_ascii(), "{text:?} taken for ASCII");
                out.push(Out::Record(line, fields.iter().map(|r| text[r.clone()].to_vec()).collect()))
            }
            Ok(Split::Ragged { line, len }) => out.push(Out::Ragged(line, len)),
            Err(e) => {
                out.push(Out::Error(e.to_string()));
                return out;
            }
        }
    }
}

fn same(input: &[u8]) {
    let want = by_crate(input);
    for chunk in [1, 2, 3, 7, usize::MAX] {
        assert_eq!(
            by_splitter(input, chunk),
            want,
            "{:?} read {chunk} bytes at a time",
            String::from_utf8_lossy(input)
        );
    }
}

#[test]
fn edge_inputs_split_as_the_csv_crate_splits_them() {
    let cases: &[&[u8]] = &[
        b"id,t\n1,a\n2,b\n",
        b"id,t\n1,a\n2,b",
        b"id,t\r\n1,a\r\n2,b\r\n",
        b"id,t\r1,a\r2,b",
        b"id,t\n,\n1,\n,a\n",
        b"id,t\n\n\n1,a\n\r\n\r\n2,b\n\n",
        b"\n\r\nid,t\n1,a",
        b"\xef\xbb\xbfid,t\n1,a\n",
        b"\xef\xbb\xbf\nid,t\n1,a\n",
        b"id,t\n\xef\xbb\xbf1,a\n",
        b"id,t\n\xef\xbb\xbf\"1\",a\n2,b\n",
        b"\"id\",t\n1,a\n2,\"b\"\n",
        b"id,t\n1,a\n\"2,x\",b\n3,c\n",
        b"id,t\n1,\"a\nb\"\n2,c\n\n3,d",
        b"id,t\n1,a\"b\n2,c\n",
        b"id,t\n1\n1,a,b\n2,c\n",
        b"id,t\n\"1\"\n1,a,b\n2,c\n",
        b"id,t\r\n1,a\r\n\"2\",b\r\n3,c\r\n",
        b"id,t\r\"1\",a\r2,b",
        b"id,t\n",
        b"id,t",
        b"",
        b"\n\n",
        b"\xef\xbb\xbf",
        b" id , t \n 1 , a \n",
        b"i\xffd,t\n1,a\n",
        b"id,t\n1,\xff\n",
        b"id,t\n1,\"unterminated\n2,b\n",
    ];
    for input in cases {
        same(input);
    }
    // the first data row, the quoted one and the row after the quoted
    // newline are on lines 2, 3 and 5 of `id,t / 1,a / "x / y",b / 2,c`
    let lines: Vec<u64> = by_splitter(b"id,t\n1,a\n\"x\ny\",b\n2,c\n", usize::MAX)
        .iter()
        .filter_map(|o| match o {
            Out::Record(line, _) => Some(*line),
            _ => None,
        })
        .collect();
    assert_eq!(lines, [2, 3, 5]);
    // the crate numbers a record by the `\n` read before it, and reads a
    // CRLF's `\n` only with the next record: in `id,t\r\n1,a\r\n2,b\r\n` the
    // rows an editor shows on lines 2 and 3 come out as 1 and 2, on both paths
    let crlf = by_splitter(b"id,t\r\n1,a\r\n2,b\r\n", usize::MAX);
    assert_eq!(
        crlf[1..],
        [
            Out::Record(1, vec![b"1".to_vec(), b"a".to_vec()]),
            Out::Record(2, vec![b"2".to_vec(), b"b".to_vec()])
        ]
    );
}

#[test]
fn a_record_longer_than_the_buffer_is_read_whole() {
    // 200,000 bytes in one field: more than three times the 64 KiB buffer
    let long = "x".repeat(200_000);
    let input = format!("id,t\n1,{long}\n2,b\n");
    same(input.as_bytes());
    let out = by_splitter(input.as_bytes(), usize::MAX);
    assert_eq!(out[1], Out::Record(2, vec![b"1".to_vec(), long.into_bytes()]));
}

/// Inputs made of the bytes that steer a CSV tokeniser.
fn pieces() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop::sample::select(vec![
        &b"a"[..],
        b"1",
        b",",
        b",",
        b"\n",
        b"\r",
        b"\r\n",
        b"\"",
        b" ",
        b"\xef\xbb\xbf",
        b"\xff",
    ]);
    prop::collection::vec(piece, 0..40).prop_map(|p| p.concat())
}

/// Quote-free rows after a plain header, with now and then one quote: the
/// hand path, and a hand-over in the middle.
fn mostly_plain() -> impl Strategy<Value = Vec<u8>> {
    let field = prop::sample::select(vec!["", "a", "12", " b "]);
    let row = (prop::collection::vec(field, 1..4), prop::sample::select(vec!["\n", "\r\n", "\r", "\n\n"]))
        .prop_map(|(f, end)| format!("{}{end}", f.join(",")));
    (prop::collection::vec(row, 0..12), any::<prop::sample::Index>(), any::<bool>()).prop_map(
        |(rows, at, quote)| {
            let mut text = format!("id,t,x\n{}", rows.concat());
            if quote && !text.is_empty() {
                text.insert(at.index(text.len()), '"');
            }
            text.into_bytes()
        },
    )
}

proptest! {
    #[test]
    fn generated_inputs_split_as_the_csv_crate_splits_them(input in pieces()) {
        let want = by_crate(&input);
        for chunk in [1, 3, usize::MAX] {
            prop_assert_eq!(&by_splitter(&input, chunk), &want);
        }
    }

    #[test]
    fn generated_tables_split_as_the_csv_crate_splits_them(input in mostly_plain()) {
        let want = by_crate(&input);
        for chunk in [1, 5, usize::MAX] {
            prop_assert_eq!(&by_splitter(&input, chunk), &want);
        }
    }
}
