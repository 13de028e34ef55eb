//! How the `compile` and `hiera_yaml` targets cut one input into several files: at lines
//! that are exactly `##----` (a comment in Puppet and YAML, so a seed reads naturally).
//! Each section keeps its text up to the separator, its last newline included.

/// The separator line, without its newline.
pub const SEPARATOR: &str = "##----";

/// The sections of `text`: one more than the separator lines it has.
pub fn split(text: &str) -> Vec<&str> {
    let mut sections = Vec::new();
    let mut start = 0;
    let mut pos = 0;
    for line in text.split_inclusive('\n') {
        if line.trim_end_matches(['\n', '\r']) == SEPARATOR {
            sections.push(&text[start..pos]);
            start = pos + line.len();
        }
        pos += line.len();
    }
    sections.push(&text[start..]);
    sections
}
