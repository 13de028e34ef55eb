//! Ruby 3.1's "Did you mean?" suggestions (the did_you_mean gem's `SpellChecker`, with its
//! Jaro-Winkler and Levenshtein distances) for the NoMethodError of a built-in receiver:
//! the message gets `"\nDid you mean?  name"` (more names on lines of their own), as Ruby's
//! `NoMethodError#message` shows it. A nil receiver gets none (the gem excludes all of
//! nil's methods).

/// The suffix Ruby appends to the message of `name` missing among `dictionary`.
pub(crate) fn suffix(name: &str, dictionary: &[&str]) -> String {
    let words = correct(name, dictionary);
    if words.is_empty() {
        return String::new();
    }
    format!("\nDid you mean?  {}", words.join("\n               "))
}

fn normalize(s: &str) -> Vec<char> {
    s.to_lowercase().chars().filter(|c| *c != '@').collect()
}

/// `DidYouMean::SpellChecker#correct` over a method dictionary (Ruby 3.1's did_you_mean
/// does not yet keep writers and readers apart: `first=` suggests `first`).
fn correct<'a>(input: &str, dict: &[&'a str]) -> Vec<&'a str> {
    let norm_input = normalize(input);
    let threshold = if norm_input.len() > 3 { 0.834 } else { 0.77 };
    let mut words: Vec<(&str, f64)> = dict
        .iter()
        .filter(|w| jaro_winkler(&normalize(w), &norm_input) >= threshold)
        .filter(|w| **w != input)
        .map(|w| {
            (
                *w,
                jaro_winkler(&w.chars().collect::<Vec<_>>(), &norm_input),
            )
        })
        .collect();
    // `sort_by!` then `reverse!`: the closest first.
    words.sort_by(|a, b| a.1.partial_cmp(&b.1).unwrap_or(std::cmp::Ordering::Equal));
    words.reverse();
    let lev_threshold = (norm_input.len() as f64 * 0.25).ceil() as usize;
    let corrections: Vec<&str> = words
        .iter()
        .filter(|(w, _)| levenshtein(&normalize(w), &norm_input) <= lev_threshold)
        .map(|(w, _)| *w)
        .collect();
    if !corrections.is_empty() {
        return corrections;
    }
    words
        .iter()
        .filter(|(w, _)| {
            let w = normalize(w);
            let length = norm_input.len().min(w.len());
            levenshtein(&w, &norm_input) < length
        })
        .map(|(w, _)| *w)
        .take(1)
        .collect()
}

fn jaro(a: &[char], b: &[char]) -> f64 {
    let (s1, s2) = if a.len() > b.len() { (b, a) } else { (a, b) };
    let (l1, l2) = (s1.len(), s2.len());
    let range = (l2 / 2).saturating_sub(1);
    let mut flags1 = vec![false; l1];
    let mut flags2 = vec![false; l2];
    let mut m = 0.0;
    for i in 0..l1 {
        let last = i + range;
        let mut j = i.saturating_sub(range);
        while j <= last && j < l2 {
            if !flags2[j] && s1[i] == s2[j] {
                flags2[j] = true;
                flags1[i] = true;
                m += 1.0;
                break;
            }
            j += 1;
        }
    }
    let mut t = 0.0;
    let mut k = 0;
    for i in 0..l1 {
        if flags1[i] {
            let mut index = k;
            let mut j = k;
            while j < l2 {
                index = j;
                if flags2[j] {
                    k = j + 1;
                    break;
                }
                j += 1;
            }
            if s2.get(index) != Some(&s1[i]) {
                t += 1.0;
            }
        }
    }
    let t = (t / 2.0f64).floor();
    if m == 0.0 {
        0.0
    } else {
        (m / l1 as f64 + m / l2 as f64 + (m - t) / m) / 3.0
    }
}

fn jaro_winkler(a: &[char], b: &[char]) -> f64 {
    let d = jaro(a, b);
    if d <= 0.7 {
        return d;
    }
    let mut prefix = 0.0;
    for (i, c) in a.iter().enumerate() {
        if i < 4 && b.get(i) == Some(c) {
            prefix += 1.0;
        } else {
            break;
        }
    }
    d + prefix * 0.1 * (1.0 - d)
}

fn levenshtein(a: &[char], b: &[char]) -> usize {
    let (n, m) = (a.len(), b.len());
    if n == 0 {
        return m;
    }
    if m == 0 {
        return n;
    }
    let mut d: Vec<usize> = (0..=m).collect();
    let mut x = 0;
    for (i, ca) in a.iter().enumerate() {
        let mut e = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            x = (d[j + 1] + 1).min(e + 1).min(d[j] + cost);
            d[j] = e;
            e = x;
        }
        d[m] = x;
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_as_ruby_does() {
        assert_eq!(correct("lenght", &["length", "size", "last"]), ["length"]);
        assert!(correct("upcase", crate::ruby_methods::INTEGER).is_empty());
        assert_eq!(levenshtein(&normalize("kitten"), &normalize("sitting")), 3);
    }
}
