unless $facts['kernel'] == 'windows' {
  include unix
} else {
  include windows
}
