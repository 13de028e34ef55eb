class outer {
  class inner {}
  define thing($x) {}
}
