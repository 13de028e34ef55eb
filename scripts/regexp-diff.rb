# Ruby's side of the regexp differential tester (scripts/regexp-diff.py): reads JSON lines
# {"p": source, "f": options ("i", "m", "x"), "t": [texts]} on stdin and writes, per line,
# what Ruby 3.1 (Onigmo) does: {"err": message} when Regexp.new refuses the source, else
# the group names ([name, [indices]] pairs) and, per text, the byte spans of every group of
# the first match ("first", null for none) and of every match `scan` iterates over ("all"),
# plus `gsub` with a replacement of every group and `split`.
require 'json'
require 'timeout'

def spans(m, text)
  (0...m.size).map do |i|
    b = m.begin(i)
    b.nil? ? nil : [text[0, b].bytesize, text[0, m.end(i)].bytesize]
  end
end

$stdout.sync = true
STDIN.each_line do |line|
  q = JSON.parse(line)
  opts = 0
  opts |= Regexp::IGNORECASE if q['f'].include?('i')
  opts |= Regexp::MULTILINE if q['f'].include?('m')
  opts |= Regexp::EXTENDED if q['f'].include?('x')
  out = begin
    re = Regexp.new(q['p'], opts)
    names = re.named_captures.map { |n, is| [n, is] }
    cases = q['t'].map do |t|
      begin
        Timeout.timeout(2) do
          m = re.match(t)
          all = []
          t.scan(re) { all << spans($~, t); break if all.size > 1000 }
          rep = q['r']
          gsub = begin
            rep ? t.gsub(re, rep) : nil
          rescue IndexError => e
            "ERR #{e.message}"
          end
          split = t.split(re)
          { 'first' => m && spans(m, t), 'all' => all, 'gsub' => gsub, 'split' => split }
        end
      rescue Timeout::Error
        { 'timeout' => true }
      rescue StandardError => e
        { 'err' => e.message }
      end
    end
    { 'names' => names, 'cases' => cases }
  rescue RegexpError, ArgumentError, SyntaxError => e
    { 'err' => e.message }
  end
  puts JSON.generate(out)
end
