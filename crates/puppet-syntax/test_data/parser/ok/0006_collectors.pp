User <| title == 'alice' |>
Sshkey <<| tag == 'web' and (ensure == 'present' or ensure != 'absent') |>>
User <| |> { groups +> 'admin' }
Package <| |> -> Service <| |>
