# Joins configuration lines under a generated-file header.
function ntp_lite::render_config(Array[String] $lines) >> String {
  $header = @(END)
    # Managed by Puppet: local changes will be overwritten.
    | END
  "${header}${lines.join("\n")}\n"
}
