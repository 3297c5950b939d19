# Writes the recorded workload (id,tenant,queue,offset_ms,service_ms), the
# same for every deployment and every run: a fixed seed, so a failure can
# be replayed. Four tenants send a steady mix over DURATION seconds (about
# 2.7 of the 8 threads busy); at FLOOD_AT the tenant `flood` dumps
# FLOOD_JOBS bulk jobs of 100 ms, about 23 s of the 5.3 threads left, so
# bulk queues behind critical and default work for half the run. The
# shape is chosen so that every p99 judged is a quantile of many waits,
# not the wait of one unlucky job: each tenant has some 20 bulk jobs
# caught in the flood (6% of its jobs, so its p99 is a flooded bulk wait
# of seconds), and some 600 critical and default jobs arrive while every
# thread is busy (their p99 is the 6th or so largest of those).
#
#   ruby workload.rb > workload.csv
DURATION = Float(ENV.fetch("GROUNDTRUTH_DURATION", "50"))
FLOOD_AT = 5.0
FLOOD_JOBS = Integer(ENV.fetch("GROUNDTRUTH_FLOOD", "1200"))
# per queue: arrivals per second over all tenants, service range in ms
MIX = { "critical" => [16.0, 20, 60], "default" => [12.0, 50, 200], "bulk" => [4.0, 100, 200] }.freeze
TENANTS = %w[t1 t2 t3 t4].freeze

rng = Random.new(20_261_202)
jobs = []
MIX.each do |queue, (rate, lo, hi)|
  t = 0.0
  loop do
    t += -Math.log(1.0 - rng.rand) / rate
    break if t >= DURATION

    jobs << [TENANTS[rng.rand(TENANTS.size)], queue, (t * 1000).round, rng.rand(lo..hi)]
  end
end
FLOOD_JOBS.times { jobs << ["flood", "bulk", (FLOOD_AT * 1000).round, 100] }
jobs.sort_by!.with_index { |j, i| [j[2], i] }
puts "id,tenant,queue,offset_ms,service_ms"
jobs.each_with_index { |(tenant, queue, at, ms), i| puts "#{i},#{tenant},#{queue},#{at},#{ms}" }
