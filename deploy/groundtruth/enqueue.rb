# Pushes the workload (workload.csv, argument 1) into Redis at its offsets
# from now, each job with its tenant, queue, service and the instant it was
# pushed (its arrival in the record).
#
#   REDIS_URL=redis://127.0.0.1:PORT/0 ruby enqueue.rb workload.csv
require "csv"
require "sidekiq"

Redis.silence_deprecations = true if Redis.respond_to?(:silence_deprecations=)

rows = CSV.read(ARGV.fetch(0), headers: true)
t0 = Time.now.to_f
rows.each do |r|
  wait = t0 + Integer(r["offset_ms"]) / 1000.0 - Time.now.to_f
  sleep(wait) if wait.positive?
  created = Time.now.to_f
  Sidekiq::Client.push("class" => "SleepJob", "queue" => r["queue"],
                       "args" => [Integer(r["id"]), r["tenant"], r["queue"], Integer(r["service_ms"]), created])
end
