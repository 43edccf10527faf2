//! Plain-text tables for the terminal: the first column left-aligned, the others right-aligned.

/// Render `rows` under `header`, columns separated by two spaces.
pub fn render(header: &[&str], rows: &[Vec<String>]) -> String {
    let columns = header.len();
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: Vec<&str>| {
        let mut out = String::new();
        for (i, (cell, w)) in cells.iter().zip(&widths).enumerate() {
            if i > 0 {
                out.push_str("  ");
            }
            let pad = w.saturating_sub(cell.chars().count());
            if i == 0 {
                out.push_str(cell);
                out.extend(std::iter::repeat_n(' ', pad));
            } else {
                out.extend(std::iter::repeat_n(' ', pad));
                out.push_str(cell);
            }
        }
        out.trim_end().to_owned() + "\n"
    };
    let mut out = line(header.to_vec());
    for row in rows {
        let mut cells: Vec<&str> = row.iter().map(String::as_str).collect();
        cells.resize(columns, "");
        out.push_str(&line(cells));
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn first_column_left_others_right() {
        let t = super::render(&["name", "n"], &[vec!["a".into(), "10".into()], vec!["long".into(), "2".into()]]);
        assert_eq!(t, "name   n\na     10\nlong   2\n");
    }
}
