# A host name or IPv4 address of an NTP server.
type Ntp_lite::Server = Pattern[/\A[a-z0-9.-]+\z/]
