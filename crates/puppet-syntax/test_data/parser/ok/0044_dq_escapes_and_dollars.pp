$a = "tab\t nl\n cr\r quote\" dollar\$ backslash\\ sq\' space\s unicode\u0041 end $"
$b = "price: $5 and $ alone and ${x}text"
