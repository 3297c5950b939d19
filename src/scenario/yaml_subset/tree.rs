//! Reads the common subset of YAML into a tree of borrowed nodes, or gives
//! up with [`Unsupported`] the moment the text leaves that subset.
//!
//! The subset: block mappings and sequences (including a sequence at its
//! key's indentation and `- key: value` items), flow mappings and sequences
//! (which may span lines), single-line plain, single- and double-quoted
//! scalars without escapes, comments and blank lines. Everything else
//! (anchors, aliases, tags, block scalars, multi-line scalars, escapes,
//! directives and document markers, tabs, carriage returns, a byte-order
//! mark, empty values, duplicate keys, `?` keys, merge keys) is
//! `Unsupported`, and the caller hands the text to serde-saphyr instead. A
//! text outside the subset is therefore never misread: it is read by the
//! full parser, which also words every error.

use std::collections::HashSet;

/// The text left the subset; read it with the full parser.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unsupported;

pub type Read<T> = Result<T, Unsupported>;

/// 1-based line and column (in characters) where a node starts, as
/// serde-saphyr reports them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pos {
    pub line: u32,
    pub column: u32,
}

#[derive(Debug)]
pub enum Node<'a> {
    /// `plain` is false for a quoted scalar, whose text is never a number,
    /// a boolean or null.
    Scalar {
        text: &'a str,
        plain: bool,
        at: Pos,
    },
    Map {
        pairs: Vec<(Node<'a>, Node<'a>)>,
        at: Pos,
    },
    Seq {
        items: Vec<Node<'a>>,
        at: Pos,
    },
}

impl Node<'_> {
    pub fn at(&self) -> Pos {
        match self {
            Node::Scalar { at, .. } | Node::Map { at, .. } | Node::Seq { at, .. } => *at,
        }
    }
}

/// The whole document's root node.
pub fn read(text: &str) -> Read<Node<'_>> {
    // tabs and carriage returns change indentation and line rules; a BOM
    // shifts columns; control characters and the Unicode line separators are
    // errors or line breaks to a YAML parser: all are rare in scenario files
    // and left to the full parser, which also makes 0 below mean the end
    let ascii = text.is_ascii();
    let odd_byte = |b: u8| (b < b' ' && b != b'\n') || b == 0x7f;
    let odd_char = |c: char| {
        matches!(c, '\u{80}'..='\u{9f}' | '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}')
    };
    if text.bytes().any(odd_byte) || (!ascii && text.chars().any(odd_char)) {
        return Err(Unsupported);
    }
    // serde-saphyr's budget refuses a text past 64 MiB of scalars or comments
    if text.len() > MAX_TEXT {
        return Err(Unsupported);
    }
    let mut r = Reader {
        text,
        b: text.as_bytes(),
        pos: 0,
        line: 1,
        line_start: 0,
        ascii,
        indent: None,
        depth: 0,
        nodes: 0,
    };
    r.next_content_line();
    let root = match r.indent {
        Some(0) => r.block_node(0)?,
        _ => return Err(Unsupported),
    };
    match r.indent {
        None if r.nodes <= MAX_NODES => Ok(root),
        _ => Err(Unsupported),
    }
}

struct Reader<'a> {
    text: &'a str,
    b: &'a [u8],
    pos: usize,
    line: u32,
    line_start: usize,
    ascii: bool,
    /// After a block element: the indentation of the next content line, the
    /// reader at its first character; `None` at the end of the text.
    indent: Option<usize>,
    /// Collections open around the reader: deep nesting is left to the full
    /// parser's own limits rather than this reader's stack.
    depth: usize,
    /// Nodes met so far (a key probed twice counts twice).
    nodes: usize,
}

/// Below serde-saphyr's default budget (depth 64, 250,000 nodes, 64 MiB of
/// scalars): a text it would refuse for its size must go to it, so that it
/// is refused the same way.
const MAX_DEPTH: usize = 48;
const MAX_NODES: usize = 240_000;
const MAX_TEXT: usize = 32 << 20;

/// Characters that may not start a plain scalar here: YAML indicators, and
/// `-`, `.`, `+`, `:` whose plain readings have special cases.
fn bad_plain_start(c: u8) -> bool {
    matches!(
        c,
        b'-' | b'?'
            | b':'
            | b','
            | b'['
            | b']'
            | b'{'
            | b'}'
            | b'#'
            | b'&'
            | b'*'
            | b'!'
            | b'|'
            | b'>'
            | b'\''
            | b'"'
            | b'%'
            | b'@'
            | b'`'
            | b'.'
            | b'+'
    )
}

impl<'a> Reader<'a> {
    fn peek(&self) -> u8 {
        self.b.get(self.pos).copied().unwrap_or(0)
    }

    fn peek_at(&self, k: usize) -> u8 {
        self.b.get(self.pos + k).copied().unwrap_or(0)
    }

    /// Where the node starting here is; every node asks once.
    fn at(&mut self) -> Pos {
        self.nodes += 1;
        let col = if self.ascii {
            self.pos - self.line_start
        } else {
            self.text[self.line_start..self.pos].chars().count()
        };
        Pos { line: self.line, column: col as u32 + 1 }
    }

    fn skip_spaces(&mut self) -> bool {
        let start = self.pos;
        while self.peek() == b' ' {
            self.pos += 1;
        }
        self.pos > start
    }

    fn newline(&mut self) {
        debug_assert_eq!(self.peek(), b'\n');
        self.pos += 1;
        self.line += 1;
        self.line_start = self.pos;
    }

    fn skip_comment(&mut self) {
        while !matches!(self.peek(), b'\n' | 0) {
            self.pos += 1;
        }
    }

    /// A `#` here starts a comment (it follows a space or a line break).
    fn comment_here(&self) -> bool {
        self.peek() == b'#' && (self.pos == 0 || matches!(self.b[self.pos - 1], b' ' | b'\n'))
    }

    fn enter(&mut self) -> Read<()> {
        self.depth += 1;
        match self.depth > MAX_DEPTH {
            true => Err(Unsupported),
            false => Ok(()),
        }
    }

    /// The rest of the line holds only spaces and a comment; consumes it and
    /// the line break.
    fn finish_line(&mut self) -> Read<()> {
        self.skip_spaces();
        match self.peek() {
            b'#' if self.comment_here() => self.skip_comment(),
            b'\n' | 0 => {}
            _ => return Err(Unsupported),
        }
        if self.peek() == b'\n' {
            self.newline();
        }
        Ok(())
    }

    fn at_line_end(&mut self) -> bool {
        self.skip_spaces();
        matches!(self.peek(), b'\n' | 0) || self.comment_here()
    }

    /// From the start of a line: skips blank and comment lines and sets
    /// `indent` for the next content line.
    fn next_content_line(&mut self) {
        loop {
            let n = self.skip_spaces_count();
            match self.peek() {
                0 => {
                    self.indent = None;
                    return;
                }
                b'\n' => self.newline(),
                b'#' => {
                    self.skip_comment();
                    if self.peek() == b'\n' {
                        self.newline();
                    }
                }
                _ => {
                    self.indent = Some(n);
                    return;
                }
            }
        }
    }

    fn skip_spaces_count(&mut self) -> usize {
        let start = self.pos;
        self.skip_spaces();
        self.pos - start
    }

    fn is_dash(&self) -> bool {
        self.peek() == b'-' && matches!(self.peek_at(1), b' ' | b'\n' | 0)
    }

    /// A block node whose first line has indentation `indent`, the reader at
    /// its first character.
    fn block_node(&mut self, indent: usize) -> Read<Node<'a>> {
        if self.is_dash() {
            self.block_seq(indent, false)
        } else {
            self.block_map(indent)
        }
    }

    fn block_map(&mut self, indent: usize) -> Read<Node<'a>> {
        self.enter()?;
        let at = self.at();
        let mut pairs = Vec::new();
        loop {
            let key = self.block_key()?;
            let value = self.block_value(indent)?;
            pairs.push((key, value));
            match self.indent {
                Some(n) if n == indent => {
                    if self.is_dash() {
                        return Err(Unsupported);
                    }
                }
                Some(n) if n > indent => return Err(Unsupported),
                _ => break,
            }
        }
        check_unique(&pairs)?;
        self.depth -= 1;
        Ok(Node::Map { pairs, at })
    }

    /// `key:` of a block mapping, the `:` consumed.
    fn block_key(&mut self) -> Read<Node<'a>> {
        let key = match self.peek() {
            b'"' | b'\'' => self.quoted()?,
            c if bad_plain_start(c) => return Err(Unsupported),
            _ => {
                let at = self.at();
                let start = self.pos;
                loop {
                    match self.peek() {
                        b':' if matches!(self.peek_at(1), b' ' | b'\n' | 0) => break,
                        b'#' if self.comment_here() => return Err(Unsupported),
                        b'\n' => return Err(Unsupported),
                        0 => return Err(Unsupported),
                        _ => self.pos += 1,
                    }
                }
                let text = self.text[start..self.pos].trim_end_matches(' ');
                if text == "<<" {
                    return Err(Unsupported);
                }
                Node::Scalar { text, plain: true, at }
            }
        };
        if self.peek() != b':' || !matches!(self.peek_at(1), b' ' | b'\n' | 0) {
            return Err(Unsupported);
        }
        self.pos += 1;
        Ok(key)
    }

    /// The value after a block key at indentation `key_indent`; leaves the
    /// reader at the next content line.
    fn block_value(&mut self, key_indent: usize) -> Read<Node<'a>> {
        if self.at_line_end() {
            self.finish_line()?;
            self.next_content_line();
            return match self.indent {
                Some(n) if n > key_indent => self.block_node(n),
                Some(n) if n == key_indent && self.is_dash() => self.block_seq(n, true),
                // an empty value (null)
                _ => Err(Unsupported),
            };
        }
        let value = self.inline_value(key_indent)?;
        self.finish_line()?;
        self.next_content_line();
        Ok(value)
    }

    /// A block sequence; `at_key_indent` when it is a mapping value at its
    /// key's indentation, where serde-saphyr places it at its first item's
    /// content rather than at its dash.
    fn block_seq(&mut self, indent: usize, at_key_indent: bool) -> Read<Node<'a>> {
        self.enter()?;
        let mut at = self.at();
        let mut items = Vec::new();
        loop {
            debug_assert!(self.is_dash());
            self.pos += 1;
            let line_ends = self.at_line_end();
            if at_key_indent && items.is_empty() {
                if line_ends {
                    return Err(Unsupported);
                }
                at = self.at();
            }
            let item = if line_ends {
                self.finish_line()?;
                self.next_content_line();
                match self.indent {
                    Some(n) if n > indent => self.block_node(n)?,
                    _ => return Err(Unsupported),
                }
            } else if self.is_dash() {
                return Err(Unsupported);
            } else if self.key_follows() {
                let column = self.pos - self.line_start;
                self.block_map(column)?
            } else {
                let v = self.inline_value(indent)?;
                self.finish_line()?;
                self.next_content_line();
                v
            };
            items.push(item);
            match self.indent {
                Some(n) if n == indent && self.is_dash() => {}
                Some(n) if n > indent => return Err(Unsupported),
                _ => break,
            }
        }
        self.depth -= 1;
        Ok(Node::Seq { items, at })
    }

    /// Whether a `key:` starts here (a compact mapping in a sequence item).
    fn key_follows(&mut self) -> bool {
        let (pos, line, line_start) = (self.pos, self.line, self.line_start);
        let found = self.block_key().is_ok();
        (self.pos, self.line, self.line_start) = (pos, line, line_start);
        found
    }

    /// A value on the same line as its key or dash: a flow collection or a
    /// one-line scalar.
    fn inline_value(&mut self, block_indent: usize) -> Read<Node<'a>> {
        match self.peek() {
            b'{' | b'[' => self.flow_node(block_indent),
            b'"' | b'\'' => self.quoted(),
            c if bad_plain_start(c) => Err(Unsupported),
            _ => {
                let at = self.at();
                let start = self.pos;
                loop {
                    match self.peek() {
                        b':' if matches!(self.peek_at(1), b' ' | b'\n' | 0) => return Err(Unsupported),
                        b'#' if self.comment_here() => break,
                        b'\n' => break,
                        0 => break,
                        _ => self.pos += 1,
                    }
                }
                let text = self.text[start..self.pos].trim_end_matches(' ');
                Ok(Node::Scalar { text, plain: true, at })
            }
        }
    }

    /// A quoted scalar on one line without escapes.
    fn quoted(&mut self) -> Read<Node<'a>> {
        let at = self.at();
        let q = self.peek();
        self.pos += 1;
        let start = self.pos;
        loop {
            match self.peek() {
                c if c == q => break,
                b'\\' if q == b'"' => return Err(Unsupported),
                b'\n' => return Err(Unsupported),
                0 => return Err(Unsupported),
                _ => self.pos += 1,
            }
        }
        let text = &self.text[start..self.pos];
        self.pos += 1;
        // '' inside single quotes is an escaped quote
        if q == b'\'' && self.peek() == b'\'' {
            return Err(Unsupported);
        }
        if text.is_empty() {
            return Err(Unsupported);
        }
        Ok(Node::Scalar { text, plain: false, at })
    }

    /// Spaces, comments and line breaks inside a flow collection; a
    /// continuation line must be indented past the enclosing block.
    fn flow_space(&mut self, block_indent: usize) -> Read<bool> {
        let mut crossed = false;
        loop {
            self.skip_spaces();
            match self.peek() {
                b'#' if self.comment_here() => self.skip_comment(),
                b'#' => return Err(Unsupported),
                b'\n' => {
                    self.newline();
                    crossed = true;
                    let n = self.skip_spaces_count();
                    if !matches!(self.peek(), b'\n' | b'#' | 0) && n <= block_indent {
                        return Err(Unsupported);
                    }
                }
                _ => return Ok(crossed),
            }
        }
    }

    fn flow_node(&mut self, bi: usize) -> Read<Node<'a>> {
        match self.peek() {
            b'{' => self.flow_map(bi),
            b'[' => self.flow_seq(bi),
            _ => self.flow_scalar(bi),
        }
    }

    fn flow_scalar(&mut self, bi: usize) -> Read<Node<'a>> {
        let node = match self.peek() {
            b'"' | b'\'' => self.quoted()?,
            c if bad_plain_start(c) => return Err(Unsupported),
            _ => {
                let at = self.at();
                let start = self.pos;
                loop {
                    match self.peek() {
                        b':' => match self.peek_at(1) {
                            b' ' | b'\n' | b',' | b'}' | b']' | 0 => break,
                            _ => return Err(Unsupported),
                        },
                        b',' | b'}' | b']' | b'\n' => break,
                        b'[' | b'{' => return Err(Unsupported),
                        b'#' if self.comment_here() => break,
                        0 => return Err(Unsupported),
                        _ => self.pos += 1,
                    }
                }
                let text = self.text[start..self.pos].trim_end_matches(' ');
                Node::Scalar { text, plain: true, at }
            }
        };
        // a plain scalar continued on the next line, or a key whose `:` is
        // on the next line, is outside the subset
        let crossed = self.flow_space(bi)?;
        if crossed && !matches!(self.peek(), b',' | b'}' | b']') {
            return Err(Unsupported);
        }
        Ok(node)
    }

    fn flow_map(&mut self, bi: usize) -> Read<Node<'a>> {
        self.enter()?;
        let at = self.at();
        self.pos += 1;
        self.flow_space(bi)?;
        let mut pairs = Vec::new();
        if self.peek() == b'}' {
            self.pos += 1;
            self.depth -= 1;
            return Ok(Node::Map { pairs, at });
        }
        loop {
            if matches!(self.peek(), b'{' | b'[') {
                return Err(Unsupported);
            }
            let key = self.flow_scalar(bi)?;
            if self.peek() != b':' || !matches!(self.peek_at(1), b' ' | b'\n') {
                return Err(Unsupported);
            }
            self.pos += 1;
            self.flow_space(bi)?;
            if matches!(self.peek(), b',' | b'}') {
                return Err(Unsupported);
            }
            let value = self.flow_node(bi)?;
            pairs.push((key, value));
            if self.flow_closed(bi, b'}')? {
                break;
            }
        }
        check_unique(&pairs)?;
        self.depth -= 1;
        Ok(Node::Map { pairs, at })
    }

    fn flow_seq(&mut self, bi: usize) -> Read<Node<'a>> {
        self.enter()?;
        let at = self.at();
        self.pos += 1;
        self.flow_space(bi)?;
        let mut items = Vec::new();
        if self.peek() == b']' {
            self.pos += 1;
            self.depth -= 1;
            return Ok(Node::Seq { items, at });
        }
        loop {
            items.push(self.flow_node(bi)?);
            if self.flow_closed(bi, b']')? {
                break;
            }
        }
        self.depth -= 1;
        Ok(Node::Seq { items, at })
    }

    /// After an item of a flow collection ending with `close`: the bracket
    /// (true) or a comma and another item (false). A trailing comma, or
    /// anything else (`[a: b]` is a one-pair mapping inside a sequence), is
    /// outside the subset.
    fn flow_closed(&mut self, bi: usize, close: u8) -> Read<bool> {
        self.flow_space(bi)?;
        match self.peek() {
            c if c == close => {
                self.pos += 1;
                Ok(true)
            }
            b',' => {
                self.pos += 1;
                self.flow_space(bi)?;
                match self.peek() == close {
                    true => Err(Unsupported),
                    false => Ok(false),
                }
            }
            _ => Err(Unsupported),
        }
    }
}

/// YAML forbids repeated keys; whether and how the full parser reports one
/// is its business.
fn check_unique<'a>(pairs: &[(Node<'a>, Node<'a>)]) -> Read<()> {
    fn text<'a>(n: &Node<'a>) -> &'a str {
        match n {
            Node::Scalar { text, .. } => text,
            _ => "",
        }
    }
    if pairs.len() <= 16 {
        for (i, (k, _)) in pairs.iter().enumerate() {
            if pairs[..i].iter().any(|(j, _)| text(j) == text(k)) {
                return Err(Unsupported);
            }
        }
        return Ok(());
    }
    let mut seen = HashSet::with_capacity(pairs.len());
    match pairs.iter().all(|(k, _)| seen.insert(text(k))) {
        true => Ok(()),
        false => Err(Unsupported),
    }
}
