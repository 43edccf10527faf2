//! Just enough of a C++ lexer for the translator's rewrites: identifiers, string and character
//! literals, preprocessor directives and single punctuation characters, with comments skipped.
//! Rewrites then match short token sequences (`extern "C"`, `extern __shared__ ... [];`) and
//! never touch text inside comments or strings.

use std::ops::Range;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Ident,
    /// A string literal, quotes included.
    Str,
    /// A character literal or a number: nothing the rewrites look at.
    Other,
    /// A whole preprocessor directive, continuation lines included.
    Directive,
    Punct(u8),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    pub kind: Kind,
    pub span: Range<usize>,
}

impl Token {
    pub fn text<'s>(&self, src: &'s str) -> &'s str {
        &src[self.span.clone()]
    }

    pub fn is_ident(&self, src: &str, name: &str) -> bool {
        self.kind == Kind::Ident && self.text(src) == name
    }
}

/// The tokens of `src`, comments left out.
pub fn tokens(src: &str) -> Vec<Token> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    // True while only whitespace has been seen since the last newline: where `#` starts a directive.
    let mut line_start = true;
    while i < b.len() {
        let c = b[i];
        let start = i;
        match c {
            b'\n' => {
                line_start = true;
                i += 1;
                continue;
            }
            c if c.is_ascii_whitespace() => {
                i += 1;
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = src[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
                continue;
            }
            b'#' if line_start => {
                i = directive_end(b, i);
                out.push(Token { kind: Kind::Directive, span: start..i });
                continue;
            }
            b'"' | b'\'' => {
                i = literal_end(b, i);
                out.push(Token { kind: if c == b'"' { Kind::Str } else { Kind::Other }, span: start..i });
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                out.push(Token { kind: Kind::Ident, span: start..i });
            }
            c if c.is_ascii_digit() => {
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.' || b[i] == b'\'') {
                    i += 1;
                }
                out.push(Token { kind: Kind::Other, span: start..i });
            }
            c if c.is_ascii() => {
                i += 1;
                out.push(Token { kind: Kind::Punct(c), span: start..i });
            }
            _ => {
                // A non-ASCII character outside comments and strings: skip the whole character.
                i += src[i..].chars().next().map_or(1, char::len_utf8);
                out.push(Token { kind: Kind::Other, span: start..i });
            }
        }
        line_start = false;
    }
    out
}

/// The end of the directive starting at `i`: the first newline not escaped by a backslash.
fn directive_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i] != b'\n' {
        if b[i] == b'\\' && b.get(i + 1) == Some(&b'\n') {
            i += 2;
            continue;
        }
        if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
            // A block comment inside a directive may span lines; skip it whole.
            i = b[i + 2..].windows(2).position(|w| w == b"*/").map_or(b.len(), |e| i + 2 + e + 2);
            continue;
        }
        i += 1;
    }
    i
}

fn literal_end(b: &[u8], mut i: usize) -> usize {
    let quote = b[i];
    i += 1;
    while i < b.len() && b[i] != quote && b[i] != b'\n' {
        i += if b[i] == b'\\' { 2 } else { 1 };
    }
    (i + 1).min(b.len())
}

/// The macro a `#define` directive defines, if it is one.
pub fn defined_macro(directive: &str) -> Option<&str> {
    let rest = directive.strip_prefix('#')?.trim_start();
    let rest = rest.strip_prefix("define")?;
    if !rest.starts_with([' ', '\t']) {
        return None;
    }
    let rest = rest.trim_start();
    let end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
    (end > 0).then(|| &rest[..end])
}

/// Whether a directive is an `#include`.
pub fn is_include(directive: &str) -> bool {
    directive.strip_prefix('#').is_some_and(|r| r.trim_start().starts_with("include"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn idents(src: &str) -> Vec<&str> {
        tokens(src).into_iter().filter(|t| t.kind == Kind::Ident).map(|t| &src[t.span]).collect()
    }

    #[test]
    fn comments_and_strings_hide_their_words() {
        let src = "a // __syncthreads()\n/* extern \"C\" */ b \"__shared__\" 'c' d";
        assert_eq!(idents(src), ["a", "b", "d"]);
    }

    #[test]
    fn directives_are_one_token_with_their_continuations() {
        let src = "#define SYNC \\\n  __syncthreads()\nint x;\n  # include <cuda_fp16.h>\n";
        let t = tokens(src);
        assert_eq!(t[0].kind, Kind::Directive);
        assert_eq!(defined_macro(t[0].text(src)), Some("SYNC"));
        assert!(t[0].text(src).contains("__syncthreads"));
        assert_eq!(idents(src), ["int", "x"]);
        assert!(is_include(t.last().unwrap().text(src)));
    }

    #[test]
    fn hash_inside_a_line_is_not_a_directive() {
        let src = "a # b\n";
        assert!(tokens(src).iter().all(|t| t.kind != Kind::Directive));
    }
}
