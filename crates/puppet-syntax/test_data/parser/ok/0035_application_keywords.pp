$x = 'application'
notice(site, produces, consumes)
