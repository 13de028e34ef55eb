$x = $y ? { 1 => a, default => b }
$z = $y ? 1 => 2
