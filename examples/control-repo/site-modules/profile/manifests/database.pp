# @summary A PostgreSQL server: package, data directory, configuration, service, databases.
class profile::database (
  Integer[1]       $max_connections,
  String[1]        $data_dir,
  String[1]        $backup_dir,
  Array[String[1]] $databases = [],
) {
  $package = $facts['os']['family'] ? {
    'RedHat' => 'postgresql-server',
    default  => 'postgresql',
  }

  package { $package:
    ensure => installed,
  }
  -> file { [$data_dir, $backup_dir]:
    ensure => directory,
    owner  => 'postgres',
    group  => 'postgres',
    mode   => '0700',
  }
  -> file { '/etc/postgresql/puppet.conf':
    ensure  => file,
    content => epp('profile/postgresql.conf.epp', {
      'max_connections' => $max_connections,
      'data_dir'        => $data_dir,
    }),
  }
  ~> service { 'postgresql':
    ensure => running,
    enable => true,
  }

  $databases.each |$db| {
    exec { "createdb ${db}":
      command => "createdb ${db}",
      unless  => "psql -lqt | cut -d '|' -f 1 | grep -qw ${db}",
      user    => 'postgres',
      require => Service['postgresql'],
    }
  }

  file { '/usr/local/bin/pg-backup':
    ensure  => file,
    mode    => '0755',
    content => @("SCRIPT"/$),
      #!/bin/sh
      # Managed by Puppet: dumps every database to ${backup_dir}.
      for db in ${databases.join(' ')}; do
        pg_dump "\$db" > "${backup_dir}/\$db.sql"
      done
      | SCRIPT
  }
}
