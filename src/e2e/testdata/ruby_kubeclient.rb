# Debian's ruby-kubeclient against the server (src/e2e/ruby-kubeclient.test.ts runs it): its
# watch_* methods use kube-apiserver's deprecated /watch/ paths. Prints one JSON line per
# observation; the test checks them. Env: PLATFORM_URL (the management API), PLATFORM_TOKEN,
# PLATFORM_CA (a PEM file), and the resourceVersion to watch from in PLATFORM_FROM.
require "json"
require "kubeclient"

api = ENV.fetch("PLATFORM_URL")
options = {
  ssl_options: { ca_file: ENV.fetch("PLATFORM_CA"), verify_ssl: OpenSSL::SSL::VERIFY_PEER },
  auth_options: { bearer_token: ENV.fetch("PLATFORM_TOKEN") },
  timeouts: { open: 10, read: 20 },
}
client = Kubeclient::Client.new("#{api}/apis/management.platform", "v1", **options)
from = ENV.fetch("PLATFORM_FROM")

# Reads `count` events of a watch, then closes it.
def events(watcher, count)
  seen = []
  watcher.each do |notice|
    seen << "#{notice.type} #{notice.object.metadata.name}"
    break if seen.size >= count
  end
  seen
ensure
  watcher.finish
end

puts JSON.generate(
  watch: "teams",
  events: events(client.watch_teams(resource_version: from), 3),
)
puts JSON.generate(
  watch: "teams/ruby-b",
  events: events(client.watch_teams(name: "ruby-b", resource_version: from), 2),
)
puts JSON.generate(
  watch: "namespaces/platform/sharedsecrets",
  events: events(client.watch_shared_secrets(namespace: "platform", resource_version: from), 1),
)
