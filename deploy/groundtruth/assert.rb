# Judges one deployment's calibration folder; prints every figure and the
# worst error, exits 1 when one is past its tolerance.
#
#   ruby assert.rb strict DIR/calibration     # |sim - rec| <= max(5% of rec, 20 ms), mean and p99
#   ruby assert.rb weighted DIR/calibration   # recorded p99 within the band of the seeds, same margin
#
# The margin: 5% of the recorded figure, but never under 20 ms. The floor is
# for the waits of a few milliseconds (critical jobs under a strict poll):
# there Sidekiq's own cost of fetching a job (a BRPOP round trip and the
# job's deserialisation, 1-5 ms per job, more on a loaded machine), which
# fairsim does not model, is the whole difference, and 5% of 3 ms is under
# the clock's scheduling noise.
require "csv"

RELATIVE = 0.05
FLOOR = 0.020

kind, dir = ARGV.fetch(0), ARGV.fetch(1)
allowed = ->(rec) { [RELATIVE * rec, FLOOR].max }
worst = [0.0, nil]
bad = []
check = lambda do |what, rec, err|
  ratio = err.abs / allowed.call(rec)
  worst = [ratio, what] if ratio > worst[0]
  line = format("%-34s recorded %9.1f ms, error %+8.1f ms (%.2f of the allowed)", what, rec * 1000, err * 1000, ratio)
  puts line
  bad << line if ratio > 1.0
end

case kind
when "strict"
  %w[tenant class].each do |group|
    CSV.foreach(File.join(dir, "per_#{group}.csv"), headers: true) do |r|
      %w[mean p99].each do |m|
        rec = Float(r["recorded_#{m}_wait"])
        check.call("#{group} #{r[group]} #{m}", rec, Float(r["simulated_#{m}_wait"]) - rec)
      end
    end
  end
when "weighted"
  CSV.foreach(File.join(dir, "band.csv"), headers: true) do |r|
    next unless r["metric"] == "p99_wait" && r["group"] != "all"

    rec = Float(r["recorded"])
    check.call("#{r['group']} #{r['name']} p99 (band)", rec, Float(r["outside_by"]))
  end
else
  abort "assert.rb: unknown deployment #{kind}; give strict or weighted"
end
puts format("worst: %s at %.2f of the allowed error", worst[1] || "every figure exact (inside its band)", worst[0])
unless bad.empty?
  warn "groundtruth #{kind}: #{bad.size} figures past the tolerance:"
  bad.each { |l| warn "  #{l}" }
  exit 1
end
