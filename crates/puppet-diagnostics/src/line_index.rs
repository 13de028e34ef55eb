//! Byte offsets to line and column, as Puppet reports them.
//!
//! Lines are 1-based; columns are 1-based and count characters, not bytes (Puppet's
//! `Locator` counts characters on the line).

use text_size::TextSize;

/// A 1-based line and column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub struct LineCol {
    pub line: u32,
    pub col: u32,
}

/// Start offsets of every line of a text.
///
/// ```
/// use puppet_diagnostics::{LineIndex, LineCol};
/// let idx = LineIndex::new("a\nbé c");
/// assert_eq!(idx.line_col("a\nbé c", 6.into()), LineCol { line: 2, col: 4 });
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineIndex {
    starts: Vec<u32>,
}

impl LineIndex {
    pub fn new(text: &str) -> Self {
        // Eight bytes at a time: a word without a line break costs a few operations.
        const LF: u64 = 0x0a0a_0a0a_0a0a_0a0a;
        const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
        const HIGH: u64 = 0x8080_8080_8080_8080;
        let bytes = text.as_bytes();
        let mut starts = Vec::with_capacity(bytes.len() / 32 + 1);
        starts.push(0);
        let mut chunks = bytes.chunks_exact(8);
        let mut base = 0u32;
        for chunk in &mut chunks {
            // `chunks_exact(8)` gives 8-byte slices: one unaligned load, no `memcpy` call.
            let word: [u8; 8] = chunk.try_into().unwrap_or_default();
            let x = u64::from_le_bytes(word) ^ LF;
            // The high bit of a byte of `found` is set exactly where `x` has a zero byte,
            // that is where the text has a `\n` (no carry crosses bytes).
            let mut found = !(((x & LOW7) + LOW7) | x) & HIGH;
            while found != 0 {
                starts.push(base + found.trailing_zeros() / 8 + 1);
                found &= found - 1;
            }
            base += 8;
        }
        for (i, &b) in chunks.remainder().iter().enumerate() {
            if b == b'\n' {
                starts.push(base + i as u32 + 1);
            }
        }
        LineIndex { starts }
    }

    /// The 1-based line of a byte offset in `text` (the text this index was built from):
    /// [`LineIndex::line_col`]'s line, without counting the column's characters.
    pub fn line(&self, text: &str, offset: TextSize) -> u32 {
        let offset = u32::from(offset).min(text.len() as u32);
        self.starts.partition_point(|&s| s <= offset) as u32
    }

    /// Line and column of a byte offset in `text` (the text this index was built from).
    pub fn line_col(&self, text: &str, offset: TextSize) -> LineCol {
        let offset = u32::from(offset).min(text.len() as u32);
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let start = self.starts[line] as usize;
        let mut end = offset as usize;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let col = text[start..end].chars().count() as u32 + 1;
        LineCol {
            line: line as u32 + 1,
            col,
        }
    }

    /// The number of lines.
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    /// Always false: a text has at least one line.
    pub fn is_empty(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_is_line_col_s_line_at_every_offset() {
        let text = "a\nbé\n\n  x\r\nlast";
        let index = LineIndex::new(text);
        for offset in 0..=text.len() as u32 + 2 {
            let offset = TextSize::from(offset);
            assert_eq!(
                index.line(text, offset),
                index.line_col(text, offset).line,
                "{offset:?}"
            );
        }
    }

    #[test]
    fn line_starts_are_found_at_every_position() {
        let pieces = ["\n", "a", "é", "\r\n", "\u{10a0a}", "\x0b", "\t"];
        for n in 0..2000usize {
            // A text whose pieces come from the digits of `n` in base 7, in every alignment.
            let mut text = "x".repeat(n % 9);
            let mut m = n;
            while m > 0 {
                text.push_str(pieces[m % pieces.len()]);
                m /= pieces.len();
            }
            let mut want = vec![0];
            want.extend(
                text.bytes()
                    .enumerate()
                    .filter(|&(_, b)| b == b'\n')
                    .map(|(i, _)| i as u32 + 1),
            );
            assert_eq!(LineIndex::new(&text).starts, want, "{text:?}");
        }
    }
}
