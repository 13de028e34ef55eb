$c = @(JSON:json/tsrnu$)
  {"a": 1}
  | JSON
$d = [@(A), @(B)]
  first
  -A
  second
  - B
