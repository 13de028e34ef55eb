User <| title == 'a' |>
File <<| tag == 'b' |>> { mode => 1 }
Host <| |>
