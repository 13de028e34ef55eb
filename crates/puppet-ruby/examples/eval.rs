//! Runs a Ruby file with puppet-ruby and prints `inspect` of its last value (a development
//! aid: `cargo run -p puppet-ruby --example eval -- file.rb`).
fn main() {
    let path = std::env::args().nth(1).unwrap_or_default();
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    match puppet_ruby::eval_inspect(&text) {
        Ok(s) => println!("{s}"),
        Err(e) => println!("error: {e}"),
    }
}
