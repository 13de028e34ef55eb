File { mode => '0644' }
File['/x'] { owner => root, group +> wheel }
Resource['file'] { a => 1 }
