//! Timestamps and Timespans read with formats and time zones, and their default texts.
//!
//! The expected logs were produced by Puppet 7.23 itself:
//! `/work/shared/oracle/compile-catalog --with-logs ts.pp` with the program below (note
//! Puppet's `%-N`: 0.05 s shows as `.5`, and seconds are truncated to nanoseconds).

use puppet_eval::{evaluate_source, Settings};

const PROGRAM: &str = r#"notice(Timestamp('20160828', '%Y%m%d'))
notice(Timestamp('2016-08-28 10:00 +0200', '%F %R %z'))
notice(Timestamp('2016-08-28 10:00', '%F %R', '-03:30'))
notice(Timestamp('2016/240', '%Y/%j'))
notice(Timestamp('Aug 28 2016 10:00:00.25', '%b %d %Y %T.%L'))
notice(Timestamp('  2016-08-28', ' %F'))
notice(Timespan('3h', '%Hh'))
notice(Timespan('90m', '%Mm'))
notice(Timespan('1:30', '%H:%M'))
notice(Timespan('-1:30', '%H:%M'))
notice(Timespan(' 5', '%_S'))
notice(Timespan('1.5', '%S.%L'))
notice(Timespan('1, 2, 3, 4', ['%D, %H, %M, %S']))
notice(Timespan(1, 2, 3, 4))
notice(Timespan(1, 2, 3, 4, 5, 6, 7))
notice(Timespan(0.05)) notice(Timespan(1.000001))
"#;

const PUPPET: &[&str] = &[
    "2016-08-28T00:00:00.000000000 UTC",
    "2016-08-28T08:00:00.000000000 UTC",
    "2016-08-28T13:30:00.000000000 UTC",
    "2016-01-01T00:00:00.000000000 UTC",
    "2016-08-28T10:00:00.250000000 UTC",
    "2016-08-28T00:00:00.000000000 UTC",
    "0-03:00:00.0",
    "0-01:30:00.0",
    "0-01:30:00.0",
    "-0-01:30:00.0",
    "0-00:00:05.0",
    "0-00:00:01.5",
    "1-02:03:04.0",
    "1-02:03:04.0",
    "1-02:03:04.5006007",
    "0-00:00:00.5",
    "0-00:00:01.999",
];

#[test]
fn time_formats_read_as_puppet() {
    let out = evaluate_source(PROGRAM, &Settings::default());
    assert!(out.value.is_ok(), "{:?}", out.value);
    let logs: Vec<&str> = out.logs.iter().map(|l| l.message.as_str()).collect();
    assert_eq!(logs, PUPPET);
}
