include fz
##----
class fz(String $base = 'fz', Array[String] $list = ['a', 'b']) {
  file { "/tmp/${base}":
    content => template('fz/t.erb'),
  }
  file { "/tmp/${base}.epp":
    content => epp('fz/t.epp', { 'list' => $list }),
    before  => Fz_thing['one'],
  }
  fz_thing { 'one': value => 'v' }
}
##----
<% @list.each_with_index do |item, i| -%>
<%= i %>: <%= item.upcase %> <%= scope['fz::base'] %>
<% end -%>
<%= @list.map { |x| x * 2 }.join(',') %>
##----
<%- | Array[String] $list | -%>
<% $list.each |$i, $v| { -%>
<%= $i %> => <%= $v %>
<% } -%>
##----
fz::list: [c, d]
##----
Puppet::Functions.create_function(:'fz::rb') do
  dispatch :rb do
    param 'String', :s
  end
  def rb(s)
    s * 2
  end
end
##----
Puppet::Type.newtype(:fz_thing) do
  newparam(:name, namevar: true)
  newproperty(:value)
end
##----
{"name": "fz-fz", "version": "0.1.0", "author": "fz", "license": "MIT", "summary": "fz", "source": "fz", "dependencies": [{"name": "fz/m", "version_requirement": ">= 1.0.0"}]}
