# Sidekiq's cost per job that fairsim's scenario must be told: the gap
# between the finish of a job and the start of the next one on the same
# thread, while that thread had work waiting (the next job arrived before
# the first finished). That is the fetch (a BRPOP round trip), the job's
# parsing and middleware, and the two log lines Sidekiq writes per job.
# Prints the mean gap in whole microseconds, for the scenario's
# `costs: {claim: ...}`: the mean, not the median, because it is the sum
# of the gaps that delays the jobs queued behind, and on a loaded machine
# a few gaps of tens of milliseconds carry much of it.
#
#   ruby overhead.rb RECORD.csv
require "csv"

by_thread = Hash.new { |h, k| h[k] = [] }
CSV.foreach(ARGV.fetch(0), headers: true) do |r|
  by_thread[r["thread"]] << [Float(r["created_at"]), Float(r["started_at"]), Float(r["finished_at"])]
end
gaps = []
by_thread.each_value do |jobs|
  jobs.sort_by! { |j| j[1] }
  jobs.each_cons(2) { |a, b| gaps << b[1] - a[2] if b[0] < a[2] }
end
abort "overhead.rb: no thread ever had work waiting in #{ARGV[0]}" if gaps.empty?
puts (gaps.sum / gaps.size * 1e6).round
