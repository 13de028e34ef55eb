include m
notice($m::msg, $m::params::defaults)
