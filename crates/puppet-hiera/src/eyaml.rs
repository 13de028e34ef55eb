//! hiera-eyaml's decryption, natively: what Puppet 7.23's `eyaml_lookup_key` does to a string
//! with hiera-eyaml 3.3 (the lookup itself is in `lookup/eyaml.rs`).
//!
//! * [`is_encrypted`] and [`decrypt_string`]: the `ENC[...]` blocks of a string (Ruby's
//!   `/.*ENC\[.*?\]/` test, then the hiera backend parser: `ENC[SCHEME,base64]`, the base64
//!   possibly broken by spaces and newlines), each replaced by its plain text, the result
//!   `chomp`ed. Errors carry the text Ruby/OpenSSL would give.
//! * The `PKCS7` encryptor: the PEM private key (PKCS#1 or PKCS#8 RSA) and certificate, a
//!   PKCS#7 `EnvelopedData` (DER, read here) with one RSA PKCS#1 v1.5 key transport per
//!   recipient, content in AES-CBC (hiera-eyaml makes AES-256-CBC), as OpenSSL's
//!   `PKCS7_decrypt` checks them: the key must match the certificate, a recipient must name
//!   the certificate's issuer and serial number, and a wrong key shows as `bad decrypt`.
//!
//! Key material is handed in by the caller (read through the lookup's data source).

use aes::cipher::{block_padding::Pkcs7, BlockDecryptMut, KeyIvInit};
use rsa::pkcs1::DecodeRsaPrivateKey;
use rsa::pkcs8::{DecodePrivateKey, DecodePublicKey};
use rsa::traits::PublicKeyParts;
use rsa::{Pkcs1v15Encrypt, RsaPrivateKey, RsaPublicKey};

/// Why a string could not be decrypted.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum DecryptError {
    /// A `StandardError` in Ruby: Puppet reports `hiera-eyaml backend error decrypting ...
    /// Error was MESSAGE`.
    Standard(String),
    /// An encryption scheme without an encryptor (`ENC[GPG,...]` without the plugin): Ruby's
    /// `LoadError`, which Puppet prints as it is.
    Load(String),
}

/// Where the `PKCS7` encryptor gets its key and certificate: the level's
/// `pkcs7_private_key`/`pkcs7_public_key` (paths) and `..._env_var` options.
pub(crate) trait KeySource {
    /// An option's value as Ruby would use it (`None` for a missing, `nil` or `false` one).
    fn option(&self, name: &str) -> Option<String>;
    /// `File.read(path)`: the text, or Ruby's error message.
    fn read(&self, path: &str) -> Result<String, String>;
    /// An environment variable.
    fn env(&self, name: &str) -> Option<String> {
        std::env::var(name).ok()
    }
}

/// Ruby's `/.*ENC\[.*?\]/ =~ data`: `ENC[` and a later `]` on one line.
pub(crate) fn is_encrypted(data: &str) -> bool {
    data.split('\n').any(|line| {
        line.find("ENC[")
            .is_some_and(|i| line[i + 4..].contains(']'))
    })
}

/// The string with each `ENC[...]` block replaced by its plain text, `chomp`ed (Puppet's
/// `decrypt`, for a string [`is_encrypted`] says is encrypted).
pub(crate) fn decrypt_string(data: &str, keys: &dyn KeySource) -> Result<String, DecryptError> {
    let bytes = data.as_bytes();
    let mut out = String::new();
    let mut pos = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i..].starts_with(b"ENC[") {
            if let Some(m) = match_block(bytes, i) {
                out.push_str(&data[pos..i]);
                out.push_str(&decrypt_block(data, i, m, keys)?);
                pos = m.end;
                i = m.end;
                continue;
            }
        }
        i += 1;
    }
    out.push_str(&data[pos..]);
    Ok(chomp(out))
}

/// Ruby's `String#chomp`: one trailing `\n`, `\r\n` or `\r` off.
fn chomp(mut s: String) -> String {
    if s.ends_with("\r\n") {
        s.truncate(s.len() - 2);
    } else if s.ends_with('\n') || s.ends_with('\r') {
        s.truncate(s.len() - 1);
    }
    s
}

/// A match of `ENC\[(\w+,)?([a-zA-Z0-9+/ =\n]+?)\]` (hiera-eyaml's hiera token).
#[derive(Debug, Clone, Copy)]
struct BlockMatch {
    /// The scheme (without its comma), as byte offsets.
    scheme: Option<(usize, usize)>,
    end: usize,
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn is_body(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b' ' | b'=' | b'\n')
}

/// The token starting at `at` (where `ENC[` is), if the regex matches there.
fn match_block(s: &[u8], at: usize) -> Option<BlockMatch> {
    let start = at + 4;
    let body_end = |from: usize| {
        let mut m = from;
        while m < s.len() && is_body(s[m]) {
            m += 1;
        }
        (m > from && s.get(m) == Some(&b']')).then_some(m)
    };
    let mut k = start;
    while k < s.len() && is_word(s[k]) {
        k += 1;
    }
    if k > start && s.get(k) == Some(&b',') {
        if let Some(m) = body_end(k + 1) {
            return Some(BlockMatch {
                scheme: Some((start, k)),
                end: m + 1,
            });
        }
    }
    body_end(start).map(|m| BlockMatch {
        scheme: None,
        end: m + 1,
    })
}

/// One token's plain text: its scheme's encryptor, the base64 body decoded, decrypted.
fn decrypt_block(
    data: &str,
    at: usize,
    m: BlockMatch,
    keys: &dyn KeySource,
) -> Result<String, DecryptError> {
    // Offsets of a match are at ASCII characters: slicing the string there is safe.
    let scheme = m.scheme.map_or("PKCS7", |(a, b)| &data[a..b]);
    let body_start = m.scheme.map_or(at + 4, |(_, b)| b + 1);
    let body: String = data[body_start..m.end - 1]
        .chars()
        .filter(|c| *c != ' ' && *c != '\n')
        .collect();
    if body.is_empty() {
        // The string token's regex does not match the token without its whitespace: Ruby
        // fails on the missing match data.
        return Err(DecryptError::Standard(
            "undefined method `[]' for nil:NilClass\n\n            create_enc_token(string, :string, md[1], md[2])\n                                                ^^^".to_string(),
        ));
    }
    if !scheme.eq_ignore_ascii_case("pkcs7") {
        return Err(DecryptError::Load(format!(
            "cannot load such file -- hiera/backend/eyaml/encryptors/{}",
            scheme.to_ascii_lowercase()
        )));
    }
    let cipher = ruby_decode64(&body);
    pkcs7_decrypt(&cipher, keys).map_err(DecryptError::Standard)
}

/// Ruby's `Base64.decode64` (`unpack("m")`): characters outside the alphabet skipped, `=`
/// ending the data, a last incomplete group decoded as far as it goes.
fn ruby_decode64(text: &str) -> Vec<u8> {
    fn value(b: u8) -> Option<u32> {
        Some(match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    }
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let mut group = [0u32; 4];
    let mut n = 0;
    for b in text.bytes() {
        if b == b'=' && n >= 2 {
            break;
        }
        let Some(v) = value(b) else { continue };
        group[n] = v;
        n += 1;
        if n == 4 {
            let w = group[0] << 18 | group[1] << 12 | group[2] << 6 | group[3];
            out.extend_from_slice(&[(w >> 16) as u8, (w >> 8) as u8, w as u8]);
            n = 0;
        }
    }
    if n >= 2 {
        out.push((group[0] << 2 | group[1] >> 4) as u8);
        if n == 3 {
            out.push((group[1] << 4 | group[2] >> 2) as u8);
        }
    }
    out
}

/// hiera-eyaml's `Pkcs7.decrypt`: options checked, key and certificate read, the PKCS#7
/// structure parsed and decrypted (OpenSSL's messages on failure).
fn pkcs7_decrypt(cipher: &[u8], keys: &dyn KeySource) -> Result<String, String> {
    let public_key = keys.option("pkcs7_public_key");
    let public_env = keys.option("pkcs7_public_key_env_var");
    let private_key = keys.option("pkcs7_private_key");
    let private_env = keys.option("pkcs7_private_key_env_var");
    if public_key.is_none() && public_env.is_none() {
        return Err("pkcs7_public_key is not defined".into());
    }
    if private_key.is_none() && private_env.is_none() {
        return Err("pkcs7_private_key is not defined".into());
    }
    let read = |env: &Option<String>, path: &Option<String>| -> Result<String, String> {
        if let Some(text) = env.as_deref().and_then(|e| keys.env(e)) {
            return Ok(text);
        }
        match path {
            Some(p) => keys.read(p),
            None => Err("no implicit conversion of nil into String".into()),
        }
    };
    let key = parse_private_key(&read(&private_env, &private_key)?)?;
    let cert = parse_certificate(&read(&public_env, &public_key)?)?;
    let data = decrypt_enveloped(cipher, &key, &cert)?;
    Ok(String::from_utf8_lossy(&data).into_owned())
}

/// The DER of the first PEM block with one of `labels` (OpenSSL skips other blocks).
fn pem_block(text: &str, labels: &[&str]) -> Option<Vec<u8>> {
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let Some(label) = line
            .trim_end()
            .strip_prefix("-----BEGIN ")
            .and_then(|l| l.strip_suffix("-----"))
        else {
            continue;
        };
        if !labels.contains(&label) {
            continue;
        }
        let end = format!("-----END {label}-----");
        let mut body = String::new();
        for l in lines.by_ref() {
            let l = l.trim();
            if l == end {
                return Some(ruby_decode64(&body));
            }
            if l.contains(':') {
                // An encrypted key (`Proc-Type: 4,ENCRYPTED`): OpenSSL would ask for a
                // pass phrase.
                return None;
            }
            body.push_str(l);
        }
        return None;
    }
    None
}

/// `OpenSSL::PKey::RSA.new(pem)` for a private key.
fn parse_private_key(pem: &str) -> Result<RsaPrivateKey, String> {
    let bad = || "Neither PUB key nor PRIV key: unsupported".to_string();
    if let Some(der) = pem_block(pem, &["RSA PRIVATE KEY"]) {
        return RsaPrivateKey::from_pkcs1_der(&der).map_err(|_| bad());
    }
    if let Some(der) = pem_block(pem, &["PRIVATE KEY"]) {
        return RsaPrivateKey::from_pkcs8_der(&der).map_err(|_| bad());
    }
    Err(bad())
}

/// What decryption needs of the certificate: the issuer and serial number a recipient names,
/// and its public key.
#[derive(Debug)]
struct Certificate {
    issuer: Vec<u8>,
    serial: Vec<u8>,
    key: Option<RsaPublicKey>,
}

/// `OpenSSL::X509::Certificate.new(pem)`.
fn parse_certificate(pem: &str) -> Result<Certificate, String> {
    let der = pem_block(
        pem,
        &["CERTIFICATE", "X509 CERTIFICATE", "TRUSTED CERTIFICATE"],
    )
    .ok_or_else(|| "PEM_read_bio_X509: no start line".to_string())?;
    let bad = || "PEM_read_bio_X509: bad base64 decode".to_string();
    let cert = Der::new(&der).sequence().ok_or_else(bad)?;
    let mut tbs = cert.clone().sequence().ok_or_else(bad)?;
    if tbs.peek_tag() == Some(0xa0) {
        tbs.any().ok_or_else(bad)?;
    }
    let serial = tbs.integer().ok_or_else(bad)?.to_vec();
    tbs.sequence().ok_or_else(bad)?; // signature algorithm
    let issuer = tbs.raw(0x30).ok_or_else(bad)?.to_vec();
    tbs.sequence().ok_or_else(bad)?; // validity
    tbs.sequence().ok_or_else(bad)?; // subject
    let spki = tbs.raw(0x30).ok_or_else(bad)?;
    Ok(Certificate {
        issuer,
        serial,
        key: RsaPublicKey::from_public_key_der(spki).ok(),
    })
}

const OID_ENVELOPED_DATA: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x03];
const OID_RSA_ENCRYPTION: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01];
/// 2.16.840.1.101.3.4.1 (AES), followed by 2, 22 or 42 for AES-128/192/256-CBC.
const OID_AES_PREFIX: &[u8] = &[0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x01];

/// `OpenSSL::PKCS7.new(der).decrypt(key, cert)`.
fn decrypt_enveloped(
    der: &[u8],
    key: &RsaPrivateKey,
    cert: &Certificate,
) -> Result<Vec<u8>, String> {
    let parse_error = || "Could not parse the PKCS7: no start line".to_string();
    let mut info = Der::new(der).sequence().ok_or_else(parse_error)?;
    let content_type = info.oid().ok_or_else(parse_error)?;
    let mut explicit = info.constructed(0xa0).ok_or_else(parse_error)?;
    if content_type != OID_ENVELOPED_DATA {
        return Err("wrong content type".into());
    }
    let mut env = explicit.sequence().ok_or_else(parse_error)?;
    env.integer().ok_or_else(parse_error)?;
    let mut recipients = env.constructed(0x31).ok_or_else(parse_error)?;
    let mut content = env.sequence().ok_or_else(parse_error)?;
    content.oid().ok_or_else(parse_error)?;
    let mut algorithm = content.sequence().ok_or_else(parse_error)?;
    let cipher_oid = algorithm.oid().ok_or_else(parse_error)?.to_vec();
    let iv = algorithm.octets();
    let encrypted = match content.peek_tag() {
        Some(0x80) => content.raw_value(0x80).ok_or_else(parse_error)?.to_vec(),
        Some(0xa0) => {
            let mut parts = content.constructed(0xa0).ok_or_else(parse_error)?;
            let mut all = Vec::new();
            while !parts.is_empty() {
                all.extend_from_slice(parts.octets().ok_or_else(parse_error)?);
            }
            all
        }
        _ => return Err("no content".into()),
    };

    if !key_matches(key, cert) {
        return Err("private key does not match certificate".into());
    }
    let mut encrypted_key = None;
    while !recipients.is_empty() {
        let mut ri = recipients.sequence().ok_or_else(parse_error)?;
        ri.integer().ok_or_else(parse_error)?;
        let mut ias = ri.sequence().ok_or_else(parse_error)?;
        let issuer = ias.raw(0x30).ok_or_else(parse_error)?;
        let serial = ias.integer().ok_or_else(parse_error)?;
        let mut alg = ri.sequence().ok_or_else(parse_error)?;
        let alg = alg.oid().ok_or_else(parse_error)?;
        let ek = ri.octets().ok_or_else(parse_error)?;
        if issuer == cert.issuer.as_slice() && serial == cert.serial.as_slice() {
            if alg != OID_RSA_ENCRYPTION {
                return Err(format!(
                    "unsupported key encryption algorithm {} (only rsaEncryption is implemented)",
                    oid_text(alg)
                ));
            }
            encrypted_key = Some(ek);
            break;
        }
    }
    let encrypted_key =
        encrypted_key.ok_or_else(|| "no recipient matches certificate".to_string())?;

    let key_len = match cipher_oid.strip_prefix(OID_AES_PREFIX) {
        Some([2]) => 16,
        Some([22]) => 24,
        Some([42]) => 32,
        _ => {
            return Err(format!(
                "unsupported cipher type {} (only AES-CBC is implemented)",
                oid_text(&cipher_oid)
            ))
        }
    };
    let iv = iv
        .filter(|iv| iv.len() == 16)
        .ok_or_else(|| "cipher parameter error".to_string())?;
    // OpenSSL goes on with a random key when the key transport fails (against padding
    // oracles): a wrong key shows as a failed decryption of the content.
    let bad = || "bad decrypt".to_string();
    let cek = key
        .decrypt(Pkcs1v15Encrypt, encrypted_key)
        .map_err(|_| bad())?;
    if cek.len() != key_len {
        return Err(bad());
    }
    let mut buf = encrypted;
    let plain = match key_len {
        16 => cbc::Decryptor::<aes::Aes128>::new_from_slices(&cek, iv)
            .map_err(|_| bad())?
            .decrypt_padded_mut::<Pkcs7>(&mut buf)
            .map_err(|_| bad())?
            .to_vec(),
        24 => cbc::Decryptor::<aes::Aes192>::new_from_slices(&cek, iv)
            .map_err(|_| bad())?
            .decrypt_padded_mut::<Pkcs7>(&mut buf)
            .map_err(|_| bad())?
            .to_vec(),
        _ => cbc::Decryptor::<aes::Aes256>::new_from_slices(&cek, iv)
            .map_err(|_| bad())?
            .decrypt_padded_mut::<Pkcs7>(&mut buf)
            .map_err(|_| bad())?
            .to_vec(),
    };
    Ok(plain)
}

/// OpenSSL's `X509_check_private_key`: the certificate's key is the key's public half.
fn key_matches(key: &RsaPrivateKey, cert: &Certificate) -> bool {
    cert.key
        .as_ref()
        .is_some_and(|k| k.n() == key.n() && k.e() == key.e())
}

/// An OID in dotted form.
fn oid_text(der: &[u8]) -> String {
    let mut arcs: Vec<u64> = Vec::new();
    let mut acc: u64 = 0;
    for b in der {
        acc = acc.saturating_mul(128) | u64::from(b & 0x7f);
        if b & 0x80 == 0 {
            if arcs.is_empty() {
                let first = (acc / 40).min(2);
                arcs.push(first);
                arcs.push(acc - first * 40);
            } else {
                arcs.push(acc);
            }
            acc = 0;
        }
    }
    arcs.iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(".")
}

/// A reader of DER (definite lengths only), over the contents of one constructed value.
#[derive(Debug, Clone)]
struct Der<'a> {
    data: &'a [u8],
}

impl<'a> Der<'a> {
    fn new(data: &'a [u8]) -> Der<'a> {
        Der { data }
    }

    fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    fn peek_tag(&self) -> Option<u8> {
        self.data.first().copied()
    }

    /// The next value: (tag, its whole encoding, its contents); advances past it.
    fn next(&mut self) -> Option<(u8, &'a [u8], &'a [u8])> {
        let d = self.data;
        let tag = *d.first()?;
        if tag & 0x1f == 0x1f {
            return None; // multi-byte tags do not occur here
        }
        let first = *d.get(1)? as usize;
        let (len, head) = if first < 0x80 {
            (first, 2)
        } else {
            let n = first & 0x7f;
            if n == 0 || n > 4 {
                return None;
            }
            let mut len = 0usize;
            for i in 0..n {
                len = (len << 8) | *d.get(2 + i)? as usize;
            }
            (len, 2 + n)
        };
        let end = head.checked_add(len)?;
        if end > d.len() {
            return None;
        }
        self.data = &d[end..];
        Some((tag, &d[..end], &d[head..end]))
    }

    fn expect(&mut self, tag: u8) -> Option<&'a [u8]> {
        match self.next()? {
            (t, _, contents) if t == tag => Some(contents),
            _ => None,
        }
    }

    fn any(&mut self) -> Option<&'a [u8]> {
        self.next().map(|(_, _, c)| c)
    }

    fn sequence(&mut self) -> Option<Der<'a>> {
        self.expect(0x30).map(Der::new)
    }

    fn constructed(&mut self, tag: u8) -> Option<Der<'a>> {
        self.expect(tag).map(Der::new)
    }

    fn integer(&mut self) -> Option<&'a [u8]> {
        self.expect(0x02)
    }

    fn oid(&mut self) -> Option<&'a [u8]> {
        self.expect(0x06)
    }

    fn octets(&mut self) -> Option<&'a [u8]> {
        self.expect(0x04)
    }

    fn raw_value(&mut self, tag: u8) -> Option<&'a [u8]> {
        self.expect(tag)
    }

    /// The whole encoding of the next value, which must have `tag`.
    fn raw(&mut self, tag: u8) -> Option<&'a [u8]> {
        match self.next()? {
            (t, whole, _) if t == tag => Some(whole),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encrypted_strings() {
        assert!(is_encrypted("a ENC[PKCS7,abc] b"));
        assert!(is_encrypted("x\nENC[x]"));
        assert!(!is_encrypted("ENC[PKCS7,ab\ncd]"));
        assert!(!is_encrypted("] ENC["));
    }

    #[test]
    fn tokens() {
        let m = match_block(b"ENC[PKCS7,ab c\n=]x", 0).unwrap();
        assert_eq!(m.scheme, Some((4, 9)));
        assert_eq!(m.end, 17);
        let m = match_block(b"ENC[abc]", 0).unwrap();
        assert_eq!(m.scheme, None);
        assert!(match_block(b"ENC[a,b,c]", 0).is_none());
        assert!(match_block(b"ENC[docs$]", 0).is_none());
        assert!(match_block(b"ENC[]", 0).is_none());
        assert!(match_block(b"ENC[PKCS7,\tab]", 0).is_none());
    }

    #[test]
    fn ruby_base64() {
        assert_eq!(ruby_decode64("YWJj"), b"abc");
        assert_eq!(ruby_decode64("YWI="), b"ab");
        assert_eq!(ruby_decode64("YWI"), b"ab");
        assert_eq!(ruby_decode64("YQ"), b"a");
        assert_eq!(ruby_decode64("Y"), b"");
        assert_eq!(ruby_decode64("Y W\nJj"), b"abc");
        assert_eq!(ruby_decode64("YQ==YWJj"), b"a");
    }

    #[test]
    fn chomps() {
        assert_eq!(chomp("a\r\n".into()), "a");
        assert_eq!(chomp("a\n\n".into()), "a\n");
        assert_eq!(chomp("a\r".into()), "a");
        assert_eq!(chomp("a".into()), "a");
    }

    #[test]
    fn oids() {
        assert_eq!(oid_text(OID_RSA_ENCRYPTION), "1.2.840.113549.1.1.1");
        assert_eq!(
            oid_text(&[0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x01, 0x2a]),
            "2.16.840.1.101.3.4.1.42"
        );
    }

    /// The fixture's key pair (made with the real `eyaml`, see `tests/eyaml.rs`).
    struct FixtureKeys;

    impl KeySource for FixtureKeys {
        fn option(&self, name: &str) -> Option<String> {
            Some(name.to_string())
        }
        fn read(&self, path: &str) -> Result<String, String> {
            Ok(match path {
                "pkcs7_private_key" => {
                    include_str!("../tests/fixtures/eyaml/keys/private_key.pkcs7.pem")
                }
                _ => include_str!("../tests/fixtures/eyaml/keys/public_key.pkcs7.pem"),
            }
            .to_string())
        }
        fn env(&self, _: &str) -> Option<String> {
            None
        }
    }

    #[test]
    fn damaged_data_fails_without_panicking() {
        let file = include_str!("../tests/fixtures/eyaml/data/wrongkey.eyaml");
        let block = file
            .lines()
            .find_map(|l| l.strip_prefix("wrongkey_secret: "))
            .unwrap();
        assert_eq!(decrypt_string(block, &FixtureKeys).unwrap(), "hunter2");
        let b64 = &block["ENC[PKCS7,".len()..block.len() - 1];
        let der = ruby_decode64(b64);
        let key = parse_private_key(&FixtureKeys.read("pkcs7_private_key").unwrap()).unwrap();
        let cert = parse_certificate(&FixtureKeys.read("pkcs7_public_key").unwrap()).unwrap();
        assert_eq!(decrypt_enveloped(&der, &key, &cert).unwrap(), b"hunter2");
        for n in 0..der.len() {
            assert!(decrypt_enveloped(&der[..n], &key, &cert).is_err());
        }
        // (Every 19th byte: each flip that still parses costs an RSA decryption, slow in
        // a debug build.)
        for i in (0..der.len()).step_by(19) {
            let mut d = der.clone();
            d[i] ^= 0x5a;
            // Flipping a byte of the encrypted key or content may leave valid padding by
            // chance: only no panic is required.
            let _ = decrypt_enveloped(&d, &key, &cert);
        }
    }
}
