# Runs each "### name" case of ARGV[0] with the real Ruby in a forked child (5 s limit) and
# writes one JSON line a case to ARGV[1]: value (inspect) or error (class, message). Used by
# scripts/ruby-diff.py.
require 'json'
ENV['TZ'] = 'UTC'
text = File.read(ARGV[0])
cases = text.split(/^### /).reject { |c| c.strip.empty? }.map do |c|
  name, code = c.split("\n", 2)
  [name.strip, code.to_s]
end
out = File.open(ARGV[1], 'w')
cases.each do |name, code|
  r, w = IO.pipe
  pid = fork do
    r.close
    $stdout.reopen(File::NULL)
    res = begin
      v = TOPLEVEL_BINDING.eval(code, '(eval)', 1)
      { 'value' => v.inspect }
    rescue Exception => e
      { 'error' => { 'class' => e.class.name, 'message' => e.message } }
    end
    w.write(JSON.generate(res)) rescue w.write(JSON.generate({'error'=>{'class'=>'?','message'=>'unencodable'}}))
    w.close
    exit!(0)
  end
  w.close
  data = nil
  t = Thread.new { data = r.read }
  unless t.join(5)
    Process.kill('KILL', pid)
    t.join
  end
  Process.wait(pid)
  res = (JSON.parse(data) rescue { 'timeout' => true })
  out.puts JSON.generate({ 'name' => name }.merge(res))
end
out.close
