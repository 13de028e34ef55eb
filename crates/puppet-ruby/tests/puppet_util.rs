//! Puppet's Ruby helpers modules' functions call (`Puppet::Util`), compared with what Puppet
//! 7.23's Ruby answers (`ruby -e 'require "puppet"; p ...'`, recorded by hand below).

use puppet_ruby::eval_inspect;

#[test]
fn symbolizehash_makes_string_keys_symbols() {
    // Puppet: {:a=>1, :b=>2, 3=>4, :"x y"=>5}
    assert_eq!(
        eval_inspect(r#"Puppet::Util.symbolizehash({"a"=>1, :b=>2, 3=>4, "x y"=>5})"#).unwrap(),
        r#"{:a=>1, :b=>2, 3=>4, :"x y"=>5}"#
    );
    // Puppet: NoMethodError, "undefined method `each' for 5:Integer"
    let err = eval_inspect("Puppet::Util.symbolizehash(5)").unwrap_err();
    assert!(
        err.to_string()
            .contains("undefined method `each' for 5:Integer"),
        "{err}"
    );
}

#[test]
fn deterministic_rand_seeds_with_big_integers() {
    // Puppet: [249, "249", 4, "4"] (stdlib's seeded_rand(1000, 'abc') is 249)
    assert_eq!(
        eval_inspect(
            r#"require 'digest/md5'
s = Digest::MD5.hexdigest("abc").hex
[Puppet::Util.deterministic_rand_int(s, 1000), Puppet::Util.deterministic_rand(s, 1000),
 Puppet::Util.deterministic_rand_int(2**70, 60), Puppet::Util.deterministic_rand(7, 10)]"#
        )
        .unwrap(),
        r#"[249, "249", 4, "4"]"#
    );
    // stdlib's fqdn_rotate asks before calling it.
    assert_eq!(
        eval_inspect("Puppet::Util.respond_to?(:deterministic_rand)").unwrap(),
        "true"
    );
}

/// `code` stops with an unsupported-construct error (which no `rescue` takes) naming `what`.
fn assert_unsupported(code: &str, what: &str) {
    let err = eval_inspect(code).unwrap_err();
    assert!(
        matches!(err, puppet_ruby::RubyError::Unsupported { .. }),
        "{err}"
    );
    assert!(err.to_string().contains(what), "{err}");
}

#[test]
fn a_class_method_of_puppet_this_engine_lacks_is_unsupported_not_a_no_method_error() {
    // Puppet has `Timestamp.parse`: a NoMethodError here would send code that rescues it
    // down a path Puppet never takes. The error cannot be rescued and names the method.
    assert_unsupported(
        "begin; Puppet::Pops::Time::Timestamp.parse('2020-01-01'); rescue NoMethodError; :rescued; end",
        "Puppet::Pops::Time::Timestamp.parse",
    );
    // A class the code defines itself answers as Ruby does.
    assert_eq!(
        eval_inspect("module Puppet::Mine; end\nbegin; Puppet::Mine.nope; rescue NoMethodError => e; e.message; end").unwrap(),
        "\"undefined method `nope' for Puppet::Mine:Module\""
    );
}

#[test]
fn what_semantic_puppet_lacks_is_unsupported_not_a_name_error() {
    // Puppet vendors SemanticPuppet: what this engine has of it answers (checked against
    // the gem in tests/fixtures/library_cases.txt); what it lacks is an unsupported
    // construct, never a NameError or NoMethodError that `rescue` could answer for.
    assert_eq!(
        eval_inspect("SemanticPuppet::Version.parse('1.2.3').minor").unwrap(),
        "2"
    );
    assert_unsupported(
        "begin; SemanticPuppet::Dependency; rescue NameError; :rescued; end",
        "SemanticPuppet::Dependency",
    );
    assert_unsupported(
        "begin; SemanticPuppet::VersionRange.new(1, 2); rescue NoMethodError; :rescued; end",
        "SemanticPuppet::VersionRange.new",
    );
    assert_unsupported(
        "begin; SemanticPuppet::VersionRange.parse('1.x').intersection(nil); rescue NoMethodError; :rescued; end",
        "intersection",
    );
}

#[test]
fn the_platform_is_the_compiling_servers() {
    // A type file's `... unless Puppet::Util::Platform.windows?` (Puppet's own user type
    // has one): the catalog is compiled on a Linux Puppet server, as Puppet's answer there.
    assert_eq!(
        eval_inspect(
            "require 'puppet/util/platform'\nrequire 'enumerator'\n[Puppet::Util::Platform.windows?, Puppet::Util::Platform.jruby?, Puppet::Util::Platform.respond_to?(:windows?)]"
        )
        .unwrap(),
        "[false, false, true]"
    );
}
