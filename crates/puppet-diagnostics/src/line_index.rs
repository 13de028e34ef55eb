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
        let mut starts = vec![0];
        for (i, b) in text.bytes().enumerate() {
            if b == b'\n' {
                starts.push(i as u32 + 1);
            }
        }
        LineIndex { starts }
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
