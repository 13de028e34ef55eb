class 123 {}
class {}
