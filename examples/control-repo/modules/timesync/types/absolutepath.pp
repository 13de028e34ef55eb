# An absolute Unix path.
type Timesync::Absolutepath = Pattern[/\A\/[^\/]/]
