//! Templates using Ruby's standard library (Time, Date, pack/unpack, Zlib, Random,
//! generator enumerators, `format`'s positional arguments) render as Puppet 7.23 renders
//! them: each expected text is Puppet's output for the same `inline_template`.

use puppet_erb::{render, IndexMap, SmolStr, TemplateScope};
use puppet_types::Value;

struct Scope;
impl TemplateScope for Scope {
    fn lookup(&self, _: &str) -> Option<Value> {
        None
    }
    fn all_variables(&self) -> IndexMap<SmolStr, Value> {
        IndexMap::new()
    }
    fn call_function(&mut self, name: &str, _: Vec<Value>) -> Result<Value, String> {
        Err(format!("Unknown function: '{name}'"))
    }
}

#[test]
fn library_templates_render_as_in_puppet() {
    let cases = [
        (
            r#"<%= Time.at(0).utc.strftime("%Y-%m-%d %H:%M:%S %z") %> <%= Time.at(1700000000).utc.iso8601 %> <%= Time.utc(2020, 2, 29).yday %>"#,
            "1970-01-01 00:00:00 +0000 2023-11-14T22:13:20Z 60",
        ),
        (
            r#"<%= Time.now.year > 2000 %> <%= Time.now.to_i > 0 %> <%= Time.now.strftime("%Y").length %> <%= (Time.now - Time.now).abs < 5 %>"#,
            "true true 4 true",
        ),
        (
            r#"<%- require 'date' -%><%= Date.parse("2024-03-15").strftime("%a %d %b") %> <%= (Date.new(2024, 3, 1) - 1).to_s %> <%= Date.new(2024,1,1).leap? %>"#,
            "Fri 15 Mar 2024-02-29 true",
        ),
        (
            r#"<%= [65, 66].pack("C*") %> <%= ["616263"].pack("H*") %> <%= [1].pack("N").bytes %> <%= "hi".unpack1("H*") %> <%= ["abc"].pack("m0") %>"#,
            "AB abc [0, 0, 0, 1] 6869 YWJj",
        ),
        (
            r#"<%= [3,1,2].max(2).inspect %> <%= [3,1,2].min(2).inspect %> <%= [3,1,2].max_by(2) { |x| -x }.inspect %>"#,
            "[3, 2] [1, 2] [1, 2]",
        ),
        (
            r#"<%- e = Enumerator.new { |y| y << 1; y.yield 2 } -%><%= e.to_a.inspect %> <%= e.next %> <%= e.first(1).inspect %>"#,
            "[1, 2] 1 [1]",
        ),
        (
            r#"<%- require "zlib" -%><%= Zlib.crc32("hello") %>"#,
            "907060870",
        ),
        (
            r#"<%= Random.new(42).rand(100) %> <%= [1,2,3].shuffle(random: Random.new(1)).inspect %>"#,
            "51 [1, 3, 2]",
        ),
        (
            r#"<%= sprintf("%3$s %1$s %2$s", "a", "b", "c") %> <%= "%c" % 65 %> <%= "%g" % 1234567.0 %> <%= "%g" % 0.0001 %> <%= "%.2e" % 0.000123 %>"#,
            "c a b A 1.23457e+06 0.0001 1.23e-04",
        ),
        (r#"<%= 10.0.to_r %>"#, "10/1"),
        // Puppet has loaded 'date' and 'time': no require needed.
        (
            r#"<%= Date.today.to_s.length %> <%= Date.new(2024,1,1).leap? %>"#,
            "10 true",
        ),
        (
            r#"<%= Time.parse("2024-03-15 10:20:30").to_i %> <%= Time.parse("2024-03-15T10:20:30Z").utc? %> <%= Date.parse("2024-03-15").yday %>"#,
            "1710498030 true 75",
        ),
        (
            r#"<%= Time.at(1700000000).utc.strftime("%a, %d %b %Y %H:%M:%S %Z|%-I:%M%P|%s|%j|%U|%u") %> <%= Time.at(1700000000).httpdate %> <%= Time.at(1700000000).rfc2822 %> <%= Time.at(1700000000).xmlschema %>"#,
            "Tue, 14 Nov 2023 22:13:20 UTC|10:13pm|1700000000|318|46|2 Tue, 14 Nov 2023 22:13:20 GMT Tue, 14 Nov 2023 22:13:20 +0000 2023-11-14T22:13:20+00:00",
        ),
        (
            r#"<%= [1,2].pack("n*").unpack("n*").inspect %> <%= "abc".unpack("C*").map { |b| "%02x" % b }.join %> <%= [0xDEADBEEF].pack("N").unpack1("H*") %> <%= ["hello"].pack("m").chomp %> <%= "aGVsbG8=".unpack1("m") %>"#,
            "[1, 2] 616263 deadbeef aGVsbG8= hello",
        ),
        (
            r#"<%= (Date.new(2024,3,1) - Date.new(2024,1,1)).to_i %> <%= Rational(1, 3) %>"#,
            "60 1/3",
        ),
        (r#"<%= __method__.inspect %>"#, ":result"),
        // Integers beyond 64 bits (Ruby's Bignum), as templates render them.
        ("<%= 2**70 %>", "1180591620717411303424"),
        (
            "<%= require 'digest/md5'; Digest::MD5.hexdigest('web01').hex % 60 %>",
            "29",
        ),
    ];
    for (template, want) in cases {
        let got = render(template, "t.erb", &mut Scope)
            .map(String::from)
            .map_err(|e| e.to_string());
        assert_eq!(got.as_deref(), Ok(want), "{template}");
    }
}

#[test]
fn unimplemented_library_parts_are_unsupported_errors() {
    for (template, what) in [
        (
            "<%= (Date.new(2024,1,1)..Date.new(2024,1,3)).map(&:day) %>",
            "a Range of Date objects",
        ),
        ("<%= DateTime.now.year %>", "DateTime.now"),
        ("<%= (2**70).to_r %>", "Rational beyond 64 bits"),
        ("<%= ['a'].pack('M') %>", "pack/unpack directive 'M'"),
    ] {
        match render(template, "t.erb", &mut Scope) {
            Err(e) => assert!(
                e.is_unsupported() && e.to_string().contains(what),
                "{template}: {e}"
            ),
            Ok(out) => panic!("{template}: expected an error, got {out:?}"),
        }
    }
}
