//! Byte offsets to 1-based lines and columns.

/// Start offsets of every line, for O(log n) lookups.
#[derive(Debug, Clone)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { starts }
    }

    /// 1-based (line, column) of byte `offset`; the column counts bytes.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let line = self.starts.partition_point(|&s| s <= offset);
        (line, offset - self.starts[line - 1] + 1)
    }

    /// Byte range of 1-based line `line`, without its newline.
    pub fn line_range(&self, text: &str, line: usize) -> std::ops::Range<usize> {
        let start = self.starts[line - 1];
        let end = self.starts.get(line).map_or(text.len(), |s| s - 1);
        start..end
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_map_to_lines_and_columns() {
        let idx = LineIndex::new("ab\ncd\n\nef");
        assert_eq!(idx.line_col(0), (1, 1));
        assert_eq!(idx.line_col(1), (1, 2));
        assert_eq!(idx.line_col(3), (2, 1));
        assert_eq!(idx.line_col(6), (3, 1));
        assert_eq!(idx.line_col(8), (4, 2));
        assert_eq!(idx.line_range("ab\ncd\n\nef", 2), 3..5);
    }
}
