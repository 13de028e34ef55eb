if $x { 1 } elsif $y { 2 } else { 3 4 }
if $a {}
unless $b { c } else { d }
notice(1)
